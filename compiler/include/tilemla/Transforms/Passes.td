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
    of their shape, vectorized along the contiguous dimension; reductions give
    slice layouts; elementwise ops, loops and branches propagate their first
    operand's layout and insert `tile.convert_layout` where operands disagree.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4", "warps per program">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "bytes per thread along the contiguous dimension">,
  ];
}

#endif
