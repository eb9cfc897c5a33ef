//===- ExamplesGpuTest.cpp - example kernels on the GPU vs fp64 references ===//
//
// Each test JIT-compiles an embedded example kernel through the runtime,
// runs it on fresh random inputs with poisoned outputs, and compares with an
// fp64 CPU reference computed from the same (rounded) inputs. Skipped when no
// GPU is present, unless TILEMLA_INTERPRET=1 runs them in the interpreter.
//
//===----------------------------------------------------------------------===//
#include "../common/HostNumerics.h"
#include "tilemla/Runtime.h"

#include <gtest/gtest.h>

using namespace tilemla;
using namespace tilemla::test;

namespace {
class GpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!isGpuAvailable() && !isInterpreterMode())
      GTEST_SKIP() << "no CUDA GPU on this machine: GPU tests skipped "
                      "(TILEMLA_INTERPRET=1 runs them in the interpreter)";
    seed = freshSeed();
    rng.seed(seed);
    RecordProperty("seed", std::to_string(seed));
  }
  DeviceBuffer upload(const HostTensor &tensor) {
    DeviceBuffer buffer(tensor.bytes.size());
    buffer.upload(tensor.bytes.data(), tensor.bytes.size());
    return buffer;
  }
  /// Output buffers start as NaN so an unwritten element fails the check.
  DeviceBuffer poisoned(size_t bytes) {
    DeviceBuffer buffer(bytes);
    buffer.fill(0xff);
    return buffer;
  }
  void download(const DeviceBuffer &buffer, HostTensor &tensor) {
    synchronize();
    buffer.download(tensor.bytes.data(), tensor.bytes.size());
    tensor.decode();
  }
  uint64_t seed = 0;
  std::mt19937_64 rng;
};

double tolerance(DType type) {
  return type == DType::F32 ? 1e-5 : type == DType::F16 ? 2e-3 : 1e-2;
}

class VectorAddTest : public GpuTest,
                      public ::testing::WithParamInterface<DType> {};

