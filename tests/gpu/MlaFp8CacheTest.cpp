//===- MlaFp8CacheTest.cpp - forward_decode on an fp8 (e4m3) cache --------===//
//
// kv_cache_dtype "fp8": the cache holds e4m3 codes of value / kv_scale, and
// o and lse are compared with the fp64 reference computed on the
// dequantized cache (code * kv_scale; tests/common/MlaReference.h), with
// the bf16 tolerances (o row-relative <= 1e-2, lse <= 1e-3). The scale as
// a host number and as a device scalar (negative too: the values' signs
// flip); 16 and 128 heads; pages 1, 16, 64 and 33; lengths 0, 1, 4096 and
// 70000; every split policy; q whole or as the pair; several query tokens.
// Graph replays with a changed device scale:
// MlaGraphTest.Fp8CacheReplaysWithNewScale. kv_cache_dtype "fp8_ds_mla":
// DeepSeek's 656-byte tokens (a scale per tile of 128 codes, bf16 rope),
// against the reference on what they decode to, over the same pages,
// heads, lengths and policies (bf16 only: the API refuses f16 q there).
// Fp8CacheF16Dots: both layouts with TritonMLAOptions::f16Dots (the codes
// widened to f16, q scaled by a power of two to fit), q from 2^-30 to 2^20
// in magnitude, over the same pages, heads and policies (f16 is the default
// where the dots read the codes in place: 16-head blocks on sm_89+);
// Fp8CacheBf16Dots: the codes widened to bf16 there. Fp8CacheFp8Dots: the
// same cases with TritonMLAOptions::fp8Dots (q and p as two e4m3 terms on
// the fp8 tensor cores), within the same tolerances.
//
// Interpreted (TILEMLA_INTERPRET=1, CI), the cases of up to 1000 tokens and
// 32 heads run.
//
//===----------------------------------------------------------------------===//
#include "MlaGpuFixture.h"

using namespace tilemla;
using namespace tilemla::test;

