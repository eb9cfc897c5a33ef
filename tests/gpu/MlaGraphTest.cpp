//===- MlaGraphTest.cpp - forward_decode in CUDA graphs and threads -----===//
//
// forward_decode allocates nothing and never synchronizes, so a CUDA graph
// can capture it: the test captures one call on a stream, then replays the
// graph after uploading new inputs (q, KV cache, block table) into the same
// buffers, and checks every replay against the fp64 reference. The graph API
// is reached through libcuda.so.1 directly (dlopen), as a framework would.
// A replay on an fp8 cache reads the scale its device scalar holds then.
// A checked call's replay reports a bad page id on the next call. Then host
// threads call forward_decode at once, each on its own stream.
//
//===----------------------------------------------------------------------===//
#include "../common/DynamicLibrary.h"
#include "../common/MlaViews.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <algorithm>
#include <dlfcn.h>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <thread>
#include <vector>

using namespace tilemla;
using namespace tilemla::test;
namespace mla = tilemla::mla;

namespace {
/// The few driver entry points the test needs for graphs.
struct GraphApi {
  int (*streamCreate)(void **, unsigned);
  int (*streamDestroy)(void *);
  int (*beginCapture)(void *, int);
  int (*endCapture)(void *, void **);
  int (*instantiate)(void **, void *, unsigned long long);
  int (*launch)(void *, void *);
  int (*streamSynchronize)(void *);
  int (*graphDestroy)(void *);
  int (*execDestroy)(void *);

  static const GraphApi *get() {
    static GraphApi api;
    static bool loaded = [] {
      void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!lib)
        return false;
      return bindSymbol(lib, "cuStreamCreate", api.streamCreate) &&
             bindSymbol(lib, "cuStreamDestroy_v2", api.streamDestroy) &&
             bindSymbol(lib, "cuStreamBeginCapture_v2", api.beginCapture) &&
             bindSymbol(lib, "cuStreamEndCapture", api.endCapture) &&
             bindSymbol(lib, "cuGraphInstantiateWithFlags", api.instantiate) &&
             bindSymbol(lib, "cuGraphLaunch", api.launch) &&
             bindSymbol(lib, "cuStreamSynchronize", api.streamSynchronize) &&
             bindSymbol(lib, "cuGraphDestroy", api.graphDestroy) &&
             bindSymbol(lib, "cuGraphExecDestroy", api.execDestroy);
    }();
    return loaded ? &api : nullptr;
  }
};

constexpr int kCaptureModeThreadLocal = 1;
constexpr unsigned kStreamNonBlocking = 1;

/// One decode captured in a CUDA graph on a non-blocking stream of its own:
/// `decode(stream)` runs once outside the capture (a first call compiles),
/// then once captured. The graph, its instance and the stream go with it.
class CapturedDecode {
public:
  CapturedDecode(const GraphApi *api,
                 const std::function<void(void *stream)> &decode)
      : api(api) {
    if (api->streamCreate(&stream, kStreamNonBlocking) != 0)
      return;
    decode(stream);
    if (api->streamSynchronize(stream) != 0 ||
        api->beginCapture(stream, kCaptureModeThreadLocal) != 0)
      return;
    decode(stream);
    ok = api->endCapture(stream, &graph) == 0 &&
         api->instantiate(&exec, graph, 0) == 0;
  }
  CapturedDecode(const CapturedDecode &) = delete;
  CapturedDecode &operator=(const CapturedDecode &) = delete;
  ~CapturedDecode() {
    if (exec)
      api->execDestroy(exec);
    if (graph)
      api->graphDestroy(graph);
    if (stream)
      api->streamDestroy(stream);
  }
  /// Launches the graph and waits for it: 0, or the driver's error.
  int replay() const {
    int status = api->launch(exec, stream);
    return status ? status : api->streamSynchronize(stream);
  }

  bool ok = false; ///< captured and instantiated
  void *stream = nullptr;

private:
  const GraphApi *api;
  void *graph = nullptr, *exec = nullptr;
};

