//===- Fp8ConvertOpToLLVM.cpp - conversions to and from fp8 ---------------===//
//
// arith.extf from f8E4M3FN or f8E5M2 (to f16, bf16 or f32) and arith.truncf
// to them (from f16, bf16 or f32), on tensors (each thread's registers, two
// at a time) and on scalars. fp8 values are bytes (i8) once lowered.
//
// Semantics, those of arith.truncf and of the interpreter: rounding to
// nearest even; -0 stays -0; NaN stays NaN (with the input's sign). Past
// the range: e4m3 (no infinities) gives NaN beyond 464, the midpoint above
// its largest value 448, and for infinities; e5m2 gives an infinity from
// 61440 (the midpoint above 57344, which ties to the even infinity).
// Widening is exact.
//
// sm_89 and newer convert pairs in one instruction: cvt.rn.f16x2.e4m3x2 /
// .e5m2x2 (then f16 to f32 or bf16, exact; on sm_90 a bf16 widening from
// the bits, with a fifth of the conversions, measured 6-8 % slower in the
// MLA kernels) and cvt.rn.satfinite.e4m3x2.f32
// / .e5m2x2.f32, whose saturation to the largest value is replaced by the
// NaN or infinity above. Older targets (sm_80 to sm_87) have no fp8
// instructions: integer arithmetic on the bits gives the same results
// (e5m2 is the upper byte of an f16).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/TargetInfo.h"
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include <cmath>

using namespace mlir;
using namespace mlir::tile;

namespace {
/// What differs between the two fp8 formats.
struct Fp8Format {
  const char *toHalves;   ///< intrinsic: a byte pair to f16x2
  const char *fromFloats; ///< intrinsic: two f32 to a byte pair
  int mantissaBits, bias;
  double largest;  ///< the largest finite value
  bool tiesOut;    ///< the midpoint above `largest` rounds out of range
  uint8_t outside; ///< the byte past the range: NaN or infinity
  uint8_t nan;

  static Fp8Format of(Type type) {
    if (isa<Float8E5M2Type>(getElementTypeOrSelf(type)))
      return {"llvm.nvvm.e5m2x2.to.f16x2.rn",
              "llvm.nvvm.ff.to.e5m2x2.rn",
              2,
              15,
              57344.0,
              true,
              0x7c,
              0x7e};
    return {"llvm.nvvm.e4m3x2.to.f16x2.rn",
            "llvm.nvvm.ff.to.e4m3x2.rn",
            3,
            7,
            448.0,
            false,
            0x7f,
            0x7f};
  }
  /// The midpoint between `largest` and the next step up.
  double limit() const {
    return largest + std::ldexp(1.0, std::ilogb(largest) - mantissaBits - 1);
  }
  double smallestNormal() const { return std::ldexp(1.0, 1 - bias); }
};

/// Builds LLVM dialect values at one location, for one fp8 format.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Fp8Format format;

