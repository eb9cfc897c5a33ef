//===- RuntimeGpuTest.cpp - stream-ordered copies, fills and events -------===//
//
// DeviceBuffer::fillAsync / copyFromAsync, synchronizeStream, GpuEvent,
// deviceInfo, unspecialized arguments, Kernel::prepare, LaunchGraph and the
// assembler's remarks on the GPU; with TILEMLA_INTERPRET=1 on host buffers
// and the host clock. Skipped when neither is available.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <vector>

using namespace tilemla;

namespace {
class RuntimeGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!isGpuAvailable() && !isInterpreterMode())
      GTEST_SKIP() << "no CUDA GPU on this machine: GPU tests skipped "
                      "(TILEMLA_INTERPRET=1 runs them in the interpreter)";
  }
};

std::vector<unsigned char> download(const DeviceBuffer &buffer) {
  synchronize();
  std::vector<unsigned char> host(buffer.size());
  buffer.download(host.data(), host.size());
  return host;
}

/// x[i] = i % 1000 + 0.5 for i < n, letting a programmatic dependent start
/// at once.
Kernel produceKernel() {
  return Kernel::fromSource("produce.tile", R"(
kernel produce(x: *f32, n: i32) {
    launch_dependents();
    i = program_id(0) * 1024 + arange(0, 1024);
    store(x + i, (i % 1000).to(f32) + 0.5, mask=i < n);
})");
}

/// y = 2 x after the kernel before it (grid_dependency_wait).
Kernel doubleKernel() {
  return Kernel::fromSource("double.tile", R"(
kernel double_it(x: *f32, y: *f32, n: i32) {
    grid_dependency_wait();
    i = program_id(0) * 1024 + arange(0, 1024);
    store(y + i, load(x + i, mask=i < n, other=0.0) * 2.0, mask=i < n);
})");
}

TEST_F(RuntimeGpuTest, FillAsyncWritesTheRangeOnly) {
  DeviceBuffer buffer(1000);
  buffer.fill(0x11);
  buffer.fillAsync(0x22, nullptr, 100, 300);
  buffer.fillAsync(0x33, nullptr, 900); // to the end
  synchronizeStream(nullptr);
  std::vector<unsigned char> host = download(buffer);
  for (size_t i = 0; i < host.size(); ++i) {
    unsigned char want = i >= 900 ? 0x33 : i >= 100 && i < 400 ? 0x22 : 0x11;
    ASSERT_EQ(host[i], want) << "byte " << i;
  }
  EXPECT_THROW(buffer.fillAsync(0, nullptr, 1001), Error);
  EXPECT_THROW(buffer.fillAsync(0, nullptr, 500, 501), Error);
  buffer.fillAsync(0, nullptr, 1000); // empty range at the end is fine
}

