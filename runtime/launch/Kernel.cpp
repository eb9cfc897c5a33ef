//===- Kernel.cpp - kernel handles, argument checks, launches -------------===//
#include "../cache/KernelCache.h"
#include "../cuda/CudaDriver.h"
#include "EmbeddedKernels.h"
#include "HostMemory.h"
#include "ParallelFor.h"
#include "PreparedLaunch.h"
#include "TensorDescriptor.h"
#include "tilemla/Interpreter/Interpreter.h"
#include "tilemla/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

namespace tilemla {
using namespace cuda;
using namespace launch;

KernelArg KernelArg::f32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return KernelArg(Kind::Float32, bits);
}

bool isGpuAvailable() { return cuda::isGpuAvailable(); }

bool isInterpreterMode() {
  static const bool enabled = interp::interpretRequested();
  return enabled;
}

namespace {
/// A specialization loaded into one CUDA context.
struct LoadedKernel {
  std::shared_ptr<const runtime::Artifact> artifact;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  /// Per parameter, for fast checks; none for types KernelArg cannot pass.
  std::vector<std::optional<KernelArg::Kind>> expected;
  std::vector<TensorParam> tensors; ///< the `desc<T>` parameters
  /// The target has programmatic dependent launch (sm_90+) and the driver
  /// cuLaunchKernelEx.
  bool dependentLaunch = false;
  /// What the driver's PTX compiler said, when it compiled the module.
  std::string jitLog;
};

/// The KernelArg kind that passes `param`; none for f16 and bf16 scalars,
/// which KernelArg cannot pass (every launch reports the mismatch).
std::optional<KernelArg::Kind> argKindFor(const KernelParam &param) {
  switch (param.kind) {
  case KernelParam::Pointer:
    return KernelArg::Kind::Pointer;
  case KernelParam::TensorDesc:
    return KernelArg::Kind::TensorDesc;
  case KernelParam::Int32:
    return KernelArg::Kind::Int32;
  case KernelParam::Int64:
    return KernelArg::Kind::Int64;
  case KernelParam::Float32:
    return KernelArg::Kind::Float32;
  case KernelParam::Bool:
    return KernelArg::Kind::Bool;
  case KernelParam::Float16:
  case KernelParam::BFloat16:
    break;
  }
  return std::nullopt;
}

/// Modules are shared by every handle of one specialization in a context.
LoadedKernel loadInContext(std::shared_ptr<const runtime::Artifact> artifact,
                           CUcontext context) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, CUcontext>, LoadedKernel> modules;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(artifact->key, context);
  if (auto it = modules.find(key); it != modules.end())
    return it->second;
  LoadedKernel loaded;
  loaded.artifact = artifact;
  // Checked before the module is loaded: a bad signature leaks no module.
  for (const KernelParam &param : artifact->params) {
    if (param.kind == KernelParam::TensorDesc)
      loaded.tensors.push_back(
          tensorParamFor(artifact->name, param, loaded.expected.size()));
    loaded.expected.push_back(argKindFor(param));
  }
  if (loaded.tensors.size() > kMaxTensorParams)
    throw Error(fmt::format("kernel {} has {} tensor parameters; at most {} "
                            "fit in the kernel parameter space",
                            artifact->name, loaded.tensors.size(),
                            kMaxTensorParams));
  // A cubin runs only on its own architecture family (an sm_80 cubin does
  // not load on sm_90); there the PTX is compiled by the driver, as a fat
  // binary's PTX would be.
  bool loadedCubin = false;
  const auto loadStart = std::chrono::steady_clock::now();
  if (!artifact->cubin.empty()) {
    CUresult result = cuda::driver().cuModuleLoadData(&loaded.module,
                                                      artifact->cubin.c_str());
    if (result != CUDA_ERROR_NO_BINARY_FOR_GPU) {
      cuda::check(result, "cuModuleLoadData", "kernel " + artifact->name);
      loadedCubin = true;
    }
  }
  if (!loadedCubin) {
    // The driver compiles the PTX, as a whole program; its remarks (a
    // serialized wgmma, say) become the kernel's assembler log.
    std::string log(8192, '\0');
    int options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(), reinterpret_cast<void *>(log.size())};
    // One process at a time per kernel: the others then find the driver's
    // cached compile instead of each running ptxas on the same PTX.
    std::unique_ptr<runtime::EntryLock> oneCompile =
        runtime::lockDriverCompile(artifact->key);
    TILEMLA_CU(cuModuleLoadDataEx, "kernel " + artifact->name, &loaded.module,
               artifact->ptx.c_str(), 2u, options, values);
    log.resize(std::strlen(log.c_str()));
    while (!log.empty() && log.back() == '\n')
      log.pop_back();
    loaded.jitLog = std::move(log);
  }
  if (runtime::logEnabled("compile"))
    runtime::logCompile(fmt::format(
        "loaded {} [{}] in {:.1f} ms ({})", artifact->name,
        artifact->key.substr(0, 8), runtime::millisecondsSince(loadStart),
        loadedCubin ? "its cubin" : "the driver compiled its PTX"));
  TILEMLA_CU(cuModuleGetFunction, "kernel " + artifact->name, &loaded.function,
             loaded.module, artifact->name.c_str());
  int sharedLimit = 0;
  TILEMLA_CU(cuDeviceGetAttribute, "shared memory limit", &sharedLimit,
             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
             currentDevice());
  if (artifact->sharedBytes > unsigned(sharedLimit))
    throw Error(fmt::format("kernel {} needs {} bytes of shared memory; the "
                            "device allows {} per program (use smaller tiles "
                            "or fewer pipeline stages)",
                            artifact->name, artifact->sharedBytes,
                            sharedLimit));
  if (artifact->sharedBytes > 48 * 1024)
    TILEMLA_CU(cuFuncSetAttribute, "kernel " + artifact->name, loaded.function,
               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
               int(artifact->sharedBytes));
  loaded.dependentLaunch =
      driver().cuLaunchKernelEx && artifact->target.hasDependentLaunch();
  modules.emplace(key, loaded);
  return loaded;
}

