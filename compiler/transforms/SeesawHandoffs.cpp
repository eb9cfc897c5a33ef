//===- SeesawHandoffs.cpp - one-way hand-offs inside a seesaw pair --------===//
//
// tile-seesaw-pairs leaves the values that cross between the warpgroups of
// a pair as layout conversions (and a dot's owned a operand, staged by the
// dot): exchanges through the scratch region, which both warpgroups meet
// at, so neither can run ahead of the other. Here, in a pair loop behind a
// producer warpgroup, each becomes a one-way hand-off through a slot of its
// own:
//  - the owner j writes it right after computing it (inside its run) and
//    its 128 threads arrive on the slot's "full" mbarrier;
//  - its readers (every consumer thread for an unowned result, warpgroup
//    1 - j for an owned one) wait for "full", read and arrive on "empty",
//    which j waits for before it writes the slot again;
//  - p (a dot's a operand) goes into the trip's stage of the ring buffer
//    only j's score dot read (the rope box), and its readers arrive on
//    "empty" once their dot is done, just before the stage's release.
// Both phases are the pair's index in this thread's count of pairs
// (tile.pipeline_base), the same for every slot of the loop.
//
// Then warpgroup 1's score dots of the second trip, with the stage wait,
// zeroing and views they read, move up to right after warpgroup 0's run of
// the first trip: both score dots are on the tensor cores together, and
// only warpgroup 1's softmax waits for the first trip's running max.
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESEESAWHANDOFFS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Whether `run` holds a dot whose accumulator its owner owns.
bool holdsScoreDot(scf::IfOp run) {
  int64_t owner = getRunOwner(run);
  bool found = false;
  run.getThenRegion().walk([&](DotOp dot) {
    found |= getOwningWarpgroup(dot.getAcc().getType()) == owner;
  });
  return found;
}

/// `scf.if (warpgroup_id == owner) -> types { } else { poison }`, marked as
/// the owner's run; the then block is left to fill (its yield is missing).
scf::IfOp makeRun(OpBuilder &b, Location loc, int64_t owner, TypeRange types) {
  Value warpgroup = WarpgroupIdOp::create(b, loc, b.getI32Type());
  Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     warpgroup, i32(b, loc, owner));
  auto run = scf::IfOp::create(b, loc, types, mine, /*withElse=*/true);
  run->setAttr(TileDialect::OwnerWarpgroupAttrHelper::getNameStr(),
               b.getI64IntegerAttr(owner));
  OpBuilder inElse = OpBuilder::atBlockEnd(run.elseBlock());
  SmallVector<Value> poison;
  for (Type type : types)
    poison.push_back(ub::PoisonOp::create(inElse, loc, type));
  scf::YieldOp::create(inElse, loc, poison);
  return run;
}

/// A pair loop's hand-offs: its slots and barriers are made at `above`.
class PairHandoffs {
public:
  PairHandoffs(scf::ForOp loop, OpBuilder &above)
      : loop(loop), body(*loop.getBody()), above(above) {}

  void run() {
    SmallVector<Operation *> crossings;
    for (Operation &op : body.without_terminator()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
        int64_t from = getOwningWarpgroup(convert.getSrc().getType());
        if (from >= 0 && getOwningWarpgroup(convert.getType()) != from)
          crossings.push_back(&op);
      } else if (auto dot = dyn_cast<DotOp>(op)) {
        if (getOwningWarpgroup(dot.getAcc().getType()) < 0 &&
            getOwningWarpgroup(dot.getA().getType()) >= 0)
          crossings.push_back(&op);
      }
    }
    for (Operation *op : crossings) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(op))
        handOverValue(convert);
      else
        handOverOperand(cast<DotOp>(op));
    }
    hoistSecondScores();
  }

private:
  scf::ForOp loop;
  Block &body;
  OpBuilder &above;
  // The seesaw's two warpgroups (tile-seesaw-pairs requires 8 warps).
  static constexpr int64_t consumerThreads = 2 * kWarpgroupThreads;
  Value parity; // (pairs this thread ran before this one) & 1
  llvm::SmallPtrSet<Operation *, 8> handOffOps; // p's stores and views
  /// p handed over, and the view its readers read it through: a later dot
  /// of the trip reading the same p (p . V by halves) reads that view.
  DenseMap<Value, Value> handedOver;

  Value pairParity(Value ring);
  scf::IfOp runOf(Value value) const;
  Value intoRun(Value value, scf::IfOp run);
  OpBuilder writePoint(Value inRun, scf::IfOp run);
  std::pair<Value, Value> makeBarriers(Location loc, int64_t readers);
  LocalStoreOp send(OpBuilder &b, Location loc, Value value, Value slot,
                    Value stage, Value full, Value empty);
  void handOverValue(ConvertLayoutOp convert);
  void handOverOperand(DotOp dot);
  Value freeStageBuffer(DotOp dot, RankedTensorType type,
                        MBarrierArriveOp release);
  void hoistSecondScores();
};