/// Captures one forward_decode of `c` in a graph and replays it three times
/// with new values, a new page order and the lengths moved between requests,
/// then shorter lengths (the longest sized the split count at capture; a
/// device schedule is made anew on every replay).
/// `persistentWaves`, `schedule`: the TritonMLAOptions; `stepSchedule`: the
/// graph holds a decode step's scheduleDecode before the call, which reads
/// that schedule (DecodeMetadata::schedule); `inStage1`: the schedule is
/// made by stage 1 (TritonMLAOptions::scheduleInStage1), whose flag each
/// replay raises and lowers again; `asGraph`: TritonMLAOptions::launchAsGraph
/// (the first call launches its graph, the captured one launches directly).
void captureAndReplay(
    const GraphApi *api, MlaCase c, std::mt19937_64 &rng,
    int persistentWaves = 0,
    mla::DeviceSchedule schedule = mla::DeviceSchedule::Default,
    bool stepSchedule = false, bool inStage1 = false, bool asGraph = false) {
  SCOPED_TRACE(
      c.describe() + " persistentWaves=" + std::to_string(persistentWaves) +
      " schedule=" + std::to_string(int(schedule)) +
      (stepSchedule ? " step schedule" : "") +
      (inStage1 ? " made in stage 1" : "") + (asGraph ? " launch graph" : ""));
  MlaProblem p = makeMlaProblem(c, rng);
  const int64_t B = c.B(), H = c.H, R = c.R, P = c.P, rows = c.rows();
  mla::TritonMLAOptions options;
  options.maxBatch = B;
  options.maxQueryLen = c.sq;
  options.splitPolicy = mla::SplitPolicy::Auto;
  options.persistentWaves = persistentWaves;
  options.deviceSchedule = schedule;
  options.scheduleInStage1 = inStage1;
  options.launchAsGraph = asGraph;
  mla::TritonMLAImpl impl(H, R + P, c.scale, 1, std::nullopt, std::nullopt,
                          "auto", std::nullopt, "decoder", std::nullopt,
                          mla::MLAArgs{R, P, 128, 128}, options);

  DeviceBuffer dq(p.qn.bytes.size()), dkv(p.kv.bytes.size()),
      dbt(p.blockTable.size() * 4), dlens(p.seqLens.size() * 4),
      dout(size_t(B) * rows * R * 2), dlse(size_t(B) * rows * 4);
  auto uploadInputs = [&](const MlaProblem &problem) {
    ASSERT_EQ(problem.qn.bytes.size(), dq.size());
    ASSERT_EQ(problem.kv.bytes.size(), dkv.size());
    ASSERT_EQ(problem.blockTable.size() * 4, dbt.size());
    dq.upload(problem.qn.bytes.data(), dq.size());
    dkv.upload(problem.kv.bytes.data(), dkv.size());
    dbt.upload(problem.blockTable.data(), dbt.size());
    dlens.upload(problem.seqLens.data(), dlens.size());
    dout.fill(0xff);
    dlse.fill(0xff);
    // The copies and fills run on the legacy stream, which the graph's
    // non-blocking stream does not wait for: finish them first (under
    // initcheck's timing the poison landed after the replay's writes).
    synchronize();
  };
  mla::TensorView q = queryView(p, dq.data(), mla::DType::BF16);
  mla::TensorView kv = kvCacheView(p, dkv.data(), mla::DType::BF16);
  mla::DecodeMetadata md = decodeMetadata(p, dbt.data(), dlens.data());
  auto [o, lse] = outputViews(p, dout.data(), mla::DType::BF16, dlse.data(),
                              mla::DType::F32);

  uploadInputs(p);
  std::unique_ptr<mla::DecodeSchedule> step =
      stepSchedule ? impl.newDecodeSchedule(c.sq) : nullptr;
  CapturedDecode captured(api, [&](void *stream) {
    mla::DecodeMetadata metadata = md;
    if (step) {
      impl.scheduleDecode(metadata, *step, stream);
      metadata.schedule = step.get();
    }
    impl.forward_decode(q, kv, metadata, o, lse, stream);
  });
  ASSERT_TRUE(captured.ok);

  for (int replay = 0; replay < 3; ++replay) {
    // Same shapes, new values and a new page order.
    MlaCase moved = c;
    if (replay > 0)
      std::shuffle(moved.lens.begin(), moved.lens.end(), rng);
    MlaProblem fresh = replay == 0 ? p : makeMlaProblem(moved, rng);
    if (replay == 2) {
      // New lengths, each within its request's pages (same buffers).
      for (size_t b = 0; b < fresh.seqLens.size(); ++b) {
        std::uniform_int_distribution<int> len(0, fresh.seqLens[b]);
        fresh.seqLens[b] = fresh.c.lens[b] = len(rng);
      }
    }
    uploadInputs(fresh);
    ASSERT_EQ(captured.replay(), 0);
    HostTensor got(DType::BF16, size_t(B) * rows * R),
        gotLse(DType::F32, size_t(B) * rows);
    dout.download(got.bytes.data(), got.bytes.size());
    dlse.download(gotLse.bytes.data(), gotLse.bytes.size());
    got.decode();
    gotLse.decode();
    MlaErrors e =
        mlaErrors(fresh, mlaReference(fresh), got.values, gotLse.values);
    EXPECT_LE(e.o, 1e-2) << "replay " << replay << " at " << e.where;
    EXPECT_LE(e.lse, 1e-3) << "replay " << replay;
    std::printf("[ mla ] graph replay %d: o rel err %.3e  lse abs err %.3e\n",
                replay, e.o, e.lse);
  }
}

