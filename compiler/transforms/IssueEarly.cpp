//===- IssueEarly.cpp - move a loop's prologue up its block --------------===//
#include "IssueEarly.h"

#include "tilemla/Dialect/TileDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {
/// Whether the group may pass `op`: it reads global memory at most (a
/// shared-memory read could be of the stage the group's copies refill).
bool mayPass(Operation *op) {
  WalkResult walk = op->walk([](Operation *nested) {
    if (isa<tile::LoadOp>(nested) ||
        nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isMemoryEffectFree(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}
} // namespace

void tile::issueEarly(ArrayRef<Operation *> group) {
  if (group.empty())
    return;
  Block *block = group.front()->getBlock();
  llvm::SetVector<Operation *> moving(group.begin(), group.end());
  // The operations in this block whose results the moving ones read.
  DenseSet<Operation *> needed;
  auto addOperandsOf = [&](Operation *op) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == block)
          needed.insert(def);
    });
  };
  for (Operation *op : group)
    addOperandsOf(op);
  Operation *stop = nullptr;
  for (Operation *op = group.front()->getPrevNode(); op;
       op = op->getPrevNode()) {
    if (needed.contains(op)) {
      // A buffer without an initial value is only a name until written.
      auto alloc = dyn_cast<tile::LocalAllocOp>(op);
      bool movable = (alloc && !alloc.getInit()) ||
                     (op->getNumRegions() == 0 && isMemoryEffectFree(op));
      if (!movable) {
        stop = op;
        break;
      }
      moving.insert(op);
      addOperandsOf(op);
      continue;
    }
    if (!mayPass(op)) {
      stop = op;
      break;
    }
  }
  SmallVector<Operation *> ordered(moving.begin(), moving.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  Operation *previous = stop;
  for (Operation *op : ordered) {
    if (previous)
      op->moveAfter(previous);
    else
      op->moveBefore(&block->front());
    previous = op;
  }
}
