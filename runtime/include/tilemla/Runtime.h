//===- Runtime.h - JIT-compiled tile kernels, launched on CUDA --*- C++ -*-===//
//
// A Kernel is a tile-language source plus constexpr values. It is compiled to
// PTX (and a cubin through nvJitLink when available) on first launch, once
// per specialization, cached in memory and on disk, and launched on a CUDA
// stream without synchronizing the host.
//
// Environment:
//   TILEMLA_CACHE_DIR  disk cache folder (default $XDG_CACHE_HOME/tilemla or
//                      ~/.cache/tilemla)
//   TILEMLA_CACHE=off  no disk cache
//   TILEMLA_DUMP_DIR   write every stage of every compile there
//   TILEMLA_INTERPRET=1  run kernels in the CPU interpreter instead
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_RUNTIME_H
#define TILEMLA_RUNTIME_H

#include "tilemla/Export.h"
#include "tilemla/Support/GpuTarget.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tilemla {
namespace launch {
struct PreparedLaunch;
} // namespace launch
/// Every runtime failure: bad arguments, compile errors, CUDA errors.
class TILEMLA_API Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// One kernel argument: a device pointer, a scalar or a 2-D tensor.
class TILEMLA_API KernelArg {
public:
  enum class Kind { Pointer, Int32, Int64, Float32, Bool, TensorDesc };
  static KernelArg pointer(const void *devicePtr) {
    return KernelArg(Kind::Pointer, reinterpret_cast<uint64_t>(devicePtr));
  }
  static KernelArg i32(int32_t v) {
    return KernelArg(Kind::Int32, static_cast<uint32_t>(v));
  }
  static KernelArg i64(int64_t v) {
    return KernelArg(Kind::Int64, static_cast<uint64_t>(v));
  }
  static KernelArg f32(float v);
  static KernelArg boolean(bool v) { return KernelArg(Kind::Bool, v); }
  /// For a `desc<T>` parameter: a row-major tensor of `rows` x `cols`
  /// elements of the parameter's type in device memory, row r starting
  /// `r * rowStride` elements after `base`. The launch passes the shape with
  /// the address (and encodes the TMA tensor map when the kernel reads the
  /// tensor with TMA), so the kernel needs no extra size or stride arguments.
  /// `base` must be 16-byte aligned and each row stride a multiple of 16
  /// bytes, as TMA requires.
  static KernelArg tensor(const void *base, int64_t rows, int64_t cols,
                          int64_t rowStride) {
    KernelArg arg(Kind::TensorDesc, reinterpret_cast<uint64_t>(base));
    arg.rows = rows;
    arg.cols = cols;
    arg.rowStride = rowStride;
    return arg;
  }

  /// The same argument, kept out of the specialization key: the kernel is
  /// compiled assuming nothing about its value (for a value that varies
  /// from call to call, such as a batch size, so that it never causes a
  /// compile of its own).
  KernelArg unspecialized() const {
    KernelArg arg = *this;
    arg.specialize = false;
    return arg;
  }
  bool isSpecialized() const { return specialize; }

  Kind kind() const { return argKind; }
  /// Address of the value as cuLaunchKernel wants it. For a TensorDesc, the
  /// base address: the launch builds the descriptor from it.
  void *storage() const { return const_cast<uint64_t *>(&bits); }
  /// TensorDesc only: the shape, in elements.
  int64_t tensorRows() const { return rows; }
  int64_t tensorCols() const { return cols; }
  int64_t tensorRowStride() const { return rowStride; }

private:
  KernelArg(Kind kind, uint64_t bits) : argKind(kind), bits(bits) {}
  Kind argKind;
  bool specialize = true; // in the padding after argKind
  uint64_t bits;
  int64_t rows = 0, cols = 0, rowStride = 0; ///< TensorDesc only
};

using Dim3 = std::array<unsigned, 3>;
/// A CUDA stream (CUstream / cudaStream_t); null is the legacy default stream.
using StreamHandle = void *;

