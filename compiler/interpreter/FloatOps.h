//===- FloatOps.h - float helpers shared by the op files --------*- C++ -*-===//
#ifndef TILEMLA_INTERPRETER_FLOATOPS_H
#define TILEMLA_INTERPRETER_FLOATOPS_H

#include <cmath>
#include <limits>

namespace tilemla::interp {
/// llvm.maximum / arith.maximumf: NaN wins, -0 < +0.
inline float maximumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// llvm.minimum / arith.minimumf: NaN wins, -0 < +0.
inline float minimumF(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
} // namespace tilemla::interp

#endif
