//===- PlaceDotWaits.cpp - asynchronous wgmma dots, waited for late -------===//
//
// Every wgmma dot becomes asynchronous (a `!tile.pending` result) and one
// `tile.dot_wait` is placed before the first op that needs its group done:
//   - an op reading the result, other than an asynchronous dot accumulating
//     on it as its only user (it queues behind the group on the same
//     registers);
//   - an op writing shared memory the group reads: a copy into, a store into
//     or zeroing of the buffer stage it reads, the scratch its register a
//     operand was staged in (reductions, layout conversions and other dots'
//     staging write there), the b region;
//   - an op with regions holding either (a branch storing a tile waits, as
//     a store does, before the barrier ahead of it), or holding dots
//     (nothing is tracked into nested regions);
//   - the end of a block, except a loop's carried accumulators.
// The wait keeps the groups issued after the awaited one in flight: groups
// retire in issue order.
//
// A dot whose only use is its loop's yield stays in flight across the back
// edge when the next trip only accumulates on it: the iter_arg becomes
// pending (initialized by tile.as_pending) and the loop's result is waited
// for after the loop. Stages of pipelined buffers are compared as
// (trip index + c) mod S, so a refill of the stage the previous iteration's
// dot read waits for that dot and no other. A one-thread or per-thread write
// (a TMA or cp.async copy, a zeroing) must also wait for the other
// warpgroups: its wait goes before the tile.barrier that precedes it, or
// gets one.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Passes.h"
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLACEDOTWAITS
#include "tilemla/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// A loop's trip index as an expression: (iv + c - lower) / d + offset (plus
/// the ring's trips in earlier entries of the loop, `base`), where the loop
/// steps by `trips` * d: a loop whose iterations run several trips
/// (tile-seesaw-pairs) indexes the second as the first plus one.
struct TripIndex {
  scf::ForOp loop;
  Value base;         // tile.pipeline_base, or null
  int64_t trips = 1;  // trips per iteration
  int64_t offset = 0; // trips past the iteration's first
};

/// A piece of shared memory a dot reads or an op writes.
struct SharedSlot {
  enum Kind { Buffer, Scratch, StagedB, Anything } kind;
  Value buffer; // Buffer: the !tile.smem value; null when not known
  // The stage, when known: (index + offset) mod modulus, index a trip index
  // (no loop for a constant stage, modulus 0).
  bool stageKnown = false;
  TripIndex index;
  int64_t modulus = 0;
};

/// One group of wgmma instructions in flight.
struct Group {
  DotOp dot;
  Value value; // what the code reads it through: the result or an iter_arg
  SmallVector<SharedSlot> reads;
  int64_t age = 0;    // loop iterations since it was issued
  int64_t owner = -1; // the warpgroup that alone issued it (an issuing run)
};

/// A dot_wait to insert before `before`, retiring `retired`.
struct WaitDecision {
  Operation *before;
  int64_t pending;
  SmallVector<Value> retired; // values of the retired groups
  bool addBarrier;            // the write it protects has no barrier yet
};

/// A loop-carried accumulator: iter_arg `index` of `loop`.
struct CarriedValue {
  scf::ForOp loop;
  unsigned index;
};

/// `value` as a constant, if it is one.
std::optional<int64_t> constantOf(Value value) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getSExtValue();
}

