//===- SplitRoles.cpp - a score warpgroup with loops of its own -----------===//
//
// With `with score_warpgroup = True` the owned narrow dots, and what is
// computed from them, live on warpgroup W = num_warps / 4, past the
// kernel's warps; tile-predicate-warpgroups put them under
// `scf.if (warpgroup_id == W)`. This pass gives W (the score role) and the
// kernel's warps (the accumulate role) each a copy of the consumer region
// and removes the other role's work from it, so that each thread's loops
// carry its own role's values only. What crosses goes through shared
// memory:
//  - an exchange (tile.convert_layout out of W's layout) becomes a
//    tile.local_store in the score role and a tile.local_load in the other;
//  - a dot of the accumulate role whose a operand W holds reads it from a
//    buffer the score role wrote it to;
//  - a buffer the accumulate role fills (tile.local_alloc of a tensor) for
//    the score role's dots is made once above the split, written with
//    tile.local_store and handed over.
// In a pipelined loop (one that waits for a TMA stage ring: behind a
// producer, which the accumulate role releases stages to, or refilling
// them itself), a trip's values go to slots indexed by the ring's stage and
// the score role's threads arrive on a per-stage mbarrier after their last
// write of the trip. The ring orders reuse: the score role writes stage s
// again only after it was refilled, which follows the accumulate role's
// reads. A dot operand goes into a ring buffer of its shape that only the
// score role read, once its dots have read it; slots read with plain loads
// are also freed by a per-stage mbarrier, so that racecheck can follow.
// Elsewhere a crossing has one slot and a full / empty pair of mbarriers,
// their phases counted per thread (tile.pipeline_base over one trip). A
// kernel without a producer warpgroup gets a tile.warp_specialize without
// producers to hold the roles, and each role sets its registers.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Dialect/TileDialect.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPLITROLES
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
enum class Role { Both, Score, Accumulate };

/// Marks an op of one role while the pass runs (removed at its end).
constexpr llvm::StringLiteral kRoleAttr = "tile.split_role";
constexpr int64_t kWarpgroupThreads = 128;
/// What the score role keeps without a producer warpgroup: its scores, their
/// column sums, p and addressing (about 100 live; ptxas spills nothing at
/// 104 for MLA stage 1); the kernel's warps take the rest.
constexpr int32_t kScoreRegisters = 136;

Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

void tag(Operation *op, Role role) {
  op->setAttr(
      kRoleAttr,
      IntegerAttr::get(IntegerType::get(op->getContext(), 32), int64_t(role)));
}

Role roleTag(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>(kRoleAttr);
  return attr ? Role(attr.getInt()) : Role::Both;
}

/// A pipelined loop's TMA stage ring as one trip sees it: the stage index
/// and full parity its waits use, its buffers and, behind a producer
/// warpgroup, the release that lets the producer refill the stage.
struct Ring {
  Value stage, parity;
  MBarrierArriveOp release; // null: the loop refills stages itself
  SmallVector<Value> buffers;
  int64_t stages = 0;
  Value signal; // the per-stage "the score role wrote this trip" barriers
};

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
    for (auto wait : body.getOps<MBarrierWaitOp>())
      if (wait.getBarriers() == copy.getBarriers()) {
        Ring ring{wait.getIndex(), wait.getParity(), MBarrierArriveOp()};
        for (auto refill : body.getOps<TmaCopyOp>())
          ring.buffers.push_back(refill.getBuffer());
        ring.stages = stagesOf(copy.getBuffer());
        return ring;
      }
  return std::nullopt;
}

