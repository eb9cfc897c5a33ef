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
// them itself), a trip's values go to slots indexed by the ring's stage,
// each written as soon as the score role has it, and the score role's
// threads arrive on that crossing's own per-stage mbarrier after writing
// it (the other role waits for each just before reading it). The ring
// orders reuse: the score role writes stage s again only after it was
// refilled, which follows the accumulate role's reads. A dot operand goes
// into a ring buffer of its shape that only the score role read, once its
// dots have read it; slots read with plain loads are also freed by a
// per-stage mbarrier, so that racecheck can follow.
// Elsewhere a crossing has one slot and a full / empty pair of mbarriers,
// their phases counted per thread (tile.pipeline_base over one trip). A
// kernel without a producer warpgroup gets a tile.warp_specialize without
// producers to hold the roles, and each role sets its registers.
// SplitRolesCrossings.cpp makes the crossings.
//
//===----------------------------------------------------------------------===//
#include "SplitRoles.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPLITROLES
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::split_roles;

namespace {
/// What the score role keeps without a producer warpgroup: its scores, their
/// column sums, p and addressing (about 100 live; ptxas spills nothing at
/// 104 for MLA stage 1); the kernel's warps take the rest.
constexpr int32_t kScoreRegisters = 136;

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

  RoleOwners owners() const { return {numWarps, scoreOwner}; }
  bool isScoreValue(Value value) const { return owners().isScoreValue(value); }
  bool isScoreBranch(Operation *op) const { return owners().isScoreBranch(op); }

  WarpSpecializeOp wrapInRolesOnlySplit(func::FuncOp func);
  LogicalResult splitConsumer(WarpSpecializeOp split);
  void classify(Block &body);
  bool landsForAccumulateOnly(MBarrierWaitOp wait) const;
  void keepRole(Block &body, Role role);
};

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

/// Whether `wait` is for TMA copies into stages no score dot reads (codes
/// the accumulate role widens for it, which its own signal hands over).
bool SplitRolesPass::landsForAccumulateOnly(MBarrierWaitOp wait) const {
  bool copied = false;
  for (Operation *user : wait.getBarriers().getUsers()) {
    auto copy = dyn_cast<TmaCopyOp>(user);
    if (!copy)
      continue;
    copied = true;
    for (Operation *view : copy.getBuffer().getUsers())
      if (isa<LocalViewOp>(view))
        for (Operation *reader : view->getResult(0).getUsers())
          if (auto dot = dyn_cast<DotOp>(reader);
              dot && isScoreValue(dot.getAcc()))
            return false;
  }
  return copied;
}

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
    if (auto wait = dyn_cast<MBarrierWaitOp>(op);
        wait && landsForAccumulateOnly(wait)) {
      tag(op, Role::Accumulate);
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
  if (failed(addCrossings(body, above, owners())))
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