TEST_P(VectorAddTest, MatchesReference) {
  DType type = GetParam();
  Kernel kernel = Kernel::fromEmbedded(
      "examples/vector_add", {{"BLOCK", "1024"}, {"T", dtypeName(type)}});
  for (int n : {1, 1000, 4096, 100003}) {
    HostTensor x(type, n), y(type, n), out(type, n);
    fillUniform(x, rng, -10, 10);
    fillUniform(y, rng, -10, 10);
    DeviceBuffer dx = upload(x), dy = upload(y),
                 dout = poisoned(out.bytes.size());
    kernel.launch({unsigned((n + 1023) / 1024), 1, 1},
                  {KernelArg::pointer(dx.data()), KernelArg::pointer(dy.data()),
                   KernelArg::pointer(dout.data()), KernelArg::i32(n)});
    download(dout, out);
    HostTensor want(type, n);
    for (int i = 0; i < n; ++i)
      want.set(i, float(x.values[i] + y.values[i]));
    EXPECT_LE(maxRelativeError(out.values, want.values), tolerance(type))
        << "n=" << n << " dtype=" << dtypeName(type) << " seed=" << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, VectorAddTest,
                         ::testing::Values(DType::F32, DType::F16,
                                           DType::BF16));

class SoftmaxTest : public GpuTest,
                    public ::testing::WithParamInterface<DType> {};

TEST_P(SoftmaxTest, MatchesReference) {
  DType type = GetParam();
  Kernel kernel = Kernel::fromEmbedded(
      "examples/softmax", {{"BLOCK", "1024"}, {"T", dtypeName(type)}});
  const int rows = 37, stride = 1040; // padded rows
  for (int cols : {1, 100, 777, 1024}) {
    HostTensor x(type, rows * stride), out(type, rows * stride);
    fillUniform(x, rng, -8, 8);
    DeviceBuffer dx = upload(x), dout = poisoned(out.bytes.size());
    kernel.launch({rows, 1, 1}, {KernelArg::pointer(dx.data()),
                                 KernelArg::pointer(dout.data()),
                                 KernelArg::i32(stride), KernelArg::i32(cols)});
    download(dout, out);
    std::vector<double> got, want;
    for (int r = 0; r < rows; ++r) {
      double peak = -INFINITY, total = 0;
      for (int c = 0; c < cols; ++c)
        peak = std::max(peak, x.values[r * stride + c]);
      for (int c = 0; c < cols; ++c)
        total += std::exp(x.values[r * stride + c] - peak);
      for (int c = 0; c < cols; ++c) {
        want.push_back(std::exp(x.values[r * stride + c] - peak) / total);
        got.push_back(out.values[r * stride + c]);
      }
    }
    // Relative error with a floor: f16 stores tiny probabilities as
    // subnormals, whose spacing is absolute.
    double floor = type == DType::F32 ? 1e-6 : 1e-3;
    EXPECT_LE(maxRelativeError(got, want, floor),
              type == DType::F32 ? 1e-4 : tolerance(type))
        << "cols=" << cols << " dtype=" << dtypeName(type) << " seed=" << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, SoftmaxTest,
                         ::testing::Values(DType::F32, DType::F16,
                                           DType::BF16));

class MatmulTest : public GpuTest, public ::testing::WithParamInterface<DType> {
protected:
  void checkMatmul(Kernel &kernel, DType type, int blockM, int blockN,
                   const std::string &what);
};

/// Checks kernel (tiles `blockM` x `blockN`) against an fp64 matmul on
/// shapes with partial tiles. Inputs are exact in every dtype; only the f32
/// accumulation rounds, by at most K * 2^-24 of sum |a * b| (the classic
/// bound), checked at 1e-5.
void MatmulTest::checkMatmul(Kernel &kernel, DType type, int blockM, int blockN,
                             const std::string &what) {
  struct Shape {
    int m, n, k;
  };
  for (Shape s : {Shape{64, 64, 32}, Shape{100, 70, 50}, Shape{256, 192, 128},
                  Shape{1, 1, 1}}) {
    HostTensor a(type, s.m * s.k), b(type, s.k * s.n), c(DType::F32, s.m * s.n);
    fillUniform(a, rng, -1, 1);
    fillUniform(b, rng, -1, 1);
    DeviceBuffer da = upload(a), db = upload(b), dc = poisoned(c.bytes.size());
    unsigned grid =
        ((s.m + blockM - 1) / blockM) * ((s.n + blockN - 1) / blockN);
    kernel.launch({grid, 1, 1},
                  {KernelArg::pointer(da.data()), KernelArg::pointer(db.data()),
                   KernelArg::pointer(dc.data()), KernelArg::i32(s.m),
                   KernelArg::i32(s.n), KernelArg::i32(s.k),
                   KernelArg::i32(s.k), KernelArg::i32(1), KernelArg::i32(s.n),
                   KernelArg::i32(1), KernelArg::i32(s.n), KernelArg::i32(1)});
    download(dc, c);
    double worst = 0;
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double total = 0, magnitude = 0;
        for (int kk = 0; kk < s.k; ++kk) {
          double term = a.values[i * s.k + kk] * b.values[kk * s.n + j];
          total += term;
          magnitude += std::fabs(term);
        }
        double error = std::fabs(c.values[i * s.n + j] - total) /
                       std::max(magnitude, 1e-30);
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
      }
    EXPECT_LE(worst, 1e-5) << s.m << "x" << s.n << "x" << s.k << " " << what
                           << " dtype=" << dtypeName(type) << " seed=" << seed;
  }
}

TEST_P(MatmulTest, MatchesReference) {
  DType type = GetParam();
  Kernel kernel = Kernel::fromEmbedded(
      "examples/matmul", {{"T", dtypeName(type)}, {"OUT", "f32"}});
  checkMatmul(kernel, type, 64, 64, "default tiles");
}

/// A matmul tiling: BLOCK_M x BLOCK_N tiles, BLOCK_K steps, pipeline
/// stages and warps.
struct Tiling {
  int m, n, k, stages;
  unsigned warps;

  std::string describe() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k) + " stages=" + std::to_string(stages) +
           " warps=" + (warps ? std::to_string(warps) : "kernel's");
  }
  /// Embedded kernel `name` (T = `type`) with this tiling; warps 0: the
  /// kernel's declared count.
  Kernel compile(const std::string &name, DType type,
                 Kernel::Constexprs constexprs = {}) const {
    constexprs.insert({{"T", dtypeName(type)},
                       {"BLOCK_M", std::to_string(m)},
                       {"BLOCK_N", std::to_string(n)},
                       {"BLOCK_K", std::to_string(k)},
                       {"STAGES", std::to_string(stages)}});
    return Kernel::fromEmbedded(name, constexprs, {warps, ""});
  }
};

