//===- AccessWidth.h - how wide each global access can be -------*- C++ -*-===//
#ifndef TILEMLA_CONVERSION_ACCESSWIDTH_H
#define TILEMLA_CONVERSION_ACCESSWIDTH_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {
/// Pointer arguments are assumed aligned to this many bytes unless their
/// `tile.divisibility` argument attribute says otherwise; the runtime checks.
constexpr int64_t kDefaultPointerAlignment = 16;

/// Annotates every load and store in `module` with `tile.access_width`: the
/// number of consecutive registers one vector access may cover, from what is
/// known of the pointers' contiguity and alignment and the mask's constancy
/// along the contiguous dimension (Triton's AxisInfo, kept small).
void annotateAccessWidths(ModuleOp module);

/// The annotated width of a load or store (1 if not annotated).
unsigned getAccessWidth(Operation *op);
} // namespace mlir::tile

#endif
