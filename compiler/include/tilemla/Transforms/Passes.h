//===- Passes.h - tile-level passes -----------------------------*- C++ -*-===//
#ifndef TILEMLA_TRANSFORMS_PASSES_H
#define TILEMLA_TRANSFORMS_PASSES_H

#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/Pass.h"
#include "tilemla/Dialect/TileDialect.h"

namespace mlir::tile {
#define GEN_PASS_DECL
#include "tilemla/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

#endif