/// The trip index `value` is, as the pipeliner computes it: (iv - lower) /
/// step, possibly cast, plus a constant and the ring's trips in earlier
/// entries of the loop (tile.pipeline_base: the same in every stage index of
/// one entry, so it shifts them all alike). A loop running k trips per
/// iteration steps by k times the divisor, and computes its later trips'
/// indices from iv + j * divisor.
std::optional<TripIndex> tripIndexOf(Value value) {
  TripIndex index;
  while (true) {
    if (auto add = value.getDefiningOp<arith::AddIOp>()) {
      if (auto c = constantOf(add.getRhs())) {
        index.offset += *c;
        value = add.getLhs();
        continue;
      }
      Value lhs = add.getLhs(), rhs = add.getRhs();
      if (lhs.getDefiningOp<PipelineBaseOp>() && !index.base) {
        index.base = lhs;
        value = rhs;
        continue;
      }
      if (rhs.getDefiningOp<PipelineBaseOp>() && !index.base) {
        index.base = rhs;
        value = lhs;
        continue;
      }
    }
    Operation *def = value.getDefiningOp();
    if (!def || !isa<arith::IndexCastOp, arith::TruncIOp, arith::ExtSIOp>(def))
      break;
    value = def->getOperand(0);
  }
  auto div = value.getDefiningOp<arith::DivSIOp>();
  if (!div)
    return std::nullopt;
  // iv (+ c) - lower, or iv (+ c) itself when the lower bound is 0.
  Value offset = div.getLhs(), lower;
  if (auto sub = offset.getDefiningOp<arith::SubIOp>()) {
    offset = sub.getLhs();
    lower = sub.getRhs();
  }
  int64_t shift = 0;
  if (auto add = offset.getDefiningOp<arith::AddIOp>())
    if (auto c = constantOf(add.getRhs())) {
      shift = *c;
      offset = add.getLhs();
    }
  auto iv = dyn_cast<BlockArgument>(offset);
  if (!iv)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp());
  if (!loop || loop.getInductionVar() != iv)
    return std::nullopt;
  if (lower ? lower != loop.getLowerBound()
            : !matchPattern(loop.getLowerBound(), m_Zero()))
    return std::nullopt;
  if (div.getRhs() == loop.getStep()) {
    if (shift != 0)
      return std::nullopt;
  } else {
    std::optional<int64_t> divisor = constantOf(div.getRhs());
    std::optional<int64_t> step = constantOf(loop.getStep());
    if (!divisor || !step || *divisor <= 0 || *step % *divisor != 0 ||
        shift % *divisor != 0)
      return std::nullopt;
    index.trips = *step / *divisor;
    index.offset += shift / *divisor;
  }
  index.loop = loop;
  return index;
}

SharedSlot bufferSlot(Value buffer, Value stage) {
  SharedSlot slot{SharedSlot::Buffer, buffer};
  if (auto constant = constantOf(stage)) {
    slot.stageKnown = true;
    slot.index.offset = *constant;
    return slot;
  }
  auto rem = stage.getDefiningOp<arith::RemSIOp>();
  std::optional<int64_t> modulus =
      rem ? constantOf(rem.getRhs()) : std::nullopt;
  if (!modulus || *modulus <= 0)
    return slot;
  std::optional<TripIndex> index = tripIndexOf(rem.getLhs());
  if (!index)
    return slot;
  slot.stageKnown = true;
  slot.index = *index;
  slot.modulus = *modulus;
  return slot;
}

/// Whether writing `write` may change what `read` (issued `age` trips ago)
/// reads.
bool overlaps(const SharedSlot &write, const SharedSlot &read, int64_t age) {
  if (write.kind == SharedSlot::Anything || read.kind == SharedSlot::Anything)
    return true;
  if (write.kind != read.kind)
    return false;
  if (write.kind != SharedSlot::Buffer)
    return true;
  if (!write.buffer || !read.buffer)
    return true;
  if (write.buffer != read.buffer)
    return false; // each local_alloc has its own region
  if (!write.stageKnown || !read.stageKnown)
    return true;
  const TripIndex &w = write.index, &r = read.index;
  if (!w.loop && !r.loop)
    return w.offset == r.offset;
  if (w.loop != r.loop || w.base != r.base || w.trips != r.trips ||
      write.modulus != read.modulus)
    return true;
  int64_t s = write.modulus;
  return (((r.offset - age * r.trips - w.offset) % s) + s) % s == 0;
}

