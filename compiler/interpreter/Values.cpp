//===- Values.cpp - the interpreter's runtime values ----------------------===//
#include "Values.h"

#include "tilemla/Dialect/TileDialect.h"
#include "tilemla/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace tilemla::interp {
unsigned bitWidth(ElemKind kind) {
  switch (kind) {
  case ElemKind::I1:
    return 1;
  case ElemKind::I32:
    return 32;
  case ElemKind::F8E4M3:
  case ElemKind::F8E5M2:
    return 8;
  case ElemKind::F16:
  case ElemKind::BF16:
    return 16;
  case ElemKind::F32:
    return 32;
  case ElemKind::I64:
  case ElemKind::Ptr:
    return 64;
  }
  return 64;
}

unsigned byteSize(ElemKind kind) {
  return kind == ElemKind::I1 ? 1 : bitWidth(kind) / 8;
}

const char *kindName(ElemKind kind) {
  switch (kind) {
  case ElemKind::I1:
    return "i1";
  case ElemKind::I32:
    return "i32";
  case ElemKind::I64:
    return "i64";
  case ElemKind::F16:
    return "f16";
  case ElemKind::BF16:
    return "bf16";
  case ElemKind::F32:
    return "f32";
  case ElemKind::F8E4M3:
    return "fp8e4m3";
  case ElemKind::F8E5M2:
    return "fp8e5m2";
  case ElemKind::Ptr:
    return "ptr";
  }
  return "?";
}

int64_t wrapInt(ElemKind kind, int64_t value) {
  switch (kind) {
  case ElemKind::I1:
    return value & 1;
  case ElemKind::I32:
    return int64_t(int32_t(uint32_t(uint64_t(value))));
  default:
    return value;
  }
}

uint64_t toUnsigned(ElemKind kind, int64_t stored) {
  switch (kind) {
  case ElemKind::I1:
    return uint64_t(stored & 1);
  case ElemKind::I32:
    return uint64_t(stored) & 0xffffffffu;
  default:
    return uint64_t(stored);
  }
}

int64_t toSigned(ElemKind kind, int64_t stored) {
  return kind == ElemKind::I1 ? -(stored & 1) : stored;
}

float roundFloat(ElemKind kind, double x) {
  switch (kind) {
  case ElemKind::F16:
    return roundToFormat(x, FloatFormat::F16);
  case ElemKind::BF16:
    return roundToFormat(x, FloatFormat::BF16);
  case ElemKind::F8E4M3:
    return roundToFormat(x, FloatFormat::F8E4M3FN);
  case ElemKind::F8E5M2:
    return roundToFormat(x, FloatFormat::F8E5M2);
  default:
    return float(x);
  }
}

/// f32 -> double is exact, so rounding through the double overload is too.
float roundFloat(ElemKind kind, float x) { return roundFloat(kind, double(x)); }

RtValue RtValue::zeros(ElemKind kind, llvm::ArrayRef<int64_t> shape,
                       ElemKind pointee) {
  RtValue v;
  v.kind = kind;
  v.pointee = pointee;
  v.shape.assign(shape.begin(), shape.end());
  size_t n = 1;
  for (int64_t d : shape)
    n *= size_t(d);
  if (v.isFloat())
    v.floats.assign(n, 0.0f);
  else
    v.ints.assign(n, 0);
  return v;
}

RtValue RtValue::scalarInt(ElemKind kind, int64_t value) {
  RtValue v = zeros(kind, {});
  v.ints[0] = wrapInt(kind, value);
  return v;
}

RtValue RtValue::scalarFloat(ElemKind kind, float value) {
  RtValue v = zeros(kind, {});
  v.floats[0] = roundFloat(kind, value);
  return v;
}

double RtValue::getAsDouble(size_t i) const {
  return isFloat() ? double(floats[i]) : double(toSigned(kind, ints[i]));
}

bool getElemKind(Type type, ElemKind &kind, ElemKind &pointee) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  if (auto ptr = dyn_cast<tile::PointerType>(type)) {
    ElemKind inner;
    if (!getElemKind(ptr.getPointeeType(), pointee, inner) ||
        pointee == ElemKind::Ptr)
      return false;
    kind = ElemKind::Ptr;
    return true;
  }
  if (type.isInteger(1))
    kind = ElemKind::I1;
  else if (type.isInteger(32))
    kind = ElemKind::I32;
  else if (type.isInteger(64))
    kind = ElemKind::I64;
  else if (type.isF16())
    kind = ElemKind::F16;
  else if (type.isBF16())
    kind = ElemKind::BF16;
  else if (type.isF32())
    kind = ElemKind::F32;
  else if (isa<Float8E4M3FNType>(type))
    kind = ElemKind::F8E4M3;
  else if (isa<Float8E5M2Type>(type))
    kind = ElemKind::F8E5M2;
  else
    return false;
  return true;
}

RtValue zerosOfType(Type type) {
  ElemKind kind, pointee = ElemKind::I32;
  if (!getElemKind(type, kind, pointee))
    throw InterpreterError("interpreter: unsupported type");
  llvm::ArrayRef<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    shape = tensor.getShape();
  return RtValue::zeros(kind, shape, pointee);
}
} // namespace tilemla::interp
