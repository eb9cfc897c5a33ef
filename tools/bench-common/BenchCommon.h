//===- BenchCommon.h - pieces shared by mla-bench and matmul-bench -*- C++ -*-//
//
// Timing with CUDA events and an L2 flush, random bf16 device data, the
// no-GPU check and JSON scalars: what both benchmarks do the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TOOLS_BENCHCOMMON_H
#define TILEMLA_TOOLS_BENCHCOMMON_H

#include "tilemla/Runtime.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace tilemla::bench {
constexpr size_t MiB = size_t(1) << 20;

/// The splitmix64 generator: the next value of `state`.
uint64_t splitmix64(uint64_t &state);

struct Stats {
  double median = 0, min = 0, p90 = 0; ///< microseconds
  int runs = 0;
};
Stats summarize(std::vector<double> us);

/// What GpuTimer::time measured for one callable.
struct Timing {
  double firstCallMs = 0; ///< host time of the first call (JIT or cache load)
  double estimateUs = 0;  ///< GPU time of the warm-up calls, each
  Stats us;
};

/// Times stream-ordered work with CUDA events on the legacy default stream,
/// the L2 flushed (a fillAsync of `flushBytes`, outside the events) before
/// every timed call so each call starts from cold caches.
class GpuTimer {
public:
  GpuTimer(int maxRuns, size_t flushBytes);
  /// One untimed first call, `warmup` calls (at least one) whose time sizes
  /// the number of runs to about 0.5 s a case (at least min(10, maxRuns)),
  /// then that many timed calls.
  Timing time(const std::function<void()> &call, int warmup);
  size_t flushBytes() const { return flush.size(); }
  /// Two events for callers that time something else (a copy ceiling).
  GpuEvent &event(int i) { return events[size_t(i)]; }

private:
  int maxRuns;
  std::vector<GpuEvent> events;
  DeviceBuffer flush;
};

/// Random bf16 uniform in [-1, 1] on the device, tiled over any buffer.
class RandomSource {
public:
  RandomSource(size_t bytes, uint64_t seed);
  /// Fills `count` bytes of `target` (a multiple of 2) with random bf16,
  /// starting at a different place in the source for each call.
  void fill(DeviceBuffer &target, size_t count);

private:
  DeviceBuffer buffer;
  size_t next = 0;
};

/// Why there is nothing to measure on: no driver or no GPU (none in
/// interpreter mode).
std::optional<std::string> noGpuReason();

/// A benchmark's main after parsing its options: without a GPU prints
/// "<tool>: no GPU: skipped (why)" (and sets `skipped`), else calls `run`
/// (an exception is status 1). Then, if `jsonPath` is set, writes there a
/// JSON object with the tool's name and either why it was skipped or
/// `device` followed by what `writeFields` adds (it closes the object).
/// Returns the exit status (0 without a GPU).
int runBenchmark(const char *tool, const std::string &jsonPath,
                 std::string &skipped, const DeviceInfo &device,
                 const std::function<int()> &run,
                 const std::function<void(std::ostream &)> &writeFields);

std::string jsonString(const std::string &text);
std::string jsonNumber(double v); ///< null for NaN and infinities
} // namespace tilemla::bench

#endif