/// The shared memory operand `value` of a wgmma dot is read from.
SharedSlot operandSlot(Value value, SharedSlot::Kind staged) {
  if (!isSharedView(value))
    return {staged};
  if (auto view = value.getDefiningOp<LocalViewOp>())
    return bufferSlot(view.getBuffer(), view.getStage());
  return {SharedSlot::Buffer};
}

/// Shared memory `op` (not one with regions) writes.
SmallVector<SharedSlot> writesOf(Operation *op) {
  SmallVector<SharedSlot> slots;
  if (auto copy = dyn_cast<TmaCopyOp>(op))
    slots.push_back(bufferSlot(copy.getBuffer(), copy.getStage()));
  else if (auto copy = dyn_cast<AsyncCopyOp>(op))
    slots.push_back(bufferSlot(copy.getBuffer(), copy.getStage()));
  else if (auto zero = dyn_cast<ZeroRowsOp>(op))
    slots.push_back(bufferSlot(zero.getBuffer(), zero.getStage()));
  else if (auto alloc = dyn_cast<LocalAllocOp>(op))
    slots.push_back({SharedSlot::Buffer, alloc.getResult()});
  else if (auto store = dyn_cast<LocalStoreOp>(op))
    slots.push_back(bufferSlot(store.getBuffer(), store.getStage()));
  else if (auto release = dyn_cast<MBarrierArriveOp>(op);
           release && !release.getReleases().empty())
    // The stage is rewritten by whoever waits for this arrival.
    for (Value buffer : release.getReleases())
      slots.push_back(bufferSlot(buffer, release.getIndex()));
  if (getScratchBytes(op) > 0)
    slots.push_back({SharedSlot::Scratch});
  if (auto dot = dyn_cast<DotOp>(op);
      dot && isTensorCoreDot(dot) && !isSharedView(dot.getB()))
    slots.push_back({SharedSlot::StagedB});
  // Tile ops that write only global memory, barriers or nothing shared (an
  // arrival hands over only the buffers it names as released).
  if (slots.empty() && !isMemoryEffectFree(op) &&
      !isa<StoreOp, LoadOp, LocalViewOp, LocalLoadOp, BarrierOp, AsyncWaitOp,
           MBarrierAllocOp, MBarrierWaitOp, MBarrierArriveOp,
           GridDependencyWaitOp, LaunchDependentsOp, DotWaitOp, DescLoadOp>(op))
    slots.push_back({SharedSlot::Anything});
  return slots;
}

