//===- mla-bench.cpp - MLA decode benchmark over a shape grid -------------===//
//
// Times TritonMLAImpl::forward_decode over a grid of decode shapes (heads H,
// batch B, tokens per request L, page size; uniform or ragged lengths) for
// each split policy, on random bf16 data (R = 512, rope 64):
//
//   - each call is timed with CUDA events after a JIT call and a warm-up;
//     the L2 is flushed before every timed call (a 256 MiB cuMemsetD8Async
//     on the same stream, outside the events); median, min and p90 of
//     --runs calls (fewer when one call is long: about 0.5 s a case, at
//     least 10);
//   - GB/s counts the latent cache read once, (R + P) * 2 bytes a token,
//     plus q and o; TFLOP/s counts 2 * H * tokens * (576 + 512); "%copy" is
//     GB/s over a device-to-device copy ceiling measured at the start of the
//     same run (cuMemcpyDtoDAsync of 1 GiB, read + write bytes, median);
//   - "host us" is the CPU time of one forward_decode call (no
//     synchronization inside; rounds of 20 calls on a warm specialization).
//
// The KV cache is filled by tiling a 64 MiB block of random bf16 (made once
// on the host) with device-to-device copies; the block table is a random
// permutation of the pages. Ragged batches draw each length uniformly from
// [1, 2L] with splitmix64 seeded by (B, L) -- the Triton harness draws the
// same lengths. Shapes that do not fit in free device memory are skipped.
//
// Without a GPU it prints why and exits 0. With TILEMLA_INTERPRET=1 it runs
// in the CPU interpreter (for testing the tool on tiny shapes only).
//
//===----------------------------------------------------------------------===//
#include "MlaViews.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace tilemla;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int R = 512, P = 64, D = R + P;
constexpr double kScale = 0.1352337788; // DeepSeek-V3, as mla-decode
constexpr size_t MiB = size_t(1) << 20;

//===----------------------------------------------------------------------===//
// Options and the shape grid
//===----------------------------------------------------------------------===//

struct Options {
  std::vector<int> b{1, 8, 32, 128}, l{4096, 8192, 32768}, h{16, 128}, page{64};
  std::vector<mla::SplitPolicy> policies{mla::SplitPolicy::Auto,
                                         mla::SplitPolicy::Fixed4,
                                         mla::SplitPolicy::BatchInvariant};
  bool uniform = true, ragged = true;
  int runs = 50, warmup = 5, hostCalls = 1000;
  std::optional<size_t> flushMiB, copyMiB;
  std::string json;
  bool check = false, list = false;
  uint64_t seed = 0x7e11a;
  int tokenBlock = 0, stage1Warps = 0, headBlock = 0; ///< 0: defaults
};

const char *policyName(mla::SplitPolicy p) {
  return p == mla::SplitPolicy::Fixed4           ? "fixed4"
         : p == mla::SplitPolicy::BatchInvariant ? "batch-invariant"
                                                 : "auto";
}

struct Shape {
  int H = 16, B = 1, L = 1024, page = 64;
  bool ragged = false;
  std::vector<int32_t> lens;
  int64_t tokens = 0; ///< sum of lens
  int maxLen = 0;
};

/// splitmix64: the ragged lengths' generator (the Triton harness has the same).
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Lengths uniform in [1, 2L], a function of (B, L) only.
std::vector<int32_t> raggedLens(int B, int L) {
  uint64_t state = 0x5EED0000ull + uint64_t(B) * 1000003ull + uint64_t(L);
  std::vector<int32_t> lens(B);
  for (int32_t &len : lens)
    len = int32_t(1 + splitmix64(state) % (2 * uint64_t(L)));
  return lens;
}

Shape makeShape(int H, int B, int L, int page, bool ragged) {
  Shape s;
  s.H = H, s.B = B, s.L = L, s.page = page, s.ragged = ragged;
  s.lens = ragged ? raggedLens(B, L) : std::vector<int32_t>(B, L);
  for (int32_t len : s.lens) {
    s.tokens += len;
    s.maxLen = std::max(s.maxLen, int(len));
  }
  return s;
}

