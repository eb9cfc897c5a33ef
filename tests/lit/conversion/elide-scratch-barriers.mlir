// -tile-elide-scratch-barriers marks a scratch user `tile.scratch_ordered`
// (its lowering drops the leading barrier) when every path reaching it
// meets a barrier after the last access to the same scratch region.
// RUN: tile-opt %s -split-input-file -tile-elide-scratch-barriers | FileCheck %s

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#s = #tile.slice<dim = 0, parent = #b>

// Nothing touched the scratch before the first reduction; the second reads
// what the first left there (same region): it keeps its barrier, unless a
// barrier comes between.
// CHECK-LABEL: func.func @in_sequence
// CHECK: tile.reduce max %{{.*}} {axis = 0 : i32, tile.scratch_ordered}
// CHECK: tile.reduce sum %{{.*}} {axis = 0 : i32} :
// CHECK: tile.barrier
// CHECK: tile.reduce min %{{.*}} {axis = 0 : i32, tile.scratch_ordered}
func.func @in_sequence(%x: tensor<16x64xf32, #b>) -> (tensor<64xf32, #s>, tensor<64xf32, #s>, tensor<64xf32, #s>) {
  %m = tile.reduce max %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
  %s = tile.reduce sum %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
  tile.barrier
  %n = tile.reduce min %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
  return %m, %s, %n : tensor<64xf32, #s>, tensor<64xf32, #s>, tensor<64xf32, #s>
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#c = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4]>
#s = #tile.slice<dim = 0, parent = #b>

// Reductions and layout conversions placed apart from the dots' staging
// (tile.reduce_offset) share their region: a conversion between two
// reductions touches the same bytes, so each keeps its barrier.
// CHECK-LABEL: func.func @regions_apart
// CHECK: tile.reduce max %{{.*}} {axis = 0 : i32, tile.scratch_ordered}
// CHECK: tile.convert_layout %{{.*}} :
// CHECK: tile.reduce sum %{{.*}} {axis = 0 : i32} :
module attributes {tile.reduce_offset = 4096 : i32} {
  func.func @regions_apart(%x: tensor<16x64xf32, #b>) -> (tensor<64xf32, #s>, tensor<16x64xf32, #c>, tensor<64xf32, #s>) {
    %m = tile.reduce max %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
    %y = tile.convert_layout %x : tensor<16x64xf32, #b> -> tensor<16x64xf32, #c>
    %s = tile.reduce sum %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
    return %m, %y, %s : tensor<64xf32, #s>, tensor<16x64xf32, #c>, tensor<64xf32, #s>
  }
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#c = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4]>
#s = #tile.slice<dim = 0, parent = #b>

// Without it they share the scratch: the conversion and the second
// reduction keep their barriers.
// CHECK-LABEL: func.func @one_scratch
// CHECK: tile.reduce max %{{.*}} {axis = 0 : i32, tile.scratch_ordered}
// CHECK: tile.convert_layout %{{.*}} :
// CHECK: tile.reduce sum %{{.*}} {axis = 0 : i32} :
func.func @one_scratch(%x: tensor<16x64xf32, #b>) -> (tensor<64xf32, #s>, tensor<16x64xf32, #c>, tensor<64xf32, #s>) {
  %m = tile.reduce max %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
  %y = tile.convert_layout %x : tensor<16x64xf32, #b> -> tensor<16x64xf32, #c>
  %s = tile.reduce sum %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
  return %m, %y, %s : tensor<64xf32, #s>, tensor<16x64xf32, #c>, tensor<64xf32, #s>
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#s = #tile.slice<dim = 0, parent = #b>

// In a loop the previous trip comes first: a reduction alone in the body
// meets its own earlier trip (kept); one behind a barrier at the end of the
// body (a refill's) is ordered on both paths. A barrier inside an scf.if
// may not run: it orders nothing.
// CHECK-LABEL: func.func @alone_in_loop
// CHECK: tile.reduce max %{{.*}} {axis = 0 : i32} :
// CHECK-LABEL: func.func @barrier_ends_body
// CHECK: tile.reduce sum %{{.*}} {axis = 0 : i32, tile.scratch_ordered}
// CHECK-LABEL: func.func @barrier_in_if
// CHECK: tile.reduce min %{{.*}} {axis = 0 : i32} :
func.func @alone_in_loop(%x: tensor<16x64xf32, #b>, %n: index) -> tensor<64xf32, #s> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<64xf32, #s>
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32, #s>) {
    %r = tile.reduce max %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
    scf.yield %r : tensor<64xf32, #s>
  }
  return %a : tensor<64xf32, #s>
}
func.func @barrier_ends_body(%x: tensor<16x64xf32, #b>, %n: index) -> tensor<64xf32, #s> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<64xf32, #s>
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32, #s>) {
    %r = tile.reduce sum %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
    tile.barrier
    scf.yield %r : tensor<64xf32, #s>
  }
  return %a : tensor<64xf32, #s>
}
func.func @barrier_in_if(%x: tensor<16x64xf32, #b>, %n: index, %c: i1) -> tensor<64xf32, #s> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : tensor<64xf32, #s>
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32, #s>) {
    %r = tile.reduce min %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
    scf.if %c {
      tile.barrier
    }
    scf.yield %r : tensor<64xf32, #s>
  }
  return %a : tensor<64xf32, #s>
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#s = #tile.slice<dim = 0, parent = #b>

// atomic_add leaves its old value in the scratch: a reduction after it
// keeps its barrier, and the atomic keeps its own (it orders the program's
// writes before the add) even where nothing touched the scratch before.
// CHECK-LABEL: func.func @after_atomic
// CHECK: tile.atomic_add %{{.*}}, %{{.*}} : !tile.ptr<i32>
// CHECK-NOT: scratch_ordered
// CHECK: tile.reduce sum %{{.*}} {axis = 0 : i32} :
func.func @after_atomic(%p: !tile.ptr<i32>, %x: tensor<16x64xf32, #b>) -> (i32, tensor<64xf32, #s>) {
  %c1 = arith.constant 1 : i32
  %old = tile.atomic_add %p, %c1 : !tile.ptr<i32>
  %s = tile.reduce sum %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #s>
  return %old, %s : i32, tensor<64xf32, #s>
}
