//===- Grid.cpp - mla-bench's command line and shape grid -----------------===//
#include "MlaBench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tilemla::bench {
namespace {

/// Lengths uniform in [1, 2L], a function of (B, L) only.
std::vector<int32_t> raggedLens(int B, int L) {
  uint64_t state = 0x5EED0000ull + uint64_t(B) * 1000003ull + uint64_t(L);
  std::vector<int32_t> lens(B);
  for (int32_t &len : lens)
    len = int32_t(1 + splitmix64(state) % (2 * uint64_t(L)));
  return lens;
}

Shape withLens(Shape s, std::vector<int32_t> lens) {
  s.lens = std::move(lens);
  for (int32_t len : s.lens) {
    s.tokens += len;
    s.maxLen = std::max(s.maxLen, int(len));
  }
  return s;
}

Shape makeShape(int H, int B, int L, int page, bool ragged, int sq) {
  Shape s;
  s.H = H, s.B = B, s.L = L, s.page = page, s.ragged = ragged, s.sq = sq;
  return withLens(s, ragged ? raggedLens(B, L) : std::vector<int32_t>(B, L));
}

/// Length mixes made to break a schedule: one very long request among many
/// short ones (first, or in the middle), hundreds of short requests of
/// varied lengths, zeros and ones beside long requests.
std::vector<Shape> adversarialMixes(int H, int page, int sq) {
  uint64_t state = 0xAD7E45A1ull;
  auto draw = [&](int n, int lo, int hi) {
    std::vector<int32_t> v(n);
    for (int32_t &x : v)
      x = int32_t(lo + splitmix64(state) % uint64_t(hi - lo + 1));
    return v;
  };
  std::vector<std::pair<std::string, std::vector<int32_t>>> mixes;
  std::vector<int32_t> huge = draw(256, 1, 10);
  huge[0] = 1000000;
  mixes.emplace_back("huge", huge); // 1M tokens among 255 of 1..10
  std::vector<int32_t> tail = draw(128, 100, 2000);
  tail[77] = 131072;
  mixes.emplace_back("tail", tail); // 128K among 127 of 100..2000
  mixes.emplace_back("short", draw(512, 1, 600));
  std::vector<int32_t> zeros = draw(64, 0, 1);
  for (int i : {3, 30, 31, 63})
    zeros[i] = 40000;
  mixes.emplace_back("zeros", zeros); // 4 of 40000 among 0s and 1s
  std::vector<Shape> out;
  for (auto &[name, lens] : mixes) {
    Shape s;
    s.H = H, s.B = int(lens.size()), s.page = page, s.ragged = true;
    s.sq = sq;
    s.mix = name;
    s = withLens(s, lens);
    s.L = s.maxLen;
    out.push_back(s);
  }
  return out;
}

[[noreturn]] void usage(int status) {
  std::fprintf(
      status ? stderr : stdout,
      "usage: mla-bench [--quick | --full] [--b=LIST] [--l=LIST] [--h=LIST]\n"
      "                 [--page=LIST] [--sq=LIST]\n"
      "                 [--policy=auto,fixed4,batch-invariant]\n"
      "                 [--ragged | --no-ragged | --ragged-only]\n"
      "                 [--runs=N] [--warmup=N] [--host-calls=N]\n"
      "                 [--flush-mib=N] [--copy-mib=N] [--check] [--list]\n"
      "                 [--json=FILE] [--block-n=N] [--block-h=N] [--warps=N]\n"
      "                 [--stages=N] [--max-splits=N] [--min-splits=N] "
      "[--sms=N]\n"
      "                 [--no-tma] [--no-ws] [--no-score-warpgroup] "
      "[--seesaw]\n"
      "                 [--latent-halves] [--persistent=W]\n"
      "                 [--schedule=default|off|always] [--step-schedule]\n"
      "                 [--schedule-in-stage1] [--merge-in-stage1] "
      "[--no-prefetch] [--direct-launch]\n"
      "                 [--schedule-overhead=N] [--schedule-min-piece=N]\n"
      "                 [--wide-fp8-tiles=TOKENS]\n"
      "                 [--mixes] [--kv-dtype=bf16|fp8|fp8_ds_mla] "
      "[--f16-dots|--bf16-dots] [--fp8-dots] [--fp8-tma|--no-fp8-tma]\n"
      "                 [--fp8-score-warpgroup|--no-fp8-score-warpgroup]\n"
      "\n"
      "  --quick   (default) B=1,8,32,128 L=4096,8192,32768 H=16,128 page=64,\n"
      "            and H=64 for B=8,32,128; uniform and ragged\n"
      "  --full    B=1,8,32,128 L=1024,4096,8192,32768 H=16,32,64,128\n"
      "            page=64,16, uniform and ragged\n"
      "  --b/--l/--h/--page replace that axis of the chosen grid (--h: every\n"
      "            B for those heads, e.g. --h=64 --b=8,32,128); ragged\n"
      "  batches (B > 1) draw each length from [1, 2L]\n"
      "  --sq      query tokens per request (default 1; e.g. 1,2,4: multi-\n"
      "            token decode, causal among the new tokens); GB/s counts\n"
      "            the cache once per request, TFLOP/s every query row\n"
      "  --policy  split policies to compare (default all three; 'all')\n"
      "  --runs    timed calls per case (default 50; fewer, at least 10,\n"
      "            when a call is long), --warmup calls before (default 5)\n"
      "  --host-calls  calls timed on the host for 'host us' (default 1000)\n"
      "  --flush-mib   L2 flush buffer (default 256), --copy-mib copy-ceiling\n"
      "                buffer (default 1024)\n"
      "  --check   first compare each (H, page, policy) with an fp64 CPU\n"
      "            reference on a small ragged batch\n"
      "  --list    print the grid and exit (needs no GPU)\n"
      "  --json    write every result as JSON\n"
      "  --block-n, --block-h, --warps, --stages  stage-1 tokens per step,\n"
      "            heads per program, warps and pipeline stages (tuning)\n"
      "  --max-splits, --min-splits  bounds of the auto policy's split count\n"
      "  --sms     the SM count the auto policy and the device schedule plan\n"
      "            for (default: the device's); with --warps=4\n"
      "            --schedule=always, twice the device's gives the schedule\n"
      "            two programs per SM\n"
      "  --no-tma  stage 1 copies the cache with cp.async even where TMA\n"
      "            could stream it (sm_90a, 64-head blocks)\n"
      "  --no-ws   on the TMA path, the compute warps issue the copies (no\n"
      "            producer warpgroup)\n"
      "  --no-score-warpgroup  on the TMA path with 128+ heads, a producer\n"
      "            warpgroup instead of a third compute warpgroup that runs\n"
      "            the score tiles and softmax ahead of the other two\n"
      "  --seesaw  there, the two compute warpgroups take the score tiles\n"
      "            of alternate token blocks instead (work in progress)\n"
      "  --latent-halves  on the TMA path, stream each token block's latent\n"
      "            part as two halves with a barrier each (an experiment)\n"
      "  --kv-dtype  the cache's type: bf16 (default), fp8 (e4m3 codes and\n"
      "            a host scale) or fp8_ds_mla (656-byte tokens with their "
      "own\n"
      "            scales); GB/s counts the bytes read\n"
      "  --f16-dots, --bf16-dots  with an fp8 cache and bf16 q, widen the\n"
      "            codes to f16 (its dots in f16) or to bf16; default:\n"
      "            the library's (f16 where mma.sync dots read the codes)\n"
      "  --fp8-dots  with an fp8 cache whose codes mma.sync dots read: the\n"
      "            dots on fp8 tensor cores, q and p as two e4m3 terms\n"
      "  --fp8-tma, --no-fp8-tma  with an fp8 cache at 64-head programs:\n"
      "            the codes stream with TMA or cp.async (the library's\n"
      "            default: TMA); the producer warpgroup's kernel (see\n"
      "            below) issues the copies from a warpgroup unless --no-ws\n"
      "  --no-fp8-score-warpgroup  an fp8 cache on TMA: a producer\n"
      "            warpgroup instead of the score warpgroup (default: the\n"
      "            score warpgroup, tiles widened a trip ahead)\n"
      "  --schedule-in-stage1  where a call schedules on the device, stage 1\n"
      "            makes the schedule itself: one launch fewer (an "
      "experiment)\n"
      "  --merge-in-stage1  where a call schedules on the device, stage 1\n"
      "            merges each request's pieces (no stage 2; an experiment)\n"
      "  --no-prefetch  stage 1 does not prefetch its likely first q rows\n"
      "            and token blocks into L2 while the call's schedule kernel\n"
      "            runs (the default where that kernel runs: TMA, bf16)\n"
      "  --direct-launch  a call launches each kernel itself, rather than as\n"
      "            one CUDA graph (the default: fewer host microseconds)\n"
      "  --wide-fp8-tiles  with an fp8 cache at 16 heads, scheduled calls of\n"
      "            at least TOKENS (batch x max_seq_len; 0: never) keep the\n"
      "            default stage-1 tiles on shared SMs (default: the\n"
      "            library's, 2^19; not with --step-schedule, whose calls\n"
      "            keep the shared-SM tiles)\n"
      "  --schedule-overhead, --schedule-min-piece  the device schedule's\n"
      "            cost of entering a request and its shortest piece, in\n"
      "            token blocks (for tuning; default %d and %d)\n"
      "  --persistent  with the producer warpgroup, W stage-1 programs per\n"
      "            SM (default 1), each taking many work items\n"
      "  --schedule  where the auto policy schedules stage 1 on the device:\n"
      "            where it measured faster (default), nowhere, everywhere\n"
      "  --step-schedule  a call scheduled on the device reads a schedule\n"
      "            made once before the timed calls (as an engine's decode\n"
      "            step makes one for all its layers; splits column 'step')\n"
      "            instead of launching its own\n"
      "  --mixes   instead of the grid, for each --h and --page: length mixes\n"
      "            made to break a schedule ('huge': 1M tokens among 255\n"
      "            requests of 1..10; 'tail': 128K among 127 of 100..2000;\n"
      "            'short': 512 of 1..600; 'zeros': 4 of 40000 among 60\n"
      "            zeros and ones)\n"
      "Without a GPU: prints 'no GPU' and exits 0.\n",
      mla::TritonMLAImpl::kScheduleOverheadBlocks,
      mla::TritonMLAImpl::kScheduleMinPieceBlocks);
  std::exit(status);
}

} // namespace

