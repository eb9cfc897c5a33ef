// scan: every thread writes its elements at their row-major position; each
// line along the axis is cut into P segments (the largest power of two
// dividing the extent, at most 32), one per thread; a thread combines its
// segment in order, the segment totals are scanned across each group of P
// lanes with up-shuffles (clamp word (32 - P) << 8), and each thread adds
// the total before its segment and writes back in place; last, every
// thread reads its own elements. Three barriers whatever the extent.
// Outside a warp split the scan is guarded by thread < T (a
// warp-specialized kernel's producer warps run such code too).
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s

// 256 i32 over 2 warps: one line of 32 segments of 8, so the first warp
// scans it and the second only shuffles (loads and stores guarded by
// segment < 32).
// CHECK-LABEL: llvm.func @prefix(
// CHECK-DAG: %[[T:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-DAG: %[[SEGS:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-DAG: %[[WIDE:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[IN:.*]] = llvm.icmp "slt" %{{.*}}, %[[T]] : i32
// CHECK-NEXT: llvm.cond_br %[[IN]]
// CHECK: %[[FIRST:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[SECOND:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.add %[[FIRST]], %[[SECOND]] : i32
// CHECK-COUNT-6: nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %{{.*}}, %[[WIDE]] : i32 -> i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.icmp "slt" %{{.*}}, %[[SEGS]] : i32
// CHECK-NEXT: llvm.cond_br
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.return

// 8 x 16 f32, running maximum along axis 1 over 2 warps: 8 lines of 16
// one-element segments, two rounds of 64 threads, each with 4 + 1 shuffles
// in groups of 16 lanes; NaN-propagating maximum.
// CHECK-LABEL: llvm.func @rows_max(
// CHECK-DAG: %[[HALF:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK-COUNT-2: nvvm.barrier0
// CHECK-COUNT-5: nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %{{.*}}, %[[HALF]] : f32 -> f32
// CHECK: llvm.intr.maximum
// CHECK-COUNT-5: nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %{{.*}}, %[[HALF]] : f32 -> f32
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return

// 16 elements, 64 threads: 16 one-element segments; the threads past them
// read nothing (a read would race with the owner's write) and store
// nothing.
// CHECK-LABEL: llvm.func @short(
// CHECK-DAG: %[[T:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-DAG: %[[N:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: llvm.icmp "slt" %{{.*}}, %[[T]] : i32
// CHECK-NEXT: llvm.cond_br
// CHECK: llvm.icmp "slt" %{{.*}}, %[[N]] : i32
// CHECK-NEXT: llvm.cond_br
// CHECK: %[[OWN:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.br ^[[JOIN:.*]](%[[OWN]] : i32)
// CHECK: llvm.br ^[[JOIN]](%{{.*}} : i32)
// CHECK-COUNT-5: nvvm.shfl.sync  up
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
