//===- SplitWarpgroups.cpp - a copy of the compute code per warpgroup -----===//
//
// With the seesaw both warpgroups own values (the scores of alternate
// tiles). Run as one instruction stream, each thread's registers would hold
// what either warpgroup owns; ptxas spills. Here the compute code becomes
// `scf.if (warpgroup_id == 0) { copy } else { copy }`, and each copy loses
// the other warpgroup's owned runs (`scf.if` marked tile.owner_warpgroup,
// which that warpgroup's threads skip anyway). Each thread runs exactly
// what it ran before, so everything decided over the single stream
// (barriers elided, dot waits placed, shared memory laid out) holds for
// both copies, which meet at the same barriers in the same order. The pass
// therefore runs last before the lowering.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPLITWARPGROUPS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Removes from `block` the owned runs of warpgroups other than `warpgroup`;
/// what they yielded is poison (read only where that warpgroup's threads do
/// not: its exchanges' writes, its staged dot operands, its loop values).
void dropOthersRuns(Block &block, int64_t warpgroup) {
  SmallVector<scf::IfOp> others;
  block.walk<WalkOrder::PreOrder>([&](scf::IfOp branch) {
    int64_t owner = getRunOwner(branch);
    if (owner < 0 || owner == warpgroup)
      return WalkResult::advance();
    others.push_back(branch); // what it holds goes with it
    return WalkResult::skip();
  });
  for (scf::IfOp branch : others) {
    OpBuilder b(branch);
    for (Value result : branch.getResults())
      result.replaceAllUsesWith(
          ub::PoisonOp::create(b, branch.getLoc(), result.getType()));
    branch.erase();
  }
}

/// Splits the ops of `block` before `end` into one copy per warpgroup of the
/// kernel's two; each copy first sets `registers` when it is not 0.
void splitBlock(Block &block, Block::iterator end, int32_t registers) {
  Location loc = block.getParentOp()->getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&block);
  Value warpgroup = WarpgroupIdOp::create(b, loc, b.getI32Type());
  Value isFirst = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, warpgroup,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  auto split = scf::IfOp::create(b, loc, isFirst, /*withElse=*/true);
  Block *first = split.thenBlock(), *second = split.elseBlock();
  first->getOperations().splice(first->begin(), block.getOperations(),
                                std::next(Block::iterator(split)), end);
  OpBuilder inSecond(second->getTerminator());
  IRMapping mapping;
  for (Operation &op : first->without_terminator())
    inSecond.clone(op, mapping);
  dropOthersRuns(*first, 0);
  dropOthersRuns(*second, 1);
  if (registers == 0)
    return;
  for (Block *copy : {first, second}) {
    OpBuilder atStart = OpBuilder::atBlockBegin(copy);
    SetMaxRegistersOp::create(atStart, loc, registers, /*increase=*/true);
  }
}

struct SplitWarpgroupsPass
    : mlir::tile::impl::TileSplitWarpgroupsBase<SplitWarpgroupsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasSeesaw(module))
      return;
    module.walk([&](func::FuncOp func) {
      if (func.isExternal() ||
          !func->hasAttr(TileDialect::KernelAttrHelper::getNameStr()))
        return;
      WarpSpecializeOp specialized;
      func.walk([&](WarpSpecializeOp op) { specialized = op; });
      // Behind a producer, the consumers' registers are raised in each
      // copy (ptxas compiles a branch for a setmaxnreg only at its start).
      if (specialized) {
        Block &consumer = specialized.getConsumer().front();
        splitBlock(consumer, consumer.end(),
                   specialized.getProducerWarps() > 0
                       ? int32_t(specialized.getConsumerRegisters())
                       : 0);
        return;
      }
      Block &entry = func.getBody().front();
      splitBlock(entry, Block::iterator(entry.getTerminator()), 0);
    });
  }
};
} // namespace