/// The graph API and a fresh seed; without a GPU the test is skipped.
class MlaGraphTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!isGpuAvailable())
      GTEST_SKIP() << "CUDA graphs need a GPU";
    api = GraphApi::get();
    ASSERT_NE(api, nullptr) << "libcuda.so.1 lacks the graph API";
    seed = freshSeed();
    rng.seed(seed);
  }
  const GraphApi *api = nullptr;
  uint64_t seed = 0;
  std::mt19937_64 rng;
};

TEST_F(MlaGraphTest, CapturedDecodeReplaysWithNewInputs) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  MlaCase c;
  c.H = 16, c.page = 64, c.lens = {4096, 1000, 2048, 77, 0, 3};
  captureAndReplay(api, c, rng);
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always);
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always, false,
                   /*inStage1=*/true);
  // 128 heads over back-to-back pages: on sm_90a, stage 1 with TMA and a
  // producer warpgroup; then on a persistent grid, whose programs' share of
  // items is fixed at capture while the lengths move between replays.
  c.H = 128, c.contiguousPages = true;
  captureAndReplay(api, c, rng);
  // (With the device schedule; host-side splits, persistent or not.)
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always);
  captureAndReplay(api, c, rng, /*persistentWaves=*/1);
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always,
                   /*stepSchedule=*/true);
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always, false,
                   /*inStage1=*/true);
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always, false, false,
                   /*asGraph=*/true);
}

TEST_F(MlaGraphTest, MultiTokenDecodeReplaysWithNewLengths) {
  // Several query tokens per request (causal among them): the lengths
  // change between replays, some below s_q. 16 heads x 4 tokens: on sm_90a
  // the 64-row TMA tiles, as 64 heads.
  SCOPED_TRACE("seed " + std::to_string(seed));
  MlaCase c;
  c.H = 16, c.sq = 3, c.page = 64, c.lens = {4096, 1000, 2, 77, 0, 3};
  captureAndReplay(api, c, rng);
  c.sq = 4, c.contiguousPages = true;
  captureAndReplay(api, c, rng);
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always,
                   /*stepSchedule=*/true);
  c.H = 128, c.sq = 2;
  captureAndReplay(api, c, rng, 0, mla::DeviceSchedule::Always);
}

