//===- matmul-bench.cpp - tilemla's matmul_desc against cuBLASLt ----------===//
//
// Times kernels/examples/matmul_desc.tile (bf16 A [M, K] and B [K, N] read
// through tensor descriptors, f32 accumulation, bf16 C) for each tiling,
// and cuBLASLt's bf16 x bf16 -> bf16 matmul with f32 compute on the same
// device buffers, in the same run:
//
//   - random bf16 in [-1, 1] (a 64 MiB block tiled over A and B);
//   - each callable: one untimed call (tilemla: the JIT), --warmup calls,
//     then up to --runs calls between CUDA events, the L2 flushed before
//     each (256 MiB fillAsync outside the events); the median is reported;
//   - TFLOP/s = 2 M N K / time; ratio = tilemla's TFLOP/s over cuBLAS's;
//   - tilemla's C is checked against cuBLAS's (and with --check-host
//     against an fp64 host product of sampled rows): per row, the largest
//     difference over the row's largest magnitude; above 2e-2 fails the
//     exit status.
//
// Without a GPU it prints why and exits 0; without libcublasLt it says so
// and times tilemla alone. With TILEMLA_INTERPRET=1 it runs in the CPU
// interpreter (tiny shapes, with --check-host, for testing the tool).
//
//===----------------------------------------------------------------------===//
#include "BenchCommon.h"
#include "CublasLt.h"
#include "HostNumerics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace tilemla;
using namespace tilemla::bench;

namespace {
constexpr double kMaxError = 2e-2;

struct Shape {
  int M = 0, N = 0, K = 0;
  std::string label() const {
    return std::to_string(M) + "x" + std::to_string(N) + "x" +
           std::to_string(K);
  }
  double flops() const { return 2.0 * M * N * double(K); }
};

struct Tiling {
  int m = 128, n = 256, k = 64, stages = 3; ///< the kernel's defaults
  unsigned warps = 8;          ///< what the kernel declares for them
  bool warpSpecialize = false; ///< ":ws": a producer warpgroup for TMA
  bool persistent = false;     ///< ":p": one program per SM, many tiles each
  std::string label() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k) + ":" + std::to_string(stages) + ":" +
           std::to_string(warps) + (warpSpecialize ? ":ws" : "") +
           (persistent ? ":p" : "");
  }
};

struct Options {
  std::vector<Shape> shapes{{4096, 4096, 4096},
                            {8192, 8192, 8192},
                            {128, 8192, 8192},
                            {4096, 4096, 1024}};
  std::vector<Tiling> tilings; ///< empty: tilingsFor's defaults
  int runs = 50, warmup = 5;
  std::optional<size_t> flushMiB;
  size_t workspaceMiB = 32;
  bool checkHost = false, list = false;
  std::string json;
  std::string kernelFile; ///< a matmul_desc variant; empty: the embedded one
  uint64_t seed = 0x3a7d;
};

struct Row {
  Tiling tiling;
  Timing time;
  double cublasError = NAN, hostError = NAN; ///< NaN: not checked
  std::string error;
  bool ok() const {
    return error.empty() && !(cublasError > kMaxError) &&
           !(hostError > kMaxError) && !std::isnan(time.us.median);
  }
};

struct ShapeResult {
  Shape shape;
  std::optional<Timing> cublas;
  std::string cublasError;
  std::vector<Row> rows;
};

[[noreturn]] void usage(int status) {
  std::fprintf(
      status ? stderr : stdout,
      "usage: matmul-bench [--shape=MxNxK,...] [--tiling=BMxBNxBK:S:W,...]\n"
      "                    [--runs=N] [--warmup=N] [--flush-mib=N]\n"
      "                    [--workspace-mib=N] [--check-host] [--list]\n"
      "                    [--json=FILE] [--seed=N] [--kernel=FILE]\n"
      "\n"
      "  --shape   M x N x K, C[M, N] = A[M, K] @ B[K, N], bf16 row-major\n"
      "            (default 4096x4096x4096,8192x8192x8192,128x8192x8192,\n"
      "            4096x4096x1024)\n"
      "  --tiling  matmul_desc's BLOCK_M x BLOCK_N x BLOCK_K : STAGES : "
      "warps,\n"
      "            then ':ws' for a producer warpgroup issuing the TMA copies\n"
      "            and ':p' for a persistent grid (a program per SM, each\n"
      "            taking tiles that far apart) (default 128x256x64:3:8,\n"
      "            the kernel's defaults, 128x256x64:4:8:ws:p, and\n"
      "            128x128x64:3:8; for M <= 128 also 128x64x64:4:8 and\n"
      "            128x64x128:4:8)\n"
      "  --runs    timed calls (default 50; fewer, at least 10, when one\n"
      "            call is long), --warmup calls before (default 5)\n"
      "  --flush-mib  L2 flush buffer (default 256)\n"
      "  --workspace-mib  cuBLASLt workspace (default 32)\n"
      "  --check-host  also check sampled rows against an fp64 host product\n"
      "  --list    print the shapes and tilings and exit (needs no GPU)\n"
      "  --json    write every result as JSON\n"
      "  --kernel  a variant of kernels/examples/matmul_desc.tile (same\n"
      "            arguments and constexprs) to time instead, e.g. an\n"
      "            epilogue experiment\n"
      "Without a GPU: prints 'no GPU' and exits 0; without libcublasLt:\n"
      "'cuBLAS unavailable: ...', and times tilemla alone.\n");
  std::exit(status);
}