/// Every (H, B, L, page) uniform, and ragged for B > 1; ordered by H, page,
/// B, L.
std::vector<Shape> makeGrid(const Options &o) {
  std::vector<Shape> grid;
  for (int H : o.h)
    for (int page : o.page)
      for (int B : o.b)
        for (int L : o.l) {
          if (o.uniform)
            grid.push_back(makeShape(H, B, L, page, false));
          if (o.ragged && B > 1)
            grid.push_back(makeShape(H, B, L, page, true));
        }
  return grid;
}

[[noreturn]] void usage(int status) {
  std::fprintf(
      status ? stderr : stdout,
      "usage: mla-bench [--quick | --full] [--b=LIST] [--l=LIST] [--h=LIST]\n"
      "                 [--page=LIST] [--policy=auto,fixed4,batch-invariant]\n"
      "                 [--ragged | --no-ragged | --ragged-only]\n"
      "                 [--runs=N] [--warmup=N] [--host-calls=N]\n"
      "                 [--flush-mib=N] [--copy-mib=N] [--check] [--list]\n"
      "                 [--json=FILE] [--block-n=N] [--block-h=N] [--warps=N]\n"
      "\n"
      "  --quick   (default) B=1,8,32,128 L=4096,8192,32768 H=16,128 page=64,\n"
      "            uniform and ragged\n"
      "  --full    B=1,8,32,128 L=1024,4096,8192,32768 H=16,32,64,128\n"
      "            page=64,16, uniform and ragged\n"
      "  --b/--l/--h/--page replace that axis of the chosen grid; ragged\n"
      "  batches (B > 1) draw each length from [1, 2L]\n"
      "  --policy  split policies to compare (default all three; 'all')\n"
      "  --runs    timed calls per case (default 50; fewer, at least 10,\n"
      "            when a call is long), --warmup calls before (default 5)\n"
      "  --host-calls  calls timed on the host for 'host us' (default 1000)\n"
      "  --flush-mib   L2 flush buffer (default 256), --copy-mib copy-ceiling\n"
      "                buffer (default 1024)\n"
      "  --check   first compare each (H, page, policy) with an fp64 CPU\n"
      "            reference on a small ragged batch\n"
      "  --list    print the grid and exit (needs no GPU)\n"
      "  --json    write every result as JSON\n"
      "  --block-n, --block-h, --warps  stage-1 tokens per step, heads per\n"
      "            program and warps (tuning)\n"
      "Without a GPU: prints 'no GPU' and exits 0.\n");
  std::exit(status);
}

std::vector<int> parseInts(const std::string &flag, const std::string &text) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char *end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v <= 0 || v > (1L << 30)) {
      std::fprintf(stderr, "mla-bench: %s: '%s' is not a positive integer\n",
                   flag.c_str(), item.c_str());
      std::exit(2);
    }
    values.push_back(int(v));
  }
  if (values.empty()) {
    std::fprintf(stderr, "mla-bench: %s needs a value\n", flag.c_str());
    std::exit(2);
  }
  return values;
}

