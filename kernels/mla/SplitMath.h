//===- SplitMath.h - integer helpers of the MLA backend's host code -------===//
#ifndef TILEMLA_MLA_SPLITMATH_H
#define TILEMLA_MLA_SPLITMATH_H

#include <cstdint>

namespace tilemla::mla {
inline bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int floorPowerOfTwo(int64_t x) {
  int p = 1;
  while (int64_t(p) * 2 <= x)
    p *= 2;
  return p;
}
} // namespace tilemla::mla

#endif
