//===- Fp8GpuTest.cpp - fp8 conversions in compiled code ------------------===//
//
// `.to()` from fp8e4m3 and fp8e5m2 to f32, f16 and bf16 (all 256 bytes, each
// at every position of a 32-bit word: conversions take codes in pairs),
// and to both formats from f32 (special values, every fp8 value, every
// midpoint between two and its neighbours, random bits, random values
// around the range), from every f16 and from every bf16, compiled for the
// device (sm_90a: the paired cvt instructions) and for sm_80 (integer
// arithmetic; on a later GPU the driver compiles its PTX), against the
// interpreter's numerics (round to nearest even; past e4m3's range,
// infinities and NaN become NaN). Bit-exact but for a NaN's sign. With
// TILEMLA_INTERPRET=1 the kernels run in the interpreter (once).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Interpreter/Numerics.h"
#include "tilemla/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace tilemla;

namespace {
const char *kDecodeSource = R"(
kernel fp8_decode(src: *F, wide: *f32, half: *f16, brain: *bf16,
                  n: i32, F: dtype, BLOCK: constexpr = 256) {
    offs = program_id(0) * BLOCK + arange(0, BLOCK);
    mask = offs < n;
    x = load(src + offs, mask=mask, other=0.0);
    store(wide + offs, x.to(f32), mask=mask);
    store(half + offs, x.to(f16), mask=mask);
    store(brain + offs, x.to(bf16), mask=mask);
}
)";

const char *kEncodeSource = R"(
kernel fp8_encode(src: *T, out: *F, n: i32, T: dtype, F: dtype,
                  BLOCK: constexpr = 1024) {
    offs = program_id(0) * BLOCK + arange(0, BLOCK);
    mask = offs < n;
    x = load(src + offs, mask=mask, other=0.0);
    store(out + offs, x.to(F), mask=mask);
}
)";

/// An fp8 format: its dtype name and the interpreter's numerics.
struct Format {
  const char *name;
  float (*decode)(uint8_t);
  uint8_t (*encode)(float);
};
const Format kFormats[] = {
    {"fp8e4m3", interp::fp8e4m3ToFloat, interp::floatToFP8E4M3},
    {"fp8e5m2", interp::fp8e5m2ToFloat, interp::floatToFP8E5M2}};

template <typename T> std::vector<T> download(const DeviceBuffer &buffer) {
  synchronize();
  std::vector<T> host(buffer.size() / sizeof(T));
  buffer.download(host.data(), buffer.size());
  return host;
}

template <typename T> DeviceBuffer upload(const std::vector<T> &host) {
  DeviceBuffer buffer(host.size() * sizeof(T));
  buffer.upload(host.data(), buffer.size());
  return buffer;
}

float floatOf(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// The f32 inputs: specials and both formats' edges, each finite fp8 value
/// and the midpoints between neighbours (ties) with the floats next to
/// them, random bits and random values around both ranges.
std::vector<float> encodeInputs() {
  std::vector<float> x = {0.0f,     -0.0f,     INFINITY,   -INFINITY, NAN,
                          -NAN,     448.0f,    463.99f,    464.0f,    464.01f,
                          480.f,    -470.0f,   1e9f,       0x1p-9f,   0x1p-10f,
                          0x1p-6f,  0x1p-140f, 57344.0f,   61439.9f,  61440.0f,
                          -61440.f, 0x1p-16f,  0x1.8p-17f, 65504.0f};
  for (const Format &format : kFormats) {
    std::vector<float> values;
    for (unsigned b = 0; b < 0x7c; ++b)
      values.push_back(format.decode(uint8_t(b)));
    for (size_t i = 0; i < values.size(); ++i) {
      x.push_back(values[i]);
      x.push_back(-values[i]);
      if (i + 1 == values.size())
        break;
      float mid = (values[i] + values[i + 1]) / 2;
      for (float m :
           {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
        x.push_back(m);
        x.push_back(-m);
      }
    }
  }
  std::mt19937_64 rng(0xf8f8);
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_real_distribution<float> inRange(-520.0f, 520.0f);
  for (int i = 0; i < 20000; ++i) {
    x.push_back(floatOf(bits(rng)));
    x.push_back(inRange(rng));
    x.push_back(inRange(rng) * 0x1p-12f);
    x.push_back(inRange(rng) * 128.0f);
  }
  return x;
}

class Fp8GpuTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    if (!isGpuAvailable() && !isInterpreterMode())
      GTEST_SKIP() << "no CUDA GPU on this machine: GPU tests skipped";
    if (isInterpreterMode() && *GetParam())
      GTEST_SKIP() << "the interpreter has no targets: run once";
    options.arch = GetParam();
  }
  /// Encodes `x` (raw values of dtype `type`) in each format and checks
  /// every byte.
  template <typename T>
  void expectEncoded(const std::vector<T> &x, const char *type,
                     float (*toFloat)(T)) {
    for (const Format &format : kFormats) {
      Kernel kernel =
          Kernel::fromSource("fp8_encode.tile", kEncodeSource,
                             {{"T", type}, {"F", format.name}}, options);
      DeviceBuffer src = upload(x), out(x.size());
      out.fill(0x55);
      const unsigned n = unsigned(x.size());
      kernel.launch({(n + 1023) / 1024, 1, 1}, {KernelArg::pointer(src.data()),
                                                KernelArg::pointer(out.data()),
                                                KernelArg::i32(int32_t(n))});
      std::vector<uint8_t> got = download<uint8_t>(out);
      size_t wrong = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        float value = toFloat(x[i]);
        uint8_t want = format.encode(value);
        // A NaN's sign is not kept by every instruction (sm_90's f16x2
        // form gives 0x7f for every NaN): any NaN of the format will do.
        bool same = std::isnan(value) ? std::isnan(format.decode(got[i]))
                                      : got[i] == want;
        if (!same && wrong++ < 8)
          ADD_FAILURE() << format.name << " of " << type << " " << value
                        << " (bits " << std::hex << uint32_t(x[i])
                        << "): got 0x" << int(got[i]) << ", want 0x"
                        << int(want) << std::dec;
      }
      EXPECT_EQ(wrong, 0u) << format.name << " of " << type << ": " << wrong
                           << " of " << x.size();
    }
  }
  KernelOptions options;
};

