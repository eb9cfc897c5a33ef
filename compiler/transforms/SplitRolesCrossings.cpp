//===- SplitRolesCrossings.cpp - what one role hands the other ------------===//
//
// tile-split-roles' crossings (SplitRoles.cpp says what the pass does with
// them): each value the accumulate role reads from the score role, or fills
// for its dots, goes through shared memory. Inside a pipelined loop (a TMA
// stage ring) a trip's values go to slots indexed by the ring's stage,
// signalled once per trip, and plain-load slots are also freed per stage;
// elsewhere a crossing has one slot and a full / empty pair of mbarriers.
//
//===----------------------------------------------------------------------===//
#include "SplitRoles.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::split_roles;

namespace {
/// A pipelined loop's TMA stage ring as one trip sees it: the stage index
/// and full parity its waits use, its buffers and, behind a producer
/// warpgroup, the release that lets the producer refill the stage.
struct Ring {
  Value stage, parity;
  MBarrierArriveOp release; // null: the loop refills stages itself
  SmallVector<Value> buffers;
  int64_t stages = 0;
};

/// A wait in `body` on `barriers` for the trip's own stage: one of the
/// body's, or one in a branch of it whose stage and parity the trip
/// computes outside the branch (tile-pipeline-loops' first tile, widened a
/// trip ahead; the next tile's wait computes its own).
MBarrierWaitOp tripWaitOn(Block &body, Value barriers) {
  for (auto wait : body.getOps<MBarrierWaitOp>())
    if (wait.getBarriers() == barriers)
      return wait;
  for (auto branch : body.getOps<scf::IfOp>())
    for (auto wait : branch.getThenRegion().getOps<MBarrierWaitOp>())
      if (wait.getBarriers() == barriers &&
          !branch->isAncestor(
              wait.getIndex().getParentBlock()->getParentOp()) &&
          !branch->isAncestor(wait.getParity().getParentBlock()->getParentOp()))
        return wait;
  return {};
}

/// The ring of a loop `body`: a release of a stage and the wait for it
/// (behind a producer), or a wait for the stages the body's own TMA
/// refills fill (without one: the refill follows the previous trip's
/// reads, so it orders reuse as a release does).
std::optional<Ring> findRing(Block &body) {
  auto stagesOf = [](Value buffer) {
    return cast<SharedBufferType>(buffer.getType()).getStages();
  };
  for (auto release : body.getOps<MBarrierArriveOp>()) {
    if (release.getReleases().empty())
      continue;
    for (auto wait : body.getOps<MBarrierWaitOp>())
      if (wait.getIndex() == release.getIndex()) {
        Ring ring{wait.getIndex(), wait.getParity(), release};
        llvm::append_range(ring.buffers, release.getReleases());
        ring.stages = stagesOf(ring.buffers.front());
        return ring;
      }
  }
  for (auto copy : body.getOps<TmaCopyOp>())
    if (MBarrierWaitOp wait = tripWaitOn(body, copy.getBarriers())) {
      Ring ring{wait.getIndex(), wait.getParity(), MBarrierArriveOp()};
      for (auto refill : body.getOps<TmaCopyOp>())
        ring.buffers.push_back(refill.getBuffer());
      ring.stages = stagesOf(copy.getBuffer());
      return ring;
    }
  return std::nullopt;
}

/// A slot of one stage per crossing outside rings, with its barriers.
struct Slot {
  Value buffer, full, empty;
};

/// The element type a buffer can hold for `type`, or null.
Type slotElement(RankedTensorType type) {
  Type element = type.getElementType();
  return element.isIntOrFloat() && (element.getIntOrFloatBitWidth() == 16 ||
                                    element.getIntOrFloatBitWidth() == 32)
             ? element
             : Type();
}

/// (runs before this one) & 1, counted per thread of `role`.
Value phaseParity(OpBuilder &b, Location loc, Value barrier, Role role) {
  auto runs = PipelineBaseOp::create(b, loc, barrier, i32(b, loc, 0),
                                     i32(b, loc, 1), i32(b, loc, 1));
  tag(runs, role);
  return arith::AndIOp::create(b, loc, runs, i32(b, loc, 1));
}

/// A one-stage slot with its full and empty barriers, made at `above`.
Slot makeSlot(OpBuilder &above, Location loc, SharedBufferType type,
              int64_t writers, int64_t readers) {
  MLIRContext *ctx = above.getContext();
  Slot slot;
  slot.buffer = LocalAllocOp::create(above, loc, type, Value(), IntegerAttr());
  slot.full = MBarrierAllocOp::create(
      above, loc, MBarrierType::get(ctx, 1, writers), IntegerAttr());
  slot.empty = MBarrierAllocOp::create(
      above, loc, MBarrierType::get(ctx, 1, readers), IntegerAttr());
  return slot;
}

/// Sender: wait until the slot is free, write, arrive on full. Receiver:
/// wait for full, `read`, arrive on empty (its barriers count threads, each
/// arriving after its own accesses).
void emitHandover(OpBuilder &b, Location loc, const Slot &slot, Role sender,
                  function_ref<void(OpBuilder &)> write,
                  function_ref<void(OpBuilder &)> read) {
  Value zero = i32(b, loc, 0);
  Role receiver = sender == Role::Score ? Role::Accumulate : Role::Score;
  auto tagged = [](Operation *op, Role role) {
    tag(op, role);
    return op;
  };
  Value sendParity = phaseParity(b, loc, slot.full, sender);
  Value freeParity = arith::XOrIOp::create(b, loc, sendParity, i32(b, loc, 1));
  tagged(MBarrierWaitOp::create(b, loc, slot.empty, zero, freeParity), sender);
  write(b);
  tagged(MBarrierArriveOp::create(b, loc, slot.full, zero, Value(),
                                  ValueRange(), /*perWarp=*/false),
         sender);
  Value readParity = phaseParity(b, loc, slot.full, receiver);
  tagged(MBarrierWaitOp::create(b, loc, slot.full, zero, readParity), receiver);
  read(b);
}

/// Where the score role writes `sent` for the other role: right after it
/// is computed (inside the score role's branch that computes it, not after
/// the rest of the branch), so that the receiver can start on it while the
/// score role goes on. `fallback` (the crossing) where that is not in the
/// trip's `block` or precedes the trip's `stage`.
OpBuilder earliestWrite(Value sent, Operation *fallback, Block *block,
                        Value stage, const RoleOwners &owners) {
  Operation *def = sent.getDefiningOp();
  if (!def || def->getBlock() != block)
    return OpBuilder(fallback);
  if (Operation *stageDef = stage.getDefiningOp();
      stageDef && stageDef->getBlock() == block &&
      !stageDef->isBeforeInBlock(def))
    return OpBuilder(fallback);
  if (auto branch = dyn_cast<scf::IfOp>(def);
      branch && owners.isScoreBranch(def)) {
    unsigned index = cast<OpResult>(sent).getResultNumber();
    Value yielded = branch.thenYield().getOperand(index);
    Operation *inner = yielded.getDefiningOp();
    if (inner && inner->getBlock() == branch.thenBlock())
      return OpBuilder(inner->getBlock(), std::next(inner->getIterator()));
  }
  return OpBuilder(def->getBlock(), std::next(def->getIterator()));
}

/// The score role's last dot before `op` in program order, searching out to
/// `block` (into the score role's branches on the way), or null.
Operation *lastScoreDotBefore(Operation *op, Block *block,
                              const RoleOwners &owners) {
  auto isScoreDot = [&](Operation *candidate) {
    auto dot = dyn_cast<DotOp>(candidate);
    return dot && owners.isScoreValue(dot.getAcc());
  };
  for (Operation *at = op; at; at = at->getParentOp()) {
    for (Operation *prev = at->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      Operation *lastDot = isScoreDot(prev) ? prev : nullptr;
      if (owners.isScoreBranch(prev))
        prev->walk([&](Operation *inner) {
          if (isScoreDot(inner))
            lastDot = inner;
        });
      if (lastDot)
        return lastDot;
    }
    if (at->getBlock() == block)
      break;
  }
  return nullptr;
}

/// Tiles a trip stores into buffers the score role's dots read (codes
/// widened from 8-bit stages, tile-pipeline-loops' landed casts): the
/// accumulate role runs the stores (they read memory), so its threads
/// arrive on a per-stage signal after them, and the score role waits for
/// it before its first view of those buffers.
/// - Stored in the trip's block into one-stage buffers, a tile is signalled
///   on the trip's stage. Their reuse a trip later is ordered as the
///   ring's: the accumulate role stores again only after the score role's
///   signals of the trip, which follow its dots.
/// - Widened a trip ahead (stores in branches of the trip, into buffers of
///   the ring's stage count), each branch signals the stage it stored into
///   after its last store, and the score role waits for the tile it reads
///   on the trip's stage. A stage is stored again only after the
///   accumulate role's dots of two trips before are done (tile-place-dot-
///   waits), which follow the score role's signals of that trip.
LogicalResult signalWidenedTiles(Block &block, const Ring &ring,
                                 OpBuilder &above, const RoleOwners &owners,
                                 int64_t accumulateThreads) {
  llvm::MapVector<Block *, LocalStoreOp> lastStores; // per block stored in
  Operation *firstView = nullptr;
  WalkResult walk = block.walk([&](LocalStoreOp store) {
    if (roleTag(store) != Role::Both)
      return WalkResult::advance();
    Operation *top = block.findAncestorOpInBlock(*store);
    for (Operation *user : store.getBuffer().getUsers()) {
      if (!isa<LocalViewOp>(user) || user->getBlock() != &block ||
          !top->isBeforeInBlock(user))
        continue;
      bool scoreReads = llvm::any_of(user->getUsers(), [&](Operation *reader) {
        auto dot = dyn_cast<DotOp>(reader);
        return dot && owners.isScoreValue(dot.getAcc());
      });
      if (!scoreReads)
        continue;
      int64_t stages = store.getBuffer().getType().getStages();
      if (stages != 1 && stages != ring.stages) {
        store.emitOpError("stores a tile the score warpgroup reads into ")
            << stages << " stages, neither one nor its ring's " << ring.stages;
        return WalkResult::interrupt();
      }
      lastStores[store->getBlock()] = store;
      if (!firstView || user->isBeforeInBlock(firstView))
        firstView = user;
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (lastStores.empty())
    return success();
  Location loc = lastStores.front().second->getLoc();
  Value signal;
  {
    OpBuilder::InsertionGuard guard(above);
    signal = MBarrierAllocOp::create(
        above, loc,
        MBarrierType::get(above.getContext(), ring.stages, accumulateThreads),
        IntegerAttr());
  }
  for (auto [stored, store] : lastStores) {
    Value stage = store.getBuffer().getType().getStages() == 1
                      ? ring.stage
                      : store.getStage();
    OpBuilder afterStores(stored, std::next(store->getIterator()));
    tag(MBarrierArriveOp::create(afterStores, loc, signal, stage, Value(),
                                 ValueRange(), /*perWarp=*/false),
        Role::Accumulate);
  }
  OpBuilder beforeView(firstView);
  tag(MBarrierWaitOp::create(beforeView, loc, signal, ring.stage, ring.parity),
      Role::Score);
  return success();
}
} // namespace

LogicalResult mlir::tile::split_roles::addCrossings(Block &body,
                                                    OpBuilder &above,
                                                    const RoleOwners &owners) {
  MLIRContext *ctx = body.getParentOp()->getContext();
  int64_t scoreThreads = kWarpgroupThreads;
  int64_t accumulateThreads = owners.numWarps * 32;
  DenseMap<Block *, Ring> rings;
  body.getParentOp()->walk([&](scf::ForOp loop) {
    if (auto ring = findRing(*loop.getBody()))
      rings[loop.getBody()] = *ring;
  });

  // Crossings, innermost first (walk order is post-order).
  SmallVector<Operation *> crossings;
  body.getParentOp()->walk([&](Operation *op) {
    if (auto convert = dyn_cast<ConvertLayoutOp>(op);
        convert && owners.isScoreValue(convert.getSrc()) &&
        !owners.isScoreValue(convert.getResult()))
      crossings.push_back(op);
    else if (auto dot = dyn_cast<DotOp>(op);
             dot && !owners.isScoreValue(dot.getAcc()) &&
             owners.isScoreValue(dot.getA()))
      crossings.push_back(op);
    else if (auto alloc = dyn_cast<LocalAllocOp>(op); alloc && alloc.getInit())
      crossings.push_back(op);
  });

  // Ring trips' dot operands already in a slot, with the view the
  // accumulate role reads them through: a later dot of the trip reading
  // the same operand (p . V by halves) reads that view too.
  DenseMap<Value, Value> inSlot;
  for (Operation *op : crossings) {
    Location loc = op->getLoc();
    Block *block = op->getBlock();
    auto ringIt = rings.find(block);
    Ring *ring = ringIt == rings.end() ? nullptr : &ringIt->second;
    OpBuilder b(op);

    // A buffer the accumulate role fills and the score role's dots read.
    if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      bool scoreReads = false, accumulateReads = false;
      for (Operation *user : alloc->getUsers())
        for (Operation *reader : user->getUsers()) {
          bool score = isa<DotOp>(reader)
                           ? owners.isScoreValue(cast<DotOp>(reader).getAcc())
                           : false;
          (score ? scoreReads : accumulateReads) = true;
        }
      if (!scoreReads)
        continue;
      if (ring)
        return alloc.emitOpError(
            "fills a buffer the score warpgroup reads inside a pipelined "
            "loop; tile-split-roles hands buffers over outside rings only");
      Slot slot = makeSlot(above, loc, alloc.getType(), accumulateThreads,
                           scoreThreads);
      Value init = alloc.getInit();
      emitHandover(
          b, loc, slot, Role::Accumulate,
          [&](OpBuilder &w) {
            tag(LocalStoreOp::create(w, loc, init, slot.buffer, i32(w, loc, 0)),
                Role::Accumulate);
            if (accumulateReads)
              tag(BarrierOp::create(w, loc), Role::Accumulate);
          },
          [](OpBuilder &) {});
      alloc.replaceAllUsesWith(slot.buffer);
      alloc.erase();
      // The score role frees it once its last reader in this block is done
      // (the arrival waits for its dots: `releases`).
      OpBuilder end(block->getTerminator());
      Operation *arrive = MBarrierArriveOp::create(
          end, loc, slot.empty, i32(end, loc, 0), Value(),
          ValueRange{slot.buffer}, /*perWarp=*/false);
      tag(arrive, Role::Score);
      continue;
    }

    // A value of the score role the accumulate role reads.
    Value sent = isa<DotOp>(op) ? cast<DotOp>(op).getA()
                                : cast<ConvertLayoutOp>(op).getSrc();
    auto type = cast<RankedTensorType>(sent.getType());
    Type element = slotElement(type);
    if (!element)
      return op->emitOpError("hands the accumulate role a tensor of ")
             << type.getElementType()
             << ", which shared memory slots do not hold";
    auto dot = dyn_cast<DotOp>(op);
    SharedBufferType slotType =
        dot ? SharedBufferType::get(ctx, ring ? ring->stages : 1,
                                    type.getDimSize(0), type.getDimSize(1),
                                    element,
                                    getWgmmaSwizzle(type.getDimSize(1)))
            : SharedBufferType::get(ctx, ring ? ring->stages : 1, 1,
                                    type.getNumElements(), element, 0);
    if (dot && !slotType.getSwizzle())
      return op->emitOpError("an a operand of ")
             << type.getDimSize(1) << " columns has no wgmma swizzle";

    if (!ring) {
      Slot slot =
          makeSlot(above, loc, slotType, scoreThreads, accumulateThreads);
      Value received;
      emitHandover(
          b, loc, slot, Role::Score,
          [&](OpBuilder &w) {
            tag(LocalStoreOp::create(w, loc, sent, slot.buffer, i32(w, loc, 0)),
                Role::Score);
          },
          [&](OpBuilder &r) {
            if (dot) {
              received = LocalViewOp::create(
                  r, loc,
                  RankedTensorType::get(type.getShape(), element,
                                        slotType.getViewEncoding()),
                  slot.buffer, i32(r, loc, 0), r.getI32IntegerAttr(0));
              return;
            }
            received = LocalLoadOp::create(
                r, loc, cast<RankedTensorType>(op->getResult(0).getType()),
                slot.buffer, i32(r, loc, 0));
            tag(received.getDefiningOp(), Role::Accumulate);
            tag(MBarrierArriveOp::create(r, loc, slot.empty, i32(r, loc, 0),
                                         Value(), ValueRange(),
                                         /*perWarp=*/false),
                Role::Accumulate);
          });
      if (dot) {
        dot.getAMutable().assign(received);
        // Freed once the dot that reads it is done.
        OpBuilder after(dot->getNextNode());
        tag(MBarrierArriveOp::create(after, loc, slot.empty, i32(after, loc, 0),
                                     Value(), ValueRange{slot.buffer},
                                     /*perWarp=*/false),
            Role::Accumulate);
      } else {
        op->getResult(0).replaceAllUsesWith(received);
        op->erase();
      }
      continue;
    }

    // Inside a ring: the slot is the trip's stage, with a per-stage signal
    // of its own (the score role's threads arrive once they wrote it).
    if (ring->release && ring->release->isBeforeInBlock(op))
      return block->getParentOp()->emitOpError(
          "releases its stage before the accumulate role received the score "
          "role's values of the trip");
    if (Value view = dot ? inSlot.lookup(sent) : Value();
        view && view.getParentBlock() == block &&
        view.getDefiningOp()->isBeforeInBlock(op)) {
      dot.getAMutable().assign(view);
      continue;
    }
    Value signal;
    {
      OpBuilder::InsertionGuard guard(above);
      signal = MBarrierAllocOp::create(
          above, loc, MBarrierType::get(ctx, ring->stages, scoreThreads),
          IntegerAttr());
    }
    Value buffer;
    if (dot) {
      // A ring buffer of the operand's shape the score role alone reads
      // here, only in dots the operand is computed from, is free for it.
      llvm::SetVector<Operation *> slice;
      SmallVector<Value> worklist{sent};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        Operation *def = v.getDefiningOp();
        if (!def || !slice.insert(def))
          continue;
        llvm::append_range(worklist, def->getOperands());
        def->walk([&](scf::YieldOp yield) {
          llvm::append_range(worklist, yield.getOperands());
        });
      }
      for (Value released : ring->buffers) {
        if (released.getType() != slotType)
          continue;
        bool free = true;
        for (Operation *view : released.getUsers()) {
          if (view->getBlock() != block || view == ring->release ||
              isa<TmaCopyOp>(view))
            continue;
          if (!isa<LocalViewOp>(view)) {
            free = !isa<ZeroRowsOp, LocalStoreOp>(view) && free;
            continue;
          }
          for (Operation *reader : view->getResult(0).getUsers()) {
            Operation *top = block->findAncestorOpInBlock(*reader);
            auto readerDot = dyn_cast<DotOp>(reader);
            if (!readerDot || !owners.isScoreValue(readerDot.getAcc()) ||
                !slice.contains(reader) || !top)
              free = false;
          }
        }
        if (free) {
          buffer = released;
          break;
        }
      }
    }
    if (!buffer) {
      OpBuilder::InsertionGuard guard(above);
      buffer =
          LocalAllocOp::create(above, loc, slotType, Value(), IntegerAttr());
      if (ring->release)
        ring->release.getReleasesMutable().append(buffer);
    }
    OpBuilder write = earliestWrite(sent, op, block, ring->stage, owners);
    tag(LocalStoreOp::create(write, loc, sent, buffer, ring->stage),
        Role::Score);
    tag(MBarrierArriveOp::create(write, loc, signal, ring->stage, Value(),
                                 ValueRange(), /*perWarp=*/false),
        Role::Score);
    tag(MBarrierWaitOp::create(b, loc, signal, ring->stage, ring->parity),
        Role::Accumulate);
    Value received;
    if (dot) {
      received =
          LocalViewOp::create(b, loc,
                              RankedTensorType::get(type.getShape(), element,
                                                    slotType.getViewEncoding()),
                              buffer, ring->stage, b.getI32IntegerAttr(0));
      dot.getAMutable().assign(received);
      inSlot[sent] = received;
    } else {
      received = LocalLoadOp::create(
          b, loc, cast<RankedTensorType>(op->getResult(0).getType()), buffer,
          ring->stage);
      tag(received.getDefiningOp(), Role::Accumulate);
      op->getResult(0).replaceAllUsesWith(received);
      op->erase();
    }
  }

  for (auto &[block, ring] : rings)
    if (failed(
            signalWidenedTiles(*block, ring, above, owners, accumulateThreads)))
      return failure();

  for (auto &[block, ring] : rings) {
    // Slots read with plain loads are also freed explicitly: the ring
    // orders their reuse too (through the refill), but racecheck cannot
    // follow that through the copy engine (nor a warp's arrival by its
    // first lane), and an arrival per reading thread and trip lets it
    // vouch for the slots. The wait never holds the score role back (the
    // refill it waited for came later); placed as below, the two cost MLA
    // at H=128 0.3 % (docs/design/PINGPONG.md section 12).
    Operation *firstPlainStore = nullptr;
    SmallVector<Value> loaded;
    for (Operation &op : *block) {
      op.walk([&](LocalStoreOp store) { // in program order: stores are leaves
        if (roleTag(store) == Role::Score && !firstPlainStore &&
            !store.getBuffer().getType().getSwizzle())
          firstPlainStore = store;
      });
      if (auto load = dyn_cast<LocalLoadOp>(op);
          load && roleTag(&op) == Role::Accumulate &&
          !llvm::is_contained(loaded, load.getBuffer()))
        loaded.push_back(load.getBuffer());
    }
    if (!firstPlainStore || loaded.empty())
      continue;
    Location loc = firstPlainStore->getLoc();
    Value free;
    {
      OpBuilder::InsertionGuard guard(above);
      free = MBarrierAllocOp::create(
          above, loc, MBarrierType::get(ctx, ring.stages, accumulateThreads),
          IntegerAttr());
    }
    // At the end of the trip, off the way to the trip's dots; naming the
    // slots tells tile-place-dot-waits that no dot must finish first.
    OpBuilder atEnd(block->getTerminator());
    tag(MBarrierArriveOp::create(atEnd, loc, free, ring.stage, Value(), loaded,
                                 /*perWarp=*/false),
        Role::Accumulate);
    // The score role waits where it waits anyway: behind the trip's last
    // score dot, issued and not yet needed (right before the store, the
    // wait's latency sat on the score role's path: 2 % of MLA at H=128).
    Operation *lastDot = lastScoreDotBefore(firstPlainStore, block, owners);
    Operation *waitPoint = lastDot ? lastDot->getNextNode() : firstPlainStore;
    OpBuilder beforeStore(waitPoint);
    Value previous = arith::XOrIOp::create(beforeStore, loc, ring.parity,
                                           i32(beforeStore, loc, 1));
    tag(MBarrierWaitOp::create(beforeStore, loc, free, ring.stage, previous),
        Role::Score);
  }
  return success();
}
