//===- GpuTarget.h - the GPU a kernel is compiled for -----------*- C++ -*-===//
//
// One value names the target from the runtime's device query to the PTX
// backend: made once (parsed from a name such as "sm_90a", or chosen for a
// device's compute capability) and asked for every target-dependent choice.
// Standard C++ only: the driver, the runtime and the MLA API share it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_SUPPORT_GPUTARGET_H
#define TILEMLA_SUPPORT_GPUTARGET_H

#include "tilemla/Export.h"

#include <optional>
#include <string>
#include <string_view>

namespace tilemla {
class TILEMLA_API GpuTarget {
public:
  /// The default target of tools and tests: Hopper with its
  /// architecture-specific features.
  GpuTarget() : GpuTarget(90, true) {}

  /// "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100",
  /// "sm_103", "sm_110", "sm_120" or "sm_121"; nullopt for any other name
  /// (see knownNames()).
  static std::optional<GpuTarget> parse(std::string_view name);
  /// The target the compiler uses on a device of compute capability
  /// major.minor: sm_90a on 9.0 (wgmma, TMA), sm_XY on the other known
  /// ones (10.0 -> sm_100, ...); nullopt where no known target runs.
  static std::optional<GpuTarget> forDevice(int major, int minor);
  /// The names parse() accepts, for messages: "sm_80, sm_86, ...".
  static const std::string &knownNames();

  /// "sm_90a", "sm_80", ...
  std::string name() const;
  /// 90 for sm_90 and sm_90a, 80 for sm_80, 100 for sm_100, ...
  unsigned computeCapability() const { return capability; }
  /// The 'a' variant: code that runs only on that exact architecture.
  bool isArchSpecific() const { return archSpecific; }

  /// Warpgroup MMA (wgmma), TMA tensor copies read by it, and setmaxnreg:
  /// sm_90a only.
  bool hasWgmma() const { return archSpecific && capability == 90; }
  /// Paired fp8 conversions (cvt ... e4m3x2): sm_89 and newer.
  bool hasFp8Conversions() const { return capability >= 89; }
  /// Tensor-core dots of fp8 operands (mma.sync ... e4m3.e4m3, PTX 8.4):
  /// sm_89 and newer.
  bool hasFp8Dots() const { return capability >= 89; }
  /// Programmatic dependent launch (griddepcontrol): sm_90 and newer.
  bool hasDependentLaunch() const { return capability >= 90; }
  /// Bulk asynchronous copies and L2 prefetches (cp.async.bulk): sm_90 and
  /// newer.
  bool hasBulkCopies() const { return capability >= 90; }
  /// Largest shared memory one program may use (the opt-in limit), bytes.
  unsigned maxSharedBytes() const;
  /// The PTX ISA version the backend emits (80 is PTX 8.0; a kernel with
  /// fp8 tensor-core dots raises it to 8.4, their first): 8.0 up to
  /// sm_90a (the first with it, accepted by every CUDA 12+ driver) but for
  /// sm_89, 8.1 (its fp8 conversions' first), the first version that names
  /// the architecture after that (sm_100: 8.6, sm_120: 8.7, sm_103 and
  /// sm_121: 8.8, sm_110: 9.0).
  unsigned ptxVersion() const;

  bool operator==(const GpuTarget &other) const {
    return capability == other.capability && archSpecific == other.archSpecific;
  }
  bool operator!=(const GpuTarget &other) const { return !(*this == other); }

private:
  GpuTarget(unsigned capability, bool archSpecific)
      : capability(capability), archSpecific(archSpecific) {}

  unsigned capability;
  bool archSpecific;
};
} // namespace tilemla

#endif
