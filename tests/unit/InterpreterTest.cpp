//===- InterpreterTest.cpp - the tile interpreter against fp64 references -===//
//
// The example kernels run in the interpreter on fresh random inputs (seeded
// from std::random_device; the seed is printed with any failure) and are
// compared with fp64 references computed from the same (rounded) inputs.
// Outputs are poisoned with NaN before every launch, and every buffer has
// exactly the size the kernel may touch, so a store the mask should have
// dropped is caught by the out-of-bounds checker.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Interpreter/Interpreter.h"
#include "tilemla/Interpreter/Numerics.h"

#include "llvm/ADT/APFloat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

using namespace tilemla;
using namespace tilemla::interp;

namespace {
/// Reads kernels/examples/NAME, or $TILEMLA_EXAMPLES_DIR/NAME when set (to
/// run these tests against modified kernels).
std::string readExample(const std::string &name) {
  const char *dir = std::getenv("TILEMLA_EXAMPLES_DIR");
  std::ifstream in(dir ? std::string(dir) + "/" + name
                       : std::string(TILEMLA_SOURCE_DIR) +
                             "/kernels/examples/" + name);
  if (!in)
    ADD_FAILURE() << "cannot read " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Kernel compileExample(const std::string &name,
                      std::map<std::string, std::string> defines) {
  SourceFile file("kernels/examples/" + name, readExample(name));
  CompileOptions options;
  options.defines = std::move(defines);
  return Kernel(file, options);
}

Kernel compileText(const std::string &path, const std::string &text,
                   std::map<std::string, std::string> defines = {}) {
  CompileOptions options;
  options.defines = std::move(defines);
  return Kernel(SourceFile(path, text), options);
}

/// A fresh seed per test, shown with every failure of the test.
struct Seeded {
  unsigned seed = std::random_device()();
  std::mt19937 gen{seed};
  testing::ScopedTrace trace{__FILE__, __LINE__,
                             "random seed " + std::to_string(seed)};
};

enum class DType { F32, F16, BF16 };
const char *dtypeName(DType t) {
  return t == DType::F32 ? "f32" : t == DType::F16 ? "f16" : "bf16";
}

/// A host array of f32, f16 or bf16 elements.
struct HostArray {
  DType type;
  std::vector<uint8_t> bytes;

  HostArray(DType type, size_t n)
      : type(type), bytes(n * (type == DType::F32 ? 4 : 2)) {}
  size_t size() const { return bytes.size() / (type == DType::F32 ? 4 : 2); }
  /// Stores `x` rounded to nearest-even; returns the stored value.
  double set(size_t i, double x) {
    if (type == DType::F32) {
      float f = float(x);
      std::memcpy(&bytes[4 * i], &f, 4);
    } else {
      uint16_t bits =
          type == DType::F16 ? floatToF16(float(x)) : floatToBF16(float(x));
      std::memcpy(&bytes[2 * i], &bits, 2);
    }
    return get(i);
  }
  double get(size_t i) const {
    if (type == DType::F32) {
      float f;
      std::memcpy(&f, &bytes[4 * i], 4);
      return f;
    }
    uint16_t bits;
    std::memcpy(&bits, &bytes[2 * i], 2);
    return type == DType::F16 ? f16ToFloat(bits) : bf16ToFloat(bits);
  }
  void poison() {
    for (size_t i = 0; i < size(); ++i)
      set(i, std::nan(""));
  }
  Arg arg() { return Arg::pointer(bytes.data(), bytes.size()); }
};

/// Fills `a` with uniform values in [lo, hi); returns the stored values.
std::vector<double> fillRandom(HostArray &a, std::mt19937 &gen, double lo,
                               double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> values(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    values[i] = a.set(i, dist(gen));
  return values;
}

unsigned cdiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

//===----------------------------------------------------------------------===//
// Numerics against LLVM's APFloat (what arith.truncf/extf fold with).
//===----------------------------------------------------------------------===//

uint64_t apConvert(float x, const llvm::fltSemantics &sem) {
  llvm::APFloat value(x);
  bool lost;
  value.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return value.bitcastToAPInt().getZExtValue();
}

TEST(InterpreterNumerics, DecodeMatchesAPFloatExhaustively) {
  for (unsigned bits = 0; bits < 65536; ++bits) {
    for (bool bf16 : {false, true}) {
      llvm::APFloat ap(bf16 ? llvm::APFloat::BFloat()
                            : llvm::APFloat::IEEEhalf(),
                       llvm::APInt(16, bits));
      float expected = ap.convertToFloat();
      float got = bf16 ? bf16ToFloat(bits) : f16ToFloat(bits);
      if (std::isnan(expected))
        ASSERT_TRUE(std::isnan(got)) << bits;
      else
        ASSERT_EQ(std::memcmp(&got, &expected, 4), 0)
            << bits << " bf16=" << bf16;
    }
  }
  for (unsigned bits = 0; bits < 256; ++bits) {
    llvm::APFloat ap(llvm::APFloat::Float8E4M3FN(), llvm::APInt(8, bits));
    float expected = ap.convertToFloat(), got = fp8e4m3ToFloat(bits);
    if (std::isnan(expected))
      ASSERT_TRUE(std::isnan(got)) << bits;
    else
      ASSERT_EQ(std::memcmp(&got, &expected, 4), 0) << bits;
    llvm::APFloat e5m2(llvm::APFloat::Float8E5M2(), llvm::APInt(8, bits));
    expected = e5m2.convertToFloat(), got = fp8e5m2ToFloat(bits);
    if (std::isnan(expected))
      ASSERT_TRUE(std::isnan(got)) << bits;
    else
      ASSERT_EQ(std::memcmp(&got, &expected, 4), 0) << "e5m2 " << bits;
  }
}

TEST(InterpreterNumerics, RoundingMatchesAPFloat) {
  Seeded s;
  std::vector<float> inputs = {0.0f,     -0.0f,     INFINITY,   -INFINITY,
                               65504.0f, 65519.99f, 65520.0f,   448.0f,
                               463.9f,   464.0f,    464.1f,     480.0f,
                               -500.0f,  0x1p-9f,   0x1p-10f,   0x1.8p-10f,
                               0x1p-24f, 0x1p-25f,  0x1.0p-133f, 57344.0f,
                               61439.9f, 61440.0f,  -61440.0f,  0x1p-16f,
                               0x1p-17f, 0x1.8p-17f};
  std::uniform_int_distribution<uint32_t> bitsDist;
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = bitsDist(s.gen);
    float x;
    std::memcpy(&x, &bits, 4);
    inputs.push_back(x);
  }
  std::uniform_real_distribution<float> small(-600.0f, 600.0f);
  for (int i = 0; i < 50000; ++i)
    inputs.push_back(small(s.gen));
  for (float x : inputs) {
    uint64_t f16 = apConvert(x, llvm::APFloat::IEEEhalf());
    uint64_t bf16 = apConvert(x, llvm::APFloat::BFloat());
    uint64_t fp8 = apConvert(x, llvm::APFloat::Float8E4M3FN());
    uint64_t e5m2 = apConvert(x, llvm::APFloat::Float8E5M2());
    if (std::isnan(x)) {
      ASSERT_TRUE(std::isnan(f16ToFloat(floatToF16(x))));
      ASSERT_TRUE(std::isnan(bf16ToFloat(floatToBF16(x))));
      ASSERT_TRUE(std::isnan(fp8e4m3ToFloat(floatToFP8E4M3(x))));
      ASSERT_TRUE(std::isnan(fp8e5m2ToFloat(floatToFP8E5M2(x))));
      continue;
    }
    // E5M2 overflows to infinity (61440 ties to it).
    ASSERT_EQ(floatToFP8E5M2(x), e5m2) << x;
    ASSERT_EQ(floatToF16(x), f16) << x;
    ASSERT_EQ(floatToBF16(x), bf16) << x;
    // Overflow gives NaN for E4M3FN; APFloat's NaN is 0x7f/0xff too.
    ASSERT_EQ(floatToFP8E4M3(x), fp8) << x;
  }
}

//===----------------------------------------------------------------------===//
// The example kernels.
//===----------------------------------------------------------------------===//

TEST(Interpreter, VectorAdd) {
  Seeded s;
  // Tolerance: exact. An f16/bf16 add computed in f32 and rounded once is the
  // correctly rounded sum, which is what rounding the fp64 sum gives.
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    Kernel kernel = compileExample("vector_add.tile",
                                   {{"BLOCK", "256"}, {"T", dtypeName(t)}});
    for (unsigned n : {1u, 256u, 1000u, 2777u}) {
      SCOPED_TRACE(std::string(dtypeName(t)) + " n=" + std::to_string(n));
      HostArray x(t, n), y(t, n), out(t, n);
      std::vector<double> xs = fillRandom(x, s.gen, -100, 100);
      std::vector<double> ys = fillRandom(y, s.gen, -100, 100);
      out.poison();
      ASSERT_NO_THROW(kernel.launch(
          {cdiv(n, 256), 1, 1}, {x.arg(), y.arg(), out.arg(), Arg::i32(n)}));
      HostArray expected(t, n);
      for (unsigned i = 0; i < n; ++i) {
        double want = expected.set(i, xs[i] + ys[i]);
        ASSERT_EQ(out.get(i), want) << "element " << i;
      }
    }
  }
}

TEST(Interpreter, Softmax) {
  Seeded s;
  // Tolerances (relative, per element): f32 1e-5 (std::exp and an f32 sum
  // over <= 1000 terms); bf16 1e-2 (one bf16 rounding of the output, 2^-9).
  struct Case {
    unsigned block, cols, rows;
  };
  for (DType t : {DType::F32, DType::BF16}) {
    double tol = t == DType::F32 ? 1e-5 : 1e-2;
    for (Case c : {Case{32, 1, 3}, Case{32, 7, 5}, Case{32, 32, 4},
                   Case{256, 100, 6}, Case{256, 256, 2}, Case{1024, 1000, 3}}) {
      SCOPED_TRACE(std::string(dtypeName(t)) +
                   " BLOCK=" + std::to_string(c.block) +
                   " n_cols=" + std::to_string(c.cols));
      Kernel kernel =
          compileExample("softmax.tile", {{"BLOCK", std::to_string(c.block)},
                                          {"T", dtypeName(t)}});
      unsigned stride = c.cols + 3; // padding the kernel must not touch
      HostArray x(t, c.rows * stride), out(t, c.rows * stride);
      std::vector<double> xs = fillRandom(x, s.gen, -8, 8);
      out.poison();
      ASSERT_NO_THROW(
          kernel.launch({c.rows, 1, 1}, {x.arg(), out.arg(), Arg::i32(stride),
                                         Arg::i32(c.cols)}));
      for (unsigned r = 0; r < c.rows; ++r) {
        double mx = -INFINITY, den = 0;
        for (unsigned j = 0; j < c.cols; ++j)
          mx = std::max(mx, xs[r * stride + j]);
        for (unsigned j = 0; j < c.cols; ++j)
          den += std::exp(xs[r * stride + j] - mx);
        for (unsigned j = 0; j < stride; ++j) {
          double got = out.get(r * stride + j);
          if (j >= c.cols) {
            ASSERT_TRUE(std::isnan(got))
                << "padding written at " << r << "," << j;
            continue;
          }
          double want = std::exp(xs[r * stride + j] - mx) / den;
          ASSERT_LE(std::fabs(got - want), tol * want)
              << "row " << r << " col " << j << ": got " << got << " want "
              << want;
        }
      }
    }
  }
}

TEST(Interpreter, Matmul) {
  Seeded s;
  // Tolerance: |c - ref| <= tol * sum_k |a_ik * b_kj| with ref in fp64 from
  // the rounded inputs; f32 and f16 inputs (f32 out) tol = 1e-5 (f16
  // products are exact in f32); bf16 inputs and output tol = 1e-2.
  struct Shape {
    unsigned m, n, k;
    bool transposeB;
  };
  struct Blocks {
    unsigned m, n, k;
  };
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (Blocks bl : {Blocks{32, 32, 16}, Blocks{64, 64, 32}}) {
      DType outType = t == DType::BF16 ? DType::BF16 : DType::F32;
      double tol = outType == DType::F32 ? 1e-5 : 1e-2;
      Kernel kernel =
          compileExample("matmul.tile", {{"BLOCK_M", std::to_string(bl.m)},
                                         {"BLOCK_N", std::to_string(bl.n)},
                                         {"BLOCK_K", std::to_string(bl.k)},
                                         {"T", dtypeName(t)},
                                         {"OUT", dtypeName(outType)}});
      for (Shape sh : {Shape{45, 37, 53, false}, Shape{1, 70, 17, false},
                       Shape{33, 5, 16, true}, Shape{64, 64, 48, false},
                       Shape{130, 70, 100, true}}) {
        SCOPED_TRACE(std::string(dtypeName(t)) + " blocks " +
                     std::to_string(bl.m) + "x" + std::to_string(bl.n) + "x" +
                     std::to_string(bl.k) + " M=" + std::to_string(sh.m) +
                     " N=" + std::to_string(sh.n) +
                     " K=" + std::to_string(sh.k));
        HostArray a(t, sh.m * sh.k), b(t, sh.k * sh.n), c(outType, sh.m * sh.n);
        std::vector<double> as = fillRandom(a, s.gen, -1, 1);
        std::vector<double> bs = fillRandom(b, s.gen, -1, 1);
        c.poison();
        int sbk = sh.transposeB ? 1 : sh.n, sbn = sh.transposeB ? sh.k : 1;
        ASSERT_NO_THROW(kernel.launch(
            {cdiv(sh.m, bl.m) * cdiv(sh.n, bl.n), 1, 1},
            {a.arg(), b.arg(), c.arg(), Arg::i32(sh.m), Arg::i32(sh.n),
             Arg::i32(sh.k), Arg::i32(sh.k), Arg::i32(1), Arg::i32(sbk),
             Arg::i32(sbn), Arg::i32(sh.n), Arg::i32(1)}));
        for (unsigned i = 0; i < sh.m; ++i)
          for (unsigned j = 0; j < sh.n; ++j) {
            double want = 0, scale = 0;
            for (unsigned k = 0; k < sh.k; ++k) {
              double p = as[i * sh.k + k] * bs[k * sbk + j * sbn];
              want += p;
              scale += std::fabs(p);
            }
            double got = c.get(i * sh.n + j);
            ASSERT_LE(std::fabs(got - want), tol * scale + 1e-30)
                << "C[" << i << "," << j << "]: got " << got << " want "
                << want;
          }
      }
    }
}

//===----------------------------------------------------------------------===//
// Memory checking, masks, arguments, errors.
//===----------------------------------------------------------------------===//

// vector_add with the masks removed: wrong on any n not a multiple of BLOCK.
const char *kBrokenVectorAdd =
    R"(kernel vector_add(x: *f32, y: *f32, out: *f32, n: i32,
                  BLOCK: constexpr = 256) {
    pid = program_id(0);
    offs = pid * BLOCK + arange(0, BLOCK);
    a = load(x + offs);
    b = load(y + offs);
    store(out + offs, a + b);
}
)";

