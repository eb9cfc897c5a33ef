//===- WarpSpecialize.cpp - producer warps for pipelined TMA loops --------===//
//
// After tile-pipeline-loops, a TMA-streamed loop issues its copies from the
// compute warps: prologue copies before the loop, and in the body a barrier
// (every reader of the stage is done) followed by the refill copies S - 1
// trips ahead. Here a producer warpgroup takes the copies instead and runs
// the trips on its own: it waits for a stage to be released, not for a CTA
// barrier, so loads run ahead while the consumers compute. The loop may sit
// under `if`s (MLA stage 1's `if start < end`): the producer replays them
// and the scalar code its copies need. See docs/design/WARP_SPECIALIZATION.md.
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"
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
/// What the producers keep: scalar code and copy issue fit in setmaxnreg's
/// minimum (ptxas spills nothing there), which leaves the consumers 240.
constexpr int32_t kProducerRegisters = 24;

/// Whether `op` may be replayed by the producer: scalar, and either free of
/// memory effects, a scalar load (a page-table entry), a ring's trip count
/// or a flag wait (the producer keeps its own), or a scalar loop or branch
/// made of such ops (a running sum over a table of lengths).
bool isReplayable(Operation *op) {
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  if (llvm::any_of(op->getOperandTypes(), isTensor) ||
      llvm::any_of(op->getResultTypes(), isTensor))
    return false;
  if (op->getNumRegions() == 0)
    return isMemoryEffectFree(op) || isa<LoadOp>(op) ||
           isa<PipelineBaseOp, WaitFlagOp>(op);
  if (!isa<scf::ForOp, scf::IfOp>(op))
    return false;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &inner : block)
        if (!isa<scf::YieldOp>(inner) && !isReplayable(&inner))
          return false;
  return true;
}

/// Whether erasing `op`, unused, leaves what the program does unchanged:
/// replayable, and no flag wait inside (a wait orders what comes after it).
bool isDeadScalar(Operation *op) {
  if (!op->use_empty() || !isReplayable(op))
    return false;
  return !op->walk([](WaitFlagOp) {
              return WalkResult::interrupt();
            }).wasInterrupted();
}

/// Buffers and barriers both partitions use: made before the split.
bool isHoistedAllocation(Operation *op) {
  return isa<MBarrierAllocOp>(op) ||
         (isa<LocalAllocOp>(op) && op->getNumOperands() == 0);
}

/// Erases what computed `values` (page-table loads, coordinates) where
/// nothing else uses it any more.
void eraseDeadScalars(ArrayRef<Value> values) {
  SmallVector<Operation *> worklist;
  for (Value value : values)
    if (Operation *def = value.getDefiningOp())
      worklist.push_back(def);
  // An op may be listed more than once; erased ones are skipped by
  // identity (nothing is created meanwhile).
  llvm::SmallPtrSet<Operation *, 16> erased;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val();
    if (erased.contains(def) || !isDeadScalar(def))
      continue;
    for (Value operand : def->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        worklist.push_back(producer);
    erased.insert(def);
    def->erase();
  }
}

/// What the producer replays: per block from the split down to the loop's
/// body (outermost first), the ops of that block the roots are computed
/// from, in block order. Values defined above the split flow in.
struct ProducerSlice {
  SmallVector<Block *> blocks; // the enclosing if/for bodies, then the body
  DenseMap<Block *, SmallVector<Operation *>> ops;
};

/// The slice of `roots` (the refill copies' operands, the loop's bounds and
/// the enclosing conditions) within `blocks`, with the flag waits there:
/// the producer must not read what a flag guards before the compute warps
/// may. Fails on a loop-carried value or an op the producer cannot replay.
FailureOr<ProducerSlice> producerSlice(scf::ForOp loop,
                                       ArrayRef<Block *> blocks,
                                       SmallVector<Value> worklist) {
  ProducerSlice slice;
  slice.blocks.assign(blocks.begin(), blocks.end());
  llvm::SmallPtrSet<Block *, 4> inSplit(blocks.begin(), blocks.end());
  llvm::SmallPtrSet<Operation *, 16> needed;
  for (Block *block : blocks)
    for (WaitFlagOp wait : block->getOps<WaitFlagOp>()) {
      needed.insert(wait);
      slice.ops[block].push_back(wait);
      llvm::append_range(worklist, wait->getOperands());
    }
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == loop.getBody() && arg != loop.getInductionVar())
        return failure(); // loop-carried
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (!inSplit.contains(def->getBlock()) || needed.contains(def) ||
        isHoistedAllocation(def))
      continue;
    if (!isReplayable(def))
      return failure();
    needed.insert(def);
    slice.ops[def->getBlock()].push_back(def);
    llvm::append_range(worklist, def->getOperands());
    // A replayed loop or branch also needs what its body reads from above.
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(def->getRegions(), captured);
    llvm::append_range(worklist, captured);
  }
  for (auto &[block, ops] : slice.ops)
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return slice;
}