struct KernelOptions {
  /// Warps per program; 0: the kernel's `with num_warps = ...`, else 4.
  unsigned numWarps = 0;
  std::string arch; ///< empty: the current device's (sm_90a on Hopper)
  /// Which kernel of the source (a file may hold several, sharing its
  /// helpers); empty: the first.
  std::string kernel;
};

/// How one launch is made.
struct LaunchOptions {
  /// Programmatic dependent launch (sm_90+, ignored elsewhere): the kernel
  /// may start while the previous kernel of the stream runs, once all that
  /// kernel's programs have run `launch_dependents()`; the kernel must call
  /// `grid_dependency_wait()` before it reads what that kernel wrote.
  bool programmaticDependent = false;
};

/// What a compiled specialization looks like to a caller.
struct KernelInfo {
  std::string name;
  std::string arch;
  std::string cacheKey;
  unsigned numWarps = 4;
  /// Warps that only issue TMA copies (warp specialization), launched
  /// after the numWarps warps.
  unsigned producerWarps = 0;
  unsigned sharedBytes = 0;
  /// "*bf16", "i32", "f32", "desc<bf16>", "desc<bf16>:tma=64x64:swizzle=128"
  std::vector<std::string> params;
  /// false: the driver JIT-compiled the PTX (no nvJitLink, or a
  /// warp-specialized kernel, which must be compiled as a whole program).
  bool hasCubin = false;
  /// What the assembler (nvJitLink's ptxas, or the driver's when it
  /// compiled the PTX) remarked on the kernel, empty when nothing: e.g.
  /// "Potential Performance Loss: wgmma.mma_async instructions are serialized
  /// ...", which costs a tensor-core kernel most of its speed.
  std::string assemblerLog;
};

class TILEMLA_API Kernel {
public:
  using Constexprs = std::map<std::string, std::string>;

  /// A kernel whose source was embedded in the library at build time, by its
  /// path under kernels/ without extension, e.g. "examples/softmax".
  static Kernel fromEmbedded(const std::string &name,
                             const Constexprs &constexprs = {},
                             const KernelOptions &options = {});
  static Kernel fromFile(const std::string &path,
                         const Constexprs &constexprs = {},
                         const KernelOptions &options = {});
  static Kernel fromSource(const std::string &path, const std::string &text,
                           const Constexprs &constexprs = {},
                           const KernelOptions &options = {});
  /// Names of the embedded kernel sources.
  static std::vector<std::string> embeddedNames();

  /// Launches `grid` programs on `stream`; compiles and loads on first use.
  /// Arguments are checked against the kernel's signature.
  void launch(Dim3 grid, const std::vector<KernelArg> &args,
              StreamHandle stream = nullptr,
              const LaunchOptions &options = {}) const;

  /// Compiles and loads on the current device the specializations that
  /// these launches would use (kernel and arguments; nothing is launched),
  /// compiling in parallel threads: several kernels' first launches then
  /// start at once, e.g. before a CUDA graph is captured. Throws the first
  /// compile error, after every compile has ended.
  static void prepare(
      const std::vector<std::pair<Kernel, std::vector<KernelArg>>> &launches);

  /// Describes the specialization launched last on the current device
  /// (compiling the default one if there was no launch yet).
  KernelInfo info() const;

  /// The kernel's code after a stage of the compiler, as `tilec --emit=`
  /// prints it ("ast", "tile", "tile-gpu", "llvm-mlir", "llvm", "ptx"),
  /// specialized on its constexprs alone (no argument facts), for `arch`
  /// (empty: KernelOptions::arch, else the current device's target, else
  /// sm_90a where no GPU is present). Compiled on the host; nothing is
  /// loaded or cached. Throws with the compiler's diagnostics.
  std::string emit(const std::string &stage,
                   const std::string &arch = "") const;

  /// The runtime parameters a launch passes, in order, as KernelInfo::params
  /// writes them ("*f32", "i32", "desc<bf16>"; no TMA details), read from
  /// the kernel's specialized tile IR: no GPU needed. Throws with the
  /// compiler's diagnostics.
  std::vector<std::string> parameterTypes() const;