/// The pair's parity, made on the first hand-off: the pairs this thread ran
/// in earlier entries of the loop (counted per thread under `ring`, a key
/// only) plus this entry's trips so far.
Value PairHandoffs::pairParity(Value ring) {
  if (parity)
    return parity;
  Location loc = loop.getLoc();
  OpBuilder before(loop);
  Value base = PipelineBaseOp::create(before, loc, ring, loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep());
  OpBuilder top = OpBuilder::atBlockBegin(&body);
  Value trips = arith::DivSIOp::create(
      top, loc,
      arith::SubIOp::create(top, loc, loop.getInductionVar(),
                            loop.getLowerBound()),
      loop.getStep());
  parity = arith::AndIOp::create(
      top, loc, arith::AddIOp::create(top, loc, base, trips), i32(top, loc, 1));
  return parity;
}

/// The run of the pair body that computes `value` (directly or through
/// pure ops outside any run), or null.
scf::IfOp PairHandoffs::runOf(Value value) const {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != &body)
    return {};
  if (getRunOwner(def) >= 0)
    return cast<scf::IfOp>(def);
  if (!isMemoryEffectFree(def) || def->getNumRegions())
    return {};
  for (Value operand : def->getOperands())
    if (getOwningWarpgroup(operand.getType()) >= 0)
      if (scf::IfOp run = runOf(operand))
        return run;
  return {};
}

/// `value` as the then block of `run` can read it: what the run yields, a
/// value defined before the run, or a copy at the block's end of the pure
/// ops between (null when it is none of these).
Value PairHandoffs::intoRun(Value value, scf::IfOp run) {
  Operation *def = value.getDefiningOp();
  if (def == run.getOperation())
    return run.thenYield().getOperand(cast<OpResult>(value).getResultNumber());
  if (!def || def->getBlock() != &body || def->isBeforeInBlock(run))
    return value;
  if (!isMemoryEffectFree(def) || def->getNumRegions() ||
      def->getNumResults() != 1)
    return {};
  IRMapping mapping;
  for (Value operand : def->getOperands()) {
    Value inside = intoRun(operand, run);
    if (!inside)
      return {};
    mapping.map(operand, inside);
  }
  OpBuilder b(run.thenYield());
  return b.clone(*def, mapping)->getResult(0);
}

/// Right after `inRun` is computed in `run`'s then block, or at its start.
OpBuilder PairHandoffs::writePoint(Value inRun, scf::IfOp run) {
  Operation *def = inRun.getDefiningOp();
  if (def && def->getBlock() == run.thenBlock())
    return OpBuilder(def->getBlock(), std::next(def->getIterator()));
  return OpBuilder::atBlockBegin(run.thenBlock());
}

/// A slot's "full" (its writer's 128 threads) and "empty" (`readers`)
/// mbarriers.
std::pair<Value, Value> PairHandoffs::makeBarriers(Location loc,
                                                   int64_t readers) {
  MLIRContext *ctx = loop.getContext();
  Value full = MBarrierAllocOp::create(
      above, loc, MBarrierType::get(ctx, 1, kWarpgroupThreads), IntegerAttr());
  Value empty = MBarrierAllocOp::create(
      above, loc, MBarrierType::get(ctx, 1, readers), IntegerAttr());
  return {full, empty};
}

/// The writer's side: wait until the readers freed the slot (the previous
/// pair's phase), write, arrive on "full". Returns the write.
LocalStoreOp PairHandoffs::send(OpBuilder &b, Location loc, Value value,
                                Value slot, Value stage, Value full,
                                Value empty) {
  Value zero = i32(b, loc, 0);
  Value previous = arith::XOrIOp::create(b, loc, parity, i32(b, loc, 1));
  MBarrierWaitOp::create(b, loc, empty, zero, previous);
  auto store = LocalStoreOp::create(b, loc, value, slot, stage);
  MBarrierArriveOp::create(b, loc, full, zero, Value(), ValueRange(),
                           /*perWarp=*/false);
  return store;
}

