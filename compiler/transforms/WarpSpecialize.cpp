//===- WarpSpecialize.cpp - producer warps for pipelined TMA loops --------===//
//
// After tile-pipeline-loops, a TMA-streamed loop issues its copies from the
// compute warps: prologue copies before the loop, and in the body a barrier
// (every reader of the stage is done) followed by the refill copies S - 1
// trips ahead. Here a producer warpgroup takes the copies instead and runs
// the trips on its own: it waits for a stage to be released, not for a CTA
// barrier, so loads run ahead while the consumers compute. See
// docs/design/WARP_SPECIALIZATION.md.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Dialect/TileDialect.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// A whole warpgroup: setmaxnreg is warpgroup-collective.
constexpr int32_t kProducerWarps = 4;
/// What the producers keep: scalar code and copy issue.
constexpr int32_t kProducerRegisters = 40;
constexpr int64_t kRegisterFile = 65536;

/// The registers each consumer thread can take once the producers gave
/// theirs up: a multiple of 8, at most 240.
int32_t consumerRegisters(int64_t consumerWarps) {
  int64_t spare = kRegisterFile - kProducerWarps * 32 * kProducerRegisters;
  int64_t perThread = spare / (consumerWarps * 32) / 8 * 8;
  return int32_t(std::min<int64_t>(perThread, 240));
}

/// The ops of `loop`'s body that `roots` need, in body order: everything
/// their operands are computed from inside the body. Fails when that
/// includes a loop-carried value or an op with effects other than a scalar
/// load (the producer replays the computation on its own).
FailureOr<SmallVector<Operation *>> copySlice(scf::ForOp loop,
                                              ArrayRef<TmaCopyOp> roots) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> worklist;
  for (TmaCopyOp copy : roots)
    llvm::append_range(worklist, copy->getOperands());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == loop.getBody() && arg != loop.getInductionVar())
        return failure(); // loop-carried
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != loop.getBody() || needed.contains(def))
      continue;
    bool scalarLoad =
        isa<LoadOp>(def) && !isa<RankedTensorType>(def->getResult(0).getType());
    if (def->getNumRegions() || (!isMemoryEffectFree(def) && !scalarLoad))
      return failure();
    needed.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered(needed.begin(), needed.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// (iv - lb) / step: the trip index.
Value tripIndex(OpBuilder &b, Location loc, scf::ForOp loop, Value iv) {
  Value offset = arith::SubIOp::create(b, loc, iv, loop.getLowerBound());
  return arith::DivSIOp::create(b, loc, offset, loop.getStep());
}

Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

struct WarpSpecializePass
    : mlir::tile::impl::TileWarpSpecializeBase<WarpSpecializePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module->hasAttr(TileDialect::WarpSpecializeAttrHelper::getNameStr()))
      return;
    auto warps = module->getAttrOfType<IntegerAttr>(
        TileDialect::NumWarpsAttrHelper::getNameStr());
    int64_t consumerWarps = warps ? warps.getInt() : 4;
    bool split = false;
    module.walk([&](func::FuncOp func) {
      if (func.isExternal() ||
          !func->hasAttr(TileDialect::KernelAttrHelper::getNameStr()))
        return;
      for (auto loop : func.getBody().front().getOps<scf::ForOp>())
        if (succeeded(specialize(loop, consumerWarps))) {
          split = true;
          break; // the consumer region runs to the end: one split per kernel
        }
    });
    if (split)
      module->setAttr(TileDialect::ProducerWarpsAttrHelper::getNameStr(),
                      IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                       kProducerWarps));
  }