namespace {
MlaCase fp8(MlaCase c, double kvScale, bool onDevice = false) {
  c.kvScale = kvScale;
  c.scaleOnDevice = onDevice;
  return c;
}

TEST_F(MlaGpuTest, Fp8CachePoliciesAndPages) {
  std::vector<Run> runs;
  for (SP policy : {SP::Fixed4, SP::BatchInvariant, SP::Auto}) {
    for (int page : {1, 16, 64, 33}) {
      runs.push_back(
          {fp8(mk(16, page, {0, 1, 4096, 300}), 1.0 / 240, page % 2), policy});
      runs.push_back(
          {fp8(mk(16, page, {5, 0, 999}, DType::F16, true), 0.004, !(page % 2)),
           policy});
    }
    for (int page : {1, 16, 64})
      runs.push_back(
          {fp8(mk(128, page, {1, 0, 4096, 77}), 1.0 / 224, page == 16),
           policy});
    runs.push_back({fp8(mk(16, 64, {70000, 1, 0}), 1.0 / 200, true), policy});
  }
  family("fp8 cache x pages x policies", runs);
}

TEST_F(MlaGpuTest, Fp8CacheScalesAndTokens) {
  std::vector<Run> runs;
  // A negative scale (codes of -value), a small and a large one, and
  // several query tokens per request.
  runs.push_back({fp8(mk(16, 16, {700, 3, 0, 64}), -1.0 / 240), SP::Auto});
  runs.push_back({fp8(mk(16, 16, {700, 3, 0, 64}), -0.01, true), SP::Fixed4});
  runs.push_back({fp8(mk(20, 64, {500, 1, 130}), 1.0 / 4096), SP::Auto});
  runs.push_back({fp8(mk(16, 64, {640, 2}), 4.0, true), SP::Auto});
  MlaCase multi =
      fp8(mk(16, 16, {2, 0, 1, 300, 900}, DType::BF16, true), 1.0 / 240, true);
  multi.sq = 3;
  runs.push_back({multi, SP::Auto});
  runs.push_back({multi, SP::BatchInvariant});
  family("fp8 cache, scales and s_q", runs);
}

MlaCase dsMla(MlaCase c) {
  c.dsMla = true;
  return c;
}

TEST_F(MlaGpuTest, Fp8DsMlaCachePoliciesAndPages) {
  std::vector<Run> runs;
  for (SP policy : {SP::Fixed4, SP::BatchInvariant, SP::Auto}) {
    for (int page : {1, 16, 64, 33}) {
      runs.push_back({dsMla(mk(16, page, {0, 1, 4096, 300})), policy});
      runs.push_back(
          {dsMla(mk(16, page, {5, 0, 999}, DType::BF16, true)), policy});
    }
    for (int page : {1, 16, 64})
      runs.push_back({dsMla(mk(128, page, {1, 0, 4096, 77})), policy});
    runs.push_back({dsMla(mk(16, 64, {70000, 1, 0})), policy});
  }
  // Back-to-back pages, 20 heads, a negative softmax scale and several
  // query tokens per request.
  MlaCase contiguous = dsMla(mk(20, 64, {500, 1, 130}));
  contiguous.contiguousPages = true;
  runs.push_back({contiguous, SP::Auto});
  MlaCase negative = dsMla(mk(16, 16, {700, 3, 0, 64}));
  negative.scale = -negative.scale;
  runs.push_back({negative, SP::Auto});
  MlaCase multi = dsMla(mk(16, 16, {2, 0, 1, 300, 900}, DType::BF16, true));
  multi.sq = 3;
  runs.push_back({multi, SP::Auto});
  runs.push_back({multi, SP::BatchInvariant});
  family("fp8_ds_mla cache", runs);
}

/// The cases of the dots' variants (f16, fp8): q of any magnitude, every
/// policy and page size, peaky softmaxes, negative scales, query tokens.
/// (Run is the fixture's.)
template <typename Run> std::vector<Run> dotVariantRuns(const Tuning &dots) {
  // q's largest value far past f16's (65504) and far below its normal
  // range; the softmax scale keeps the scores near 1 either way.
  auto sized = [](MlaCase c, double magnitude) {
    c.qMagnitude = magnitude;
    c.scale /= magnitude;
    return c;
  };
  std::vector<Run> runs;
  for (SP policy : {SP::Fixed4, SP::BatchInvariant, SP::Auto}) {
    for (int page : {1, 16, 64, 33}) {
      runs.push_back({fp8(mk(16, page, {0, 1, 4096, 300}), 1.0 / 240, page % 2),
                      policy, mla::LseDType::F32, dots});
      runs.push_back(
          {fp8(mk(16, page, {5, 0, 999}, DType::BF16, true), 0.004, true),
           policy, mla::LseDType::F32, dots});
    }
    for (int page : {1, 64})
      runs.push_back({fp8(mk(128, page, {1, 0, 4096, 77}), 1.0 / 224), policy,
                      mla::LseDType::F32, dots});
  }
  for (double magnitude : {0x1p20, 0x1p-30, 3e4})
    runs.push_back({sized(fp8(mk(20, 64, {500, 1, 130}), 1.0 / 240), magnitude),
                    SP::Auto, mla::LseDType::F32, dots});
  // A softmax that few tokens dominate (weights far below 2^-25 beside
  // 1), a negative scale, several query tokens, 70,000 tokens.
  MlaCase peaked = fp8(mk(16, 16, {700, 3, 0, 64}), 1.0 / 240);
  peaked.scale *= 30;
  runs.push_back({peaked, SP::Auto, mla::LseDType::F32, dots});
  MlaCase negative = fp8(mk(16, 16, {700, 3, 0, 64}), -0.01, true);
  runs.push_back({negative, SP::Auto, mla::LseDType::F32, dots});
  MlaCase multi =
      fp8(mk(16, 16, {2, 0, 1, 300, 900}, DType::BF16, true), 1.0 / 240, true);
  multi.sq = 3;
  runs.push_back({multi, SP::Auto, mla::LseDType::F32, dots});
  runs.push_back({fp8(mk(16, 64, {70000, 1, 0}), 1.0 / 200, true), SP::Auto,
                  mla::LseDType::F32, dots});
  // The option leaves fp8_ds_mla as it is.
  runs.push_back(
      {dsMla(mk(16, 16, {300, 2})), SP::Auto, mla::LseDType::F32, dots});
  return runs;
}

TEST_F(MlaGpuTest, Fp8CacheWideTiles) {
  // Scheduled calls in the default tiles on shared SMs
  // (TritonMLAOptions::wideFp8TilesMinTokens, here from one token on):
  // every page size, f16 and bf16 dots, 70,000 tokens.
  Tuning wide;
  wide.schedule = mla::DeviceSchedule::Always;
  wide.wideFp8Tiles = 1;
  std::vector<Run> runs;
  for (std::optional<bool> f16 :
       {std::optional<bool>(), std::optional(false)}) {
    wide.f16Dots = f16;
    for (int page : {1, 16, 64, 33})
      runs.push_back({fp8(mk(16, page, {0, 1, 4096, 300}), 1.0 / 240, page % 2),
                      SP::Auto, mla::LseDType::F32, wide});
    runs.push_back({fp8(mk(16, 64, {70000, 1, 0}), 1.0 / 200, true), SP::Auto,
                    mla::LseDType::F32, wide});
  }
  family("fp8 cache, wide tiles", runs);
}

TEST_F(MlaGpuTest, Fp8CacheOnTma) {
  // TritonMLAOptions::fp8Tma: 64-head programs stream the
  // codes with TMA (64-byte panels) and widen each landed tile, with a
  // producer warpgroup and without; with fp8Tma off the same cases take
  // cp.async; also with the score warpgroup (fp8ScoreWarpgroup), its
  // tiles widened a trip ahead. 64 and 128 heads, back-to-back pages of whole
  // 32-token blocks, every policy, the device schedule, lengths 0, 1 and
  // 70,000 (skipped when interpreted: 64 heads).
  Tuning onTma;
  onTma.fp8Tma = true;
  Tuning scheduled = onTma;
  scheduled.schedule = mla::DeviceSchedule::Always;
  Tuning plain = onTma;
  plain.warpSpecialize = false;
  Tuning copies;
  copies.fp8Tma = false;
  Tuning scores = onTma; // the score warpgroup, no producer
  scores.fp8ScoreWarpgroup = true;
  Tuning scoresScheduled = scores; // several entries of the widening loop
  scoresScheduled.schedule = mla::DeviceSchedule::Always;
  std::vector<Run> runs;
  for (int H : {64, 128})
    for (int page : {32, 64}) {
      MlaCase c = fp8(mk(H, page, {0, 1, 4096, 300, 77}), 1.0 / 240, H == 64);
      c.contiguousPages = true;
      for (SP policy : {SP::Fixed4, SP::BatchInvariant, SP::Auto})
        runs.push_back({c, policy, mla::LseDType::F32, onTma});
      runs.push_back({c, SP::Auto, mla::LseDType::F32, scheduled});
      runs.push_back({c, SP::Auto, mla::LseDType::F32, plain});
      runs.push_back({c, SP::Auto, mla::LseDType::F32, copies});
      for (SP policy : {SP::Fixed4, SP::Auto})
        runs.push_back({c, policy, mla::LseDType::F32, scores});
      runs.push_back({c, SP::Auto, mla::LseDType::F32, scoresScheduled});
    }
  MlaCase longest = fp8(mk(128, 64, {70000, 1, 0}), 1.0 / 200, true);
  longest.contiguousPages = true;
  runs.push_back({longest, SP::Auto, mla::LseDType::F32, onTma});
  runs.push_back({longest, SP::Auto, mla::LseDType::F32, scores});
  family("fp8 cache on TMA", runs);
}

TEST_F(MlaGpuTest, Fp8CacheF16Dots) {
  Tuning f16Dots;
  f16Dots.f16Dots = true;
  family("fp8 cache, f16 dots", dotVariantRuns<Run>(f16Dots));
}

TEST_F(MlaGpuTest, Fp8CacheFp8Dots) {
  Tuning fp8Dots;
  fp8Dots.fp8Dots = true;
  family("fp8 cache, fp8 dots", dotVariantRuns<Run>(fp8Dots));
}

TEST_F(MlaGpuTest, Fp8CacheBf16Dots) {
  Tuning bf16Dots;
  bf16Dots.f16Dots = false;
  std::vector<Run> runs;
  for (SP policy : {SP::Fixed4, SP::BatchInvariant, SP::Auto})
    for (int page : {1, 64, 33})
      runs.push_back({fp8(mk(16, page, {0, 1, 4096, 300}), 1.0 / 240, page % 2),
                      policy, mla::LseDType::F32, bf16Dots});
  MlaCase multi =
      fp8(mk(16, 16, {2, 0, 1, 300, 900}, DType::BF16, true), 1.0 / 240, true);
  multi.sq = 3;
  runs.push_back({multi, SP::Auto, mla::LseDType::F32, bf16Dots});
  runs.push_back({fp8(mk(16, 64, {70000, 1, 0}), 1.0 / 200, true), SP::Auto,
                  mla::LseDType::F32, bf16Dots});
  family("fp8 cache, bf16 dots", runs);
}
} // namespace
