// scan: every thread writes its elements at their row-major position, then
// log2(extent) Hillis-Steele steps over two halves of the scratch, each
// thread taking elements t, t + T, ... and combining element i with element
// i - d along the axis (d = 1, 2, 4, ...), a barrier after each; last, every
// thread reads its own elements from the half the last step wrote. Outside
// a warp split each step is guarded by thread < T (a warp-specialized
// kernel's producer warps run such code too).
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s

// 256 i32 over 2 warps (4 per thread): 8 steps of 4 elements per thread
// (256 = 4 x 64 threads), no per-round guard; the half read last is the
// first one again (8 steps).
// CHECK-LABEL: llvm.func @prefix(
// CHECK-DAG: %[[T:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-DAG: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: %[[UPPER:.*]] = llvm.getelementptr %[[SMEM]][256] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i32
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[IN:.*]] = llvm.icmp "slt" %{{.*}}, %[[T]] : i32
// CHECK-NEXT: llvm.cond_br %[[IN]]
// CHECK: %[[HAS:.*]] = llvm.icmp "sge" %{{.*}}, %{{.*}} : i32
// CHECK: %[[EARLIER:.*]] = llvm.select %[[HAS]], %{{.*}}, %{{.*}} : i1, i32
// CHECK: %[[OWN:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[PREV:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[SUM:.*]] = llvm.add %[[PREV]], %[[OWN]] : i32
// CHECK: %[[RES:.*]] = llvm.select %[[HAS]], %[[SUM]], %[[OWN]] : i1, i32
// CHECK: %[[DST:.*]] = llvm.getelementptr %[[UPPER]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: llvm.store %[[RES]], %[[DST]] : i32, !llvm.ptr<3>
// CHECK-COUNT-8: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.return

// 8 x 16 f32, running maximum along axis 1 over 2 warps (two elements per
// thread): 4 steps, NaN-propagating maximum.
// CHECK-LABEL: llvm.func @rows_max(
// CHECK: llvm.intr.maximum
// CHECK-COUNT-4: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return

// 16 elements, 64 threads: each step also guards index < 16.
// CHECK-LABEL: llvm.func @short(
// CHECK-DAG: %[[T:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-DAG: %[[N:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: llvm.icmp "slt" %{{.*}}, %[[T]] : i32
// CHECK-NEXT: llvm.cond_br
// CHECK: llvm.icmp "slt" %{{.*}}, %[[N]] : i32
// CHECK-NEXT: llvm.cond_br
// CHECK: llvm.return
#v = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2]>
#r = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [2, 1]>
#s = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2]>
module attributes {tile.num_warps = 2 : i32, tile.shared = 2048 : i32} {
  func.func @prefix(%x: !tile.ptr<i32>, %out: !tile.ptr<i32>) attributes {tile.kernel} {
    %r = tile.make_range 0, 256 : tensor<256xi32, #v>
    %xs = tile.splat %x : tensor<256x!tile.ptr<i32>, #v>
    %ps = tile.addptr %xs, %r : tensor<256x!tile.ptr<i32>, #v>, tensor<256xi32, #v>
    %v = tile.load %ps : (tensor<256x!tile.ptr<i32>, #v>) -> tensor<256xi32, #v>
    %c = tile.scan sum %v {axis = 0 : i32} : tensor<256xi32, #v>
    %os = tile.splat %out : tensor<256x!tile.ptr<i32>, #v>
    %qs = tile.addptr %os, %r : tensor<256x!tile.ptr<i32>, #v>, tensor<256xi32, #v>
    tile.store %qs, %c : tensor<256x!tile.ptr<i32>, #v>, tensor<256xi32, #v>
    return
  }
  func.func @rows_max(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel} {
    %xs = tile.splat %x : tensor<8x16x!tile.ptr<f32>, #r>
    %v = tile.load %xs : (tensor<8x16x!tile.ptr<f32>, #r>) -> tensor<8x16xf32, #r>
    %c = tile.scan max %v {axis = 1 : i32} : tensor<8x16xf32, #r>
    %os = tile.splat %out : tensor<8x16x!tile.ptr<f32>, #r>
    tile.store %os, %c : tensor<8x16x!tile.ptr<f32>, #r>, tensor<8x16xf32, #r>
    return
  }
  func.func @short(%x: !tile.ptr<i32>, %out: !tile.ptr<i32>) attributes {tile.kernel} {
    %xs = tile.splat %x : tensor<16x!tile.ptr<i32>, #s>
    %v = tile.load %xs : (tensor<16x!tile.ptr<i32>, #s>) -> tensor<16xi32, #s>
    %c = tile.scan sum %v {axis = 0 : i32} : tensor<16xi32, #s>
    %os = tile.splat %out : tensor<16x!tile.ptr<i32>, #s>
    tile.store %os, %c : tensor<16x!tile.ptr<i32>, #s>, tensor<16xi32, #s>
    return
  }
}
