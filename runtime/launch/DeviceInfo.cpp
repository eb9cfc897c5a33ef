//===- DeviceInfo.cpp - what the current device is -----------------------===//
#include "../cuda/CudaDriver.h"
#include "tilemla/Runtime.h"

namespace tilemla {
using namespace cuda;

DeviceInfo deviceInfo() {
  DeviceInfo info;
  if (isInterpreterMode()) {
    info.name = "CPU interpreter (TILEMLA_INTERPRET=1)";
    info.arch = "interpreter";
    info.multiprocessors = 1;
    return info;
  }
  CUdevice device = currentDevice();
  char name[256] = {};
  TILEMLA_CU(cuDeviceGetName, "the device name", name, int(sizeof name) - 1,
             device);
  info.name = name;
  info.ordinal = device; // a CUdevice is the device ordinal
  info.target = currentTarget();
  info.arch = info.target->name();
  TILEMLA_CU(cuDeviceGetAttribute, "the SM count", &info.multiprocessors,
             CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  TILEMLA_CU(cuDeviceTotalMem, "the device memory", &info.totalMemory, device);
  size_t total = 0;
  TILEMLA_CU(cuMemGetInfo, "free device memory", &info.freeMemory, &total);
  return info;
}

int currentDeviceOrdinal() {
  return isInterpreterMode() ? -1 : int(currentDevice());
}
} // namespace tilemla