TEST(Interpreter, UnmaskedLoadOutOfBoundsIsCaught) {
  Kernel kernel = compileText("broken_vector_add.tile", kBrokenVectorAdd);
  unsigned n = 1000;
  std::vector<float> x(n, 1.0f), y(n, 2.0f), out(n, 0.0f);
  try {
    kernel.launch({cdiv(n, 256), 1, 1}, {Arg::pointer(x), Arg::pointer(y),
                                         Arg::pointer(out), Arg::i32(n)});
    FAIL() << "the out-of-bounds load was not caught";
  } catch (const OutOfBoundsError &e) {
    EXPECT_EQ(std::string(e.what()),
              "broken_vector_add.tile:5:9: kernel 'vector_add', program (3, 0, "
              "0): out-of-bounds load: bytes [4000, 4096) of argument 0 (4000 "
              "bytes), 24 of 256 active lanes");
  }
  // Programs 0..2 ran before program 3 failed.
  EXPECT_EQ(out[767], 3.0f);
  EXPECT_EQ(out[768], 0.0f);
  // A multiple of BLOCK is fine.
  std::vector<float> x2(512, 1.0f), y2(512, 2.0f), out2(512);
  kernel.launch({2, 1, 1}, {Arg::pointer(x2), Arg::pointer(y2),
                            Arg::pointer(out2), Arg::i32(512)});
  EXPECT_EQ(out2[511], 3.0f);
}

