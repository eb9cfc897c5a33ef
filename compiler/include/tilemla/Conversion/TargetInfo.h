//===- TargetInfo.h - what differs between GPU targets ----------*- C++ -*-===//
#ifndef TILEMLA_CONVERSION_TARGETINFO_H
#define TILEMLA_CONVERSION_TARGETINFO_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::tile {
/// The few target-specific choices of the lowering, behind one interface so
/// sm_80 (Ampere) and sm_90a (Hopper) code paths stay side by side.
class TargetInfo {
public:
  /// Parses "sm_80", "sm_86", "sm_90", "sm_90a"...; returns null if unknown.
  static std::unique_ptr<TargetInfo> create(StringRef arch);

  StringRef getArch() const { return arch; }
  unsigned getComputeCapability() const { return computeCapability; }
  /// True for the architecture-specific Hopper target (wgmma, setmaxnreg).
  bool hasHopperFeatures() const {
    return archSpecific && computeCapability >= 90;
  }
  /// Largest shared memory one program may use, in bytes.
  unsigned getMaxSharedBytes() const;

  /// Butterfly exchange within a warp: the value held by lane ^ `mask`.
  Value shuffleXor(OpBuilder &builder, Location loc, Value value,
                   unsigned mask) const;
  /// Barrier across all threads of the program.
  void barrier(OpBuilder &builder, Location loc) const;
  /// Orders this thread's earlier shared-memory writes before reads by the
  /// async proxy (wgmma operands); a barrier after it publishes them.
  void fenceAsyncProxy(OpBuilder &builder, Location loc) const;

private:
  std::string arch;
  unsigned computeCapability = 0;
  bool archSpecific = false;
};
} // namespace mlir::tile

#endif