const char *kindName(KernelArg::Kind kind) {
  switch (kind) {
  case KernelArg::Kind::Pointer:
    return "a pointer";
  case KernelArg::Kind::Int32:
    return "i32";
  case KernelArg::Kind::Int64:
    return "i64";
  case KernelArg::Kind::Float32:
    return "f32";
  case KernelArg::Kind::Bool:
    return "i1";
  case KernelArg::Kind::TensorDesc:
    return "a tensor";
  }
  return "?";
}

using ArgFacts = llvm::SmallVector<ArgFact, 32>;

/// What the compiler may assume about each argument: pointers 16-byte
/// aligned (the default) or not (divisible by 1 only); integers divisible by
/// 16, equal to 1 (unit strides) or neither; nothing for the rest (tensors
/// carry their shape at run time) or for an unspecialized argument. The
/// specialization key, like Triton's. (On the stack for the usual argument
/// counts: every launch makes one.)
ArgFacts argSpecialization(const std::vector<KernelArg> &args) {
  ArgFacts facts(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].isSpecialized()) {
      if (args[i].kind() == KernelArg::Kind::Pointer)
        facts[i].divisibility = 1; // not even the default alignment
      continue;
    }
    uint64_t bits = *static_cast<uint64_t *>(args[i].storage());
    if (args[i].kind() == KernelArg::Kind::Int32)
      bits = uint32_t(bits);
    switch (args[i].kind()) {
    case KernelArg::Kind::Pointer:
      facts[i].divisibility = bits % 16 == 0 ? 0 : 1;
      break;
    case KernelArg::Kind::Int32:
    case KernelArg::Kind::Int64:
      facts[i].divisibility = bits % 16 == 0 ? 16 : 0;
      facts[i].isOne = bits == 1;
      break;
    default:
      break;
    }
  }
  return facts;
}
} // namespace

struct Kernel::Impl {
  runtime::CompileRequest request; ///< target and facts filled per use
  /// KernelOptions::arch, parsed; none: the current device's target.
  std::optional<GpuTarget> target;
  std::mutex mutex;
  std::unique_ptr<interp::Kernel> interpreted; ///< TILEMLA_INTERPRET=1 only

