//===- ElementwiseOpToLLVM.cpp - arith/math ops on tensors ----------------===//
//
// An elementwise op on tensors becomes the same op on each register's
// scalars; those scalar arith/math ops are lowered to LLVM afterwards by the
// standard patterns and by the NVVM special-function patterns below.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct ElementwiseOpConversion : ConversionPattern {
  ElementwiseOpConversion(TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!OpTrait::hasElementwiseMappableTraits(op) ||
        op->getNumResults() != 1 || op->getNumRegions() != 0)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !getLayout(type))
      return failure();
    Location loc = op->getLoc();
    if (llvm::any_of(op->getOperandTypes(), isFp8Type) || isFp8Type(type)) {
      // Conversions from and to fp8: Fp8ConvertOpToLLVM.cpp.
      if (isa<arith::ExtFOp, arith::TruncFOp>(op))
        return failure();
      return op->emitError() << "fp8 values can be loaded, stored and "
                                "converted (.to) from and to f16, bf16 and "
                                "f32; arithmetic on them is not supported";
    }
    // A scalar operand (arith.select's condition may be one) serves every
    // element.
    const unsigned elems = getTotalElemsPerThread(type);
    SmallVector<SmallVector<Value>> unpacked;
    for (auto [operand, original] : llvm::zip(operands, op->getOperands()))
      unpacked.push_back(isa<RankedTensorType>(original.getType())
                             ? unpackStruct(rewriter, loc, operand)
                             : SmallVector<Value>(elems, operand));
    Type elemType = type.getElementType();
    SmallVector<Value> results;
    for (unsigned i = 0; i < elems; ++i) {
      OperationState state(loc, op->getName());
      for (const auto &values : unpacked)
        state.addOperands(values[i]);
      state.addTypes(elemType);
      state.addAttributes(op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(type),
                                      results));
    return success();
  }
};

/// `emit` applied to the f32 forms of `operands` (f16 and bf16 widened, as
/// the hardware's special-function unit and division work on f32), its
/// result narrowed back to `type`.
template <typename Emit>
Value onF32(OpBuilder &builder, Location loc, Type type, ValueRange operands,
            Emit emit) {
  Type f32 = builder.getF32Type();
  SmallVector<Value> wide;
  for (Value value : operands)
    wide.push_back(
        type == f32 ? value : LLVM::FPExtOp::create(builder, loc, f32, value));
  Value result = emit(wide);
  return type == f32 ? result
                     : LLVM::FPTruncOp::create(builder, loc, type, result);
}

/// Runs a unary f32 function on f16/bf16 by widening.
template <typename MathOp>
struct SpecialFunctionPattern : ConvertOpToLLVMPattern<MathOp> {
  using ConvertOpToLLVMPattern<MathOp>::ConvertOpToLLVMPattern;
  using Emit = Value (*)(OpBuilder &, Location, Value);

  SpecialFunctionPattern(LLVMTypeConverter &converter, Emit emit)
      : ConvertOpToLLVMPattern<MathOp>(converter, /*benefit=*/2), emit(emit) {}

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<Float16Type, BFloat16Type, Float32Type>(type))
      return rewriter.notifyMatchFailure(op, "only f16, bf16 and f32");
    rewriter.replaceOp(op, onF32(rewriter, op.getLoc(), type,
                                 adaptor.getOperand(), [&](ValueRange x) {
                                   return emit(rewriter, op.getLoc(), x[0]);
                                 }));
    return success();
  }

  Emit emit;
};

/// f32 division as `div.full.f32` (full range, within 2 ulp; f16 and bf16
/// widened to it). PTX's IEEE `div.rn.f32` is a ptxas subroutine: it is
/// slower, and nvJitLink serializes every wgmma of a kernel that calls one
/// (C7509, "Extern calls"), whatever the division's place in the kernel.
struct DivFOpToNVVM : ConvertOpToLLVMPattern<arith::DivFOp> {
  DivFOpToNVVM(LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern<arith::DivFOp>(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<Float16Type, BFloat16Type, Float32Type>(type))
      return rewriter.notifyMatchFailure(op, "only f16, bf16 and f32");
    Location loc = op.getLoc();
    auto divide = [&](ValueRange xy) {
      return LLVM::CallIntrinsicOp::create(
                 rewriter, loc, rewriter.getF32Type(),
                 rewriter.getStringAttr("llvm.nvvm.div.full"), xy)
          .getResult(0);
    };
    rewriter.replaceOp(op, onF32(rewriter, loc, type,
                                 ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                                 divide));
    return success();
  }
};

Value f32Constant(OpBuilder &builder, Location loc, double value) {
  return LLVM::ConstantOp::create(builder, loc, builder.getF32Type(),
                                  builder.getF32FloatAttr(value));
}

/// exp2 as `ex2.approx.ftz.f32`: results below 2^-126 flush to zero, as
/// with CUDA's fast math. The non-flushing form costs a compare and two
/// predicated multiplies around every ex2 (11 instructions per softmax
/// element become 8 in MLA stage 1), and a term that small never counts
/// beside the 1 a softmax row always holds.
Value emitExp2(OpBuilder &builder, Location loc, Value x) {
  return LLVM::CallIntrinsicOp::create(
             builder, loc, builder.getF32Type(),
             builder.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"), ValueRange{x})
      .getResult(0);
}

Value emitExp(OpBuilder &builder, Location loc, Value x) {
  Value scaled =
      LLVM::FMulOp::create(builder, loc, x, f32Constant(builder, loc, M_LOG2E));
  return emitExp2(builder, loc, scaled);
}

Value emitLog2(OpBuilder &builder, Location loc, Value x) {
  return LLVM::CallIntrinsicOp::create(
             builder, loc, builder.getF32Type(),
             builder.getStringAttr("llvm.nvvm.lg2.approx.f"), ValueRange{x})
      .getResult(0);
}

Value emitLog(OpBuilder &builder, Location loc, Value x) {
  return LLVM::FMulOp::create(builder, loc, emitLog2(builder, loc, x),
                              f32Constant(builder, loc, M_LN2));
}
} // namespace

void mlir::tile::populateElementwiseOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseOpConversion>(converter, patterns.getContext());
}

void mlir::tile::populateMathToNVVMPatterns(LLVMTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<SpecialFunctionPattern<math::ExpOp>>(converter, emitExp);
  patterns.add<SpecialFunctionPattern<math::Exp2Op>>(converter, emitExp2);
  patterns.add<SpecialFunctionPattern<math::LogOp>>(converter, emitLog);
  patterns.add<SpecialFunctionPattern<math::Log2Op>>(converter, emitLog2);
  patterns.add<DivFOpToNVVM>(converter);
}