[[noreturn]] void badValue(const std::string &flag, const std::string &text) {
  std::fprintf(stderr, "matmul-bench: %s: bad value '%s'\n", flag.c_str(),
               text.c_str());
  std::exit(2);
}

/// Splits "a,b,c" and parses each item with `parse` (false: bad value).
template <typename T, typename Parse>
std::vector<T> parseList(const std::string &flag, const std::string &text,
                         Parse parse) {
  std::vector<T> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (T value; parse(item, value))
      out.push_back(value);
    else
      badValue(flag, item);
  if (out.empty())
    badValue(flag, text);
  return out;
}

int positiveInt(const std::string &flag, const std::string &text, int low) {
  char *end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || v < low || v > (1L << 30))
    badValue(flag, text);
  return int(v);
}

Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (size_t eq = arg.find('='); eq != std::string::npos)
      value = arg.substr(eq + 1), arg = arg.substr(0, eq);
    else if (arg != "--check-host" && arg != "--list" && arg != "--help" &&
             arg != "-h" && i + 1 < argc)
      value = argv[++i];
    if (arg == "--help" || arg == "-h")
      usage(0);
    else if (arg == "--check-host")
      o.checkHost = true;
    else if (arg == "--list")
      o.list = true;
    else if (arg == "--shape" || arg == "--shapes")
      o.shapes =
          parseList<Shape>(arg, value, [](const std::string &t, Shape &s) {
            char end = 0;
            return std::sscanf(t.c_str(), "%dx%dx%d%c", &s.M, &s.N, &s.K,
                               &end) == 3 &&
                   s.M > 0 && s.N > 0 && s.K > 0;
          });
    else if (arg == "--tiling" || arg == "--tilings")
      o.tilings =
          parseList<Tiling>(arg, value, [](const std::string &t, Tiling &x) {
            std::string body = t;
            auto strip = [&](const std::string &suffix) {
              bool found = body.size() > suffix.size() &&
                           body.compare(body.size() - suffix.size(),
                                        suffix.size(), suffix) == 0;
              if (found)
                body.resize(body.size() - suffix.size());
              return found;
            };
            x.persistent = strip(":p");
            x.warpSpecialize = strip(":ws");
            char end = 0;
            return std::sscanf(body.c_str(), "%dx%dx%d:%d:%u%c", &x.m, &x.n,
                               &x.k, &x.stages, &x.warps, &end) == 5 &&
                   x.m > 0 && x.n > 0 && x.k > 0 && x.stages > 0 && x.warps > 0;
          });
    else if (arg == "--runs")
      o.runs = positiveInt(arg, value, 1);
    else if (arg == "--warmup")
      o.warmup = positiveInt(arg, value, 0);
    else if (arg == "--flush-mib")
      o.flushMiB = size_t(positiveInt(arg, value, 0));
    else if (arg == "--workspace-mib")
      o.workspaceMiB = size_t(positiveInt(arg, value, 0));
    else if (arg == "--json")
      o.json = value;
    else if (arg == "--seed")
      o.seed = uint64_t(positiveInt(arg, value, 0));
    else if (arg == "--kernel")
      o.kernelFile = value;
    else {
      std::fprintf(stderr, "matmul-bench: unknown argument '%s'\n", argv[i]);
      usage(2);
    }
  }
  return o;
}

