//===- ConvertLayoutOpToLLVM.cpp - moving a tensor between layouts --------===//
//
// Through shared memory: every thread writes the elements it holds at their
// row-major position, then reads the elements the new layout gives it.
// Replicated elements are written several times with the same value; a
// tensor one warpgroup owns is written by that warpgroup only. A small
// tensor every thread already holds whole (a few rows' statistics, about to
// be broadcast along the rows) is picked from the thread's own registers
// instead: no shared memory, no barrier. Layouts that place every element
// in the same register of the same thread convert to nothing.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct ConvertLayoutOpConversion : TargetPattern<ConvertLayoutOp> {
  using TargetPattern::TargetPattern;

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), dstType = op.getType();
    if (!getLayout(srcType) || !getLayout(dstType))
      return rewriter.notifyMatchFailure(op, "only distributed layouts");
    if (haveSameRegisterMap(srcType, dstType)) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    Location loc = op.getLoc();
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getSrc());
    Type elemType = values.front().getType();
    SmallVector<int64_t> strides = getRowMajorStrides(srcType.getShape());
    // Named values, not a structured binding: the lambda below captures them.
    auto [laneValue, warpValue] = getLaneAndWarp(rewriter, loc);
    Value lane = laneValue, warp = warpValue;
    Type resultType = getTypeConverter()->convertType(dstType);

    if (SmallVector<unsigned> holder = getWholeTensorRegisters(srcType);
        !holder.empty()) {
      auto [dstBase, dstOffsets] =
          emitLinearIndices(rewriter, loc, dstType, strides, lane, warp);
      SmallVector<Value> results;
      for (int64_t offset : dstOffsets) {
        Value index = LLVM::AddOp::create(rewriter, loc, dstBase,
                                          i32Constant(rewriter, loc, offset));
        Value picked = values[holder.back()];
        for (int64_t element = int64_t(holder.size()) - 2; element >= 0;
             --element) {
          Value isElement =
              LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                   index, i32Constant(rewriter, loc, element));
          picked = LLVM::SelectOp::create(rewriter, loc, isElement,
                                          values[holder[element]], picked);
        }
        results.push_back(picked);
      }
      rewriter.replaceOp(op, packStruct(rewriter, loc, resultType, results));
      return success();
    }
    Value shared = getExchangeScratch(rewriter, loc, op);

    if (!op->hasAttr(TileDialect::ScratchOrderedAttrHelper::getNameStr()))
      target.barrier(rewriter, loc); // earlier readers of the scratch are done
    // Out of an owned layout only the owner writes: the others hold poison.
    emitByHolders(rewriter, loc, srcType, [&] {
      auto [srcBase, srcOffsets] =
          emitLinearIndices(rewriter, loc, srcType, strides, lane, warp);
      storeSharedElements(rewriter, loc, shared, elemType, srcBase, srcOffsets,
                          values);
    });
    target.barrier(rewriter, loc);
    auto [dstBase, dstOffsets] =
        emitLinearIndices(rewriter, loc, dstType, strides, lane, warp);
    SmallVector<Value> results = loadSharedElements(
        rewriter, loc, shared, elemType, dstBase, dstOffsets);
    rewriter.replaceOp(op, packStruct(rewriter, loc, resultType, results));
    return success();
  }
};
} // namespace

void mlir::tile::populateConvertLayoutOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutOpConversion>(converter, patterns.getContext(),
                                          target);
}
