//===- Fp8DotGpuTest.cpp - fp8 x fp8 dots on the tensor cores -------------===//
//
// dot() of two fp8 tiles (e4m3 or e5m2, b [N, K] with trans_b) compiled for
// the device: mma.sync's fp8 forms from sm_89 on, and on sm_90a wgmma's
// (m64nNk32) for 64-row tiles. Three ways in: both operands streamed
// through shared memory by a pipelined loop (cp.async), a converted from
// f32 in registers (staged by the lowering), and a resident a (loaded
// before the loop) against streamed rows, as attention scores read a
// cache. Partial tiles along M, N and K. The reference sums the decoded
// codes' products in fp64; each product is exact in f32, so the error is
// the accumulation's, bounded here by 2^-9 of the sum of the products'
// magnitudes (the tensor cores add fp8 products with fewer mantissa bits
// than f32's; a misplaced fragment is off by about 1 / sqrt(K) of it).
// Measured on an H100: wgmma's fp8 forms 5.4e-4 to 8.0e-4 of it; mma.sync's
// (emulated there in f16) and the widened dots 1e-7 to 1e-6. OnTma: codes read
// through descriptors, widened to bf16 for the dots or multiplied as they are
// (fp8 wgmma); on sm_90a TMA lands them in 8-bit swizzled panels (128 or 64
// bytes; one descriptor read in two widths takes 64), where the dots read them
// or each tile is converted for them. With TILEMLA_INTERPRET=1 the kernels run
// in the interpreter.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Interpreter/Numerics.h"
#include "tilemla/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace tilemla;

namespace {
const char *kMatmulSource = R"(
# c[M, N] = a[M, K] . b[N, K]^T; a holds A_T (F, or f32 converted to F in
# registers before the dot).
kernel fp8_matmul(a: *A_T, b: *F, c: *f32, M: i32, N: i32, K: i32,
                  F: dtype, A_T: dtype, BLOCK_M: constexpr = 32,
                  BLOCK_N: constexpr = 32, BLOCK_K: constexpr = 64) {
    pid = program_id(0);
    grid_n = cdiv(N, BLOCK_N);
    rm = (pid / grid_n) * BLOCK_M + arange(0, BLOCK_M);
    rn = (pid % grid_n) * BLOCK_N + arange(0, BLOCK_N);
    rk = arange(0, BLOCK_K);
    acc = zeros((BLOCK_M, BLOCK_N), f32);
    for k0 in range(0, K, BLOCK_K, stages=2) {
        kk = k0 + rk;
        at = load(a + rm[:, None] * K + kk[None, :],
                  mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0);
        bt = load(b + rn[:, None] * K + kk[None, :],
                  mask=(rn[:, None] < N) & (kk[None, :] < K), other=0.0);
        acc = dot(at.to(F), bt, acc, trans_b=True);
    }
    store(c + rm[:, None] * N + rn[None, :], acc,
          mask=(rm[:, None] < M) & (rn[None, :] < N));
}
)";

const char *kScoresSource = R"(
# s[ROWS, BLOCK_N]: the sum over blocks j of q[ROWS, DIM] . kv[j], kv[j]
# the block's rows [BLOCK_N, DIM] (transposed); q resident in shared memory,
# the rows streamed.
kernel fp8_scores(q: *F, kv: *F, s: *f32, N: i32, F: dtype,
                  ROWS: constexpr = 16, DIM: constexpr = 512,
                  BLOCK_N: constexpr = 32) {
    rows = arange(0, ROWS);
    dims = arange(0, DIM);
    toks = arange(0, BLOCK_N);
    qt = load(q + rows[:, None] * DIM + dims[None, :]);
    acc = zeros((ROWS, BLOCK_N), f32);
    for n0 in range(0, N, BLOCK_N, stages=2) {
        t = n0 + toks;
        k = load(kv + t[:, None] * DIM + dims[None, :],
                 mask=t[:, None] < N, other=0.0);
        acc = dot(qt, k, acc, trans_b=True);
    }
    store(s + rows[:, None] * BLOCK_N + toks[None, :], acc);
}
)";

