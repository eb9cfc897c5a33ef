//===- HostNumerics.h - f16/bf16 on the host, error metrics for tests -----===//
#ifndef TILEMLA_TESTS_HOSTNUMERICS_H
#define TILEMLA_TESTS_HOSTNUMERICS_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tilemla::test {
inline uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// f32 -> bf16, round to nearest even (NaN stays NaN).
inline uint16_t toBF16(float value) {
  uint32_t bits = bitsOf(value);
  if (std::isnan(value))
    return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

inline float fromBF16(uint16_t bits) { return floatOf(uint32_t(bits) << 16); }

/// f32 -> IEEE half, round to nearest even, with subnormals and overflow.
inline uint16_t toF16(float value) {
  uint32_t bits = bitsOf(value);
  uint32_t sign = (bits >> 16) & 0x8000;
  if (std::isnan(value))
    return uint16_t(sign | 0x7e00);
  float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f)
    return uint16_t(sign | 0x7c00);
  if (magnitude < 6.103515625e-05f) { // subnormal: multiples of 2^-24
    uint32_t units = uint32_t(std::nearbyint(magnitude * 16777216.0f));
    return uint16_t(sign | units);
  }
  uint32_t exponent = ((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return uint16_t(sign | half);
}

inline float fromF16(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
  if (exponent == 0)
    return (sign ? -1.0f : 1.0f) * std::ldexp(float(mantissa), -24);
  if (exponent == 31)
    return floatOf(sign | 0x7f800000 | (mantissa << 13));
  return floatOf(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

enum class DType { F32, F16, BF16 };

inline const char *dtypeName(DType type) {
  return type == DType::F32 ? "f32" : type == DType::F16 ? "f16" : "bf16";
}

inline size_t dtypeBytes(DType type) { return type == DType::F32 ? 4 : 2; }

/// Host tensor in a storage dtype; `values` holds what the device sees
/// (rounded to the dtype) as doubles for references.
struct HostTensor {
  DType type;
  std::vector<unsigned char> bytes;
  std::vector<double> values;

  HostTensor(DType type, size_t count)
      : type(type), bytes(count * dtypeBytes(type)), values(count) {}

  void set(size_t i, float value) {
    if (type == DType::F32) {
      std::memcpy(&bytes[i * 4], &value, 4);
      values[i] = value;
    } else {
      uint16_t bits = type == DType::F16 ? toF16(value) : toBF16(value);
      std::memcpy(&bytes[i * 2], &bits, 2);
      values[i] = type == DType::F16 ? fromF16(bits) : fromBF16(bits);
    }
  }

  /// Decodes `bytes` (e.g. downloaded results) into `values`.
  void decode() {
    for (size_t i = 0; i < values.size(); ++i) {
      if (type == DType::F32) {
        float value;
        std::memcpy(&value, &bytes[i * 4], 4);
        values[i] = value;
      } else {
        uint16_t bits;
        std::memcpy(&bits, &bytes[i * 2], 2);
        values[i] = type == DType::F16 ? fromF16(bits) : fromBF16(bits);
      }
    }
  }
};

/// A fresh seed each run; printed by tests on failure.
inline uint64_t freshSeed() { return std::random_device{}(); }

inline void fillUniform(HostTensor &tensor, std::mt19937_64 &rng, float low,
                        float high) {
  std::uniform_real_distribution<float> dist(low, high);
  for (size_t i = 0; i < tensor.values.size(); ++i)
    tensor.set(i, dist(rng));
}

/// max |got - want| / max(|want|, floor): relative error with a floor so
/// values near zero do not dominate; NaN if any result is NaN.
inline double maxRelativeError(const std::vector<double> &got,
                               const std::vector<double> &want,
                               double floor = 1e-3) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) != std::isnan(want[i]))
      return NAN;
    double denom = std::max(std::fabs(want[i]), floor);
    worst = std::max(worst, std::fabs(got[i] - want[i]) / denom);
  }
  return worst;
}
} // namespace tilemla::test

#endif
