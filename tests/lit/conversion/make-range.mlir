// make_range: each register holds start + its coordinate in the layout:
// lane * sizePerThread + warp * sizePerThread * threadsPerWarp (wrapped to the
// tensor size) + the register's offset.
// RUN: tile-opt %s -convert-tile-to-llvm | FileCheck %s

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>

// CHECK-LABEL: llvm.func @range(
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[C31:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[LANE:.*]] = llvm.and %[[TID]], %[[C31]] : i32
// CHECK-NEXT: %[[C5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT: %[[WARP:.*]] = llvm.lshr %[[TID]], %[[C5]] : i32
// CHECK: %[[L:.*]] = llvm.lshr %[[LANE]]
// CHECK: %[[LI:.*]] = llvm.and %[[L]], %{{.*}} : i32
// CHECK: %[[W:.*]] = llvm.lshr %[[WARP]]
// CHECK: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[WI:.*]] = llvm.and %[[W]], %[[C3]] : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[WO:.*]] = llvm.mul %[[WI]], %[[C128]] : i32
// CHECK-NEXT: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[LO:.*]] = llvm.mul %[[LI]], %[[C4]] : i32
// CHECK-NEXT: %[[SUM:.*]] = llvm.add %[[LO]], %[[WO]] : i32
// CHECK-NEXT: %[[C511:.*]] = llvm.mlir.constant(511 : i32) : i32
// CHECK-NEXT: %[[COORD:.*]] = llvm.and %[[SUM]], %[[C511]] : i32
// CHECK-NEXT: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[BASE:.*]] = llvm.add %[[COORD]], %[[C32]] : i32
// CHECK-NEXT: %[[O0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[R0:.*]] = llvm.add %[[BASE]], %[[O0]] : i32
// CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[R1:.*]] = llvm.add %[[BASE]], %[[O1]] : i32
// CHECK-NEXT: %[[O2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[R2:.*]] = llvm.add %[[BASE]], %[[O2]] : i32
// CHECK-NEXT: %[[O3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[R3:.*]] = llvm.add %[[BASE]], %[[O3]] : i32
// CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[S0:.*]] = llvm.insertvalue %[[R0]], %[[U]][0]
// CHECK-NEXT: %[[S1:.*]] = llvm.insertvalue %[[R1]], %[[S0]][1]
// CHECK-NEXT: %[[S2:.*]] = llvm.insertvalue %[[R2]], %[[S1]][2]
// CHECK-NEXT: llvm.insertvalue %[[R3]], %[[S2]][3]
module attributes {tile.num_warps = 4 : i32} {
  func.func @range(%p: !tile.ptr<i32>) attributes {tile.kernel} {
    %r = tile.make_range 32, 544 : tensor<512xi32, #b>
    %ps = tile.splat %p : tensor<512x!tile.ptr<i32>, #b>
    %q = tile.addptr %ps, %r : tensor<512x!tile.ptr<i32>, #b>, tensor<512xi32, #b>
    tile.store %q, %r : tensor<512x!tile.ptr<i32>, #b>, tensor<512xi32, #b>
    return
  }
}
