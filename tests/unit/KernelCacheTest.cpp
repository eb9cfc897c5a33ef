//===- KernelCacheTest.cpp - cache keys, single flight, disk entries ------===//
//
// Runs without a GPU: the cache compiles to PTX (and a cubin when nvJitLink
// is installed) for an explicit architecture; nothing is loaded or launched.
//
//===----------------------------------------------------------------------===//
#include "../../runtime/cache/KernelCache.h"
#include "tilemla/Runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace tilemla::runtime;
using tilemla::GpuTarget;
using tilemla::KernelParam;
using ElementType = tilemla::KernelParam::ElementType;
namespace fs = std::filesystem;

namespace tilemla {
/// gtest prints parameters as their signature text.
void PrintTo(const KernelParam &param, std::ostream *os) {
  *os << toString(param);
}
} // namespace tilemla

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
            (std::vector<KernelParam>{{KernelParam::Pointer, ElementType::F32},
                                      {KernelParam::Pointer, ElementType::F32},
                                      {KernelParam::Int32}}));
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

TEST_F(KernelCacheTest, CompileLogSaysWhereTheTimeWent) {
  setenv("TILEMLA_LOG", "other,compile", 1);
  testing::internal::CaptureStderr();
  auto first = getArtifact(request());
  std::string compiled = testing::internal::GetCapturedStderr();
  EXPECT_NE(compiled.find("tilemla: compiled scale [" +
                          first->key.substr(0, 8) + "] for sm_90a: to PTX "),
            std::string::npos)
      << compiled;
  EXPECT_NE(compiled.find(first->cubin.empty() ? "left to the driver"
                                               : "to a cubin (nvJitLink)"),
            std::string::npos)
      << compiled;

  clearMemoryCache();
  testing::internal::CaptureStderr();
  getArtifact(request());
  std::string hit = testing::internal::GetCapturedStderr();
  EXPECT_NE(hit.find("tilemla: scale [" + first->key.substr(0, 8) +
                     "] from the disk cache in "),
            std::string::npos)
      << hit;
  // Memory hits say nothing, nor does anything without the category.
  testing::internal::CaptureStderr();
  getArtifact(request());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  setenv("TILEMLA_LOG", "compiles", 1);
  clearMemoryCache();
  testing::internal::CaptureStderr();
  getArtifact(request());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  unsetenv("TILEMLA_LOG");
}

TEST_F(KernelCacheTest, TimingLogGivesEachCompilesTree) {
  setenv("TILEMLA_LOG", "timing", 1);
  testing::internal::CaptureStderr();
  auto first = getArtifact(request());
  std::string compiled = testing::internal::GetCapturedStderr();
  EXPECT_NE(compiled.find("tilemla: timing of scale [" +
                          first->key.substr(0, 8) + "]:"),
            std::string::npos)
      << compiled;
  for (const char *part : {"parse", "MLIR passes", "LLVM IR optimization",
                           "PTX emission (NVPTX backend)"})
    EXPECT_NE(compiled.find(part), std::string::npos) << part;
  // Only "timing": no compile line; a disk hit compiles nothing to time.
  EXPECT_EQ(compiled.find("tilemla: compiled"), std::string::npos);
  clearMemoryCache();
  testing::internal::CaptureStderr();
  getArtifact(request());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  unsetenv("TILEMLA_LOG");
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
  // A signature naming a type no kernel parameter has.
  {
    std::ifstream in(folder / "meta.json");
    meta.assign(std::istreambuf_iterator<char>(in), {});
  }
  meta.replace(meta.find("\"i32\""), 5, "\"i16\"");
  std::ofstream(folder / "meta.json") << meta;
  EXPECT_TRUE(recompiles());
  // And a healthy entry is not recompiled.
  EXPECT_FALSE(recompiles());
  // A folder where the PTX belongs, a file where the entry's folder
  // belongs: recompiled once, then repaired.
  fs::remove(folder / "kernel.ptx");
  fs::create_directories(folder / "kernel.ptx" / "inside");
  EXPECT_TRUE(recompiles());
  EXPECT_FALSE(recompiles());
  fs::remove_all(folder);
  std::ofstream(folder) << "not a folder";
  EXPECT_TRUE(recompiles());
  EXPECT_TRUE(fs::is_directory(folder));
  EXPECT_FALSE(recompiles());
  // A dead writer's temporary file goes when the entry is written again
  // (an hour old); a fresh one may be a living writer's and stays.
  fs::path old = folder / "kernel.ptx.tmp.1.0",
           fresh = folder / "meta.json.tmp.2.0";
  std::ofstream(old) << "partial";
  std::ofstream(fresh) << "partial";
  fs::last_write_time(old,
                      fs::file_time_type::clock::now() - std::chrono::hours(2));
  fs::remove(folder / "meta.json");
  EXPECT_TRUE(recompiles());
  EXPECT_FALSE(fs::exists(old));
  EXPECT_TRUE(fs::exists(fresh));
}

