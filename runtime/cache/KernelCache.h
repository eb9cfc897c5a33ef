//===- KernelCache.h - compile once per specialization ----------*- C++ -*-===//
//
// The cache key is a SHA-256 over everything that changes the generated
// code: the compiler's build id (a hash of its sources), the kernel source,
// the kernel name, the constexpr values, the warps, the target architecture,
// the argument facts (per argument: pointer alignment, integer divisible by
// 16 or equal to 1) and the PTX version. Artifacts (PTX, cubin, metadata)
// live in a thread-safe, single-flight memory cache backed by an on-disk
// cache; only the disk cache turns the typed signature into JSON and back.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_RUNTIME_KERNELCACHE_H
#define TILEMLA_RUNTIME_KERNELCACHE_H

#include "tilemla/Driver/Compiler.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilemla::runtime {
/// What one specialization is compiled from.
struct CompileRequest {
  std::string sourcePath; ///< for diagnostics only
  std::string sourceText;
  std::string kernelName; ///< empty: the source's first kernel
  std::map<std::string, std::string> constexprs;
  unsigned numWarps = 0; ///< 0: the kernel's declared count, else 4
  GpuTarget target;
  /// What each runtime argument of the launch guarantees (the runtime's
  /// specialization, as Triton's).
  std::vector<ArgFact> argFacts;
};

/// What a compile produces; stored on disk as kernel.ptx, kernel.cubin and
/// meta.json.
struct Artifact {
  std::string key;
  std::string name;
  GpuTarget target;
  std::string ptx;
  std::string cubin;        ///< empty when nvJitLink is unavailable
  std::string assemblerLog; ///< nvJitLink's remarks on the cubin
  unsigned numWarps = 4;
  unsigned producerWarps = 0; ///< TMA-issuing warps after the program's
  unsigned sharedBytes = 0;
  std::vector<KernelParam> params; ///< the runtime signature, launch order

  unsigned threadsPerProgram() const { return (numWarps + producerWarps) * 32; }
};

std::string computeCacheKey(const CompileRequest &request);

/// The compiler's options for `request` (no dump folder or timing report).
CompileOptions compileOptionsOf(const CompileRequest &request);

/// The disk cache folder, or nullopt when TILEMLA_CACHE=off.
std::optional<std::filesystem::path> diskCacheDirectory();

/// Reads and verifies an entry (checksums, key, build id, a well-formed
/// signature); nullopt when it is missing, truncated, corrupt or from
/// another compiler.
std::optional<Artifact> loadFromDisk(const std::filesystem::path &root,
                                     const std::string &key);
/// Writes an entry atomically (temporary files renamed into place; the
/// metadata, written last, commits it). Failures to write are not fatal.
void storeToDisk(const std::filesystem::path &root, const Artifact &artifact);

/// Whether TILEMLA_LOG (a comma-separated list) names `category`:
/// - "compile": a line on stderr for each kernel a process compiles, takes
///   from the disk cache or loads into a context, saying where the time went
///   (the tile compiler to PTX, nvJitLink to a cubin, the driver);
/// - "timing": each compile's timing tree (parse, every MLIR pass, LLVM
///   translation, optimization, PTX), as `tilec --timing` prints it.
/// Read at each such event, never on a memory hit.
bool logEnabled(std::string_view category);
/// Writes "tilemla: `line`" to stderr in one call (lines of threads that
/// compile at once do not interleave).
void logCompile(const std::string &line);
/// Milliseconds since `start`.
double millisecondsSince(std::chrono::steady_clock::time_point start);

struct CacheStats {
  std::atomic<unsigned> compiles{0}, memoryHits{0}, diskHits{0};
};
CacheStats &cacheStats();

/// The artifact for `request`: from memory, else disk, else compiled; N
/// threads asking for one key at once compile it once. Throws tilemla::Error
/// with the compiler's diagnostics if the kernel does not compile.
std::shared_ptr<const Artifact> getArtifact(const CompileRequest &request);

/// An exclusive advisory lock (flock) on the file `<entry><suffix>` beside
/// a cache entry's folder. ".lock" is held while one process compiles and
/// stores the entry, so that processes sharing a cache folder
/// (tensor-parallel ranks starting at once) compile each kernel once and
/// load what the first one stored. The kernel drops the lock of a process
/// that dies. Best effort: where the lock file cannot be made (a read-only
/// folder) or the holder takes longer than `kLockWait` (a hung compile), the
/// caller goes on unlocked, which is correct, only duplicated. Lock files
/// stay: deleting one while another process waits on it would let a third
/// lock a new file.
class EntryLock {
public:
  static constexpr std::chrono::seconds kLockWait{120};

  EntryLock(const std::filesystem::path &root, const std::string &key,
            const char *suffix = ".lock");
  ~EntryLock();
  EntryLock(const EntryLock &) = delete;
  EntryLock &operator=(const EntryLock &) = delete;

private:
  int fd = -1;
};

/// The lock (`<entry>.jit.lock`) to hold while the driver compiles an
/// entry's PTX at load (a kernel without a cubin: warp roles). The driver
/// keeps what it compiles in the user's CUDA JIT cache, so processes that
/// share both caches and take turns run ptxas on the kernel once; the others
/// find the driver's copy. nullptr without a disk cache, or when
/// CUDA_CACHE_DISABLE=1 turns the driver's cache off (each process compiles
/// anyway).
std::unique_ptr<EntryLock> lockDriverCompile(const std::string &key);

/// Forgets the memory cache (tests use it to exercise the disk cache).
void clearMemoryCache();
} // namespace tilemla::runtime

#endif