std::vector<mla::SplitPolicy> parsePolicies(const std::string &text) {
  std::vector<mla::SplitPolicy> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == "all") {
      out = Options().policies;
    } else if (item == "auto") {
      out.push_back(mla::SplitPolicy::Auto);
    } else if (item == "fixed4" || item == "fixed" || item == "4") {
      out.push_back(mla::SplitPolicy::Fixed4);
    } else if (item == "batch-invariant" || item == "invariant" ||
               item == "bi" || item == "1") {
      out.push_back(mla::SplitPolicy::BatchInvariant);
    } else {
      std::fprintf(stderr,
                   "mla-bench: unknown policy '%s' (auto, fixed4, "
                   "batch-invariant, all)\n",
                   item.c_str());
      std::exit(2);
    }
  }
  if (out.empty())
    usage(2);
  return out;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  // Axes given on the command line apply after --quick/--full, whatever the
  // order.
  std::vector<std::pair<std::string, std::string>> axes;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool hasValue = false;
    if (size_t eq = arg.find('=');
        arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      hasValue = true;
    }
    auto take = [&]() -> std::string {
      if (hasValue)
        return value;
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mla-bench: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto takeInt = [&](int low) {
      std::vector<int> v = parseInts(arg, take());
      if (v.size() != 1 || v[0] < low) {
        std::fprintf(stderr, "mla-bench: %s needs one integer >= %d\n",
                     arg.c_str(), low);
        std::exit(2);
      }
      return v[0];
    };
    if (arg == "--help" || arg == "-h") {
      usage(0);
    } else if (arg == "--quick") {
      Options fresh;
      o.b = fresh.b, o.l = fresh.l, o.h = fresh.h, o.page = fresh.page;
    } else if (arg == "--full") {
      o.b = {1, 8, 32, 128}, o.l = {1024, 4096, 8192, 32768};
      o.h = {16, 32, 64, 128}, o.page = {64, 16};
    } else if (arg == "--b" || arg == "--l" || arg == "--h" ||
               arg == "--page") {
      axes.emplace_back(arg, take());
    } else if (arg == "--policy" || arg == "--policies") {
      o.policies = parsePolicies(take());
    } else if (arg == "--ragged") {
      o.ragged = true;
    } else if (arg == "--no-ragged") {
      o.ragged = false;
    } else if (arg == "--ragged-only") {
      o.ragged = true, o.uniform = false;
    } else if (arg == "--block-n") {
      o.tokenBlock = takeInt(16);
    } else if (arg == "--block-h") {
      o.headBlock = takeInt(16);
    } else if (arg == "--warps") {
      o.stage1Warps = takeInt(1);
    } else if (arg == "--runs") {
      o.runs = takeInt(1);
    } else if (arg == "--warmup") {
      o.warmup = takeInt(0);
    } else if (arg == "--host-calls") {
      o.hostCalls = takeInt(0);
    } else if (arg == "--flush-mib") {
      o.flushMiB = size_t(takeInt(0));
    } else if (arg == "--copy-mib") {
      o.copyMiB = size_t(takeInt(1));
    } else if (arg == "--json") {
      o.json = take();
    } else if (arg == "--check") {
      o.check = true;
    } else if (arg == "--list") {
      o.list = true;
    } else {
      std::fprintf(stderr, "mla-bench: unknown argument '%s'\n", argv[i]);
      usage(2);
    }
  }
  for (auto &[flag, text] : axes) {
    std::vector<int> v = parseInts(flag, text);
    (flag == "--b"   ? o.b
     : flag == "--l" ? o.l
     : flag == "--h" ? o.h
                     : o.page) = v;
  }
  return o;
}

//===----------------------------------------------------------------------===//
// Measurements
//===----------------------------------------------------------------------===//

struct Stats {
  double median = 0, min = 0, p90 = 0; ///< microseconds
  int runs = 0;
};

Stats summarize(std::vector<double> us) {
  Stats s;
  if (us.empty())
    return s;
  std::sort(us.begin(), us.end());
  size_t n = us.size();
  s.runs = int(n);
  s.min = us.front();
  s.median = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
  s.p90 = us[std::min(n - 1, size_t(std::ceil(0.9 * double(n))) - 1)];
  return s;
}

/// Random bf16 uniform in [-1, 1] on the device, tiled over any buffer.
class RandomSource {
public:
  RandomSource(size_t bytes, uint64_t seed) : buffer(bytes) {
    std::vector<uint16_t> host(bytes / 2);
    uint64_t state = seed;
    for (size_t i = 0; i < host.size(); i += 2) {
      uint64_t r = splitmix64(state);
      for (size_t k = 0; k < 2 && i + k < host.size(); ++k) {
        double u = double((r >> (32 * k)) & 0xffffffffu) / 4294967296.0;
        host[i + k] = test::toBF16(float(2 * u - 1));
      }
    }
    buffer.upload(host.data(), host.size() * 2);
  }
  /// Fills `count` bytes of `target` (a multiple of 2) with random bf16,
  /// starting at a different place in the source for each call.
  void fill(DeviceBuffer &target, size_t count) {
    size_t done = 0;
    while (done < count) {
      size_t from = (next += 4096 + 2 * 7919) % (buffer.size() / 2);
      size_t chunk = std::min(count - done, buffer.size() - from);
      target.copyFromAsync(buffer, chunk, nullptr, done, from);
      done += chunk;
    }
  }

private:
  DeviceBuffer buffer;
  size_t next = 0;
};

struct CopyCeiling {
  size_t bytes = 0; ///< read + write
  Stats us;
  double gbs = 0;
};

