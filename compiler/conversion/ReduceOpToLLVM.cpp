//===- ReduceOpToLLVM.cpp - reductions along one axis ---------------------===//
//
// Three stages, each skipped when the layout makes it empty: combine the
// registers a thread holds along the axis; combine across the lanes that hold
// distinct coordinates (butterfly shuffles); combine across warps through
// shared memory. Afterwards every thread holds the reduced values of the
// coordinates it held, which is exactly the slice layout of the result.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct ReduceOpConversion : TargetPattern<ReduceOp> {
  using TargetPattern::TargetPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType();
    if (!getLayout(srcType))
      return rewriter.notifyMatchFailure(op, "tensor without a layout");
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    ReduceKind kind = op.getKind();
    SmallVector<Value> src = unpackStruct(rewriter, loc, adaptor.getSrc());

    // 1. Registers: accumulate each register into its output slot.
    SmallVector<unsigned> elems =
        getLayout(srcType).getElemsPerThreadPerDim(srcType.getShape());
    SmallVector<Value> acc;
    SmallVector<unsigned> representative; // a source register per output
    for (unsigned reg = 0; reg < src.size(); ++reg) {
      unsigned rest = reg, out = 0, outStride = 1;
      bool isFirstAlongAxis = true;
      for (int d = elems.size() - 1; d >= 0; --d) {
        unsigned r = rest % elems[d];
        rest /= elems[d];
        if (unsigned(d) == axis) {
          isFirstAlongAxis = r == 0;
          continue;
        }
        out += r * outStride;
        outStride *= elems[d];
      }
      if (out >= acc.size()) {
        acc.resize(out + 1);
        representative.resize(out + 1);
      }
      if (isFirstAlongAxis)
        representative[out] = reg;
      acc[out] = acc[out] ? emitCombine(rewriter, loc, kind, acc[out], src[reg])
                          : src[reg];
    }

    // 2. Lanes holding distinct coordinates along the axis.
    unsigned laneMask = getDistinctLaneMask(srcType, axis);
    for (unsigned bit = 1; bit < kWarpSize; bit <<= 1)
      if (laneMask & bit)
        for (Value &value : acc)
          value = emitCombine(rewriter, loc, kind, value,
                              target.shuffleXor(rewriter, loc, value, bit));

    // 3. Warps holding distinct coordinates along the axis.
    unsigned warps = getDistinctWarpCount(srcType, axis);
    if (warps > 1)
      acc = combineAcrossWarps(op, acc, representative, warps, rewriter);

    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, acc.front());
      return success();
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), acc));
    return success();
  }

private:
  SmallVector<Value> combineAcrossWarps(ReduceOp op, ArrayRef<Value> acc,
                                        ArrayRef<unsigned> representative,
                                        unsigned warps,
                                        OpBuilder &builder) const {
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType();
    unsigned axis = op.getAxis();
    int64_t outputs = srcType.getNumElements() / srcType.getDimSize(axis);
    // Row-major strides over the output shape, indexed by source dim; the
    // reduced dim gets stride 0.
    SmallVector<int64_t> outShape(srcType.getShape());
    outShape.erase(outShape.begin() + axis);
    SmallVector<int64_t> outStrides = getRowMajorStrides(outShape);
    outStrides.insert(outStrides.begin() + axis, 0);

    auto [lane, warp] = getLaneAndWarp(builder, loc);
    SmallVector<Value> base = emitBaseCoords(builder, loc, srcType, lane, warp);
    auto offsets = getRegisterOffsets(srcType);
    Value warpIndex = emitWarpIndexAlong(builder, loc, srcType, axis, warp);
    Value shared = getExchangeScratch(builder, loc, op);
    Type elemType = acc.front().getType();

    auto outputIndex = [&](unsigned out) {
      Value index = i32Constant(builder, loc, 0);
      int64_t fixed = 0;
      for (unsigned d = 0; d < base.size(); ++d) {
        if (!outStrides[d])
          continue;
        index = LLVM::AddOp::create(
            builder, loc, index,
            LLVM::MulOp::create(builder, loc, base[d],
                                i32Constant(builder, loc, outStrides[d])));
        fixed += offsets[representative[out]][d] * outStrides[d];
      }
      return LLVM::AddOp::create(builder, loc, index,
                                 i32Constant(builder, loc, fixed));
    };

    if (!op->hasAttr(TileDialect::ScratchOrderedAttrHelper::getNameStr()))
      target.barrier(builder, loc); // earlier readers of the region are done
    SmallVector<Value> indices;
    for (unsigned out = 0; out < acc.size(); ++out) {
      indices.push_back(outputIndex(out));
      Value slot = LLVM::AddOp::create(
          builder, loc, indices.back(),
          LLVM::MulOp::create(builder, loc, warpIndex,
                              i32Constant(builder, loc, outputs)));
      LLVM::StoreOp::create(
          builder, loc, acc[out],
          sharedElementPtr(builder, loc, shared, elemType, slot));
    }
    target.barrier(builder, loc);
    SmallVector<Value> result;
    for (unsigned out = 0; out < acc.size(); ++out) {
      Value total;
      for (unsigned w = 0; w < warps; ++w) {
        Value slot = LLVM::AddOp::create(
            builder, loc, indices[out], i32Constant(builder, loc, w * outputs));
        Value part = LLVM::LoadOp::create(
            builder, loc, elemType,
            sharedElementPtr(builder, loc, shared, elemType, slot));
        total =
            total ? emitCombine(builder, loc, op.getKind(), total, part) : part;
      }
      result.push_back(total);
    }
    return result;
  }
};
} // namespace

void mlir::tile::populateReduceOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<ReduceOpConversion>(converter, patterns.getContext(), target);
}
