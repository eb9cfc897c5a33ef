//===- ProgramIdOpToLLVM.cpp - program_id, num_programs, grid dependencies ===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Programs are CUDA blocks: the program id is the block index, the number of
/// programs the grid dimension.
template <typename SourceOp, typename OpX, typename OpY, typename OpZ>
struct GridIndexOpConversion : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value result;
    switch (op.getAxis()) {
    case 0:
      result = OpX::create(rewriter, loc, i32);
      break;
    case 1:
      result = OpY::create(rewriter, loc, i32);
      break;
    default:
      result = OpZ::create(rewriter, loc, i32);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// griddepcontrol (sm_90+); older targets have no dependent launches, so
/// there is nothing to wait for or to allow.
template <typename SourceOp, NVVM::GridDepActionKind kind>
struct GridDependencyOpConversion : TargetPattern<SourceOp> {
  using TargetPattern<SourceOp>::TargetPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (this->target.getGpu().hasDependentLaunch())
      NVVM::GriddepcontrolOp::create(rewriter, op.getLoc(), kind);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateProgramIdOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns
      .add<GridDependencyOpConversion<GridDependencyWaitOp,
                                      NVVM::GridDepActionKind::wait>,
           GridDependencyOpConversion<
               LaunchDependentsOp, NVVM::GridDepActionKind::launch_dependents>>(
          converter, patterns.getContext(), target);
  patterns.add<GridIndexOpConversion<ProgramIdOp, NVVM::BlockIdXOp,
                                     NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridIndexOpConversion<NumProgramsOp, NVVM::GridDimXOp,
                                     NVVM::GridDimYOp, NVVM::GridDimZOp>>(
      converter, patterns.getContext());
}
