//===- TargetInfo.h - what differs between GPU targets ----------*- C++ -*-===//
#ifndef TILEMLA_CONVERSION_TARGETINFO_H
#define TILEMLA_CONVERSION_TARGETINFO_H

#include "tilemla/Support/GpuTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::tile {
/// The instructions the lowering emits where targets differ, behind one
/// interface so sm_80 (Ampere) and sm_90a (Hopper) code paths stay side by
/// side; what the target has is asked of its GpuTarget.
class TargetInfo {
public:
  explicit TargetInfo(const tilemla::GpuTarget &gpu) : gpu(gpu) {}

  const tilemla::GpuTarget &getGpu() const { return gpu; }

  /// Butterfly exchange within a warp: the value held by lane ^ `mask`.
  Value shuffleXor(OpBuilder &builder, Location loc, Value value,
                   unsigned mask) const;
  /// Within each aligned group of `width` lanes (a power of two, at most
  /// 32): the value held by lane - `delta`; a lane of the group's first
  /// `delta` gets its own value back.
  Value shuffleUp(OpBuilder &builder, Location loc, Value value, unsigned delta,
                  unsigned width) const;
  /// Barrier across all threads of the program.
  void barrier(OpBuilder &builder, Location loc) const;
  /// Orders this thread's earlier shared-memory writes before reads by the
  /// async proxy (wgmma operands); a barrier after it publishes them.
  void fenceAsyncProxy(OpBuilder &builder, Location loc) const;

private:
  tilemla::GpuTarget gpu;
};

/// The target a pass's `arch` option names; null, with an error on
/// `module`, when it names none.
std::optional<tilemla::GpuTarget> parseTargetOption(Operation *module,
                                                    StringRef arch);
} // namespace mlir::tile

#endif