TEST_P(MatmulTest, TileShapesAndWarps) {
  // On sm_90a the 16-bit variants with 64-row tiles run on wgmma: k panels
  // of 32/64/128-byte swizzles, one or two warpgroups along N, operands
  // staged from registers (1 stage) or streamed by cp.async. A 64 x 64 tile
  // over 8 warps is owned by warpgroup 0 (32 columns per warpgroup would
  // be too narrow): streamed, only warpgroup 0 computes and stores it;
  // staged from registers (which every warp holds part of), both
  // warpgroups run the dot and warpgroup 0 stores.
  DType type = GetParam();
  for (Tiling t : {Tiling{64, 128, 16, 2, 8}, Tiling{64, 64, 64, 1, 4},
                   Tiling{64, 128, 64, 3, 8}, Tiling{128, 64, 32, 2, 8},
                   Tiling{32, 32, 32, 2, 4}, Tiling{64, 64, 32, 2, 8},
                   Tiling{64, 64, 64, 1, 8}}) {
    Kernel kernel = t.compile("examples/matmul", type, {{"OUT", "f32"}});
    checkMatmul(kernel, type, t.m, t.n, t.describe());
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, MatmulTest,
                         ::testing::Values(DType::F32, DType::F16,
                                           DType::BF16));

class MatmulDescTest : public GpuTest,
                       public ::testing::WithParamInterface<DType> {
protected:
  struct Shape {
    int m, n, k, kEnd;
  };
  /// Runs `kernel` (matmul_desc with tiling `t`, inputs in `type`, C in
  /// `out`) on `shapes` and checks C against an fp64 reference. A and B
  /// are padded (the padding and B's rows at or past k_end hold NaN: a
  /// kernel that reads either fails); C starts poisoned. The inputs are
  /// exact, so only the f32 accumulation rounds (1e-5 of the sum of
  /// |terms|), and a 16-bit C rounds once more (half an ulp of the value).
  void check(Kernel &kernel, DType type, DType out, const Tiling &t,
             bool persistent, const std::string &what,
             std::initializer_list<Shape> shapes) {
    double rounding = out == DType::F32   ? 0
                      : out == DType::F16 ? std::ldexp(1.0, -11)
                                          : std::ldexp(1.0, -8);
    for (Shape s : shapes) {
      // Row strides in elements, multiples of 16 bytes as TMA needs.
      const int padA = s.k + 8, padB = (s.n + 16 + 7) / 8 * 8;
      HostTensor a(type, s.m * padA), b(type, s.k * padB);
      HostTensor c(out, s.m * s.n);
      fillUniform(a, rng, -1, 1);
      fillUniform(b, rng, -1, 1);
      for (int i = 0; i < s.m; ++i)
        for (int j = s.k; j < padA; ++j)
          a.set(i * padA + j, NAN);
      for (int i = 0; i < s.k; ++i)
        for (int j = 0; j < padB; ++j)
          if (j >= s.n || i >= s.kEnd)
            b.set(i * padB + j, NAN);
      DeviceBuffer da = upload(a), db = upload(b);
      DeviceBuffer dc = poisoned(c.bytes.size());
      unsigned grid = ((s.m + t.m - 1) / t.m) * ((s.n + t.n - 1) / t.n);
      if (persistent)
        grid = std::min(grid, 2u);
      kernel.launch({grid, 1, 1}, {KernelArg::tensor(da.data(), s.m, s.k, padA),
                                   KernelArg::tensor(db.data(), s.k, s.n, padB),
                                   KernelArg::pointer(dc.data()),
                                   KernelArg::i32(s.m), KernelArg::i32(s.n),
                                   KernelArg::i32(s.k), KernelArg::i32(s.kEnd),
                                   KernelArg::i32(s.n), KernelArg::i32(1)});
      download(dc, c);
      double worst = 0;
      int depth = std::min(s.k, s.kEnd);
      for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.n; ++j) {
          double total = 0, magnitude = 0;
          for (int kk = 0; kk < depth; ++kk) {
            double term = a.values[i * padA + kk] * b.values[kk * padB + j];
            total += term;
            magnitude += std::fabs(term);
          }
          double allowed = 1e-5 * magnitude + rounding * std::fabs(total);
          double error = std::fabs(c.values[i * s.n + j] - total) /
                         std::max(allowed, 1e-30);
          worst = std::isnan(error) ? INFINITY : std::max(worst, error);
        }
      EXPECT_LE(worst, 1.0)
          << s.m << "x" << s.n << "x" << s.k << " k_end=" << s.kEnd << " "
          << what << " dtype=" << dtypeName(type) << " out=" << dtypeName(out)
          << " seed=" << seed << " (error / allowed)";
    }
  }
};

