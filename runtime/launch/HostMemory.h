//===- HostMemory.h - "device" buffers in interpreter mode ------*- C++ -*-===//
//
// With TILEMLA_INTERPRET=1 kernels run in the tile-IR interpreter on the CPU,
// so DeviceBuffers live in host memory. The registry maps an address to the
// rest of the buffer holding it: the interpreter bounds-checks every access
// against that range.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_RUNTIME_HOSTMEMORY_H
#define TILEMLA_RUNTIME_HOSTMEMORY_H

#include <cstddef>
#include <optional>

namespace tilemla::host {
/// `bytes` of host memory, 256-byte aligned; null when there is none.
void *allocate(size_t bytes);
void release(void *data);
/// Registers (lend) or unregisters (endLoan) the caller's memory
/// [data, data + bytes) as a buffer kernels may reach (HostMemoryLoan).
/// Loans may overlap each other and be made more than once.
void lend(const void *data, size_t bytes);
void endLoan(const void *data, size_t bytes);
/// Bytes from `address` to the end of the registered buffer (or the
/// furthest-reaching loan) containing it.
std::optional<size_t> bytesAfter(const void *address);
} // namespace tilemla::host

#endif