std::vector<int> allHeads(const Options &o) {
  std::vector<int> heads = o.h;
  for (int H : o.hLargeBatch)
    if (std::find(heads.begin(), heads.end(), H) == heads.end()) {
      heads.push_back(H);
      std::stable_sort(heads.begin(), heads.end());
    }
  return heads;
}

/// Every (H, B, L, page) uniform, and ragged for B > 1, where H is in --h,
/// or in the large-batch heads and B >= 8; ordered by H, page, B, L.
std::vector<Shape> makeGrid(const Options &o) {
  auto wanted = [&](int H, int B) {
    return B >= 8 || std::find(o.h.begin(), o.h.end(), H) != o.h.end();
  };
  std::vector<Shape> grid;
  if (o.mixes) {
    for (int H : o.h)
      for (int page : o.page)
        for (int sq : o.sq)
          for (Shape &s : adversarialMixes(H, page, sq))
            grid.push_back(s);
    return grid;
  }
  for (int H : allHeads(o))
    for (int page : o.page)
      for (int B : o.b)
        for (int L : o.l)
          for (int sq : o.sq) {
            if (!wanted(H, B))
              continue;
            if (o.uniform)
              grid.push_back(makeShape(H, B, L, page, false, sq));
            if (o.ragged && B > 1)
              grid.push_back(makeShape(H, B, L, page, true, sq));
          }
  return grid;
}

