//===- KernelCacheTest.cpp - cache keys, single flight, disk entries ------===//
//
// Runs without a GPU: the cache compiles to PTX (and a cubin when nvJitLink
// is installed) for an explicit architecture; nothing is loaded or launched.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/cache/KernelCache.h"
#include "tilemla/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tilemla::runtime;
namespace fs = std::filesystem;

namespace {
const char *kSource = R"(
kernel scale(x: *f32, out: *f32, n: i32, BLOCK: constexpr = 128, S: constexpr = 2) {
    offs = program_id(0) * BLOCK + arange(0, BLOCK);
    mask = offs < n;
    store(out + offs, load(x + offs, mask=mask, other=0.0) * S, mask=mask);
}
)";

CompileRequest request(const std::string &source = kSource) {
  CompileRequest r;
  r.sourcePath = "scale.tile";
  r.sourceText = source;
  r.constexprs = {{"BLOCK", "128"}};
  r.target = *GpuTarget::parse("sm_90a");
  return r;
}

/// Each test gets its own empty cache folder and a cold memory cache.
class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/tilemla-cache-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir = pattern;
    setenv("TILEMLA_CACHE_DIR", dir.c_str(), 1);
    unsetenv("TILEMLA_CACHE");
    clearMemoryCache();
  }
  void TearDown() override {
    fs::remove_all(dir);
    unsetenv("TILEMLA_CACHE_DIR");
    clearMemoryCache();
  }
  fs::path entry(const std::string &key) {
    return fs::path(dir) / key.substr(0, 2) / key;
  }
  std::string dir;
};

TEST_F(KernelCacheTest, KeyIsStableAndSensitiveToEveryInput) {
  std::string base = computeCacheKey(request());
  EXPECT_EQ(base, computeCacheKey(request()));
  EXPECT_EQ(base.size(), 64u);
  CompileRequest changed = request();
  changed.constexprs["BLOCK"] = "256";
  EXPECT_NE(base, computeCacheKey(changed));
  changed = request();
  changed.constexprs["S"] = "3";
  EXPECT_NE(base, computeCacheKey(changed));
  std::string source = kSource;
  source[source.find('*')] = ' '; // one byte
  EXPECT_NE(base, computeCacheKey(request(source + "")));
  changed = request();
  changed.sourceText += " ";
  EXPECT_NE(base, computeCacheKey(changed));
  changed = request();
  changed.target = *GpuTarget::parse("sm_80");
  EXPECT_NE(base, computeCacheKey(changed));
  changed = request();
  changed.numWarps = 8;
  EXPECT_NE(base, computeCacheKey(changed));
  changed = request();
  changed.argFacts = {{0, false}, {1, false}, {16, false}};
  EXPECT_NE(base, computeCacheKey(changed));
  // A fact that differs only by being one (not a divisor of 10 as text).
  CompileRequest one = request(), ten = request();
  one.argFacts = {{1, false}, {0, true}};
  ten.argFacts = {{1, false}, {0, false}, {0, false}};
  EXPECT_NE(computeCacheKey(one), computeCacheKey(ten));
  // The path is for diagnostics only.
  changed = request();
  changed.sourcePath = "elsewhere.tile";
  EXPECT_EQ(base, computeCacheKey(changed));
}