/// A conversion out of warpgroup j's layout.
void PairHandoffs::handOverValue(ConvertLayoutOp convert) {
  Value sent = convert.getSrc();
  auto type = cast<RankedTensorType>(sent.getType());
  Type element = type.getElementType();
  scf::IfOp run = runOf(sent);
  if (!run || !element.isIntOrFloat() ||
      (element.getIntOrFloatBitWidth() != 16 &&
       element.getIntOrFloatBitWidth() != 32))
    return; // stays an exchange
  Value inRun = intoRun(sent, run);
  if (!inRun)
    return;
  Location loc = convert.getLoc();
  int64_t receiver = getOwningWarpgroup(convert.getType());
  auto [full, empty] =
      makeBarriers(loc, receiver < 0 ? consumerThreads : kWarpgroupThreads);
  pairParity(full);
  Value slot = LocalAllocOp::create(
      above, loc,
      SharedBufferType::get(loop.getContext(), 1, 1, type.getNumElements(),
                            element, 0),
      Value(), IntegerAttr());
  OpBuilder write = writePoint(inRun, run);
  send(write, loc, inRun, slot, i32(write, loc, 0), full, empty);

  // The readers, where the conversion was: all consumer threads, or the
  // receiving warpgroup in a run of its own.
  OpBuilder b(convert);
  auto receive = [&](OpBuilder &r) {
    Value zero = i32(r, loc, 0);
    MBarrierWaitOp::create(r, loc, full, zero, parity);
    Value value = LocalLoadOp::create(r, loc, convert.getType(), slot, zero);
    MBarrierArriveOp::create(r, loc, empty, zero, Value(), ValueRange(),
                             /*perWarp=*/false);
    return value;
  };
  Value received;
  if (receiver < 0) {
    received = receive(b);
  } else {
    scf::IfOp own = makeRun(b, loc, receiver, convert.getType());
    OpBuilder inThen = OpBuilder::atBlockBegin(own.thenBlock());
    scf::YieldOp::create(inThen, loc, receive(inThen));
    received = own.getResult(0);
  }
  convert.replaceAllUsesWith(received);
  convert.erase();
}

/// The first release of a stage after `op` in its block, or null.
MBarrierArriveOp stageReleaseAfter(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (auto arrive = dyn_cast<MBarrierArriveOp>(next);
        arrive && !arrive.getReleases().empty())
      return arrive;
  return {};
}

/// A ring buffer shaped as `dot`'s a operand whose views in the loop only
/// feed owned (score) dots and which the trip's stage `release` frees: the
/// owner may write the trip's stage once its score dot is done.
Value PairHandoffs::freeStageBuffer(DotOp dot, RankedTensorType type,
                                    MBarrierArriveOp release) {
  auto view = dot.getB().getDefiningOp<LocalViewOp>();
  if (!view)
    return {};
  auto ringType = view.getBuffer().getType();
  int64_t cols = type.getDimSize(1);
  auto wanted = SharedBufferType::get(
      loop.getContext(), ringType.getStages(), type.getDimSize(0), cols,
      type.getElementType(), getWgmmaSwizzle(cols));
  for (Value buffer : release.getReleases()) {
    if (buffer.getType() != wanted)
      continue;
    bool scoreOnly = true;
    for (Operation *user : buffer.getUsers()) {
      if (!loop->isAncestor(user) || isa<MBarrierArriveOp>(user) ||
          handOffOps.contains(user))
        continue; // a stage's release, or an earlier trip's p
      if (!isa<LocalViewOp>(user)) {
        scoreOnly = false;
        continue;
      }
      for (Operation *reader : user->getResult(0).getUsers()) {
        auto readerDot = dyn_cast<DotOp>(reader);
        scoreOnly &=
            readerDot && getOwningWarpgroup(readerDot.getAcc().getType()) >= 0;
      }
    }
    if (scoreOnly)
      return buffer;
  }
  return {};
}

/// A dot of every consumer thread reading warpgroup j's a operand (p).
void PairHandoffs::handOverOperand(DotOp dot) {
  Value sent = dot.getA();
  if (Value view = handedOver.lookup(sent);
      view && view.getParentBlock() == dot->getBlock() &&
      view.getDefiningOp()->isBeforeInBlock(dot)) {
    dot.getAMutable().assign(view);
    return;
  }
  auto type = cast<RankedTensorType>(sent.getType());
  scf::IfOp run = runOf(sent);
  MBarrierArriveOp release = stageReleaseAfter(dot);
  Value buffer = run && release ? freeStageBuffer(dot, type, release) : Value();
  if (!buffer)
    return; // stays staged by the dot
  Value inRun = intoRun(sent, run);
  if (!inRun)
    return;
  Location loc = dot.getLoc();
  Value stage = dot.getB().getDefiningOp<LocalViewOp>().getStage();
  auto [full, empty] = makeBarriers(loc, consumerThreads);
  pairParity(full);
  OpBuilder write = writePoint(inRun, run);
  handOffOps.insert(send(write, loc, inRun, buffer, stage, full, empty));

  OpBuilder b(dot);
  Value zero = i32(b, loc, 0);
  MBarrierWaitOp::create(b, loc, full, zero, parity);
  auto bufferType = cast<SharedBufferType>(buffer.getType());
  Value view = LocalViewOp::create(
      b, loc,
      RankedTensorType::get(type.getShape(), type.getElementType(),
                            bufferType.getViewEncoding()),
      buffer, stage, b.getI32IntegerAttr(0));
  handOffOps.insert(view.getDefiningOp());
  handedOver[sent] = view;
  dot.getAMutable().assign(view);
  // Freed once the dot is done (naming the buffer makes tile-place-dot-waits
  // wait for it), just before the stage's release waits for it anyway.
  OpBuilder beforeRelease(release);
  MBarrierArriveOp::create(beforeRelease, loc, empty,
                           i32(beforeRelease, loc, 0), Value(),
                           ValueRange{buffer}, /*perWarp=*/false);
}