/// On sm_90a the wgmma configurations stream both inputs with TMA (box
/// panels of 128/64-byte swizzles, zeroed tail rows); the 32-row tiles
/// (mma.sync) and the unpipelined loop read them through pointers. The
/// first tiling is the kernel's default (128 x 256 x 64, 3 stages, and the
/// 8 warps it declares); two 128-row tilings also run warp-specialized (a
/// producer warpgroup issues the TMA copies: 4 more warps on sm_90a);
/// 128 x 64 x 128 is matmul-bench's skinny tiling (two A panels per k step).
/// Some run on a persistent grid of 2 programs, each taking every other tile:
/// the k loop is entered once per tile, and its stages and barrier phases
/// go on across tiles (with and without a producer, TMA and cp.async).
TEST_P(MatmulDescTest, MatchesReference) {
  DType type = GetParam();
  struct Variant {
    Tiling tiling;
    bool warpSpecialize;
    bool persistent = false;
  };
  for (auto [t, warpSpecialize, persistent] :
       {Variant{{128, 256, 64, 3, 0}, false},
        Variant{{128, 256, 64, 3, 0}, true},
        Variant{{128, 256, 64, 4, 0}, true, true},
        Variant{{128, 128, 64, 3, 8}, false},
        Variant{{128, 128, 64, 3, 8}, false, true},
        Variant{{128, 128, 64, 4, 8}, true},
        Variant{{128, 64, 128, 4, 8}, false},
        Variant{{64, 64, 64, 2, 4}, false}, Variant{{64, 128, 32, 2, 8}, false},
        Variant{{32, 32, 32, 2, 4}, false},
        Variant{{32, 32, 32, 2, 4}, false, true},
        Variant{{64, 64, 64, 1, 4}, false}}) {
    std::string what = t.describe() +
                       (warpSpecialize ? " warp-specialized" : "") +
                       (persistent ? " persistent" : "");
    Kernel kernel =
        t.compile("examples/matmul_desc", type,
                  {{"WARP_SPECIALIZE", warpSpecialize ? "1" : "0"}});
    if (warpSpecialize && !isInterpreterMode() &&
        kernel.info().arch == "sm_90a")
      EXPECT_EQ(kernel.info().producerWarps, 4u) << what;
    check(kernel, type, DType::F32, t, persistent, what,
          {Shape{64, 64, 64, 64}, Shape{300, 200, 264, 200},
           Shape{130, 72, 96, 1000}, Shape{1, 8, 8, 8}});
  }
}

