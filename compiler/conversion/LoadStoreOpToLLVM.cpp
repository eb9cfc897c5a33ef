//===- LoadStoreOpToLLVM.cpp - addptr, load, store ------------------------===//
//
// Each thread accesses its registers' addresses. Consecutive registers along
// the contiguous dimension are accessed as one vector when the access-width
// analysis proves them contiguous, aligned and uniformly masked; masked
// accesses use llvm.masked.load/store, which NVPTX turns into one predicated
// branch around a vector access when the mask is uniform.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/AccessWidth.h"
#include "tilemla/Conversion/Utility.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct AddPtrOpConversion : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee =
        cast<PointerType>(getElementTypeOrSelf(op.getType())).getPointeeType();
    auto converter =
        static_cast<const TileLLVMTypeConverter *>(getTypeConverter());
    Type elemType = converter->convertElementType(pointee);
    Type ptrType =
        converter->convertElementType(getElementTypeOrSelf(op.getType()));
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offsets =
        unpackStruct(rewriter, loc, adaptor.getOffset());
    SmallVector<Value> results;
    for (auto [ptr, offset] : llvm::zip(ptrs, offsets))
      results.push_back(LLVM::GEPOp::create(rewriter, loc, ptrType, elemType,
                                            ptr,
                                            ArrayRef<LLVM::GEPArg>{offset}));
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, results.front());
      return success();
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      converter->convertType(op.getType()),
                                      results));
    return success();
  }
};

/// Registers of one access: `width` consecutive registers from `first`.
struct AccessGroup {
  unsigned first, width;
};

SmallVector<AccessGroup> groupRegisters(unsigned count, unsigned width) {
  SmallVector<AccessGroup> groups;
  for (unsigned r = 0; r < count; r += width)
    groups.push_back({r, width});
  return groups;
}

Value vectorOf(OpBuilder &builder, Location loc, ArrayRef<Value> values) {
  auto type = VectorType::get({int64_t(values.size())}, values[0].getType());
  Value vector = LLVM::UndefOp::create(builder, loc, type);
  for (auto [i, value] : llvm::enumerate(values))
    vector = LLVM::InsertElementOp::create(builder, loc, vector, value,
                                           i32Constant(builder, loc, i));
  return vector;
}

Value splatMask(OpBuilder &builder, Location loc, Value mask, unsigned width) {
  return vectorOf(builder, loc, SmallVector<Value>(width, mask));
}

struct LoadOpConversion : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto converter =
        static_cast<const TileLLVMTypeConverter *>(getTypeConverter());
    Type elemType =
        converter->convertElementType(getElementTypeOrSelf(op.getType()));
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpackStruct(rewriter, loc, adaptor.getOther());
    unsigned width = getAccessWidth(op);
    unsigned bytes = getSharedElementBytes(elemType) * width;
    SmallVector<Value> results;
    for (AccessGroup group : groupRegisters(ptrs.size(), width)) {
      Type vectorType = VectorType::get({int64_t(width)}, elemType);
      Value ptr = ptrs[group.first];
      Value loaded;
      if (masks.empty()) {
        loaded = LLVM::LoadOp::create(rewriter, loc, vectorType, ptr, bytes);
      } else {
        SmallVector<Value> fill;
        for (unsigned i = 0; i < width; ++i)
          fill.push_back(others.empty()
                             ? scalarConstant(rewriter, loc, elemType,
                                              rewriter.getZeroAttr(elemType))
                             : others[group.first + i]);
        loaded = LLVM::MaskedLoadOp::create(
            rewriter, loc, vectorType, ptr,
            splatMask(rewriter, loc, masks[group.first], width),
            vectorOf(rewriter, loc, fill), bytes);
      }
      for (unsigned i = 0; i < width; ++i)
        results.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, loaded, i32Constant(rewriter, loc, i)));
    }
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, results.front());
      return success();
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      converter->convertType(op.getType()),
                                      results));
    return success();
  }
};

struct StoreOpConversion : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    unsigned width = getAccessWidth(op);
    unsigned bytes = getSharedElementBytes(values[0].getType()) * width;
    for (AccessGroup group : groupRegisters(ptrs.size(), width)) {
      Value vector = vectorOf(
          rewriter, loc, ArrayRef<Value>(values).slice(group.first, width));
      Value ptr = ptrs[group.first];
      if (masks.empty())
        LLVM::StoreOp::create(rewriter, loc, vector, ptr, bytes);
      else
        LLVM::MaskedStoreOp::create(
            rewriter, loc, vector, ptr,
            splatMask(rewriter, loc, masks[group.first], width), bytes);
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateLoadStoreOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AddPtrOpConversion, LoadOpConversion, StoreOpConversion>(
      converter, patterns.getContext());
}
