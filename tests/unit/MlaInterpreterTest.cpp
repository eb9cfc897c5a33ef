//===- MlaInterpreterTest.cpp - MLA decode kernels in the interpreter -----===//
//
// Both stages of kernels/mla run in the tile-IR interpreter on small shapes
// (R and P reduced through their constexprs, and one case at the full
// R = 512, P = 64) and are compared with an fp64 reference
// (tests/common/MlaReference.h) on fresh random data; the seed is printed
// with every result. Outputs and the workspace are poisoned with NaN, so an
// unwritten output or a read of an empty split's slot fails, and every
// buffer has exactly its size, so any access a mask should have dropped is
// an out-of-bounds error.
//
// Tolerances: o row-relative error <= 1e-2 (bf16) / 2e-3 (f16): one rounding
// of the output (2^-9 / 2^-12 relative) plus p rounded to T for the PV dot;
// lse absolute error <= 1e-3 (f32 arithmetic on scores of size ~10).
//
//===----------------------------------------------------------------------===//
#include "../common/MlaReference.h"
#include "tilemla/Interpreter/Interpreter.h"
#include "tilemla/mla/DecodeSchedule.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace tilemla;
using namespace tilemla::test;
namespace interp = tilemla::interp;

namespace {
/// Reads kernels/mla/NAME, or $TILEMLA_MLA_DIR/NAME when set (to run these
/// tests against modified kernels).
std::string readKernel(const std::string &name) {
  const char *dir = std::getenv("TILEMLA_MLA_DIR");
  std::ifstream in(dir ? std::string(dir) + "/" + name
                       : std::string(TILEMLA_SOURCE_DIR) + "/kernels/mla/" +
                             name);
  if (!in)
    ADD_FAILURE() << "cannot read kernels/mla/" << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

interp::Kernel compile(const std::string &name,
                       std::map<std::string, std::string> defines,
                       const std::string &kernel = {}) {
  CompileOptions options;
  options.kernelName = kernel;
  options.defines = std::move(defines);
  options.numWarps = 8;
  return interp::Kernel(SourceFile("kernels/mla/" + name, readKernel(name)),
                        options);
}

struct Worst {
  double o = 0, lse = 0;
};

/// Runs stage 1 and stage 2 on `c` with `splits`; returns the errors.
/// `programs` > 0: stage 1 as that many persistent programs, each taking
/// the work items `programs` apart (0: a program per item). `parts` > 0:
/// the device schedule (mla_decode_stage1.tile's) with that many parts
/// instead of splits. `stage2Heads`: heads per stage-2 program.
/// `latentHalves`: the TMA variant streams the latent part in two halves.
/// `inStage1`: with `parts`, stage 1's program 0 makes the schedule
/// (SCHEDULE = 2), which must be the schedule kernel's, and stage 2 clears
/// its flag. `merge`: with `parts`,
/// stage 1 merges the pieces (MERGE = 1) and stage 2 does not run; the
/// arrival counts must be back at 0. `prefetch`: with `parts` and TMA,
/// stage 1 prefetches before its wait for the schedule (PREFETCH = 1).
MlaErrors runCase(const MlaCase &c, int splits, std::mt19937_64 &rng,
                  DType lseType = DType::F32, int programs = 0, int parts = 0,
                  int stage2Heads = 1, bool latentHalves = false,
                  bool inStage1 = false, bool merge = false,
                  bool prefetch = false) {
  MlaProblem p = makeMlaProblem(c, rng);
  MlaReference ref = mlaReference(p);
  const int B = c.B(), rows = c.rows(), headBlocks = (rows + 15) / 16;
  const bool scheduled = parts > 0;
  std::string t = dtypeName(c.type), s = std::to_string(splits),
              scheduleFlag = !scheduled ? "0"
                             : inStage1 ? "2"
                                        : "1";
  // Back-to-back pages: stage 1's TMA variant, its descriptor loads read
  // through pointers here; splits start on 16-token blocks.
  const bool tma = c.contiguousPages;
  const int chunkAlign = tma ? 16 : 1;
  int blockB = 32; // the schedule's batch tile
  while (blockB < B)
    blockB *= 2;
  interp::Kernel stage1 = compile("mla_decode_stage1.tile",
                                  {{"H", std::to_string(c.H)},
                                   {"R", std::to_string(c.R)},
                                   {"P", std::to_string(c.P)},
                                   {"PAGE", std::to_string(c.page)},
                                   {"BLOCK_H", "16"},
                                   {"BLOCK_N", "16"},
                                   {"TMA", tma ? "1" : "0"},
                                   {"CHUNK_ALIGN", std::to_string(chunkAlign)},
                                   {"SCHEDULE", scheduleFlag},
                                   {"LATENT_HALVES", latentHalves ? "1" : "0"},
                                   {"OVERHEAD", "2"},
                                   {"MIN_PIECE", "2"},
                                   {"SCHEDULE_BLOCK_B", std::to_string(blockB)},
                                   {"QUERY_LEN", std::to_string(c.sq)},
                                   {"MERGE", merge ? "1" : "0"},
                                   {"MERGE_COLS", "32"},
                                   {"PREFETCH", prefetch ? "1" : "0"},
                                   {"T", t},
                                   {"LSE_T", dtypeName(lseType)}});
  // Several split blocks and column blocks per (request, head).
  const int rBlock = std::min(c.R, 32);
  interp::Kernel stage2 = compile("mla_decode_stage2.tile",
                                  {{"H", std::to_string(c.H)},
                                   {"R", std::to_string(c.R)},
                                   {"SPLITS", s},
                                   {"SPLIT_BLOCK", "2"},
                                   {"R_BLOCK", std::to_string(rBlock)},
                                   {"BLOCK_H", std::to_string(stage2Heads)},
                                   {"CHUNK_ALIGN", std::to_string(chunkAlign)},
                                   {"SCHEDULE", scheduleFlag},
                                   {"QUERY_LEN", std::to_string(c.sq)},
                                   {"T", t},
                                   {"LSE_T", dtypeName(lseType)}});

  // The schedule (max_batch = B, the flag down); with splits it is never
  // read (one element, so any read is out of bounds).
  const size_t flag = mla::ScheduleLayout::flag(B);
  std::vector<int32_t> schedule(
      scheduled ? mla::ScheduleLayout::words(B, parts) : 1, -1);
  if (scheduled)
    schedule[flag] = 0;
  if (scheduled) {
    // Pieces of at least 2 blocks, so that short requests get several.
    compile("mla_decode_stage1.tile",
            {{"BLOCK_B", std::to_string(blockB)},
             {"BLOCK_N", "16"},
             {"OVERHEAD", "2"},
             {"MIN_PIECE", "2"}},
            "mla_decode_schedule")
        .launch({1, 1, 1},
                {interp::Arg::pointer(p.seqLens), interp::Arg::i32(B),
                 interp::Arg::i32(parts), interp::Arg::pointer(schedule),
                 interp::Arg::i32(B)});
    // Every request with tokens has pieces covering its blocks, and slots
    // numbered one after the other.
    int32_t slots = 0;
    for (int b = 0; b < B; ++b) {
      int32_t chunk = schedule[1 + B + b], n = schedule[1 + 2 * B + b];
      int32_t blocks = (c.lens[b] + 15) / 16;
      EXPECT_EQ(schedule[1 + 3 * B + b], slots) << "b=" << b;
      EXPECT_EQ(n > 0, blocks > 0) << "b=" << b;
      if (n > 0)
        EXPECT_TRUE((n - 1) * chunk < blocks && n * chunk >= blocks)
            << "b=" << b << " n=" << n << " chunk=" << chunk;
      slots += schedule[1 + 4 * B + b];
    }
    splits = std::max(1, slots); // workspace rows of `rows` partials each
  }
  // SCHEDULE = 2: stage 1 makes the schedule again, from scratch.
  std::vector<int32_t> made = schedule;
  if (inStage1) {
    std::fill(schedule.begin(), schedule.end(), -1);
    schedule[flag] = 0;
  }
  // With a schedule, rows are slots (splits = slot count, B = 1 below).
  const size_t wsRows = scheduled ? size_t(splits) : size_t(B) * splits;
  std::vector<float> wsO(wsRows * rows * c.R, NAN), wsLse(wsRows * rows, NAN);
  // o [B, sq, H, R] and lse [B, sq, H], contiguous.
  HostTensor o(c.type, size_t(B) * rows * c.R), lse(lseType, size_t(B) * rows);
  for (size_t i = 0; i < o.values.size(); ++i)
    o.set(i, NAN);
  for (size_t i = 0; i < lse.values.size(); ++i)
    lse.set(i, NAN);
  std::vector<int32_t> bt = p.blockTable, lens = p.seqLens;
  auto ptr = [](HostTensor &h, size_t offsetElems) {
    size_t off = offsetElems * dtypeBytes(h.type);
    return interp::Arg::pointer(h.bytes.data() + off, h.bytes.size() - off);
  };
  HostTensor &qpBuf = c.pair ? p.qp : p.qn;
  std::vector<int32_t> arrivals(size_t(B) * headBlocks, 0);
  stage1.launch(
      {unsigned(scheduled  ? parts * headBlocks
                : programs ? programs
                           : headBlocks * B * splits),
       1, 1},
      {ptr(p.qn, 0), ptr(qpBuf, size_t(p.qpOffset)), ptr(p.kv, 0),
       interp::Arg::tensorDesc(p.kv.bytes.data(), p.kv.bytes.size(),
                               int64_t(p.numPages) * c.page, c.R + c.P,
                               p.kvTokStride),
       interp::Arg::pointer(bt), interp::Arg::pointer(lens),
       interp::Arg::pointer(wsO), interp::Arg::pointer(wsLse), ptr(o, 0),
       ptr(lse, 0), interp::Arg::pointer(schedule), interp::Arg::i32(B),
       interp::Arg::i32(int(p.qnStrideB)), interp::Arg::i32(int(p.qnStrideH)),
       interp::Arg::i32(int(p.qpStrideB)), interp::Arg::i32(int(p.qpStrideH)),
       interp::Arg::i64(p.kvPageStride), interp::Arg::i32(int(p.kvTokStride)),
       interp::Arg::i32(p.btStride), interp::Arg::i32(rows * c.R),
       interp::Arg::i32(c.R), interp::Arg::i32(rows), interp::Arg::i32(1),
       interp::Arg::i32(int(p.qnStrideS)), interp::Arg::i32(int(p.qpStrideS)),
       interp::Arg::i32(c.H * c.R), interp::Arg::i32(c.H),
       interp::Arg::f32(float(c.scale)), interp::Arg::i32(B),
       interp::Arg::i32(scheduled ? 1 : splits),
       interp::Arg::f32(1.0f), // no kv scale (KV_SCALE = 0)
       interp::Arg::pointer(nullptr, 0),
       // fp8_ds_mla's views of the cache (KV_LAYOUT = 1 only)
       interp::Arg::pointer(nullptr, 0), interp::Arg::pointer(nullptr, 0),
       interp::Arg::pointer(arrivals)});
  for (size_t i = 0; i < arrivals.size(); ++i)
    EXPECT_EQ(arrivals[i], 0) << "arrival count " << i << " left set";
  if (!merge)
    stage2.launch({unsigned(B),
                   unsigned((rows + stage2Heads - 1) / stage2Heads),
                   unsigned(c.R / rBlock)},
                  {interp::Arg::pointer(wsO), interp::Arg::pointer(wsLse),
                   interp::Arg::pointer(lens), interp::Arg::pointer(schedule),
                   interp::Arg::i32(B), ptr(o, 0), ptr(lse, 0),
                   interp::Arg::i32(rows * c.R), interp::Arg::i32(c.R),
                   interp::Arg::i32(rows), interp::Arg::i32(1),
                   interp::Arg::i32(c.H * c.R), interp::Arg::i32(c.H)});
  o.decode();
  lse.decode();
  if (inStage1) {
    // The flag back at 0 (stage 2 clears it for the next call), the rest
    // the schedule kernel's.
    made[flag] = 0;
    EXPECT_EQ(schedule, made);
  }
  // Empty splits' workspace slots stay NaN (stage 1 wrote nothing there).
  for (int b = 0; b < B && !scheduled; ++b) {
    int L = c.lens[b], chunk = (L + splits - 1) / splits;
    chunk = (chunk + chunkAlign - 1) / chunkAlign * chunkAlign;
    for (int h = 0; h < rows; ++h)
      for (int i = 0; i < splits; ++i) {
        float v = wsLse[(size_t(b) * rows + h) * splits + i];
        bool empty = i * chunk >= L;
        EXPECT_EQ(std::isnan(v), empty)
            << "workspace lse of b=" << b << " h=" << h << " split=" << i
            << " L=" << L;
      }
  }
  MlaErrors e = mlaErrors(p, ref, o.values, lse.values);
  return e;
}

struct Family {
  std::string name;
  std::vector<MlaCase> cases;
  std::vector<int> splits;
  int programs = 0;    ///< persistent stage-1 programs (0: one per item)
  int parts = 0;       ///< > 0: the device schedule's parts instead of splits
  int stage2Heads = 1; ///< heads per stage-2 program
  bool latentHalves = false; ///< the latent part streamed in two halves
  bool inStage1 = false;     ///< stage 1 makes the schedule (SCHEDULE = 2)
  bool merge = false;        ///< stage 1 merges the pieces (MERGE = 1)
  bool prefetch = false;     ///< stage 1 prefetches first (PREFETCH = 1)
};

double oTolerance(DType t) { return t == DType::BF16 ? 1e-2 : 2e-3; }

void runFamilies(const std::vector<Family> &families) {
  uint64_t seed = freshSeed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("random seed " + std::to_string(seed));
  std::printf("[ mla ] seed %llu\n", (unsigned long long)seed);
  for (const Family &f : families) {
    Worst worst;
    auto start = std::chrono::steady_clock::now();
    for (const MlaCase &c : f.cases)
      for (int splits : f.splits) {
        SCOPED_TRACE(c.describe() + " splits=" + std::to_string(splits));
        MlaErrors e = runCase(c, splits, rng, DType::F32, f.programs, f.parts,
                              f.stage2Heads, f.latentHalves, f.inStage1,
                              f.merge, f.prefetch);
        EXPECT_LE(e.o, oTolerance(c.type)) << "at " << e.where;
        EXPECT_LE(e.lse, 1e-3);
        worst.o = std::max(worst.o, e.o);
        worst.lse = std::max(worst.lse, e.lse);
      }
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("[ mla ] %-28s worst o rel err %.3e  lse abs err %.3e  "
                "(%.1f s)\n",
                f.name.c_str(), worst.o, worst.lse, secs);
  }
}

MlaCase small(int H, int page, std::vector<int32_t> lens, DType t = DType::BF16,
              bool pair = false) {
  MlaCase c;
  c.H = H, c.R = 64, c.P = 16, c.page = page, c.lens = std::move(lens);
  c.type = t, c.pair = pair;
  return c;
}

TEST(MlaInterpreter, PageSizes) {
  runFamilies({{"page sizes 1/16/33",
                {small(16, 1, {37, 5}), small(16, 16, {100, 17}),
                 small(16, 33, {99, 34, 1})},
                {4}}});
}

TEST(MlaInterpreter, HeadCounts) {
  runFamilies(
      {{"heads 1/16/20",
        {small(1, 16, {50, 3}), small(16, 16, {40}), small(20, 7, {61, 2})},
        {1, 4}}});
}

TEST(MlaInterpreter, ShortAndEmptyLengths) {
  // 0: o = 0, lse = -inf; 1 and 3 < splits: empty splits never read.
  runFamilies({{"lengths 0/1/3 (< splits)",
                {small(16, 16, {0}), small(16, 16, {1, 0, 3}),
                 small(20, 1, {3, 1}), small(1, 33, {0, 0})},
                {1, 4, 8}}});
}

TEST(MlaInterpreter, RaggedBatchAndPair) {
  runFamilies({{"ragged, shuffled, q pair, long",
                {small(16, 16, {100, 0, 1, 37, 64, 3}, DType::BF16, true),
                 small(20, 33, {97, 5, 0, 66}, DType::F16, true),
                 small(16, 1, {30, 9}, DType::F16, false),
                 small(16, 64, {1000, 513, 2}, DType::BF16, true)},
                {4}}});
}

TEST(MlaInterpreter, TmaVariant) {
  // Stage 1 as it runs with TMA on sm_90a (whole 16-token blocks of one
  // page, NaN past each request's end), interpreted: splits aligned to
  // blocks, rows past the end read as zero.
  std::vector<MlaCase> cases = {small(16, 16, {100, 0, 1, 37, 64, 3}),
                                small(20, 32, {97, 5, 0, 66}, DType::F16, true),
                                small(16, 64, {1000, 513, 2})};
  for (MlaCase &c : cases)
    c.contiguousPages = true;
  runFamilies({{"TMA variant, contiguous pages", cases, {1, 4}},
               {"TMA variant, 3 persistent programs", cases, {1, 4}, 3}});
}

TEST(MlaInterpreter, TmaVariantByLatentHalves) {
  // LATENT_HALVES: the latent part streamed, multiplied and accumulated in
  // two halves of R / 2 columns (each half's rows past the end zeroed),
  // written in two halves; with a negative scale (q negated, all three
  // parts), the device schedule and whole requests written directly.
  std::vector<MlaCase> cases = {small(16, 16, {100, 0, 1, 37, 64, 3}),
                                small(20, 32, {97, 5, 0, 66}, DType::F16, true),
                                small(16, 64, {1000, 513, 2})};
  for (MlaCase &c : cases)
    c.contiguousPages = true;
  cases[1].scale = -cases[1].scale;
  Family halves{"TMA variant, latent halves", cases, {1, 4}, 3};
  halves.latentHalves = true;
  Family scheduled{"TMA latent halves, schedule", cases, {1}, 0, 7};
  scheduled.latentHalves = true;
  runFamilies({halves, scheduled});
}

TEST(MlaInterpreter, TmaVariantPrefetchingWhileScheduled) {
  // PREFETCH: before its wait for the schedule, stage 1 reads seq_lens,
  // the block table and q's address to prefetch what a uniform batch
  // would give it first; the guess is right for the uniform batch, wrong
  // for the ragged ones and for more requests than parts, and must not
  // change a result (the interpreter checks each read's bounds).
  std::vector<MlaCase> cases = {small(16, 16, {100, 0, 1, 37, 64, 3}),
                                small(20, 32, {97, 5, 0, 66}, DType::F16, true),
                                small(16, 16, {64, 64, 64, 64})};
  for (MlaCase &c : cases)
    c.contiguousPages = true;
  Family many{"TMA prefetch, 9 parts", cases, {1}, 0, 9};
  Family few{"TMA prefetch, 2 parts", cases, {1}, 0, 2};
  many.prefetch = few.prefetch = true;
  runFamilies({many, few});
}

/// The device schedule's families: parts that cross requests, requests cut
/// into many pieces, empty requests (also first and last), idle parts (more
/// parts than token blocks), stage 2 with several heads per program (H=20:
/// a partial last group), TMA's aligned blocks; the schedule made by its
/// kernel or (`inStage1`) by stage 1 itself; (`merge`) no stage 2.
std::vector<Family> scheduleFamilies(const std::string &name, bool inStage1,
                                     bool merge = false) {
  std::vector<MlaCase> cases = {
      small(16, 16, {100, 0, 1, 37, 64, 3}),
      small(20, 33, {0, 97, 5, 0, 66, 0}, DType::F16, true),
      small(16, 64, {1000, 513, 2}), small(16, 16, {0, 0}), small(1, 1, {5})};
  std::vector<MlaCase> tma = {small(16, 16, {100, 0, 1, 37, 64, 3}),
                              small(16, 64, {1000, 513, 2})};
  for (MlaCase &c : tma)
    c.contiguousPages = true;
  std::vector<Family> families = {
      {name + ", 1 part", cases, {1}, 0, 1},
      {name + ", 3 parts", cases, {1}, 0, 3},
      {name + ", 40 parts", cases, {1}, 0, 40},
      {name + ", 8-head merges", cases, {1}, 0, 3, 8},
      {name + ", TMA variant", tma, {1}, 0, 7}};
  for (Family &f : families) {
    f.inStage1 = inStage1;
    f.merge = merge;
  }
  return families;
}

TEST(MlaInterpreter, DeviceSchedule) {
  // The schedule kernel, then both stages reading it.
  runFamilies(scheduleFamilies("device schedule", false));
}

TEST(MlaInterpreter, ScheduleMadeInStage1) {
  // SCHEDULE = 2: stage 1's program 0 makes the schedule (both cuts: one
  // piece per part with few requests and many parts, by cost otherwise)
  // and raises its flag, for which the other programs wait (the
  // interpreter reports a wait nothing raised); it must equal the schedule
  // kernel's, o and lse the reference, and stage 2 lowers the flag.
  runFamilies(scheduleFamilies("in stage 1", true));
}

TEST(MlaInterpreter, PiecesMergedInStage1) {
  // MERGE = 1: the last program of a request's pieces (per head block)
  // merges them, counted by atomic_add; requests without tokens are
  // written by stage 1; no stage 2. Several query tokens too (rows that
  // see no token of a piece).
  std::vector<Family> families =
      scheduleFamilies("merged in stage 1", false, true);
  MlaCase tokens = small(16, 16, {100, 0, 3, 70});
  tokens.sq = 3;
  families.push_back({"merged, 3 query tokens", {tokens}, {1}, 0, 5});
  families.back().merge = true;
  runFamilies(families);
}

TEST(MlaInterpreter, MultiTokenCausal) {
  // QUERY_LEN: s_q query tokens per request, token j seeing the request's
  // first L - s_q + j + 1 tokens. Lengths below s_q (rows that see nothing:
  // o = 0, lse = -inf), chunks that start within the last s_q - 1 tokens
  // (rows with no visible token in a chunk that has some: lse = -inf
  // partials stage 2 must weigh 0), H = 20 (a token's rows cross head
  // blocks), the pair, TMA blocks, persistent programs, the device schedule
  // made by its kernel and by stage 1, merges of 8 rows.
  auto tokens = [](MlaCase c, int sq) {
    c.sq = sq;
    return c;
  };
  std::vector<MlaCase> cases = {
      tokens(small(16, 16, {17, 0, 1, 2, 3, 100}), 4),
      tokens(small(20, 7, {61, 2, 5}, DType::F16, true), 3),
      tokens(small(1, 1, {2, 9, 8}), 8), tokens(small(16, 33, {66, 34}), 2)};
  std::vector<MlaCase> tma = {tokens(small(16, 16, {33, 3, 0, 64, 17}), 4),
                              tokens(small(20, 32, {97, 5, 66}), 2)};
  for (MlaCase &c : tma)
    c.contiguousPages = true;
  Family inStage1{"s_q, made in stage 1", cases, {1}, 0, 3};
  inStage1.inStage1 = true;
  runFamilies({{"s_q 2..8", cases, {1, 3, 4, 8}},
               {"s_q, TMA variant", tma, {1, 4}, 3},
               {"s_q, device schedule", cases, {1}, 0, 3},
               {"s_q, 8-row merges", cases, {1}, 0, 40, 8},
               inStage1});
}

TEST(MlaInterpreter, PeakySoftmax) {
  // A large scale: most weight on a few tokens (online-softmax rescaling).
  MlaCase c = small(16, 16, {120, 7});
  c.scale = 1.0;
  runFamilies({{"peaky softmax (scale 1)", {c}, {2}}});
}

TEST(MlaInterpreter, FullRankSmallLength) {
  MlaCase c;
  c.H = 20, c.R = 512, c.P = 64, c.page = 16, c.lens = {19, 0, 3, 130};
  c.pair = true;
  MlaCase d = c;
  d.H = 16, d.page = 33, d.lens = {300, 1, 64}, d.pair = false;
  d.type = DType::F16;
  runFamilies({{"R=512 P=64", {c, d}, {1, 4}}});
}

TEST(MlaInterpreter, LseInQueryDtype) {
  uint64_t seed = freshSeed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("random seed " + std::to_string(seed));
  MlaCase c = small(16, 16, {40, 0});
  MlaErrors e = runCase(c, 4, rng, DType::BF16);
  EXPECT_LE(e.o, 1e-2);
  EXPECT_LE(e.lse, 0.05) << "lse rounded to bf16 (|lse| ~ 5: ulp 2^-5)";
}
} // namespace
