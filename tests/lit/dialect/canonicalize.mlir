// Folders and canonicalization patterns of the tile ops.
// RUN: tile-opt %s -split-input-file -canonicalize | FileCheck %s

#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>
#b2 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>

// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xi32>)
// CHECK-NEXT: return %[[A]]
func.func @broadcast_same_type(%a: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %b = tile.broadcast %a : tensor<16x16xi32> -> tensor<16x16xi32>
  return %b : tensor<16x16xi32>
}

// CHECK-LABEL: func.func @broadcast_keeps_real_broadcast
// CHECK: tile.broadcast %{{.*}} : tensor<1x16xi32> -> tensor<8x16xi32>
func.func @broadcast_keeps_real_broadcast(%a: tensor<1x16xi32>) -> tensor<8x16xi32> {
  %b = tile.broadcast %a : tensor<1x16xi32> -> tensor<8x16xi32>
  return %b : tensor<8x16xi32>
}

// CHECK-LABEL: func.func @broadcast_of_splat_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<7> : tensor<8x16xi32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_of_splat_constant() -> tensor<8x16xi32> {
  %c = arith.constant dense<7> : tensor<1x16xi32>
  %b = tile.broadcast %c : tensor<1x16xi32> -> tensor<8x16xi32>
  return %b : tensor<8x16xi32>
}

// CHECK-LABEL: func.func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<32xf32>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_constant() -> tensor<32xf32> {
  %c = arith.constant 2.5 : f32
  %s = tile.splat %c : tensor<32xf32>
  return %s : tensor<32xf32>
}

// CHECK-LABEL: func.func @splat_of_int_constant_with_layout
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<3> : tensor<128xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_int_constant_with_layout() -> tensor<128xi32, #b1> {
  %c = arith.constant 3 : i32
  %s = tile.splat %c : tensor<128xi32, #b1>
  return %s : tensor<128xi32, #b1>
}

// A splat of a runtime value stays.
// CHECK-LABEL: func.func @splat_of_argument
// CHECK: tile.splat %arg0 : tensor<32xi32>
func.func @splat_of_argument(%a: i32) -> tensor<32xi32> {
  %s = tile.splat %a : tensor<32xi32>
  return %s : tensor<32xi32>
}

// CHECK-LABEL: func.func @addptr_zero_scalar
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: return %[[P]]
func.func @addptr_zero_scalar(%p: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %z = arith.constant 0 : i32
  %q = tile.addptr %p, %z : !tile.ptr<f32>, i32
  return %q : !tile.ptr<f32>
}

// CHECK-LABEL: func.func @addptr_zero_tensor
// CHECK-SAME: (%[[P:.*]]: tensor<16x!tile.ptr<f16>>)
// CHECK-NEXT: return %[[P]]
func.func @addptr_zero_tensor(%p: tensor<16x!tile.ptr<f16>>) -> tensor<16x!tile.ptr<f16>> {
  %z = arith.constant dense<0> : tensor<16xi64>
  %q = tile.addptr %p, %z : tensor<16x!tile.ptr<f16>>, tensor<16xi64>
  return %q : tensor<16x!tile.ptr<f16>>
}

// CHECK-LABEL: func.func @addptr_nonzero
// CHECK: tile.addptr
func.func @addptr_nonzero(%p: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %c = arith.constant 1 : i32
  %q = tile.addptr %p, %c : !tile.ptr<f32>, i32
  return %q : !tile.ptr<f32>
}

// CHECK-LABEL: func.func @convert_layout_same_type
// CHECK-SAME: (%[[A:.*]]: tensor<128xf32, #tile.blocked
// CHECK-NEXT: return %[[A]]
func.func @convert_layout_same_type(%a: tensor<128xf32, #b1>) -> tensor<128xf32, #b1> {
  %c = tile.convert_layout %a : tensor<128xf32, #b1> -> tensor<128xf32, #b1>
  return %c : tensor<128xf32, #b1>
}

// A chain whose root is cheap collapses into the root, rebuilt in the final
// layout. (Chains over other values: see canonicalize-convert-chain.mlir.)
// CHECK-LABEL: func.func @convert_layout_chain_of_range
// CHECK-NEXT: %[[R:.*]] = tile.make_range 0, 128 : tensor<128xi32, #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2]>>
// CHECK-NEXT: return %[[R]]
func.func @convert_layout_chain_of_range() -> tensor<128xi32, #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2]>> {
  %r = tile.make_range 0, 128 : tensor<128xi32, #b1>
  %c = tile.convert_layout %r : tensor<128xi32, #b1> -> tensor<128xi32, #b2>
  %d = tile.convert_layout %c : tensor<128xi32, #b2> -> tensor<128xi32, #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2]>>
  return %d : tensor<128xi32, #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2]>>
}

// CHECK-LABEL: func.func @convert_layout_of_splat_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<128xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: return %[[C]]
func.func @convert_layout_of_splat_constant() -> tensor<128xf32, #b2> {
  %c = arith.constant dense<1.0> : tensor<128xf32, #b1>
  %d = tile.convert_layout %c : tensor<128xf32, #b1> -> tensor<128xf32, #b2>
  return %d : tensor<128xf32, #b2>
}