CopyCeiling measureCopy(size_t bufferBytes, int runs,
                        std::vector<GpuEvent> &events) {
  DeviceBuffer a(bufferBytes), b(bufferBytes);
  a.fill(1);
  b.fill(2);
  for (int i = 0; i < 3; ++i)
    b.copyFromAsync(a, bufferBytes);
  std::vector<double> us;
  for (int r = 0; r < runs; ++r) {
    events[0].record();
    b.copyFromAsync(a, bufferBytes);
    events[1].record();
    events[1].synchronize();
    us.push_back(1e3 * GpuEvent::elapsedMs(events[0], events[1]));
  }
  CopyCeiling c;
  c.bytes = 2 * bufferBytes;
  c.us = summarize(us);
  c.gbs = double(c.bytes) / c.us.median / 1e3;
  return c;
}

/// One shape's data on the device.
struct Problem {
  Shape shape;
  DeviceBuffer kv, q, o, lse, blockTable, seqLens;
  int64_t numPages = 0, maxPages = 0;
  mla::TensorView qView, kvView, oView, lseView;
  mla::DecodeMetadata metadata;

  Problem(const Shape &s, RandomSource &random, std::mt19937_64 &rng)
      : shape(s), kv(kvBytes(s)), q(size_t(s.B) * s.H * D * 2),
        o(size_t(s.B) * s.H * R * 2), lse(size_t(s.B) * s.H * 4),
        blockTable(
            std::max<size_t>(4, size_t(s.B) * pagesFor(s.maxLen, s) * 4)),
        seqLens(size_t(s.B) * 4) {
    for (int32_t len : s.lens)
      numPages += pagesFor(len, s);
    maxPages = std::max<int64_t>(1, pagesFor(s.maxLen, s));
    random.fill(kv, kv.size());
    random.fill(q, q.size());
    o.fillAsync(0xff);
    lse.fillAsync(0xff);
    // A random permutation of the pages, handed out in request order.
    std::vector<int32_t> order(static_cast<size_t>(numPages));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int32_t> table(size_t(s.B) * maxPages, 0);
    size_t next = 0;
    for (int b = 0; b < s.B; ++b)
      for (int64_t i = 0; i < pagesFor(s.lens[b], s); ++i)
        table[size_t(b) * maxPages + i] = order[next++];
    blockTable.upload(table.data(), table.size() * 4);
    seqLens.upload(s.lens.data(), s.lens.size() * 4);
    synchronize();

    qView = mla::contiguousView(q.data(), mla::DType::BF16, {s.B, s.H, D});
    kvView = mla::contiguousView(kv.data(), mla::DType::BF16,
                                 {std::max<int64_t>(1, numPages), s.page, D});
    oView = mla::contiguousView(o.data(), mla::DType::BF16, {s.B, s.H, R});
    lseView = mla::contiguousView(lse.data(), mla::DType::F32, {s.B, s.H});
    metadata.block_table = mla::contiguousView(
        blockTable.data(), mla::DType::I32, {s.B, maxPages});
    metadata.seq_lens =
        mla::contiguousView(seqLens.data(), mla::DType::I32, {s.B});
    metadata.max_seq_len = s.maxLen;
  }

  static int64_t pagesFor(int64_t len, const Shape &s) {
    return (len + s.page - 1) / s.page;
  }
  static size_t kvBytes(const Shape &s) {
    int64_t pages = 0;
    for (int32_t len : s.lens)
      pages += pagesFor(len, s);
    return size_t(std::max<int64_t>(1, pages)) * s.page * D * 2;
  }
};

/// Device bytes a shape needs with the given policies (inputs, outputs,
/// the largest workspace).
size_t bytesNeeded(const Shape &s, const std::vector<mla::SplitPolicy> &ps) {
  size_t ws = 0;
  for (mla::SplitPolicy p : ps) {
    size_t splits = p == mla::SplitPolicy::Auto     ? 64
                    : p == mla::SplitPolicy::Fixed4 ? 4
                                                    : 1;
    ws = std::max(ws, size_t(s.B) * s.H * splits * (R + 1) * 4 +
                          size_t(s.B) * s.H * 4);
  }
  return Problem::kvBytes(s) + size_t(s.B) * s.H * (D + R) * 2 +
         size_t(s.B) * s.H * 4 + size_t(s.B) * (s.maxLen / s.page + 2) * 4 + ws;
}