const char *kOnTmaSource = R"(
# c[M, N] = a[M, K] . b[N, K]^T over codes widened to W (W = F: the codes
# as they are), read through descriptors: K steps of BLOCK_K, or with
# TWO_WIDTHS of 192 as a 128- and a 64-code piece of each operand.
kernel fp8_on_tma(a: desc<F>, b: desc<F>, c: *f32, M: i32, N: i32, K: i32,
                  F: dtype, W: dtype = bf16, BLOCK_K: constexpr = 64,
                  TWO_WIDTHS: constexpr = 0) with num_warps = 4 {
    pid = program_id(0);
    grid_n = cdiv(N, 128);
    m0 = (pid / grid_n) * 64;
    n0 = (pid % grid_n) * 128;
    acc = zeros((64, 128), f32);
    if TWO_WIDTHS {
        for k0 in range(0, K, 192, stages=2) {
            x = desc_load(a, (m0, k0), (64, 128)).to(W);
            y = desc_load(b, (n0, k0), (128, 128)).to(W);
            acc = dot(x, y, acc, trans_b=True);
            x2 = desc_load(a, (m0, k0 + 128), (64, 64)).to(W);
            y2 = desc_load(b, (n0, k0 + 128), (128, 64)).to(W);
            acc = dot(x2, y2, acc, trans_b=True);
        }
    } else {
        for k0 in range(0, K, BLOCK_K, stages=2) {
            x = desc_load(a, (m0, k0), (64, BLOCK_K)).to(W);
            y = desc_load(b, (n0, k0), (128, BLOCK_K)).to(W);
            acc = dot(x, y, acc, trans_b=True);
        }
    }
    rm = m0 + arange(0, 64);
    rn = n0 + arange(0, 128);
    store(c + rm[:, None] * N + rn[None, :], acc,
          mask=(rm[:, None] < M) & (rn[None, :] < N));
}
)";

struct Format {
  const char *name;
  float (*decode)(uint8_t);
};
const Format kFormats[] = {{"fp8e4m3", interp::fp8e4m3ToFloat},
                           {"fp8e5m2", interp::fp8e5m2ToFloat}};

template <typename T> DeviceBuffer upload(const std::vector<T> &host) {
  DeviceBuffer buffer(host.size() * sizeof(T));
  buffer.upload(host.data(), buffer.size());
  return buffer;
}

std::vector<float> download(const DeviceBuffer &buffer) {
  synchronize();
  std::vector<float> host(buffer.size() / sizeof(float));
  buffer.download(host.data(), buffer.size());
  return host;
}

/// Random finite codes of `format`.
std::vector<uint8_t> randomCodes(const Format &format, size_t count,
                                 std::mt19937_64 &rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> codes;
  while (codes.size() < count) {
    auto code = uint8_t(byte(rng));
    if (std::isfinite(format.decode(code)))
      codes.push_back(code);
  }
  return codes;
}

/// Checks c[M, N] against the fp64 sums of a[M, K] . b[N, K]^T (decoded
/// codes), b's rows j, j + n, j + 2n, ... (below `rows`) summed into column
/// j; returns the worst error over the sum of |products|.
double expectProducts(const Format &format, const std::vector<uint8_t> &a,
                      const std::vector<uint8_t> &b,
                      const std::vector<float> &c, int m, int n, int k,
                      int rows) {
  double worst = 0;
  size_t wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (int row = j; row < rows; row += n)
        for (int kk = 0; kk < k; ++kk) {
          double product = double(format.decode(a[size_t(i) * k + kk])) *
                           format.decode(b[size_t(row) * k + kk]);
          sum += product;
          magnitude += std::fabs(product);
        }
      double error =
          std::fabs(c[size_t(i) * n + j] - sum) / std::max(magnitude, 1e-30);
      worst = std::max(worst, error);
      if (!(error <= 0x1p-9) && wrong++ < 8)
        ADD_FAILURE() << format.name << " c[" << i << ", " << j
                      << "] = " << c[size_t(i) * n + j] << ", want " << sum
                      << " (sum of |products| " << magnitude << ")";
    }
  EXPECT_EQ(wrong, 0u) << format.name << ": " << wrong << " of " << m * n;
  return worst;
}

class Fp8DotGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!isGpuAvailable() && !isInterpreterMode())
      GTEST_SKIP() << "no CUDA GPU on this machine: GPU tests skipped";
  }
  std::mt19937_64 rng{std::random_device{}()};
};

/// Whether `kernel` compiles its dots to `form` (a PTX instruction's
/// start) for sm_90a: the wgmma cases must not pass on another path.
void expectDotForm(const Kernel &kernel, const std::string &form) {
  std::string ptx = kernel.emit("ptx", "sm_90a");
  EXPECT_NE(ptx.find(form), std::string::npos) << "no " << form;
}

