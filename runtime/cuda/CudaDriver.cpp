//===- CudaDriver.cpp - dlopen'ed CUDA driver -----------------------------===//
#include "CudaDriver.h"

#include "tilemla/Runtime.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <mutex>

namespace tilemla::cuda {
namespace {
struct LoadedDriver {
  DriverApi api{};
  std::string error; ///< why loading failed, empty on success
};

template <typename Fn>
bool bind(void *library, const char *symbol, Fn &slot, std::string &error) {
  slot = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (!slot && error.empty())
    error = fmt::format("libcuda.so.1 has no symbol {}", symbol);
  return slot != nullptr;
}

LoadedDriver loadDriver() {
  LoadedDriver loaded;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    loaded.error = fmt::format("cannot load the CUDA driver (libcuda.so.1): {}",
                               reason ? reason : "not found");
    return loaded;
  }
  DriverApi &api = loaded.api;
  std::string &error = loaded.error;
  bind(library, "cuInit", api.cuInit, error);
  bind(library, "cuGetErrorName", api.cuGetErrorName, error);
  bind(library, "cuGetErrorString", api.cuGetErrorString, error);
  bind(library, "cuDeviceGetCount", api.cuDeviceGetCount, error);
  bind(library, "cuDeviceGet", api.cuDeviceGet, error);
  bind(library, "cuDeviceGetAttribute", api.cuDeviceGetAttribute, error);
  bind(library, "cuDevicePrimaryCtxRetain", api.cuDevicePrimaryCtxRetain,
       error);
  bind(library, "cuCtxGetCurrent", api.cuCtxGetCurrent, error);
  bind(library, "cuCtxSetCurrent", api.cuCtxSetCurrent, error);
  bind(library, "cuCtxGetDevice", api.cuCtxGetDevice, error);
  bind(library, "cuCtxSynchronize", api.cuCtxSynchronize, error);
  bind(library, "cuModuleLoadData", api.cuModuleLoadData, error);
  bind(library, "cuModuleLoadDataEx", api.cuModuleLoadDataEx, error);
  bind(library, "cuModuleUnload", api.cuModuleUnload, error);
  bind(library, "cuModuleGetFunction", api.cuModuleGetFunction, error);
  bind(library, "cuFuncSetAttribute", api.cuFuncSetAttribute, error);
  bind(library, "cuLaunchKernel", api.cuLaunchKernel, error);
  std::string optional; // these stay null on drivers without them
  bind(library, "cuLaunchKernelEx", api.cuLaunchKernelEx, optional);
  bind(library, "cuTensorMapEncodeTiled", api.cuTensorMapEncodeTiled, optional);
  // The _v2 entry points take the structs declared in CudaDriver.h (the
  // unsuffixed ones keep the CUDA 11 layouts).
  bind(library, "cuGraphCreate", api.cuGraphCreate, optional);
  bind(library, "cuGraphAddKernelNode_v2", api.cuGraphAddKernelNode, optional);
  bind(library, "cuGraphAddDependencies_v2", api.cuGraphAddDependencies,
       optional);
  bind(library, "cuGraphInstantiateWithFlags", api.cuGraphInstantiateWithFlags,
       optional);
  bind(library, "cuGraphExecKernelNodeSetParams_v2",
       api.cuGraphExecKernelNodeSetParams, optional);
  bind(library, "cuGraphLaunch", api.cuGraphLaunch, optional);
  bind(library, "cuGraphExecDestroy", api.cuGraphExecDestroy, optional);
  bind(library, "cuGraphDestroy", api.cuGraphDestroy, optional);
  bind(library, "cuMemAlloc_v2", api.cuMemAlloc, error);
  bind(library, "cuMemFree_v2", api.cuMemFree, error);
  bind(library, "cuMemcpyHtoD_v2", api.cuMemcpyHtoD, error);
  bind(library, "cuMemcpyDtoH_v2", api.cuMemcpyDtoH, error);
  bind(library, "cuMemsetD8_v2", api.cuMemsetD8, error);
  bind(library, "cuStreamSynchronize", api.cuStreamSynchronize, error);
  bind(library, "cuDeviceGetName", api.cuDeviceGetName, error);
  bind(library, "cuDeviceTotalMem_v2", api.cuDeviceTotalMem, error);
  bind(library, "cuMemGetInfo_v2", api.cuMemGetInfo, error);
  bind(library, "cuMemsetD8Async", api.cuMemsetD8Async, error);
  bind(library, "cuMemcpyDtoDAsync_v2", api.cuMemcpyDtoDAsync, error);
  bind(library, "cuEventCreate", api.cuEventCreate, error);
  bind(library, "cuEventDestroy_v2", api.cuEventDestroy, error);
  bind(library, "cuEventRecord", api.cuEventRecord, error);
  bind(library, "cuEventSynchronize", api.cuEventSynchronize, error);
  bind(library, "cuStreamWaitEvent", api.cuStreamWaitEvent, error);
  bind(library, "cuStreamIsCapturing", api.cuStreamIsCapturing, error);
  std::string noV2; // older drivers export only cuEventElapsedTime
  if (!bind(library, "cuEventElapsedTime_v2", api.cuEventElapsedTime, noV2))
    bind(library, "cuEventElapsedTime", api.cuEventElapsedTime, error);
  if (!error.empty())
    return loaded;
  CUresult init = api.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char *name = nullptr;
    api.cuGetErrorName(init, &name);
    error = fmt::format("cuInit failed: {}", name ? name : "unknown error");
  }
  return loaded;
}

const LoadedDriver &loadedDriver() {
  static const LoadedDriver loaded = loadDriver();
  return loaded;
}
} // namespace

bool isGpuAvailable() {
  const LoadedDriver &loaded = loadedDriver();
  int count = 0;
  return loaded.error.empty() &&
         loaded.api.cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0;
}

const DriverApi &driver() {
  const LoadedDriver &loaded = loadedDriver();
  if (!loaded.error.empty())
    throw Error(loaded.error);
  return loaded.api;
}

void check(CUresult result, const char *call, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *text = nullptr;
  driver().cuGetErrorName(result, &name);
  driver().cuGetErrorString(result, &text);
  throw Error(fmt::format(
      "{} failed{}{}: {} ({})", call, what.empty() ? "" : " for ", what,
      name ? name : "CUDA_ERROR_UNKNOWN", text ? text : "no description"));
}

CUcontext currentContext() {
  CUcontext context = nullptr;
  TILEMLA_CU(cuCtxGetCurrent, "the current context", &context);
  if (context)
    return context;
  CUdevice device = 0;
  TILEMLA_CU(cuDeviceGet, "device 0", &device, 0);
  TILEMLA_CU(cuDevicePrimaryCtxRetain, "device 0", &context, device);
  TILEMLA_CU(cuCtxSetCurrent, "device 0's primary context", context);
  return context;
}

CUdevice currentDevice() {
  currentContext();
  CUdevice device = 0;
  TILEMLA_CU(cuCtxGetDevice, "the current context", &device);
  return device;
}

GpuTarget currentTarget() {
  CUdevice device = currentDevice();
  int major = 0, minor = 0;
  TILEMLA_CU(cuDeviceGetAttribute, "compute capability", &major,
             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  TILEMLA_CU(cuDeviceGetAttribute, "compute capability", &minor,
             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  std::optional<GpuTarget> target = GpuTarget::forDevice(major, minor);
  if (!target)
    throw Error(fmt::format("no known code target runs on this GPU (compute "
                            "capability {}.{}); tilemla compiles for {}",
                            major, minor, GpuTarget::knownNames()));
  return *target;
}
} // namespace tilemla::cuda