std::vector<Tiling> tilingsFor(const Shape &s, const Options &o) {
  if (!o.tilings.empty())
    return o.tilings;
  std::vector<Tiling> out{Tiling{}, Tiling{128, 256, 64, 4, 8, true, true},
                          Tiling{128, 128, 64, 3, 8}};
  // Skinny: more programs along N, and deeper k steps (H200, 128 x 8192 x
  // 8192: 128x64x64:4 0.75x cuBLAS, 128x64x128:4 0.92x, 128x64x64:8 0.87x).
  if (s.M <= 128) {
    out.push_back(Tiling{128, 64, 64, 4, 8});
    out.push_back(Tiling{128, 64, 128, 4, 8});
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

std::vector<uint16_t> download(const DeviceBuffer &buffer) {
  std::vector<uint16_t> host(buffer.size() / 2);
  buffer.download(host.data(), buffer.size());
  return host;
}

/// Per row: max |got - want| over the row's max |want|; the worst row.
/// Infinite when anything is NaN.
template <typename Want>
double rowRelativeError(const std::vector<uint16_t> &got, int N,
                        const std::vector<int> &rows, Want want) {
  double worst = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    double diff = 0, scale = 1e-30;
    for (int j = 0; j < N; ++j) {
      double g = test::fromBF16(got[size_t(rows[r]) * N + j]);
      double w = want(r, j);
      if (std::isnan(g) || std::isnan(w))
        return INFINITY;
      diff = std::max(diff, std::fabs(g - w));
      scale = std::max(scale, std::fabs(w));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

/// An fp64 product of A and B at some rows of C: all of them on small
/// shapes, else 16 spread over M.
struct HostReference {
  std::vector<int> rows;
  std::vector<double> values; ///< rows.size() x N

  HostReference(const Shape &s, const DeviceBuffer &a, const DeviceBuffer &b) {
    int count = double(s.M) * s.N * s.K <= 1e9 ? s.M : std::min(s.M, 16);
    for (int i = 0; i < count; ++i)
      rows.push_back(int(int64_t(i) * s.M / count));
    std::vector<uint16_t> ha = download(a), hb = download(b);
    std::vector<double> bRow(s.N);
    values.assign(rows.size() * size_t(s.N), 0);
    for (int k = 0; k < s.K; ++k) {
      for (int j = 0; j < s.N; ++j)
        bRow[j] = test::fromBF16(hb[size_t(k) * s.N + j]);
      for (size_t r = 0; r < rows.size(); ++r) {
        double x = test::fromBF16(ha[size_t(rows[r]) * s.K + k]);
        double *out = &values[r * s.N];
        for (int j = 0; j < s.N; ++j)
          out[j] += x * bRow[j];
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// Measurements
//===----------------------------------------------------------------------===//

Kernel compileTiling(const Tiling &t, const std::string &kernelFile) {
  Kernel::Constexprs constexprs{
      {"T", "bf16"},
      {"OUT", "bf16"},
      {"BLOCK_M", std::to_string(t.m)},
      {"BLOCK_N", std::to_string(t.n)},
      {"BLOCK_K", std::to_string(t.k)},
      {"STAGES", std::to_string(t.stages)},
      {"WARP_SPECIALIZE", t.warpSpecialize ? "1" : "0"}};
  if (!kernelFile.empty())
    return Kernel::fromFile(kernelFile, constexprs, {t.warps, ""});
  return Kernel::fromEmbedded("examples/matmul_desc", constexprs,
                              {t.warps, ""});
}

ShapeResult runShape(const Shape &s, const Options &o, GpuTimer &timer,
                     RandomSource &random, CublasLtMatmul *cublas,
                     DeviceBuffer *workspace, int sms) {
  ShapeResult res;
  res.shape = s;
  size_t cBytes = size_t(s.M) * s.N * 2;
  DeviceBuffer a(size_t(s.M) * s.K * 2), b(size_t(s.K) * s.N * 2), c(cBytes);
  random.fill(a, a.size());
  random.fill(b, b.size());

  std::optional<DeviceBuffer> cRef;
  std::vector<uint16_t> cublasOut;
  std::vector<int> allRows(s.M);
  for (int i = 0; i < s.M; ++i)
    allRows[i] = i;
  if (cublas) {
    try {
      cRef.emplace(cBytes);
      cublas->plan(s.M, s.N, s.K, workspace->size());
      res.cublas = timer.time(
          [&] {
            cublas->run(a.data(), b.data(), cRef->data(), workspace->data());
          },
          o.warmup);
      cublasOut = download(*cRef);
    } catch (const std::exception &e) {
      res.cublasError = e.what();
    }
  }
  std::optional<HostReference> host;
  if (o.checkHost)
    host.emplace(s, a, b);

  for (const Tiling &t : tilingsFor(s, o)) {
    Row row;
    row.tiling = t;
    try {
      Kernel kernel = compileTiling(t, o.kernelFile);
      unsigned tiles =
          unsigned(((s.M + t.m - 1) / t.m) * ((s.N + t.n - 1) / t.n));
      unsigned grid = t.persistent ? std::min(tiles, unsigned(sms)) : tiles;
      std::vector<KernelArg> args{KernelArg::tensor(a.data(), s.M, s.K, s.K),
                                  KernelArg::tensor(b.data(), s.K, s.N, s.N),
                                  KernelArg::pointer(c.data()),
                                  KernelArg::i32(s.M),
                                  KernelArg::i32(s.N),
                                  KernelArg::i32(s.K),
                                  KernelArg::i32(s.K),
                                  KernelArg::i32(s.N),
                                  KernelArg::i32(1)};
      c.fill(0xff); // bf16 NaN: a tile left unwritten fails the checks
      row.time = timer.time(
          [&] {
            kernel.launch({grid, 1, 1}, args);
          },
          o.warmup);
      std::vector<uint16_t> got = download(c);
      if (!cublasOut.empty())
        row.cublasError =
            rowRelativeError(got, s.N, allRows, [&](size_t r, int j) {
              return double(test::fromBF16(cublasOut[r * s.N + j]));
            });
      if (host)
        row.hostError =
            rowRelativeError(got, s.N, host->rows, [&](size_t r, int j) {
              return host->values[r * s.N + j];
            });
    } catch (const std::exception &e) {
      row.error = e.what();
    }
    res.rows.push_back(row);
  }
  return res;
}

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//

double tflops(const Shape &s, const Stats &us) {
  return us.median > 0 ? s.flops() / us.median / 1e6 : NAN;
}

std::string errorText(double e) {
  if (std::isnan(e))
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e%s", e, e > kMaxError ? "!" : "");
  return buf;
}

void printHeader() {
  std::printf("\n%-16s %-19s %9s %8s %10s %8s %6s %10s %10s\n", "MxNxK",
              "tiling", "us", "TFLOP/s", "cuBLAS us", "TFLOP/s", "ratio",
              "err cuBLAS", "err host");
}

void printRow(const ShapeResult &r, const Row &x) {
  std::string shape = r.shape.label(), tiling = x.tiling.label();
  if (!x.error.empty()) {
    std::printf("%-16s %-19s error: %s\n", shape.c_str(), tiling.c_str(),
                x.error.c_str());
    return;
  }
  double mine = tflops(r.shape, x.time.us);
  if (r.cublas) {
    double theirs = tflops(r.shape, r.cublas->us);
    std::printf("%-16s %-19s %9.1f %8.1f %10.1f %8.1f %6.3f %10s %10s\n",
                shape.c_str(), tiling.c_str(), x.time.us.median, mine,
                r.cublas->us.median, theirs, mine / theirs,
                errorText(x.cublasError).c_str(),
                errorText(x.hostError).c_str());
  } else {
    std::printf("%-16s %-19s %9.1f %8.1f %10s %8s %6s %10s %10s\n",
                shape.c_str(), tiling.c_str(), x.time.us.median, mine, "-", "-",
                "-", "-", errorText(x.hostError).c_str());
  }
  std::fflush(stdout);
}

struct Report {
  DeviceInfo device;
  std::string skipped;           ///< no GPU
  std::string cublasUnavailable; ///< why cuBLAS was not measured
  std::string cublasVersion;
  size_t flushBytes = 0;
  std::vector<ShapeResult> shapes;
};

void writeJson(std::ostream &out, const Options &o, const Report &r) {
  out << "  \"dtype\": \"bf16\", \"accumulate\": \"f32\", \"out\": \"bf16\""
      << ",\n  \"cublaslt_version\": " << jsonString(r.cublasVersion)
      << ", \"cublas_unavailable\": " << jsonString(r.cublasUnavailable)
      << ",\n  \"runs\": " << o.runs << ", \"warmup\": " << o.warmup
      << ", \"flush_bytes\": " << r.flushBytes
      << ", \"max_error\": " << jsonNumber(kMaxError) << ",\n  \"results\": [";
  bool first = true;
  for (const ShapeResult &s : r.shapes) {
    std::string shape = "\"m\": " + std::to_string(s.shape.M) +
                        ", \"n\": " + std::to_string(s.shape.N) +
                        ", \"k\": " + std::to_string(s.shape.K);
    std::string theirs;
    if (s.cublas)
      theirs =
          ", \"cublas_us\": " + jsonNumber(s.cublas->us.median) +
          ", \"cublas_tflops\": " + jsonNumber(tflops(s.shape, s.cublas->us));
    else if (!s.cublasError.empty())
      theirs = ", \"cublas_error\": " + jsonString(s.cublasError);
    for (const Row &x : s.rows) {
      const Tiling &t = x.tiling;
      out << (first ? "\n" : ",\n") << "    {" << shape
          << ", \"block_m\": " << t.m << ", \"block_n\": " << t.n
          << ", \"block_k\": " << t.k << ", \"stages\": " << t.stages
          << ", \"warps\": " << t.warps
          << ", \"warp_specialize\": " << (t.warpSpecialize ? "true" : "false")
          << theirs;
      first = false;
      if (!x.error.empty()) {
        out << ", \"error\": " << jsonString(x.error) << "}";
        continue;
      }
      out << ", \"first_call_ms\": " << jsonNumber(x.time.firstCallMs)
          << ", \"runs\": " << x.time.us.runs
          << ", \"median_us\": " << jsonNumber(x.time.us.median)
          << ", \"min_us\": " << jsonNumber(x.time.us.min)
          << ", \"p90_us\": " << jsonNumber(x.time.us.p90)
          << ", \"tflops\": " << jsonNumber(tflops(s.shape, x.time.us))
          << ", \"err_vs_cublas\": " << jsonNumber(x.cublasError)
          << ", \"err_vs_host\": " << jsonNumber(x.hostError)
          << ", \"ok\": " << (x.ok() ? "true" : "false") << "}";
    }
  }
  out << "\n  ]\n}\n";
}

int run(const Options &o, Report &report) {
  bool interp = isInterpreterMode();
  report.device = deviceInfo();
  std::unique_ptr<CublasLtMatmul> cublas;
  std::optional<DeviceBuffer> workspace;
  if (interp) {
    report.cublasUnavailable = "TILEMLA_INTERPRET is set (host buffers)";
  } else {
    try {
      cublas = std::make_unique<CublasLtMatmul>();
      report.cublasVersion = cublas->version();
      workspace.emplace(std::max<size_t>(o.workspaceMiB * MiB, 256));
    } catch (const std::exception &e) {
      report.cublasUnavailable = e.what();
      cublas.reset();
    }
  }
  report.flushBytes = (o.flushMiB ? *o.flushMiB : interp ? 1 : 256) * MiB;
  std::printf("matmul-bench: %s (%s, %d SMs), bf16 in, f32 accumulate, bf16 "
              "out; up to %d runs, L2 flush %zu MiB\n",
              report.device.name.c_str(), report.device.arch.c_str(),
              report.device.multiprocessors, o.runs, report.flushBytes / MiB);
  if (cublas)
    std::printf("matmul-bench: cuBLASLt %s, workspace %zu MiB\n",
                report.cublasVersion.c_str(), o.workspaceMiB);
  else
    std::printf("matmul-bench: cuBLAS unavailable: %s\n",
                report.cublasUnavailable.c_str());
  if (interp)
    std::printf("matmul-bench: TILEMLA_INTERPRET is set: kernels run in the "
                "CPU interpreter; the times say nothing about a GPU\n");

  GpuTimer timer(o.runs, report.flushBytes);
  RandomSource random(interp ? MiB : 64 * MiB, o.seed);
  int status = 0;
  printHeader();
  for (const Shape &s : o.shapes) {
    ShapeResult res;
    try {
      res = runShape(s, o, timer, random, cublas.get(),
                     workspace ? &*workspace : nullptr,
                     report.device.multiprocessors);
    } catch (const std::exception &e) { // e.g. out of device memory
      res.shape = s;
      res.rows.push_back(Row{Tiling{}, {}, NAN, NAN, e.what()});
    }
    if (!res.cublasError.empty())
      std::printf("%-16s cuBLAS error: %s\n", s.label().c_str(),
                  res.cublasError.c_str());
    for (const Row &x : res.rows) {
      printRow(res, x);
      status |= x.ok() ? 0 : 1;
    }
    report.shapes.push_back(std::move(res));
  }
  return status;
}
} // namespace

int main(int argc, char **argv) {
  Options o = parseOptions(argc, argv);
  if (o.list) {
    for (const Shape &s : o.shapes)
      for (const Tiling &t : tilingsFor(s, o))
        std::printf(
            "%-16s %-19s %.1f GFLOP, %.1f MiB\n", s.label().c_str(),
            t.label().c_str(), s.flops() / 1e9,
            2.0 * (double(s.M) * s.K + double(s.K) * s.N + 2.0 * s.M * s.N) /
                double(MiB));
    return 0;
  }
  Report report;
  return runBenchmark(
      "matmul-bench", o.json, report.skipped, report.device,
      [&] { return run(o, report); },
      [&](std::ostream &out) { writeJson(out, o, report); });
}
