//===- DotOpToLLVM.cpp - dot on the FMA units -----------------------------===//
//
// The portable path: a and b are staged in shared memory (row-major), and
// each thread computes the accumulator elements its layout gives it with f32
// fused multiply-adds. Tensor-core paths (mma.sync, wgmma) take precedence
// where they apply.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct FMADotOpConversion : TargetPattern<DotOp> {
  using TargetPattern::TargetPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType(),
                     accType = op.getAccType();
    if (!getLayout(aType) || !getLayout(bType) || !getLayout(accType))
      return rewriter.notifyMatchFailure(op, "only distributed layouts");
    if (op.isAsync())
      return rewriter.notifyMatchFailure(op, "an asynchronous dot is a wgmma");
    // fp8 values are bytes here; only the tensor cores multiply them.
    if (isFp8Dot(op))
      return op.emitOpError(
          "multiplies fp8 by fp8, which runs only on the tensor cores "
          "(sm_89 or newer, whole 16x8x32 tiles): widen the operands with "
          ".to() for this target or shape");
    Location loc = op.getLoc();
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
            n = accType.getDimSize(1);
    auto [lane, warp] = getLaneAndWarp(rewriter, loc);
    Value shared = getSharedBase(rewriter, loc, op);
    SmallVector<Value> a = unpackStruct(rewriter, loc, adaptor.getA());
    SmallVector<Value> b = unpackStruct(rewriter, loc, adaptor.getB());
    SmallVector<Value> acc = unpackStruct(rewriter, loc, adaptor.getAcc());
    Type inType = a.front().getType();
    Type f32 = rewriter.getF32Type();
    Value bShared = sharedElementPtr(rewriter, loc, shared, inType,
                                     i32Constant(rewriter, loc, m * k));

    // b is staged as it is held: [K, N], or [N, K] with transB.
    bool transB = op.getTransB();
    target.barrier(rewriter, loc);
    stageRowMajor(rewriter, loc, aType, a, shared, k, lane, warp);
    stageRowMajor(rewriter, loc, bType, b, bShared, transB ? k : n, lane, warp);
    target.barrier(rewriter, loc);

    // Each a element (row, k) and b element (k, col) a thread needs is
    // loaded once, however many of its accumulators use it.
    SmallVector<Value> coords =
        emitBaseCoords(rewriter, loc, accType, lane, warp);
    Value rowBase = LLVM::MulOp::create(rewriter, loc, coords[0],
                                        i32Constant(rewriter, loc, k));
    llvm::DenseMap<std::pair<int64_t, int64_t>, Value> aValues, bValues;
    auto load = [&](auto &cache, Value base, Value start, int64_t offset,
                    int64_t kk, int64_t step) -> Value {
      Value &value = cache[{offset, kk}];
      if (value)
        return value;
      Value index = LLVM::AddOp::create(
          rewriter, loc, start, i32Constant(rewriter, loc, offset + kk * step));
      value = LLVM::LoadOp::create(
          rewriter, loc, inType,
          sharedElementPtr(rewriter, loc, base, inType, index));
      if (inType != f32)
        value = LLVM::FPExtOp::create(rewriter, loc, f32, value);
      return value;
    };
    Value colBase = transB ? LLVM::MulOp::create(rewriter, loc, coords[1],
                                                 i32Constant(rewriter, loc, k))
                           : coords[1];
    int64_t colScale = transB ? k : 1, bStep = transB ? 1 : n;
    auto offsets = getRegisterOffsets(accType);
    for (auto [reg, value] : llvm::enumerate(acc)) {
      int64_t rowOffset = offsets[reg][0] * k,
              colOffset = offsets[reg][1] * colScale;
      for (int64_t kk = 0; kk < k; ++kk) {
        Value x = load(aValues, shared, rowBase, rowOffset, kk, 1);
        Value y = load(bValues, bShared, colBase, colOffset, kk, bStep);
        value = LLVM::FMulAddOp::create(rewriter, loc, x, y, value);
      }
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(accType),
                                      acc));
    return success();
  }
};
} // namespace

void mlir::tile::populateDotOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                             const TargetInfo &target,
                                             RewritePatternSet &patterns) {
  patterns.add<FMADotOpConversion>(converter, patterns.getContext(), target);
}