TEST_F(RuntimeGpuTest, ImpossibleAllocationsThrow) {
  // 1 PiB: more than any device (or, interpreted, the host) has.
  try {
    DeviceBuffer huge(size_t(1) << 50);
    ADD_FAILURE() << "a 1 PiB buffer was allocated";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("1125899906842624 bytes"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(RuntimeGpuTest, CopyFromAsyncCopiesBetweenOffsets) {
  std::vector<unsigned char> pattern(4096);
  std::iota(pattern.begin(), pattern.end(), 0);
  DeviceBuffer source(pattern.size()), target(3000);
  source.upload(pattern.data(), pattern.size());
  target.fill(0);
  target.copyFromAsync(source, 1000, nullptr, 2000, 17);
  target.copyFromAsync(source, 500); // offsets 0
  std::vector<unsigned char> host = download(target);
  for (size_t i = 0; i < host.size(); ++i) {
    unsigned char want = i < 500                 ? pattern[i]
                         : i >= 2000 && i < 3000 ? pattern[i - 2000 + 17]
                                                 : 0;
    ASSERT_EQ(host[i], want) << "byte " << i;
  }
  EXPECT_THROW(target.copyFromAsync(source, 1001, nullptr, 2000), Error);
  EXPECT_THROW(target.copyFromAsync(source, 10, nullptr, 0, 4090), Error);
  EXPECT_THROW(target.copyFromAsync(source, 0, nullptr, 3001), Error);
}

TEST_F(RuntimeGpuTest, EventsTimeStreamOrderedWork) {
  DeviceBuffer big(size_t(64) << 20);
  GpuEvent start, stop;
  EXPECT_THROW(GpuEvent::elapsedMs(start, stop), Error); // never recorded
  EXPECT_THROW(stop.synchronize(), Error);
  start.record();
  for (int i = 0; i < 4; ++i)
    big.fillAsync(static_cast<unsigned char>(i));
  stop.record();
  stop.synchronize();
  float ms = GpuEvent::elapsedMs(start, stop);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 10000.0f);
  // Moved-from events are empty; the moved-to one keeps its recording.
  GpuEvent moved(std::move(stop));
  EXPECT_EQ(GpuEvent::elapsedMs(start, moved), ms);
  EXPECT_THROW(GpuEvent::elapsedMs(start, stop), Error);
}

TEST_F(RuntimeGpuTest, DependentLaunchWaitsForThePreviousKernel) {
  // A programmatic dependent launch (sm_90+) may start while `produce` still
  // runs (it allows that first thing); `consume` must still see all of
  // produce's writes after grid_dependency_wait. 64 Mi elements keep
  // produce busy long enough for the overlap to matter.
  Kernel produce = produceKernel();
  Kernel consume = doubleKernel();
  const int n = isInterpreterMode() ? 5000 : 64 << 20;
  DeviceBuffer x(size_t(n) * 4), y(size_t(n) * 4);
  unsigned grid = unsigned((n + 1023) / 1024);
  for (int round = 0; round < 3; ++round) {
    x.fill(0xff); // NaN until produce writes
    y.fill(0xff);
    produce.launch({grid, 1, 1},
                   {KernelArg::pointer(x.data()), KernelArg::i32(n)});
    consume.launch({grid, 1, 1},
                   {KernelArg::pointer(x.data()), KernelArg::pointer(y.data()),
                    KernelArg::i32(n)},
                   nullptr, LaunchOptions{/*programmaticDependent=*/true});
    std::vector<unsigned char> bytes = download(y);
    const float *values = reinterpret_cast<const float *>(bytes.data());
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      wrong += values[i] != 2.0f * (float(i % 1000) + 0.5f);
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
}

TEST_F(RuntimeGpuTest, LaunchGraphRunsItsLaunchesInOrder) {
  // Up to three launches as one graph (the second a programmatic dependent
  // of the first, the third ordinary or dependent), in rounds that change
  // buffers' lengths and grids (a made graph's nodes given new parameters),
  // the number of launches and the third's dependence (graphs of their own,
  // more of them than LaunchGraph keeps, then ones it has kept): every
  // output must follow.
  Kernel produce = produceKernel();
  Kernel twice = doubleKernel();
  const int most = isInterpreterMode() ? 5000 : 16 << 20;
  DeviceBuffer x(size_t(most) * 4), y(size_t(most) * 4), z(size_t(most) * 4);
  LaunchGraph graph;
  const LaunchOptions dependent{/*programmaticDependent=*/true};
  struct Round {
    size_t count;
    bool thirdDependent;
    bool shorter;
  };
  const Round rounds[] = {
      {3, false, false}, {3, false, true}, {2, false, false},
      {3, false, false}, {3, true, false}, {1, false, true},
      {3, true, true},   {2, false, true}, {3, false, true}};
  static_assert(std::size(rounds) > LaunchGraph::kMaxGraphs);
  int round = 0;
  for (const Round &r : rounds) {
    const int n = r.shorter ? most / 3 + 7 : most;
    for (DeviceBuffer *buffer : {&x, &y, &z})
      buffer->fill(0xff); // NaN until written
    const unsigned grid = unsigned((n + 1023) / 1024);
    std::vector<KernelArg> produced = {KernelArg::pointer(x.data()),
                                       KernelArg::i32(n)};
    std::vector<KernelArg> doubled = {KernelArg::pointer(x.data()),
                                      KernelArg::pointer(y.data()),
                                      KernelArg::i32(n)};
    std::vector<KernelArg> quadrupled = {KernelArg::pointer(y.data()),
                                         KernelArg::pointer(z.data()),
                                         KernelArg::i32(n)};
    const LaunchGraph::Launch launches[3] = {
        {&produce, {grid, 1, 1}, &produced, {}},
        {&twice, {grid, 1, 1}, &doubled, dependent},
        {&twice,
         {grid, 1, 1},
         &quadrupled,
         r.thirdDependent ? dependent : LaunchOptions()}};
    graph.launch(launches, r.count);
    const DeviceBuffer *last[] = {&x, &y, &z};
    std::vector<unsigned char> bytes = download(*last[r.count - 1]);
    const float *values = reinterpret_cast<const float *>(bytes.data());
    const float factor = float(1 << (r.count - 1));
    int wrong = 0, touched = 0;
    for (int i = 0; i < n; ++i)
      wrong += values[i] != factor * (float(i % 1000) + 0.5f);
    for (int i = n; i < most; ++i)
      touched += !std::isnan(values[i]);
    EXPECT_EQ(wrong, 0) << "round " << round;
    EXPECT_EQ(touched, 0) << "round " << round << ": written past n";
    ++round;
  }
  const LaunchGraph::Launch tooMany[5] = {};
  EXPECT_THROW(graph.launch(tooMany, 5), Error);
}

TEST_F(RuntimeGpuTest, AtomicAddLetsTheLastProgramSeeEveryWrite) {
  // Each program writes its row, then counts itself in with atomic_add; the
  // one that gets count - 1 sums every row. The add orders each program's
  // writes before it, and the last program's reads after it: no row may
  // still read as the NaN poison, and every ticket is handed out once.
  Kernel kernel = Kernel::fromSource("last_sums.tile", R"(
kernel last_sums(counter: *i32, tickets: *i32, x: *f32, out: *f32) {
    i = arange(0, 256);
    store(x + program_id(0) * 256 + i, ((program_id(0) + i) % 8).to(f32));
    ticket = atomic_add(counter, 1);
    store(tickets + program_id(0), ticket);
    if ticket == num_programs(0) - 1 {
        total = zeros((256,), f32);
        for p in range(0, num_programs(0)) {
            total = total + load(x + p * 256 + i);
        }
        store(out + i, total);
    }
})");
  const int programs = isInterpreterMode() ? 24 : 2000;
  DeviceBuffer counter(4), tickets(size_t(programs) * 4),
      x(size_t(programs) * 256 * 4), out(256 * 4);
  for (int round = 0; round < 3; ++round) {
    counter.fill(0);
    x.fill(0xff);
    out.fill(0xff);
    kernel.launch(
        {unsigned(programs), 1, 1},
        {KernelArg::pointer(counter.data()), KernelArg::pointer(tickets.data()),
         KernelArg::pointer(x.data()), KernelArg::pointer(out.data())});
    std::vector<unsigned char> countBytes = download(counter),
                               ticketBytes = download(tickets),
                               outBytes = download(out);
    EXPECT_EQ(*reinterpret_cast<const int32_t *>(countBytes.data()), programs);
    std::vector<int> seen(programs, 0);
    const int32_t *ticket =
        reinterpret_cast<const int32_t *>(ticketBytes.data());
    for (int p = 0; p < programs; ++p)
      if (ticket[p] >= 0 && ticket[p] < programs)
        ++seen[ticket[p]];
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), programs)
        << "round " << round << ": tickets repeat or are out of range";
    const float *sums = reinterpret_cast<const float *>(outBytes.data());
    int wrong = 0;
    for (int i = 0; i < 256; ++i) {
      float want = 0;
      for (int p = 0; p < programs; ++p)
        want += float((p + i) % 8);
      wrong += sums[i] != want;
    }
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
}

TEST_F(RuntimeGpuTest, WaitFlagHandsOverTheFirstProgramsWrites) {
  // Program 0 writes a row, then raises the flag with atomic_add (release);
  // every program waits for the flag (acquire) and copies the row. No copy
  // may still read the NaN poison; in a second launch the flag is already
  // raised and program 0 writes new values first.
  Kernel kernel = Kernel::fromSource("hand_over.tile", R"(
kernel hand_over(flag: *i32, row: *f32, out: *f32, round: i32) {
    i = arange(0, 256);
    if program_id(0) == 0 {
        store(row + i, (i + round).to(f32));
        atomic_add(flag, 1);
    }
    wait_flag(flag, round + 1);
    store(out + program_id(0) * 256 + i, load(row + i));
})");
  const int programs = isInterpreterMode() ? 16 : 2000;
  DeviceBuffer flag(4), row(256 * 4), out(size_t(programs) * 256 * 4);
  flag.fill(0);
  for (int round = 0; round < 2; ++round) {
    row.fill(0xff);
    out.fill(0xff);
    kernel.launch({unsigned(programs), 1, 1},
                  {KernelArg::pointer(flag.data()),
                   KernelArg::pointer(row.data()),
                   KernelArg::pointer(out.data()), KernelArg::i32(round)});
    std::vector<unsigned char> bytes = download(out);
    const float *copied = reinterpret_cast<const float *>(bytes.data());
    int wrong = 0;
    for (int p = 0; p < programs; ++p)
      for (int i = 0; i < 256; ++i)
        wrong += copied[size_t(p) * 256 + i] != float(i + round);
    EXPECT_EQ(wrong, 0) << "round " << round;
  }
}

TEST_F(RuntimeGpuTest, WaitFlagNobodyRaisesIsAnErrorInTheInterpreter) {
  if (!isInterpreterMode())
    GTEST_SKIP() << "on the GPU this launch would never end";
  Kernel kernel = Kernel::fromSource("never.tile", R"(
kernel never(flag: *i32) {
    wait_flag(flag, 1);
})");
  DeviceBuffer flag(4);
  flag.fill(0);
  try {
    kernel.launch({1, 1, 1}, {KernelArg::pointer(flag.data())});
    FAIL() << "the launch returned";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("wait_flag would wait forever"),
              std::string::npos)
        << e.what();
  }
}

// An unspecialized integer is compiled without facts about its value: 1
// and 16 (which a specialized argument would each compile for) share one
// specialization, and the kernel still sees the value.
TEST_F(RuntimeGpuTest, UnspecializedArgumentsShareOneCompile) {
  Kernel kernel = Kernel::fromSource("scale.tile", R"(
kernel scale(x: *i32, n: i32) {
    i = arange(0, 64);
    store(x + i, i * n);
})");
  DeviceBuffer x(64 * 4);
  auto run = [&](KernelArg n) {
    x.fill(0xff);
    kernel.launch({1, 1, 1}, {KernelArg::pointer(x.data()), n});
    std::vector<unsigned char> bytes = download(x);
    return std::vector<int32_t>(
        reinterpret_cast<const int32_t *>(bytes.data()),
        reinterpret_cast<const int32_t *>(bytes.data()) + 64);
  };
  for (int32_t n : {1, 16, 7}) {
    std::vector<int32_t> got = run(KernelArg::i32(n).unspecialized());
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(got[i], i * n) << "n=" << n << " i=" << i;
  }
  if (isInterpreterMode())
    return; // no compiled specializations to compare
  run(KernelArg::i32(1).unspecialized());
  std::string unspecialized = kernel.info().cacheKey;
  run(KernelArg::i32(16).unspecialized());
  EXPECT_EQ(kernel.info().cacheKey, unspecialized);
  run(KernelArg::i32(16));
  EXPECT_NE(kernel.info().cacheKey, unspecialized);
  run(KernelArg::i32(1));
  EXPECT_NE(kernel.info().cacheKey, unspecialized);
}

// Kernel::prepare compiles several kernels' specializations at once (in
// threads) and loads them; the launches then use exactly those. A kernel
// that does not compile throws its diagnostics.
TEST_F(RuntimeGpuTest, PrepareCompilesWhatTheLaunchesUse) {
  Kernel add = Kernel::fromSource("prepare_add.tile", R"(
kernel add(x: *i32, v: i32) {
    i = arange(0, 64);
    store(x + i, i + v);
})");
  Kernel mul = Kernel::fromSource("prepare_mul.tile", R"(
kernel mul(x: *i32, v: i32) {
    i = arange(0, 64);
    store(x + i, i * v);
})");
  DeviceBuffer x(64 * 4), y(64 * 4);
  x.fill(0xff);
  y.fill(0xff);
  const std::vector<KernelArg> addArgs = {KernelArg::pointer(x.data()),
                                          KernelArg::i32(3)},
                               mulArgs = {KernelArg::pointer(y.data()),
                                          KernelArg::i32(5)};
  Kernel::prepare({{add, addArgs}, {mul, mulArgs}});
  std::string addKey, mulKey;
  if (!isInterpreterMode())
    addKey = add.info().cacheKey, mulKey = mul.info().cacheKey;
  add.launch({1, 1, 1}, addArgs);
  mul.launch({1, 1, 1}, mulArgs);
  std::vector<unsigned char> xs = download(x), ys = download(y);
  const int32_t *xi = reinterpret_cast<const int32_t *>(xs.data()),
                *yi = reinterpret_cast<const int32_t *>(ys.data());
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(xi[i], i + 3) << i;
    ASSERT_EQ(yi[i], i * 5) << i;
  }
  if (!isInterpreterMode()) {
    EXPECT_EQ(add.info().cacheKey, addKey);
    EXPECT_EQ(mul.info().cacheKey, mulKey);
  }

  Kernel broken = Kernel::fromSource("prepare_broken.tile", R"(
kernel broken(x: *i32) {
    store(x, no_such_name);
})");
  try {
    Kernel::prepare({{add, addArgs}, {broken, {KernelArg::pointer(x.data())}}});
    ADD_FAILURE() << "a kernel that does not compile was prepared";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("prepare_broken.tile"),
              std::string::npos)
        << error.what();
  }
}

