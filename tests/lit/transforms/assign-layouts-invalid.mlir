// -tile-assign-layouts refuses functions that return tensors (layouts change
// the tensors' types; kernels return nothing, helpers are inlined before).
// RUN: tile-opt %s -tile-assign-layouts -verify-diagnostics

// expected-error @+1 {{tile-assign-layouts lays out kernels, which return nothing; this function returns a tensor}}
func.func @returns_tensor(%p: !tile.ptr<f32>) -> tensor<64xf32> {
  %r = tile.make_range 0, 64 : tensor<64xi32>
  %x = arith.sitofp %r : tensor<64xi32> to tensor<64xf32>
  return %x : tensor<64xf32>
}
