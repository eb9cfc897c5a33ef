//===- GpuTarget.cpp - the known GPU targets ------------------------------===//
#include "tilemla/Support/GpuTarget.h"

namespace tilemla {
namespace {
/// Every target the backend compiles for at PTX 8.0: Ampere, Ada and
/// Hopper. Newer architectures need a newer PTX version.
struct KnownTarget {
  unsigned capability;
  bool archSpecific;
  const char *name;
  unsigned maxSharedKiB; ///< the opt-in shared memory per program
};
constexpr KnownTarget kKnownTargets[] = {
    {80, false, "sm_80", 163}, {86, false, "sm_86", 99},
    {87, false, "sm_87", 163}, {89, false, "sm_89", 99},
    {90, false, "sm_90", 227}, {90, true, "sm_90a", 227},
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
} // namespace tilemla