/// Writes made by one thread or by each thread for itself (`op`'s, or
/// those of the ops in its regions): other warpgroups' dots are only known
/// done after a barrier.
bool needsBarrierAfterWait(Operation *op) {
  WalkResult found = op->walk([](Operation *inner) {
    return isa<TmaCopyOp, AsyncCopyOp, ZeroRowsOp, LocalAllocOp, LocalStoreOp>(
               inner)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool isAsyncCandidate(Operation *op) {
  auto dot = dyn_cast<DotOp>(op);
  return dot && isWarpgroupDot(dot) && !dot.isAsync();
}

/// A dot accumulating on `value` as its only user: it queues behind the
/// group without waiting.
bool chainsOn(Operation *op, Value value) {
  return isAsyncCandidate(op) && cast<DotOp>(op).getAcc() == value &&
         value.hasOneUse();
}

/// The dot an owned run only issues, or null: a run of one warpgroup
/// (`scf.if` marked tile.owner_warpgroup, tile-seesaw-handoffs) whose then
/// block holds stage waits, views, pure ops and a chain of dots, and yields
/// the chain's last result. Its dots stay in flight past the run, which
/// yields them pending; only the owner's threads issued them.
DotOp issuedDot(Operation *op) {
  auto run = dyn_cast<scf::IfOp>(op);
  if (!run || run.getNumResults() != 1 || getRunOwner(run) < 0)
    return {};
  auto last = run.thenYield().getOperand(0).getDefiningOp<DotOp>();
  if (!last || last->getBlock() != run.thenBlock() || !isAsyncCandidate(last) ||
      !last.getResult().hasOneUse())
    return {};
  for (Operation &inner : run.thenBlock()->without_terminator()) {
    if (inner.getNumRegions())
      return {};
    if (auto dot = dyn_cast<DotOp>(inner)) {
      if (!isAsyncCandidate(dot) ||
          (dot != last && !llvm::all_of(dot->getUsers(), [&](Operation *user) {
             return chainsOn(user, dot.getResult());
           })))
        return {};
      continue;
    }
    if (!isa<MBarrierWaitOp, LocalViewOp>(inner) && !isMemoryEffectFree(&inner))
      return {};
  }
  return last;
}

/// Where a block runs: an issuing run's then block yields its dots pending;
/// an owned run's (`owner`) is part of the stream around it, run by one
/// warpgroup, and waits there only for that warpgroup.
struct BlockContext {
  bool issuing = false;
  int64_t owner = -1;
};

class WaitPlacer {
public:
  explicit WaitPlacer(Operation *root) : root(root) {}

  void run() {
    for (Region &region : root->getRegions())
      for (Block &block : region)
        analyzeBlock(block, {}, /*loop=*/{}, /*record=*/true);
    apply();
  }

private:
  Operation *root;
  SmallVector<WaitDecision> decisions;
  SmallVector<CarriedValue> carried;
  SmallVector<DotOp> asyncDots;
  SmallVector<scf::IfOp> issuingRuns; // their result becomes pending
  // After each analyzed loop: wait for its survivors.
  SmallVector<scf::ForOp> loopsToDrain;

  /// The dots of `loop`'s body that stay in flight across the back edge,
  /// with their iter_arg index (getLoopCarriedDots).
  static DenseMap<Operation *, unsigned> carriedDots(scf::ForOp loop) {
    DenseMap<Operation *, unsigned> result;
    for (auto [dot, index] : getLoopCarriedDots(loop))
      result[dot] = index;
    return result;
  }

  static SmallVector<SharedSlot> readsOf(DotOp dot) {
    return {operandSlot(dot.getA(), SharedSlot::Scratch),
            operandSlot(dot.getB(), SharedSlot::StagedB)};
  }

  /// Where a wait for a write by `op` goes, and whether it needs a barrier
  /// of its own.
  static std::pair<Operation *, bool> waitPoint(Operation *op) {
    if (!needsBarrierAfterWait(op))
      return {op, false};
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (isa<BarrierOp>(prev))
        return {prev, false};
      bool movable = prev->getNumRegions() == 0 && !isa<DotOp>(prev) &&
                     (isMemoryEffectFree(prev) || isa<LoadOp>(prev));
      if (!movable)
        break;
    }
    return {op, true};
  }

  /// Retires inFlight[0 .. last] with a wait before `before`.
  void retire(SmallVectorImpl<Group> &inFlight, size_t last, Operation *before,
              bool addBarrier, bool record, int64_t waiter) {
    // Groups one warpgroup issued are not in the others' count: the wait
    // keeps in flight only those every waiting thread issued (the owner of
    // a group waits for it as well when others wait with it).
    int64_t pending = llvm::count_if(
        llvm::drop_begin(inFlight, last + 1), [&](const Group &group) {
          return group.owner < 0 || group.owner == waiter;
        });
    WaitDecision decision{before, pending, {}, addBarrier};
    for (size_t i = 0; i <= last; ++i)
      if (inFlight[i].value)
        decision.retired.push_back(inFlight[i].value);
    inFlight.erase(inFlight.begin(), inFlight.begin() + last + 1);
    if (record)
      decisions.push_back(std::move(decision));
  }

  /// Walks `block` with the groups `inFlight` at its start; returns those
  /// still in flight at its terminator (a loop body: what the next trip
  /// starts with).
  SmallVector<Group> analyzeBlock(Block &block, SmallVector<Group> inFlight,
                                  scf::ForOp loop, bool record,
                                  BlockContext context = {}) {
    DenseMap<Operation *, unsigned> carriedHere;
    if (loop)
      carriedHere = carriedDots(loop);
    for (Operation &op : block) {
      bool terminator = op.hasTrait<OpTrait::IsTerminator>();
      // The youngest group this op needs done, and where to wait.
      std::optional<size_t> needed;
      Operation *before = &op;
      bool addBarrier = false;
      auto need = [&](size_t i) { needed = needed ? std::max(*needed, i) : i; };
      for (auto [i, group] : llvm::enumerate(inFlight)) {
        if (!group.value)
          continue;
        bool reads = false;
        // `group` is a structured binding, which C++17 lambdas cannot capture.
        Value pending = group.value;
        op.walk([&](Operation *user) {
          for (Value operand : user->getOperands())
            if (operand == pending && !chainsOn(user, pending))
              reads = true;
        });
        if (terminator && loop && carriedHere.contains(group.dot))
          reads = false; // stays in flight across the back edge
        if (terminator && context.issuing)
          reads = false; // yielded pending by an issuing run
        if (reads)
          need(i);
      }
      bool hasRegions = op.getNumRegions() != 0;
      bool nestedDots = false;
      SmallVector<SharedSlot> writes;
      op.walk([&](Operation *inner) {
        if (inner->getNumRegions() != 0)
          return;
        if (inner != &op && isa<DotOp>(inner))
          nestedDots = true;
        llvm::append_range(writes, writesOf(inner));
      });
      for (auto [i, group] : llvm::enumerate(inFlight))
        for (const SharedSlot &write : writes)
          for (const SharedSlot &read : group.reads)
            if (overlaps(write, read, group.age))
              need(i);
      if (!writes.empty() && needed && !nestedDots)
        std::tie(before, addBarrier) = waitPoint(&op);
      DotOp issued = issuedDot(&op);
      // A run of one warpgroup without dots waits inside, for its owner.
      bool ownedRun = !issued && !nestedDots && getRunOwner(&op) >= 0;
      if (ownedRun)
        needed.reset();
      if ((hasRegions && nestedDots && !issued) ||
          (terminator && !loop && !context.issuing && context.owner < 0))
        if (!inFlight.empty())
          need(inFlight.size() - 1);
      if (terminator && loop) {
        // Groups from an earlier trip are done by the end of this one.
        for (auto [i, group] : llvm::enumerate(inFlight))
          if (group.age > 0)
            need(i);
      }
      if (needed)
        retire(inFlight, *needed, before, addBarrier, record, context.owner);

      if (auto inner = dyn_cast<scf::ForOp>(op)) {
        if (nestedDots)
          analyzeLoop(inner, record);
      } else if (issued) {
        SmallVector<SharedSlot> reads;
        for (Operation &inner : *cast<scf::IfOp>(op).thenBlock())
          if (auto dot = dyn_cast<DotOp>(inner))
            llvm::append_range(reads, readsOf(dot));
        analyzeBlock(*cast<scf::IfOp>(op).thenBlock(), {}, {}, record,
                     {/*issuing=*/true});
        inFlight.push_back(
            {issued, op.getResult(0), reads, 0, getRunOwner(&op)});
        if (record)
          issuingRuns.push_back(cast<scf::IfOp>(op));
      } else if (ownedRun) {
        // The groups stay in flight for the other threads.
        analyzeBlock(*cast<scf::IfOp>(op).thenBlock(), inFlight, {}, record,
                     {/*issuing=*/false, getRunOwner(&op)});
      } else if (hasRegions && nestedDots) {
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            analyzeBlock(nested, {}, {}, record);
      }
      if (isAsyncCandidate(&op)) {
        auto dot = cast<DotOp>(op);
        inFlight.push_back({dot, dot.getResult(), readsOf(dot), 0});
        if (record)
          asyncDots.push_back(dot);
      }
    }
    return inFlight;
  }

  void analyzeLoop(scf::ForOp loop, bool record) {
    Block &body = *loop.getBody();
    DenseMap<Operation *, unsigned> carriedHere = carriedDots(loop);
    // What a trip leaves in flight does not depend on what it starts with:
    // waiting for an older group retires no younger one.
    SmallVector<Group> survivors = analyzeBlock(body, {}, loop, false);
    SmallVector<Group> start;
    for (Group group : survivors) {
      ++group.age;
      auto it = carriedHere.find(group.dot.getOperation());
      group.value = it == carriedHere.end()
                        ? Value()
                        : loop.getRegionIterArgs()[it->second];
      start.push_back(group);
    }
    analyzeBlock(body, start, loop, record);
    if (record) {
      // Only a dot still in flight at the yield is carried pending.
      for (Group &group : survivors) {
        auto it = carriedHere.find(group.dot.getOperation());
        if (it != carriedHere.end())
          carried.push_back({loop, it->second});
      }
      if (!survivors.empty())
        loopsToDrain.push_back(loop);
    }
  }

  void apply() {
    for (DotOp dot : llvm::to_vector(asyncDots))
      dot.getResult().setType(PendingType::get(dot.getAccType()));
    for (scf::IfOp run : issuingRuns) {
      Type pending = run.thenYield().getOperand(0).getType();
      run.getResult(0).setType(pending);
      OpBuilder b(run.elseYield());
      Operation *old = run.elseYield().getOperand(0).getDefiningOp();
      run.elseYield().setOperand(
          0, ub::PoisonOp::create(b, run.getLoc(), pending));
      if (old && old->use_empty() && isa<ub::PoisonOp>(old))
        old->erase();
    }
    for (CarriedValue value : carried) {
      BlockArgument arg = value.loop.getRegionIterArgs()[value.index];
      auto type = PendingType::get(cast<RankedTensorType>(arg.getType()));
      OpOperand &init = value.loop.getInitArgsMutable()[value.index];
      OpBuilder b(value.loop);
      init.set(AsPendingOp::create(b, value.loop.getLoc(), init.get()));
      arg.setType(type);
      value.loop.getResult(value.index).setType(type);
    }
    DominanceInfo dominance(root);
    for (WaitDecision &decision : decisions) {
      // Only values read after the wait pass through it: tying a value a
      // younger dot accumulates on would keep its registers live.
      SmallVector<Value> retired;
      for (Value value : decision.retired)
        if (llvm::any_of(value.getUsers(), [&](Operation *user) {
              return user == decision.before ||
                     dominance.properlyDominates(decision.before, user);
            }))
          retired.push_back(value);
      OpBuilder b(decision.before);
      Location loc = decision.before->getLoc();
      auto wait =
          DotWaitOp::create(b, loc, retired, uint32_t(decision.pending));
      for (auto [value, waited] : llvm::zip(retired, wait.getResults()))
        value.replaceUsesWithIf(waited, [&](OpOperand &use) {
          return use.getOwner() != wait &&
                 dominance.properlyDominates(wait.getOperation(),
                                             use.getOwner());
        });
      if (decision.addBarrier)
        BarrierOp::create(b, loc);
    }
    for (scf::ForOp loop : loopsToDrain) {
      SmallVector<Value> pending;
      for (Value result : loop.getResults())
        if (isa<PendingType>(result.getType()))
          pending.push_back(result);
      OpBuilder b(loop->getContext());
      b.setInsertionPointAfter(loop);
      auto wait = DotWaitOp::create(b, loop.getLoc(), pending, uint32_t(0));
      for (auto [value, waited] : llvm::zip(pending, wait.getResults()))
        value.replaceAllUsesExcept(waited, wait.getOperation());
    }
  }
};

struct PlaceDotWaitsPass
    : mlir::tile::impl::TilePlaceDotWaitsBase<PlaceDotWaitsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) { WaitPlacer(func).run(); });
  }
};
} // namespace
