//===- DeviceBuffer.cpp - device memory for callers and tests -------------===//
#include "../cuda/CudaDriver.h"
#include "HostMemory.h"
#include "tilemla/Runtime.h"

#include <cstring>
#include <fmt/format.h>

namespace tilemla {
using namespace cuda;

DeviceBuffer::DeviceBuffer(size_t size) : bytes(size) {
  if (isInterpreterMode()) {
    address = reinterpret_cast<uintptr_t>(host::allocate(bytes));
    return;
  }
  currentContext();
  if (bytes)
    TILEMLA_CU(cuMemAlloc, fmt::format("{} bytes", bytes), &address, bytes);
}

DeviceBuffer::~DeviceBuffer() {
  if (address && isInterpreterMode())
    host::release(data());
  else if (address)
    driver().cuMemFree(address); // no throwing from a destructor
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : address(other.address), bytes(other.bytes) {
  other.address = 0;
  other.bytes = 0;
}

static void checkRange(size_t count, size_t bytes, const char *what) {
  if (count > bytes)
    throw Error(fmt::format("{} of {} bytes exceeds the {}-byte buffer", what,
                            count, bytes));
}

void DeviceBuffer::upload(const void *host, size_t count) {
  checkRange(count, bytes, "upload");
  if (isInterpreterMode())
    std::memcpy(data(), host, count);
  else if (count)
    TILEMLA_CU(cuMemcpyHtoD, "upload", address, host, count);
}

void DeviceBuffer::download(void *host, size_t count) const {
  checkRange(count, bytes, "download");
  if (isInterpreterMode())
    std::memcpy(host, data(), count);
  else if (count)
    TILEMLA_CU(cuMemcpyDtoH, "download", host, address, count);
}

void DeviceBuffer::fill(unsigned char byte) {
  if (isInterpreterMode())
    std::memset(data(), byte, bytes);
  else if (bytes)
    TILEMLA_CU(cuMemsetD8, "fill", address, byte, bytes);
}

void synchronize() {
  if (isInterpreterMode())
    return; // interpreted launches finish before they return
  currentContext();
  TILEMLA_CU(cuCtxSynchronize, "synchronize");
}
} // namespace tilemla
