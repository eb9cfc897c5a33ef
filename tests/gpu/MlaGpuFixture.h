//===- MlaGpuFixture.h - the MLA GPU tests' run-and-compare fixture -------===//
//
// MlaGpuTest runs an MlaCase through a fresh TritonMLAImpl (the split
// policy, lse dtype and stage-1 tuning given) and compares o and lse with
// the fp64 reference (the fp32 nvrtc kernel past 8192 tokens with one query
// token); `family` runs several and prints the worst errors. Shared by
// MlaGpuTest.cpp and MlaMultiTokenTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TESTS_MLAGPUFIXTURE_H
#define TILEMLA_TESTS_MLAGPUFIXTURE_H

#include "../common/MlaViews.h"
#include "MlaDeviceTest.h"
#include "NvrtcMlaReference.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <optional>

namespace tilemla::test {
namespace mla = tilemla::mla;

inline mla::DType toMla(DType t) {
  return t == DType::F16    ? mla::DType::F16
         : t == DType::BF16 ? mla::DType::BF16
                            : mla::DType::F32;
}

/// Stage-1 tile options (0: the backend's defaults).
struct Tuning {
  int tokenBlock = 0, stages = 0, warps = 0, headBlock = 0;
  bool warpSpecialize = true;
  bool scoreWarpgroup = true; ///< the library's default
  bool seesaw = false;
  bool latentHalves = false;
  std::optional<bool> f16Dots; ///< unset: the library's default
  bool fp8Dots = false;
  std::optional<bool> fp8Tma;     ///< unset: the library's default
  /// TritonMLAOptions::fp8ScoreWarpgroup; false (the producer warpgroup's
  /// kernel) unless a run asks for it: its runs say so.
  bool fp8ScoreWarpgroup = false;
  bool scheduleInStage1 = false;
  /// Stage 1 merges the pieces (no stage 2). The case runs twice on one
  /// impl, outputs poisoned again in between: the second call checks that
  /// the first left its arrival counts at zero.
  bool mergeInStage1 = false;
  /// TritonMLAOptions::prefetchWhileScheduling.
  bool prefetch = true;
  /// TritonMLAOptions::launchAsGraph; unset: the library's default (a
  /// graph). Set true, the case runs twice on one impl (the second call
  /// launches the graph the first made, given new arguments).
  std::optional<bool> launchAsGraph;
  /// TritonMLAOptions::wideFp8TilesMinTokens; unset: the library's default.
  std::optional<int64_t> wideFp8Tiles;
  int persistentWaves = 0;
  int numSMs = 0; ///< fewer persistent programs: many items each
  /// The device schedule's cost model (0: the defaults).
  int scheduleOverhead = 0, scheduleMinPiece = 0;
  mla::DeviceSchedule schedule = mla::DeviceSchedule::Default;
};

class MlaGpuTest : public MlaDeviceTest {
protected:
  static DeviceBuffer upload(const void *data, size_t bytes) {
    DeviceBuffer buffer(std::max<size_t>(bytes, 1));
    buffer.upload(data, bytes);
    return buffer;
  }
  static bool skipWhenInterpreting(const MlaCase &c) {
    if (!isInterpreterMode())
      return false;
    int longest = 0;
    for (int L : c.lens)
      longest = std::max(longest, L);
    return longest > 1000 || c.H > 32 || c.rows() > 128;
  }