TEST_P(Fp8GpuTest, DecodesEveryByte) {
  // Four runs of the 256 bytes, each shifted by one: every byte at each of
  // the four positions of a word.
  constexpr unsigned kCount = 4 * 256;
  std::vector<uint8_t> bytes(kCount);
  for (unsigned i = 0; i < kCount; ++i)
    bytes[i] = uint8_t(i % 256 + i / 256);
  for (const Format &format : kFormats) {
    Kernel kernel = Kernel::fromSource("fp8_decode.tile", kDecodeSource,
                                       {{"F", format.name}}, options);
    DeviceBuffer src = upload(bytes), wide(kCount * 4), half(kCount * 2),
                 brain(kCount * 2);
    for (DeviceBuffer *out : {&wide, &half, &brain})
      out->fill(0x55);
    kernel.launch({kCount / 256, 1, 1},
                  {KernelArg::pointer(src.data()),
                   KernelArg::pointer(wide.data()),
                   KernelArg::pointer(half.data()),
                   KernelArg::pointer(brain.data()), KernelArg::i32(kCount)});
    std::vector<float> w = download<float>(wide);
    std::vector<uint16_t> h = download<uint16_t>(half),
                          bf = download<uint16_t>(brain);
    for (unsigned b = 0; b < kCount; ++b) {
      float want = format.decode(bytes[b]);
      for (float got :
           {w[b], interp::f16ToFloat(h[b]), interp::bf16ToFloat(bf[b])})
        if (std::isnan(want))
          EXPECT_TRUE(std::isnan(got))
              << format.name << " byte " << unsigned(bytes[b]) << " at " << b;
        else
          EXPECT_EQ(std::memcmp(&got, &want, 4), 0)
              << format.name << " byte " << unsigned(bytes[b]) << " at " << b
              << ": got " << got << ", want " << want;
    }
  }
}

TEST_P(Fp8GpuTest, EncodesF32) {
  std::vector<float> x = encodeInputs();
  std::vector<uint32_t> bits(x.size());
  std::memcpy(bits.data(), x.data(), x.size() * 4);
  expectEncoded<uint32_t>(bits, "f32", [](uint32_t b) { return floatOf(b); });
}

TEST_P(Fp8GpuTest, EncodesEveryF16AndBf16) {
  std::vector<uint16_t> all(65536);
  for (unsigned i = 0; i < 65536; ++i)
    all[i] = uint16_t(i);
  expectEncoded<uint16_t>(all, "f16", interp::f16ToFloat);
  expectEncoded<uint16_t>(all, "bf16", interp::bf16ToFloat);
}

// "": the device's target (sm_90a on the H200: paired cvt); "sm_80":
// integer arithmetic.
INSTANTIATE_TEST_SUITE_P(Targets, Fp8GpuTest, ::testing::Values("", "sm_80"),
                         [](const auto &info) {
                           return std::string(*info.param ? info.param
                                                          : "device");
                         });
} // namespace
