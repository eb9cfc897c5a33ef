//===- Passes.h - lowering to LLVM + NVVM -----------------------*- C++ -*-===//
#ifndef TILEMLA_CONVERSION_PASSES_H
#define TILEMLA_CONVERSION_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "tilemla/Dialect/TileDialect.h"

namespace mlir::tile {
#define GEN_PASS_DECL
#include "tilemla/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tilemla/Conversion/Passes.h.inc"
} // namespace mlir::tile

#endif
