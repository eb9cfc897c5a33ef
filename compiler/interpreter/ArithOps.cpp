//===- ArithOps.cpp - arith and math ops, element by element --------------===//
//
// Floats are computed in f32 and rounded to the result type (see Numerics.h).
// Integers wrap (two's complement); signed division by zero is an error,
// INT_MIN / -1 wraps to INT_MIN (remainder 0). Shifts by the bit width or
// more give 0 (or the sign for shrsi), as PTX's shifts do. fptosi/fptoui
// saturate and map NaN to 0, as PTX's cvt.rzi does.
//
//===----------------------------------------------------------------------===//
#include "FloatOps.h"
#include "Program.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace tilemla::interp {
namespace {
size_t lane(const RtValue &v, size_t i) { return v.size() == 1 ? 0 : i; }

template <typename F> RtValue floatUnary(const RtValue &a, ElemKind kind, F f) {
  RtValue r = RtValue::zeros(kind, a.shape);
  for (size_t i = 0, e = a.floats.size(); i < e; ++i)
    r.floats[i] = roundFloat(kind, float(f(a.floats[i])));
  return r;
}

template <typename F>
RtValue floatBinary(const RtValue &a, const RtValue &b, ElemKind kind, F f) {
  RtValue r = RtValue::zeros(kind, a.shape);
  for (size_t i = 0, e = a.floats.size(); i < e; ++i)
    r.floats[i] = roundFloat(kind, float(f(a.floats[i], b.floats[i])));
  return r;
}

/// `f` gets the stored operands and returns the result before wrapping.
template <typename F>
RtValue intBinary(const RtValue &a, const RtValue &b, ElemKind kind, F f) {
  RtValue r = RtValue::zeros(kind, a.shape);
  for (size_t i = 0, e = a.ints.size(); i < e; ++i)
    r.ints[i] = wrapInt(kind, f(a.ints[i], b.ints[i]));
  return r;
}

bool compareInt(arith::CmpIPredicate p, ElemKind k, int64_t a, int64_t b) {
  int64_t sa = toSigned(k, a), sb = toSigned(k, b);
  uint64_t ua = toUnsigned(k, a), ub = toUnsigned(k, b);
  switch (p) {
  case arith::CmpIPredicate::eq:
    return ua == ub;
  case arith::CmpIPredicate::ne:
    return ua != ub;
  case arith::CmpIPredicate::slt:
    return sa < sb;
  case arith::CmpIPredicate::sle:
    return sa <= sb;
  case arith::CmpIPredicate::sgt:
    return sa > sb;
  case arith::CmpIPredicate::sge:
    return sa >= sb;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  return false;
}

bool compareFloat(arith::CmpFPredicate p, float a, float b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::OEQ:
    return !unordered && a == b;
  case arith::CmpFPredicate::OGT:
    return !unordered && a > b;
  case arith::CmpFPredicate::OGE:
    return !unordered && a >= b;
  case arith::CmpFPredicate::OLT:
    return !unordered && a < b;
  case arith::CmpFPredicate::OLE:
    return !unordered && a <= b;
  case arith::CmpFPredicate::ONE:
    return !unordered && a != b;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || a == b;
  case arith::CmpFPredicate::UGT:
    return unordered || a > b;
  case arith::CmpFPredicate::UGE:
    return unordered || a >= b;
  case arith::CmpFPredicate::ULT:
    return unordered || a < b;
  case arith::CmpFPredicate::ULE:
    return unordered || a <= b;
  case arith::CmpFPredicate::UNE:
    return unordered || a != b;
  case arith::CmpFPredicate::UNO:
    return unordered;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  }
  return false;
}

float toFloat(const llvm::APFloat &value) {
  llvm::APFloat single = value;
  bool lost;
  single.convert(llvm::APFloat::IEEEsingle(),
                 llvm::APFloat::rmNearestTiesToEven, &lost);
  return single.convertToFloat();
}

/// Saturating float -> integer conversion toward zero; NaN gives 0.
int64_t floatToInt(float x, ElemKind kind, bool isSigned) {
  if (std::isnan(x))
    return 0;
  unsigned bits = bitWidth(kind);
  double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi =
      isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  double t = std::trunc(double(x));
  if (t <= lo)
    return isSigned ? std::numeric_limits<int64_t>::min() >> (64 - bits) : 0;
  if (t >= hi) {
    if (!isSigned && bits == 64)
      return -1; // all ones
    return isSigned ? std::numeric_limits<int64_t>::max() >> (64 - bits)
                    : int64_t((uint64_t(1) << bits) - 1);
  }
  return int64_t(t);
}

RtValue runConstant(ProgramInterpreter &interp, arith::ConstantOp op) {
  RtValue r = zerosOfType(op.getType());
  Attribute attr = op.getValue();
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    r.ints[0] = wrapInt(r.kind, i.getValue().getSExtValue());
  } else if (auto f = dyn_cast<FloatAttr>(attr)) {
    r.floats[0] = toFloat(f.getValue());
  } else if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    size_t i = 0, n = r.size();
    if (r.isFloat()) {
      for (llvm::APFloat v : dense.getValues<llvm::APFloat>())
        r.floats[i++] = toFloat(v);
    } else {
      for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
        r.ints[i++] = wrapInt(r.kind, v.getSExtValue());
    }
    if (dense.isSplat() && i == 1) {
      if (r.isFloat())
        std::fill(r.floats.begin(), r.floats.end(), r.floats[0]);
      else
        std::fill(r.ints.begin(), r.ints.end(), r.ints[0]);
    } else if (i != n) {
      interp.fail(op, "unsupported dense constant");
    }
  } else {
    interp.fail(op, "unsupported constant attribute");
  }
  return r;
}
} // namespace

