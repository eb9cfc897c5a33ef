//===- HostMemory.cpp - "device" buffers in interpreter mode --------------===//
#include "HostMemory.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

namespace tilemla::host {
namespace {
struct Registry {
  std::mutex mutex;
  std::map<const char *, size_t> buffers; ///< start -> size
};

Registry &registry() {
  static Registry instance;
  return instance;
}
} // namespace

void *allocate(size_t bytes) {
  // 256-byte aligned like cuMemAlloc's; null when the host has no memory
  // for it (or the size overflows).
  if (bytes > SIZE_MAX - 512)
    return nullptr;
  void *data = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!data)
    return nullptr;
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().buffers[static_cast<const char *>(data)] = bytes;
  return data;
}

void release(void *data) {
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().buffers.erase(static_cast<const char *>(data));
  }
  std::free(data);
}

std::optional<size_t> bytesAfter(const void *address) {
  const char *p = static_cast<const char *>(address);
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto &buffers = registry().buffers;
  auto it = buffers.upper_bound(p);
  if (it == buffers.begin())
    return std::nullopt;
  --it;
  if (p > it->first + it->second)
    return std::nullopt;
  return size_t(it->first + it->second - p);
}
} // namespace tilemla::host
