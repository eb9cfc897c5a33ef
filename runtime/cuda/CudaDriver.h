//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen on first use, so the compiler and tools
// run on machines without a GPU driver; only a launch needs one. The few
// driver types are declared here (they are a stable C ABI), which keeps the
// build independent of the CUDA headers.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_RUNTIME_CUDADRIVER_H
#define TILEMLA_RUNTIME_CUDADRIVER_H

#include "tilemla/Support/GpuTarget.h"

#include <cstddef>
#include <string>

namespace tilemla::cuda {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphNode = struct CUgraphNode_st *;
using CUgraphExec = struct CUgraphExec_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr unsigned CU_EVENT_DEFAULT = 0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
constexpr int CU_STREAM_CAPTURE_STATUS_NONE = 0;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;

/// The driver's launch attribute: an id, then a 64-byte value union.
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

/// A graph's kernel node (CUDA_KERNEL_NODE_PARAMS_v2, CUDA 12.0+).
struct CUDA_KERNEL_NODE_PARAMS_v2 {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern; // CUkernel, read only without func
  CUcontext ctx;
};
/// An edge's annotation (CUgraphEdgeData, CUDA 12.3+); zero: full
/// completion of the upstream node.
struct CUgraphEdgeData {
  unsigned char from_port, to_port, type;
  unsigned char reserved[5];
};
constexpr unsigned char CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC = 1;
constexpr unsigned char CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC = 1;

/// The TMA unit's description of a tensor (CUtensorMap): opaque, encoded on
/// the host, passed to kernels by value.
struct CUtensorMap {
  alignas(64) unsigned long long opaque[16];
};
// cuTensorMapEncodeTiled's enums (CUtensorMapDataType, ...Interleave,
// ...Swizzle, ...L2promotion, ...FloatOOBfill), by their CUDA values.
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
constexpr int CU_TENSOR_MAP_DATA_TYPE_INT32 = 3;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4;
constexpr int CU_TENSOR_MAP_DATA_TYPE_INT64 = 5;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8;
constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_32B = 1;
constexpr int CU_TENSOR_MAP_SWIZZLE_64B = 2;
constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_NONE = 0;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
/// Out-of-bounds elements read as zero.
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;

/// Entry points of the driver API that tilemla uses.
struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  /// Null on drivers before CUDA 12.0 (then launches are never dependent).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                               void **);
  /// Null on drivers before CUDA 12.0 (then TMA kernels cannot launch).
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *tensorMap, int dataType,
                                     unsigned rank, void *globalAddress,
                                     const unsigned long long *globalDim,
                                     const unsigned long long *globalStrides,
                                     const unsigned *boxDim,
                                     const unsigned *elementStrides,
                                     int interleave, int swizzle,
                                     int l2Promotion, int oobFill);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuMemGetInfo)(size_t *, size_t *);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  /// The status is a CUstreamCaptureStatus.
  CUresult (*cuStreamIsCapturing)(CUstream, int *);
  /// cuEventElapsedTime_v2 where the driver has it (CUDA 12.8+), else the
  /// original entry point (same signature).
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  /// Graphs of kernel nodes with programmatic edges (CUDA 12.3+; null
  /// before, and LaunchGraph then launches directly).
  CUresult (*cuGraphCreate)(CUgraph *, unsigned);
  CUresult (*cuGraphAddKernelNode)(CUgraphNode *, CUgraph, const CUgraphNode *,
                                   size_t, const CUDA_KERNEL_NODE_PARAMS_v2 *);
  CUresult (*cuGraphAddDependencies)(CUgraph, const CUgraphNode *,
                                     const CUgraphNode *,
                                     const CUgraphEdgeData *, size_t);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphExecKernelNodeSetParams)(
      CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v2 *);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
};

/// True if libcuda.so.1 can be loaded and reports at least one device.
bool isGpuAvailable();

/// The driver, loaded and initialized on first call; throws tilemla::Error
/// when no driver is installed.
const DriverApi &driver();

/// Throws tilemla::Error naming the call, the CUresult's name and `what`
/// (e.g. the kernel) unless `result` is CUDA_SUCCESS.
void check(CUresult result, const char *call, const std::string &what = "");

/// The CUDA context launches go to: the current one if the caller has set
/// one (as frameworks do), else device 0's primary context, made current.
CUcontext currentContext();
CUdevice currentDevice();

/// The code target of the current device (sm_90a on compute capability
/// 9.0, sm_80 on 8.0, ...). Throws tilemla::Error on a device no known
/// target runs on.
GpuTarget currentTarget();
} // namespace tilemla::cuda

/// TILEMLA_CU(cuMemAlloc, "workspace", &ptr, bytes): call and check.
#define TILEMLA_CU(fn, what, ...)                                              \
  ::tilemla::cuda::check(::tilemla::cuda::driver().fn(__VA_ARGS__), #fn, what)

#endif
