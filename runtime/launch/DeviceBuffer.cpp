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
    if (!address)
      throw Error(fmt::format("DeviceBuffer: cannot allocate {} bytes of "
                              "host memory for the interpreter",
                              bytes));
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

HostMemoryLoan::HostMemoryLoan(const void *data, size_t bytes)
    : data(data), bytes(bytes) {
  if (!isInterpreterMode())
    throw Error("HostMemoryLoan: host memory reaches kernels only in "
                "interpreter mode (TILEMLA_INTERPRET=1)");
  host::lend(data, bytes);
}

HostMemoryLoan::~HostMemoryLoan() {
  if (data)
    host::endLoan(data, bytes);
}

HostMemoryLoan::HostMemoryLoan(HostMemoryLoan &&other) noexcept
    : data(other.data), bytes(other.bytes) {
  other.data = nullptr;
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

void DeviceBuffer::fillAsync(unsigned char byte, StreamHandle stream,
                             size_t offset, size_t count) {
  if (offset > bytes)
    throw Error(fmt::format("fill at offset {} is past the {}-byte buffer",
                            offset, bytes));
  if (count == npos)
    count = bytes - offset;
  checkRange(count, bytes - offset, "fill");
  if (isInterpreterMode())
    std::memset(static_cast<char *>(data()) + offset, byte, count);
  else if (count)
    TILEMLA_CU(cuMemsetD8Async, "fillAsync", address + offset, byte, count,
               static_cast<CUstream>(stream));
}

void DeviceBuffer::copyFromAsync(const DeviceBuffer &source, size_t count,
                                 StreamHandle stream, size_t offset,
                                 size_t sourceOffset) {
  if (offset > bytes || sourceOffset > source.bytes)
    throw Error(fmt::format("copy at offsets {} <- {} is past the {}- and "
                            "{}-byte buffers",
                            offset, sourceOffset, bytes, source.bytes));
  checkRange(count, bytes - offset, "copy into");
  checkRange(count, source.bytes - sourceOffset, "copy from");
  if (isInterpreterMode())
    std::memmove(static_cast<char *>(data()) + offset,
                 static_cast<const char *>(source.data()) + sourceOffset,
                 count);
  else if (count)
    TILEMLA_CU(cuMemcpyDtoDAsync, "copyFromAsync", address + offset,
               source.address + sourceOffset, count,
               static_cast<CUstream>(stream));
}

void synchronizeStream(StreamHandle stream) {
  if (isInterpreterMode())
    return;
  currentContext();
  TILEMLA_CU(cuStreamSynchronize, "synchronizeStream",
             static_cast<CUstream>(stream));
}

void synchronize() {
  if (isInterpreterMode())
    return; // interpreted launches finish before they return
  currentContext();
  TILEMLA_CU(cuCtxSynchronize, "synchronize");
}
} // namespace tilemla
