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
//     plus q and o; TFLOP/s counts 2 * H * s_q * tokens * (576 + 512) (with
//     --sq, each query row as a head: the causal tail's few masked scores
//     are counted); "%copy" is
//     GB/s over a device-to-device copy ceiling measured at the start of the
//     same run (cuMemcpyDtoDAsync of 1 GiB, read + write bytes, median);
//   - "host us" is the CPU time of one forward_decode call (no
//     synchronization inside; rounds of 20 calls on a warm specialization,
//     each call timed; the median, the mean in the JSON too).
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
#include "MlaBench.h"
#include "MlaViews.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tilemla;
using namespace tilemla::bench;
using Clock = std::chrono::steady_clock;

namespace {
//===----------------------------------------------------------------------===//
// Measurements
//===----------------------------------------------------------------------===//

CopyCeiling measureCopy(size_t bufferBytes, int runs, GpuTimer &timer) {
  DeviceBuffer a(bufferBytes), b(bufferBytes);
  a.fill(1);
  b.fill(2);
  for (int i = 0; i < 3; ++i)
    b.copyFromAsync(a, bufferBytes);
  std::vector<double> us;
  for (int r = 0; r < runs; ++r) {
    timer.event(0).record();
    b.copyFromAsync(a, bufferBytes);
    timer.event(1).record();
    timer.event(1).synchronize();
    us.push_back(1e3 * GpuEvent::elapsedMs(timer.event(0), timer.event(1)));
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

  Problem(const Shape &s, const Options &opts, RandomSource &random,
          std::mt19937_64 &rng)
      : shape(s), kv(kvBytes(s, opts)), q(size_t(s.B) * s.sq * s.H * D * 2),
        o(size_t(s.B) * s.sq * s.H * R * 2), lse(size_t(s.B) * s.sq * s.H * 4),
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

    // One query token: the rank-3 views; several: [B, s_q, H, ...].
    auto rows = [&](std::vector<int64_t> shape) {
      if (s.sq > 1)
        shape.insert(shape.begin() + 1, s.sq);
      return shape;
    };
    qView =
        mla::contiguousView(q.data(), mla::DType::BF16, rows({s.B, s.H, D}));
    const bool native = opts.kvFormat == mla::KvCacheFormat::Native;
    kvView = mla::contiguousView(
        kv.data(), native ? mla::DType::BF16 : mla::DType::FP8E4M3,
        {std::max<int64_t>(1, numPages), s.page,
         native ? D : kvTokenBytes(opts, R, P)});
    if (opts.kvFormat == mla::KvCacheFormat::Fp8)
      metadata.kv_scale = kKvScale;
    oView =
        mla::contiguousView(o.data(), mla::DType::BF16, rows({s.B, s.H, R}));
    lseView =
        mla::contiguousView(lse.data(), mla::DType::F32, rows({s.B, s.H}));
    metadata.block_table = mla::contiguousView(
        blockTable.data(), mla::DType::I32, {s.B, maxPages});
    metadata.seq_lens =
        mla::contiguousView(seqLens.data(), mla::DType::I32, {s.B});
    metadata.max_seq_len = s.maxLen;
  }

  static int64_t pagesFor(int64_t len, const Shape &s) {
    return (len + s.page - 1) / s.page;
  }
  static size_t kvBytes(const Shape &s, const Options &o) {
    int64_t pages = 0;
    for (int32_t len : s.lens)
      pages += pagesFor(len, s);
    return size_t(std::max<int64_t>(1, pages)) * s.page *
           size_t(kvTokenBytes(o, R, P));
  }
};

/// The backend as mla-bench runs it, for calls of up to `maxQueryLen`
/// query tokens; `device` -1 allocates nothing (for sizing).
mla::TritonMLAImpl makeImpl(int H, int maxBatch, int maxQueryLen,
                            mla::SplitPolicy policy, const Options &o,
                            int device = 0) {
  mla::TritonMLAOptions options;
  options.maxQueryLen = maxQueryLen;
  options.tokenBlock = o.tokenBlock;
  options.stage1Warps = o.stage1Warps;
  options.stages = o.stages;
  options.tma = o.tma;
  options.warpSpecialize = o.warpSpecialize;
  options.scoreWarpgroup = o.scoreWarpgroup;
  options.seesaw = o.seesaw;
  options.latentHalves = o.latentHalves;
  options.f16Dots = o.f16Dots;
  options.fp8Dots = o.fp8Dots;
  options.fp8Tma = o.fp8Tma;
  options.fp8ScoreWarpgroup = o.fp8ScoreWarpgroup;
  options.scheduleInStage1 = o.scheduleInStage1;
  options.mergeInStage1 = o.mergeInStage1;
  options.prefetchWhileScheduling = o.prefetch;
  options.launchAsGraph = o.launchGraph;
  options.wideFp8TilesMinTokens =
      o.wideFp8TilesMinTokens.value_or(options.wideFp8TilesMinTokens);
  options.persistentWaves = o.persistentWaves;
  options.scheduleOverheadBlocks = o.scheduleOverhead;
  options.scheduleMinPieceBlocks = o.scheduleMinPiece;
  options.deviceSchedule = o.deviceSchedule;
  if (o.maxSplits)
    options.maxSplits = o.maxSplits;
  if (o.minSplits)
    options.minSplits = o.minSplits;
  options.numSMs = o.numSMs;
  options.headBlock = o.headBlock;
  options.maxBatch = maxBatch;
  options.splitPolicy = policy;
  options.device = device;
  return mla::TritonMLAImpl(H, D, kScale, 1, std::nullopt, std::nullopt,
                            kvCacheDtype(o), std::nullopt, "decoder",
                            std::nullopt, mla::MLAArgs{R, P, 128, 128},
                            options);
}

/// Device bytes a shape needs: its data plus the largest workspace of the
/// policies (as the backend sizes it).
size_t bytesNeeded(const Shape &s, const Options &o) {
  const size_t rows = size_t(s.B) * s.sq * s.H;
  size_t ws = 0;
  for (mla::SplitPolicy p : o.policies)
    ws = std::max(
        ws, makeImpl(s.H, s.B, s.sq, p, o, /*device=*/-1).workspaceBytes() +
                rows * 4);
  return Problem::kvBytes(s, o) + rows * (D + R) * 2 + rows * 4 +
         size_t(s.B) * (s.maxLen / s.page + 2) * 4 + ws;
}

Result runCase(Problem &p, mla::SplitPolicy policy, const Options &o,
               GpuTimer &timer) {
  const Shape &s = p.shape;
  Result res;
  res.shape = s;
  res.policy = policy;
  const double rows = double(s.sq) * s.H;
  res.bytes = double(s.tokens) * double(kvTokenBytes(o, R, P)) +
              double(s.B) * rows * (D + R) * 2;
  res.flops = 2.0 * rows * double(s.tokens) * (D + R);
  mla::TritonMLAImpl impl = makeImpl(s.H, s.B, s.sq, policy, o);
  // 0: the work is scheduled on the device (shown as "dev"); -1: by a
  // schedule made once, outside the timed calls ("step").
  const bool onDevice = impl.schedulesOnDevice(p.kvView, s.B, s.sq);
  res.splits = !onDevice        ? impl.numSplits(s.B, s.maxLen, s.sq)
               : o.stepSchedule ? -1
                                : 0;
  mla::DecodeMetadata metadata = p.metadata;
  std::unique_ptr<mla::DecodeSchedule> stepSchedule;
  if (onDevice && o.stepSchedule) {
    stepSchedule = impl.newDecodeSchedule(s.sq);
    impl.scheduleDecode(metadata, *stepSchedule);
    metadata.schedule = stepSchedule.get();
  }
  auto call = [&] {
    impl.forward_decode(p.qView, p.kvView, metadata, p.oView, p.lseView);
  };
  Timing t = timer.time(call, o.warmup);
  res.firstCallMs = t.firstCallMs;
  res.us = t.us;
  double estimateUs = t.estimateUs;

  // Host time: rounds of 20 calls, the stream drained before each round so
  // no call waits for room in the launch queue; each call timed, the median
  // reported (a preempted call moves the mean by microseconds).
  if (o.hostCalls > 0) {
    int wanted = std::min(o.hostCalls,
                          std::max(20, int(2.5e5 / std::max(1.0, estimateUs))));
    std::vector<double> calls;
    calls.reserve(size_t(wanted));
    while (int(calls.size()) < wanted) {
      int round = std::min(20, wanted - int(calls.size()));
      synchronizeStream(nullptr);
      for (int i = 0; i < round; ++i) {
        auto t0 = Clock::now();
        call();
        calls.push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - t0)
                .count());
      }
    }
    synchronize();
    double total = 0;
    for (double us : calls)
      total += us;
    res.hostMeanUs = total / double(calls.size());
    std::nth_element(calls.begin(), calls.begin() + calls.size() / 2,
                     calls.end());
    res.hostUs = calls[calls.size() / 2];
    res.hostCallsDone = int(calls.size());
  }
  return res;
}