  const interp::Kernel &getInterpreted() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!interpreted) {
      CompileOptions options = runtime::compileOptionsOf(request);
      try {
        interpreted = std::make_unique<interp::Kernel>(
            SourceFile(request.sourcePath, request.sourceText), options);
      } catch (const interp::InterpreterError &error) {
        throw Error(error.what());
      }
    }
    return *interpreted;
  }
  struct Entry {
    CUcontext context;
    std::vector<ArgFact> spec;
    LoadedKernel kernel;
  };
  std::deque<Entry> entries; // references stay valid as it grows

  const LoadedKernel &get(CUcontext context, llvm::ArrayRef<ArgFact> spec) {
    std::lock_guard<std::mutex> lock(mutex);
    if (const LoadedKernel *loaded = find(context, spec))
      return *loaded;
    auto artifact = runtime::getArtifact(requestFor(spec));
    entries.push_back({context, std::vector<ArgFact>(spec.begin(), spec.end()),
                       loadInContext(artifact, context)});
    return entries.back().kernel;
  }
  /// The loaded specialization; null if it is not loaded (mutex held).
  const LoadedKernel *find(CUcontext context,
                           llvm::ArrayRef<ArgFact> spec) const {
    for (const Entry &entry : entries)
      if (entry.context == context && llvm::ArrayRef(entry.spec) == spec)
        return &entry.kernel;
    return nullptr;
  }
  /// What compiles the specialization for the current device (or
  /// KernelOptions::arch).
  runtime::CompileRequest requestFor(llvm::ArrayRef<ArgFact> spec) const {
    runtime::CompileRequest specialized = request;
    specialized.target = target ? *target : currentTarget();
    specialized.argFacts.assign(spec.begin(), spec.end());
    return specialized;
  }

  /// The specialization launched last in `context`, else the one that
  /// assumes nothing beyond aligned pointers.
  const LoadedKernel &latestOrDefault(CUcontext context) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto it = entries.rbegin(); it != entries.rend(); ++it)
        if (it->context == context)
          return it->kernel;
    }
    return get(context, {});
  }
};

Kernel Kernel::fromSource(const std::string &path, const std::string &text,
                          const Constexprs &constexprs,
                          const KernelOptions &options) {
  if (options.numWarps > 32 || (options.numWarps & (options.numWarps - 1)))
    throw Error(fmt::format("options.numWarps must be 0 (the kernel's "
                            "default) or a power of two in [1, 32], got {}",
                            options.numWarps));
  auto impl = std::make_shared<Impl>();
  impl->request.sourcePath = path;
  impl->request.sourceText = text;
  impl->request.constexprs = constexprs;
  impl->request.numWarps = options.numWarps;
  impl->request.kernelName = options.kernel;
  if (!options.arch.empty()) {
    impl->target = GpuTarget::parse(options.arch);
    if (!impl->target)
      throw Error(fmt::format("options.arch: unknown target '{}' (known: {})",
                              options.arch, GpuTarget::knownNames()));
  }
  return Kernel(impl);
}

Kernel Kernel::fromFile(const std::string &path, const Constexprs &constexprs,
                        const KernelOptions &options) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    throw Error(fmt::format("cannot read kernel source '{}'", path));
  std::ostringstream text;
  text << stream.rdbuf();
  return fromSource(path, text.str(), constexprs, options);
}

Kernel Kernel::fromEmbedded(const std::string &name,
                            const Constexprs &constexprs,
                            const KernelOptions &options) {
  for (const EmbeddedKernel &kernel : embeddedKernels())
    if (name == kernel.name)
      return fromSource(std::string("kernels/") + kernel.name + ".tile",
                        kernel.source, constexprs, options);
  throw Error(fmt::format("no embedded kernel named '{}' (have: {})", name,
                          fmt::join(embeddedNames(), ", ")));
}

std::vector<std::string> Kernel::embeddedNames() {
  std::vector<std::string> names;
  for (const EmbeddedKernel &kernel : embeddedKernels())
    names.push_back(kernel.name);
  return names;
}