/// An entry with every kind of parameter; the PTX is a placeholder (nothing
/// is loaded).
Artifact typedArtifact(const std::string &key) {
  Artifact artifact;
  artifact.key = key;
  artifact.name = "signature";
  artifact.target = *GpuTarget::parse("sm_90a");
  artifact.ptx = "// not loaded\n";
  artifact.sharedBytes = 1024;
  artifact.params = {{KernelParam::Pointer, ElementType::BF16},
                     {KernelParam::Pointer, ElementType::I1},
                     {KernelParam::TensorDesc, ElementType::FP8E4M3},
                     {KernelParam::TensorDesc, ElementType::F16, 64, 32, 64},
                     {KernelParam::Int32},
                     {KernelParam::Int64},
                     {KernelParam::Float32},
                     {KernelParam::Float16},
                     {KernelParam::BFloat16},
                     {KernelParam::Bool}};
  return artifact;
}

std::string readText(const fs::path &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(KernelCacheTest, TypedSignatureSurvivesTheDisk) {
  Artifact stored = typedArtifact(computeCacheKey(request()));
  storeToDisk(dir, stored);
  std::optional<Artifact> loaded = loadFromDisk(dir, stored.key);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->params, stored.params);
  EXPECT_EQ(tilemla::toString(loaded->params[3]),
            "desc<f16>:tma=64x32:swizzle=64");
  // Typed fields, not the display text.
  std::string meta = readText(entry(stored.key) / "meta.json");
  EXPECT_EQ(meta.find("desc<"), std::string::npos) << meta;
  EXPECT_NE(meta.find("\"box_cols\": 32"), std::string::npos) << meta;
}

TEST_F(KernelCacheTest, DamagedSignaturesAreNotTrusted) {
  Artifact stored = typedArtifact(computeCacheKey(request()));
  storeToDisk(dir, stored);
  fs::path metaPath = entry(stored.key) / "meta.json";
  const std::string healthy = readText(metaPath);
  ASSERT_TRUE(loadFromDisk(dir, stored.key).has_value());
  auto trustedAfter = [&](const std::string &from, const std::string &to) {
    std::string meta = healthy;
    size_t at = meta.find(from);
    EXPECT_NE(at, std::string::npos) << from << " not in " << meta;
    if (at != std::string::npos)
      meta.replace(at, from.size(), to);
    std::ofstream(metaPath, std::ios::trunc) << meta;
    return loadFromDisk(dir, stored.key).has_value();
  };
  EXPECT_FALSE(trustedAfter("\"i64\"", "\"i16\"")) << "unknown kind";
  EXPECT_FALSE(trustedAfter("\"fp8e4m3\"", "\"fp8e5m2\""))
      << "unknown element type";
  EXPECT_FALSE(trustedAfter("\"bf16\"", "\"\"")) << "empty element type";
  EXPECT_FALSE(trustedAfter("\"kind\": \"i32\"",
                            "\"kind\": \"i32\", \"element_type\": \"f32\""))
      << "an element type on a scalar";
  EXPECT_FALSE(trustedAfter("\"swizzle\": 64", "\"swizzle\": 48"))
      << "a swizzle TMA has not";
  EXPECT_FALSE(trustedAfter("\"box_rows\": 64", "\"box_rows\": 512"))
      << "a box too large";
  EXPECT_FALSE(trustedAfter("\"box_cols\": 32", "\"box_cols\": -32"))
      << "a negative box";
  EXPECT_FALSE(
      trustedAfter("\"kind\": \"i32\"", "\"kind\": \"i32\", \"tma\": {}"))
      << "a TMA box on a scalar";
  EXPECT_FALSE(trustedAfter("\"params\": [", "\"params\": [\"*f32\", "))
      << "a parameter in the old text form";
  EXPECT_FALSE(trustedAfter("\"params\"", "\"parameters\"")) << "no signature";
  // Launch fields are covered by the metadata's checksum.
  EXPECT_FALSE(trustedAfter("\"shared_bytes\": 1024", "\"shared_bytes\": 2048"))
      << "an edited launch field";
  EXPECT_FALSE(trustedAfter("\"name\": \"signature\"", "\"name\": \"other\""))
      << "an edited name";
  EXPECT_FALSE(trustedAfter("\"meta_sha256\"", "\"checksum\""))
      << "no checksum";
  // Launch fields no program has are refused even with a valid checksum.
  for (unsigned warps : {0u, 33u, 4294967289u}) {
    Artifact odd = stored;
    odd.numWarps = warps;
    storeToDisk(dir, odd);
    EXPECT_FALSE(loadFromDisk(dir, stored.key).has_value()) << warps;
  }
  EXPECT_TRUE(trustedAfter("", "")) << "the healthy entry";
}