/// C in the input's 16-bit type, as matmul-bench stores it. Where each
/// row's 32-column runs start 16-byte aligned and the mask is constant over
/// 8 columns (N a multiple of 8, the runtime's divisibility facts), the
/// accumulator's quads of lanes swap values and store 16 bytes each; N =
/// 200 and 72 leave partial runs at the tile's edge, N = 100 (rows 8-byte
/// aligned) keeps the plain stores. GROUP_M = 2 over 32-row tiles orders
/// the tiles in groups of two tile rows, the last group of an odd count
/// holding one.
TEST_P(MatmulDescTest, SixteenBitOutputs) {
  DType type = GetParam();
  for (auto [t, warpSpecialize, persistent, group] :
       {std::tuple{Tiling{128, 256, 64, 3, 0}, false, false, 16},
        std::tuple{Tiling{128, 256, 64, 4, 0}, true, true, 16},
        std::tuple{Tiling{128, 64, 128, 4, 8}, false, false, 16},
        std::tuple{Tiling{32, 32, 32, 2, 4}, false, false, 2},
        std::tuple{Tiling{32, 32, 32, 2, 4}, false, true, 2}}) {
    std::string what =
        t.describe() + (warpSpecialize ? " warp-specialized" : "") +
        (persistent ? " persistent" : "") + " GROUP_M=" + std::to_string(group);
    Kernel kernel = t.compile("examples/matmul_desc", type,
                              {{"WARP_SPECIALIZE", warpSpecialize ? "1" : "0"},
                               {"OUT", dtypeName(type)},
                               {"GROUP_M", std::to_string(group)}});
    check(kernel, type, type, t, persistent, what,
          {Shape{64, 64, 64, 64}, Shape{300, 200, 264, 200},
           Shape{130, 72, 96, 1000}, Shape{100, 100, 64, 64},
           Shape{1, 8, 8, 8}});
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, MatmulDescTest,
                         ::testing::Values(DType::F16, DType::BF16));

// cumsum / cummax along either axis of a [ROWS, COLS] tile, for shapes with
// fewer and more elements than threads, against sequential host scans
// (integers exact; f32 sums within the reordering's rounding).
TEST_F(GpuTest, RunningCombinations) {
  const char *source = R"(
kernel scans(xi: *i32, xf: *f32, sum_rows: *i32, sum_cols: *i32,
             max_cols: *f32, sum_f: *f32, ROWS: constexpr, COLS: constexpr) {
    r = arange(0, ROWS);
    c = arange(0, COLS);
    at = r[:, None] * COLS + c[None, :];
    vi = load(xi + at);
    vf = load(xf + at);
    store(sum_rows + at, cumsum(vi, 0));
    store(sum_cols + at, cumsum(vi, 1));
    store(max_cols + at, cummax(vf, 1));
    store(sum_f + at, cumsum(vf, 1));
}
)";
  for (auto [rows, cols, warps] :
       {std::tuple{1, 16, 4}, {2, 64, 2}, {4, 1024, 8}, {32, 8, 4}}) {
    SCOPED_TRACE("ROWS=" + std::to_string(rows) +
                 " COLS=" + std::to_string(cols));
    KernelOptions options;
    options.numWarps = warps;
    Kernel kernel = Kernel::fromSource(
        "scans.tile", source,
        {{"ROWS", std::to_string(rows)}, {"COLS", std::to_string(cols)}},
        options);
    size_t n = size_t(rows) * cols;
    std::vector<int32_t> xi(n);
    HostTensor xf(DType::F32, n);
    std::uniform_int_distribution<int32_t> ints(-1000, 1000);
    std::uniform_real_distribution<float> floats(-1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i) {
      xi[i] = ints(rng);
      xf.set(i, floats(rng));
    }
    DeviceBuffer dxi(n * 4), dxf = upload(xf);
    dxi.upload(xi.data(), n * 4);
    DeviceBuffer sumRows = poisoned(n * 4), sumCols = poisoned(n * 4),
                 maxCols = poisoned(n * 4), sumF = poisoned(n * 4);
    kernel.launch(
        {1, 1, 1},
        {KernelArg::pointer(dxi.data()), KernelArg::pointer(dxf.data()),
         KernelArg::pointer(sumRows.data()), KernelArg::pointer(sumCols.data()),
         KernelArg::pointer(maxCols.data()), KernelArg::pointer(sumF.data())});
    synchronize();
    std::vector<int32_t> gotRows(n), gotCols(n);
    sumRows.download(gotRows.data(), n * 4);
    sumCols.download(gotCols.data(), n * 4);
    HostTensor gotMax(DType::F32, n), gotSum(DType::F32, n);
    download(maxCols, gotMax);
    download(sumF, gotSum);
    for (int i = 0; i < rows; ++i) {
      int32_t acc = 0;
      double max = -INFINITY, sum = 0, magnitude = 0;
      for (int j = 0; j < cols; ++j) {
        size_t at = size_t(i) * cols + j;
        acc += xi[at];
        max = std::max(max, xf.values[at]);
        sum += xf.values[at];
        magnitude += std::abs(xf.values[at]);
        ASSERT_EQ(gotCols[at], acc) << "cumsum(axis 1) at " << i << "," << j;
        ASSERT_EQ(gotMax.values[at], max) << "cummax at " << i << "," << j;
        ASSERT_NEAR(gotSum.values[at], sum, 1e-6 * magnitude + 1e-7)
            << "cumsum(f32) at " << i << "," << j;
      }
    }
    for (int j = 0; j < cols; ++j) {
      int32_t acc = 0;
      for (int i = 0; i < rows; ++i) {
        size_t at = size_t(i) * cols + j;
        acc += xi[at];
        ASSERT_EQ(gotRows[at], acc) << "cumsum(axis 0) at " << i << "," << j;
      }
    }
  }
}