/// Runs the launch in the interpreter: pointers become the host buffers that
/// contain them, so every access is bounds-checked.
static void launchInterpreted(const interp::Kernel &kernel, Dim3 grid,
                              const std::vector<KernelArg> &args) {
  const std::vector<KernelParam> &params = kernel.getParams();
  std::vector<interp::Arg> interpArgs;
  for (size_t i = 0; i < args.size(); ++i) {
    uint64_t bits = *static_cast<uint64_t *>(args[i].storage());
    void *data = reinterpret_cast<void *>(bits);
    auto bytesAfter = [&] {
      std::optional<size_t> bytes = host::bytesAfter(data);
      if (!bytes && data)
        throw Error(fmt::format("kernel {}: argument {} does not point into a "
                                "DeviceBuffer (interpreter mode)",
                                kernel.getName(), i));
      return bytes.value_or(0);
    };
    switch (args[i].kind()) {
    case KernelArg::Kind::Pointer:
      interpArgs.push_back(interp::Arg::pointer(data, bytesAfter()));
      break;
    case KernelArg::Kind::TensorDesc:
      // The GPU's checks, so that the interpreter rejects what a launch
      // would; a mismatched kind is the interpreter's to report.
      if (i < params.size() && params[i].kind == KernelParam::TensorDesc)
        checkTensorArg(kernel.getName(), params[i],
                       tensorParamFor(kernel.getName(), params[i], i), args[i]);
      interpArgs.push_back(interp::Arg::tensorDesc(
          data, bytesAfter(), args[i].tensorRows(), args[i].tensorCols(),
          args[i].tensorRowStride()));
      break;
    case KernelArg::Kind::Int32:
      interpArgs.push_back(interp::Arg::i32(int32_t(uint32_t(bits))));
      break;
    case KernelArg::Kind::Int64:
      interpArgs.push_back(interp::Arg::i64(int64_t(bits)));
      break;
    case KernelArg::Kind::Float32: {
      float value;
      uint32_t low = uint32_t(bits);
      std::memcpy(&value, &low, sizeof value);
      interpArgs.push_back(interp::Arg::f32(value));
      break;
    }
    case KernelArg::Kind::Bool:
      interpArgs.push_back(interp::Arg::i1(bits != 0));
      break;
    }
  }
  try {
    kernel.launch(grid, interpArgs);
  } catch (const interp::InterpreterError &error) {
    throw Error(error.what());
  }
}

void Kernel::launch(Dim3 grid, const std::vector<KernelArg> &args,
                    StreamHandle stream, const LaunchOptions &options) const {
  if (isInterpreterMode())
    return launchInterpreted(impl->getInterpreted(), grid, args);
  // On the stack: cuLaunchKernel copies the arguments before it returns.
  PreparedLaunch launch;
  if (prepareLaunch(grid, args, options, launch))
    launch.issue(static_cast<CUstream>(stream));
}

bool Kernel::prepareLaunch(Dim3 grid, const std::vector<KernelArg> &args,
                           const LaunchOptions &options,
                           PreparedLaunch &launch) const {
  CUcontext context = currentContext();
  const LoadedKernel &loaded = impl->get(context, argSpecialization(args));
  const runtime::Artifact &artifact = *loaded.artifact;
  if (args.size() != artifact.params.size())
    throw Error(fmt::format("kernel {} takes {} arguments, got {}",
                            artifact.name, artifact.params.size(),
                            args.size()));
  if (args.size() > PreparedLaunch::kMaxParams)
    throw Error(fmt::format("kernel {}: too many arguments", artifact.name));
  for (size_t i = 0; i < args.size(); ++i) {
    if (loaded.expected[i] != args[i].kind())
      throw Error(fmt::format("kernel {}: argument {} must be {}, got {}",
                              artifact.name, i, toString(artifact.params[i]),
                              kindName(args[i].kind())));
    launch.params[i] = args[i].storage();
  }
  for (size_t t = 0; t < loaded.tensors.size(); ++t) {
    const TensorParam &tensor = loaded.tensors[t];
    const KernelParam &param = artifact.params[tensor.index];
    checkTensorArg(artifact.name, param, tensor, args[tensor.index]);
    buildTensorDesc(artifact.name, param, tensor, args[tensor.index],
                    launch.descs[t]);
    launch.params[tensor.index] = &launch.descs[t];
  }
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return false; // an empty grid launches nothing
  launch.name = &artifact.name;
  launch.function = loaded.function;
  for (int d = 0; d < 3; ++d)
    launch.grid[d] = grid[d];
  launch.threads = artifact.threadsPerProgram();
  launch.sharedBytes = artifact.sharedBytes;
  launch.dependent = options.programmaticDependent && loaded.dependentLaunch;
  return true;
}

void PreparedLaunch::issue(CUstream stream) const {
  // The hot path: the error text is built only on failure.
  if (dependent) {
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {grid[0], grid[1],     grid[2], threads,    1,
                             1,       sharedBytes, stream,  &attribute, 1};
    CUresult result = driver().cuLaunchKernelEx(
        &config, function, const_cast<void **>(params), nullptr);
    if (result != CUDA_SUCCESS)
      check(result, "cuLaunchKernelEx", "kernel " + *name);
    return;
  }
  CUresult result = driver().cuLaunchKernel(
      function, grid[0], grid[1], grid[2], threads, 1, 1, sharedBytes, stream,
      const_cast<void **>(params), nullptr);
  if (result != CUDA_SUCCESS)
    check(result, "cuLaunchKernel", "kernel " + *name);
}

