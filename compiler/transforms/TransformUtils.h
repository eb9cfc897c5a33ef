//===- TransformUtils.h - small helpers the tile passes share ---*- C++ -*-===//
//
// Internal to the transforms library: what several passes that build
// warpgroup code make alike.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TRANSFORMS_TRANSFORMUTILS_H
#define TILEMLA_TRANSFORMS_TRANSFORMUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {

/// Threads of a warpgroup (the unit of wgmma, setmaxnreg and owned runs).
constexpr int64_t kWarpgroupThreads = 128;

/// An i32 constant.
inline Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

/// Whether anything in `body` may write memory. tile-pipeline-loops
/// pipelines only loops whose body writes nothing (moving reads across
/// writes could change what they read), and tile-assign-layouts chooses
/// layouts that rely on that pipelining by the same test.
inline bool writesMemory(Block &body) {
  WalkResult walk = body.walk([](Operation *op) {
    bool writes = false;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
      writes = effects.hasEffect<MemoryEffects::Write>();
    else
      writes = !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
               !op->hasTrait<OpTrait::IsTerminator>();
    return writes ? WalkResult::interrupt() : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

} // namespace mlir::tile

#endif