  /// Runs `c` through a fresh TritonMLAImpl; returns the errors.
  MlaErrors run(const MlaCase &c, mla::SplitPolicy policy,
                mla::LseDType lseType = mla::LseDType::F32,
                const Tuning &tuning = {}) {
    MlaProblem p = makeMlaProblem(c, rng);
    // Long sequences: the fp32 nvrtc kernel; otherwise the fp64 CPU one.
    int longest = 0;
    for (int L : c.lens)
      longest = std::max(longest, L);
    const bool fp8 = c.kvScale > 0 || c.dsMla;
    MlaReference ref =
        longest > 8192 && c.sq == 1 && !fp8 && nvrtcReferenceAvailable()
            ? nvrtcMlaReference(p)
            : mlaReference(p);
    const int64_t B = c.B(), H = c.H, R = c.R, P = c.P;
    mla::TritonMLAOptions options;
    options.maxBatch = std::max<int64_t>(1, B);
    options.maxQueryLen = c.sq;
    options.splitPolicy = policy;
    options.lseDtype = lseType;
    options.device = 0;
    options.tokenBlock = tuning.tokenBlock;
    options.stages = tuning.stages;
    options.stage1Warps = tuning.warps;
    options.headBlock = tuning.headBlock;
    options.warpSpecialize = tuning.warpSpecialize;
    options.scoreWarpgroup = tuning.scoreWarpgroup;
    options.seesaw = tuning.seesaw;
    options.latentHalves = tuning.latentHalves;
    options.f16Dots = tuning.f16Dots;
    options.fp8Dots = tuning.fp8Dots;
    options.fp8Tma = tuning.fp8Tma.value_or(options.fp8Tma);
    options.fp8ScoreWarpgroup = tuning.fp8ScoreWarpgroup;
    options.scheduleInStage1 = tuning.scheduleInStage1;
    options.mergeInStage1 = tuning.mergeInStage1;
    options.prefetchWhileScheduling = tuning.prefetch;
    options.launchAsGraph =
        tuning.launchAsGraph.value_or(options.launchAsGraph);
    options.wideFp8TilesMinTokens =
        tuning.wideFp8Tiles.value_or(options.wideFp8TilesMinTokens);
    options.persistentWaves = tuning.persistentWaves;
    options.numSMs = tuning.numSMs;
    options.deviceSchedule = tuning.schedule;
    options.scheduleOverheadBlocks = tuning.scheduleOverhead;
    options.scheduleMinPieceBlocks = tuning.scheduleMinPiece;
    mla::MLAArgs args{R, P, 128, 128};
    mla::TritonMLAImpl impl(H, R + P, c.scale, 1, std::nullopt, std::nullopt,
                            c.dsMla ? "fp8_ds_mla"
                            : fp8   ? "fp8"
                                    : "auto",
                            std::nullopt, "decoder", std::nullopt, args,
                            options);

    DeviceBuffer dqn = upload(p.qn.bytes.data(), p.qn.bytes.size());
    DeviceBuffer dqp = upload(p.qp.bytes.data(), p.qp.bytes.size());
    DeviceBuffer dkv = fp8 ? upload(p.kvCodes.data(), p.kvCodes.size())
                           : upload(p.kv.bytes.data(), p.kv.bytes.size());
    DeviceBuffer dbt = upload(p.blockTable.data(), p.blockTable.size() * 4);
    DeviceBuffer dlens = upload(p.seqLens.data(), p.seqLens.size() * 4);
    DType lseHost = lseType == mla::LseDType::F32 ? DType::F32 : c.type;
    const size_t rows = size_t(B) * c.rows();
    HostTensor o(c.type, rows * R), lse(lseHost, rows);
    DeviceBuffer dout(std::max<size_t>(1, o.bytes.size())),
        dlse(std::max<size_t>(1, lse.bytes.size()));

    mla::DType t = toMla(c.type);
    mla::TensorView kv =
        kvCacheView(p, dkv.data(), fp8 ? mla::DType::FP8E4M3 : t);
    // Back-to-back pages of whole token blocks (64 tokens; 32 for an fp8
    // cache), 64-head blocks: TMA on sm_90a, for an fp8 cache with fp8Tma
    // (the cases meant for it must not fall back silently).
    const int block = tuning.tokenBlock ? tuning.tokenBlock : fp8 ? 32 : 64;
    if (c.contiguousPages && c.rows() >= 64 && !isInterpreterMode() &&
        deviceInfo().arch == "sm_90a")
      EXPECT_EQ(impl.canStreamWithTma(kv, c.sq),
                c.page % block == 0 && !c.dsMla && (!fp8 || options.fp8Tma));
    mla::DecodeMetadata md = decodeMetadata(p, dbt.data(), dlens.data());
    const float kvScale = float(c.kvScale);
    DeviceBuffer dscale = upload(&kvScale, 4);
    if (c.kvScale > 0 && c.scaleOnDevice)
      md.kv_scale_tensor = {dscale.data(), mla::DType::F32, {1}, {1}, 0};
    else if (c.kvScale > 0)
      md.kv_scale = kvScale;
    auto [ov, lv] = outputViews(p, dout.data(), t, dlse.data(), toMla(lseHost));
    for (int call = tuning.mergeInStage1 || tuning.launchAsGraph.value_or(false)
                        ? 2
                        : 1;
         call > 0; --call) {
      dout.fill(0xff); // NaN in every dtype
      dlse.fill(0xff);
      if (c.pair) {
        auto [qn, qp] = queryPairViews(p, dqn.data(), dqp.data(), t);
        impl.forward_decode(qn, qp, kv, md, ov, lv);
      } else {
        impl.forward_decode(queryView(p, dqn.data(), t), kv, md, ov, lv);
      }
      synchronize();
    }
    dout.download(o.bytes.data(), o.bytes.size());
    dlse.download(lse.bytes.data(), lse.bytes.size());
    o.decode();
    lse.decode();
    return mlaErrors(p, ref, o.values, lse.values);
  }

