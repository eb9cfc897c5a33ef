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
  /// The caller's memory, lent for a while (start -> size; few at once).
  std::multimap<const char *, size_t> loans;
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

void lend(const void *data, size_t bytes) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().loans.emplace(static_cast<const char *>(data), bytes);
}

void endLoan(const void *data, size_t bytes) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto [first, last] =
      registry().loans.equal_range(static_cast<const char *>(data));
  for (auto it = first; it != last; ++it)
    if (it->second == bytes) {
      registry().loans.erase(it);
      return;
    }
}

std::optional<size_t> bytesAfter(const void *address) {
  const char *p = static_cast<const char *>(address);
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto &buffers = registry().buffers;
  auto it = buffers.upper_bound(p);
  if (it != buffers.begin() &&
      p <= std::prev(it)->first + std::prev(it)->second)
    return size_t(std::prev(it)->first + std::prev(it)->second - p);
  // Loans may overlap: the one reaching furthest past p.
  std::optional<size_t> furthest;
  for (auto &[start, size] : registry().loans)
    if (start <= p && p <= start + size)
      furthest = std::max(furthest.value_or(0), size_t(start + size - p));
  return furthest;
}
} // namespace tilemla::host