CUDA_KERNEL_NODE_PARAMS_v2 PreparedLaunch::nodeParams() const {
  CUDA_KERNEL_NODE_PARAMS_v2 node = {};
  node.func = function;
  node.gridDimX = grid[0], node.gridDimY = grid[1], node.gridDimZ = grid[2];
  node.blockDimX = threads, node.blockDimY = 1, node.blockDimZ = 1;
  node.sharedMemBytes = sharedBytes;
  node.kernelParams = const_cast<void **>(params);
  return node;
}

void Kernel::prepare(
    const std::vector<std::pair<Kernel, std::vector<KernelArg>>> &launches) {
  if (isInterpreterMode()) {
    for (const auto &[kernel, args] : launches)
      kernel.impl->getInterpreted();
    return;
  }
  // The device, the context and each specialization are the caller's
  // (thread-local in CUDA); only the compiles, which need none of them, run
  // on other threads. The cache compiles a key once however many ask.
  CUcontext context = currentContext();
  std::vector<ArgFacts> specs;
  std::vector<runtime::CompileRequest> compiles;
  // Each key once: a second request for it would hold a thread waiting for
  // the first (precompile asks for one stage-1 kernel in most of its sets).
  std::set<std::string> keys;
  for (const auto &[kernel, args] : launches) {
    specs.push_back(argSpecialization(args));
    std::lock_guard<std::mutex> lock(kernel.impl->mutex);
    if (kernel.impl->find(context, specs.back()))
      continue;
    runtime::CompileRequest request = kernel.impl->requestFor(specs.back());
    if (keys.insert(runtime::computeCacheKey(request)).second)
      compiles.push_back(std::move(request));
  }
  // One compile per hardware thread at most; every compile ends before the
  // first error is rethrown.
  runtime::parallelFor(compiles.size(), 0,
                       [&](size_t i) { runtime::getArtifact(compiles[i]); });
  for (size_t i = 0; i < launches.size(); ++i)
    launches[i].first.impl->get(context, specs[i]); // loads what was compiled
}

std::string Kernel::emit(const std::string &stage,
                         const std::string &arch) const {
  std::optional<EmitStage> stop = parseEmitStage(stage);
  if (!stop)
    throw Error(fmt::format("stage: expected ast, tile, tile-gpu, llvm-mlir, "
                            "llvm or ptx, got '{}'",
                            stage));
  CompileOptions options = runtime::compileOptionsOf(impl->request);
  if (!arch.empty()) {
    std::optional<GpuTarget> target = GpuTarget::parse(arch);
    if (!target)
      throw Error(fmt::format("arch: unknown target '{}' (known: {})", arch,
                              GpuTarget::knownNames()));
    options.target = *target;
  } else if (impl->target) {
    options.target = *impl->target;
  } else if (!isInterpreterMode() && tilemla::isGpuAvailable()) {
    options.target = currentTarget();
  }
  std::string out, errs;
  if (!emitStage(SourceFile(impl->request.sourcePath, impl->request.sourceText),
                 options, *stop, out, errs))
    throw Error(errs);
  return out;
}

std::vector<std::string> Kernel::parameterTypes() const {
  std::vector<std::string> types;
  for (const KernelParam &param : impl->getInterpreted().getParams())
    types.push_back(toString(param));
  return types;
}

KernelInfo Kernel::info() const {
  const LoadedKernel &loaded = impl->latestOrDefault(currentContext());
  const runtime::Artifact &artifact = *loaded.artifact;
  std::vector<std::string> params;
  for (const KernelParam &param : artifact.params)
    params.push_back(toString(param));
  KernelInfo info;
  info.name = artifact.name;
  info.arch = artifact.target.name();
  info.cacheKey = artifact.key;
  info.numWarps = artifact.numWarps;
  info.producerWarps = artifact.producerWarps;
  info.sharedBytes = artifact.sharedBytes;
  info.params = std::move(params);
  info.hasCubin = !artifact.cubin.empty();
  info.assemblerLog = info.hasCubin ? artifact.assemblerLog : loaded.jitLog;
  return info;
}
} // namespace tilemla
