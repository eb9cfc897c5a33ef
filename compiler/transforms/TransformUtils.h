//===- TransformUtils.h - small helpers the tile passes share ---*- C++ -*-===//
//
// Internal to the transforms library: what several passes that build
// warpgroup code make alike.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TRANSFORMS_TRANSFORMUTILS_H
#define TILEMLA_TRANSFORMS_TRANSFORMUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::tile {

/// Threads of a warpgroup (the unit of wgmma, setmaxnreg and owned runs).
constexpr int64_t kWarpgroupThreads = 128;

/// An i32 constant.
inline Value i32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

} // namespace mlir::tile

#endif