TEST_F(Fp8DotGpuTest, MatmulStreamedAndConverted) {
  // Partial tiles along every dimension; 32 x 32 tiles on mma.sync, 64 x 128
  // on wgmma where the device has it (mma.sync elsewhere).
  const int m = 80, n = 200, k = 200;
  for (auto [blockM, blockN] : {std::pair{32, 32}, {64, 128}})
    for (const Format &format : kFormats)
      for (bool converted : {false, true}) {
        std::vector<uint8_t> a = randomCodes(format, size_t(m) * k, rng),
                             b = randomCodes(format, size_t(n) * k, rng);
        std::vector<float> aValues;
        for (uint8_t code : a)
          aValues.push_back(format.decode(code));
        Kernel kernel =
            Kernel::fromSource("fp8_matmul.tile", kMatmulSource,
                               {{"F", format.name},
                                {"A_T", converted ? "f32" : format.name},
                                {"BLOCK_M", std::to_string(blockM)},
                                {"BLOCK_N", std::to_string(blockN)}},
                               {});
        std::string codes = format.name + 3; // e4m3, e5m2
        if (blockM == 64)
          expectDotForm(kernel, "wgmma.mma_async.sync.aligned.m64n128k32.f32." +
                                    codes + "." + codes);
        DeviceBuffer aBuffer = converted ? upload(aValues) : upload(a),
                     bBuffer = upload(b), c(size_t(m) * n * sizeof(float));
        c.fill(0x7f); // poison: 3.4e38
        unsigned grid = unsigned((m + blockM - 1) / blockM) *
                        unsigned((n + blockN - 1) / blockN);
        kernel.launch({grid, 1, 1},
                      {KernelArg::pointer(aBuffer.data()),
                       KernelArg::pointer(bBuffer.data()),
                       KernelArg::pointer(c.data()), KernelArg::i32(m),
                       KernelArg::i32(n), KernelArg::i32(k)});
        double worst = expectProducts(format, a, b, download(c), m, n, k, n);
        std::printf("fp8 matmul %dx%d %s, a %s: worst error %.3g of sum "
                    "|products|\n",
                    blockM, blockN, format.name,
                    converted ? "converted" : "streamed", worst);
      }
}

TEST_F(Fp8DotGpuTest, OnTma) {
  // Partial tiles along M, N and K (K a multiple of 16: TMA's row stride).
  const int m = 80, n = 200, k = 336;
  for (bool widened : {true, false})
    for (const Format &format : kFormats)
      for (auto [blockK, twoWidths] : {std::pair{64, 0}, {128, 0}, {0, 1}}) {
        std::vector<uint8_t> a = randomCodes(format, size_t(m) * k, rng),
                             b = randomCodes(format, size_t(n) * k, rng);
        Kernel::Constexprs constexprs = {
            {"F", format.name},
            {"W", widened ? "bf16" : format.name},
            {"TWO_WIDTHS", std::to_string(twoWidths)}};
        if (blockK)
          constexprs["BLOCK_K"] = std::to_string(blockK);
        Kernel kernel =
            Kernel::fromSource("fp8_on_tma.tile", kOnTmaSource, constexprs, {});
        std::string codes = format.name + 3; // e4m3, e5m2
        expectDotForm(kernel, "cp.async.bulk.tensor");
        expectDotForm(kernel, widened ? "wgmma.mma_async.sync.aligned."
                                        "m64n128k16.f32.bf16.bf16"
                                      : "wgmma.mma_async.sync.aligned."
                                        "m64n128k32.f32." +
                                            codes + "." + codes);
        DeviceBuffer aBuffer = upload(a), bBuffer = upload(b),
                     c(size_t(m) * n * sizeof(float));
        c.fill(0x7f); // poison: 3.4e38
        kernel.launch({unsigned((m + 63) / 64 * ((n + 127) / 128)), 1, 1},
                      {KernelArg::tensor(aBuffer.data(), m, k, k),
                       KernelArg::tensor(bBuffer.data(), n, k, k),
                       KernelArg::pointer(c.data()), KernelArg::i32(m),
                       KernelArg::i32(n), KernelArg::i32(k)});
        double worst = expectProducts(format, a, b, download(c), m, n, k, n);
        std::printf(
            "fp8 on TMA %s, %s, %s: worst error %.3g of sum |products|\n",
            format.name, widened ? "widened to bf16" : "fp8 dots",
            twoWidths ? "128 + 64 codes a step"
                      : (std::to_string(blockK) + " codes a step").c_str(),
            worst);
      }
}

TEST_F(Fp8DotGpuTest, ResidentRowsAgainstStreamedRows) {
  const int rows = 16, dim = 512, n = 1000, block = 32;
  for (const Format &format : kFormats) {
    std::vector<uint8_t> q = randomCodes(format, size_t(rows) * dim, rng),
                         kv = randomCodes(format, size_t(n) * dim, rng);
    Kernel kernel = Kernel::fromSource("fp8_scores.tile", kScoresSource,
                                       {{"F", format.name}}, {2});
    DeviceBuffer qBuffer = upload(q), kvBuffer = upload(kv),
                 s(size_t(rows) * block * sizeof(float));
    s.fill(0x7f);
    kernel.launch({1, 1, 1}, {KernelArg::pointer(qBuffer.data()),
                              KernelArg::pointer(kvBuffer.data()),
                              KernelArg::pointer(s.data()), KernelArg::i32(n)});
    double worst =
        expectProducts(format, q, kv, download(s), rows, block, dim, n);
    std::printf("fp8 scores %s: worst error %.3g of sum |products|\n",
                format.name, worst);
  }
}
} // namespace
