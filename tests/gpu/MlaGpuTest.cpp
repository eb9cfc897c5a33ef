//===- MlaGpuTest.cpp - TritonMLAImpl::forward_decode vs an fp64 reference ===//
//
// The MLA decode backend at full size (R = 512, P = 64) through its public
// API on device buffers, against the multithreaded fp64 CPU reference of
// tests/common/MlaReference.h (sequences over 8192 tokens: an nvrtc-compiled
// fp32 reference kernel, NvrtcMlaReference.h) (fresh random data, seed printed;
// padded and shuffled caches; outputs poisoned with NaN before each run).
// Families: dtypes x page sizes, head counts, lengths (0, 1, 3 < splits, 4096,
// 70000) under every split policy, q as a pair, lse in q's dtype. The worst
// errors of each family are printed ("[ mla ] ...").
//
// Skipped without a GPU; with TILEMLA_INTERPRET=1 it runs in the interpreter
// on the CPU, with the long cases (> 1000 tokens, 128 heads) left out.
//
// Tolerances: o row-relative error (|got - want| / max|want| over the row)
// <= 1e-2 for bf16, 2e-3 for f16; lse absolute error <= 1e-3 (f32), 5e-2
// when lse is stored in bf16/f16 (its rounding for |lse| ~ 10).
//
//===----------------------------------------------------------------------===//
#include "MlaGpuFixture.h"

using namespace tilemla;
using namespace tilemla::test;