TEST(Interpreter, UnmaskedStoreOutOfBoundsIsCaught) {
  Kernel kernel = compileText("store.tile", R"(
kernel copy(x: *f16, out: *f16, n: i32) {
    offs = program_id(1) * 64 + arange(0, 64);
    v = load(x + offs, mask=offs < n);
    store(out + (offs - 1), v);
}
)");
  std::vector<uint16_t> x(64), out(64);
  try {
    kernel.launch({1, 1, 1},
                  {Arg::pointer(x), Arg::pointer(out), Arg::i32(64)});
    FAIL() << "the out-of-bounds store was not caught";
  } catch (const OutOfBoundsError &e) {
    EXPECT_EQ(std::string(e.what()),
              "store.tile:5:5: kernel 'copy', program (0, 0, 0): out-of-bounds "
              "store: bytes [-2, 0) of argument 1 (128 bytes), 1 of 64 active "
              "lanes");
  }
}

TEST(Interpreter, PrefetchOutsideItsBufferIsCaught) {
  // prefetch_l2 reads nothing here, but the range the GPU would prefetch
  // (rounded in to 16 bytes) must lie in one buffer.
  Kernel kernel = compileText("prefetch.tile", R"(
kernel k(x: *f32, start: i32, bytes: i32) {
    prefetch_l2(x + start, bytes);
}
)");
  std::vector<float> x(64);
  // Within the buffer, nothing left after rounding in, or nothing asked.
  for (auto [start, bytes] :
       {std::pair{0, 256}, {1, 252}, {60, 20}, {63, 10}, {70, 0}})
    kernel.launch({1, 1, 1},
                  {Arg::pointer(x), Arg::i32(start), Arg::i32(bytes)});
  try {
    kernel.launch({1, 1, 1}, {Arg::pointer(x), Arg::i32(32), Arg::i32(160)});
    FAIL() << "the out-of-bounds prefetch was not caught";
  } catch (const OutOfBoundsError &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "prefetch.tile:3:5: kernel 'k', program (0, 0, 0): "
                  "out-of-bounds prefetch_l2: bytes [128, 288) of argument 0 "
                  "(256 bytes)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Interpreter, OutOfBoundsInHelperNamesTheCallSite) {
  Kernel kernel = compileText("helper.tile", R"(fn fetch(p, offs) {
    return load(p + offs);
}
kernel k(x: *i32, out: *i32) {
    offs = arange(0, 8) * 2;
    store(out + arange(0, 8), fetch(x, offs));
}
)");
  std::vector<int32_t> x(8), out(8);
  try {
    kernel.launch({1, 1, 1}, {Arg::pointer(x), Arg::pointer(out)});
    FAIL() << "the out-of-bounds load was not caught";
  } catch (const OutOfBoundsError &e) {
    EXPECT_EQ(std::string(e.what()),
              "helper.tile:2:12 (inlined at helper.tile:6:31): kernel 'k', "
              "program (0, 0, 0): out-of-bounds load: bytes [32, 60) of "
              "argument 0 (32 bytes), 4 of 8 active lanes");
  }
}