// CHECK-LABEL: func.func @convert_layout_of_splat
// CHECK-NEXT: %[[S:.*]] = tile.splat %arg0 : tensor<128xi32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: return %[[S]]
func.func @convert_layout_of_splat(%x: i32) -> tensor<128xi32, #b2> {
  %s = tile.splat %x : tensor<128xi32, #b1>
  %d = tile.convert_layout %s : tensor<128xi32, #b1> -> tensor<128xi32, #b2>
  return %d : tensor<128xi32, #b2>
}

// CHECK-LABEL: func.func @convert_layout_of_make_range
// CHECK-NEXT: %[[R:.*]] = tile.make_range 0, 128 : tensor<128xi32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: return %[[R]]
func.func @convert_layout_of_make_range() -> tensor<128xi32, #b2> {
  %r = tile.make_range 0, 128 : tensor<128xi32, #b1>
  %d = tile.convert_layout %r : tensor<128xi32, #b1> -> tensor<128xi32, #b2>
  return %d : tensor<128xi32, #b2>
}

// An elementwise tree over a range and a splat is rebuilt in the target
// layout, leaves first; no conversion is left.
// CHECK-LABEL: func.func @convert_layout_of_elementwise
// CHECK-NOT: tile.convert_layout
// CHECK-DAG: %[[R:.*]] = tile.make_range 0, 128 : tensor<128xi32, #[[B2:tile.blocked<sizePerThread = \[1\], threadsPerWarp = \[32\], warpsPerCTA = \[4\]>]]>
// CHECK-DAG: %[[S:.*]] = tile.splat %arg0 : tensor<128xi32, #[[B2]]>
// CHECK: %[[A:.*]] = arith.addi %[[S]], %[[R]] : tensor<128xi32, #[[B2]]>
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[A]], %{{.*}} : tensor<128xi32, #[[B2]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return %[[M]]
func.func @convert_layout_of_elementwise(%x: i32, %n: i32) -> tensor<128xi1, #b2> {
  %r = tile.make_range 0, 128 : tensor<128xi32, #b1>
  %s = tile.splat %x : tensor<128xi32, #b1>
  %a = arith.addi %s, %r : tensor<128xi32, #b1>
  %ns = tile.splat %n : tensor<128xi32, #b1>
  %m = arith.cmpi slt, %a, %ns : tensor<128xi32, #b1>
  %d = tile.convert_layout %m : tensor<128xi1, #b1> -> tensor<128xi1, #b2>
  return %d : tensor<128xi1, #b2>
}

// A load is not cheap to rebuild: the conversion stays.
// CHECK-LABEL: func.func @convert_layout_of_load
// CHECK: tile.load
// CHECK: tile.convert_layout
func.func @convert_layout_of_load(%p: tensor<128x!tile.ptr<f32>, #b1>) -> tensor<128xf32, #b2> {
  %v = tile.load %p : (tensor<128x!tile.ptr<f32>, #b1>) -> tensor<128xf32, #b1>
  %d = tile.convert_layout %v : tensor<128xf32, #b1> -> tensor<128xf32, #b2>
  return %d : tensor<128xf32, #b2>
}

// -----

#p = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>
#q = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>

// expand_dims(range) converted to a 2-D layout: the range is rebuilt in the
// slice of that layout, so expand_dims produces the target directly.
// CHECK-LABEL: func.func @convert_layout_of_expand_dims
// CHECK-NEXT: %[[R:.*]] = tile.make_range 0, 16 : tensor<16xi32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[R]] {axis = 1 : i32} : {{.*}} -> tensor<16x1xi32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: return %[[E]]
func.func @convert_layout_of_expand_dims() -> tensor<16x1xi32, #p> {
  %r = tile.make_range 0, 16 : tensor<16xi32, #tile.slice<dim = 1, parent = #q>>
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #tile.slice<dim = 1, parent = #q>> -> tensor<16x1xi32, #q>
  %c = tile.convert_layout %e : tensor<16x1xi32, #q> -> tensor<16x1xi32, #p>
  return %c : tensor<16x1xi32, #p>
}

// CHECK-LABEL: func.func @convert_layout_of_broadcast
// CHECK-NEXT: %[[S:.*]] = tile.splat %arg0 : tensor<16x1xi32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[S]] : {{.*}} -> tensor<16x16xi32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: return %[[B]]
func.func @convert_layout_of_broadcast(%x: i32) -> tensor<16x16xi32, #p> {
  %s = tile.splat %x : tensor<16x1xi32, #q>
  %b = tile.broadcast %s : tensor<16x1xi32, #q> -> tensor<16x16xi32, #q>
  %c = tile.convert_layout %b : tensor<16x16xi32, #q> -> tensor<16x16xi32, #p>
  return %c : tensor<16x16xi32, #p>
}
