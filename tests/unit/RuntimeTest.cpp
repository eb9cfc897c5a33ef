//===- RuntimeTest.cpp - runtime behaviour that needs no GPU --------------===//
#include "tilemla/Runtime.h"
#include "../../runtime/cache/KernelCache.h"
#include "../../runtime/launch/ParallelFor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

using namespace tilemla;
namespace fs = std::filesystem;

namespace {
/// What a driver call without a driver must say.
static bool namesTheMissingDriver(const std::string &message) {
  return message.find("CUDA driver") != std::string::npos ||
         message.find("cuInit") != std::string::npos ||
         message.find("cuDeviceGet") != std::string::npos;
}

// Kernel::prepare's loop: every index once, never more than the bound at
// a time, and an error rethrown only after every call has ended.
TEST(RuntimeTest, ParallelForRunsEachIndexOnceWithinItsBound) {
  std::vector<std::atomic<int>> runs(200);
  std::atomic<int> running{0}, most{0};
  runtime::parallelFor(runs.size(), 4, [&](size_t i) {
    int now = ++running;
    for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);)
      ;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    runs[i]++;
    --running;
  });
  for (size_t i = 0; i < runs.size(); ++i)
    EXPECT_EQ(runs[i], 1) << i;
  EXPECT_LE(most, 4);
  EXPECT_GE(most, 2) << "ran on one thread";

  std::atomic<int> done{0};
  EXPECT_THROW(runtime::parallelFor(50, 3,
                                    [&](size_t i) {
                                      if (i == 7)
                                        throw std::runtime_error("seven");
                                      std::this_thread::sleep_for(
                                          std::chrono::microseconds(100));
                                      ++done;
                                    }),
               std::runtime_error);
  EXPECT_EQ(done, 49);
  runtime::parallelFor(0, 0, [](size_t) { FAIL() << "no work to do"; });
}

TEST(RuntimeTest, LaunchWithoutADriverIsAClearError) {
  if (isGpuAvailable() || isInterpreterMode())
    GTEST_SKIP() << "a GPU (or the interpreter) is present";
  Kernel kernel =
      Kernel::fromEmbedded("examples/vector_add", {{"BLOCK", "256"}});
  try {
    kernel.launch({1, 1, 1}, {KernelArg::i32(0)});
    FAIL() << "a launch without a driver did not throw";
  } catch (const Error &error) {
    EXPECT_TRUE(namesTheMissingDriver(error.what())) << error.what();
  }
}

TEST(RuntimeTest, TimingWithoutADriverIsAClearError) {
  if (isGpuAvailable() || isInterpreterMode())
    GTEST_SKIP() << "a GPU (or the interpreter) is present";
  for (auto attempt : {+[] { GpuEvent event; }, +[] { deviceInfo(); },
                       +[] { synchronizeStream(nullptr); }}) {
    try {
      attempt();
      FAIL() << "a driver call without a driver did not throw";
    } catch (const Error &error) {
      EXPECT_TRUE(namesTheMissingDriver(error.what())) << error.what();
    }
  }
}

TEST(RuntimeTest, UnknownEmbeddedKernelListsTheKnownOnes) {
  try {
    Kernel::fromEmbedded("examples/nope");
    FAIL() << "an unknown kernel name was accepted";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("examples/softmax"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(Kernel::fromFile("/nonexistent/k.tile"), Error);
  EXPECT_THROW(Kernel::fromEmbedded("examples/softmax", {}, {3, ""}), Error);
}

TEST(RuntimeTest, EmitGivesEachStageWithoutAGpu) {
  Kernel kernel =
      Kernel::fromEmbedded("examples/vector_add", {{"BLOCK", "128"}});
  EXPECT_NE(kernel.emit("ptx", "sm_80").find(".target sm_80"),
            std::string::npos);
  EXPECT_NE(kernel.emit("tile").find("tile.load"), std::string::npos);
  EXPECT_NE(kernel.emit("ast").find("vector_add"), std::string::npos);
  try {
    kernel.emit("sass");
    ADD_FAILURE() << "no error for an unknown stage";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), "stage: expected ast, tile, tile-gpu, "
                                     "llvm-mlir, llvm or ptx, got 'sass'");
  }
  Kernel broken = Kernel::fromSource("broken.tile", "kernel k() { x = ; }");
  try {
    broken.emit("tile");
    ADD_FAILURE() << "no error for a syntax error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("broken.tile:1:", 0), 0u) << e.what();
  }
}

TEST(RuntimeTest, OptionsPickAKernelOfTheSource) {
  const std::string source = "fn twice(x) { return 2 * x; }\n"
                             "kernel first(p: *i32) { store(p, twice(1)); }\n"
                             "kernel second(p: *i32) { store(p, twice(2)); }\n";
  EXPECT_NE(Kernel::fromSource("two.tile", source)
                .emit("tile")
                .find("func.func @first"),
            std::string::npos);
  KernelOptions second;
  second.kernel = "second";
  const std::string tile =
      Kernel::fromSource("two.tile", source, {}, second).emit("tile");
  EXPECT_NE(tile.find("func.func @second"), std::string::npos) << tile;
  EXPECT_EQ(tile.find("@first"), std::string::npos) << tile;
  KernelOptions missing;
  missing.kernel = "third";
  try {
    Kernel::fromSource("two.tile", source, {}, missing).emit("tile");
    ADD_FAILURE() << "no error for a kernel the source does not have";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("no kernel named 'third'"),
              std::string::npos)
        << e.what();
  }
  if (!isInterpreterMode())
    return;
  DeviceBuffer out(sizeof(int32_t));
  Kernel::fromSource("two.tile", source, {}, second)
      .launch({1, 1, 1}, {KernelArg::pointer(out.data())});
  int32_t value = 0;
  out.download(&value, sizeof value);
  EXPECT_EQ(value, 4);
}

