//===- Memory.h - checked access to the launch's host buffers ---*- C++ -*-===//
//
// Pointers in the interpreter are virtual addresses that remember which
// argument they came from: argument i's buffer starts at baseAddress(i), in
// the middle of a 2^40-byte region of its own. Pointer arithmetic moves within
// the region, so every access can be checked against the buffer its pointer
// was derived from (not merely against "some" buffer: running off the end of
// x into y is an error too).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_INTERPRETER_MEMORY_H
#define TILEMLA_INTERPRETER_MEMORY_H

#include "tilemla/Interpreter/Interpreter.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilemla::interp {
class Memory {
public:
  /// `buffers[i]` is argument i's buffer (unused entries for scalars).
  explicit Memory(std::vector<Buffer> buffers) : buffers(std::move(buffers)) {}

  /// The virtual address of the first byte of argument `index`'s buffer.
  static int64_t baseAddress(unsigned index);

  /// Host address of the `bytes` bytes at `address`, or null when any of
  /// them lies outside the buffer the address belongs to.
  void *translate(int64_t address, unsigned bytes) const {
    std::optional<Location> loc = locate(address);
    if (!loc || loc->offset < 0 ||
        uint64_t(loc->offset) + bytes > buffers[loc->arg].bytes)
      return nullptr;
    return static_cast<char *>(buffers[loc->arg].data) + loc->offset;
  }

  /// Describes the bad accesses among `addresses` (each `bytes` wide), e.g.
  /// "bytes [4000, 4096) of argument 0 (4000 bytes), 24 of 1024 lanes".
  std::string describeBadAccesses(llvm::ArrayRef<int64_t> addresses,
                                  llvm::ArrayRef<bool> active,
                                  unsigned bytes) const;

private:
  struct Location {
    unsigned arg;
    int64_t offset;
  };
  std::optional<Location> locate(int64_t address) const {
    uint64_t region = uint64_t(address) >> kRegionBits;
    if (region == 0 || region > buffers.size())
      return std::nullopt;
    int64_t offset = int64_t(uint64_t(address) & (kRegionSize - 1)) -
                     int64_t(kRegionSize / 2);
    return Location{unsigned(region - 1), offset};
  }

  static constexpr unsigned kRegionBits = 40;
  static constexpr uint64_t kRegionSize = uint64_t(1) << kRegionBits;
  std::vector<Buffer> buffers;
};
} // namespace tilemla::interp

#endif
