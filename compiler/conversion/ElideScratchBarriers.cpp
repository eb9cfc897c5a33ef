//===- ElideScratchBarriers.cpp - leading barriers others already give ----===//
//
// A reduction across warps, a layout conversion through shared memory, an
// atomic_add (the old value) and a wgmma dot staging a register operand each
// write scratch, pass a barrier, then read it (a dot: wgmma reads it until
// its group is waited for). Their
// lowering also starts with a barrier, so that no thread overwrites bytes a
// slower thread still reads from an earlier use. That leading barrier is
// redundant when every path back from the op meets a barrier before any
// access to the same bytes: an explicit barrier, an op that ends in one
// (mbarrier setup, a resident operand's store, a cp.async wait), or another
// scratch user's own barrier when its bytes are elsewhere (tile-allocate-
// shared gives reductions and layout conversions their own region in
// wgmma kernels). The op is
// then marked `tile.scratch_ordered` and lowered without it.
//
// Waits are where asynchronous readers end: a dot_wait between that barrier
// and the op counts as an access to every region a wgmma dot of the kernel
// stages into (the reads it retires may have outlived the barrier). Paths
// are followed into enclosing scf.if, scf.for (the first trip and the back
// edge) and warp_specialize regions up to the kernel's entry; anything
// else, or an op with regions holding scratch users or barriers on the way,
// keeps the barrier.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Passes.h"
#include "tilemla/Conversion/Utility.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEELIDESCRATCHBARRIERS
#include "tilemla/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Scratch regions, as bits.
enum Region : unsigned { kCommon = 1, kStagedB = 2, kReduce = 4 };

/// What one kernel's scratch users touch.
struct Scratch {
  // Reductions' and layout conversions' region: kReduce when placed apart.
  unsigned reduceRegion = kCommon;
  unsigned stagedByDots = 0; // regions wgmma dots stage into
};

/// The regions a wgmma dot stages its register operands into.
unsigned stagedRegions(DotOp dot) {
  return (isSharedView(dot.getA()) ? 0u : kCommon) |
         (isSharedView(dot.getB()) ? 0u : kStagedB);
}

/// The region the leading barrier of `op`'s first scratch write protects;
/// 0 when its lowering has none.
unsigned firstWrite(Operation *op, const Scratch &scratch) {
  if (isa<ReduceOp>(op))
    return getScratchBytes(op) ? scratch.reduceRegion : 0;
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return convertsInRegisters(convert) ? 0 : scratch.reduceRegion;
  if (isa<ScanOp, AtomicAddOp>(op))
    return scratch.reduceRegion;
  auto dot = dyn_cast<DotOp>(op);
  if (!dot || !isWarpgroupDot(op))
    return 0;
  if (!isSharedView(dot.getA()))
    return kCommon;
  bool stagesB =
      !isSharedView(dot.getB()) &&
      !dot->hasAttr(TileDialect::ReuseStagedBAttrHelper::getNameStr());
  return stagesB ? unsigned(kStagedB) : 0u;
}

enum class Step { Continue, Ordered, Conflict };

/// What `op`, met walking back from a write to `region`, says about it.
Step classify(Operation *op, unsigned region, const Scratch &scratch) {
  if (isa<BarrierOp, MBarrierAllocOp, AsyncWaitOp>(op))
    return Step::Ordered;
  if (auto alloc = dyn_cast<LocalAllocOp>(op))
    return alloc.getInit() ? Step::Ordered : Step::Continue;
  if (isa<DotWaitOp>(op))
    return scratch.stagedByDots & region ? Step::Conflict : Step::Continue;
  if (auto dot = dyn_cast<DotOp>(op)) {
    if (!isWarpgroupDot(op)) // stages through scratch its own way
      return getScratchBytes(op) || !isSharedView(dot.getB()) ? Step::Conflict
                                                              : Step::Continue;
    if (stagedRegions(dot) & region)
      return Step::Conflict;
    return firstWrite(op, scratch) ? Step::Ordered : Step::Continue;
  }
  if (usesExchangeScratch(op)) {
    // Write, barrier, read: its own region conflicts, another is ordered.
    unsigned own = firstWrite(op, scratch);
    if (!own)
      return Step::Continue; // a reduction within warps
    return own & region ? Step::Conflict : Step::Ordered;
  }
  if (op->getNumRegions()) {
    // A barrier inside may not run; a scratch user inside may.
    bool quiet = true;
    op->walk([&](Operation *inner) {
      if (inner != op && !inner->getNumRegions() &&
          classify(inner, region, scratch) != Step::Continue)
        quiet = false;
    });
    return quiet ? Step::Continue : Step::Conflict;
  }
  return Step::Continue;
}

/// Walks back from `last` (exclusive; null: the block's end) to the start
/// of its block.
std::optional<bool> walkBack(Block *block, Operation *last, unsigned region,
                             const Scratch &scratch) {
  Operation *op = last ? last->getPrevNode() : &block->back();
  for (; op; op = op->getPrevNode())
    switch (classify(op, region, scratch)) {
    case Step::Ordered:
      return true;
    case Step::Conflict:
      return false;
    case Step::Continue:
      break;
    }
  return std::nullopt; // reached the block's start
}

/// Whether every path that reaches `op` passes a barrier after the last
/// access to `region`.
bool orderedBefore(Operation *op, unsigned region, const Scratch &scratch) {
  if (std::optional<bool> found = walkBack(op->getBlock(), op, region, scratch))
    return *found;
  Operation *parent = op->getBlock()->getParentOp();
  if (isa<func::FuncOp>(parent))
    return true; // nothing touched it before
  if (isa<scf::IfOp, WarpSpecializeOp>(parent))
    return orderedBefore(parent, region, scratch);
  if (auto loop = dyn_cast<scf::ForOp>(parent)) {
    if (!orderedBefore(loop, region, scratch))
      return false; // the first trip
    // Later trips: the previous trip's body, from its end.
    return walkBack(loop.getBody(), nullptr, region, scratch).value_or(false);
  }
  return false;
}

struct ElideScratchBarriersPass
    : mlir::tile::impl::TileElideScratchBarriersBase<ElideScratchBarriersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Scratch scratch;
    if (module->hasAttr(TileDialect::ReduceOffsetAttrHelper::getNameStr()))
      scratch.reduceRegion = kReduce;
    module.walk([&](DotOp dot) {
      if (isWarpgroupDot(dot))
        scratch.stagedByDots |= stagedRegions(dot);
    });
    UnitAttr mark = UnitAttr::get(&getContext());
    module.walk([&](Operation *op) {
      // atomic_add keeps its leading barrier: it orders the program's
      // writes before the add, not only the scratch.
      if (isa<AtomicAddOp>(op))
        return;
      unsigned region = firstWrite(op, scratch);
      if (region && orderedBefore(op, region, scratch))
        op->setAttr(TileDialect::ScratchOrderedAttrHelper::getNameStr(), mark);
    });
  }
};
} // namespace