struct Result {
  Shape shape;
  mla::SplitPolicy policy{};
  int splits = 0;
  double firstCallMs = 0, hostUs = 0, bytes = 0, flops = 0;
  int hostCallsDone = 0;
  Stats us;
  std::string error;
  double gbs() const { return us.median > 0 ? bytes / us.median / 1e3 : 0; }
  double tflops() const { return us.median > 0 ? flops / us.median / 1e6 : 0; }
};

mla::TritonMLAImpl makeImpl(int H, int maxBatch, mla::SplitPolicy policy,
                            const Options &o) {
  mla::TritonMLAOptions options;
  options.tokenBlock = o.tokenBlock;
  options.stage1Warps = o.stage1Warps;
  options.headBlock = o.headBlock;
  options.maxBatch = maxBatch;
  options.splitPolicy = policy;
  return mla::TritonMLAImpl(H, D, kScale, 1, std::nullopt, std::nullopt, "auto",
                            std::nullopt, "decoder", std::nullopt,
                            mla::MLAArgs{R, P, 128, 128}, options);
}

Result runCase(Problem &p, mla::SplitPolicy policy, const Options &o,
               DeviceBuffer &flush, std::vector<GpuEvent> &events) {
  const Shape &s = p.shape;
  Result res;
  res.shape = s;
  res.policy = policy;
  res.bytes = double(s.tokens) * D * 2 + double(s.B) * s.H * (D + R) * 2;
  res.flops = 2.0 * s.H * double(s.tokens) * (D + R);
  mla::TritonMLAImpl impl = makeImpl(s.H, s.B, policy, o);
  res.splits = impl.numSplits(s.B, s.maxLen);
  auto call = [&] {
    impl.forward_decode(p.qView, p.kvView, p.metadata, p.oView, p.lseView);
  };

  auto start = Clock::now();
  call(); // JIT-compiles (or loads from the disk cache) both kernels
  synchronize();
  res.firstCallMs =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();

  // Warm-up, timed to size the number of runs (~0.5 s a case).
  double estimateUs = 0;
  for (int i = 0; i < std::max(1, o.warmup); ++i) {
    events[0].record();
    call();
    events[1].record();
  }
  events[1].synchronize();
  estimateUs = 1e3 * GpuEvent::elapsedMs(events[0], events[1]);
  int runs = o.runs;
  if (estimateUs > 0)
    runs = std::clamp(int(5e5 / estimateUs), std::min(10, o.runs), o.runs);

  for (int r = 0; r < runs; ++r) {
    if (flush.size())
      flush.fillAsync(static_cast<unsigned char>(r));
    events[2 * r].record();
    call();
    events[2 * r + 1].record();
  }
  events[2 * runs - 1].synchronize();
  std::vector<double> us(runs);
  for (int r = 0; r < runs; ++r)
    us[r] = 1e3 * GpuEvent::elapsedMs(events[2 * r], events[2 * r + 1]);
  res.us = summarize(us);

  // Host time: rounds of 20 calls, the stream drained before each round so
  // no call waits for room in the launch queue.
  if (o.hostCalls > 0) {
    int wanted = std::min(o.hostCalls,
                          std::max(20, int(2.5e5 / std::max(1.0, estimateUs))));
    double total = 0;
    int done = 0;
    while (done < wanted) {
      int round = std::min(20, wanted - done);
      synchronizeStream(nullptr);
      auto t0 = Clock::now();
      for (int i = 0; i < round; ++i)
        call();
      total +=
          std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      done += round;
    }
    synchronize();
    res.hostUs = total / done;
    res.hostCallsDone = done;
  }
  return res;
}

//===----------------------------------------------------------------------===//
// Correctness spot check
//===----------------------------------------------------------------------===//

struct CheckResult {
  int H = 0, page = 0;
  mla::SplitPolicy policy{};
  double oErr = 0, lseErr = 0;
  bool ok = false;
  std::string error;
};

