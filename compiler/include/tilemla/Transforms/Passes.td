//===- Passes.td - tile-level passes -----------------------*- tablegen -*-===//
#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSpecializeConstexprs : Pass<"tile-specialize-constexprs", "mlir::ModuleOp"> {
  let summary = "Replace constexpr kernel arguments by their values";
  let description = [{
    MLIRGen keeps each `constexpr` parameter as a kernel argument carrying a
    `tile.constexpr` value. This pass replaces every use by a constant and
    removes the argument, so the kernel's ABI holds runtime arguments only and
    later folding sees the values.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tensor a distributed layout (tile IR -> tile-gpu IR)";
  let description = [{
    Sources (ranges, splats, constants, loads) get the default blocked layout
    of their shape, vectorized along the contiguous dimension (16 bytes of the
    narrowest element loaded or stored in that shape); reductions give slice
    layouts. f16/bf16 dots of whole 16x8x16 tiles get the `#tile.mma`
    accumulator layout (tensor cores). Elementwise ops take the layout of
    their costliest operand (broadcasts and splats count as their source),
    so accumulators stay in place; loops carry values in the layout their
    body yields. `tile.convert_layout` goes where operands disagree.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4", "warps per program">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "bytes per thread along the contiguous dimension">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "give eligible dots the mma.sync accumulator layout">,
  ];
}

#endif