struct SplitRolesPass : mlir::tile::impl::TileSplitRolesBase<SplitRolesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto warps = module->getAttrOfType<IntegerAttr>(
        TileDialect::NumWarpsAttrHelper::getNameStr());
    numWarps = warps ? warps.getInt() : 4;
    scoreOwner = getNarrowDotOwner(module, numWarps);
    if (scoreOwner == 0)
      return;
    bool owned = false;
    module.walk([&](Operation *op) {
      if (!isa<arith::ConstantOp>(op) &&
          llvm::any_of(op->getResultTypes(), [&](Type type) {
            return getOwningWarpgroup(type) == scoreOwner;
          }))
        owned = true;
    });
    if (!owned)
      return;
    SmallVector<WarpSpecializeOp> splits;
    WalkResult walk = module.walk([&](func::FuncOp func) {
      if (func.isExternal() ||
          !func->hasAttr(TileDialect::KernelAttrHelper::getNameStr()))
        return WalkResult::advance();
      WarpSpecializeOp split;
      func.walk([&](WarpSpecializeOp op) { split = op; });
      if (!split)
        split = wrapInRolesOnlySplit(func);
      if (!split)
        return WalkResult::interrupt();
      splits.push_back(split);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (WarpSpecializeOp split : splits)
      if (failed(splitConsumer(split)))
        return signalPassFailure();
    if (splits.empty())
      return;
    module->setAttr(
        TileDialect::ProducerWarpsAttrHelper::getNameStr(),
        IntegerAttr::get(IntegerType::get(&getContext(), 32),
                         int64_t(splits.front().getProducerWarps()) + 4));
  }

private:
  int64_t numWarps = 4, scoreOwner = 0;

  bool isScoreValue(Value value) const {
    return getOwningWarpgroup(value.getType()) == scoreOwner;
  }
  bool isScoreBranch(Operation *op) const {
    auto owner = op->getAttrOfType<IntegerAttr>(
        TileDialect::OwnerWarpgroupAttrHelper::getNameStr());
    return owner && owner.getInt() == scoreOwner;
  }

  WarpSpecializeOp wrapInRolesOnlySplit(func::FuncOp func);
  LogicalResult splitConsumer(WarpSpecializeOp split);
  LogicalResult addCrossings(Block &body, OpBuilder &above);
  void classify(Block &body);
  void keepRole(Block &body, Role role);
};

//===----------------------------------------------------------------------===//
// Crossings
//===----------------------------------------------------------------------===//

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

