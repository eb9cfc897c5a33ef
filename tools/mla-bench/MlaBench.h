//===- MlaBench.h - mla-bench's options, shapes and results -----*- C++ -*-===//
//
// Shared by the three parts of mla-bench: Grid.cpp (options and the shape
// grid), mla-bench.cpp (measurements) and Report.cpp (table and JSON).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TOOLS_MLABENCH_H
#define TILEMLA_TOOLS_MLABENCH_H

#include "BenchCommon.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilemla::bench {
constexpr int R = 512, P = 64, D = R + P;
constexpr double kScale = 0.1352337788; // DeepSeek-V3, as mla-decode

struct Options {
  std::vector<int> b{1, 8, 32, 128}, l{4096, 8192, 32768}, h{16, 128}, page{64};
  /// Query tokens per request (--sq; multi-token decode above 1).
  std::vector<int> sq{1};
  /// Heads measured only for B >= 8 (--quick's H=64); --h clears them.
  std::vector<int> hLargeBatch{64};
  std::vector<mla::SplitPolicy> policies{mla::SplitPolicy::Auto,
                                         mla::SplitPolicy::Fixed4,
                                         mla::SplitPolicy::BatchInvariant};
  bool uniform = true, ragged = true;
  int runs = 50, warmup = 5, hostCalls = 1000;
  std::optional<size_t> flushMiB, copyMiB;
  std::string json;
  bool check = false, list = false;
  uint64_t seed = 0x7e11a;
  int tokenBlock = 0, stage1Warps = 0, headBlock = 0,
      stages = 0;                   ///< 0: defaults
  int maxSplits = 0, minSplits = 0; ///< Auto's bounds; 0: defaults
  int numSMs = 0;  ///< the SM count Auto plans for; 0: the device's
  bool tma = true; ///< let stage 1 stream the cache with TMA (sm_90a)
  bool warpSpecialize = true; ///< a producer warpgroup issues the TMA copies
  bool scoreWarpgroup = true; ///< a third warpgroup for the score tiles
  bool seesaw = false;        ///< alternate score tiles between the warpgroups
  bool latentHalves = false;  ///< stream the latent part in two halves
  std::optional<bool> f16Dots;   ///< fp8 caches: the codes widen to f16
  bool fp8Dots = false;          ///< fp8 caches: fp8 tensor-core dots
  bool fp8Tma = true;            ///< fp8 caches: TMA at 64-head programs
  bool fp8ScoreWarpgroup = true; ///< ... with the score warpgroup
  bool scheduleInStage1 = false; ///< stage 1 makes the device schedule
  bool mergeInStage1 = false;    ///< stage 1 merges the pieces (no stage 2)
  bool prefetch = true; ///< stage 1 prefetches while the schedule is made
  bool launchGraph = true;       ///< a call's kernels as one CUDA graph
  /// fp8 tiles' threshold (0: never; unset: the library's default)
  std::optional<int64_t> wideFp8TilesMinTokens;
  int persistentWaves = 0;       ///< with it, stage-1 programs per SM (0: off)
  int scheduleOverhead = 0; ///< the device schedule's request entry, blocks
  int scheduleMinPiece = 0; ///< ... and its shortest piece; 0: defaults
  mla::DeviceSchedule deviceSchedule = mla::DeviceSchedule::Default;
  /// --step-schedule: a call that schedules on the device reads a schedule
  /// made once before the timed calls, as every layer of a decode step
  /// would (DecodeSchedule), instead of launching its own.
  bool stepSchedule = false;
  /// --mixes: the adversarial length mixes (Grid.cpp) instead of the grid.
  bool mixes = false;
  /// --kv-dtype: bf16, fp8 (e4m3 codes with a scale, kv_cache_dtype
  /// "fp8") or fp8_ds_mla (DeepSeek's 656-byte tokens); q, o and the math
  /// stay bf16.
  mla::KvCacheFormat kvFormat = mla::KvCacheFormat::Native;
};

/// Bytes a cached token takes (each of them is read).
inline int64_t kvTokenBytes(const Options &o, int64_t rank, int64_t rope) {
  switch (o.kvFormat) {
  case mla::KvCacheFormat::Fp8:
    return rank + rope;
  case mla::KvCacheFormat::Fp8DsMla:
    return mla::dsMlaTokenBytes(rank, rope);
  case mla::KvCacheFormat::Native:
    break;
  }
  return (rank + rope) * 2;
}
/// The backend's kv_cache_dtype for o.kvFormat.
inline const char *kvCacheDtype(const Options &o) {
  return o.kvFormat == mla::KvCacheFormat::Fp8        ? "fp8"
         : o.kvFormat == mla::KvCacheFormat::Fp8DsMla ? "fp8_ds_mla"
                                                      : "auto";
}
/// An fp8 cache's scale in mla-bench (random codes are about +-1..448).
constexpr float kKvScale = 1.0f / 256;

struct Shape {
  int H = 16, B = 1, L = 1024, page = 64;
  int sq = 1; ///< query tokens per request
  bool ragged = false;
  std::string mix; ///< an adversarial mix's name (then L is its longest)
  std::vector<int32_t> lens;
  int64_t tokens = 0; ///< sum of lens
  int maxLen = 0;
};

struct CopyCeiling {
  size_t bytes = 0; ///< read + write
  Stats us;
  double gbs = 0;
};

struct Result {
  Shape shape;
  mla::SplitPolicy policy{};
  int splits = 0; ///< 0: scheduled on the device; -1: by a step schedule
  double firstCallMs = 0, bytes = 0, flops = 0;
  double hostUs = 0, hostMeanUs = 0; ///< per call: median, mean
  int hostCallsDone = 0;
  Stats us;
  std::string error;
  double gbs() const { return us.median > 0 ? bytes / us.median / 1e3 : 0; }
  double tflops() const { return us.median > 0 ? flops / us.median / 1e6 : 0; }
};

struct CheckResult {
  int H = 0, page = 0, sq = 1;
  mla::SplitPolicy policy{};
  double oErr = 0, lseErr = 0;
  bool ok = false;
  std::string error;
};

struct Report {
  DeviceInfo device;
  CopyCeiling copy;
  size_t flushBytes = 0;
  std::vector<Result> results;
  std::vector<std::pair<Shape, std::string>> skipped;
  std::vector<CheckResult> checks;
  std::string skippedAll; ///< no GPU
};

const char *policyName(mla::SplitPolicy p);
/// Parses the command line; exits with a message on bad flags.
Options parseOptions(int argc, char **argv);
/// --h and the large-batch heads, ascending where the latter were added.
std::vector<int> allHeads(const Options &o);
/// The shapes `o` selects, in run order.
std::vector<Shape> makeGrid(const Options &o);
/// "   H sq    B      L page kind   " columns of one shape.
std::string shapeLabel(const Shape &s);
void printRow(const Result &x, double copyGbs);
/// The JSON fields after the device; closes the object.
void writeJson(std::ostream &out, const Options &o, const Report &r);
} // namespace tilemla::bench

#endif