const char *policyName(mla::SplitPolicy p) {
  return p == mla::SplitPolicy::Fixed4           ? "fixed4"
         : p == mla::SplitPolicy::BatchInvariant ? "batch-invariant"
                                                 : "auto";
}

std::vector<int> parseInts(const std::string &flag, const std::string &text) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char *end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v <= 0 || v > (1L << 30)) {
      std::fprintf(stderr, "mla-bench: %s: '%s' is not a positive integer\n",
                   flag.c_str(), item.c_str());
      std::exit(2);
    }
    values.push_back(int(v));
  }
  if (values.empty()) {
    std::fprintf(stderr, "mla-bench: %s needs a value\n", flag.c_str());
    std::exit(2);
  }
  return values;
}

std::vector<mla::SplitPolicy> parsePolicies(const std::string &text) {
  std::vector<mla::SplitPolicy> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == "all") {
      out = Options().policies;
    } else if (item == "auto") {
      out.push_back(mla::SplitPolicy::Auto);
    } else if (item == "fixed4" || item == "fixed" || item == "4") {
      out.push_back(mla::SplitPolicy::Fixed4);
    } else if (item == "batch-invariant" || item == "invariant" ||
               item == "bi" || item == "1") {
      out.push_back(mla::SplitPolicy::BatchInvariant);
    } else {
      std::fprintf(stderr,
                   "mla-bench: unknown policy '%s' (auto, fixed4, "
                   "batch-invariant, all)\n",
                   item.c_str());
      std::exit(2);
    }
  }
  if (out.empty())
    usage(2);
  return out;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  // Axes given on the command line apply after --quick/--full, whatever the
  // order.
  std::vector<std::pair<std::string, std::string>> axes;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool hasValue = false;
    if (size_t eq = arg.find('=');
        arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      hasValue = true;
    }
    auto take = [&]() -> std::string {
      if (hasValue)
        return value;
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mla-bench: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto takeInt = [&](int low) {
      std::vector<int> v = parseInts(arg, take());
      if (v.size() != 1 || v[0] < low) {
        std::fprintf(stderr, "mla-bench: %s needs one integer >= %d\n",
                     arg.c_str(), low);
        std::exit(2);
      }
      return v[0];
    };
    if (arg == "--help" || arg == "-h") {
      usage(0);
    } else if (arg == "--quick") {
      Options fresh;
      o.b = fresh.b, o.l = fresh.l, o.h = fresh.h, o.page = fresh.page;
      o.hLargeBatch = fresh.hLargeBatch;
    } else if (arg == "--full") {
      o.b = {1, 8, 32, 128}, o.l = {1024, 4096, 8192, 32768};
      o.h = {16, 32, 64, 128}, o.page = {64, 16}, o.hLargeBatch = {};
    } else if (arg == "--b" || arg == "--l" || arg == "--h" ||
               arg == "--page" || arg == "--sq") {
      axes.emplace_back(arg, take());
    } else if (arg == "--policy" || arg == "--policies") {
      o.policies = parsePolicies(take());
    } else if (arg == "--ragged") {
      o.ragged = true;
    } else if (arg == "--no-ragged") {
      o.ragged = false;
    } else if (arg == "--ragged-only") {
      o.ragged = true, o.uniform = false;
    } else if (arg == "--block-n") {
      o.tokenBlock = takeInt(16);
    } else if (arg == "--block-h") {
      o.headBlock = takeInt(16);
    } else if (arg == "--max-splits") {
      o.maxSplits = takeInt(1);
    } else if (arg == "--min-splits") {
      o.minSplits = takeInt(1);
    } else if (arg == "--sms") {
      o.numSMs = takeInt(1);
    } else if (arg == "--stages") {
      o.stages = takeInt(1);
    } else if (arg == "--no-tma") {
      o.tma = false;
    } else if (arg == "--no-ws") {
      o.warpSpecialize = false;
    } else if (arg == "--no-score-warpgroup") {
      o.scoreWarpgroup = false;
    } else if (arg == "--seesaw") {
      o.seesaw = true;
    } else if (arg == "--latent-halves") {
      o.latentHalves = true;
    } else if (arg == "--f16-dots" || arg == "--bf16-dots") {
      o.f16Dots = arg == "--f16-dots";
    } else if (arg == "--fp8-tma" || arg == "--no-fp8-tma") {
      o.fp8Tma = arg == "--fp8-tma";
    } else if (arg == "--fp8-score-warpgroup" ||
               arg == "--no-fp8-score-warpgroup") {
      o.fp8ScoreWarpgroup = arg == "--fp8-score-warpgroup";
    } else if (arg == "--fp8-dots") {
      o.fp8Dots = true;
    } else if (arg == "--schedule-in-stage1") {
      o.scheduleInStage1 = true;
    } else if (arg == "--merge-in-stage1") {
      o.mergeInStage1 = true;
    } else if (arg == "--no-prefetch") {
      o.prefetch = false;
    } else if (arg == "--direct-launch" || arg == "--launch-graph") {
      o.launchGraph = arg == "--launch-graph";
    } else if (arg == "--wide-fp8-tiles") {
      o.wideFp8TilesMinTokens = takeInt(0);
    } else if (arg == "--schedule-overhead") {
      o.scheduleOverhead = takeInt(1);
    } else if (arg == "--schedule-min-piece") {
      o.scheduleMinPiece = takeInt(1);
    } else if (arg == "--persistent") {
      o.persistentWaves = hasValue ? takeInt(1) : 1;
    } else if (arg == "--schedule") {
      std::string mode = take();
      if (mode == "default")
        o.deviceSchedule = mla::DeviceSchedule::Default;
      else if (mode == "off")
        o.deviceSchedule = mla::DeviceSchedule::Off;
      else if (mode == "always")
        o.deviceSchedule = mla::DeviceSchedule::Always;
      else {
        std::fprintf(stderr,
                     "mla-bench: --schedule: expected default, off or always, "
                     "got '%s'\n",
                     mode.c_str());
        std::exit(2);
      }
    } else if (arg == "--kv-dtype") {
      std::string type = take();
      if (type != "bf16" && type != "fp8" && type != "fp8_ds_mla") {
        std::fprintf(stderr,
                     "mla-bench: --kv-dtype: expected bf16, fp8 or "
                     "fp8_ds_mla, got '%s'\n",
                     type.c_str());
        std::exit(2);
      }
      o.kvFormat = type == "fp8"          ? mla::KvCacheFormat::Fp8
                   : type == "fp8_ds_mla" ? mla::KvCacheFormat::Fp8DsMla
                                          : mla::KvCacheFormat::Native;
    } else if (arg == "--warps") {
      o.stage1Warps = takeInt(1);
    } else if (arg == "--runs") {
      o.runs = takeInt(1);
    } else if (arg == "--warmup") {
      o.warmup = takeInt(0);
    } else if (arg == "--host-calls") {
      o.hostCalls = takeInt(0);
    } else if (arg == "--flush-mib") {
      o.flushMiB = size_t(takeInt(0));
    } else if (arg == "--copy-mib") {
      o.copyMiB = size_t(takeInt(1));
    } else if (arg == "--json") {
      o.json = take();
    } else if (arg == "--check") {
      o.check = true;
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--mixes") {
      o.mixes = true;
    } else if (arg == "--step-schedule") {
      o.stepSchedule = true;
    } else {
      std::fprintf(stderr, "mla-bench: unknown argument '%s'\n", argv[i]);
      usage(2);
    }
  }
  for (auto &[flag, text] : axes) {
    std::vector<int> v = parseInts(flag, text);
    if (flag == "--h")
      o.hLargeBatch.clear(); // the heads given are all the heads
    (flag == "--b"    ? o.b
     : flag == "--l"  ? o.l
     : flag == "--h"  ? o.h
     : flag == "--sq" ? o.sq
                      : o.page) = v;
  }
  return o;
}
} // namespace tilemla::bench
