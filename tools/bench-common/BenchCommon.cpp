//===- BenchCommon.cpp - timing, random data and JSON for the benchmarks --===//
#include "BenchCommon.h"
#include "HostNumerics.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace tilemla::bench {
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Stats summarize(std::vector<double> us) {
  Stats s;
  if (us.empty())
    return s;
  std::sort(us.begin(), us.end());
  size_t n = us.size();
  s.runs = int(n);
  s.min = us.front();
  s.median = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
  s.p90 = us[std::min(n - 1, size_t(std::ceil(0.9 * double(n))) - 1)];
  return s;
}

GpuTimer::GpuTimer(int maxRuns, size_t flushBytes)
    : maxRuns(std::max(maxRuns, 1)), events(size_t(2 * std::max(maxRuns, 2))),
      flush(flushBytes) {}

Timing GpuTimer::time(const std::function<void()> &call, int warmup) {
  Timing t;
  auto start = std::chrono::steady_clock::now();
  call(); // JIT-compiles (or loads from the disk cache)
  synchronize();
  t.firstCallMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();

  int warm = std::max(1, warmup);
  events[0].record();
  for (int i = 0; i < warm; ++i)
    call();
  events[1].record();
  events[1].synchronize();
  t.estimateUs = 1e3 * GpuEvent::elapsedMs(events[0], events[1]) / warm;
  int runs = maxRuns;
  if (t.estimateUs > 0)
    runs = std::clamp(int(5e5 / t.estimateUs), std::min(10, maxRuns), maxRuns);

  for (int r = 0; r < runs; ++r) {
    if (flush.size())
      flush.fillAsync(static_cast<unsigned char>(r));
    events[2 * r].record();
    call();
    events[2 * r + 1].record();
  }
  events[2 * runs - 1].synchronize();
  std::vector<double> us(runs);
  for (int r = 0; r < runs; ++r)
    us[r] = 1e3 * GpuEvent::elapsedMs(events[2 * r], events[2 * r + 1]);
  t.us = summarize(us);
  return t;
}

RandomSource::RandomSource(size_t bytes, uint64_t seed) : buffer(bytes) {
  std::vector<uint16_t> host(bytes / 2);
  uint64_t state = seed;
  for (size_t i = 0; i < host.size(); i += 2) {
    uint64_t r = splitmix64(state);
    for (size_t k = 0; k < 2 && i + k < host.size(); ++k) {
      double u = double((r >> (32 * k)) & 0xffffffffu) / 4294967296.0;
      host[i + k] = test::toBF16(float(2 * u - 1));
    }
  }
  buffer.upload(host.data(), host.size() * 2);
}

void RandomSource::fill(DeviceBuffer &target, size_t count) {
  size_t done = 0;
  while (done < count) {
    size_t from = (next += 4096 + 2 * 7919) % (buffer.size() / 2);
    size_t chunk = std::min(count - done, buffer.size() - from);
    target.copyFromAsync(buffer, chunk, nullptr, done, from);
    done += chunk;
  }
}

std::optional<std::string> noGpuReason() {
  if (isInterpreterMode() || isGpuAvailable())
    return std::nullopt;
  try {
    deviceInfo();
  } catch (const std::exception &e) {
    return std::string(e.what());
  }
  return std::string("no CUDA driver or GPU");
}

namespace {
/// Writes the JSON file runBenchmark describes.
bool writeJson(const std::string &path, const char *tool,
               const std::string &skipped, const DeviceInfo &device,
               const std::function<void(std::ostream &)> &writeFields) {
  std::ofstream out(path);
  out << "{\n  \"tool\": " << jsonString(tool) << ",\n";
  if (!skipped.empty()) {
    out << "  \"skipped\": " << jsonString(skipped)
        << ",\n  \"results\": []\n}\n";
    return bool(out);
  }
  out << "  \"device\": {\"name\": " << jsonString(device.name)
      << ", \"arch\": " << jsonString(device.arch)
      << ", \"sms\": " << device.multiprocessors
      << ", \"total_bytes\": " << device.totalMemory << "},\n";
  out << "  \"interpreter\": " << (isInterpreterMode() ? "true" : "false")
      << ",\n";
  writeFields(out);
  return bool(out);
}
} // namespace

int runBenchmark(const char *tool, const std::string &jsonPath,
                 std::string &skipped, const DeviceInfo &device,
                 const std::function<int()> &run,
                 const std::function<void(std::ostream &)> &writeFields) {
  int status = 0;
  if (std::optional<std::string> why = noGpuReason()) {
    skipped = "no GPU: " + *why;
    std::printf("%s: no GPU: skipped (%s)\n", tool, why->c_str());
  } else {
    try {
      status = run();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "%s: %s\n", tool, e.what());
      status = 1;
    }
  }
  if (jsonPath.empty())
    return status;
  if (!writeJson(jsonPath, tool, skipped, device, writeFields)) {
    std::fprintf(stderr, "%s: cannot write %s\n", tool, jsonPath.c_str());
    return 1;
  }
  if (skipped.empty())
    std::printf("wrote %s\n", jsonPath.c_str());
  return status;
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\')
      out += '\\', out += ch;
    else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else
      out += ch;
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
} // namespace tilemla::bench
