//===- PredicateWarpgroups.cpp - ops on owned layouts run on their owner --===//
//
// A tensor with an owned layout (#tile.mma<..., warpgroup = g>) is held by
// warpgroup g alone once an owned dot computed it. The ops on such values,
// the owned dots and the stores of owned tensors are gathered into runs
// (pure ops in between move above the run, or below it to their first
// reader when they read it), and each run becomes the then branch of
// `scf.if (tile.warpgroup_id == g)`; the other warpgroups skip it and hold
// poison for what it yields. Layout conversions out of an owned layout are
// the exchanges: everyone runs them, their lowering lets only the owner
// write the shared memory they go through (likewise a dot that stages an
// owned a operand).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Dialect/TileDialect.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPREDICATEWARPGROUPS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Whether an owned dot can run on its owner alone: every operand it reads
/// from registers is held whole by one warpgroup (an owned layout), so the
/// owner can stage it; shared-memory views need no staging. Otherwise every
/// warpgroup runs it (computed twice; what only the owner held stays so).
bool runsOnOwner(DotOp dot) {
  if (getOwningWarpgroup(dot.getAcc().getType()) < 0)
    return false;
  return llvm::all_of(dot->getOperands().take_front(2), [](Value operand) {
    auto type = cast<RankedTensorType>(operand.getType());
    return isa_and_nonnull<SharedEncodingAttr>(type.getEncoding()) ||
           getOwningWarpgroup(type) >= 0;
  });
}

/// The values only their owner holds: what an owned dot computes and
/// everything computed from it (through loops and branches too). Owned
/// tensors made from values every thread has (ranges, splats, loads) are
/// held by every thread.
llvm::DenseSet<Value> findOwnerOnlyValues(Operation *root) {
  llvm::DenseSet<Value> ownerOnly;
  auto add = [&](Value value) {
    return getOwningWarpgroup(value.getType()) >= 0 &&
           ownerOnly.insert(value).second;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    root->walk([&](Operation *op) {
      if (auto dot = dyn_cast<DotOp>(op)) {
        if (runsOnOwner(dot) || ownerOnly.contains(dot.getAcc()))
          changed |= add(dot.getResult());
        return;
      }
      if (isa<ConvertLayoutOp>(op))
        return;
      bool reads = llvm::any_of(op->getOperands(),
                                [&](Value v) { return ownerOnly.contains(v); });
      if (auto yield = dyn_cast<scf::YieldOp>(op)) {
        Operation *parent = op->getParentOp();
        for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
          if (!ownerOnly.contains(v))
            continue;
          changed |= add(parent->getResult(i));
          if (auto loop = dyn_cast<scf::ForOp>(parent))
            changed |= add(loop.getRegionIterArgs()[i]);
        }
        return;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        for (auto [init, arg, result] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                       loop.getResults()))
          if (ownerOnly.contains(init)) {
            changed |= add(arg);
            changed |= add(result);
          }
        return;
      }
      if (reads && !op->getNumRegions())
        for (Value result : op->getResults())
          changed |= add(result);
    });
  }
  return ownerOnly;
}

/// The warpgroup that alone runs `op`, or -1 when every thread runs it: an
/// owned dot, an op that reads a value only its owner holds (not a layout
/// conversion: that is an exchange), and a store of an owned tensor. Two
/// owners in one op is an error (-2).
int64_t ownerOf(Operation *op, const llvm::DenseSet<Value> &ownerOnly) {
  if (op->getNumRegions() || op->hasTrait<OpTrait::IsTerminator>() ||
      isa<ConvertLayoutOp>(op))
    return -1;
  // A dot runs where its accumulator is held; an owned a operand of a dot
  // everyone runs is an exchange.
  if (auto dot = dyn_cast<DotOp>(op))
    return runsOnOwner(dot) ? getOwningWarpgroup(dot.getAcc().getType()) : -1;
  // A narrowing read only by exchanges happens where they write (the owner's
  // side of their lowering), beside the stores: there conversions pair up
  // (cvt.rn.bf16x2), and the branch carries the wider values.
  if (isa<arith::TruncFOp>(op) &&
      llvm::all_of(op->getUsers(), [](Operation *user) {
        auto dot = dyn_cast<DotOp>(user);
        return isa<ConvertLayoutOp>(user) ||
               (dot && getOwningWarpgroup(dot.getAcc().getType()) < 0);
      }))
    return -1;
  int64_t owner = -1;
  auto note = [&](Value value) {
    int64_t g = getOwningWarpgroup(value.getType());
    if (g < 0 || g == owner)
      return;
    owner = owner < 0 ? g : -2;
  };
  for (Value operand : op->getOperands())
    if (ownerOnly.contains(operand))
      note(operand);
  if (auto store = dyn_cast<StoreOp>(op))
    note(store.getValue());
  return owner;
}