TEST(Interpreter, MaskedLanesReadOther) {
  Kernel kernel = compileText("other.tile", R"(
kernel masked(x: *T, out: *T, n: i32, T: dtype = f32) {
    offs = arange(0, 64);
    v = load(x + offs, mask=offs < n, other=-7.5);
    store(out + offs, v);
}
)");
  std::vector<float> x(37), out(64, NAN);
  for (unsigned i = 0; i < x.size(); ++i)
    x[i] = float(i) * 0.25f;
  kernel.launch({1, 1, 1}, {Arg::pointer(x), Arg::pointer(out), Arg::i32(37)});
  for (unsigned i = 0; i < 64; ++i)
    EXPECT_EQ(out[i], i < 37 ? x[i] : -7.5f) << i;
  // The same with other=-inf on bf16, as softmax uses it.
  Kernel bf16Kernel = compileText("other.tile", R"(
kernel masked(x: *bf16, out: *f32, n: i32) {
    offs = arange(0, 16);
    store(out + offs, load(x + offs, mask=offs < n, other=-inf).to(f32));
}
)");
  std::vector<uint16_t> xb(3, floatToBF16(1.5f));
  std::vector<float> outb(16, NAN);
  bf16Kernel.launch({1, 1, 1},
                    {Arg::pointer(xb), Arg::pointer(outb), Arg::i32(3)});
  EXPECT_EQ(outb[2], 1.5f);
  EXPECT_EQ(outb[3], -INFINITY);
}