TEST_F(GpuTest, TensorDescriptorsAreChecked) {
  Kernel kernel = Kernel::fromEmbedded("examples/matmul_desc");
  DeviceBuffer buffer(1 << 16);
  auto c = KernelArg::pointer(buffer.data());
  auto launch = [&](KernelArg a) {
    kernel.launch({1, 1, 1},
                  {a, KernelArg::tensor(buffer.data(), 8, 8, 8), c,
                   KernelArg::i32(8), KernelArg::i32(8), KernelArg::i32(8),
                   KernelArg::i32(8), KernelArg::i32(8), KernelArg::i32(1)});
  };
  // A row stride of 12 bf16 (24 bytes) is not a multiple of 16 bytes.
  for (KernelArg bad : {KernelArg::tensor(buffer.data(), 8, 8, 12),
                        KernelArg::tensor(buffer.data(), 8, 16, 8),
                        KernelArg::tensor(buffer.data(), 0, 8, 8), c}) {
    try {
      launch(bad);
      FAIL() << "a bad tensor descriptor was accepted";
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find("argument 0"), std::string::npos)
          << error.what();
    }
  }
}

TEST_F(GpuTest, ArgumentsAreCheckedAgainstTheSignature) {
  Kernel kernel =
      Kernel::fromEmbedded("examples/vector_add", {{"BLOCK", "256"}});
  DeviceBuffer buffer(1024);
  auto ptr = KernelArg::pointer(buffer.data());
  EXPECT_THROW(kernel.launch({1, 1, 1}, {ptr, ptr, ptr}), Error);
  try {
    kernel.launch({1, 1, 1}, {ptr, ptr, KernelArg::i32(3), KernelArg::i32(3)});
    FAIL() << "a scalar passed for a pointer was accepted";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("argument 2 must be"),
              std::string::npos)
        << error.what();
  }
}
} // namespace
