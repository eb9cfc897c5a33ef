//===- MlaVariantsTest.cpp - every stage-1 kernel variant, short requests ===//
//
// One short batch (lengths 0, 1, a page and a bit, a few hundred tokens)
// through each kernel the backend can choose: head counts 16/20/64/128,
// pages 1/16/33/64 with cp.async, back-to-back pages of 64 and 128 tokens
// with TMA (with and without the producer warpgroup; at 128 heads the score
// warpgroup, the producer, the seesaw and latent halves; persistent grids;
// the device schedule forced on and off, and with the pieces merged in
// stage 1), every split policy, bf16 and f16,
// lse in q's dtype, several query tokens, and the fp8 caches. The other
// families cover these with long and ragged requests; this one is short so
// that scripts/sanitize.sh can run all four compute-sanitizer tools over
// every variant in minutes (SANITIZE_SET=variants).
//
// Tolerances and reference as in MlaGpuTest.cpp. With TILEMLA_INTERPRET=1
// the cases of at most 32 heads run in the interpreter.
//
//===----------------------------------------------------------------------===//
#include "MlaGpuFixture.h"

using namespace tilemla;
using namespace tilemla::test;

namespace {
const std::vector<int32_t> kShortLens = {1, 0, 65, 300};
const SP kPolicies[] = {SP::Auto, SP::Fixed4, SP::BatchInvariant};

TEST_F(MlaGpuTest, VariantsCpAsync) {
  std::vector<Run> runs;
  for (int H : {16, 20, 64, 128})
    for (int page : {1, 16, 33, 64})
      for (SP policy : kPolicies)
        runs.push_back({mk(H, page, kShortLens, DType::BF16, H == 20), policy});
  // f16, and lse in q's dtype.
  runs.push_back({mk(16, 64, kShortLens, DType::F16), SP::Auto});
  runs.push_back(
      {mk(16, 64, kShortLens), SP::Auto, mla::LseDType::Query, Tuning{}});
  // The device schedule with the pieces merged in stage 1.
  Tuning merged;
  merged.schedule = mla::DeviceSchedule::Always;
  merged.mergeInStage1 = true;
  for (int H : {16, 20, 64})
    runs.push_back(
        {mk(H, 16, kShortLens), SP::Auto, mla::LseDType::F32, merged});
  family("every cp.async variant, short requests", runs);
}

TEST_F(MlaGpuTest, VariantsTma) {
  std::vector<Run> runs;
  for (int H : {64, 128})
    for (int page : {64, 128})
      for (SP policy : kPolicies) {
        MlaCase c = mk(H, page, kShortLens, DType::BF16, H == 64);
        c.contiguousPages = true;
        Tuning noProducer;
        noProducer.warpSpecialize = false;
        noProducer.scoreWarpgroup = false;
        runs.push_back({c, policy});
        runs.push_back({c, policy, mla::LseDType::F32, noProducer});
        if (H == 128) {
          Tuning producer, seesaw, halves;
          producer.scoreWarpgroup = false;
          seesaw.seesaw = true;
          halves.latentHalves = true;
          for (const Tuning &t : {producer, seesaw, halves})
            runs.push_back({c, policy, mla::LseDType::F32, t});
        }
      }
  // Persistent grids (two programs per SM, and 3 programs taking many
  // items), and the device schedule forced on and off.
  MlaCase c = mk(128, 64, kShortLens);
  c.contiguousPages = true;
  Tuning persistent, few, always, off, merged;
  persistent.persistentWaves = 2;
  few.persistentWaves = 1;
  few.numSMs = 3;
  always.schedule = mla::DeviceSchedule::Always;
  off.schedule = mla::DeviceSchedule::Off;
  merged.schedule = mla::DeviceSchedule::Always;
  merged.mergeInStage1 = true;
  for (const Tuning &t : {persistent, few, always, off, merged})
    runs.push_back({c, SP::Auto, mla::LseDType::F32, t});
  MlaCase f16 = mk(64, 64, kShortLens, DType::F16);
  f16.contiguousPages = true;
  runs.push_back({f16, SP::Auto});
  family("every TMA variant, short requests", runs);
}

TEST_F(MlaGpuTest, VariantsQueryTokensAndFp8) {
  std::vector<Run> runs;
  for (int H : {16, 64}) {
    MlaCase multi = mk(H, 16, {2, 0, 1, 130}, DType::BF16, true);
    multi.sq = 2;
    for (SP policy : kPolicies)
      runs.push_back({multi, policy});
  }
  for (int H : {16, 20, 128})
    for (SP policy : kPolicies) {
      MlaCase scaled = mk(H, 64, kShortLens);
      scaled.kvScale = 1.0 / 240;
      MlaCase ds = mk(H, 16, kShortLens);
      ds.dsMla = true;
      runs.push_back({scaled, policy});
      runs.push_back({ds, policy});
    }
  family("query tokens and fp8 caches, short requests", runs);
}
} // namespace