TEST(Interpreter, ControlFlowIntegersAndFP8) {
  Kernel kernel = compileText("misc.tile", R"(
kernel misc(x: *f32, out: *f32, ints: *i32, f8: *fp8e4m3, n: i32, big: i32) {
    offs = arange(0, 16);
    v = load(x + offs);
    acc = zeros((16,), f32);
    for i in range(n) {
        if i % 2 == 0 {
            acc = acc + v;
        } else {
            acc = acc - 1.0;
        }
    }
    store(out + offs, acc);
    store(out + 16, max(v, 0));
    store(ints, sum(offs, 0));
    store(ints + 1, big * 4);
    store(ints + 2, -7 / 2);
    store(ints + 3, -7 % 2);
    store(ints + 4, cdiv(big, 1000));
    store(f8 + offs, v.to(fp8e4m3));
}
)");
  std::vector<float> x = {1.0f,  448.0f, 464.0f, 470.0f, 0x1p-9f, 0x1p-10f,
                          -3.3f, 0.1f,   1e9f,   -0.0f,  2.0f,    3.0f,
                          4.0f,  5.0f,   6.0f,   NAN};
  std::vector<float> out(17);
  std::vector<int32_t> ints(5);
  std::vector<uint8_t> f8(16);
  int32_t big = 0x40000001;
  kernel.launch({1, 1, 1},
                {Arg::pointer(x), Arg::pointer(out), Arg::pointer(ints),
                 Arg::pointer(f8), Arg::i32(5), Arg::i32(big)});
  EXPECT_EQ(out[0], 1.0f * 3 - 2); // +v three times, -1 twice
  EXPECT_TRUE(std::isnan(out[16])) << "max propagates NaN";
  EXPECT_EQ(ints[0], 120);
  EXPECT_EQ(ints[1], 4) << "i32 multiplication wraps";
  EXPECT_EQ(ints[2], -3) << "division truncates";
  EXPECT_EQ(ints[3], -1) << "remainder takes the dividend's sign";
  EXPECT_EQ(ints[4], 1073742) << "cdiv";
  // E4M3FN: 448 is the largest value; 464 ties to even (448); 470 overflows
  // to NaN (arith.truncf semantics); 2^-9 is the smallest subnormal; 2^-10
  // ties to even (0); 1e9 is NaN; -0 keeps its sign.
  std::vector<uint8_t> want = {0x38, 0x7e, 0x7e, 0x7f, 0x01, 0x00, 0xc5, 0x1d,
                               0x7f, 0x80, 0x40, 0x44, 0x48, 0x4a, 0x4c, 0x7f};
  for (unsigned i = 0; i < 16; ++i)
    EXPECT_EQ(f8[i], want[i]) << "fp8 of " << x[i];
}

