//===- mla-decode.cpp - the main job: a DeepSeek-V3-like MLA decode -------===//
//
// With a GPU: B = 8 requests of L = 4096 tokens, H = 16 heads, R = 512, rope
// 64, page 64, random bf16 data (shuffled pages), through
// TritonMLAImpl::forward_decode for each split policy: checks o and lse
// against the fp64 CPU reference, then times N launches after a warm-up
// (host wall time around N asynchronous calls and one synchronize) and
// reports the KV-cache bandwidth (bytes of the cache rows read / time).
//
// Without a GPU: compiles both kernels (the specialization the run would
// use) with tilemla's compiler and prints their PTX statistics: compile
// time, PTX lines, dynamic shared memory, and registers from `ptxas -v`
// when ptxas is installed (PATH or /usr/local/cuda/bin).
//
//   mla-decode [--iters N] [--batch B] [--len L]
//
//===----------------------------------------------------------------------===//
#include "MlaViews.h"
#include "tilemla/Driver/Compiler.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>

extern const char *const kMlaStage1Source;
extern const char *const kMlaStage2Source;

using namespace tilemla;
using namespace tilemla::test;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int H = 16, R = 512, P = 64, PAGE = 64;

std::string findPtxas() {
  if (const char *path = std::getenv("PATH")) {
    std::string all = path;
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(':', start);
      std::string dir = all.substr(
          start, end == std::string::npos ? std::string::npos : end - start);
      std::string candidate = dir + "/ptxas";
      if (!dir.empty() && access(candidate.c_str(), X_OK) == 0)
        return candidate;
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
  }
  if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0)
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

/// "Used N registers, ..." from ptxas -v, or a note.
std::string ptxasReport(const std::string &ptxas, const std::string &ptx,
                        const std::string &arch, const std::string &name) {
  if (ptxas.empty())
    return "ptxas: not installed";
  std::string dir = "/tmp/mla-decode-" + std::to_string(getpid());
  std::string cmdMk = "mkdir -p " + dir;
  if (std::system(cmdMk.c_str()) != 0)
    return "ptxas: cannot create " + dir;
  std::string file = dir + "/" + name + ".ptx";
  std::ofstream(file) << ptx;
  std::string cmd = ptxas + " -arch=" + arch + " -v " + file + " -o " + dir +
                    "/" + name + ".cubin 2>&1";
  std::string out;
  if (FILE *pipe = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, pipe))
      out += buf;
    pclose(pipe);
  }
  std::system(("rm -rf " + dir).c_str());
  std::string report;
  for (const char *key : {"Used ", "bytes stack frame"}) {
    size_t at = out.find(key);
    if (at == std::string::npos)
      continue;
    size_t lineStart = out.rfind('\n', at);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    size_t lineEnd = out.find('\n', at);
    std::string line = out.substr(lineStart, lineEnd - lineStart);
    size_t colon = line.find("info    : ");
    if (colon != std::string::npos)
      line = line.substr(colon + 10);
    report += (report.empty() ? "" : "; ") + line;
  }
  return "ptxas: " + (report.empty() ? out : report);
}

int ptxStats(int splits) {
  struct Stage {
    const char *name, *source;
    std::map<std::string, std::string> defines;
    unsigned warps;
  };
  std::string s = std::to_string(splits);
  Stage stages[] = {
      {"mla_decode_stage1",
       kMlaStage1Source,
       {{"H", "16"},
        {"R", "512"},
        {"P", "64"},
        {"PAGE", "64"},
        {"BLOCK_H", "16"},
        {"BLOCK_N", std::to_string(mla::TritonMLAImpl::kTokenBlock)},
        {"T", "bf16"}},
       unsigned(mla::TritonMLAImpl::kStage1Warps)},
      {"mla_decode_stage2",
       kMlaStage2Source,
       {{"H", "16"},
        {"R", "512"},
        {"SPLITS", s},
        {"T", "bf16"},
        {"LSE_T", "f32"}},
       4}};
  std::string ptxas = findPtxas();
  int status = 0;
  for (Stage &stage : stages) {
    CompileOptions options;
    options.defines = stage.defines;
    options.numWarps = stage.warps;
    // The specialization a launch gets: 16-byte aligned pointers and strides
    // divisible by 16 (all of them are, for this problem).
    options.argFacts.assign(32, ArgFact{16, false});
    std::string errs;
    auto start = Clock::now();
    auto compiled = compileKernel(
        SourceFile(std::string("kernels/mla/") + stage.name + ".tile",
                   stage.source),
        options, errs);
    double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!compiled) {
      std::fprintf(stderr, "%s: compile failed:\n%s\n", stage.name,
                   errs.c_str());
      status = 1;
      continue;
    }
    size_t lines = 0;
    for (char ch : compiled->ptx)
      lines += ch == '\n';
    std::printf(
        "%-18s arch=%s warps=%u shared=%uB ptx=%zu lines "
        "compile=%.0f ms %s\n",
        stage.name, compiled->target.name().c_str(), compiled->numWarps,
        compiled->sharedBytes, lines, ms,
        ptxasReport(ptxas, compiled->ptx, compiled->target.name(), stage.name)
            .c_str());
  }
  return status;
}

