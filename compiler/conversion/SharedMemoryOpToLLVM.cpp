//===- SharedMemoryOpToLLVM.cpp - buffers, cp.async, waits, views ---------===//
//
// A `!tile.smem` buffer and a `#tile.shared` view both lower to the
// `!llvm.ptr<3>` of their first element. `tile.async_copy` issues one
// cp.async per run of contiguous registers (16 bytes where the access-width
// analysis allows, 4 or 8 otherwise) with the source size set to 0 for
// masked-off runs, which makes the hardware write zeros; runs narrower than
// 4 bytes, which cp.async cannot copy, are loaded and stored synchronously.
// tile.local_store / tile.local_load move a tensor between registers and a
// stage (the warp roles' hand-overs, ordered by the mbarriers around them;
// a converted pipeline tile, ordered by barriers).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/AccessWidth.h"
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct LocalAllocOpConversion : TargetPattern<LocalAllocOp> {
  using TargetPattern::TargetPattern;

  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError("needs tile-allocate-shared to place it");
    Location loc = op.getLoc();
    Value base = sharedElementPtr(
        rewriter, loc, getSharedBase(rewriter, loc, op), rewriter.getI8Type(),
        i32Constant(rewriter, loc, *op.getOffset()));
    if (op.getInit()) {
      auto [lane, warp] = getLaneAndWarp(rewriter, loc);
      stageTile(rewriter, loc, op.getInit().getType(),
                unpackStruct(rewriter, loc, adaptor.getInit()), base,
                SharedTileLayout::of(op.getType()), lane, warp);
      if (op.getType().getSwizzle()) // read by wgmma (the async proxy)
        target.fenceAsyncProxy(rewriter, loc);
      target.barrier(rewriter, loc);
    }
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct AsyncCopyOpConversion : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType bufferType = op.getBuffer().getType();
    RankedTensorType ptrType = op.getPtr().getType();
    Type elemType =
        getTypeConverter()->convertType(bufferType.getElementType());
    unsigned elemBytes = getSharedElementBytes(elemType);
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());

    auto [lane, warp] = getLaneAndWarp(rewriter, loc);
    Value base = stageBase(rewriter, loc, adaptor.getBuffer(), bufferType,
                           adaptor.getStage(), elemType);
    int64_t rowStride = bufferType.getRowStride();
    SharedTileIndexer indexer(rewriter, loc, ptrType,
                              SharedTileLayout::of(bufferType), lane, warp);
    SmallVector<SmallVector<int64_t>> offsets = getRegisterOffsets(ptrType);
    // Destinations must be as aligned as the copies: rows start every
    // rowStride elements.
    unsigned width = getAccessWidth(op);
    while (width > 1 && rowStride % width != 0)
      width /= 2;
    unsigned bytes = width * elemBytes;
    // Threads that repeat another's elements copy nothing (a copy each would
    // be a race of equal values on the same bytes); every thread commits
    // its group, empty or not.
    std::optional<OpBuilder::InsertionGuard> inFirstHolders;
    if (Value first = emitIsFirstHolder(rewriter, loc, ptrType, lane, warp)) {
      auto onlyFirst = scf::IfOp::create(rewriter, loc, first,
                                         /*withElseRegion=*/false);
      inFirstHolders.emplace(rewriter);
      rewriter.setInsertionPoint(onlyFirst.thenBlock()->getTerminator());
    }
    emitCopies(rewriter, loc, ptrs, masks, base, indexer, offsets, elemType,
               width, bytes);
    inFirstHolders.reset();
    NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// One cp.async per run of `width` registers (element by element below
  /// 4 bytes).
  void emitCopies(OpBuilder &b, Location loc, ArrayRef<Value> ptrs,
                  ArrayRef<Value> masks, Value base, SharedTileIndexer &indexer,
                  ArrayRef<SmallVector<int64_t>> offsets, Type elemType,
                  unsigned width, unsigned bytes) const {
    MLIRContext *ctx = b.getContext();
    for (unsigned reg = 0; reg < ptrs.size(); reg += width) {
      Value dst = sharedElementPtr(b, loc, base, elemType,
                                   indexer.index(b, loc, offsets[reg]));
      Value mask = masks.empty() ? Value() : masks[reg];
      if (bytes < 4) {
        copySynchronously(b, loc, ArrayRef(ptrs).slice(reg, width), mask, dst,
                          elemType);
        continue;
      }
      Value srcSize;
      if (mask)
        srcSize = LLVM::SelectOp::create(
            b, loc, mask, i32Constant(b, loc, bytes), i32Constant(b, loc, 0));
      // .cg (L2 only) exists for 16-byte copies; the tile is used once.
      auto cache = NVVM::LoadCacheModifierKindAttr::get(
          ctx, bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                           : NVVM::LoadCacheModifierKind::CA);
      NVVM::CpAsyncOp::create(b, loc, dst, ptrs[reg],
                              b.getI32IntegerAttr(bytes), cache, srcSize);
    }
  }

  /// Element by element through registers; masked-off elements are zero.
  void copySynchronously(OpBuilder &b, Location loc, ArrayRef<Value> ptrs,
                         Value mask, Value dst, Type elemType) const {
    auto vecType = VectorType::get({1}, elemType);
    Value zero = LLVM::ZeroOp::create(b, loc, vecType);
    Value first = i32Constant(b, loc, 0);
    Value maskVector;
    if (mask)
      maskVector = LLVM::InsertElementOp::create(
          b, loc,
          LLVM::UndefOp::create(b, loc, VectorType::get({1}, b.getI1Type())),
          mask, first);
    unsigned elemBytes = getSharedElementBytes(elemType);
    for (auto [i, ptr] : llvm::enumerate(ptrs)) {
      Value value;
      if (mask)
        value = LLVM::ExtractElementOp::create(
            b, loc,
            LLVM::MaskedLoadOp::create(b, loc, vecType, ptr, maskVector, zero,
                                       elemBytes),
            first);
      else
        value = LLVM::LoadOp::create(b, loc, elemType, ptr);
      LLVM::StoreOp::create(
          b, loc, value,
          sharedElementPtr(b, loc, dst, elemType, i32Constant(b, loc, i)));
    }
  }
};