bool runArithOp(ProgramInterpreter &interp, Operation &op) {
  Dialect *dialect = op.getDialect();
  if (!dialect || !isa<arith::ArithDialect, math::MathDialect>(dialect))
    return false;
  if (op.getNumResults() != 1)
    return false;
  Value result = op.getResult(0);
  ElemKind kind, pointee;
  if (!getElemKind(result.getType(), kind, pointee))
    interp.fail(&op, "unsupported result type");

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    interp.set(result, runConstant(interp, c));
    return true;
  }

  const RtValue &a = interp.get(op.getOperand(0));
  auto binary = [&]() -> const RtValue & {
    return interp.get(op.getOperand(1));
  };
  Operation *at = &op;
  auto checkDivisor = [&](int64_t b) {
    if (b == 0)
      interp.fail(at, "integer division by zero in '" +
                          at->getName().getStringRef() + "'");
  };
  RtValue r;
  // Integer arithmetic, on the stored (sign-extended) forms.
  if (isa<arith::AddIOp>(op))
    r = intBinary(a, binary(), kind, [](int64_t x, int64_t y) {
      return int64_t(uint64_t(x) + uint64_t(y));
    });
  else if (isa<arith::SubIOp>(op))
    r = intBinary(a, binary(), kind, [](int64_t x, int64_t y) {
      return int64_t(uint64_t(x) - uint64_t(y));
    });
  else if (isa<arith::MulIOp>(op))
    r = intBinary(a, binary(), kind, [](int64_t x, int64_t y) {
      return int64_t(uint64_t(x) * uint64_t(y));
    });
  else if (isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp,
               arith::CeilDivSIOp>(op)) {
    bool isRem = isa<arith::RemSIOp>(op);
    bool isFloor = isa<arith::FloorDivSIOp>(op);
    bool isCeil = isa<arith::CeilDivSIOp>(op);
    r = intBinary(a, binary(), kind, [&](int64_t x, int64_t y) -> int64_t {
      int64_t sx = toSigned(kind, x), sy = toSigned(kind, y);
      checkDivisor(sy);
      if (sy == -1) // avoids INT64_MIN / -1; wraps like two's complement
        return isRem ? 0 : int64_t(0 - uint64_t(sx));
      int64_t q = sx / sy, rem = sx % sy;
      if (isRem)
        return rem;
      if (isFloor && rem != 0 && ((rem < 0) != (sy < 0)))
        return q - 1;
      if (isCeil && rem != 0 && ((rem < 0) == (sy < 0)))
        return q + 1;
      return q;
    });
  } else if (isa<arith::DivUIOp, arith::RemUIOp>(op)) {
    bool isRem = isa<arith::RemUIOp>(op);
    r = intBinary(a, binary(), kind, [&](int64_t x, int64_t y) -> int64_t {
      uint64_t ux = toUnsigned(kind, x), uy = toUnsigned(kind, y);
      checkDivisor(int64_t(uy));
      return int64_t(isRem ? ux % uy : ux / uy);
    });
  } else if (isa<arith::AndIOp>(op))
    r = intBinary(a, binary(), kind,
                  [](int64_t x, int64_t y) { return x & y; });
  else if (isa<arith::OrIOp>(op))
    r = intBinary(a, binary(), kind,
                  [](int64_t x, int64_t y) { return x | y; });
  else if (isa<arith::XOrIOp>(op))
    r = intBinary(a, binary(), kind,
                  [](int64_t x, int64_t y) { return x ^ y; });
  else if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
    unsigned bits = bitWidth(kind);
    bool left = isa<arith::ShLIOp>(op), arithmetic = isa<arith::ShRSIOp>(op);
    r = intBinary(a, binary(), kind, [&](int64_t x, int64_t y) -> int64_t {
      uint64_t amount = toUnsigned(kind, y);
      int64_t sx = toSigned(kind, x);
      if (amount >= bits)
        return arithmetic && sx < 0 ? -1 : 0;
      if (left)
        return int64_t(uint64_t(x) << amount);
      if (arithmetic)
        return sx >> amount;
      return int64_t(toUnsigned(kind, x) >> amount);
    });
  } else if (isa<arith::MaxSIOp, arith::MinSIOp>(op)) {
    bool isMax = isa<arith::MaxSIOp>(op);
    r = intBinary(a, binary(), kind, [&](int64_t x, int64_t y) {
      int64_t sx = toSigned(kind, x), sy = toSigned(kind, y);
      return isMax ? std::max(sx, sy) : std::min(sx, sy);
    });
  } else if (isa<arith::MaxUIOp, arith::MinUIOp>(op)) {
    bool isMax = isa<arith::MaxUIOp>(op);
    r = intBinary(a, binary(), kind, [&](int64_t x, int64_t y) {
      uint64_t ux = toUnsigned(kind, x), uy = toUnsigned(kind, y);
      return int64_t(isMax ? std::max(ux, uy) : std::min(ux, uy));
    });
  } else if (isa<math::AbsIOp>(op)) {
    r = intBinary(a, a, kind, [&](int64_t x, int64_t) {
      int64_t sx = toSigned(kind, x);
      return sx < 0 ? int64_t(0 - uint64_t(sx)) : sx;
    });
  }
  // Float arithmetic, in f32 then rounded to the result type.
  else if (isa<arith::AddFOp>(op))
    r = floatBinary(a, binary(), kind, [](float x, float y) { return x + y; });
  else if (isa<arith::SubFOp>(op))
    r = floatBinary(a, binary(), kind, [](float x, float y) { return x - y; });
  else if (isa<arith::MulFOp>(op))
    r = floatBinary(a, binary(), kind, [](float x, float y) { return x * y; });
  else if (isa<arith::DivFOp>(op))
    r = floatBinary(a, binary(), kind, [](float x, float y) { return x / y; });
  else if (isa<arith::RemFOp>(op))
    r = floatBinary(a, binary(), kind,
                    [](float x, float y) { return std::fmod(x, y); });
  else if (isa<arith::MaximumFOp>(op))
    r = floatBinary(a, binary(), kind, maximumF);
  else if (isa<arith::MinimumFOp>(op))
    r = floatBinary(a, binary(), kind, minimumF);
  else if (isa<arith::MaxNumFOp>(op))
    r = floatBinary(a, binary(), kind,
                    [](float x, float y) { return std::fmax(x, y); });
  else if (isa<arith::MinNumFOp>(op))
    r = floatBinary(a, binary(), kind,
                    [](float x, float y) { return std::fmin(x, y); });
  else if (isa<math::CopySignOp>(op))
    r = floatBinary(a, binary(), kind,
                    [](float x, float y) { return std::copysign(x, y); });
  else if (isa<math::PowFOp>(op))
    r = floatBinary(a, binary(), kind,
                    [](float x, float y) { return std::pow(x, y); });
  else if (isa<arith::NegFOp>(op))
    r = floatUnary(a, kind, [](float x) { return -x; });
  else if (isa<math::AbsFOp>(op))
    r = floatUnary(a, kind, [](float x) { return std::fabs(x); });
  else if (isa<math::ExpOp>(op))
    r = floatUnary(a, kind, [](float x) { return std::exp(x); });
  else if (isa<math::Exp2Op>(op))
    r = floatUnary(a, kind, [](float x) { return std::exp2(x); });
  else if (isa<math::LogOp>(op))
    r = floatUnary(a, kind, [](float x) { return std::log(x); });
  else if (isa<math::Log2Op>(op))
    r = floatUnary(a, kind, [](float x) { return std::log2(x); });
  else if (isa<math::SqrtOp>(op))
    r = floatUnary(a, kind, [](float x) { return std::sqrt(x); });
  else if (isa<math::RsqrtOp>(op))
    r = floatUnary(a, kind, [](float x) { return 1.0f / std::sqrt(x); });
  else if (isa<math::TanhOp>(op))
    r = floatUnary(a, kind, [](float x) { return std::tanh(x); });
  else if (isa<math::FloorOp>(op))
    r = floatUnary(a, kind, [](float x) { return std::floor(x); });
  else if (isa<math::CeilOp>(op))
    r = floatUnary(a, kind, [](float x) { return std::ceil(x); });
  else if (isa<math::FmaOp>(op)) {
    const RtValue &b = binary(), &c = interp.get(op.getOperand(2));
    r = RtValue::zeros(kind, a.shape);
    for (size_t i = 0; i < r.floats.size(); ++i)
      r.floats[i] =
          roundFloat(kind, std::fma(a.floats[i], b.floats[i], c.floats[i]));
  }
  // Conversions.
  else if (isa<arith::ExtFOp, arith::TruncFOp>(op))
    r = floatUnary(a, kind, [](float x) { return x; });
  else if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op)) {
    bool isSigned = !isa<arith::ExtUIOp>(op);
    ElemKind src = a.kind;
    r = RtValue::zeros(kind, a.shape);
    for (size_t i = 0; i < a.ints.size(); ++i)
      r.ints[i] = wrapInt(kind, isSigned ? toSigned(src, a.ints[i])
                                         : int64_t(toUnsigned(src, a.ints[i])));
  } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    bool isSigned = isa<arith::SIToFPOp>(op);
    r = RtValue::zeros(kind, a.shape);
    for (size_t i = 0; i < a.ints.size(); ++i)
      r.floats[i] =
          roundFloat(kind, isSigned ? double(toSigned(a.kind, a.ints[i]))
                                    : double(toUnsigned(a.kind, a.ints[i])));
  } else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    bool isSigned = isa<arith::FPToSIOp>(op);
    r = RtValue::zeros(kind, a.shape);
    for (size_t i = 0; i < a.floats.size(); ++i)
      r.ints[i] = wrapInt(kind, floatToInt(a.floats[i], kind, isSigned));
  }
  // Comparisons and select.
  else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    const RtValue &b = binary();
    r = RtValue::zeros(ElemKind::I1, a.shape);
    for (size_t i = 0; i < a.ints.size(); ++i)
      r.ints[i] = compareInt(cmp.getPredicate(), a.kind, a.ints[i], b.ints[i]);
  } else if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    const RtValue &b = binary();
    r = RtValue::zeros(ElemKind::I1, a.shape);
    for (size_t i = 0; i < a.floats.size(); ++i)
      r.ints[i] = compareFloat(cmp.getPredicate(), a.floats[i], b.floats[i]);
  } else if (isa<arith::SelectOp>(op)) {
    const RtValue &t = binary(), &f = interp.get(op.getOperand(2));
    r = t;
    for (size_t i = 0, e = r.size(); i < e; ++i) {
      if (a.ints[lane(a, i)] & 1)
        continue;
      if (r.isFloat())
        r.floats[i] = f.floats[i];
      else
        r.ints[i] = f.ints[i];
    }
  } else {
    return false;
  }
  interp.set(result, std::move(r));
  return true;
}
} // namespace tilemla::interp
