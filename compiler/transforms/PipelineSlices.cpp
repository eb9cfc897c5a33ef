//===- PipelineSlices.cpp - what tile-pipeline-loops streams and moves ---===//
#include "PipelineSlices.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

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

FailureOr<SmallVector<Operation *>> tile::backwardSlice(Block &body,
                                                        ValueRange roots) {
  llvm::SetVector<Operation *> found;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value value = work.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &body || found.contains(def))
      continue;
    if (def->getNumRegions() != 0 ||
        (!isMemoryEffectFree(def) && !isa<LoadOp>(def)) || isa<DotOp>(def))
      return failure();
    found.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ops = found.takeVector();
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

void tile::collectIterArgs(scf::ForOp loop, ArrayRef<Operation *> slice,
                           ValueRange roots,
                           llvm::SetVector<unsigned> &indices) {
  auto note = [&](Value v) {
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
      if (v == arg)
        indices.insert(i);
  };
  llvm::for_each(roots, note);
  for (Operation *op : slice)
    llvm::for_each(op->getOperands(), note);
}

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
