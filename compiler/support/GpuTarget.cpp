//===- GpuTarget.cpp - the known GPU targets ------------------------------===//
#include "tilemla/Support/GpuTarget.h"

namespace tilemla {
namespace {
/// Every target the backend compiles for: Ampere, Ada and Hopper at PTX
/// 8.0 (every CUDA 12+ driver), and Blackwell's architectures at the first
/// PTX version that describes each (a driver of their generation reads
/// it). Only sm_90a has architecture-specific code (wgmma, TMA); the
/// others run the portable kernels (mma.sync, cp.async).
struct KnownTarget {
  unsigned capability;
  bool archSpecific;
  const char *name;
  unsigned maxSharedKiB; ///< the opt-in shared memory per program
  unsigned ptxVersion;   ///< 86 is PTX 8.6
};
constexpr KnownTarget kKnownTargets[] = {
    {80, false, "sm_80", 163, 80},   {86, false, "sm_86", 99, 80},
    {87, false, "sm_87", 163, 80},   {89, false, "sm_89", 99, 81},
    {90, false, "sm_90", 227, 80},   {90, true, "sm_90a", 227, 80},
    {100, false, "sm_100", 227, 86}, {103, false, "sm_103", 227, 88},
    {110, false, "sm_110", 227, 90}, {120, false, "sm_120", 99, 87},
    {121, false, "sm_121", 99, 88},
};

const KnownTarget &lookup(unsigned capability, bool archSpecific) {
  for (const KnownTarget &known : kKnownTargets)
    if (known.capability == capability && known.archSpecific == archSpecific)
      return known;
  return kKnownTargets[0]; // unreachable: constructed from the table only
}
} // namespace

std::optional<GpuTarget> GpuTarget::parse(std::string_view name) {
  for (const KnownTarget &known : kKnownTargets)
    if (name == known.name)
      return GpuTarget(known.capability, known.archSpecific);
  return std::nullopt;
}

std::optional<GpuTarget> GpuTarget::forDevice(int major, int minor) {
  if (major < 0 || minor < 0 || minor > 9)
    return std::nullopt;
  unsigned capability = unsigned(major * 10 + minor);
  // Hopper runs its architecture-specific code (wgmma, setmaxnreg).
  for (bool archSpecific : {true, false})
    for (const KnownTarget &known : kKnownTargets)
      if (known.capability == capability && known.archSpecific == archSpecific)
        return GpuTarget(known.capability, known.archSpecific);
  return std::nullopt;
}

const std::string &GpuTarget::knownNames() {
  static const std::string names = [] {
    std::string list;
    for (const KnownTarget &known : kKnownTargets)
      list += std::string(list.empty() ? "" : ", ") + known.name;
    return list;
  }();
  return names;
}

std::string GpuTarget::name() const {
  return lookup(capability, archSpecific).name;
}

unsigned GpuTarget::maxSharedBytes() const {
  return lookup(capability, archSpecific).maxSharedKiB * 1024;
}

unsigned GpuTarget::ptxVersion() const {
  return lookup(capability, archSpecific).ptxVersion;
}
} // namespace tilemla