const char *policyName(mla::SplitPolicy p) {
  return p == mla::SplitPolicy::Fixed4           ? "Fixed4"
         : p == mla::SplitPolicy::BatchInvariant ? "BatchInvariant"
                                                 : "Auto";
}

int runOnDevice(int B, int L, int iters) {
  std::mt19937_64 rng(freshSeed());
  MlaCase c;
  c.H = H, c.R = R, c.P = P, c.page = PAGE, c.type = DType::BF16;
  c.lens.assign(B, L);
  c.scale = 0.1352337788; // DeepSeek-V3: 1/sqrt(192) * YaRN mscale^2 (~1.87)
  MlaProblem p = makeMlaProblem(c, rng);
  std::printf("mla-decode: B=%d H=%d R=%d rope=%d page=%d L=%d bf16, "
              "computing the fp64 reference...\n",
              B, H, R, P, PAGE, L);
  MlaReference ref = mlaReference(p);

  HostTensor o(DType::BF16, size_t(B) * H * R), lse(DType::F32, size_t(B) * H);
  MlaDeviceProblem d = uploadMlaProblem(p, mla::DType::BF16);
  const mla::TensorView &q = d.qView, &kv = d.kvView, &ov = d.oView,
                        &lv = d.lseView;
  const mla::DecodeMetadata &md = d.metadata;
  DeviceBuffer &dout = d.o, &dlse = d.lse;

  int status = 0;
  for (mla::SplitPolicy policy :
       {mla::SplitPolicy::Auto, mla::SplitPolicy::Fixed4,
        mla::SplitPolicy::BatchInvariant}) {
    mla::TritonMLAOptions options;
    options.maxBatch = B;
    options.splitPolicy = policy;
    mla::TritonMLAImpl impl(H, R + P, c.scale, 1, std::nullopt, std::nullopt,
                            "auto", std::nullopt, "decoder", std::nullopt,
                            mla::MLAArgs{R, P, 128, 128}, options);
    dout.fill(0xff);
    dlse.fill(0xff);
    auto jitStart = Clock::now();
    impl.forward_decode(q, kv, md, ov, lv); // JIT (or cache load) + run
    synchronize();
    double jitMs =
        std::chrono::duration<double, std::milli>(Clock::now() - jitStart)
            .count();
    dout.download(o.bytes.data(), o.bytes.size());
    dlse.download(lse.bytes.data(), lse.bytes.size());
    o.decode();
    lse.decode();
    MlaErrors e = mlaErrors(p, ref, o.values, lse.values);
    bool ok = e.o <= 1e-2 && e.lse <= 1e-3;
    status |= ok ? 0 : 1;

    for (int i = 0; i < 3; ++i)
      impl.forward_decode(q, kv, md, ov, lv);
    synchronize();
    auto start = Clock::now();
    for (int i = 0; i < iters; ++i)
      impl.forward_decode(q, kv, md, ov, lv);
    synchronize();
    double us = std::chrono::duration<double, std::micro>(Clock::now() - start)
                    .count() /
                iters;
    double kvBytes = double(B) * L * (R + P) * 2;
    std::printf("  policy %-14s splits=%-2d first call %.0f ms  %.1f us/call  "
                "KV %.1f MB -> %.0f GB/s  o rel err %.2e  lse abs err %.2e  "
                "%s\n",
                policyName(policy), impl.numSplits(B, L), jitMs, us,
                kvBytes / 1e6, kvBytes / us / 1e3, e.o, e.lse,
                ok ? "OK" : "MISMATCH");
  }
  return status;
}
} // namespace

int main(int argc, char **argv) {
  int B = 8, L = 4096, iters = 50;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mla-decode: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::atoi(argv[++i]);
    };
    if (a == "--iters")
      iters = std::max(1, next());
    else if (a == "--batch")
      B = std::max(1, next());
    else if (a == "--len")
      L = std::max(0, next());
    else {
      std::fprintf(stderr,
                   "usage: mla-decode [--iters N] [--batch B] [--len L]\n");
      return 2;
    }
  }
  try {
    if (isGpuAvailable() && !isInterpreterMode())
      return runOnDevice(B, L, iters);
    int splits = mla::chooseNumSplits(mla::SplitPolicy::Auto, B, H, L, 132);
    std::printf("mla-decode: no GPU; PTX statistics of the kernels for B=%d "
                "H=%d R=%d rope=%d page=%d L=%d bf16 (Auto: %d splits on an "
                "H200's 132 SMs)\n",
                B, H, R, P, PAGE, L, splits);
    return ptxStats(splits);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "mla-decode: %s\n", e.what());
    return 1;
  }
}
