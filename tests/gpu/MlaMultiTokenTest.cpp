//===- MlaMultiTokenTest.cpp - forward_decode with s_q query tokens -------===//
//
// Multi-token decode (speculative verification, MTP) through the public API
// against the fp64 reference (tests/common/MlaReference.h): q [B, s_q, H,
// R + P] (or the pair) with padded token strides, o [B, s_q, H, R], lse
// [B, s_q, H]; query token j of request b sees its first L_b - s_q + j + 1
// tokens. Lengths below s_q (rows that see nothing: o = 0, lse = -inf),
// 0, 1, 4096 and 70000; s_q 1..8; 16 and 128 heads; pages 1/16/64/33; every
// split policy; ragged batches; on sm_90a the 64-row TMA tiles (16 heads x 4
// tokens, 128 x 2) with each stage-1 variant. Graph replays with changing
// lengths: MlaGraphTest.MultiTokenDecodeReplaysWithNewLengths.
//
// Interpreted (TILEMLA_INTERPRET=1, CI), the cases of up to 1000 tokens,
// 32 heads and 128 query rows run.
//
//===----------------------------------------------------------------------===//
#include "MlaGpuFixture.h"

using namespace tilemla;
using namespace tilemla::test;

namespace {
MlaCase tokens(MlaCase c, int sq) {
  c.sq = sq;
  return c;
}

TEST_F(MlaGpuTest, MultiTokenQueryLengths) {
  // Every s_q from 1 to 8; lengths below it, at it, and a chunk boundary
  // within the last s_q tokens (Fixed4 cuts 777 at 195, 390, 585).
  std::vector<Run> runs;
  for (int sq = 1; sq <= 8; ++sq)
    runs.push_back({tokens(mk(16, 64, {0, 1, 2, sq - 1, sq, 100, 777, 587},
                              sq % 2 ? DType::BF16 : DType::F16, sq % 3 == 0),
                           sq),
                    SP::Fixed4});
  family("s_q 1..8, lengths around s_q", runs);
}

TEST_F(MlaGpuTest, MultiTokenPoliciesAndPages) {
  std::vector<Run> runs;
  for (SP policy : {SP::Fixed4, SP::BatchInvariant, SP::Auto}) {
    for (int page : {1, 16, 64, 33})
      runs.push_back({tokens(mk(16, page, {3, 0, 1, 300, 4096}), 2), policy});
    // 128 heads over cp.async pages (the TMA ones: MultiTokenWarpgroupTiles).
    for (int page : {1, 16})
      runs.push_back({tokens(mk(128, page, {2, 0, 1, 300, 1000}), 2), policy});
    runs.push_back(
        {tokens(mk(16, 64, {70000, 2, 4096}, DType::BF16, true), 4), policy});
    runs.push_back({tokens(mk(20, 16, {100, 257, 0, 3}), 3), policy});
  }
  family("s_q 2..4 x pages x policies, H=16/20/128", runs);
}

TEST_F(MlaGpuTest, MultiTokenRaggedBatch) {
  std::vector<int32_t> lens = raggedLens(24, 3000);
  family("s_q, ragged batch of 24",
         {{tokens(mk(16, 64, lens, DType::BF16, true), 2), SP::Auto},
          {tokens(mk(16, 16, lens, DType::F16), 4), SP::Fixed4},
          {tokens(mk(16, 16, {600, 0, 1, 999, 3}), 3), SP::Auto}});
}

TEST_F(MlaGpuTest, MultiTokenWarpgroupTiles) {
  // Back-to-back pages: on sm_90a, 64 query rows per program stream with
  // TMA (16 heads x 4 tokens as 64 heads; 128 x 2 with its score
  // warpgroup), under each policy and stage-1 variant.
  std::vector<int32_t> lens = {1, 2, 63, 64, 65, 900, 0, 129};
  std::vector<Run> runs;
  for (SP policy : {SP::Auto, SP::Fixed4, SP::BatchInvariant})
    for (auto [H, sq] : {std::pair{16, 4}, std::pair{128, 2}}) {
      MlaCase c = tokens(mk(H, 64, lens, DType::BF16, H == 16), sq);
      c.contiguousPages = true;
      runs.push_back({c, policy});
      c.lens = {3000, 4096, 3};
      runs.push_back({c, policy});
    }
  std::vector<int32_t> many;
  std::uniform_int_distribution<int> len(0, 900);
  for (int b = 0; b < 20; ++b)
    many.push_back(b % 7 == 3 ? 1 : len(rng));
  for (auto [H, sq] : {std::pair{16, 4}, std::pair{128, 2}}) {
    MlaCase c = tokens(mk(H, 64, many, DType::BF16, true), sq);
    c.contiguousPages = true;
    Run scheduled{c, SP::Auto}, inStage1{c, SP::Auto}, plain{c, SP::Fixed4},
        producer{c, SP::Auto}, persistent{c, SP::Auto}, seesaw{c, SP::Auto},
        halves{c, SP::Auto};
    scheduled.tuning.schedule = inStage1.tuning.schedule =
        mla::DeviceSchedule::Always;
    inStage1.tuning.scheduleInStage1 = true;
    plain.tuning.warpSpecialize = plain.tuning.scoreWarpgroup = false;
    producer.tuning.scoreWarpgroup = false;
    persistent.tuning.persistentWaves = 1;
    persistent.tuning.schedule = mla::DeviceSchedule::Off;
    seesaw.tuning.seesaw = true;
    halves.tuning.latentHalves = true;
    for (const Run &r :
         {scheduled, inStage1, plain, producer, persistent, seesaw, halves})
      runs.push_back(r);
  }
  family("s_q, 64-row tiles and variants", runs);
}
} // namespace