struct AsyncWaitOpConversion : TargetPattern<AsyncWaitOp> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    if (op.getAsyncProxy())
      target.fenceAsyncProxy(rewriter, op.getLoc());
    target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierOpConversion : TargetPattern<BarrierOp> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The first element of the buffer stage `op` addresses, in the buffer's
/// element type.
template <typename OpT>
Value opStageBase(ConversionPatternRewriter &rewriter,
                  const TypeConverter &converter, OpT op,
                  typename OpT::Adaptor adaptor) {
  SharedBufferType type = op.getBuffer().getType();
  return stageBase(rewriter, op.getLoc(), adaptor.getBuffer(), type,
                   adaptor.getStage(),
                   converter.convertType(type.getElementType()));
}

/// A tensor's elements at their row-major positions in a stage of one row
/// (tile.local_store and tile.local_load of a tensor that is not the
/// stage's tile): the register of each element and its index there.
std::pair<Value, SmallVector<int64_t>>
rowStageIndices(OpBuilder &b, Location loc, RankedTensorType type) {
  auto [lane, warp] = getLaneAndWarp(b, loc);
  return emitLinearIndices(b, loc, type, getRowMajorStrides(type.getShape()),
                           lane, warp);
}

struct LocalStoreOpConversion : TargetPattern<LocalStoreOp> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType bufferType = op.getBuffer().getType();
    RankedTensorType type = op.getValue().getType();
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getValue());
    Type elemType = values.front().getType();
    Value base = opStageBase(rewriter, *getTypeConverter(), op, adaptor);
    bool tile = bufferType.isStageTile(type);
    // Out of an owned layout only the owner writes: the others hold poison.
    emitByHolders(rewriter, loc, type, [&] {
      if (tile) {
        auto [lane, warp] = getLaneAndWarp(rewriter, loc);
        stageTile(rewriter, loc, type, values, base,
                  SharedTileLayout::of(bufferType), lane, warp);
        return;
      }
      auto [first, offsets] = rowStageIndices(rewriter, loc, type);
      storeSharedElements(rewriter, loc, base, elemType, first, offsets,
                          values);
    });
    if (bufferType.getSwizzle()) // read by wgmma (the async proxy)
      target.fenceAsyncProxy(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadOpConversion : OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elemType = getTypeConverter()->convertType(
        op.getBuffer().getType().getElementType());
    Value base = opStageBase(rewriter, *getTypeConverter(), op, adaptor);
    SharedBufferType bufferType = op.getBuffer().getType();
    RankedTensorType type = op.getType();
    SmallVector<Value> results;
    if (bufferType.isStageTile(type)) {
      auto [lane, warp] = getLaneAndWarp(rewriter, loc);
      results = readStagedTile(rewriter, loc, type, elemType, base,
                               SharedTileLayout::of(bufferType), lane, warp);
    } else {
      auto [first, offsets] = rowStageIndices(rewriter, loc, type);
      results =
          loadSharedElements(rewriter, loc, base, elemType, first, offsets);
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), results));
    return success();
  }
};

struct LocalViewOpConversion : OpConversionPattern<LocalViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType bufferType = op.getBuffer().getType();
    Type elemType =
        getTypeConverter()->convertType(bufferType.getElementType());
    Value base = opStageBase(rewriter, *getTypeConverter(), op, adaptor);
    Value column =
        emitSharedIndex(rewriter, loc, SharedTileLayout::of(bufferType),
                        i32Constant(rewriter, loc, 0),
                        i32Constant(rewriter, loc, op.getColumn()));
    rewriter.replaceOp(op,
                       sharedElementPtr(rewriter, loc, base, elemType, column));
    return success();
  }
};
} // namespace

void mlir::tile::populateSharedMemoryOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns
      .add<AsyncCopyOpConversion, LocalViewOpConversion, LocalLoadOpConversion>(
          converter, context);
  patterns.add<LocalAllocOpConversion, LocalStoreOpConversion,
               AsyncWaitOpConversion, BarrierOpConversion>(converter, context,
                                                           target);
}