TEST_F(KernelCacheTest, TmaSignatureOfACompiledKernelSurvivesTheDisk) {
  std::ifstream source(TILEMLA_SOURCE_DIR "/kernels/examples/matmul_desc.tile");
  ASSERT_TRUE(source.good());
  CompileRequest tma =
      request(std::string(std::istreambuf_iterator<char>(source), {}));
  tma.sourcePath = "matmul_desc.tile";
  tma.constexprs.clear();
  tma.numWarps = 8; // a 64-row wgmma tile per warpgroup: TMA streams A and B
  std::shared_ptr<const Artifact> compiled = getArtifact(tma);
  ASSERT_GE(compiled->params.size(), 3u);
  EXPECT_EQ(compiled->params[0].kind, KernelParam::TensorDesc);
  EXPECT_EQ(compiled->params[0].elementType, ElementType::BF16);
  EXPECT_TRUE(compiled->params[0].readWithTma());
  EXPECT_TRUE(compiled->params[1].readWithTma());
  EXPECT_EQ(compiled->params[2],
            (KernelParam{KernelParam::Pointer, ElementType::F32}));
  clearMemoryCache();
  unsigned compiles = cacheStats().compiles;
  std::shared_ptr<const Artifact> reloaded = getArtifact(tma);
  EXPECT_EQ(cacheStats().compiles, compiles);
  EXPECT_EQ(reloaded->params, compiled->params);
}

/// numWarps 0 is the kernel's `with num_warps = ...` (matmul_desc: one warp
/// per 16 rows of its tile), which the artifact records and launches with;
/// a caller's count wins, and a kernel that declares none gets 4.
TEST_F(KernelCacheTest, KernelDeclaredWarpsAreTheDefault) {
  std::ifstream source(TILEMLA_SOURCE_DIR "/kernels/examples/matmul_desc.tile");
  ASSERT_TRUE(source.good());
  CompileRequest matmul =
      request(std::string(std::istreambuf_iterator<char>(source), {}));
  matmul.constexprs.clear();
  matmul.numWarps = 0;
  EXPECT_EQ(getArtifact(matmul)->numWarps, 8u);
  matmul.constexprs = {{"BLOCK_M", "64"}, {"BLOCK_N", "64"}};
  EXPECT_EQ(getArtifact(matmul)->numWarps, 4u);
  matmul.numWarps = 2;
  EXPECT_EQ(getArtifact(matmul)->numWarps, 2u);
  CompileRequest plain = request();
  plain.numWarps = 0;
  EXPECT_EQ(getArtifact(plain)->numWarps, 4u);
}