//===----------------------------------------------------------------------===//
// Correctness spot check
//===----------------------------------------------------------------------===//

std::vector<CheckResult> spotCheck(const Options &o, std::mt19937_64 &rng) {
  std::vector<CheckResult> out;
  for (int H : allHeads(o))
    for (int page : o.page)
      for (int sq : o.sq) {
        test::MlaCase c;
        c.H = H, c.R = R, c.P = P, c.page = page, c.type = test::DType::BF16;
        c.sq = sq;
        c.scale = kScale;
        c.kvScale = o.kvFormat == mla::KvCacheFormat::Fp8 ? kKvScale : 0;
        c.dsMla = o.kvFormat == mla::KvCacheFormat::Fp8DsMla;
        c.lens = isInterpreterMode() ? std::vector<int32_t>{1, 37, 100}
                                     : std::vector<int32_t>{1, 517, 1500, 0};
        test::MlaProblem prob = test::makeMlaProblem(c, rng);
        test::MlaReference ref = test::mlaReference(prob);
        DeviceBuffer dq =
            test::uploadBytes(prob.qn.bytes.data(), prob.qn.bytes.size());
        const bool native = o.kvFormat == mla::KvCacheFormat::Native;
        DeviceBuffer dkv =
            native
                ? test::uploadBytes(prob.kv.bytes.data(), prob.kv.bytes.size())
                : test::uploadBytes(prob.kvCodes.data(), prob.kvCodes.size());
        const mla::DType kvType =
            native ? mla::DType::BF16 : mla::DType::FP8E4M3;
        DeviceBuffer dbt = test::uploadBytes(prob.blockTable.data(),
                                             prob.blockTable.size() * 4);
        DeviceBuffer dlens =
            test::uploadBytes(prob.seqLens.data(), prob.seqLens.size() * 4);
        const int B = c.B();
        test::HostTensor ho(test::DType::BF16, size_t(B) * c.rows() * R),
            hl(test::DType::F32, size_t(B) * c.rows());
        DeviceBuffer dout(ho.bytes.size()), dlse(hl.bytes.size());
        for (mla::SplitPolicy policy : o.policies) {
          CheckResult cr;
          cr.H = H, cr.page = page, cr.sq = sq, cr.policy = policy;
          try {
            mla::TritonMLAImpl impl = makeImpl(H, B, sq, policy, o);
            dout.fill(0xff);
            dlse.fill(0xff);
            auto [ov, lv] =
                test::outputViews(prob, dout.data(), mla::DType::BF16,
                                  dlse.data(), mla::DType::F32);
            mla::DecodeMetadata md =
                test::decodeMetadata(prob, dbt.data(), dlens.data());
            if (o.kvFormat == mla::KvCacheFormat::Fp8)
              md.kv_scale = kKvScale;
            impl.forward_decode(
                test::queryView(prob, dq.data(), mla::DType::BF16),
                test::kvCacheView(prob, dkv.data(), kvType), md, ov, lv);
            synchronize();
            dout.download(ho.bytes.data(), ho.bytes.size());
            dlse.download(hl.bytes.data(), hl.bytes.size());
            ho.decode();
            hl.decode();
            test::MlaErrors e =
                test::mlaErrors(prob, ref, ho.values, hl.values);
            cr.oErr = e.o, cr.lseErr = e.lse;
            cr.ok = e.o <= 1e-2 && e.lse <= 1e-3;
          } catch (const std::exception &e) {
            cr.error = e.what();
          }
          std::printf("check H=%-3d s_q=%d page=%-2d %-15s o rel err %.2e  lse "
                      "abs err %.2e  %s%s\n",
                      H, sq, page, policyName(policy), cr.oErr, cr.lseErr,
                      cr.ok ? "OK" : "MISMATCH",
                      cr.error.empty() ? "" : (" (" + cr.error + ")").c_str());
          out.push_back(cr);
        }
      }
  return out;
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
  std::printf("mla-bench: %s (%s, %d SMs, %.1f GiB), bf16%s, R=%d rope=%d, "
              "%zu shapes x %zu policies, up to %d runs each, L2 flush %zu "
              "MiB, %s\n",
              report.device.name.c_str(), report.device.arch.c_str(),
              report.device.multiprocessors,
              double(report.device.totalMemory) / double(1 << 30),
              o.kvFormat == mla::KvCacheFormat::Native ? ""
              : o.kvFormat != mla::KvCacheFormat::Fp8  ? " (fp8_ds_mla cache)"
              : o.fp8Tma ? " (fp8 cache, on TMA at 64-head programs)"
                         : " (fp8 cache, on cp.async)",
              R, P, grid.size(), o.policies.size(), o.runs, flushBytes / MiB,
              o.launchGraph ? "a call's kernels as one graph"
                            : "a launch per kernel");
  if (interp)
    std::printf("mla-bench: TILEMLA_INTERPRET is set: kernels run in the CPU "
                "interpreter; the times say nothing about a GPU\n");

  GpuTimer timer(o.runs, flushBytes);
  report.copy = measureCopy(copyBytes, interp ? 3 : 20, timer);
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

  RandomSource random(interp ? MiB : 64 * MiB, o.seed);
  std::printf(
      "\n%4s %2s %4s %6s %4s %-7s %-15s %6s %9s %9s %9s %8s %8s %6s %8s\n", "H",
      "sq", "B", "L", "page", "kind", "policy", "splits", "med us", "min us",
      "p90 us", "GB/s", "TFLOP/s", "%copy", "host us");
  for (const Shape &s : grid) {
    size_t need = bytesNeeded(s, o);
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
      problem.emplace(s, o, random, rng);
    } catch (const std::exception &e) {
      std::printf("%s skipped: %s\n", shapeLabel(s).c_str(), e.what());
      report.skipped.emplace_back(s, e.what());
      continue;
    }
    for (mla::SplitPolicy policy : o.policies) {
      Result res;
      try {
        res = runCase(*problem, policy, o, timer);
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
                  double(bytesNeeded(s, o)) / double(1 << 30));
    return 0;
  }
  Report report;
  return runBenchmark(
      "mla-bench", o.json, report.skippedAll, report.device,
      [&] { return run(o, grid, report); },
      [&](std::ostream &out) { writeJson(out, o, report); });
}
