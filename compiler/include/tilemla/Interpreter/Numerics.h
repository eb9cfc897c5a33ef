//===- Numerics.h - f16/bf16/fp8e4m3 <-> f32, rounded as the GPU does -*- C++
//-*-===//
//
// The interpreter keeps every floating-point element as the f32 value that
// its type represents exactly (all f16, bf16 and fp8e4m3 values are f32
// values). These functions convert between those values and the bit patterns
// in memory, and round an f32 (or f64) result to a narrow type.
//
// Rounding is IEEE round-to-nearest-even, as LLVM's APFloat (and so MLIR's
// `arith.truncf` folding) and the GPU's cvt.rn instructions do:
//   f16, bf16: overflow gives +-inf; NaN stays NaN (quiet).
//   fp8e4m3 (OCP E4M3FN: bias 7, no infinities, NaN = 0x7f/0xff, max 448):
//     overflow (|x| >= 464 after rounding, i.e. rounds past 448) and +-inf
//     give NaN, as APFloat does for the FN formats. The GPU's
//     cvt.rn.satfinite instead saturates to +-448; the interpreter follows
//     MLIR's semantics (arith.truncf), which is what the compiler promises.
//   fp8e5m2 (OCP E5M2: bias 15, IEEE-like with infinities, max 57344):
//     overflow gives +-inf (|x| >= 61440 rounds past 57344); NaN stays NaN
//     (0x7e/0xfe, f16's quiet NaN's upper byte).
// Computing an f16/bf16/fp8 operation in f32 and rounding once gives the
// correctly rounded result for + - * / sqrt (f32 has more than 2p+2 bits).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_INTERPRETER_NUMERICS_H
#define TILEMLA_INTERPRETER_NUMERICS_H

#include "tilemla/Export.h"

#include <cstdint>

namespace tilemla::interp {
/// The narrow floating-point formats.
enum class FloatFormat { F16, BF16, F8E4M3FN, F8E5M2 };

/// The value of a bit pattern (exact).
TILEMLA_API float f16ToFloat(uint16_t bits);
TILEMLA_API float bf16ToFloat(uint16_t bits);
TILEMLA_API float fp8e4m3ToFloat(uint8_t bits);
TILEMLA_API float fp8e5m2ToFloat(uint8_t bits);

/// `x` rounded to the nearest-even value of `format`, as an f32.
TILEMLA_API float roundToFormat(double x, FloatFormat format);

/// `x` rounded to nearest-even and encoded.
TILEMLA_API uint16_t floatToF16(float x);
TILEMLA_API uint16_t floatToBF16(float x);
TILEMLA_API uint8_t floatToFP8E4M3(float x);
TILEMLA_API uint8_t floatToFP8E5M2(float x);
} // namespace tilemla::interp

#endif