std::vector<CheckResult> spotCheck(const Options &o, std::mt19937_64 &rng) {
  std::vector<CheckResult> out;
  for (int H : o.h)
    for (int page : o.page) {
      test::MlaCase c;
      c.H = H, c.R = R, c.P = P, c.page = page, c.type = test::DType::BF16;
      c.scale = kScale;
      c.lens = isInterpreterMode() ? std::vector<int32_t>{1, 37, 100}
                                   : std::vector<int32_t>{1, 517, 1500, 0};
      test::MlaProblem prob = test::makeMlaProblem(c, rng);
      test::MlaReference ref = test::mlaReference(prob);
      DeviceBuffer dq =
          test::uploadBytes(prob.qn.bytes.data(), prob.qn.bytes.size());
      DeviceBuffer dkv =
          test::uploadBytes(prob.kv.bytes.data(), prob.kv.bytes.size());
      DeviceBuffer dbt =
          test::uploadBytes(prob.blockTable.data(), prob.blockTable.size() * 4);
      DeviceBuffer dlens =
          test::uploadBytes(prob.seqLens.data(), prob.seqLens.size() * 4);
      const int B = c.B();
      test::HostTensor ho(test::DType::BF16, size_t(B) * H * R),
          hl(test::DType::F32, size_t(B) * H);
      DeviceBuffer dout(ho.bytes.size()), dlse(hl.bytes.size());
      for (mla::SplitPolicy policy : o.policies) {
        CheckResult cr;
        cr.H = H, cr.page = page, cr.policy = policy;
        try {
          mla::TritonMLAImpl impl = makeImpl(H, B, policy, o);
          dout.fill(0xff);
          dlse.fill(0xff);
          impl.forward_decode(
              test::queryView(prob, dq.data(), mla::DType::BF16),
              test::kvCacheView(prob, dkv.data(), mla::DType::BF16),
              test::decodeMetadata(prob, dbt.data(), dlens.data()),
              mla::contiguousView(dout.data(), mla::DType::BF16, {B, H, R}),
              mla::contiguousView(dlse.data(), mla::DType::F32, {B, H}));
          synchronize();
          dout.download(ho.bytes.data(), ho.bytes.size());
          dlse.download(hl.bytes.data(), hl.bytes.size());
          ho.decode();
          hl.decode();
          test::MlaErrors e = test::mlaErrors(prob, ref, ho.values, hl.values);
          cr.oErr = e.o, cr.lseErr = e.lse;
          cr.ok = e.o <= 1e-2 && e.lse <= 1e-3;
        } catch (const std::exception &e) {
          cr.error = e.what();
        }
        std::printf("check H=%-3d page=%-2d %-15s o rel err %.2e  lse abs err "
                    "%.2e  %s%s\n",
                    H, page, policyName(policy), cr.oErr, cr.lseErr,
                    cr.ok ? "OK" : "MISMATCH",
                    cr.error.empty() ? "" : (" (" + cr.error + ")").c_str());
        out.push_back(cr);
      }
    }
  return out;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\')
      out += '\\', out += ch;
    else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else
      out += ch;
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string shapeJson(const Shape &s) {
  std::string out = "\"h\": " + std::to_string(s.H) +
                    ", \"b\": " + std::to_string(s.B) +
                    ", \"l\": " + std::to_string(s.L) +
                    ", \"page\": " + std::to_string(s.page) +
                    ", \"ragged\": " + (s.ragged ? "true" : "false") +
                    ", \"tokens\": " + std::to_string(s.tokens) +
                    ", \"max_len\": " + std::to_string(s.maxLen);
  return out;
}

std::string shapeLabel(const Shape &s) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%4d %4d %6d %4d %-7s", s.H, s.B, s.L, s.page,
                s.ragged ? "ragged" : "uniform");
  return buf;
}

struct Report {
  DeviceInfo device;
  CopyCeiling copy;
  size_t flushBytes = 0;
  std::vector<Result> results;
  std::vector<std::pair<Shape, std::string>> skipped;
  std::vector<CheckResult> checks;
  std::string skippedAll; ///< no GPU
};

