//===- Memory.cpp - checked access to the launch's host buffers -----------===//
#include "Memory.h"

#include <algorithm>
#include <fmt/format.h>

namespace tilemla::interp {
int64_t Memory::baseAddress(unsigned index) {
  return int64_t((uint64_t(index) + 1) << kRegionBits | (kRegionSize / 2));
}

std::string Memory::describeBadAccesses(llvm::ArrayRef<int64_t> addresses,
                                        llvm::ArrayRef<bool> active,
                                        unsigned bytes) const {
  // Report the range of bad bytes within the first bad lane's argument.
  std::optional<Location> first;
  int64_t lo = 0, hi = 0;
  size_t numBad = 0, numActive = 0;
  int64_t strayAddress = 0;
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (!active[i])
      continue;
    ++numActive;
    if (translate(addresses[i], bytes))
      continue;
    ++numBad;
    std::optional<Location> loc = locate(addresses[i]);
    if (!loc) {
      if (numBad == 1)
        strayAddress = addresses[i];
      continue;
    }
    if (!first) {
      first = loc;
      lo = loc->offset;
      hi = loc->offset + bytes;
    } else if (loc->arg == first->arg) {
      lo = std::min(lo, loc->offset);
      hi = std::max(hi, loc->offset + int64_t(bytes));
    }
  }
  std::string lanes =
      addresses.size() > 1
          ? fmt::format(", {} of {} active lanes", numBad, numActive)
          : std::string();
  if (!first)
    return fmt::format("address {:#x} is in no argument's buffer{}",
                       uint64_t(strayAddress), lanes);
  return fmt::format("bytes [{}, {}) of argument {} ({} bytes){}", lo, hi,
                     first->arg, buffers[first->arg].bytes, lanes);
}
} // namespace tilemla::interp