struct PredicateWarpgroupsPass
    : mlir::tile::impl::TilePredicateWarpgroupsBase<PredicateWarpgroupsPass> {
  void runOnOperation() override {
    ownerOnly = findOwnerOnlyValues(getOperation());
    invalidIR = false;
    getOperation()->walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          if (failed(predicateBlock(block)))
            return signalPassFailure();
    });
    if (invalidIR)
      signalPassFailure();
  }

private:
  llvm::DenseSet<Value> ownerOnly;
  bool invalidIR = false;

  /// Ops between the owned ops of a run that touch no memory: those that
  /// read nothing the run makes move above it, the others (a narrowing for
  /// an exchange) below it, to their first reader, unless a later op of
  /// the run reads them.
  LogicalResult predicateBlock(Block &block) {
    SmallVector<Operation *> run, below;
    llvm::SmallPtrSet<Operation *, 16> inRun, isBelow;
    int64_t runOwner = -1;
    auto flush = [&]() {
      if (!run.empty()) {
        wrap(run, runOwner);
        // Each goes down to its first reader: an exchange's narrowing then
        // sits beside its stores, where conversions pair up.
        for (Operation *op : below)
          op->moveBefore(firstUserInBlock(op));
      }
      run.clear();
      below.clear();
      inRun.clear();
      isBelow.clear();
    };
    auto readsAny = [](Operation *op,
                       const llvm::SmallPtrSetImpl<Operation *> &set) {
      return llvm::any_of(op->getOperands(), [&](Value operand) {
        Operation *def = operand.getDefiningOp();
        return def && set.contains(def);
      });
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      int64_t owner = ownerOf(&op, ownerOnly);
      if (owner == -2)
        return op.emitOpError("reads and makes tensors of two warpgroups");
      if (owner >= 0) {
        if (run.empty() || owner != runOwner || readsAny(&op, isBelow)) {
          flush();
          runOwner = owner;
        }
        run.push_back(&op);
        inRun.insert(&op);
        continue;
      }
      bool movable = !run.empty() && !op.getNumRegions() &&
                     !op.hasTrait<OpTrait::IsTerminator>() &&
                     isMemoryEffectFree(&op) && !readsAny(&op, isBelow);
      if (movable && !readsAny(&op, inRun)) {
        op.moveBefore(run.front());
        continue;
      }
      if (movable) {
        below.push_back(&op);
        isBelow.insert(&op);
        continue;
      }
      flush();
    }
    flush();
    return success();
  }

  static Operation *firstUserInBlock(Operation *op) {
    Operation *first = nullptr;
    for (Operation *user : op->getUsers()) {
      Operation *top = op->getBlock()->findAncestorOpInBlock(*user);
      if (top && (!first || top->isBeforeInBlock(first)))
        first = top;
    }
    return first ? first : op->getBlock()->getTerminator();
  }

  /// Moves `run` into `scf.if (warpgroup_id == owner)`, yielding what is
  /// used after it (poison elsewhere).
  scf::IfOp wrap(ArrayRef<Operation *> run, int64_t owner) {
    llvm::SetVector<Value> escaping;
    llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
    for (Operation *op : run)
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers()) {
          Operation *top =
              run.front()->getBlock()->findAncestorOpInBlock(*user);
          if (!top || !inRun.contains(top))
            escaping.insert(result);
        }
    // What leaves the branch must be a tensor its owner holds: the others
    // read it only through a conversion (an exchange), never a plain value.
    for (Value value : escaping)
      if (getOwningWarpgroup(value.getType()) != owner) {
        value.getDefiningOp()->emitOpError(
            "computes a value every warpgroup reads from a tensor only "
            "warpgroup ")
            << owner << " holds; convert that tensor's layout first";
        invalidIR = true;
      }
    Location loc = run.front()->getLoc();
    OpBuilder builder(run.front());
    Value warpgroup = WarpgroupIdOp::create(builder, loc, builder.getI32Type());
    Value isOwner = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, warpgroup,
        arith::ConstantIntOp::create(builder, loc, owner, 32));
    SmallVector<Value> yielded(escaping.begin(), escaping.end());
    auto ifOp = scf::IfOp::create(
        builder, loc, isOwner,
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, yielded); },
        yielded.empty() ? function_ref<void(OpBuilder &, Location)>()
                        : [&](OpBuilder &b, Location l) {
                            SmallVector<Value> poison;
                            for (Value value : yielded)
                              poison.push_back(ub::PoisonOp::create(
                                  b, l, value.getType()));
                            scf::YieldOp::create(b, l, poison);
                          });
    ifOp->setAttr(TileDialect::OwnerWarpgroupAttrHelper::getNameStr(),
                  builder.getI64IntegerAttr(owner));
    Operation *yield = ifOp.thenBlock()->getTerminator();
    for (Operation *op : run)
      op->moveBefore(yield);
    for (auto [value, result] : llvm::zip(yielded, ifOp.getResults()))
      value.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !ifOp->isAncestor(use.getOwner());
      });
    return ifOp;
  }
};
} // namespace
