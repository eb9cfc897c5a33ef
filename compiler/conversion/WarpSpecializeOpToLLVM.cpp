//===- WarpSpecializeOpToLLVM.cpp - producer and consumer warps -----------===//
//
// tile.warp_specialize becomes a branch on the thread index: the program's
// first tile.num_warps warps (and a score role's warpgroup) take the
// consumer region, the warps after them the producer region; without
// producers the consumer region is all there is. Each side starts with
// setmaxnreg, the producer's decrease first in effect, so the consumers'
// increase can be granted. The regions' ops are already lowered (tile-to-LLVM
// keeps the op until structured control flow goes), and their barriers already
// name their side (TargetInfo::barrier).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Whether the region's code sets its registers itself (each warpgroup's
/// copy of the seesaw's consumer code does, at its start: ptxas ignores a
/// setmaxnreg before the branch for the code inside it).
bool setsOwnRegisters(Region &region) {
  bool sets = false;
  region.walk([&](Operation *op) {
    sets |= isa<SetMaxRegistersOp, NVVM::SetMaxRegisterOp>(op);
  });
  return sets;
}

struct WarpSpecializeOpLowering : OpRewritePattern<WarpSpecializeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(WarpSpecializeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getProducerWarps() == 0) { // roles only: every thread consumes
      rewriter.inlineBlockBefore(&op.getConsumer().front(), op);
      rewriter.eraseOp(op);
      return success();
    }
    // Consumers (with a score role, both roles) are the threads before the
    // producers.
    WarpPartition producers = getPartitionThreads(op, /*producer=*/true);
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value isConsumer =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, tid,
                             i32Constant(rewriter, loc, producers.first));
    auto split = scf::IfOp::create(rewriter, loc, isConsumer,
                                   /*withElseRegion=*/true);
    auto moveInto = [&](Region &from, Block *to, uint32_t registers,
                        NVVM::SetMaxRegisterAction action) {
      rewriter.setInsertionPoint(to->getTerminator());
      if (!setsOwnRegisters(from))
        NVVM::SetMaxRegisterOp::create(rewriter, loc, registers, action);
      rewriter.inlineBlockBefore(&from.front(), to->getTerminator());
    };
    moveInto(op.getConsumer(), split.thenBlock(), op.getConsumerRegisters(),
             NVVM::SetMaxRegisterAction::increase);
    moveInto(op.getProducer(), split.elseBlock(), op.getProducerRegisters(),
             NVVM::SetMaxRegisterAction::decrease);
    rewriter.eraseOp(op);
    return success();
  }
};
struct SetMaxRegistersOpLowering : OpRewritePattern<SetMaxRegistersOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SetMaxRegistersOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::SetMaxRegisterOp::create(rewriter, op.getLoc(), op.getCount(),
                                   op.getIncrease()
                                       ? NVVM::SetMaxRegisterAction::increase
                                       : NVVM::SetMaxRegisterAction::decrease);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateWarpSpecializeOpToLLVMPatterns(
    RewritePatternSet &patterns) {
  patterns.add<WarpSpecializeOpLowering, SetMaxRegistersOpLowering>(
      patterns.getContext());
}