// nvJitLink's ptxas serializes every wgmma of a kernel it cannot keep
// asynchronous (a wait after each instruction, most of a tensor-core
// kernel's speed) and says so only in its log, which KernelInfo carries.
TEST_F(RuntimeGpuTest, WgmmaKernelsAreNotSerialized) {
  if (isInterpreterMode() || !deviceInfo().target ||
      !deviceInfo().target->hasWgmma())
    GTEST_SKIP() << "wgmma needs sm_90a";
  const std::string serialized = "wgmma.mma_async instructions are serialized";
  KernelOptions eightWarps;
  eightWarps.numWarps = 8;
  KernelInfo matmul = Kernel::fromEmbedded("examples/matmul_desc",
                                           {{"BLOCK_N", "256"}}, eightWarps)
                          .info();
  if (!matmul.hasCubin)
    GTEST_SKIP() << "no nvJitLink: the driver assembles the PTX";
  EXPECT_EQ(matmul.assemblerLog.find(serialized), std::string::npos)
      << matmul.assemblerLog;
  // A 16-bit C: the accumulator's conversions and quad-transposed stores.
  KernelInfo matmulBf16 =
      Kernel::fromEmbedded("examples/matmul_desc",
                           {{"BLOCK_N", "256"}, {"OUT", "bf16"}}, eightWarps)
          .info();
  EXPECT_EQ(matmulBf16.assemblerLog.find(serialized), std::string::npos)
      << matmulBf16.assemblerLog;
  KernelInfo mla = Kernel::fromEmbedded("mla/mla_decode_stage1",
                                        {{"H", "128"},
                                         {"BLOCK_H", "64"},
                                         {"TMA", "1"},
                                         {"CHUNK_ALIGN", "64"}},
                                        eightWarps)
                       .info();
  EXPECT_EQ(mla.assemblerLog.find(serialized), std::string::npos)
      << mla.assemblerLog;
  // Warp-specialized kernels are compiled whole by the driver: ptxas honours
  // their setmaxnreg (relocatable, it ignores it: C7504, then spills and
  // serializes).
  KernelInfo matmulWs =
      Kernel::fromEmbedded("examples/matmul_desc", {{"WARP_SPECIALIZE", "1"}})
          .info();
  KernelInfo mlaWs = Kernel::fromEmbedded("mla/mla_decode_stage1",
                                          {{"H", "128"},
                                           {"BLOCK_H", "64"},
                                           {"TMA", "1"},
                                           {"CHUNK_ALIGN", "64"},
                                           {"WARP_SPECIALIZE", "1"}},
                                          eightWarps)
                         .info();
  for (const KernelInfo &ws : {matmulWs, mlaWs}) {
    EXPECT_EQ(ws.producerWarps, 4) << ws.name;
    EXPECT_FALSE(ws.hasCubin) << ws.name;
    EXPECT_EQ(ws.assemblerLog.find("Potential Performance Loss"),
              std::string::npos)
        << ws.name << ": " << ws.assemblerLog;
  }
  // The log is read: IEEE sqrt is a ptxas subroutine, and a kernel that
  // calls one has its wgmma serialized.
  const char *sqrtAfterDots = R"(
kernel attend_sqrt(q_ptr: *bf16, kv: *bf16, out: *f32, n: i32) {
    d = arange(0, 128);
    hq = arange(0, 64);
    q = load(q_ptr + hq[:, None] * 128 + d[None, :]);
    acc = zeros((64, 128), f32);
    for n0 in range(0, n, 32, stages=2) {
        rows = n0 + arange(0, 32);
        keys = load(kv + rows[:, None] * 128 + d[None, :],
                    mask=(rows < n)[:, None], other=0.0);
        acc = dot(dot(q, keys, trans_b=True).to(bf16), keys, acc);
    }
    store(out + hq[:, None] * 128 + d[None, :], sqrt(acc));
}
)";
  KernelInfo withSqrt =
      Kernel::fromSource("attend_sqrt.tile", sqrtAfterDots, {}, eightWarps)
          .info();
  EXPECT_NE(withSqrt.assemblerLog.find(serialized), std::string::npos)
      << "log: '" << withSqrt.assemblerLog << "'";
}

TEST_F(RuntimeGpuTest, DeviceInfoDescribesTheDevice) {
  DeviceInfo info = deviceInfo();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.multiprocessors, 0);
  if (!isInterpreterMode()) {
    EXPECT_GE(info.ordinal, 0);
    EXPECT_GT(info.totalMemory, size_t(0));
    EXPECT_LE(info.freeMemory, info.totalMemory);
  } else {
    EXPECT_EQ(info.ordinal, -1);
  }
}
} // namespace