/// Moves warpgroup 1's leading score dots of the second trip (and what they
/// read: the stage's wait, zeroing and views) to right after warpgroup 0's
/// first run that holds score dots.
void PairHandoffs::hoistSecondScores() {
  scf::IfOp first, second;
  for (Operation &op : body) {
    auto run = dyn_cast<scf::IfOp>(op);
    if (!run || !holdsScoreDot(run))
      continue;
    if (getRunOwner(run) == 0 && !first)
      first = run;
    else if (getRunOwner(run) == 1 && first && !second)
      second = run;
  }
  if (!first || !second)
    return;

  // The leading dots, reading only values from outside the run.
  SmallVector<DotOp> dots;
  for (Operation &op : *second.thenBlock()) {
    auto dot = dyn_cast<DotOp>(op);
    if (!dot || getOwningWarpgroup(dot.getAcc().getType()) != 1 ||
        llvm::any_of(dot->getOperands(), [&](Value operand) {
          Operation *def = operand.getDefiningOp();
          return def && def->getBlock() == second.thenBlock() &&
                 !llvm::is_contained(dots, def);
        }))
      break;
    dots.push_back(dot);
  }
  if (dots.empty())
    return;

  // What they read between the two runs (pure ops and views) and the
  // waits for the stages they view: copied into a run of warpgroup 1 right
  // after the first, which issues the dots. Everyone still waits and zeroes
  // where the trip did (warpgroup 0 waits for the tile only there).
  llvm::SetVector<Operation *> copied;
  SmallVector<Value> worklist;
  for (DotOp dot : dots)
    llvm::append_range(worklist, dot->getOperands());
  auto between = [&](Operation *op) {
    return op && op->getBlock() == &body && first->isBeforeInBlock(op) &&
           op->isBeforeInBlock(second);
  };
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!between(def) || copied.contains(def))
      continue;
    if (def->getNumRegions() ||
        (!isMemoryEffectFree(def) && !isa<LocalViewOp>(def)))
      return; // something with effects the dots need: leave them
    copied.insert(def);
    llvm::append_range(worklist, def->getOperands());
    auto view = dyn_cast<LocalViewOp>(def);
    if (!view)
      continue;
    for (Operation *op = first->getNextNode(); op != def;
         op = op->getNextNode())
      if (auto wait = dyn_cast<MBarrierWaitOp>(op);
          wait && wait.getIndex() == view.getStage()) {
        copied.insert(op);
        llvm::append_range(worklist, op->getOperands());
      }
  }
  SmallVector<Operation *> ordered(copied.begin(), copied.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          between(def) && !copied.contains(def))
        return;

  OpBuilder b(first->getBlock(), std::next(first->getIterator()));
  Location loc = dots.back().getLoc();
  scf::IfOp scores = makeRun(b, loc, 1, dots.back().getType());
  OpBuilder inThen = OpBuilder::atBlockBegin(scores.thenBlock());
  IRMapping mapping;
  for (Operation *op : ordered)
    inThen.clone(*op, mapping);
  for (DotOp dot : dots)
    inThen.clone(*dot, mapping);
  scf::YieldOp::create(inThen, loc, mapping.lookup(dots.back().getResult()));
  dots.back().getResult().replaceAllUsesWith(scores.getResult(0));
  for (DotOp dot : llvm::reverse(dots))
    dot.erase();
}

struct SeesawHandoffsPass
    : mlir::tile::impl::TileSeesawHandoffsBase<SeesawHandoffsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasSeesaw(module))
      return;
    module.walk([&](WarpSpecializeOp split) {
      if (split.getProducerWarps() == 0)
        return;
      SmallVector<scf::ForOp> pairs;
      split.getConsumer().walk([&](scf::ForOp loop) {
        bool owners[2] = {false, false};
        for (Operation &op : *loop.getBody())
          if (int64_t owner = getRunOwner(&op); owner == 0 || owner == 1)
            owners[owner] = true;
        if (owners[0] && owners[1])
          pairs.push_back(loop);
      });
      OpBuilder above(split);
      for (scf::ForOp loop : pairs)
        PairHandoffs(loop, above).run();
    });
  }
};
} // namespace