bool writeJson(const std::string &path, const Options &o, const Report &r) {
  std::ofstream out(path);
  if (!out)
    return false;
  out << "{\n  \"tool\": \"mla-bench\",\n";
  if (!r.skippedAll.empty()) {
    out << "  \"skipped\": " << jsonString(r.skippedAll)
        << ",\n  \"results\": []\n}\n";
    return bool(out);
  }
  out << "  \"device\": {\"name\": " << jsonString(r.device.name)
      << ", \"arch\": " << jsonString(r.device.arch)
      << ", \"sms\": " << r.device.multiprocessors
      << ", \"total_bytes\": " << r.device.totalMemory << "},\n";
  out << "  \"interpreter\": " << (isInterpreterMode() ? "true" : "false")
      << ",\n";
  out << "  \"dtype\": \"bf16\", \"kv_lora_rank\": " << R
      << ", \"rope_dim\": " << P << ", \"scale\": " << jsonNumber(kScale)
      << ",\n";
  out << "  \"runs\": " << o.runs << ", \"warmup\": " << o.warmup
      << ", \"flush_bytes\": " << r.flushBytes << ",\n";
  out << "  \"copy_ceiling\": {\"bytes\": " << r.copy.bytes
      << ", \"median_us\": " << jsonNumber(r.copy.us.median)
      << ", \"min_us\": " << jsonNumber(r.copy.us.min)
      << ", \"gbs\": " << jsonNumber(r.copy.gbs) << "},\n";
  out << "  \"results\": [";
  for (size_t i = 0; i < r.results.size(); ++i) {
    const Result &x = r.results[i];
    out << (i ? ",\n" : "\n") << "    {" << shapeJson(x.shape)
        << ", \"policy\": " << jsonString(policyName(x.policy))
        << ", \"splits\": " << x.splits;
    if (!x.error.empty()) {
      out << ", \"error\": " << jsonString(x.error) << "}";
      continue;
    }
    out << ", \"first_call_ms\": " << jsonNumber(x.firstCallMs)
        << ", \"runs\": " << x.us.runs
        << ", \"median_us\": " << jsonNumber(x.us.median)
        << ", \"min_us\": " << jsonNumber(x.us.min)
        << ", \"p90_us\": " << jsonNumber(x.us.p90)
        << ", \"bytes\": " << jsonNumber(x.bytes)
        << ", \"flops\": " << jsonNumber(x.flops)
        << ", \"gbs\": " << jsonNumber(x.gbs())
        << ", \"tflops\": " << jsonNumber(x.tflops())
        << ", \"pct_copy\": " << jsonNumber(100 * x.gbs() / r.copy.gbs)
        << ", \"host_us\": " << jsonNumber(x.hostUs)
        << ", \"host_calls\": " << x.hostCallsDone << "}";
  }
  out << "\n  ],\n  \"skipped_shapes\": [";
  for (size_t i = 0; i < r.skipped.size(); ++i)
    out << (i ? ",\n" : "\n") << "    {" << shapeJson(r.skipped[i].first)
        << ", \"reason\": " << jsonString(r.skipped[i].second) << "}";
  out << "\n  ],\n  \"checks\": [";
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const CheckResult &c = r.checks[i];
    out << (i ? ",\n" : "\n") << "    {\"h\": " << c.H
        << ", \"page\": " << c.page
        << ", \"policy\": " << jsonString(policyName(c.policy))
        << ", \"o_rel_err\": " << jsonNumber(c.oErr)
        << ", \"lse_abs_err\": " << jsonNumber(c.lseErr)
        << ", \"ok\": " << (c.ok ? "true" : "false");
    if (!c.error.empty())
      out << ", \"error\": " << jsonString(c.error);
    out << "}";
  }
  out << "\n  ]\n}\n";
  return bool(out);
}

void printRow(const Result &x, double copyGbs) {
  if (!x.error.empty()) {
    std::printf("%s %-15s  error: %s\n", shapeLabel(x.shape).c_str(),
                policyName(x.policy), x.error.c_str());
    return;
  }
  std::printf("%s %-15s %6d %9.1f %9.1f %9.1f %8.0f %8.1f %6.1f %8.2f\n",
              shapeLabel(x.shape).c_str(), policyName(x.policy), x.splits,
              x.us.median, x.us.min, x.us.p90, x.gbs(), x.tflops(),
              100 * x.gbs() / copyGbs, x.hostUs);
  std::fflush(stdout);
}

//===----------------------------------------------------------------------===//
// Main
//===----------------------------------------------------------------------===//

