//===- Values.h - the interpreter's runtime values --------------*- C++ -*-===//
//
// A runtime value is a scalar or a dense row-major tensor. Integers (i1 as
// 0/1, i32 and i64 sign-extended) and pointers (virtual addresses, see
// Memory.h) live in `ints`; floats live in `floats` as the f32 value their
// type represents exactly (an f16 element is an f32 that is an f16 value).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_INTERPRETER_VALUES_H
#define TILEMLA_INTERPRETER_VALUES_H

#include "tilemla/Interpreter/Numerics.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilemla::interp {
enum class ElemKind : uint8_t {
  I1,
  I32,
  I64,
  F16,
  BF16,
  F32,
  F8E4M3,
  F8E5M2,
  Ptr
};

inline bool isFloatKind(ElemKind k) {
  return k == ElemKind::F16 || k == ElemKind::BF16 || k == ElemKind::F32 ||
         k == ElemKind::F8E4M3 || k == ElemKind::F8E5M2;
}
/// Bits of an integer kind (pointers: 64).
unsigned bitWidth(ElemKind kind);
/// Bytes an element of `kind` occupies in memory.
unsigned byteSize(ElemKind kind);
const char *kindName(ElemKind kind);

/// `value` wrapped to `kind`'s width, in the canonical storage form.
int64_t wrapInt(ElemKind kind, int64_t value);
/// The unsigned reading of a stored integer.
uint64_t toUnsigned(ElemKind kind, int64_t stored);
/// The signed reading of a stored integer (i1 true is -1).
int64_t toSigned(ElemKind kind, int64_t stored);
/// `x` rounded to the float `kind` (identity for f32).
float roundFloat(ElemKind kind, float x);
float roundFloat(ElemKind kind, double x);

struct RtValue {
  ElemKind kind = ElemKind::I32;
  ElemKind pointee = ElemKind::I32;    ///< for pointers
  llvm::SmallVector<int64_t, 2> shape; ///< empty: a scalar
  std::vector<int64_t> ints;
  std::vector<float> floats;

  bool isFloat() const { return isFloatKind(kind); }
  bool isScalar() const { return shape.empty(); }
  size_t size() const { return isFloat() ? floats.size() : ints.size(); }

  /// A value of `kind` with `shape`, zero-filled.
  static RtValue zeros(ElemKind kind, llvm::ArrayRef<int64_t> shape,
                       ElemKind pointee = ElemKind::I32);
  static RtValue scalarInt(ElemKind kind, int64_t value);
  static RtValue scalarFloat(ElemKind kind, float value);

  /// Element `i` as a double (ints read signed).
  double getAsDouble(size_t i) const;
};

/// The element kind of a scalar type or tensor element type; `pointee` is set
/// for pointers. Returns false for types the interpreter does not know.
bool getElemKind(mlir::Type type, ElemKind &kind, ElemKind &pointee);
/// A zero-filled value of `type` (scalar or ranked tensor).
RtValue zerosOfType(mlir::Type type);
} // namespace tilemla::interp

#endif
