//===- Numerics.cpp - f16/bf16/fp8 conversions ----------------------------===//
//
// Rounding works on doubles: an f32 (or i32) value is exact in a double, and
// dividing by a power of two then rounding to an integer with nearbyint (the
// default rounding mode is to-nearest-even) rounds at the format's precision,
// subnormals included. Encoding a value that is already representable is
// then exact.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Interpreter/Numerics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace tilemla::interp {
namespace {
struct FormatInfo {
  int precision; ///< significand bits, the implicit one included
  int minExp;    ///< exponent of the smallest normal number
  double maxFinite;
  bool hasInf;
};

const FormatInfo &infoOf(FloatFormat format) {
  static const FormatInfo f16{11, -14, 65504.0, true};
  static const FormatInfo bf16{8, -126, 0x1.fep127, true};
  static const FormatInfo fp8{4, -6, 448.0, false};
  static const FormatInfo e5m2{3, -14, 57344.0, true};
  switch (format) {
  case FloatFormat::F16:
    return f16;
  case FloatFormat::BF16:
    return bf16;
  case FloatFormat::F8E4M3FN:
    return fp8;
  case FloatFormat::F8E5M2:
    return e5m2;
  }
  return f16;
}

float quietNaN(bool negative) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  return negative ? -nan : nan;
}

uint32_t bitsOf(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

float fromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

/// Decodes sign/exponent/mantissa fields of an IEEE-like format.
float decode(unsigned bits, int expBits, int mantBits, int bias, bool hasInf) {
  bool negative = (bits >> (expBits + mantBits)) & 1;
  unsigned exp = (bits >> mantBits) & ((1u << expBits) - 1);
  unsigned mant = bits & ((1u << mantBits) - 1);
  unsigned maxExp = (1u << expBits) - 1;
  double value;
  if (hasInf && exp == maxExp) {
    if (mant != 0)
      return quietNaN(negative);
    value = std::numeric_limits<double>::infinity();
  } else if (!hasInf && exp == maxExp && mant == (1u << mantBits) - 1) {
    return quietNaN(negative); // E4M3FN: only S.1111.111 is NaN
  } else if (exp == 0) {
    value = std::ldexp(double(mant), 1 - bias - mantBits);
  } else {
    value =
        std::ldexp(double(mant | (1u << mantBits)), int(exp) - bias - mantBits);
  }
  return float(negative ? -value : value);
}

/// Encodes a finite, nonzero value that `info`'s format represents exactly.
unsigned encodeFinite(double value, int mantBits, int bias,
                      const FormatInfo &info) {
  double magnitude = std::fabs(value);
  int e;
  std::frexp(magnitude, &e);
  int exp = e - 1;
  if (exp < info.minExp) // subnormal
    return unsigned(std::ldexp(magnitude, -(info.minExp - mantBits)));
  unsigned mant =
      unsigned(std::ldexp(magnitude, mantBits - exp)) - (1u << mantBits);
  return (unsigned(exp + bias) << mantBits) | mant;
}

const std::array<float, 65536> &f16Table() {
  static const std::array<float, 65536> table = [] {
    std::array<float, 65536> t;
    for (unsigned i = 0; i < 65536; ++i)
      t[i] = decode(i, 5, 10, 15, true);
    return t;
  }();
  return table;
}
} // namespace

float f16ToFloat(uint16_t bits) { return f16Table()[bits]; }

float bf16ToFloat(uint16_t bits) { return fromBits(uint32_t(bits) << 16); }

float fp8e4m3ToFloat(uint8_t bits) { return decode(bits, 4, 3, 7, false); }

float fp8e5m2ToFloat(uint8_t bits) { return f16ToFloat(uint16_t(bits << 8)); }

float roundToFormat(double x, FloatFormat format) {
  const FormatInfo &info = infoOf(format);
  if (std::isnan(x))
    return quietNaN(std::signbit(x));
  if (std::isinf(x))
    return info.hasInf ? float(x) : quietNaN(std::signbit(x));
  if (x == 0)
    return float(x);
  int e;
  std::frexp(x, &e);
  int exp = std::max(e - 1, info.minExp);
  double quantum = std::ldexp(1.0, exp - (info.precision - 1));
  double rounded = std::nearbyint(x / quantum) * quantum;
  if (std::fabs(rounded) > info.maxFinite)
    return info.hasInf
               ? std::copysign(std::numeric_limits<float>::infinity(), float(x))
               : quietNaN(std::signbit(x));
  return float(rounded);
}

uint16_t floatToF16(float x) {
  float v = roundToFormat(x, FloatFormat::F16);
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v))
    return sign | 0x7e00;
  if (std::isinf(v))
    return sign | 0x7c00;
  if (v == 0)
    return sign;
  return sign | uint16_t(encodeFinite(v, 10, 15, infoOf(FloatFormat::F16)));
}

uint16_t floatToBF16(float x) {
  float v = roundToFormat(x, FloatFormat::BF16);
  if (std::isnan(v))
    return (std::signbit(v) ? 0x8000 : 0) | 0x7fc0;
  return uint16_t(bitsOf(v) >> 16); // exact: v is a bf16 value
}

uint8_t floatToFP8E4M3(float x) {
  float v = roundToFormat(x, FloatFormat::F8E4M3FN);
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v))
    return sign | 0x7f;
  if (v == 0)
    return sign;
  return sign | uint8_t(encodeFinite(v, 3, 7, infoOf(FloatFormat::F8E4M3FN)));
}

// An e5m2 value's f16 encoding is its own, in the upper byte (NaN 0x7e00,
// infinity 0x7c00 included).
uint8_t floatToFP8E5M2(float x) {
  return uint8_t(floatToF16(roundToFormat(x, FloatFormat::F8E5M2)) >> 8);
}
} // namespace tilemla::interp