/// base + (iv - lb) / step: the trip index (`base`: the ring's trips in
/// earlier entries of the loop, or null).
Value tripIndex(OpBuilder &b, Location loc, scf::ForOp loop, Value iv,
                Value base) {
  Value offset = arith::SubIOp::create(b, loc, iv, loop.getLowerBound());
  Value trip = arith::DivSIOp::create(b, loc, offset, loop.getStep());
  return base ? arith::AddIOp::create(b, loc, base, trip) : trip;
}

/// The trip count tile-pipeline-loops made for the ring of `barriers`
/// before `loop`, if the loop is entered more than once.
Value ringBase(scf::ForOp loop, Value barriers) {
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
    if (auto base = dyn_cast<PipelineBaseOp>(op);
        base && base.getRing() == barriers)
      return base;
  return Value();
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
      // Loops outermost first: the first one with TMA refills under
      // replayable control is split.
      SmallVector<scf::ForOp> loops;
      func.walk<WalkOrder::PreOrder>(
          [&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
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
  static bool onlyScalarsBefore(Operation *split) {
    auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
    for (Operation *op = split->getPrevNode(); op; op = op->getPrevNode())
      if (!isa<arith::ConstantOp>(op) &&
          (llvm::any_of(op->getOperandTypes(), isTensor) ||
           llvm::any_of(op->getResultTypes(), isTensor)))
        return false;
    return true;
  }

  /// The control around `loop` up to the kernel's body, outermost first:
  /// scf.if ops without results holding it in their then branch, and
  /// scf.for loops carrying scalars only (a persistent program's work loop,
  /// with a running offset). Fails on anything else: the producer replays
  /// exactly this control.
  static FailureOr<SmallVector<Operation *>>
  enclosingControl(scf::ForOp loop, Block *kernelBody) {
    SmallVector<Operation *> control;
    for (Operation *op = loop; op->getBlock() != kernelBody;) {
      Operation *parent = op->getParentOp();
      auto ifOp = dyn_cast<scf::IfOp>(parent);
      auto forOp = dyn_cast<scf::ForOp>(parent);
      if (ifOp && !ifOp->getNumResults() &&
          op->getParentRegion() == &ifOp.getThenRegion())
        control.push_back(ifOp);
      else if (forOp &&
               llvm::all_of(forOp.getInitArgs().getTypes(), [](Type type) {
                 return type.isIntOrIndexOrFloat();
               }))
        control.push_back(forOp);
      else
        return failure();
      op = parent;
    }
    std::reverse(control.begin(), control.end());
    return control;
  }

  static Block *bodyOf(Operation *control) {
    if (auto ifOp = dyn_cast<scf::IfOp>(control))
      return ifOp.thenBlock();
    return cast<scf::ForOp>(control).getBody();
  }

  /// Whether the stage trip i reads can be released in trip i itself: its
  /// last dot's result is carried to a trip that reads it (an attention
  /// rescale), so that dot is waited for in its own trip anyway. A pure
  /// accumulation chain (matmul) keeps its dot in flight across the back
  /// edge, and releases the previous trip's stage instead.
  static bool releasesOwnStage(scf::ForOp loop, DotOp lastDot) {
    for (OpOperand &use : lastDot->getUses()) {
      if (use.getOwner() != loop.getBody()->getTerminator())
        return true;
      Value carried = loop.getRegionIterArg(use.getOperandNumber());
      for (OpOperand &read : carried.getUses()) {
        auto dot = dyn_cast<DotOp>(read.getOwner());
        if (!dot || read.get() != dot.getAcc())
          return true;
      }
    }
    return false;
  }

  LogicalResult specialize(scf::ForOp loop, int64_t consumerWarps) {
    SmallVector<TmaCopyOp> refills(loop.getBody()->getOps<TmaCopyOp>());
    if (refills.empty())
      return failure();
    Block *kernelBody = &loop->getParentOfType<func::FuncOp>().front();
    FailureOr<SmallVector<Operation *>> control =
        enclosingControl(loop, kernelBody);
    if (failed(control))
      return failure();
    // The split replaces the top-level op holding the loop: everything from
    // there on runs on the consumers.
    Operation *anchor =
        control->empty() ? loop.getOperation() : control->front();
    if (!onlyScalarsBefore(anchor))
      return failure();
    // The refill barrier: the last barrier before the first refill copy.
    BarrierOp refillBarrier;
    for (Operation *op = refills.front()->getPrevNode(); op;
         op = op->getPrevNode())
      if ((refillBarrier = dyn_cast<BarrierOp>(op)))
        break;
    SmallVector<Block *> blocks;
    SmallVector<Value> roots = {loop.getLowerBound(), loop.getUpperBound(),
                                loop.getStep()};
    for (Operation *op : *control) {
      blocks.push_back(bodyOf(op));
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        roots.push_back(ifOp.getCondition());
        continue;
      }
      llvm::append_range(roots, op->getOperands()); // bounds, initial values
    }
    blocks.push_back(loop.getBody());
    for (TmaCopyOp copy : refills)
      llvm::append_range(roots, copy->getOperands());
    Value base = ringBase(loop, refills.front().getBarriers());
    if (base)
      roots.push_back(base);
    // A value a control loop carries is replayed where the slice reads it:
    // then its update is a root too, until nothing more is needed.
    llvm::SmallPtrSet<Value, 4> replayedCarried;
    FailureOr<ProducerSlice> slice;
    for (bool grew = true; grew;) {
      slice = producerSlice(loop, blocks, roots);
      if (failed(slice))
        return failure();
      llvm::DenseSet<Value> read(roots.begin(), roots.end());
      for (auto &[block, ops] : slice->ops)
        for (Operation *op : ops) {
          read.insert(op->operand_begin(), op->operand_end());
          SetVector<Value> captured;
          getUsedValuesDefinedAbove(op->getRegions(), captured);
          read.insert(captured.begin(), captured.end());
        }
      grew = false;
      for (Operation *op : *control)
        if (auto forOp = dyn_cast<scf::ForOp>(op))
          for (auto [arg, update] :
               llvm::zip(forOp.getRegionIterArgs(),
                         bodyOf(op)->getTerminator()->getOperands()))
            if (read.contains(arg) && replayedCarried.insert(arg).second) {
              roots.push_back(update);
              grew = true;
            }
    }
    // The producer runs a block's slice before the control nested in it:
    // what follows that control may move above it only if it neither
    // reads nor writes memory (a load after a flag wait must stay after).
    for (auto [level, block] : llvm::enumerate(ArrayRef(blocks).drop_back())) {
      Operation *inner = level + 1 < control->size() ? (*control)[level + 1]
                                                     : loop.getOperation();
      for (Operation *op : slice->ops.lookup(block))
        if (inner->isBeforeInBlock(op) && !isMemoryEffectFree(op))
          return failure();
    }
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
    // Buffers and barriers both partitions use are made before the split,
    // by every thread (mbarrier initialization ends in a CTA barrier).
    for (Operation *op : *control)
      for (Operation &inner :
           llvm::make_early_inc_range(bodyOf(op)->getOperations()))
        if (isHoistedAllocation(&inner))
          inner.moveBefore(anchor);

    Location loc = loop.getLoc();
    MLIRContext *ctx = loop.getContext();
    OpBuilder b(anchor);
    Value empty = MBarrierAllocOp::create(
        b, loc, MBarrierType::get(ctx, stages, consumerWarps), IntegerAttr());
    auto split = WarpSpecializeOp::create(
        b, loc, kProducerWarps, kProducerRegisters,
        WarpSpecializeOp::consumerRegisterBudget(consumerWarps, kProducerWarps,
                                                 kProducerRegisters));
    Block *producer = &split.getProducer().emplaceBlock();
    Block *consumer = &split.getConsumer().emplaceBlock();

    // Producer: the same control (the enclosing conditions and what they
    // and the loop's bounds are computed from), then trip i computes trip
    // i's coordinates (the refill slice, cloned with the induction value
    // of the trip the refill was issued in: iv - lookahead * step), waits
    // for stage i mod S to be free and copies.
    IRMapping map;
    b.setInsertionPointToStart(producer);
    // Loops carrying values get their yields once their bodies are made.
    SmallVector<std::pair<scf::ForOp, scf::ForOp>> carrying;
    for (auto [level, op] : llvm::enumerate(*control)) {
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        auto clone = scf::IfOp::create(
            b, loc, map.lookupOrDefault(ifOp.getCondition()), false);
        b.setInsertionPointToStart(clone.thenBlock());
      } else {
        auto forOp = cast<scf::ForOp>(op);
        SmallVector<Value> inits;
        for (Value init : forOp.getInitArgs())
          inits.push_back(map.lookupOrDefault(init));
        auto clone = scf::ForOp::create(
            b, loc, map.lookupOrDefault(forOp.getLowerBound()),
            map.lookupOrDefault(forOp.getUpperBound()),
            map.lookupOrDefault(forOp.getStep()), inits);
        map.map(forOp.getInductionVar(), clone.getInductionVar());
        map.map(forOp.getRegionIterArgs(), clone.getRegionIterArgs());
        if (!inits.empty())
          carrying.emplace_back(forOp, clone);
        b.setInsertionPointToStart(clone.getBody());
      }
      for (Operation *sliceOp : slice->ops.lookup(blocks[level]))
        b.clone(*sliceOp, map);
    }
    auto trips =
        scf::ForOp::create(b, loc, map.lookupOrDefault(loop.getLowerBound()),
                           map.lookupOrDefault(loop.getUpperBound()),
                           map.lookupOrDefault(loop.getStep()));
    b.setInsertionPointToStart(trips.getBody());
    Value iv = trips.getInductionVar();
    Value tripStep = trips.getStep();
    map.map(
        loop.getInductionVar(),
        arith::SubIOp::create(
            b, loc, iv,
            arith::MulIOp::create(b, loc, tripStep, i32(b, loc, lookahead))));
    for (Operation *op : slice->ops.lookup(loop.getBody()))
      b.clone(*op, map);
    Value trip =
        tripIndex(b, loc, trips, iv, base ? map.lookupOrNull(base) : Value());
    Value stage = arith::RemSIOp::create(b, loc, trip, i32(b, loc, stages));
    Value round = arith::DivSIOp::create(b, loc, trip, i32(b, loc, stages));
    Value parity = arith::XOrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, round, i32(b, loc, 1)),
        i32(b, loc, 1));
    Value always = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    MBarrierWaitOp::create(b, loc, empty, stage, parity);
    for (TmaCopyOp copy : refills) {
      auto clone = cast<TmaCopyOp>(b.clone(*copy, map));
      clone.getPredMutable().assign(always);
    }
    // A carried value the producer never reads stays as it came in.
    for (auto [original, clone] : carrying) {
      OpBuilder atEnd = OpBuilder::atBlockEnd(clone.getBody());
      SmallVector<Value> yielded;
      for (auto [arg, update, own] :
           llvm::zip(original.getRegionIterArgs(),
                     original.getBody()->getTerminator()->getOperands(),
                     clone.getRegionIterArgs()))
        yielded.push_back(
            replayedCarried.contains(arg) ? map.lookupOrDefault(update) : own);
      scf::YieldOp::create(atEnd, loc, yielded);
    }

    // Consumer: the top-level op holding the loop and everything after it,
    // without the copies.
    while (Operation *next = split->getNextNode()) {
      if (next->hasTrait<OpTrait::IsTerminator>())
        break;
      next->moveBefore(consumer, consumer->end());
    }
    SmallVector<Value> copyOperands;
    for (TmaCopyOp copy : llvm::concat<TmaCopyOp>(refills, prologue)) {
      llvm::append_range(copyOperands, copy->getOperands());
      copy->erase();
    }
    if (refillBarrier)
      refillBarrier->erase();
    eraseDeadScalars(copyOperands);
    Value consumerIv = loop.getInductionVar();
    if (releasesOwnStage(loop, cast<DotOp>(&*lastDot))) {
      // Trip i releases its own stage once its readers are done: the
      // producer refills it while trip i + 1 computes.
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value own = arith::RemSIOp::create(
          b, loc, tripIndex(b, loc, loop, consumerIv, base),
          i32(b, loc, stages));
      MBarrierArriveOp::create(b, loc, empty, own, Value(),
                               buffers.getArrayRef(), /*perWarp=*/true);
      return success();
    }
    // Each trip after the first releases the previous trip's stage once
    // its own dots are issued.
    b.setInsertionPointAfter(&*lastDot);
    Value previous = arith::RemSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, tripIndex(b, loc, loop, consumerIv, base),
                              i32(b, loc, stages - 1)),
        i32(b, loc, stages));
    Value notFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                           consumerIv, loop.getLowerBound());
    MBarrierArriveOp::create(b, loc, empty, previous, notFirst,
                             buffers.getArrayRef(), /*perWarp=*/true);
    if (!base)
      return success();
    // A loop entered again also releases its last trip's stage after it:
    // the producer refills it for the next entry.
    b.setInsertionPointAfter(loop);
    Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(),
                                       loop.getLowerBound());
    Value entryTrips = arith::DivSIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, span,
            arith::SubIOp::create(b, loc, loop.getStep(), i32(b, loc, 1))),
        loop.getStep());
    Value ran = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, span,
                                      i32(b, loc, 0));
    Value last = arith::RemSIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc,
                              arith::AddIOp::create(b, loc, base, entryTrips),
                              i32(b, loc, 1)),
        i32(b, loc, stages));
    MBarrierArriveOp::create(b, loc, empty, last, ran, buffers.getArrayRef(),
                             /*perWarp=*/true);
    return success();
  }
};
} // namespace