TEST(Interpreter, ScalarArgumentsAndGrid) {
  const char *source = R"(
kernel scalars(out: *f32, wide: *i64, a: f16, b: bf16, c: i64, d: i1) {
    store(out, a.to(f32));
    store(out + 1, b.to(f32) * 2.0);
    r = c * 3;
    if d {
        r = r + 1;
    }
    store(wide, r);
}
)";
  std::vector<float> out(2);
  std::vector<int64_t> wide(1);
  launch(SourceFile("scalars.tile", source), CompileOptions(), {1, 1, 1},
         {Arg::pointer(out), Arg::pointer(wide), Arg::f16Bits(floatToF16(0.1f)),
          Arg::bf16Bits(floatToBF16(-3.0f)), Arg::i64(int64_t(1) << 40),
          Arg::i1(true)});
  EXPECT_EQ(out[0], f16ToFloat(floatToF16(0.1f)));
  EXPECT_EQ(out[1], -6.0f);
  EXPECT_EQ(wide[0], (int64_t(3) << 40) + 1);

  Kernel grid = compileText("grid.tile", R"(
kernel grid3(out: *i32) {
    idx = program_id(0) + num_programs(0) * (program_id(1) + num_programs(1) * program_id(2));
    store(out + idx, idx * 10 + program_id(2));
}
)");
  std::vector<int32_t> ids(2 * 3 * 4, -1);
  grid.launch({2, 3, 4}, {Arg::pointer(ids)});
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(ids[i], i * 10 + i / 6) << i;
}

