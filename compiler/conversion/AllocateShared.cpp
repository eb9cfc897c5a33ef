//===- AllocateShared.cpp - size the shared-memory scratch ----------------===//
#include "tilemla/Conversion/Passes.h"
#include "tilemla/Conversion/Utility.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "tilemla/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Marks dots that can read the b operand the previous tensor-core dot of the
/// same block staged: nothing but a tensor-core dot writes the b region, and
/// ops with regions may hold dots, so they end the chain.
void markStagedOperandReuse(Block &block) {
  DotOp previous;
  for (Operation &op : block) {
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        markStagedOperandReuse(inner);
    if (op.getNumRegions() != 0) {
      bool hasDot = false;
      op.walk([&](DotOp) { hasDot = true; });
      if (hasDot)
        previous = {};
      continue;
    }
    auto dot = dyn_cast<DotOp>(op);
    if (!dot || !isTensorCoreDot(dot) || isSharedView(dot.getB()))
      continue; // views are read in place and never staged
    // The staged layout differs between mma.sync (padded rows) and wgmma
    // (swizzled panels).
    if (previous && previous.getB() == dot.getB() &&
        isWarpgroupDot(previous) == isWarpgroupDot(dot))
      dot->setAttr(TileDialect::ReuseStagedBAttrHelper::getNameStr(),
                   UnitAttr::get(op.getContext()));
    previous = dot;
  }
}

struct AllocateSharedPass
    : mlir::tile::impl::TileAllocateSharedBase<AllocateSharedPass> {
  using TileAllocateSharedBase::TileAllocateSharedBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<tilemla::GpuTarget> gpu = parseTargetOption(module, arch);
    if (!gpu)
      return signalPassFailure();
    // Scratch sizes come from the operands' layouts (tile-assign-layouts):
    // IR without them verifies, but cannot be sized.
    WalkResult laidOut = module.walk([&](Operation *op) {
      if (!isa<ReduceOp, ScanOp, ConvertLayoutOp, DotOp>(op))
        return WalkResult::advance();
      for (Value operand : op->getOperands())
        if (auto tensor = dyn_cast<RankedTensorType>(operand.getType());
            tensor && !tensor.getEncoding()) {
          op->emitError() << "tile-allocate-shared needs the layouts of "
                             "tile-assign-layouts; this operand has none: "
                          << operand.getType();
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (laidOut.wasInterrupted())
      return signalPassFailure();
    unsigned common = 0, reduceBytes = 0, dotOperandBytes = 0;
    bool hasMmaDot = false, hasWgmmaDot = false;
    module.walk([&](Operation *op) {
      unsigned &scratch = usesExchangeScratch(op) ? reduceBytes : common;
      scratch = std::max(scratch, getScratchBytes(op));
      if (isWarpgroupDot(op))
        hasWgmmaDot = true;
      if (auto dot = dyn_cast<DotOp>(op);
          dot && isTensorCoreDot(dot) && !isSharedView(dot.getB())) {
        hasMmaDot = true;
        dotOperandBytes = std::max(dotOperandBytes, getMmaDotStagedBBytes(dot));
      }
    });
    // In wgmma kernels (attention's row statistics between dots that stage
    // p), reductions and layout conversions exchange values in a region of
    // their own, above everything else, when the budget allows: then they
    // and a dot's staging never touch the same bytes, and
    // tile-elide-scratch-barriers can drop barriers between them. Other
    // kernels keep one scratch (two programs per SM may need the bytes).
    bool separate = hasWgmmaDot && reduceBytes && common;
    unsigned bytes = layout(module, hasMmaDot, hasWgmmaDot, common, reduceBytes,
                            dotOperandBytes, separate);
    if (separate && bytes > gpu->maxSharedBytes())
      bytes = layout(module, hasMmaDot, hasWgmmaDot, common, reduceBytes,
                     dotOperandBytes, /*separate=*/false);
    if (bytes > gpu->maxSharedBytes()) {
      reportOverBudget(module, bytes, *gpu);
      signalPassFailure();
    }
  }

  /// Places the scratch, the b region, the buffers and the barriers; with
  /// `separateReductions`, the reductions' region last. Returns the bytes.
  static unsigned layout(ModuleOp module, bool hasMmaDot, bool hasWgmmaDot,
                         unsigned common, unsigned reduceBytes,
                         unsigned dotOperandBytes, bool separateReductions) {
    MLIRContext *context = module.getContext();
    Type i32 = IntegerType::get(context, 32);
    unsigned bytes =
        separateReductions ? common : std::max(common, reduceBytes);
    // Operands wgmma reads start where their swizzle pattern does.
    bytes = llvm::alignTo(bytes, hasWgmmaDot ? kSharedAlignment : 16);
    if (hasMmaDot) {
      module->setAttr(TileDialect::DotBOffsetAttrHelper::getNameStr(),
                      IntegerAttr::get(i32, bytes));
      bytes += llvm::alignTo(dotOperandBytes, 16);
      module.walk([](func::FuncOp func) {
        for (Block &block : func.getBody())
          markStagedOperandReuse(block);
      });
    }
    // Buffers of pipelined loops and resident operands live above, each in
    // its own region: they stay valid across the ops in between. The
    // swizzled ones come first, so that no small buffer between them costs
    // an alignment's padding.
    for (bool swizzled : {true, false})
      module.walk([&](LocalAllocOp alloc) {
        SharedBufferType type = alloc.getType();
        if (bool(type.getSwizzle()) != swizzled)
          return;
        if (swizzled)
          bytes = llvm::alignTo(bytes, kSharedAlignment);
        alloc.setOffset(bytes);
        bytes += llvm::alignTo(type.getStages() * type.getStageElements() *
                                   getSharedElementBytes(type.getElementType()),
                               16);
      });
    module.walk([&](MBarrierAllocOp alloc) {
      bytes = llvm::alignTo(bytes, 8);
      alloc.setOffset(bytes);
      bytes += 8 * alloc.getType().getCount();
    });
    StringRef reduceOffset = TileDialect::ReduceOffsetAttrHelper::getNameStr();
    module->removeAttr(reduceOffset);
    if (separateReductions) {
      bytes = llvm::alignTo(bytes, 16);
      module->setAttr(reduceOffset, IntegerAttr::get(i32, bytes));
      bytes += reduceBytes;
    }
    module->setAttr(TileDialect::SharedAttrHelper::getNameStr(),
                    IntegerAttr::get(i32, bytes));
    return bytes;
  }

  /// A kernel that cannot launch on its target is a compile error, named
  /// with its kernel and its bytes, rather than a failed launch later.
  static void reportOverBudget(ModuleOp module, unsigned bytes,
                               const tilemla::GpuTarget &gpu) {
    Operation *where = module;
    StringRef name = "module";
    module.walk([&](func::FuncOp func) {
      if (func->hasAttr(TileDialect::KernelAttrHelper::getNameStr())) {
        where = func;
        name = func.getName();
      }
    });
    where->emitError() << "kernel '" << name << "' needs " << bytes
                       << " bytes of shared memory; " << gpu.name()
                       << " allows " << gpu.maxSharedBytes()
                       << " per program (use smaller tiles or fewer "
                          "pipeline stages)";
  }
};
} // namespace