namespace {

TEST_F(MlaGpuTest, DtypesAndPageSizes) {
  std::vector<Run> runs;
  for (DType t : {DType::F16, DType::BF16})
    for (int page : {1, 16, 64, 33})
      runs.push_back(
          {mk(16, page, {1, 3, 0, 200, 777}, t, page == 33), SP::Fixed4});
  family("dtypes f16/bf16 x pages 1/16/64/33", runs);
}

TEST_F(MlaGpuTest, HeadCounts) {
  std::vector<Run> runs;
  for (int H : {1, 16, 20, 128})
    runs.push_back(
        {mk(H, 64, {4096, 3, 0, 1, 500}, DType::BF16, H == 20), SP::Fixed4});
  runs.push_back({mk(20, 33, {300, 2}, DType::F16), SP::Auto});
  family("heads 1/16/20/128", runs);
}

TEST_F(MlaGpuTest, LengthsAndSplitPolicies) {
  std::vector<Run> runs;
  for (SP policy : {SP::Fixed4, SP::BatchInvariant, SP::Auto}) {
    runs.push_back({mk(16, 64, {0}), policy});
    runs.push_back({mk(16, 64, {1, 3, 0, 2}), policy});
    runs.push_back(
        {mk(16, 64, {4096, 4096, 1, 4095}, DType::BF16, true), policy});
    runs.push_back({mk(16, 64, {70000, 3, 4096}, DType::F16), policy});
    runs.push_back({mk(16, 33, {70000}, DType::BF16, true), policy});
    runs.push_back({mk(16, 16, {100, 257, 0, 3}), policy}); // interpreter-sized
  }
  family("lengths 0/1/3/4096/70000 x policies", runs);
}

TEST_F(MlaGpuTest, RaggedShuffledBatch) {
  std::vector<int32_t> lens = raggedLens(24, 3000);
  std::vector<Run> runs = {{mk(16, 64, lens, DType::BF16, true), SP::Auto},
                           {mk(20, 33, lens, DType::F16), SP::Fixed4},
                           {mk(16, 16, {600, 0, 1, 999, 3}), SP::Auto}};
  family("ragged batch of 24, shuffled pages", runs);
}

TEST_F(MlaGpuTest, ManyProgramsShareSMs) {
  // 96 requests x 4 splits: at least 1.5 programs per SM, so 16-head blocks
  // take 32-token steps over 2 warps (two programs per SM).
  std::vector<int32_t> lens;
  std::uniform_int_distribution<int> len(0, 700);
  for (int b = 0; b < 96; ++b)
    lens.push_back(b % 7 == 0 ? b % 3 : len(rng));
  family("96 requests, two programs per SM",
         {{mk(16, 64, lens, DType::BF16, true), SP::Auto},
          {mk(16, 16, lens, DType::F16), SP::Fixed4}});
}

TEST_F(MlaGpuTest, TuningOptions) {
  // Other token blocks, pipeline depths (1: not pipelined), warp counts and
  // head blocks than the defaults: each is a different stage-1 kernel.
  std::vector<int32_t> lens = {1, 63, 64, 65, 3000, 0, 129};
  std::vector<Run> runs;
  for (Tuning t : {Tuning{0, 1, 0, 0}, Tuning{32, 4, 0, 0}, Tuning{16, 3, 2, 0},
                   Tuning{32, 2, 2, 16}, Tuning{128, 1, 8, 0},
                   Tuning{32, 2, 8, 64}, Tuning{0, 0, 8, 32}})
    runs.push_back(
        {mk(40, 64, lens, DType::BF16, true), SP::Auto, mla::LseDType::F32, t});
  runs.push_back({mk(128, 16, {700, 5}, DType::F16), SP::Fixed4,
                  mla::LseDType::F32, Tuning{32, 2, 8, 64}});
  family("token blocks, stages, warps, head blocks", runs);
}

TEST_F(MlaGpuTest, TmaStreamsContiguousPages) {
  // On sm_90a, 64-head blocks over a cache of back-to-back pages read it
  // with TMA: splits start on token blocks, rows past a request's end (NaN
  // here) read as zero. 32-token blocks take two per page.
  std::vector<int32_t> lens = {1, 63, 64, 65, 3000, 0, 129, 4096};
  std::vector<Run> runs;
  for (int H : {64, 128})
    for (int page : {64, 128})
      for (SP policy : {SP::Auto, SP::Fixed4, SP::BatchInvariant}) {
        MlaCase c = mk(H, page, lens, DType::BF16, H == 64);
        c.contiguousPages = true;
        runs.push_back({c, policy});
      }
  MlaCase c = mk(128, 64, {777, 5, 64}, DType::F16);
  c.contiguousPages = true;
  runs.push_back({c, SP::Fixed4, mla::LseDType::F32, Tuning{32, 3, 0, 0}});
  // 20 requests x 2 head blocks: Auto's default is the device schedule.
  std::vector<int32_t> many;
  std::uniform_int_distribution<int> len(0, 5000);
  for (int b = 0; b < 20; ++b)
    many.push_back(b % 7 == 3 ? 0 : len(rng));
  MlaCase wide = mk(128, 64, many, DType::BF16, true);
  wide.contiguousPages = true;
  runs.push_back({wide, SP::Auto});
  // The same without the producer warpgroup (the compute warps issue the
  // copies: the other TMA kernel), and with it on a persistent grid: a
  // program per SM, and 3 programs, so that each takes many items (empty
  // ones too) and its stage ring goes on across them. At H = 128 the
  // default is a score warpgroup instead of the producer: the producer's
  // kernel runs too, and the seesaw's (TritonMLAOptions::seesaw).
  // Auto on the device schedule (schedule=always: these batches are below
  // its default threshold) and with host-side splits (schedule=off); sms=3
  // gives each part many requests (H=128: one part).
  for (size_t i = 0, n = runs.size(); i < n; ++i) {
    Run plain = runs[i], persistent = runs[i], few = runs[i];
    plain.tuning.warpSpecialize = false;
    plain.tuning.scoreWarpgroup = false;
    if (runs[i].c.H == 128) {
      Run producer = runs[i], seesaw = runs[i];
      producer.tuning.scoreWarpgroup = false;
      runs.push_back(producer);
      seesaw.tuning.seesaw = true;
      runs.push_back(seesaw);
    }
    persistent.tuning.persistentWaves = 2;
    few.tuning.persistentWaves = 1;
    few.tuning.numSMs = 3;
    runs.push_back(plain);
    runs.push_back(persistent);
    runs.push_back(few);
    if (runs[i].policy == SP::Auto) {
      Run hostSplits = runs[i], scheduled = runs[i], scheduledFew = few;
      hostSplits.tuning.schedule = mla::DeviceSchedule::Off;
      scheduled.tuning.schedule = scheduledFew.tuning.schedule =
          mla::DeviceSchedule::Always;
      runs.push_back(hostSplits);
      runs.push_back(scheduled);
      runs.push_back(scheduledFew);
    }
  }
  // Planned for 200 SMs: stage 2 merges 2 heads per program (4 with the
  // H200's 132, 8 with 3 SMs above).
  Tuning moreSMs;
  moreSMs.numSMs = 200;
  runs.push_back({wide, SP::Auto, mla::LseDType::F32, moreSMs});
  family("TMA: H 64/128 x pages 64/128 x policies, with and without a "
         "producer warpgroup, persistent or not",
         runs);
}

TEST_F(MlaGpuTest, ExactBlockTables) {
  // Block tables with no entry past the longest request's pages, the last
  // request the longest, its length a whole number of token blocks: the
  // pipelined loops' reads ahead (the page ids of the blocks after a
  // request's last) must stay within the table. Under compute-sanitizer's
  // memcheck (scripts/sanitize.sh) a read past it is an error; cp.async with
  // a page id per token block and per token, and TMA.
  std::vector<int32_t> lens = {64, 129, 700, 960};
  std::vector<Run> runs;
  for (int H : {16, 64, 128})
    for (int page : {16, 64})
      for (SP policy : {SP::Auto, SP::Fixed4}) {
        MlaCase c = mk(H, page, lens);
        c.exactTable = true;
        c.contiguousPages = H != 16;
        runs.push_back({c, policy});
      }
  family("block tables without padding", runs);
}

TEST_F(MlaGpuTest, ScoreWarpgroupHasLoopsOfItsOwn) {
  // tile-split-roles: the score tiles and softmax on a third compute
  // warpgroup that hands p and the row scales to the two that accumulate
  // through the TMA stages, q the other way, the row sums after the loop.
  // Ragged lengths with partial last blocks and empty requests, every
  // policy, persistent grids of few programs (the hand-overs' phases go on
  // across items), kv_lora_rank 512 and 256, f16.
  std::vector<int32_t> lens = {1, 63, 64, 65, 3000, 0, 129, 4096, 200};
  std::vector<Run> runs;
  auto add = [&](MlaCase c, SP policy, Tuning tuning = {}) {
    c.contiguousPages = true;
    runs.push_back({c, policy, mla::LseDType::F32, tuning});
  };
  for (SP policy : {SP::Auto, SP::Fixed4, SP::BatchInvariant})
    for (int page : {64, 128})
      add(mk(128, page, lens, DType::BF16, page == 64), policy);
  Tuning few;
  few.persistentWaves = 1;
  few.numSMs = 3;
  add(mk(128, 64, lens), SP::Fixed4, few);
  Tuning scheduled;
  scheduled.schedule = mla::DeviceSchedule::Always;
  add(mk(128, 64, lens), SP::Auto, scheduled);
  MlaCase narrow = mk(128, 64, {777, 5, 64, 2048});
  narrow.R = 256;
  add(narrow, SP::Fixed4);
  add(mk(128, 64, {777, 5, 64, 2048}, DType::F16), SP::Fixed4);
  // The seesaw (experimental, TmaStreamsContiguousPages has its matrix):
  // there rank 256, f16, and a persistent grid whose pairs of blocks start
  // on either stage of the ring.
  Tuning seesaw, seesawFew = few;
  seesaw.seesaw = seesawFew.seesaw = true;
  add(narrow, SP::Fixed4, seesaw);
  add(mk(128, 64, {777, 5, 64, 2048}, DType::F16), SP::Fixed4, seesaw);
  add(mk(128, 64, lens), SP::Fixed4, seesawFew);
  family("TMA score warpgroup: H 128 x pages x policies", runs);
}

TEST_F(MlaGpuTest, LatentHalvesOnEveryTmaKernel) {
  // TritonMLAOptions::latentHalves (an experiment): the latent part
  // streamed as two halves with a barrier each, p . V as two dots, on each
  // TMA kernel: the producer's (H=64, and H=128 without a score
  // warpgroup), the score warpgroup's and the seesaw's; partial last
  // blocks, empty requests, every policy, a persistent grid of few
  // programs, the device schedule, rank 256 and f16.
  std::vector<int32_t> lens = {1, 63, 64, 65, 3000, 0, 129, 4096, 200};
  std::vector<Run> runs;
  auto add = [&](MlaCase c, SP policy, Tuning tuning) {
    c.contiguousPages = true;
    tuning.latentHalves = true;
    runs.push_back({c, policy, mla::LseDType::F32, tuning});
  };
  Tuning scoreWarpgroup, producer, seesaw, few, scheduled;
  producer.scoreWarpgroup = false;
  seesaw.seesaw = true;
  few.persistentWaves = 1;
  few.numSMs = 3;
  scheduled.schedule = mla::DeviceSchedule::Always;
  MlaCase narrow = mk(128, 64, {777, 5, 64, 2048});
  narrow.R = 256;
  for (int H : {64, 128}) {
    for (SP policy : {SP::Auto, SP::Fixed4, SP::BatchInvariant})
      add(mk(H, 64, lens, DType::BF16, true), policy, scoreWarpgroup);
    add(mk(H, 128, lens, DType::F16), SP::Fixed4, few);
    add(mk(H, 64, lens), SP::Auto, scheduled);
  }
  for (const Tuning &tuning : {producer, seesaw}) {
    add(mk(128, 64, lens), SP::Auto, tuning);
    add(narrow, SP::Fixed4, tuning);
  }
  add(narrow, SP::Fixed4, scoreWarpgroup);
  Tuning seesawFew = few;
  seesawFew.seesaw = true;
  add(mk(128, 64, lens, DType::F16), SP::Fixed4, seesawFew);
  family("TMA latent halves: H 64/128 x kernels x policies", runs);
}

/// Ragged lengths for the device schedule's tests: 20 requests of up to
/// 3,000 tokens with empty ones and ones of a token, and 40 of them (twice
/// over) with a long one (40,000): what Default schedules from 32 requests.
std::pair<std::vector<int32_t>, std::vector<int32_t>>
scheduleLens(std::mt19937_64 &rng) {
  std::vector<int32_t> lens;
  std::uniform_int_distribution<int> len(0, 3000);
  for (int b = 0; b < 20; ++b)
    lens.push_back(b % 6 == 0 ? b % 4 : len(rng));
  std::vector<int32_t> many = lens;
  many.insert(many.end(), lens.begin(), lens.end());
  many[7] = 40000;
  return {lens, many};
}

TEST_F(MlaGpuTest, DeviceScheduleOnEveryKernel) {
  // The device schedule forced onto the other stage-1 kernels (cp.async,
  // 16/32/64-head blocks): ragged lengths with empty requests, a long one
  // cut into many pieces, and few SMs (each part takes many requests).
  // (The TMA kernels: DeviceScheduleOnTmaKernels; two tests, so that the
  // sanitizers can take them one at a time.)
  const auto [lens, many] = scheduleLens(rng);
  std::vector<Run> runs;
  Tuning always, fewSMs, wideHeads;
  always.schedule = fewSMs.schedule = wideHeads.schedule =
      mla::DeviceSchedule::Always;
  fewSMs.numSMs = 3;
  wideHeads.headBlock = 64;
  wideHeads.warps = 8;
  for (const Tuning &t : {always, fewSMs}) {
    runs.push_back(
        {mk(16, 64, lens, DType::BF16, true), SP::Auto, mla::LseDType::F32, t});
    runs.push_back({mk(20, 33, {0, 70000, 5, 0}, DType::F16), SP::Auto,
                    mla::LseDType::F32, t});
    runs.push_back(
        {mk(16, 1, {0}, DType::BF16), SP::Auto, mla::LseDType::F32, t});
    runs.push_back({mk(16, 16, {100, 257, 0, 3}), SP::Auto, mla::LseDType::F32,
                    t}); // interpreter-sized
  }
  runs.push_back({mk(128, 16, lens, DType::BF16), SP::Auto, mla::LseDType::F32,
                  wideHeads});
  // What Default schedules on sm_90a: 16-head programs, two per SM, from 32
  // requests (a long one among short ones and zeros).
  runs.push_back({mk(16, 64, many, DType::BF16), SP::Auto});
  // The same with the schedule made inside stage 1
  // (TritonMLAOptions::scheduleInStage1).
  // And with the pieces merged in stage 1 (TritonMLAOptions::mergeInStage1,
  // no stage 2), on the same runs.
  // And with another cost model: entering a request costs 6 blocks and
  // pieces may be a single block (more parts cut requests anywhere).
  for (size_t i = 0, n = runs.size(); i < n; ++i) {
    Run inStage1 = runs[i], merged = runs[i], costly = runs[i];
    inStage1.tuning.scheduleInStage1 = true;
    merged.tuning.mergeInStage1 = true;
    costly.tuning.scheduleOverhead = 6;
    costly.tuning.scheduleMinPiece = 1;
    runs.push_back(inStage1);
    runs.push_back(merged);
    runs.push_back(costly);
    costly.tuning.scheduleInStage1 = true;
    runs.push_back(costly);
  }
  // A per-tensor fp8 cache, its codes read in place by the dots (f16 by
  // default, bf16 forced), as Default schedules it and on 3 SMs.
  MlaCase codes = mk(16, 64, many, DType::BF16);
  codes.kvScale = 1.0 / 240;
  Tuning bf16Dots, codesFewSMs = fewSMs;
  bf16Dots.f16Dots = false;
  runs.push_back({codes, SP::Auto});
  runs.push_back({codes, SP::Auto, mla::LseDType::F32, bf16Dots});
  runs.push_back({codes, SP::Auto, mla::LseDType::F32, codesFewSMs});
  codesFewSMs.f16Dots = false;
  runs.push_back({codes, SP::Auto, mla::LseDType::F32, codesFewSMs});
  // The same in the default tiles on shared SMs (wideFp8Tiles, here from
  // one token on).
  Tuning wide, wideFewSMs = fewSMs;
  wide.wideFp8Tiles = wideFewSMs.wideFp8Tiles = 1;
  runs.push_back({codes, SP::Auto, mla::LseDType::F32, wide});
  runs.push_back({codes, SP::Auto, mla::LseDType::F32, wideFewSMs});
  family("device schedule on every cp.async stage-1 kernel", runs);
}

TEST_F(MlaGpuTest, DeviceScheduleOnTmaKernels) {
  // The device schedule on the TMA kernels of 64 and 128 heads (the
  // producer replays the walks; the score warpgroup's roles both run
  // them), made by a kernel or in stage 1, merged by stage 2 or stage 1,
  // with and without prefetching, as one graph or launch by launch.
  if (isInterpreterMode())
    GTEST_SKIP() << "each case is larger than the interpreter takes";
  const std::vector<int32_t> many = scheduleLens(rng).second;
  std::vector<Run> runs;
  Tuning always;
  always.schedule = mla::DeviceSchedule::Always;
  for (int H : {64, 128}) {
    MlaCase c = mk(H, 64, many, DType::BF16);
    c.contiguousPages = true;
    Tuning tuning = always;
    tuning.scheduleInStage1 = true;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, tuning});
    tuning.numSMs = 3;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, tuning});
    Tuning merged = always;
    merged.mergeInStage1 = true;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, merged});
    merged.numSMs = 3;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, merged});
    // Prefetching while the schedule is made (the default there; the
    // guess right for the uniform batch, wrong for the ragged one; neither
    // may change o), and without it.
    Tuning noPrefetch = always;
    noPrefetch.prefetch = false;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, noPrefetch});
    MlaCase uniform = mk(H, 64, std::vector<int32_t>(32, 700), DType::BF16);
    uniform.contiguousPages = true;
    runs.push_back({uniform, SP::Auto, mla::LseDType::F32, always});
    runs.push_back({uniform, SP::Auto, mla::LseDType::F32, noPrefetch});
    // The call's kernels as one CUDA graph (TritonMLAOptions::launchAsGraph;
    // each run calls twice), three of them and, with the schedule made in
    // stage 1, two.
    Tuning graph = always;
    graph.launchAsGraph = true;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, graph});
    runs.push_back({uniform, SP::Auto, mla::LseDType::F32, graph});
    graph.scheduleInStage1 = true;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, graph});
    // And a launch per kernel (the graph is the default).
    Tuning direct = always;
    direct.launchAsGraph = false;
    runs.push_back({c, SP::Auto, mla::LseDType::F32, direct});
  }
  Tuning graph16 = always;
  graph16.launchAsGraph = true;
  runs.push_back(
      {mk(16, 64, many, DType::BF16), SP::Auto, mla::LseDType::F32, graph16});
  family("device schedule on the TMA stage-1 kernels", runs);
}