int run(const Options &o, const std::vector<Shape> &grid, Report &report) {
  bool interp = isInterpreterMode();
  report.device = deviceInfo();
  size_t flushBytes = (o.flushMiB ? *o.flushMiB : interp ? 1 : 256) * MiB;
  size_t copyBytes = (o.copyMiB ? *o.copyMiB : interp ? 16 : 1024) * MiB;
  report.flushBytes = flushBytes;
  std::printf("mla-bench: %s (%s, %d SMs, %.1f GiB), bf16, R=%d rope=%d, "
              "%zu shapes x %zu policies, up to %d runs each, L2 flush %zu "
              "MiB\n",
              report.device.name.c_str(), report.device.arch.c_str(),
              report.device.multiprocessors,
              double(report.device.totalMemory) / double(1 << 30), R, P,
              grid.size(), o.policies.size(), o.runs, flushBytes / MiB);
  if (interp)
    std::printf("mla-bench: TILEMLA_INTERPRET is set: kernels run in the CPU "
                "interpreter; the times say nothing about a GPU\n");

  std::vector<GpuEvent> events(size_t(2 * std::max(o.runs, 2)));
  report.copy = measureCopy(copyBytes, interp ? 3 : 20, events);
  std::printf("copy ceiling: %zu MiB device-to-device, %.1f us median -> "
              "%.0f GB/s (read + write)\n",
              copyBytes / MiB, report.copy.us.median, report.copy.gbs);

  std::mt19937_64 rng(o.seed);
  int status = 0;
  if (o.check) {
    report.checks = spotCheck(o, rng);
    for (const CheckResult &c : report.checks)
      status |= c.ok ? 0 : 1;
  }

  DeviceBuffer flush(flushBytes);
  RandomSource random(interp ? MiB : 64 * MiB, o.seed);
  std::printf("\n%4s %4s %6s %4s %-7s %-15s %6s %9s %9s %9s %8s %8s %6s %8s\n",
              "H", "B", "L", "page", "kind", "policy", "splits", "med us",
              "min us", "p90 us", "GB/s", "TFLOP/s", "%copy", "host us");
  for (const Shape &s : grid) {
    size_t need = bytesNeeded(s, o.policies);
    if (!interp) {
      size_t freeBytes = deviceInfo().freeMemory;
      size_t margin = 512 * MiB;
      if (need + margin > freeBytes) {
        char why[128];
        std::snprintf(why, sizeof why, "needs %.2f GiB, %.2f GiB free",
                      double(need) / double(1 << 30),
                      double(freeBytes) / double(1 << 30));
        std::printf("%s skipped: %s\n", shapeLabel(s).c_str(), why);
        report.skipped.emplace_back(s, why);
        continue;
      }
    }
    std::optional<Problem> problem;
    try {
      problem.emplace(s, random, rng);
    } catch (const std::exception &e) {
      std::printf("%s skipped: %s\n", shapeLabel(s).c_str(), e.what());
      report.skipped.emplace_back(s, e.what());
      continue;
    }
    for (mla::SplitPolicy policy : o.policies) {
      Result res;
      try {
        res = runCase(*problem, policy, o, flush, events);
      } catch (const std::exception &e) {
        res.shape = s, res.policy = policy, res.error = e.what();
        status = 1;
      }
      printRow(res, report.copy.gbs);
      report.results.push_back(std::move(res));
    }
  }
  return status;
}
} // namespace

int main(int argc, char **argv) {
  Options o = parseOptions(argc, argv);
  std::vector<Shape> grid = makeGrid(o);
  if (o.list) {
    for (const Shape &s : grid)
      std::printf("%s tokens=%lld max_len=%d needs %.2f GiB\n",
                  shapeLabel(s).c_str(), (long long)s.tokens, s.maxLen,
                  double(bytesNeeded(s, o.policies)) / double(1 << 30));
    return 0;
  }
  Report report;
  if (!isInterpreterMode() && !isGpuAvailable()) {
    std::string why = "no CUDA driver or GPU";
    try {
      deviceInfo();
    } catch (const std::exception &e) {
      why = e.what();
    }
    report.skippedAll = "no GPU: " + why;
    std::printf("mla-bench: no GPU: skipped (%s)\n", why.c_str());
    if (!o.json.empty() && !writeJson(o.json, o, report)) {
      std::fprintf(stderr, "mla-bench: cannot write %s\n", o.json.c_str());
      return 1;
    }
    return 0;
  }
  int status = 0;
  try {
    status = run(o, grid, report);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "mla-bench: %s\n", e.what());
    status = 1;
  }
  if (!o.json.empty()) {
    if (writeJson(o.json, o, report))
      std::printf("wrote %s\n", o.json.c_str());
    else {
      std::fprintf(stderr, "mla-bench: cannot write %s\n", o.json.c_str());
      status = 1;
    }
  }
  return status;
}