/// An fp8 cache whose scale is a device scalar: each replay reads the
/// scale the tensor holds then (the outputs follow it), and a host scale is
/// the value captured.
TEST_F(MlaGraphTest, Fp8CacheReplaysWithNewScale) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  // 16 heads (cp.async); 128 over back-to-back pages: on sm_90a the codes
  // stream with TMA, to the score warpgroup (the default) or with a
  // producer warpgroup.
  for (int variant : {0, 1, 2}) {
    const bool wide = variant > 0, producer = variant == 2;
    MlaCase c;
    c.H = wide ? 128 : 16, c.page = 64, c.lens = {1000, 300, 2, 0};
    c.contiguousPages = wide;
    c.kvScale = 1.0 / 256;
    SCOPED_TRACE("H=" + std::to_string(c.H) + (producer ? " producer" : ""));
    MlaProblem p = makeMlaProblem(c, rng);
    mla::TritonMLAOptions options;
    options.maxBatch = c.B();
    options.splitPolicy = mla::SplitPolicy::Auto;
    options.fp8Tma = true;
    options.fp8ScoreWarpgroup = !producer;
    mla::TritonMLAImpl impl(c.H, c.R + c.P, c.scale, 1, std::nullopt,
                            std::nullopt, "fp8", std::nullopt, "decoder",
                            std::nullopt, mla::MLAArgs{c.R, c.P, 128, 128},
                            options);
    MlaDeviceProblem d = uploadMlaProblem(p, mla::DType::BF16);
    DeviceBuffer codes = uploadBytes(p.kvCodes.data(), p.kvCodes.size());
    d.kvView = kvCacheView(p, codes.data(), mla::DType::FP8E4M3);
    if (wide && !isInterpreterMode() && deviceInfo().arch == "sm_90a")
      EXPECT_TRUE(impl.canStreamWithTma(d.kvView, 1));
    DeviceBuffer scale(4);
    auto setScale = [&](float value) {
      scale.upload(&value, 4);
      d.o.fill(0xff);
      d.lse.fill(0xff);
      synchronize(); // the graph's stream does not wait for the legacy one
    };
    mla::DecodeMetadata onDevice = d.metadata;
    onDevice.kv_scale_tensor = {scale.data(), mla::DType::F32, {}, {}, 0};
    mla::DecodeMetadata onHost = d.metadata;
    onHost.kv_scale = float(c.kvScale);

    // `p` with every cache value multiplied by `factor` (a power of two:
    // exact), the reference of scale c.kvScale * factor.
    auto scaled = [&](double factor) {
      MlaProblem q = p;
      for (double &v : q.kv.values)
        v *= factor;
      return q;
    };
    for (bool device : {true, false}) {
      SCOPED_TRACE(device ? "device scale" : "host scale");
      setScale(float(c.kvScale));
      CapturedDecode captured(api, [&](void *stream) {
        impl.forward_decode(d.qView, d.kvView, device ? onDevice : onHost,
                            d.oView, d.lseView, stream);
      });
      ASSERT_TRUE(captured.ok);
      for (double factor : {1.0, 4.0, 0.125, -2.0}) {
        setScale(float(c.kvScale * factor));
        ASSERT_EQ(captured.replay(), 0);
        MlaErrors e = downloadedMlaErrors(scaled(device ? factor : 1.0), d);
        EXPECT_LE(e.o, 1e-2) << "factor " << factor << " at " << e.where;
        EXPECT_LE(e.lse, 1e-3) << "factor " << factor;
      }
    }
  }
}