/// A warp-specialized kernel launches its producer warps too: the count
/// comes from the compile and survives the disk cache.
TEST_F(KernelCacheTest, ProducerWarpsSurviveTheDisk) {
  std::ifstream source(TILEMLA_SOURCE_DIR "/kernels/examples/matmul_desc.tile");
  ASSERT_TRUE(source.good());
  CompileRequest split =
      request(std::string(std::istreambuf_iterator<char>(source), {}));
  split.constexprs = {{"WARP_SPECIALIZE", "1"}};
  split.numWarps = 0;
  std::shared_ptr<const Artifact> compiled = getArtifact(split);
  EXPECT_EQ(compiled->numWarps, 8u);
  EXPECT_EQ(compiled->producerWarps, 4u);
  EXPECT_EQ(compiled->threadsPerProgram(), 384u);
  clearMemoryCache();
  unsigned compiles = cacheStats().compiles;
  std::shared_ptr<const Artifact> reloaded = getArtifact(split);
  EXPECT_EQ(cacheStats().compiles, compiles);
  EXPECT_EQ(reloaded->producerWarps, 4u);
  split.constexprs.clear();
  EXPECT_EQ(getArtifact(split)->producerWarps, 0u);
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

// Eight processes started at once on an empty cache folder (eight ranks of
// one host): one compiles, the others wait on the entry's lock and load
// what it stored. Each child says by its exit status which it did.
TEST_F(KernelCacheTest, EightProcessesCompileOneKeyOnce) {
  constexpr int kCompiled = 10, kLoaded = 11;
  std::vector<pid_t> children(8);
  for (pid_t &child : children) {
    child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int status = 1;
      const unsigned compiles = cacheStats().compiles,
                     diskHits = cacheStats().diskHits;
      try {
        if (getArtifact(request())->name == "scale") {
          unsigned c = cacheStats().compiles - compiles,
                   d = cacheStats().diskHits - diskHits;
          status = c == 1 && d == 0   ? kCompiled
                   : c == 0 && d == 1 ? kLoaded
                                      : 2;
        }
      } catch (...) {
      }
      _exit(status);
    }
  }
  int compiled = 0, loaded = 0;
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    compiled += WEXITSTATUS(status) == kCompiled;
    loaded += WEXITSTATUS(status) == kLoaded;
  }
  EXPECT_EQ(compiled, 1);
  EXPECT_EQ(loaded, 7);
  EXPECT_TRUE(loadFromDisk(dir, computeCacheKey(request())).has_value());
}

TEST_F(KernelCacheTest, DriverCompilesOfOneKeyTakeTurnsAcrossProcesses) {
  const std::string key = computeCacheKey(request());
  auto held = lockDriverCompile(key);
  ASSERT_NE(held, nullptr);
  EXPECT_TRUE(fs::exists(fs::path(entry(key)) += ".jit.lock"));
  // A child asking for the same key's lock gets it only once this process
  // lets go; another key's lock is free meanwhile.
  int toParent[2];
  ASSERT_EQ(pipe(toParent), 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The forked copy of the parent's descriptor would keep its lock.
    held.reset();
    auto other = lockDriverCompile(std::string(64, 'f'));
    char step = other ? 'o' : 'x';
    (void)!write(toParent[1], &step, 1);
    auto same = lockDriverCompile(key);
    step = same ? 's' : 'x';
    (void)!write(toParent[1], &step, 1);
    _exit(0);
  }
  char step = 0;
  ASSERT_EQ(read(toParent[0], &step, 1), 1);
  EXPECT_EQ(step, 'o');
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  held.reset();
  ASSERT_EQ(read(toParent[0], &step, 1), 1);
  EXPECT_EQ(step, 's');
  // After the release, not after the lock's wait runs out.
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  EXPECT_LT(waited, std::chrono::seconds(10));
  int status = 0;
  waitpid(child, &status, 0);
  close(toParent[0]);
  close(toParent[1]);

  // Nothing to share without a disk cache or the driver's JIT cache.
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  EXPECT_EQ(lockDriverCompile(key), nullptr);
  unsetenv("CUDA_CACHE_DISABLE");
  setenv("TILEMLA_CACHE", "off", 1);
  EXPECT_EQ(lockDriverCompile(key), nullptr);
  unsetenv("TILEMLA_CACHE");
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