TEST_F(MlaGpuTest, LseInQueryDtype) {
  family(
      "lse in q's dtype",
      {{mk(16, 64, {4096, 0, 5}), SP::Fixed4, mla::LseDType::Query},
       {mk(16, 16, {300, 0, 5}, DType::F16), SP::Auto, mla::LseDType::Query}});
}

TEST_F(MlaGpuTest, PeakySoftmax) {
  MlaCase c = mk(16, 64, {4096, 100, 7});
  c.scale = 0.5; // scores of std ~4: a few tokens dominate
  MlaCase d = c;
  d.lens = {300, 7};
  family("peaky softmax (scale 0.5)", {{c, SP::Auto}, {d, SP::Fixed4}});
}

// The kernels take the running maximum over unscaled scores: a negative
// scale (the softmax of -|scale| q.k) and a zero one (uniform weights) must
// still be right, on the cp.async path and the warp-specialized TMA one.
TEST_F(MlaGpuTest, NegativeAndZeroScale) {
  std::vector<Run> runs;
  for (double scale : {-0.5, -0.0416, 0.0})
    for (int H : {16, 128}) {
      MlaCase c = mk(H, 64, {1000, 7, 0, 129});
      c.scale = scale;
      c.contiguousPages = H == 128;
      runs.push_back({c, H == 16 ? SP::Fixed4 : SP::Auto});
    }
  family("negative and zero scales", runs);
}
} // namespace

namespace {
// The long-sequence reference must itself agree with the fp64 one.
TEST(MlaReferenceTest, NvrtcReferenceAgreesWithFp64) {
  if (!nvrtcReferenceAvailable())
    GTEST_SKIP() << "needs a GPU and nvrtc: " << detail::referenceProblem();
  std::mt19937_64 rng(freshSeed());
  MlaCase c;
  c.H = 16, c.page = 33, c.lens = {4096, 0, 17, 1};
  MlaProblem p = makeMlaProblem(c, rng);
  MlaReference gpu = nvrtcMlaReference(p);
  MlaErrors e = mlaErrors(p, mlaReference(p), gpu.o, gpu.lse);
  EXPECT_LE(e.o, 1e-4) << e.where;
  EXPECT_LE(e.lse, 1e-4);
  std::printf("[ mla ] nvrtc fp32 reference vs fp64: o %.3e  lse %.3e\n", e.o,
              e.lse);
}
} // namespace