/// A checked call (TritonMLAOptions::checkInputs) captured in a graph: a
/// valid replay decodes; a replay whose block table holds a page id past the
/// cache decodes that request as empty (nothing outside the cache is read)
/// and the next call outside a capture throws, naming the request, the
/// column and the replay; the calls and replays after it decode again.
TEST_F(MlaGraphTest, CheckedReplayReportsOnTheNextCall) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  MlaCase c;
  c.H = 16, c.page = 64, c.lens = {300, 1000, 77};
  const MlaProblem p = makeMlaProblem(c, rng);
  mla::TritonMLAOptions options;
  options.maxBatch = c.B();
  options.checkInputs = true;
  mla::TritonMLAImpl impl(c.H, c.R + c.P, c.scale, 1, std::nullopt,
                          std::nullopt, "auto", std::nullopt, "decoder",
                          std::nullopt, mla::MLAArgs{c.R, c.P, 128, 128},
                          options);
  MlaDeviceProblem d = uploadMlaProblem(p, mla::DType::BF16);
  auto expectDecoded = [&](const char *what) {
    MlaErrors e = downloadedMlaErrors(p, d);
    EXPECT_LE(e.o, 1e-2) << what << " at " << e.where;
    EXPECT_LE(e.lse, 1e-3) << what;
  };
  auto setTable = [&](const std::vector<int32_t> &table) {
    d.blockTable.upload(table.data(), table.size() * 4);
    d.o.fill(0xff);
    d.lse.fill(0xff);
    synchronize(); // the graph's stream does not wait for the legacy one
  };

  auto decode = [&](void *stream) {
    impl.forward_decode(d.qView, d.kvView, d.metadata, d.oView, d.lseView,
                        stream);
  };
  CapturedDecode captured(api, decode);
  ASSERT_TRUE(captured.ok);

  setTable(p.blockTable);
  ASSERT_EQ(captured.replay(), 0);
  expectDecoded("valid replay");

  // Request 1's third page (tokens 128..191) is past the cache's last one.
  std::vector<int32_t> bad = p.blockTable;
  bad[p.btStride + 2] = p.numPages + 5;
  setTable(bad);
  ASSERT_EQ(captured.replay(), 0);
  setTable(p.blockTable);
  std::string message;
  try {
    decode(captured.stream);
  } catch (const Error &e) {
    message = e.what();
  }
  const std::string expected =
      "block_table[1, 2] = " + std::to_string(p.numPages + 5) +
      ": not a page of kv_cache";
  EXPECT_NE(message.find(expected), std::string::npos)
      << "message: '" << message << "'";
  EXPECT_NE(message.find("CUDA graph replay"), std::string::npos)
      << "message: '" << message << "'";

  decode(captured.stream);
  ASSERT_EQ(api->streamSynchronize(captured.stream), 0);
  expectDecoded("call after the report");
  setTable(p.blockTable);
  ASSERT_EQ(captured.replay(), 0);
  expectDecoded("replay after the report");
}

