// convert_layout chains collapse: convert(convert(x, B), C) becomes
// convert(x, C), and a round trip back to x's own layout disappears.
//
// A chain of layout conversions collapses to one (or none) whatever produced
// its source: block arguments, loads, reductions.
// RUN: tile-opt %s -canonicalize | FileCheck %s

#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>
#b2 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>

// A round trip collapses to nothing; a chain to one conversion.
// CHECK-LABEL: func.func @convert_layout_round_trip
// CHECK-SAME: (%[[A:.*]]: tensor<128xf32, #tile.blocked
// CHECK-NEXT: return %[[A]]
func.func @convert_layout_round_trip(%a: tensor<128xf32, #b1>) -> tensor<128xf32, #b1> {
  %c = tile.convert_layout %a : tensor<128xf32, #b1> -> tensor<128xf32, #b2>
  %d = tile.convert_layout %c : tensor<128xf32, #b2> -> tensor<128xf32, #b1>
  return %d : tensor<128xf32, #b1>
}

// CHECK-LABEL: func.func @convert_layout_chain
// CHECK-SAME: (%[[A:.*]]: tensor<128xf32, #tile.blocked<sizePerThread = [4]
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[A]] : tensor<128xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>> -> tensor<128xf32>
// CHECK-NEXT: return %[[C]]
func.func @convert_layout_chain(%a: tensor<128xf32, #b1>) -> tensor<128xf32> {
  %c = tile.convert_layout %a : tensor<128xf32, #b1> -> tensor<128xf32, #b2>
  %d = tile.convert_layout %c : tensor<128xf32, #b2> -> tensor<128xf32>
  return %d : tensor<128xf32>
}

// CHECK-LABEL: func.func @convert_layout_chain_of_load
// CHECK: %[[V:.*]] = tile.load
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[V]] : tensor<128xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>> -> tensor<128xf32>
// CHECK-NEXT: return %[[C]]
func.func @convert_layout_chain_of_load(%p: tensor<128x!tile.ptr<f32>, #b1>) -> tensor<128xf32> {
  %v = tile.load %p : (tensor<128x!tile.ptr<f32>, #b1>) -> tensor<128xf32, #b1>
  %c = tile.convert_layout %v : tensor<128xf32, #b1> -> tensor<128xf32, #b2>
  %d = tile.convert_layout %c : tensor<128xf32, #b2> -> tensor<128xf32>
  return %d : tensor<128xf32>
}