TEST_F(KernelCacheTest, SixteenThreadsCompileOneKeyOnce) {
  unsigned before = cacheStats().compiles;
  std::vector<std::shared_ptr<const Artifact>> results(16);
  std::vector<std::string> errors(16);
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i)
    threads.emplace_back([&, i] {
      try {
        results[i] = getArtifact(request());
      } catch (const std::exception &error) {
        errors[i] = error.what();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &error : errors)
    ASSERT_EQ(error, "");
  EXPECT_EQ(cacheStats().compiles - before, 1u);
  for (const auto &result : results)
    EXPECT_EQ(result.get(), results[0].get());
  EXPECT_EQ(results[0]->name, "scale");
  EXPECT_NE(results[0]->ptx.find(".entry scale"), std::string::npos);
  EXPECT_EQ(results[0]->params,
            (std::vector<std::string>{"*f32", "*f32", "i32"}));
}

TEST_F(KernelCacheTest, DiskEntryIsReusedByAColdProcess) {
  auto first = getArtifact(request());
  ASSERT_TRUE(fs::exists(entry(first->key) / "meta.json"));
  clearMemoryCache();
  unsigned compiles = cacheStats().compiles, hits = cacheStats().diskHits;
  auto second = getArtifact(request());
  EXPECT_EQ(cacheStats().compiles, compiles);
  EXPECT_EQ(cacheStats().diskHits, hits + 1);
  EXPECT_EQ(second->ptx, first->ptx);
  EXPECT_EQ(second->cubin, first->cubin);
  EXPECT_EQ(second->params, first->params);
}

TEST_F(KernelCacheTest, TruncatedOrCorruptEntriesAreRecompiled) {
  auto first = getArtifact(request());
  fs::path folder = entry(first->key);
  auto recompiles = [&] {
    clearMemoryCache();
    unsigned compiles = cacheStats().compiles;
    auto again = getArtifact(request());
    EXPECT_EQ(again->ptx, first->ptx);
    return cacheStats().compiles == compiles + 1;
  };
  // Truncated PTX.
  fs::resize_file(folder / "kernel.ptx", 100);
  EXPECT_TRUE(recompiles());
  // One flipped byte in the PTX.
  {
    std::fstream ptx(folder / "kernel.ptx", std::ios::in | std::ios::out);
    ptx.seekp(200);
    ptx.put('#');
  }
  EXPECT_TRUE(recompiles());
  // Garbage metadata.
  std::ofstream(folder / "meta.json") << "{ not json";
  EXPECT_TRUE(recompiles());
  // Metadata of another key.
  std::string meta;
  {
    std::ifstream in(folder / "meta.json");
    meta.assign(std::istreambuf_iterator<char>(in), {});
  }
  meta.replace(meta.find(first->key), 4, "0000");
  std::ofstream(folder / "meta.json") << meta;
  EXPECT_TRUE(recompiles());
  // And a healthy entry is not recompiled.
  EXPECT_FALSE(recompiles());
}

TEST_F(KernelCacheTest, CacheOffWritesNothing) {
  setenv("TILEMLA_CACHE", "off", 1);
  auto artifact = getArtifact(request());
  EXPECT_FALSE(fs::exists(entry(artifact->key)));
  unsetenv("TILEMLA_CACHE");
}

TEST_F(KernelCacheTest, TwoProcessesCompilingOneKeyBothSucceed) {
  std::string key = computeCacheKey(request());
  pid_t children[2];
  for (pid_t &child : children) {
    child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      bool ok = false;
      try {
        ok = getArtifact(request())->name == "scale";
      } catch (...) {
      }
      _exit(ok ? 0 : 1);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto loaded = loadFromDisk(dir, key);
  ASSERT_TRUE(loaded.has_value()) << "the shared entry is not valid";
  EXPECT_EQ(loaded->name, "scale");
}

TEST_F(KernelCacheTest, CompileErrorsCarryDiagnostics) {
  try {
    getArtifact(request("kernel broken(x: *f32) { y = ; }"));
    FAIL() << "a broken kernel compiled";
  } catch (const tilemla::Error &error) {
    EXPECT_NE(std::string(error.what()).find("scale.tile:1:"),
              std::string::npos)
        << error.what();
  }
}
} // namespace

TEST_F(KernelCacheTest, UnitStrideFactMakesAccessesVectors) {
  // `stride` is argument 1. Known to be 1, each thread's four elements are
  // contiguous and aligned: one 16-byte load. Unknown: four scalar loads.
  const char *source = R"(
kernel gather(x: *f32, stride: i32, out: *f32) {
    offs = arange(0, 512);
    store(out + offs, load(x + offs * stride));
}
)";
  CompileRequest unit = request(source);
  unit.constexprs.clear();
  unit.argFacts = {{}, {0, true}, {}};
  CompileRequest unknown = unit;
  unknown.argFacts = {{}, {}, {}};
  std::shared_ptr<const Artifact> fast = getArtifact(unit);
  std::shared_ptr<const Artifact> slow = getArtifact(unknown);
  EXPECT_NE(fast->key, slow->key);
  EXPECT_NE(fast->ptx.find("ld.global.v4.b32"), std::string::npos);
  EXPECT_EQ(slow->ptx.find("ld.global.v4"), std::string::npos);
  // The argument stays in the signature.
  EXPECT_EQ(fast->params, slow->params);
}
