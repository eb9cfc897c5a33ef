//===- MlaScheduleTest.cpp - the MLA device schedule on adversarial batches
//===//
//
// kernels/mla/mla_decode_stage1.tile's mla_decode_schedule runs in the
// interpreter with the backend's constants (64-token blocks, the default cost
// of entering a request and shortest piece, 132 parts) on length mixes meant to
// break a schedule; the test then reads the schedule as stage 1 and stage 2 do
// and checks it:
//   - coverage: every token of every request is in exactly one part's range;
//   - slots: request b's parts write slots first_b .. first_b + count_b - 1,
//     each once, numbered one request after the other, at most B + parts;
//   - balance: no part costs (token blocks plus the entry cost per request
//     it enters) more than kMaxImbalance times the mean, or the one-piece
//     minimum (MIN_PIECE blocks plus the entry) when there is less work
//     than parts.
// Each mix prints its parts' cost spread ("[ schedule ] ...").
//
//===----------------------------------------------------------------------===//
#include "tilemla/Interpreter/Interpreter.h"
#include "tilemla/mla/TritonMLA.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

using namespace tilemla;
namespace interp = tilemla::interp;

namespace {
// The backend's defaults, so that the test checks what ships.
constexpr int kBlock = 64, kParts = 132;
constexpr int kOverhead = mla::TritonMLAImpl::kScheduleOverheadBlocks;
constexpr int kMinPiece = mla::TritonMLAImpl::kScheduleMinPieceBlocks;
constexpr double kMaxImbalance = 1.25;

/// The schedule, read back: per part, its (request, first token, end token)
/// ranges and slots.
struct Range {
  int b;
  int64_t start, end;
  int slot;
};

std::vector<int32_t> runSchedule(const std::vector<int32_t> &lens, int parts) {
  const int B = int(lens.size());
  int blockB = 32;
  while (blockB < B)
    blockB *= 2;
  std::ifstream in(std::string(TILEMLA_SOURCE_DIR) +
                   "/kernels/mla/mla_decode_stage1.tile");
  std::stringstream source;
  source << in.rdbuf();
  CompileOptions options;
  options.kernelName = "mla_decode_schedule";
  options.defines = {{"BLOCK_B", std::to_string(blockB)},
                     {"BLOCK_N", std::to_string(kBlock)},
                     {"OVERHEAD", std::to_string(kOverhead)},
                     {"MIN_PIECE", std::to_string(kMinPiece)}};
  options.numWarps = 8;
  interp::Kernel kernel(
      SourceFile("kernels/mla/mla_decode_stage1.tile", source.str()), options);
  std::vector<int32_t> schedule(mla::ScheduleLayout::words(B, parts), -7);
  std::vector<int32_t> seqLens = lens;
  kernel.launch({1, 1, 1},
                {interp::Arg::pointer(seqLens), interp::Arg::i32(B),
                 interp::Arg::i32(parts), interp::Arg::pointer(schedule),
                 interp::Arg::i32(B)});
  return schedule;
}

/// Stage 1's reading of the schedule (mla_decode_stage1.tile, SCHEDULE = 1).
std::vector<std::vector<Range>> partRanges(const std::vector<int32_t> &s,
                                           const std::vector<int32_t> &lens,
                                           int parts) {
  const int B = int(lens.size());
  const int64_t perPart = s[0];
  auto field = [&](int f, int b) {
    return int64_t(s[mla::ScheduleLayout::field(f, b, B)]);
  };
  std::vector<std::vector<Range>> out(parts);
  for (int part = 0; part < parts; ++part) {
    const int32_t *partReq = &s[mla::ScheduleLayout::partTable(B)];
    int first = partReq[part];
    int last = std::min(partReq[part + 1] + 1, B);
    for (int b = first; b < last; ++b) {
      int64_t pos = field(0, b), chunk = field(1, b) * kBlock,
              pieces = field(2, b);
      int64_t i0 = std::clamp<int64_t>(part * perPart - pos, 0, pieces);
      int64_t i1 = std::clamp<int64_t>((part + 1) * perPart - pos, 0, pieces);
      int64_t start = i0 * chunk, end = std::min<int64_t>(i1 * chunk, lens[b]);
      if (start < end)
        out[part].push_back(
            {b, start, end, int(field(3, b) + part - pos / perPart)});
    }
  }
  return out;
}

void checkMix(const char *name, const std::vector<int32_t> &lens,
              int parts = kParts) {
  SCOPED_TRACE(name);
  const int B = int(lens.size());
  std::vector<int32_t> s = runSchedule(lens, parts);
  std::vector<std::vector<Range>> ranges = partRanges(s, lens, parts);

  // Coverage and slots.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> covered(B);
  std::vector<std::vector<int>> slots(B);
  int64_t totalCost = 0, maxCost = 0;
  std::vector<int64_t> costs;
  for (const auto &part : ranges) {
    int64_t cost = 0;
    for (const Range &r : part) {
      covered[r.b].push_back({r.start, r.end});
      slots[r.b].push_back(r.slot);
      cost += (r.end - r.start + kBlock - 1) / kBlock + kOverhead;
    }
    costs.push_back(cost);
    maxCost = std::max(maxCost, cost);
    totalCost += cost;
  }
  int expectedSlot = 0;
  for (int b = 0; b < B; ++b) {
    SCOPED_TRACE("request " + std::to_string(b) + " of " +
                 std::to_string(lens[b]) + " tokens");
    auto &c = covered[b];
    std::sort(c.begin(), c.end());
    int64_t next = 0;
    for (auto [start, end] : c) {
      EXPECT_EQ(start, next) << "a gap or an overlap";
      next = end;
    }
    EXPECT_EQ(next, std::max(0, lens[b]));
    std::sort(slots[b].begin(), slots[b].end());
    EXPECT_EQ(s[1 + 3 * B + b], expectedSlot);
    EXPECT_EQ(s[1 + 4 * B + b], int(slots[b].size()));
    for (size_t i = 0; i < slots[b].size(); ++i)
      EXPECT_EQ(slots[b][i], expectedSlot + int(i));
    expectedSlot += int(slots[b].size());
  }
  EXPECT_LE(expectedSlot, B + parts) << "more slots than the workspace";

  // Balance.
  const double mean = double(totalCost) / parts;
  const double bound =
      std::max(kMaxImbalance * mean, double(kMinPiece + kOverhead) + 1);
  EXPECT_LE(double(maxCost), bound)
      << "the busiest part costs " << maxCost << " blocks, mean " << mean;
  std::sort(costs.begin(), costs.end());
  std::printf("[ schedule ] %-40s B=%4d parts cost min %lld median %lld "
              "max %lld (mean %.1f), %d slots\n",
              name, B, (long long)costs.front(),
              (long long)costs[costs.size() / 2], (long long)maxCost, mean,
              expectedSlot);
}

TEST(MlaSchedule, AdversarialMixes) {
  std::mt19937_64 rng(20261202);
  auto uniform = [&](int n, int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int32_t> v(n);
    for (int32_t &x : v)
      x = d(rng);
    return v;
  };
  // One huge request and many tiny ones, the huge one first and last.
  std::vector<int32_t> hugeFirst = uniform(256, 1, 10);
  hugeFirst[0] = 1000000;
  checkMix("one huge among 255 tiny (first)", hugeFirst);
  std::vector<int32_t> hugeLast = uniform(256, 1, 10);
  hugeLast.back() = 1000000;
  checkMix("one huge among 255 tiny (last)", hugeLast);
  // One long request among many short ones of varied lengths.
  std::vector<int32_t> longTail = uniform(128, 100, 2000);
  longTail[77] = 131072;
  checkMix("one 128K among 127 short", longTail);
  checkMix("512 short of varied lengths", uniform(512, 1, 600));
  // Zeros and ones beside long requests.
  std::vector<int32_t> zerosOnes = uniform(64, 0, 1);
  for (int i : {3, 30, 31, 63})
    zerosOnes[i] = 40000;
  checkMix("zeros and ones beside 4 long", zerosOnes);
  checkMix("all equal (256 x 4096)", std::vector<int32_t>(256, 4096));
  checkMix("all equal (7 x 70000)", std::vector<int32_t>(7, 70000));
  checkMix("all zero", std::vector<int32_t>(256, 0));
  checkMix("ragged [1, 16384]", uniform(128, 1, 16384));
  // Fewer requests than parts, each long: rounding each request to whole
  // multiples of the mean part left parts half as busy as others.
  checkMix("ragged [1, 65536] (B = 32)", uniform(32, 1, 65536));
  checkMix("ragged [1, 16384] (B = 100)", uniform(100, 1, 16384));
  checkMix("all equal (128 x 8192)", std::vector<int32_t>(128, 8192));
  checkMix("fewer blocks than parts", uniform(20, 0, 300));
  checkMix("one request", {123457});
  checkMix("two parts", uniform(50, 0, 5000), 2);
}
} // namespace
