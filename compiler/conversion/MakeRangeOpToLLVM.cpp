//===- MakeRangeOpToLLVM.cpp - make_range ---------------------------------===//
#include "tilemla/Conversion/Utility.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Each register holds start + its coordinate in the layout.
struct MakeRangeOpConversion : OpConversionPattern<MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MakeRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    if (!getLayout(type))
      return rewriter.notifyMatchFailure(op, "tensor without a layout");
    auto [lane, warp] = getLaneAndWarp(rewriter, loc);
    Value base = emitBaseCoords(rewriter, loc, type, lane, warp)[0];
    base = LLVM::AddOp::create(rewriter, loc, base,
                               i32Constant(rewriter, loc, op.getStart()));
    SmallVector<Value> values;
    for (const auto &offsets : getRegisterOffsets(type))
      values.push_back(LLVM::AddOp::create(
          rewriter, loc, base, i32Constant(rewriter, loc, offsets[0])));
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(type),
                                      values));
    return success();
  }
};
} // namespace

void mlir::tile::populateMakeRangeOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MakeRangeOpConversion>(converter, patterns.getContext());
}