  struct Impl;

private:
  friend class LaunchGraph;
  explicit Kernel(std::shared_ptr<Impl> impl) : impl(std::move(impl)) {}
  /// Compiles and loads as launch() does, checks `args` and fills `launch`;
  /// false for an empty grid (nothing to launch).
  bool prepareLaunch(Dim3 grid, const std::vector<KernelArg> &args,
                     const LaunchOptions &options,
                     launch::PreparedLaunch &launch) const;
  std::shared_ptr<Impl> impl;
};

/// A fixed sequence of launches issued as one CUDA graph: made at the first
/// launch of a sequence of its kernels and dependence flags (up to
/// kMaxGraphs such sequences at once), then launched again with each call's
/// grids and arguments (one graph launch costs the host about what one
/// kernel launch does). A programmatic dependent
/// (LaunchOptions) becomes a programmatic edge from the launch before it;
/// the first launch waits for the stream's earlier work to end. Launches
/// directly where the stream is being captured, a grid is empty, the driver
/// has no graphs (before CUDA 12.3) or kernels are interpreted. One caller
/// at a time.
class TILEMLA_API LaunchGraph {
public:
  struct Launch {
    const Kernel *kernel;
    Dim3 grid;
    const std::vector<KernelArg> *args;
    LaunchOptions options;
  };
  /// The most launches in a sequence.
  static constexpr size_t kMaxLaunches = 4;
  /// Sequences of different kernels or edges kept made at once.
  static constexpr size_t kMaxGraphs = 4;

  LaunchGraph();
  ~LaunchGraph();
  LaunchGraph(const LaunchGraph &) = delete;
  LaunchGraph &operator=(const LaunchGraph &) = delete;

  /// Launches `count` launches in order on `stream`.
  void launch(const Launch *launches, size_t count,
              StreamHandle stream = nullptr);
  /// The same launches one by one, without a graph.
  static void launchEach(const Launch *launches, size_t count,
                         StreamHandle stream = nullptr);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// True if a CUDA driver and at least one GPU are present.
TILEMLA_API bool isGpuAvailable();

/// True when TILEMLA_INTERPRET is set (and not "0"): launches run in the
/// tile-IR interpreter on the CPU, DeviceBuffers are host memory, and every
/// out-of-bounds access stops with the kernel, program and source location.
TILEMLA_API bool isInterpreterMode();

/// Device memory in the current context (cuMemAlloc), freed on destruction.
class TILEMLA_API DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&other) noexcept;

  void *data() const { return reinterpret_cast<void *>(address); }
  size_t size() const { return bytes; }
  /// Synchronous copies; `count` bytes from the start of the buffer.
  void upload(const void *host, size_t count);
  void download(void *host, size_t count) const;
  void fill(unsigned char byte);

  /// Stream-ordered (cuMemsetD8Async): sets `count` bytes from `offset` to
  /// `byte` on `stream` (count = npos: to the end of the buffer). Returns at
  /// once; the host is not synchronized.
  void fillAsync(unsigned char byte, StreamHandle stream = nullptr,
                 size_t offset = 0, size_t count = npos);
  /// Stream-ordered device-to-device copy (cuMemcpyDtoDAsync) of `count`
  /// bytes from `source` at `sourceOffset` to this buffer at `offset`, on
  /// `stream`. Both ranges must lie inside their buffers; the host is not
  /// synchronized.
  void copyFromAsync(const DeviceBuffer &source, size_t count,
                     StreamHandle stream = nullptr, size_t offset = 0,
                     size_t sourceOffset = 0);

  static constexpr size_t npos = ~size_t(0);

private:
  unsigned long long address = 0;
  size_t bytes = 0;
};

/// Interpreter mode (TILEMLA_INTERPRET=1) only: while it lives, kernels
/// may read and write the caller's host memory [data, data + bytes) (a
/// NumPy array, a C array) as they do a DeviceBuffer's, bounds-checked.
/// Throws outside interpreter mode: a GPU reads device memory.
class TILEMLA_API HostMemoryLoan {
public:
  HostMemoryLoan(const void *data, size_t bytes);
  ~HostMemoryLoan();
  HostMemoryLoan(const HostMemoryLoan &) = delete;
  HostMemoryLoan &operator=(const HostMemoryLoan &) = delete;
  HostMemoryLoan(HostMemoryLoan &&other) noexcept;

private:
  const void *data = nullptr;
  size_t bytes = 0;
};