TEST(Interpreter, DivisionByZeroIsAnError) {
  Kernel kernel =
      compileText("div.tile", R"(kernel div(out: *i32, a: i32, b: i32) {
    store(out, a / b);
}
)");
  std::vector<int32_t> out(1);
  kernel.launch({1, 1, 1}, {Arg::pointer(out), Arg::i32(-9), Arg::i32(4)});
  EXPECT_EQ(out[0], -2);
  try {
    kernel.launch({1, 1, 1}, {Arg::pointer(out), Arg::i32(1), Arg::i32(0)});
    FAIL() << "division by zero was not reported";
  } catch (const InterpreterError &e) {
    EXPECT_EQ(std::string(e.what()),
              "div.tile:2:18: kernel 'div', program (0, 0, 0): integer "
              "division by zero in 'arith.divsi'");
  }
}

TEST(Interpreter, ArgumentsAreChecked) {
  Kernel kernel = compileExample("vector_add.tile", {{"BLOCK", "64"}});
  EXPECT_EQ(kernel.getName(), "vector_add");
  ASSERT_EQ(kernel.getParams().size(), 4u);
  EXPECT_EQ(kernel.getParams()[0].elementType, KernelParam::ElementType::F32);
  std::vector<float> v(64);
  try {
    kernel.launch({1, 1, 1},
                  {Arg::pointer(v), Arg::pointer(v), Arg::pointer(v)});
    FAIL();
  } catch (const ArgumentError &e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel 'vector_add' takes 4 arguments, got 3");
  }
  try {
    kernel.launch({1, 1, 1}, {Arg::pointer(v), Arg::pointer(v), Arg::pointer(v),
                              Arg::f32(64)});
    FAIL();
  } catch (const ArgumentError &e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel 'vector_add': argument 3 must be i32, got f32");
  }
  try {
    kernel.launch({1, 1, 1}, {Arg::i32(0), Arg::pointer(v), Arg::pointer(v),
                              Arg::i32(64)});
    FAIL();
  } catch (const ArgumentError &e) {
    EXPECT_EQ(
        std::string(e.what()),
        "kernel 'vector_add': argument 0 must be a pointer to f32, got i32");
  }
  EXPECT_THROW(compileText("bad.tile", "kernel k(x: *f32) { y = ; }"),
               CompileError);
}
} // namespace
