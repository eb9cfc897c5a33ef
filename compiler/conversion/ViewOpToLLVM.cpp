//===- ViewOpToLLVM.cpp - splat, broadcast, expand_dims, constants --------===//
//
// These ops never move data between threads: the layouts assigned to them
// keep every element in the thread that already holds (or can compute) it.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct SplatOpConversion : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (!getLayout(type))
      return rewriter.notifyMatchFailure(op, "tensor without a layout");
    SmallVector<Value> values(getTotalElemsPerThread(type), adaptor.getSrc());
    rewriter.replaceOp(op, packStruct(rewriter, op.getLoc(),
                                      getTypeConverter()->convertType(type),
                                      values));
    return success();
  }
};

/// Dense splat constants of tensor type become one scalar per register.
struct SplatConstantConversion : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!type || !getLayout(type) || !splat)
      return rewriter.notifyMatchFailure(op, "not a splat tensor constant");
    auto converter =
        static_cast<const TileLLVMTypeConverter *>(getTypeConverter());
    Type elemType = converter->convertElementType(type.getElementType());
    Attribute value = splat.getSplatValue<Attribute>();
    if (elemType != type.getElementType()) // fp8 registers are i8 bits.
      value = IntegerAttr::get(
          elemType, cast<FloatAttr>(value).getValue().bitcastToAPInt());
    Value scalar = scalarConstant(rewriter, op.getLoc(), elemType, value);
    SmallVector<Value> values(getTotalElemsPerThread(type), scalar);
    rewriter.replaceOp(op, packStruct(rewriter, op.getLoc(),
                                      converter->convertType(type), values));
    return success();
  }
};

/// A unit dim stretched: each register reads the register of the source that
/// holds the same coordinates with the stretched dims at 0.
struct BroadcastOpConversion : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    auto srcLayout = getLayout(srcType), layout = getLayout(type);
    if (!layout || srcLayout != layout)
      return rewriter.notifyMatchFailure(op, "broadcast changes the layout");
    Location loc = op.getLoc();
    SmallVector<Value> src = unpackStruct(rewriter, loc, adaptor.getSrc());
    SmallVector<unsigned> srcElems =
        srcLayout.getElemsPerThreadPerDim(srcType.getShape());
    SmallVector<unsigned> elems =
        layout.getElemsPerThreadPerDim(type.getShape());
    unsigned total = getTotalElemsPerThread(type);
    SmallVector<Value> values;
    for (unsigned reg = 0; reg < total; ++reg) {
      unsigned rest = reg, srcIndex = 0, srcStride = 1;
      for (int d = elems.size() - 1; d >= 0; --d) {
        unsigned r = rest % elems[d];
        rest /= elems[d];
        srcIndex += (r % srcElems[d]) * srcStride;
        srcStride *= srcElems[d];
      }
      values.push_back(src[srcIndex]);
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(type),
                                      values));
    return success();
  }
};

/// expand_dims of a slice layout into its parent keeps the registers as they
/// are (AssignLayouts guarantees that pairing).
struct ExpandDimsOpConversion : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slice =
        dyn_cast_or_null<SliceEncodingAttr>(getLayout(op.getSrc().getType()));
    if (!slice || slice.getDim() != op.getAxis() ||
        slice.getParent() != getLayout(op.getType()))
      return rewriter.notifyMatchFailure(op, "source is not a matching slice");
    Location loc = op.getLoc();
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getSrc());
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), values));
    return success();
  }
};
} // namespace

void mlir::tile::populateViewOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<SplatOpConversion, SplatConstantConversion,
               BroadcastOpConversion, ExpandDimsOpConversion>(
      converter, patterns.getContext());
}