/// Waits for all work in the current context (tests and benchmarks only).
TILEMLA_API void synchronize();
/// Waits for the work queued on `stream` (null: the legacy default stream).
TILEMLA_API void synchronizeStream(StreamHandle stream);
/// Whether `stream` is capturing a CUDA graph (never when interpreted).
TILEMLA_API bool isStreamCapturing(StreamHandle stream);

/// A CUDA event (cuEventCreate, with timing) for measuring stream-ordered
/// work on the GPU, e.g.
///
///   GpuEvent start, stop;
///   start.record(stream);
///   kernel.launch(grid, args, stream);
///   stop.record(stream);
///   stop.synchronize();
///   float ms = GpuEvent::elapsedMs(start, stop);
///
/// Creating one needs the CUDA driver (tilemla::Error without one). With
/// TILEMLA_INTERPRET=1, where every launch, copy and fill has finished when
/// it returns, an event records the host's steady clock instead.
class TILEMLA_API GpuEvent {
public:
  GpuEvent();
  ~GpuEvent();
  GpuEvent(const GpuEvent &) = delete;
  GpuEvent &operator=(const GpuEvent &) = delete;
  GpuEvent(GpuEvent &&other) noexcept;
  GpuEvent &operator=(GpuEvent &&other) noexcept;

  /// Captures the work queued on `stream` so far (cuEventRecord).
  void record(StreamHandle stream = nullptr);
  /// Waits until the work captured by the last record() has finished.
  void synchronize() const;
  /// Milliseconds between two recorded, finished events (about 0.5 us
  /// resolution on the GPU). Throws if either was never recorded.
  static float elapsedMs(const GpuEvent &start, const GpuEvent &end);

private:
  void *event = nullptr; ///< CUevent; null in interpreter mode
  bool recorded = false;
  int64_t hostNs = 0; ///< interpreter mode: steady clock at record()
};

/// Orders the uses of one device resource (a workspace) across streams:
/// acquire(s) makes stream s wait, on the device, for the work queued by
/// the last release() on another stream, so that calls made one after the
/// other from different streams (or host threads) never overlap on it.
/// A use while either stream captures a CUDA graph is not ordered: a
/// graph's replays are ordered by whoever launches them. Not thread-safe:
/// its owner serializes acquire ... release. No-op when interpreted.
class TILEMLA_API StreamOrder {
public:
  StreamOrder() = default;
  ~StreamOrder();
  StreamOrder(const StreamOrder &) = delete;
  StreamOrder &operator=(const StreamOrder &) = delete;

  /// Before the first use on `stream`.
  void acquire(StreamHandle stream);
  /// After the last use on `stream` is queued.
  void release(StreamHandle stream);

private:
  void *event = nullptr; ///< CUevent, made on the first release
  StreamHandle last = nullptr;
  bool pending = false; ///< `event` marks `last`'s uses
};

/// The current device, as benchmarks report it and backends size their
/// work for.
struct DeviceInfo {
  std::string name; ///< e.g. "NVIDIA H200"
  int ordinal = -1; ///< the CUDA device ordinal; -1 when interpreted
  std::string arch; ///< the code target, e.g. "sm_90a"
  /// The code target kernels are compiled for; none when interpreted.
  std::optional<GpuTarget> target;
  int multiprocessors = 0; ///< SM count
  size_t totalMemory = 0;  ///< bytes
  size_t freeMemory = 0;   ///< bytes free in the current context now
};
/// Describes the current device (device 0's primary context unless the
/// caller made another current). Throws tilemla::Error without a driver; in
/// interpreter mode describes the host ("CPU interpreter", memory 0).
TILEMLA_API DeviceInfo deviceInfo();
/// Only the current device's ordinal (deviceInfo().ordinal, without the
/// rest): where launches go. -1 in interpreter mode.
TILEMLA_API int currentDeviceOrdinal();
} // namespace tilemla

#endif
