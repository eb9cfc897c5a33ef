//===- Report.cpp - mla-bench's table rows and JSON -----------------------===//
#include "MlaBench.h"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace tilemla::bench {
namespace {
std::string shapeJson(const Shape &s) {
  std::string out =
      "\"h\": " + std::to_string(s.H) + ", \"sq\": " + std::to_string(s.sq) +
      ", \"b\": " + std::to_string(s.B) + ", \"l\": " + std::to_string(s.L) +
      ", \"page\": " + std::to_string(s.page) +
      ", \"ragged\": " + (s.ragged ? "true" : "false") +
      (s.mix.empty() ? "" : ", \"mix\": \"" + s.mix + "\"") +
      ", \"tokens\": " + std::to_string(s.tokens) +
      ", \"max_len\": " + std::to_string(s.maxLen);
  return out;
}

} // namespace

std::string shapeLabel(const Shape &s) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%4d %2d %4d %6d %4d %-7s", s.H, s.sq, s.B,
                s.L, s.page,
                !s.mix.empty() ? s.mix.c_str()
                : s.ragged     ? "ragged"
                               : "uniform");
  return buf;
}

void writeJson(std::ostream &out, const Options &o, const Report &r) {
  out << "  \"dtype\": \"bf16\", \"kv_dtype\": \""
      << (o.kvFormat == mla::KvCacheFormat::Native ? "bf16"
          : o.kvFormat == mla::KvCacheFormat::Fp8  ? "fp8e4m3"
                                                   : "fp8_ds_mla")
      << "\", \"kv_lora_rank\": " << R << ", \"rope_dim\": " << P
      << ", \"scale\": " << jsonNumber(kScale) << ",\n";
  out << "  \"runs\": " << o.runs << ", \"warmup\": " << o.warmup
      << ", \"flush_bytes\": " << r.flushBytes << ",\n";
  out << "  \"copy_ceiling\": {\"bytes\": " << r.copy.bytes
      << ", \"median_us\": " << jsonNumber(r.copy.us.median)
      << ", \"min_us\": " << jsonNumber(r.copy.us.min)
      << ", \"gbs\": " << jsonNumber(r.copy.gbs) << "},\n";
  out << "  \"results\": [";
  for (size_t i = 0; i < r.results.size(); ++i) {
    const Result &x = r.results[i];
    out << (i ? ",\n" : "\n") << "    {" << shapeJson(x.shape)
        << ", \"policy\": " << jsonString(policyName(x.policy))
        << ", \"splits\": " << x.splits;
    if (!x.error.empty()) {
      out << ", \"error\": " << jsonString(x.error) << "}";
      continue;
    }
    out << ", \"first_call_ms\": " << jsonNumber(x.firstCallMs)
        << ", \"runs\": " << x.us.runs
        << ", \"median_us\": " << jsonNumber(x.us.median)
        << ", \"min_us\": " << jsonNumber(x.us.min)
        << ", \"p90_us\": " << jsonNumber(x.us.p90)
        << ", \"bytes\": " << jsonNumber(x.bytes)
        << ", \"flops\": " << jsonNumber(x.flops)
        << ", \"gbs\": " << jsonNumber(x.gbs())
        << ", \"tflops\": " << jsonNumber(x.tflops())
        << ", \"pct_copy\": " << jsonNumber(100 * x.gbs() / r.copy.gbs)
        << ", \"host_us\": " << jsonNumber(x.hostUs)
        << ", \"host_mean_us\": " << jsonNumber(x.hostMeanUs)
        << ", \"host_calls\": " << x.hostCallsDone << "}";
  }
  out << "\n  ],\n  \"skipped_shapes\": [";
  for (size_t i = 0; i < r.skipped.size(); ++i)
    out << (i ? ",\n" : "\n") << "    {" << shapeJson(r.skipped[i].first)
        << ", \"reason\": " << jsonString(r.skipped[i].second) << "}";
  out << "\n  ],\n  \"checks\": [";
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const CheckResult &c = r.checks[i];
    out << (i ? ",\n" : "\n") << "    {\"h\": " << c.H << ", \"sq\": " << c.sq
        << ", \"page\": " << c.page
        << ", \"policy\": " << jsonString(policyName(c.policy))
        << ", \"o_rel_err\": " << jsonNumber(c.oErr)
        << ", \"lse_abs_err\": " << jsonNumber(c.lseErr)
        << ", \"ok\": " << (c.ok ? "true" : "false");
    if (!c.error.empty())
      out << ", \"error\": " << jsonString(c.error);
    out << "}";
  }
  out << "\n  ]\n}\n";
}

void printRow(const Result &x, double copyGbs) {
  if (!x.error.empty()) {
    std::printf("%s %-15s  error: %s\n", shapeLabel(x.shape).c_str(),
                policyName(x.policy), x.error.c_str());
    return;
  }
  std::string splits = x.splits > 0    ? std::to_string(x.splits)
                       : x.splits == 0 ? "dev"
                                       : "step";
  std::printf("%s %-15s %6s %9.1f %9.1f %9.1f %8.0f %8.1f %6.1f %8.2f\n",
              shapeLabel(x.shape).c_str(), policyName(x.policy), splits.c_str(),
              x.us.median, x.us.min, x.us.p90, x.gbs(), x.tflops(),
              100 * x.gbs() / copyGbs, x.hostUs);
  std::fflush(stdout);
}
} // namespace tilemla::bench
