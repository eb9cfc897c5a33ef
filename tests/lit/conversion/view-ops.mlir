// splat, splat constants, expand_dims and broadcast move no data between
// threads: they only rearrange each thread's registers.
// RUN: tile-opt %s -convert-tile-to-llvm | FileCheck %s

// 16 rows over 2 lanes x 4 warps: 2 rows per thread; 64 cols: 4 per thread.
// CHECK-LABEL: llvm.func @views(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %[[X:.*]]: i32)
// The range in the slice layout: 2 registers.
// CHECK: %[[RU:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32)>
// CHECK-NEXT: %[[RA:.*]] = llvm.insertvalue %{{.*}}, %[[RU]][0]
// CHECK-NEXT: %[[RANGE:.*]] = llvm.insertvalue %{{.*}}, %[[RA]][1]
// expand_dims into the parent keeps the 2 registers as they are.
// CHECK-NEXT: %[[E0:.*]] = llvm.extractvalue %[[RANGE]][0] : !llvm.struct<(i32, i32)>
// CHECK-NEXT: %[[E1:.*]] = llvm.extractvalue %[[RANGE]][1] : !llvm.struct<(i32, i32)>
// CHECK-NEXT: %[[EU:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32)>
// CHECK-NEXT: %[[EA:.*]] = llvm.insertvalue %[[E0]], %[[EU]][0]
// CHECK-NEXT: %[[EXP:.*]] = llvm.insertvalue %[[E1]], %[[EA]][1]
// broadcast [16, 1] -> [16, 64]: row register r feeds registers 4r .. 4r+3.
// CHECK-NEXT: %[[B0:.*]] = llvm.extractvalue %[[EXP]][0]
// CHECK-NEXT: %[[B1:.*]] = llvm.extractvalue %[[EXP]][1]
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK-NEXT: llvm.insertvalue %[[B0]], %{{.*}}[0]
// CHECK-NEXT: llvm.insertvalue %[[B0]], %{{.*}}[1]
// CHECK-NEXT: llvm.insertvalue %[[B0]], %{{.*}}[2]
// CHECK-NEXT: llvm.insertvalue %[[B0]], %{{.*}}[3]
// CHECK-NEXT: llvm.insertvalue %[[B1]], %{{.*}}[4]
// CHECK-NEXT: llvm.insertvalue %[[B1]], %{{.*}}[5]
// CHECK-NEXT: llvm.insertvalue %[[B1]], %{{.*}}[6]
// CHECK-NEXT: llvm.insertvalue %[[B1]], %{{.*}}[7]
// splat: the scalar in all 8 registers.
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK-COUNT-8: llvm.insertvalue %[[X]], %{{.*}}[{{[0-7]}}]
// A splat constant: one scalar constant in all 8 registers.
// CHECK-NEXT: %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK-COUNT-8: llvm.insertvalue %[[C7]], %{{.*}}[{{[0-7]}}]
// CHECK-COUNT-8: llvm.add %{{.*}}, %{{.*}} : i32
// CHECK-NOT: tile.
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
module attributes {tile.num_warps = 4 : i32} {
  func.func @views(%p: !tile.ptr<i32>, %x: i32) attributes {tile.kernel} {
    %r = tile.make_range 0, 16 : tensor<16xi32, #tile.slice<dim = 1, parent = #b>>
    %e = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #tile.slice<dim = 1, parent = #b>> -> tensor<16x1xi32, #b>
    %b = tile.broadcast %e : tensor<16x1xi32, #b> -> tensor<16x64xi32, #b>
    %s = tile.splat %x : tensor<16x64xi32, #b>
    %c = arith.constant dense<7> : tensor<16x64xi32, #b>
    %a = arith.addi %b, %s : tensor<16x64xi32, #b>
    %a2 = arith.addi %a, %c : tensor<16x64xi32, #b>
    %ps = tile.splat %p : tensor<16x64x!tile.ptr<i32>, #b>
    tile.store %ps, %a2 : tensor<16x64x!tile.ptr<i32>, #b>, tensor<16x64xi32, #b>
    return
  }
}