LogicalResult SplitRolesPass::addCrossings(Block &body, OpBuilder &above) {
  MLIRContext *ctx = body.getParentOp()->getContext();
  int64_t scoreThreads = kWarpgroupThreads;
  int64_t accumulateThreads = numWarps * 32;
  DenseMap<Block *, Ring> rings;
  body.getParentOp()->walk([&](scf::ForOp loop) {
    if (auto ring = findRing(*loop.getBody()))
      rings[loop.getBody()] = *ring;
  });

  // Crossings, innermost first (walk order is post-order).
  SmallVector<Operation *> crossings;
  body.getParentOp()->walk([&](Operation *op) {
    if (auto convert = dyn_cast<ConvertLayoutOp>(op);
        convert && isScoreValue(convert.getSrc()) &&
        !isScoreValue(convert.getResult()))
      crossings.push_back(op);
    else if (auto dot = dyn_cast<DotOp>(op);
             dot && !isScoreValue(dot.getAcc()) && isScoreValue(dot.getA()))
      crossings.push_back(op);
    else if (auto alloc = dyn_cast<LocalAllocOp>(op); alloc && alloc.getInit())
      crossings.push_back(op);
  });

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
                           ? isScoreValue(cast<DotOp>(reader).getAcc())
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

    // Inside a ring: the slot is the trip's stage.
    if (!ring->signal) {
      OpBuilder::InsertionGuard guard(above);
      ring->signal = MBarrierAllocOp::create(
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
            if (!readerDot || !isScoreValue(readerDot.getAcc()) ||
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
    tag(LocalStoreOp::create(b, loc, sent, buffer, ring->stage), Role::Score);
    Value received;
    if (dot) {
      received =
          LocalViewOp::create(b, loc,
                              RankedTensorType::get(type.getShape(), element,
                                                    slotType.getViewEncoding()),
                              buffer, ring->stage, b.getI32IntegerAttr(0));
      dot.getAMutable().assign(received);
    } else {
      received = LocalLoadOp::create(
          b, loc, cast<RankedTensorType>(op->getResult(0).getType()), buffer,
          ring->stage);
      tag(received.getDefiningOp(), Role::Accumulate);
      op->getResult(0).replaceAllUsesWith(received);
      op->erase();
    }
  }

  // One signal per trip: the score role arrives after its last write, the
  // accumulate role waits before its first read.
  for (auto &[block, ring] : rings) {
    if (!ring.signal)
      continue;
    Operation *lastStore = nullptr, *firstRead = nullptr;
    for (Operation &op : *block) {
      if (isa<LocalStoreOp>(op) && roleTag(&op) == Role::Score)
        lastStore = &op;
      bool reads = (isa<LocalLoadOp>(op) && roleTag(&op) == Role::Accumulate) ||
                   (isa<DotOp>(op) && !isScoreValue(cast<DotOp>(op).getAcc()));
      if (reads && !firstRead)
        firstRead = &op;
    }
    if (!lastStore || !firstRead ||
        (ring.release && ring.release->isBeforeInBlock(firstRead)))
      return block->getParentOp()->emitOpError(
          "releases its stage before the accumulate role received the score "
          "role's values of the trip");
    OpBuilder after(lastStore->getNextNode());
    tag(MBarrierArriveOp::create(after, lastStore->getLoc(), ring.signal,
                                 ring.stage, Value(), ValueRange(),
                                 /*perWarp=*/false),
        Role::Score);
    OpBuilder before(firstRead);
    tag(MBarrierWaitOp::create(before, lastStore->getLoc(), ring.signal,
                               ring.stage, ring.parity),
        Role::Accumulate);

    // Slots read with plain loads are also freed explicitly: the ring
    // orders their reuse too (through the refill), but racecheck cannot
    // follow that through the copy engine (nor a warp's arrival by its
    // first lane), and an arrival per reading thread and trip lets it
    // vouch for the slots. The wait never holds the score role back (the
    // refill it waited for came later); placed as below, the two cost MLA
    // at H=128 0.3 % (docs/design/PINGPONG.md section 11).
    Operation *firstPlainStore = nullptr;
    SmallVector<Value> loaded;
    for (Operation &op : *block) {
      auto store = dyn_cast<LocalStoreOp>(op);
      if (store && roleTag(&op) == Role::Score && !firstPlainStore &&
          !store.getBuffer().getType().getSwizzle())
        firstPlainStore = &op;
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
    Operation *waitPoint = firstPlainStore;
    auto isScoreDot = [&](Operation *op) {
      auto dot = dyn_cast<DotOp>(op);
      return dot && isScoreValue(dot.getAcc());
    };
    for (Operation *op = firstPlainStore->getPrevNode(); op;
         op = op->getPrevNode()) {
      Operation *lastDot = isScoreDot(op) ? op : nullptr;
      if (isScoreBranch(op)) // a run of the score role's ops, dots perhaps
        op->walk([&](Operation *inner) {
          if (isScoreDot(inner))
            lastDot = inner;
        });
      if (lastDot) {
        waitPoint = lastDot->getNextNode();
        break;
      }
    }
    OpBuilder beforeStore(waitPoint);
    Value previous = arith::XOrIOp::create(beforeStore, loc, ring.parity,
                                           i32(beforeStore, loc, 1));
    tag(MBarrierWaitOp::create(beforeStore, loc, free, ring.stage, previous),
        Role::Score);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

/// Tags the ops only one role runs; the rest (control, scalar code, pure
/// ops, waits for and views of the ring) both run, and each keeps what it
/// uses.
void SplitRolesPass::classify(Block &body) {
  body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->hasAttr(kRoleAttr) || op->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    if (isScoreBranch(op)) {
      tag(op, Role::Score); // what it holds is the score role's
      return WalkResult::skip();
    }
    if (auto dot = dyn_cast<DotOp>(op)) {
      tag(op, isScoreValue(dot.getAcc()) ? Role::Score : Role::Accumulate);
      return WalkResult::advance();
    }
    if (op->getNumRegions() ||
        isa<LocalViewOp, MBarrierWaitOp, PipelineBaseOp, WaitFlagOp>(op))
      return WalkResult::advance();
    if (auto zero = dyn_cast<ZeroRowsOp>(op)) {
      // Zeroed by the role whose dots read the stage first: the score role
      // when it reads the buffer here (the accumulate role then sees the
      // zeros after the score role's signal).
      bool scoreReads = false;
      for (Operation *view : zero.getBuffer().getUsers())
        if (isa<LocalViewOp>(view) && view->getBlock() == op->getBlock())
          for (Operation *reader : view->getResult(0).getUsers())
            if (auto dot = dyn_cast<DotOp>(reader))
              scoreReads |= isScoreValue(dot.getAcc());
      tag(op, scoreReads ? Role::Score : Role::Accumulate);
      return WalkResult::advance();
    }
    bool scalarLoad =
        isa<LoadOp>(op) && !isa<RankedTensorType>(op->getResult(0).getType());
    if (!isMemoryEffectFree(op) && !scalarLoad)
      tag(op, Role::Accumulate);
    return WalkResult::advance();
  });
}

/// Removes from `body` what the other role runs, inlines the score role's
/// branches (`role` Score) and erases what nothing uses any more.
void SplitRolesPass::keepRole(Block &body, Role role) {
  Role other = role == Role::Score ? Role::Accumulate : Role::Score;
  SmallVector<Operation *> ops;
  body.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    Role tagged = roleTag(op);
    if (tagged == other) {
      OpBuilder b(op);
      for (Value result : op->getResults())
        result.replaceAllUsesWith(
            ub::PoisonOp::create(b, op->getLoc(), result.getType()));
      op->erase();
      continue;
    }
    op->removeAttr(kRoleAttr);
    if (role == Role::Score && isScoreBranch(op)) {
      auto branch = cast<scf::IfOp>(op);
      Operation *yield = branch.thenBlock()->getTerminator();
      for (auto [result, value] :
           llvm::zip(branch.getResults(), yield->getOperands()))
        result.replaceAllUsesWith(value);
      yield->erase();
      Block *then = branch.thenBlock();
      branch->getBlock()->getOperations().splice(Block::iterator(branch),
                                                 then->getOperations());
      branch.erase();
    }
  }
  // Dead values: loop-carried ones nothing reads, in the loop or after it,
  // stop being computed (the yield forwards the argument; the canonicalizer
  // then drops it), branch results nobody reads yield poison, and unused
  // pure ops go.
  bool changed = true;
  while (changed) {
    changed = false;
    body.walk([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (auto [i, result] : llvm::enumerate(loop.getResults()))
          if (result.use_empty() && loop.getRegionIterArgs()[i].use_empty() &&
              yield.getOperand(i) != loop.getRegionIterArgs()[i]) {
            yield.setOperand(i, loop.getRegionIterArgs()[i]);
            changed = true;
          }
        return;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        for (auto [i, result] : llvm::enumerate(branch.getResults())) {
          if (!result.use_empty())
            continue;
          for (Region &region : branch->getRegions()) {
            if (region.empty())
              continue;
            auto yield = cast<scf::YieldOp>(region.front().getTerminator());
            if (yield.getOperand(i).getDefiningOp<ub::PoisonOp>())
              continue;
            OpBuilder b(yield);
            yield.setOperand(
                i, ub::PoisonOp::create(b, yield.getLoc(), result.getType()));
            changed = true;
          }
        }
      }
    });
    SmallVector<Operation *> dead;
    body.walk([&](Operation *op) {
      if (op->use_empty() && !op->hasTrait<OpTrait::IsTerminator>() &&
          (isOpTriviallyDead(op) || isa<LocalViewOp>(op) ||
           (isa<LoadOp>(op) &&
            !isa<RankedTensorType>(op->getResultTypes()[0]))))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    changed |= !dead.empty();
  }
}

/// A kernel without a producer warpgroup: everything after its buffers and
/// barriers goes into a tile.warp_specialize without producers, whose
/// consumer region the roles then share. Only scalar code may precede it
/// (all the program's threads run that).
WarpSpecializeOp SplitRolesPass::wrapInRolesOnlySplit(func::FuncOp func) {
  Block &entry = func.getBody().front();
  Operation *start = &entry.front();
  for (Operation &op : entry)
    if (isa<MBarrierAllocOp>(op) ||
        (isa<LocalAllocOp>(op) && op.getNumOperands() == 0))
      start = op.getNextNode();
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  for (Operation *op = &entry.front(); op != start; op = op->getNextNode())
    if (!isa<arith::ConstantOp>(op) &&
        (llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor))) {
      op->emitOpError("computes a tensor before the kernel's shared buffers "
                      "are made; a score warpgroup splits the program after "
                      "them");
      return WarpSpecializeOp();
    }
  OpBuilder b(start);
  constexpr int32_t kUnusedRegisters = 24; // no setmaxnreg without producers
  auto split = WarpSpecializeOp::create(b, func.getLoc(), /*producerWarps=*/0,
                                        kUnusedRegisters, kUnusedRegisters);
  split.getProducer().emplaceBlock();
  Block *consumer = &split.getConsumer().emplaceBlock();
  consumer->getOperations().splice(consumer->end(), entry.getOperations(),
                                   Block::iterator(start),
                                   Block::iterator(entry.getTerminator()));
  return split;
}

LogicalResult SplitRolesPass::splitConsumer(WarpSpecializeOp split) {
  Block &body = split.getConsumer().front();
  OpBuilder above(split);
  if (failed(addCrossings(body, above)))
    return failure();
  classify(body);

  // The score role's copy, then the accumulate role's: two branches on
  // the warpgroup, the first marked as the score warpgroup's code (its
  // barriers are its own).
  Location loc = split.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Value warpgroup = WarpgroupIdOp::create(b, loc, b.getI32Type());
  Value isScore = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        warpgroup, i32(b, loc, scoreOwner));
  Value isAccumulate = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, warpgroup, i32(b, loc, scoreOwner));
  auto score = scf::IfOp::create(b, loc, isScore, /*withElse=*/false);
  score->setAttr(TileDialect::OwnerWarpgroupAttrHelper::getNameStr(),
                 b.getI64IntegerAttr(scoreOwner));
  auto accumulate = scf::IfOp::create(b, loc, isAccumulate, /*withElse=*/false);
  Block *accumulateBlock = accumulate.thenBlock();
  accumulateBlock->getOperations().splice(
      accumulateBlock->begin(), body.getOperations(),
      std::next(Block::iterator(accumulate)), body.end());
  // Move the terminator-free region's ops: the new then block already has
  // its yield; the moved ops go before it.
  accumulateBlock->getTerminator()->moveAfter(&accumulateBlock->back());
  IRMapping mapping;
  OpBuilder inScore(score.thenBlock()->getTerminator());
  for (Operation &op : *accumulateBlock)
    if (!op.hasTrait<OpTrait::IsTerminator>())
      inScore.clone(op, mapping);
  keepRole(*score.thenBlock(), Role::Score);
  keepRole(*accumulateBlock, Role::Accumulate);

  // A value one role computes that the other still reads (not through a
  // crossing) became poison above.
  WalkResult leaked = body.walk([&](ub::PoisonOp poison) {
    for (Operation *user : poison->getUsers())
      if (!isa<scf::YieldOp>(user)) {
        user->emitOpError("reads a value of the other warp role; only "
                          "exchanges and dot operands cross between the "
                          "score warpgroup and the others");
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (leaked.wasInterrupted())
    return failure();

  split.setScoreWarps(4);
  if (split.getProducerWarps() > 0) {
    split.setConsumerRegisters(WarpSpecializeOp::consumerRegisterBudget(
        numWarps + 4, split.getProducerWarps(), split.getProducerRegisters()));
    return success();
  }
  // Without producers the program enters with what its threads may hold;
  // the score role gives some up for the kernel's warps (ptxas compiles
  // each role's code for its own count: the accumulators need more).
  int64_t threads = (numWarps + 4) * 32;
  int64_t entry = std::min<int64_t>(65536 / threads / 8 * 8, 255);
  int64_t accumulateRegisters = std::min<int64_t>(
      (entry * threads - kScoreRegisters * kWarpgroupThreads) /
          (numWarps * 32) / 8 * 8,
      240);
  if (accumulateRegisters > entry && kScoreRegisters < entry) {
    OpBuilder atScore = OpBuilder::atBlockBegin(score.thenBlock());
    SetMaxRegistersOp::create(atScore, loc, kScoreRegisters,
                              /*increase=*/false);
    OpBuilder atAccumulate = OpBuilder::atBlockBegin(accumulateBlock);
    SetMaxRegistersOp::create(atAccumulate, loc, int32_t(accumulateRegisters),
                              /*increase=*/true);
  }
  return success();
}
} // namespace
