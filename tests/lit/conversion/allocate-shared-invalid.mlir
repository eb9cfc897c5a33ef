// -tile-allocate-shared sizes scratch from the operands' layouts: IR without
// them (it verifies) is refused, not crashed on.
// RUN: tile-opt %s -tile-allocate-shared -verify-diagnostics

func.func @reduce_without_layout(%x: tensor<16x64xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{tile-allocate-shared needs the layouts of tile-assign-layouts; this operand has none: 'tensor<16x64xf32>'}}
  %r = tile.reduce sum %x {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}