  Value i32(int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
  }
  Value f32(double v) {
    return LLVM::ConstantOp::create(b, loc, b.getF32Type(),
                                    b.getF32FloatAttr(v));
  }
  Value i8(int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getIntegerType(8), v);
  }
  Value toI32(Value byte) {
    return LLVM::ZExtOp::create(b, loc, b.getI32Type(), byte);
  }
  Value toI8(Value word) {
    return LLVM::TruncOp::create(b, loc, b.getIntegerType(8), word);
  }
  Value bitsOf(Value f) {
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), f);
  }
  Value floatOf(Value bits) {
    return LLVM::BitcastOp::create(b, loc, b.getF32Type(), bits);
  }
  Value select(Value c, Value t, Value f) {
    return LLVM::SelectOp::create(b, loc, c, t, f);
  }
  Value icmp(LLVM::ICmpPredicate p, Value x, Value y) {
    return LLVM::ICmpOp::create(b, loc, p, x, y);
  }
  /// f16, bf16 or f32 `value` as f32 (exact).
  Value widen(Value value) {
    if (value.getType().isF32())
      return value;
    return LLVM::FPExtOp::create(b, loc, b.getF32Type(), value);
  }
  /// An exactly representable f32 value as `type` (f16, bf16 or f32).
  Value narrow(Value value, Type type) {
    if (type.isF32())
      return value;
    return LLVM::FPTruncOp::create(b, loc, type, value);
  }
  Value intrinsic(StringRef name, Type result, ValueRange operands) {
    return LLVM::CallIntrinsicOp::create(b, loc, result, b.getStringAttr(name),
                                         operands)
        .getResult(0);
  }

  /// The byte of `x`'s sign (0x80 or 0).
  Value signByte(Value x) {
    Value bits = bitsOf(x);
    return toI8(LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, bits, i32(24)), i32(0x80)));
  }

  /// `byte` where |x| rounds into the format; else, with x's sign, the
  /// format's NaN or infinity past its range, and NaN for NaN.
  Value outsideRange(Value x, Value byte) {
    Value sign = signByte(x);
    Value past = LLVM::FCmpOp::create(
        b, loc,
        format.tiesOut ? LLVM::FCmpPredicate::oge : LLVM::FCmpPredicate::ogt,
        LLVM::FAbsOp::create(b, loc, x), f32(format.limit()));
    byte = select(past, LLVM::OrOp::create(b, loc, sign, i8(format.outside)),
                  byte);
    Value isNan = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
    return select(isNan, LLVM::OrOp::create(b, loc, sign, i8(format.nan)),
                  byte);
  }

  //===--- sm_89+
  //----------------------------------------------------------===//

  /// Bytes `lo`, `hi` as two f16 (cvt.rn.f16x2.e4m3x2 / e5m2x2).
  std::pair<Value, Value> decodePair(Value lo, Value hi) {
    Type i16 = b.getIntegerType(16);
    Value packed = LLVM::OrOp::create(
        b, loc, LLVM::ZExtOp::create(b, loc, i16, lo),
        LLVM::ShlOp::create(b, loc, LLVM::ZExtOp::create(b, loc, i16, hi),
                            LLVM::ConstantOp::create(b, loc, i16, 8)));
    Value halves = intrinsic(format.toHalves,
                             VectorType::get({2}, b.getF16Type()), packed);
    auto element = [&](int64_t i) -> Value {
      return LLVM::ExtractElementOp::create(b, loc, halves, i32(i));
    };
    return {element(0), element(1)};
  }

  /// f32 `lo`, `hi` as two bytes (cvt.rn.satfinite.e4m3x2.f32 / e5m2x2.f32:
  /// its first operand goes to the upper byte).
  std::pair<Value, Value> encodePair(Value lo, Value hi) {
    Value packed = intrinsic(format.fromFloats, b.getIntegerType(16), {hi, lo});
    Value word = LLVM::ZExtOp::create(b, loc, b.getI32Type(), packed);
    return {outsideRange(lo, toI8(word)),
            outsideRange(hi, toI8(LLVM::LShrOp::create(b, loc, word, i32(8))))};
  }

  //===--- sm_80 to sm_87
  //---------------------------------------------------===//

  /// One byte as f32. e5m2: the upper byte of an f16. e4m3: a normal
  /// number's exponent and mantissa moved into place and rebiased (7 ->
  /// 127), a subnormal m * 2^-9, 0x7f NaN.
  Value decodeBits(Value byte) {
    if (format.mantissaBits == 2) {
      Type i16 = b.getIntegerType(16);
      Value bits =
          LLVM::ShlOp::create(b, loc, LLVM::ZExtOp::create(b, loc, i16, byte),
                              LLVM::ConstantOp::create(b, loc, i16, 8));
      return widen(LLVM::BitcastOp::create(b, loc, b.getF16Type(), bits));
    }
    Value word = toI32(byte);
    Value magnitude = LLVM::AndOp::create(b, loc, word, i32(0x7f));
    Value normal = floatOf(LLVM::AddOp::create(
        b, loc, LLVM::ShlOp::create(b, loc, magnitude, i32(20)),
        i32(120 << 23)));
    Value subnormal = LLVM::FMulOp::create(
        b, loc, LLVM::UIToFPOp::create(b, loc, b.getF32Type(), magnitude),
        f32(0x1p-9));
    Value value = select(icmp(LLVM::ICmpPredicate::ult, magnitude, i32(8)),
                         subnormal, normal);
    value = select(icmp(LLVM::ICmpPredicate::eq, magnitude, i32(0x7f)),
                   f32(NAN), value);
    Value sign = LLVM::ShlOp::create(
        b, loc, LLVM::AndOp::create(b, loc, word, i32(0x80)), i32(24));
    return floatOf(LLVM::OrOp::create(b, loc, bitsOf(value), sign));
  }

  /// f32 `x` as a byte: below the smallest normal, |x| in subnormal steps
  /// rounded to an even integer; above, the f32 bits rounded to the
  /// format's mantissa bits (adding half an fp8 ulp less one, plus the kept
  /// lowest bit) and rebiased (127 -> bias).
  Value encodeBits(Value x) {
    const int shift = 23 - format.mantissaBits;
    const double step =
        std::ldexp(format.smallestNormal(), -format.mantissaBits);
    Value magnitude = LLVM::FAbsOp::create(b, loc, x);
    Value scaled = LLVM::FMulOp::create(b, loc, magnitude, f32(1.0 / step));
    Value subnormal = LLVM::FPToUIOp::create(
        b, loc, b.getI32Type(), LLVM::RoundEvenOp::create(b, loc, scaled));
    // Clamped to the largest value so that the rounding stays in range;
    // outsideRange replaces what is past it.
    Value bits =
        bitsOf(LLVM::MinNumOp::create(b, loc, magnitude, f32(format.largest)));
    Value odd = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, bits, i32(shift)), i32(1));
    Value rounded = LLVM::AddOp::create(
        b, loc, bits,
        LLVM::AddOp::create(b, loc, odd, i32((1 << (shift - 1)) - 1)));
    Value normal = LLVM::SubOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, rounded, i32(shift)),
        i32((127 - format.bias) << format.mantissaBits));
    Value isSubnormal =
        LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::olt, magnitude,
                             f32(format.smallestNormal()));
    Value byte = LLVM::OrOp::create(
        b, loc, toI8(select(isSubnormal, subnormal, normal)), signByte(x));
    return outsideRange(x, byte);
  }
};