/// `threads` host threads decode their own batches at once, each on its own
/// stream: through one shared impl (`shared`: the calls queue, and each waits
/// on the device for the previous call's stream), or an impl per thread
/// (kernels compiled and loaded concurrently). Every output is checked.
void decodeFromThreads(const GraphApi *api, MlaCase c, std::mt19937_64 &rng,
                       int threads, bool shared) {
  SCOPED_TRACE(c.describe() + (shared ? " one impl" : " an impl per thread"));
  const int64_t B = c.B(), H = c.H, R = c.R, P = c.P;
  mla::TritonMLAOptions options;
  options.maxBatch = B;
  auto makeImpl = [&] {
    return std::make_unique<mla::TritonMLAImpl>(
        H, R + P, c.scale, 1, std::nullopt, std::nullopt, "auto", std::nullopt,
        "decoder", std::nullopt, mla::MLAArgs{R, P, 128, 128}, options);
  };
  std::unique_ptr<mla::TritonMLAImpl> common = shared ? makeImpl() : nullptr;
  constexpr int kCalls = 3;
  struct Work {
    MlaProblem p;
    std::unique_ptr<mla::TritonMLAImpl> own;
    DeviceBuffer dq, dkv, dbt, dlens, dout, dlse;
    void *stream = nullptr;
  };
  std::vector<std::unique_ptr<Work>> work;
  for (int t = 0; t < threads; ++t) {
    MlaCase mine = c;
    std::shuffle(mine.lens.begin(), mine.lens.end(), rng);
    MlaProblem p = makeMlaProblem(mine, rng);
    auto w = std::unique_ptr<Work>(new Work{
        p, shared ? nullptr : makeImpl(), DeviceBuffer(p.qn.bytes.size()),
        DeviceBuffer(p.kv.bytes.size()), DeviceBuffer(p.blockTable.size() * 4),
        DeviceBuffer(p.seqLens.size() * 4),
        DeviceBuffer(size_t(kCalls) * B * H * R * 2),
        DeviceBuffer(size_t(kCalls) * B * H * 4)});
    w->dq.upload(p.qn.bytes.data(), w->dq.size());
    w->dkv.upload(p.kv.bytes.data(), w->dkv.size());
    w->dbt.upload(p.blockTable.data(), w->dbt.size());
    w->dlens.upload(p.seqLens.data(), w->dlens.size());
    w->dout.fill(0xff);
    w->dlse.fill(0xff);
    ASSERT_EQ(api->streamCreate(&w->stream, kStreamNonBlocking), 0);
    work.push_back(std::move(w));
  }
  synchronize(); // the uploads and fills are done before any stream runs

  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      Work &w = *work[t];
      mla::TritonMLAImpl &impl = shared ? *common : *w.own;
      try {
        mla::TensorView q = queryView(w.p, w.dq.data(), mla::DType::BF16);
        mla::TensorView kv = kvCacheView(w.p, w.dkv.data(), mla::DType::BF16);
        mla::DecodeMetadata md =
            decodeMetadata(w.p, w.dbt.data(), w.dlens.data());
        for (int call = 0; call < kCalls; ++call) {
          char *out =
              static_cast<char *>(w.dout.data()) + size_t(call) * B * H * R * 2;
          char *lse =
              static_cast<char *>(w.dlse.data()) + size_t(call) * B * H * 4;
          impl.forward_decode(
              q, kv, md, mla::contiguousView(out, mla::DType::BF16, {B, H, R}),
              mla::contiguousView(lse, mla::DType::F32, {B, H}), w.stream);
        }
      } catch (const std::exception &e) {
        failures[t] = e.what();
      }
    });
  for (std::thread &thread : pool)
    thread.join();
  for (int t = 0; t < threads; ++t) {
    Work &w = *work[t];
    EXPECT_EQ(failures[t], "") << "thread " << t;
    ASSERT_EQ(api->streamSynchronize(w.stream), 0);
    MlaReference ref = mlaReference(w.p);
    HostTensor got(DType::BF16, size_t(kCalls) * B * H * R),
        gotLse(DType::F32, size_t(kCalls) * B * H);
    w.dout.download(got.bytes.data(), got.bytes.size());
    w.dlse.download(gotLse.bytes.data(), gotLse.bytes.size());
    got.decode();
    gotLse.decode();
    for (int call = 0; call < kCalls; ++call) {
      std::vector<double> o(got.values.begin() + size_t(call) * B * H * R,
                            got.values.begin() + size_t(call + 1) * B * H * R),
          l(gotLse.values.begin() + size_t(call) * B * H,
            gotLse.values.begin() + size_t(call + 1) * B * H);
      MlaErrors e = mlaErrors(w.p, ref, o, l);
      EXPECT_LE(e.o, 1e-2) << "thread " << t << " call " << call << " at "
                           << e.where;
      EXPECT_LE(e.lse, 1e-3) << "thread " << t << " call " << call;
    }
    api->streamDestroy(w.stream);
  }
}

TEST(MlaThreadsTest, ThreadsAndStreamsShareOneImplOrHaveTheirOwn) {
  if (!isGpuAvailable())
    GTEST_SKIP() << "streams need a GPU";
  const GraphApi *api = GraphApi::get();
  ASSERT_NE(api, nullptr) << "libcuda.so.1 lacks the stream API";
  uint64_t seed = freshSeed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  MlaCase c;
  c.H = 16, c.page = 64, c.lens = {4096, 1000, 2048, 77, 0, 3, 9000, 512};
  decodeFromThreads(api, c, rng, 4, /*shared=*/true);
  decodeFromThreads(api, c, rng, 4, /*shared=*/false);
  c.H = 128, c.contiguousPages = true;
  decodeFromThreads(api, c, rng, 4, /*shared=*/true);
}
} // namespace