private:
  /// Code before the split runs on the producer warps too, and layouts
  /// span the consumer warps only: no tensor may be computed there (a
  /// constant is registers, not code).
  static bool onlyScalarsBefore(scf::ForOp loop) {
    auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
    for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
      if (!isa<arith::ConstantOp>(op) &&
          (llvm::any_of(op->getOperandTypes(), isTensor) ||
           llvm::any_of(op->getResultTypes(), isTensor)))
        return false;
    return true;
  }

  LogicalResult specialize(scf::ForOp loop, int64_t consumerWarps) {
    SmallVector<TmaCopyOp> refills(loop.getBody()->getOps<TmaCopyOp>());
    if (refills.empty() || !onlyScalarsBefore(loop))
      return failure();
    // The refill barrier: the last barrier before the first refill copy.
    BarrierOp refillBarrier;
    for (Operation *op = refills.front()->getPrevNode(); op;
         op = op->getPrevNode())
      if ((refillBarrier = dyn_cast<BarrierOp>(op)))
        break;
    FailureOr<SmallVector<Operation *>> slice = copySlice(loop, refills);
    if (failed(slice))
      return failure();
    // The stage ring: every refill fills a buffer of S stages whose
    // barriers are this loop's; the prologue copies into the same buffers
    // (before the loop) give the lookahead.
    SetVector<Value> buffers;
    for (TmaCopyOp copy : refills)
      buffers.insert(copy.getBuffer());
    int64_t stages =
        cast<SharedBufferType>(buffers.front().getType()).getStages();
    SmallVector<TmaCopyOp> prologue;
    for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
      if (auto copy = dyn_cast<TmaCopyOp>(op);
          copy && buffers.contains(copy.getBuffer()))
        prologue.push_back(copy);
    int64_t lookahead = int64_t(prologue.size() / refills.size());
    if (lookahead < 1 || lookahead >= stages ||
        prologue.size() != size_t(lookahead) * refills.size())
      return failure();
    for (Value buffer : buffers)
      if (cast<SharedBufferType>(buffer.getType()).getStages() != stages)
        return failure();
    auto lastDot = llvm::find_if(llvm::reverse(*loop.getBody()),
                                 [](Operation &op) { return isa<DotOp>(op); });
    if (lastDot == loop.getBody()->rend())
      return failure();

    Location loc = loop.getLoc();
    MLIRContext *ctx = loop.getContext();
    OpBuilder b(loop);
    Value empty = MBarrierAllocOp::create(
        b, loc, MBarrierType::get(ctx, stages, consumerWarps), IntegerAttr());
    auto split =
        WarpSpecializeOp::create(b, loc, kProducerWarps, kProducerRegisters,
                                 consumerRegisters(consumerWarps));
    Block *producer = &split.getProducer().emplaceBlock();
    Block *consumer = &split.getConsumer().emplaceBlock();

    // Producer: trip i waits for stage i mod S, then copies trip i's tiles
    // (the refill slice, cloned with the induction value of the trip the
    // refill was issued in: iv - lookahead * step).
    b.setInsertionPointToStart(producer);
    auto trips = scf::ForOp::create(b, loc, loop.getLowerBound(),
                                    loop.getUpperBound(), loop.getStep());
    b.setInsertionPointToStart(trips.getBody());
    Value iv = trips.getInductionVar();
    Value trip = tripIndex(b, loc, loop, iv);
    Value stage = arith::RemSIOp::create(b, loc, trip, i32(b, loc, stages));
    Value round = arith::DivSIOp::create(b, loc, trip, i32(b, loc, stages));
    Value parity = arith::XOrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, round, i32(b, loc, 1)),
        i32(b, loc, 1));
    MBarrierWaitOp::create(b, loc, empty, stage, parity);
    IRMapping map;
    map.map(
        loop.getInductionVar(),
        arith::SubIOp::create(b, loc, iv,
                              arith::MulIOp::create(b, loc, loop.getStep(),
                                                    i32(b, loc, lookahead))));
    for (Operation *op : *slice)
      b.clone(*op, map);
    Value always = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    for (TmaCopyOp copy : refills) {
      auto clone = cast<TmaCopyOp>(b.clone(*copy, map));
      clone.getPredMutable().assign(always);
    }

    // Consumer: the loop and everything after it, without the copies; each
    // trip after the first releases the previous trip's stage once its own
    // dots are issued.
    while (Operation *next = split->getNextNode()) {
      if (next->hasTrait<OpTrait::IsTerminator>())
        break;
      next->moveBefore(consumer, consumer->end());
    }
    for (TmaCopyOp copy : refills)
      copy->erase();
    if (refillBarrier)
      refillBarrier->erase();
    for (TmaCopyOp copy : prologue)
      copy->erase();
    b.setInsertionPointAfter(&*lastDot);
    Value consumerIv = loop.getInductionVar();
    Value previous = arith::RemSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, tripIndex(b, loc, loop, consumerIv),
                              i32(b, loc, stages - 1)),
        i32(b, loc, stages));
    Value notFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                           consumerIv, loop.getLowerBound());
    MBarrierArriveOp::create(b, loc, empty, previous, notFirst,
                             buffers.getArrayRef(), /*perWarp=*/true);
    return success();
  }
};
} // namespace
