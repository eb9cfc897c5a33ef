//===- KernelCache.cpp - memory + disk cache of compiled kernels ----------===//
#include "KernelCache.h"

#include "../cuda/PtxToCubin.h"
#include "tilemla/Runtime.h"
#include "tilemla/Support/TensorDescriptorABI.h"
#include "tilemla/Support/WarnOnce.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SHA256.h"
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tilemla::runtime {
namespace {
std::string sha256Hex(const std::string &data) {
  llvm::SHA256 hash;
  hash.update(llvm::StringRef(data));
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

/// $TILEMLA_DUMP_DIR/<source name>-<key prefix>, where the compile writes
/// every stage; empty when the variable is not set.
std::string dumpFolder(const CompileRequest &request, const std::string &key) {
  const char *dumpRoot = std::getenv("TILEMLA_DUMP_DIR");
  if (!dumpRoot || !*dumpRoot)
    return {};
  std::string stem = fs::path(request.sourcePath).stem().string();
  return (fs::path(dumpRoot) / (stem + "-" + key.substr(0, 16))).string();
}

/// The facts as key material: per argument its divisor in decimal, "=1"
/// when it equals one, and a comma, so that no two lists share a key.
std::string encodeArgFacts(const std::vector<ArgFact> &facts) {
  std::string text;
  for (const ArgFact &fact : facts)
    text += std::to_string(fact.divisibility) + (fact.isOne ? "=1," : ",");
  return text;
}

Artifact compile(const CompileRequest &request, const std::string &key) {
  SourceFile file(request.sourcePath, request.sourceText);
  CompileOptions options = compileOptionsOf(request);
  options.dumpDirectory = dumpFolder(request, key);
  std::string errors, timing;
  llvm::raw_string_ostream timingReport(timing);
  if (logEnabled("timing"))
    options.timingReport = &timingReport;
  const auto start = std::chrono::steady_clock::now();
  std::optional<CompiledKernel> kernel = compileKernel(file, options, errors);
  if (!kernel)
    throw Error(
        fmt::format("cannot compile {}:\n{}", request.sourcePath, errors));
  const double toPtx = millisecondsSince(start);
  if (!timing.empty())
    logCompile(fmt::format("timing of {} [{}]:\n{}", kernel->name,
                           key.substr(0, 8), timing));
  cacheStats().compiles++;
  Artifact artifact;
  artifact.key = key;
  artifact.name = kernel->name;
  artifact.target = kernel->target;
  artifact.numWarps = kernel->numWarps;
  artifact.producerWarps = kernel->producerWarps;
  artifact.sharedBytes = kernel->sharedBytes;
  artifact.params = kernel->params;
  // nvJitLink assembles PTX as a relocatable unit, where ptxas ignores
  // setmaxnreg (C7504): a kernel with warps added to its own (a producer or
  // a score warpgroup, each setting its registers) would keep its entry
  // register count, spill and serialize its wgmma. The driver compiles it
  // whole at load time instead (and keeps it in its own JIT cache).
  std::optional<cuda::AssembledCubin> assembled;
  const auto assembleStart = std::chrono::steady_clock::now();
  if (kernel->producerWarps == 0)
    assembled =
        cuda::assembleCubin(kernel->ptx, kernel->target.name(), kernel->name);
  if (assembled) {
    artifact.cubin = std::move(assembled->cubin);
    artifact.assemblerLog = std::move(assembled->log);
  }
  if (logEnabled("compile"))
    logCompile(fmt::format(
        "compiled {} [{}] for {}: to PTX {:.1f} ms, {}", artifact.name,
        key.substr(0, 8), artifact.target.name(), toPtx,
        assembled ? fmt::format("to a cubin (nvJitLink) {:.1f} ms",
                                millisecondsSince(assembleStart))
        : kernel->producerWarps
            ? std::string("the PTX left to the driver (warp roles)")
            : std::string("the PTX left to the driver (no nvJitLink)")));
  artifact.ptx = std::move(kernel->ptx);
  return artifact;
}

struct MemoryCache {
  std::mutex mutex;
  std::map<std::string, std::shared_future<std::shared_ptr<const Artifact>>>
      entries;
};

MemoryCache &memoryCache() {
  static MemoryCache cache;
  return cache;
}
} // namespace

CacheStats &cacheStats() {
  static CacheStats stats;
  return stats;
}

bool logEnabled(std::string_view category) {
  const char *value = std::getenv("TILEMLA_LOG");
  if (!value)
    return false;
  llvm::SmallVector<llvm::StringRef> categories;
  llvm::StringRef(value).split(categories, ',');
  return llvm::is_contained(categories, llvm::StringRef(category));
}

void logCompile(const std::string &line) {
  std::fputs(("tilemla: " + line + "\n").c_str(), stderr);
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

CompileOptions compileOptionsOf(const CompileRequest &request) {
  CompileOptions options;
  options.kernelName = request.kernelName;
  options.defines = request.constexprs;
  options.target = request.target;
  options.numWarps = request.numWarps;
  options.argFacts = request.argFacts;
  return options;
}

std::string computeCacheKey(const CompileRequest &request) {
  std::string material;
  auto field = [&](const std::string &name, const std::string &value) {
    material += fmt::format("{}:{}:{}\n", name, value.size(), value);
  };
  field("build", compilerBuildId());
  field("source", sha256Hex(request.sourceText));
  field("kernel", request.kernelName);
  for (const auto &[name, value] : request.constexprs) // std::map: sorted
    field("constexpr " + name, value);
  field("warps", std::to_string(request.numWarps));
  field("arch", request.target.name());
  field("args", encodeArgFacts(request.argFacts));
  field("ptx", std::to_string(request.target.ptxVersion()));
  return sha256Hex(material);
}

std::optional<fs::path> diskCacheDirectory() {
  if (const char *mode = std::getenv("TILEMLA_CACHE")) {
    std::string lower(mode);
    for (char &c : lower)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "off" || lower == "0" || lower == "false" || lower == "no")
      return std::nullopt;
  }
  if (const char *dir = std::getenv("TILEMLA_CACHE_DIR"); dir && *dir)
    return fs::path(dir);
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "tilemla";
  if (const char *home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "tilemla";
  return std::nullopt;
}

namespace {
bool readFile(const fs::path &path, std::string &out) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    return false;
  std::ostringstream text;
  text << stream.rdbuf();
  out = text.str();
  return bool(stream) || stream.eof();
}

/// Writes `data` to a unique temporary file beside `path`, then renames it
/// into place, so readers never see a partial file.
bool writeFileAtomically(const fs::path &path, const std::string &data) {
  static std::atomic<unsigned> counter{0};
  fs::path temp = path;
  temp += fmt::format(".tmp.{}.{}", getpid(), counter++);
  {
    std::ofstream stream(temp, std::ios::binary | std::ios::trunc);
    if (!(stream << data) || !stream.flush())
      return false;
  }
  std::error_code error;
  fs::rename(temp, path, error);
  if (error && fs::is_directory(path)) {
    // Something made a folder where the entry's file belongs: repair it
    // (else every process would recompile this key forever).
    std::error_code ignored;
    fs::remove_all(path, ignored);
    error.clear();
    fs::rename(temp, path, error);
  }
  if (error) {
    std::error_code ignored;
    fs::remove(temp, ignored);
  }
  return !error;
}

/// Clears the way for an entry's folder: a file where a folder belongs is
/// removed, and so are temporary files a process that died left behind (an
/// hour old: a living writer renames its own within seconds).
void prepareEntryFolder(const fs::path &folder) {
  std::error_code error;
  for (const fs::path &dir : {folder.parent_path(), folder})
    if (fs::exists(dir, error) && !fs::is_directory(dir, error))
      fs::remove(dir, error);
  fs::create_directories(folder, error);
  if (error)
    return;
  const auto stale = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const fs::directory_entry &file : fs::directory_iterator(folder, error))
    if (file.path().filename().string().find(".tmp.") != std::string::npos &&
        file.last_write_time(error) < stale)
      fs::remove(file.path(), error);
}

fs::path entryFolder(const fs::path &root, const std::string &key) {
  return root / key.substr(0, 2) / key;
}

llvm::json::Object paramToJson(const KernelParam &param) {
  llvm::json::Object object{{"kind", kindName(param.kind)}};
  if (param.elementType != KernelParam::ElementType::None)
    object["element_type"] = elementTypeName(param.elementType);
  if (param.readWithTma())
    object["tma"] = llvm::json::Object{{"box_rows", int64_t(param.tmaBoxRows)},
                                       {"box_cols", int64_t(param.tmaBoxCols)},
                                       {"swizzle", int64_t(param.tmaSwizzle)}};
  return object;
}

/// The enumerator of [0, last] that `name` names.
template <typename Enum, typename NameOf>
std::optional<Enum> enumNamed(llvm::StringRef name, Enum last, NameOf nameOf) {
  for (int value = 0; value <= int(last); ++value)
    if (name == nameOf(Enum(value)))
      return Enum(value);
  return std::nullopt;
}

/// A parameter as paramToJson wrote it; nullopt for anything else (unknown
/// names, an element type where none belongs or none where one does, a TMA
/// box on anything but a tensor descriptor, a box no tensor map encodes), so
/// that a damaged entry is recompiled rather than launched.
std::optional<KernelParam> paramFromJson(const llvm::json::Value &value) {
  using ElementType = KernelParam::ElementType;
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return std::nullopt;
  std::optional<llvm::StringRef> kindText = object->getString("kind");
  std::optional<KernelParam::Kind> kind =
      kindText ? enumNamed(*kindText, KernelParam::TensorDesc, kindName)
               : std::nullopt;
  if (!kind)
    return std::nullopt;
  KernelParam param{*kind};
  bool pointsAtElements = param.kind == KernelParam::Pointer ||
                          param.kind == KernelParam::TensorDesc;
  std::optional<llvm::StringRef> elementText =
      object->getString("element_type");
  if (elementText.has_value() != pointsAtElements)
    return std::nullopt;
  if (elementText) {
    std::optional<ElementType> element =
        enumNamed(*elementText, ElementType::FP8E5M2, elementTypeName);
    if (!element || *element == ElementType::None)
      return std::nullopt;
    param.elementType = *element;
  }
  if (const llvm::json::Value *tmaValue = object->get("tma")) {
    const llvm::json::Object *tma = tmaValue->getAsObject();
    if (!tma || param.kind != KernelParam::TensorDesc)
      return std::nullopt;
    auto field = [&](const char *name) {
      std::optional<int64_t> number = tma->getInteger(name);
      // Out of range reads as 0, which isEncodableTmaBox rejects.
      return number && *number > 0 && *number <= kMaxTmaBoxDim
                 ? unsigned(*number)
                 : 0u;
    };
    param.tmaBoxRows = field("box_rows");
    param.tmaBoxCols = field("box_cols");
    param.tmaSwizzle = field("swizzle");
    if (!isEncodableTmaBox(param.tmaBoxRows, param.tmaBoxCols,
                           param.tmaSwizzle))
      return std::nullopt;
  }
  return param;
}
} // namespace

EntryLock::EntryLock(const fs::path &root, const std::string &key,
                     const char *suffix) {
  fs::path folder = entryFolder(root, key);
  std::error_code error;
  fs::create_directories(folder.parent_path(), error);
  fs::path path = folder;
  path += suffix;
  fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return;
  const auto deadline = std::chrono::steady_clock::now() + kLockWait;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if ((errno != EWOULDBLOCK && errno != EINTR) ||
        std::chrono::steady_clock::now() > deadline) {
      ::close(fd);
      fd = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

EntryLock::~EntryLock() {
  if (fd >= 0)
    ::close(fd); // releases the lock
}

std::unique_ptr<EntryLock> lockDriverCompile(const std::string &key) {
  std::optional<fs::path> root = diskCacheDirectory();
  const char *jitCacheOff = std::getenv("CUDA_CACHE_DISABLE");
  if (!root || (jitCacheOff && std::string_view(jitCacheOff) == "1"))
    return nullptr;
  return std::make_unique<EntryLock>(*root, key, ".jit.lock");
}

/// SHA-256 of the metadata without its own checksum field (llvm::json
/// prints an object's keys sorted: one text per content).
std::string metaChecksum(llvm::json::Object meta) {
  meta.erase("meta_sha256");
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::formatv("{0}", llvm::json::Value(std::move(meta)));
  return sha256Hex(text);
}

bool metaChecksumHolds(const llvm::json::Object &meta) {
  std::optional<llvm::StringRef> stored = meta.getString("meta_sha256");
  return stored && *stored == metaChecksum(meta);
}

std::optional<Artifact> loadFromDisk(const fs::path &root,
                                     const std::string &key) {
  fs::path folder = entryFolder(root, key);
  std::string metaText;
  if (!readFile(folder / "meta.json", metaText))
    return std::nullopt;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(metaText);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *meta = parsed->getAsObject();
  if (!meta || !metaChecksumHolds(*meta))
    return std::nullopt;
  auto text = [&](const char *field) -> std::string {
    auto value = meta->getString(field);
    return value ? value->str() : std::string();
  };
  if (text("key") != key || text("build") != compilerBuildId())
    return std::nullopt;
  Artifact artifact;
  artifact.key = key;
  artifact.name = text("name");
  std::optional<GpuTarget> target = GpuTarget::parse(text("arch"));
  if (!target)
    return std::nullopt;
  artifact.target = *target;
  // Launch fields within what any program can have (the checksum catches
  // edits; this, whatever wrote them).
  std::optional<int64_t> warps = meta->getInteger("num_warps"),
                         producers = meta->getInteger("producer_warps"),
                         shared = meta->getInteger("shared_bytes");
  if (!warps || *warps < 1 || *warps > 32 || !producers || *producers < 0 ||
      *producers > 32 || !shared || *shared < 0 || *shared > (1 << 20))
    return std::nullopt;
  artifact.numWarps = unsigned(*warps);
  artifact.producerWarps = unsigned(*producers);
  artifact.sharedBytes = unsigned(*shared);
  artifact.assemblerLog = text("assembler_log");
  const llvm::json::Array *params = meta->getArray("params");
  if (!params)
    return std::nullopt;
  for (const llvm::json::Value &value : *params) {
    std::optional<KernelParam> param = paramFromJson(value);
    if (!param)
      return std::nullopt;
    artifact.params.push_back(*param);
  }
  if (!readFile(folder / "kernel.ptx", artifact.ptx) ||
      sha256Hex(artifact.ptx) != text("ptx_sha256") || artifact.name.empty())
    return std::nullopt;
  std::string cubinHash = text("cubin_sha256");
  if (!cubinHash.empty() &&
      (!readFile(folder / "kernel.cubin", artifact.cubin) ||
       sha256Hex(artifact.cubin) != cubinHash))
    return std::nullopt;
  return artifact;
}

/// Kernels still compile; the user hears once per folder why nothing is
/// cached.
void warnUnusableCache(const fs::path &root, const std::string &why) {
  warnOnce("cache:" + root.string(),
           "the kernel cache folder '" + root.string() + "' is not usable (" +
               why + "); kernels are compiled but not cached");
}

void storeToDisk(const fs::path &root, const Artifact &artifact) {
  fs::path folder = entryFolder(root, artifact.key);
  prepareEntryFolder(folder);
  if (!fs::is_directory(folder)) {
    warnUnusableCache(root, "cannot create " + folder.string());
    return;
  }
  llvm::json::Array params;
  for (const KernelParam &param : artifact.params)
    params.push_back(paramToJson(param));
  llvm::json::Object meta{
      {"key", artifact.key},
      {"build", compilerBuildId()},
      {"name", artifact.name},
      {"arch", artifact.target.name()},
      {"ptx_version", int64_t(artifact.target.ptxVersion())},
      {"num_warps", int64_t(artifact.numWarps)},
      {"producer_warps", int64_t(artifact.producerWarps)},
      {"shared_bytes", int64_t(artifact.sharedBytes)},
      {"params", std::move(params)},
      {"ptx_sha256", sha256Hex(artifact.ptx)},
      {"cubin_sha256", artifact.cubin.empty() ? "" : sha256Hex(artifact.cubin)},
      {"assembler_log", artifact.assemblerLog}};
  meta["meta_sha256"] = metaChecksum(meta);
  std::string metaText;
  llvm::raw_string_ostream(metaText)
      << llvm::formatv("{0:2}", llvm::json::Value(std::move(meta)));
  // The metadata goes last: it names the checksums the other files must have.
  if (!writeFileAtomically(folder / "kernel.ptx", artifact.ptx) ||
      (!artifact.cubin.empty() &&
       !writeFileAtomically(folder / "kernel.cubin", artifact.cubin)) ||
      !writeFileAtomically(folder / "meta.json", metaText))
    warnUnusableCache(root, "cannot write in " + folder.string());
}

std::shared_ptr<const Artifact> getArtifact(const CompileRequest &request) {
  std::string key = computeCacheKey(request);
  MemoryCache &cache = memoryCache();
  std::promise<std::shared_ptr<const Artifact>> promise;
  std::shared_future<std::shared_ptr<const Artifact>> future;
  bool compilesHere = false;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) {
      future = it->second;
      cacheStats().memoryHits++;
    } else {
      future = promise.get_future().share();
      cache.entries.emplace(key, future);
      compilesHere = true;
    }
  }
  if (!compilesHere)
    return future.get(); // rethrows the compile error of the first caller
  try {
    std::shared_ptr<const Artifact> artifact;
    std::optional<fs::path> root = diskCacheDirectory();
    const auto start = std::chrono::steady_clock::now();
    auto loadHit = [&] {
      if (std::optional<Artifact> hit = loadFromDisk(*root, key)) {
        cacheStats().diskHits++;
        artifact = std::make_shared<const Artifact>(std::move(*hit));
        if (logEnabled("compile"))
          logCompile(fmt::format("{} [{}] from the disk cache in {:.1f} ms",
                                 artifact->name, key.substr(0, 8),
                                 millisecondsSince(start)));
      }
    };
    std::optional<EntryLock> lock;
    if (root) {
      loadHit();
      if (!artifact) {
        // Another process may be compiling this key: wait for it, then
        // take what it stored.
        lock.emplace(*root, key);
        loadHit();
      }
    }
    if (!artifact) {
      artifact = std::make_shared<const Artifact>(compile(request, key));
      if (root)
        storeToDisk(*root, *artifact);
    }
    lock.reset();
    promise.set_value(artifact);
  } catch (...) {
    // A failed compile is not remembered: the next call tries again.
    {
      std::lock_guard<std::mutex> lock(cache.mutex);
      cache.entries.erase(key);
    }
    promise.set_exception(std::current_exception());
  }
  return future.get();
}

void clearMemoryCache() {
  std::lock_guard<std::mutex> lock(memoryCache().mutex);
  memoryCache().entries.clear();
}
} // namespace tilemla::runtime