  /// `count` lengths drawn from [0, longest], every fifth 0..3.
  std::vector<int32_t> raggedLens(int count, int longest) {
    std::vector<int32_t> lens;
    std::uniform_int_distribution<int> len(0, longest);
    for (int b = 0; b < count; ++b)
      lens.push_back(b % 5 == 0 ? b % 4 : len(rng));
    return lens;
  }

  struct Run {
    MlaCase c;
    mla::SplitPolicy policy;
    mla::LseDType lse = mla::LseDType::F32;
    Tuning tuning = {};
  };
  /// Runs each case against the reference and prints the worst errors.
  /// Interpreted, the cases too large to interpret are left out; a test
  /// whose cases all are reports itself skipped (one family per test).
  void family(const char *name, const std::vector<Run> &runs) {
    double worstO = 0, worstLse = 0;
    std::string where;
    auto start = std::chrono::steady_clock::now();
    size_t ran = 0;
    for (const Run &r : runs) {
      if (skipWhenInterpreting(r.c))
        continue;
      ++ran;
      static const char *policies[] = {"Fixed4", "BatchInvariant", "Auto"};
      std::string what =
          r.c.describe() + " policy=" + policies[int(r.policy)] +
          " seed=" + std::to_string(seed) +
          (r.tuning.warpSpecialize ? "" : " no-ws") +
          (r.tuning.scoreWarpgroup ? "" : " no-score-warpgroup") +
          (r.tuning.seesaw ? " seesaw" : "") +
          (r.tuning.latentHalves ? " latent-halves" : "") +
          (r.tuning.f16Dots ? *r.tuning.f16Dots ? " f16-dots" : " bf16-dots"
                            : "") +
          (r.tuning.fp8Dots ? " fp8-dots" : "") +
          (!r.tuning.fp8Tma   ? ""
           : *r.tuning.fp8Tma ? " fp8-tma"
                              : " fp8-cp.async") +
          (r.tuning.fp8ScoreWarpgroup ? " fp8-score-warpgroup" : "") +
          (r.tuning.scheduleInStage1 ? " schedule-in-stage1" : "") +
          (r.tuning.mergeInStage1 ? " merge-in-stage1" : "") +
          (r.tuning.prefetch ? "" : " no prefetch") +
          (!r.tuning.launchAsGraph   ? ""
           : *r.tuning.launchAsGraph ? " launch-graph"
                                     : " direct launches") +
          (r.tuning.wideFp8Tiles
               ? " wide-fp8-tiles=" + std::to_string(*r.tuning.wideFp8Tiles)
               : "") +
          (r.tuning.persistentWaves
               ? " persistent=" + std::to_string(r.tuning.persistentWaves)
               : "") +
          (r.tuning.numSMs ? " sms=" + std::to_string(r.tuning.numSMs) : "") +
          (r.tuning.scheduleOverhead || r.tuning.scheduleMinPiece
               ? " schedule-cost=" + std::to_string(r.tuning.scheduleOverhead) +
                     "/" + std::to_string(r.tuning.scheduleMinPiece)
               : "") +
          (r.tuning.schedule == mla::DeviceSchedule::Off ? " schedule=off"
           : r.tuning.schedule == mla::DeviceSchedule::Always
               ? " schedule=always"
               : "");
      SCOPED_TRACE(what);
      MlaErrors e = run(r.c, r.policy, r.lse, r.tuning);
      bool lowLse = r.lse == mla::LseDType::Query;
      EXPECT_LE(e.o, r.c.type == DType::BF16 ? 1e-2 : 2e-3) << "at " << e.where;
      EXPECT_LE(e.lse, lowLse ? 5e-2 : 1e-3);
      if (e.o > worstO)
        where = what + " " + e.where;
      worstO = std::max(worstO, e.o);
      worstLse = std::max(worstLse, e.lse);
    }
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (ran == 0)
      GTEST_SKIP() << name << ": every case is too large to interpret";
    std::printf("[ mla ] %-34s worst o rel err %.3e  lse abs err %.3e  "
                "(%.1f s; worst o at %s)\n",
                name, worstO, worstLse, secs, where.c_str());
  }
};

inline MlaCase mk(int H, int page, std::vector<int32_t> lens,
                  DType t = DType::BF16, bool pair = false) {
  MlaCase c;
  c.H = H, c.page = page, c.lens = std::move(lens), c.type = t, c.pair = pair;
  return c;
}

using SP = mla::SplitPolicy;
} // namespace tilemla::test

#endif
