//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
#ifndef TILEMLA_DIALECT_TILEDIALECT_H
#define TILEMLA_DIALECT_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilemla/Dialect/TileDialect.h.inc"
#include "tilemla/Dialect/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilemla/Dialect/TileTypes.h.inc"

#include "tilemla/Dialect/TileAttrInterfaces.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tilemla/Dialect/TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "tilemla/Dialect/TileOps.h.inc"

namespace mlir::tile {
/// The distributed layout of a tensor type, or null.
DistributedLayoutAttr getLayout(Type type);
/// Registers per thread for a tensor type that carries a layout.
unsigned getTotalElemsPerThread(Type type);
/// True when `op` can run on mma.sync.m16n8k16 with accumulator layout `mma`:
/// f16/bf16 operands and whole instruction tiles per warp.
bool isMmaCompatibleDot(DotOp op, MmaEncodingAttr mma);
/// The tensor-core accumulator layout for `op` with `numWarps` warps, or null
/// when the dot does not fit the instruction.
MmaEncodingAttr getMmaLayoutForDot(DotOp op, unsigned numWarps);
} // namespace mlir::tile

#endif