TEST(RuntimeTest, HostMemoryReachesKernelsOnlyInterpreted) {
  if (isInterpreterMode())
    GTEST_SKIP() << "interpreted: loans are allowed (tests/capi)";
  float values[4] = {};
  EXPECT_THROW(HostMemoryLoan(values, sizeof values), Error);
}

TEST(RuntimeTest, TensorArgCarriesItsShape) {
  alignas(16) static char memory[64];
  KernelArg arg = KernelArg::tensor(memory, 3, 5, 8);
  EXPECT_EQ(arg.kind(), KernelArg::Kind::TensorDesc);
  EXPECT_EQ(*static_cast<uint64_t *>(arg.storage()),
            reinterpret_cast<uint64_t>(memory));
  EXPECT_EQ(arg.tensorRows(), 3);
  EXPECT_EQ(arg.tensorCols(), 5);
  EXPECT_EQ(arg.tensorRowStride(), 8);
  // Scalars keep their value where cuLaunchKernel reads it.
  KernelArg scalar = KernelArg::i32(-7);
  EXPECT_EQ(scalar.kind(), KernelArg::Kind::Int32);
  EXPECT_EQ(*static_cast<int32_t *>(scalar.storage()), -7);
  EXPECT_EQ(scalar.tensorRows(), 0);
  EXPECT_TRUE(scalar.isSpecialized());
  KernelArg plain = scalar.unspecialized();
  EXPECT_FALSE(plain.isSpecialized());
  EXPECT_EQ(*static_cast<int32_t *>(plain.storage()), -7);
  // Argument vectors are built per launch: copies must stay plain.
  static_assert(std::is_trivially_copyable_v<KernelArg>);
  static_assert(sizeof(KernelArg) <= 40);
}

TEST(RuntimeTest, DumpDirGetsEveryStage) {
  char pattern[] = "/tmp/tilemla-dump-test-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  setenv("TILEMLA_DUMP_DIR", pattern, 1);
  setenv("TILEMLA_CACHE", "off", 1);
  runtime::CompileRequest request;
  request.sourcePath = "dumped.tile";
  request.sourceText = "kernel dumped(x: *f32) { store(x + arange(0, 32), "
                       "zeros((32,), f32)); }";
  request.target = *GpuTarget::parse("sm_80");
  runtime::clearMemoryCache();
  runtime::getArtifact(request);
  unsetenv("TILEMLA_DUMP_DIR");
  unsetenv("TILEMLA_CACHE");
  std::vector<std::string> files;
  for (const auto &folder : fs::directory_iterator(pattern))
    for (const auto &file : fs::directory_iterator(folder))
      files.push_back(file.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"0-ast.txt", "1-tile.mlir",
                                             "2-tile-gpu.mlir", "3-llvm.mlir",
                                             "4-llvm.ll", "5-kernel.ptx"}));
  fs::remove_all(pattern);
}

TEST(RuntimeTest, UnusableFoldersAreReportedOnce) {
  // A regular file where the dump folder and the cache folder should be:
  // the compile works, and stderr says once per folder what is skipped.
  char pattern[] = "/tmp/tilemla-not-a-folder-XXXXXX";
  int fd = mkstemp(pattern);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string file = pattern;
  setenv("TILEMLA_DUMP_DIR", (file + "/dumps").c_str(), 1);
  setenv("TILEMLA_CACHE_DIR", (file + "/cache").c_str(), 1);
  unsetenv("TILEMLA_CACHE");
  runtime::CompileRequest request;
  request.sourcePath = "unusable.tile";
  request.target = *GpuTarget::parse("sm_80");
  testing::internal::CaptureStderr();
  for (const char *n : {"32", "64"}) { // two compiles, two keys
    runtime::clearMemoryCache();
    request.sourceText = std::string("kernel unusable(x: *f32) { store(x + "
                                     "arange(0, ") +
                         n + "), zeros((" + n + ",), f32)); }";
    EXPECT_FALSE(runtime::getArtifact(request)->ptx.empty());
  }
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("TILEMLA_DUMP_DIR");
  unsetenv("TILEMLA_CACHE_DIR");
  fs::remove(file);
  auto count = [&](const std::string &what) {
    size_t n = 0;
    for (size_t at = err.find(what); at != std::string::npos;
         at = err.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("tilemla: the kernel cache folder '" + file +
                  "/cache' is not usable"),
            1u)
      << err;
  EXPECT_EQ(count("tilemla: cannot write stage dumps to '" + file +
                  "/dumps/unusable-"),
            2u)
      << err; // one folder per compile
}
} // namespace
