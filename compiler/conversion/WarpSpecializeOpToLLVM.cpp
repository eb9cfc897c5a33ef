//===- WarpSpecializeOpToLLVM.cpp - producer and consumer warps -----------===//
//
// tile.warp_specialize becomes a branch on the thread index: the program's
// first tile.num_warps warps take the consumer region, the warps after them
// the producer region. Each side starts with setmaxnreg, the producer's
// decrease first in effect, so the consumers' increase can be granted. The
// regions' ops are already lowered (tile-to-LLVM keeps the op until
// structured control flow goes), and their barriers already name their side
// (TargetInfo::barrier).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct WarpSpecializeOpLowering : OpRewritePattern<WarpSpecializeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(WarpSpecializeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    WarpPartition consumers = getPartitionThreads(op, /*producer=*/false);
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value isConsumer =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, tid,
                             i32Constant(rewriter, loc, consumers.threads));
    auto split = scf::IfOp::create(rewriter, loc, isConsumer,
                                   /*withElseRegion=*/true);
    auto moveInto = [&](Region &from, Block *to, uint32_t registers,
                        NVVM::SetMaxRegisterAction action) {
      rewriter.setInsertionPoint(to->getTerminator());
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
} // namespace

void mlir::tile::populateWarpSpecializeOpToLLVMPatterns(
    RewritePatternSet &patterns) {
  patterns.add<WarpSpecializeOpLowering>(patterns.getContext());
}