/// `bytes` (i8) as `type` (f16, bf16 or f32).
SmallVector<Value> fp8ToFloat(Emitter &e, const TargetInfo &target,
                              ArrayRef<Value> bytes, Type type) {
  SmallVector<Value> out;
  if (!target.getGpu().hasFp8Conversions()) {
    for (Value byte : bytes)
      out.push_back(e.narrow(e.decodeBits(byte), type));
    return out;
  }
  for (size_t i = 0; i < bytes.size(); i += 2) {
    Value hi = i + 1 < bytes.size() ? bytes[i + 1] : e.i8(0);
    auto [first, second] = e.decodePair(bytes[i], hi);
    for (Value half : {first, second}) {
      if (out.size() == bytes.size())
        break;
      out.push_back(type.isF16() ? half : e.narrow(e.widen(half), type));
    }
  }
  return out;
}

/// `values` (f16, bf16 or f32) as bytes.
SmallVector<Value> floatToFp8(Emitter &e, const TargetInfo &target,
                              ArrayRef<Value> values) {
  SmallVector<Value> out;
  if (!target.getGpu().hasFp8Conversions()) {
    for (Value value : values)
      out.push_back(e.encodeBits(e.widen(value)));
    return out;
  }
  for (size_t i = 0; i < values.size(); i += 2) {
    Value hi = i + 1 < values.size() ? e.widen(values[i + 1]) : e.f32(0.0);
    auto [first, second] = e.encodePair(e.widen(values[i]), hi);
    out.push_back(first);
    if (out.size() < values.size())
      out.push_back(second);
  }
  return out;
}

/// arith.extf / arith.truncf with an fp8 side, on a tensor or a scalar.
template <typename OpTy> struct Fp8ConvertPattern : TargetPattern<OpTy> {
  using TargetPattern<OpTy>::TargetPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = op.getIn().getType(), to = op.getType();
    if (!isFp8Type(from) && !isFp8Type(to))
      return rewriter.notifyMatchFailure(op, "no fp8 side");
    Type other = getElementTypeOrSelf(isFp8Type(from) ? to : from);
    if (!isa<Float16Type, BFloat16Type, Float32Type>(other))
      return op.emitError() << "fp8 converts to and from f16, bf16 and f32 "
                               "only, not "
                            << other;
    auto tensor = dyn_cast<RankedTensorType>(to);
    if (tensor && !getLayout(tensor))
      return rewriter.notifyMatchFailure(op, "tensor without a layout");
    Location loc = op.getLoc();
    Emitter e{rewriter, loc, Fp8Format::of(isFp8Type(from) ? from : to)};
    SmallVector<Value> values =
        tensor ? unpackStruct(rewriter, loc, adaptor.getIn())
               : SmallVector<Value>{adaptor.getIn()};
    SmallVector<Value> results =
        isFp8Type(from) ? fp8ToFloat(e, this->target, values, other)
                        : floatToFp8(e, this->target, values);
    rewriter.replaceOp(
        op, tensor ? packStruct(rewriter, loc,
                                this->getTypeConverter()->convertType(tensor),
                                results)
                   : results.front());
    return success();
  }
};
} // namespace

void mlir::tile::populateFp8ConvertOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  // Before the generic elementwise lowering (benefit 1), which refuses fp8.
  patterns.add<Fp8ConvertPattern<arith::ExtFOp>,
               Fp8ConvertPattern<arith::TruncFOp>>(
      converter, patterns.getContext(), target, /*benefit=*/2);
}
