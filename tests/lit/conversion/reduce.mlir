// reduce: combine a thread's registers, then butterfly shuffles across the
// lanes holding distinct coordinates, then (only when several warps hold
// distinct coordinates) a round trip through shared memory between barriers.
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s

// Rows of 64 over 16 lanes x 4 registers: 3 maxima per row in registers,
// then xor-shuffles 1, 2, 4, 8 (lanes 16-31 hold other rows); no shared
// memory, no barrier.
// CHECK-LABEL: llvm.func @rows(
// CHECK-DAG: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-DAG: %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-DAG: %[[X1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[X2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[X4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-DAG: %[[X8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: %[[R0:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT: %[[R1:.*]] = llvm.intr.maximum(%[[R0]], %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT: %[[ROW0:.*]] = llvm.intr.maximum(%[[R1]], %{{.*}}) : (f32, f32) -> f32
// CHECK-COUNT-3: llvm.intr.maximum
// CHECK-NEXT: %[[S1:.*]] = nvvm.shfl.sync  bfly %[[ALL]], %[[ROW0]], %[[X1]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: %[[M1:.*]] = llvm.intr.maximum(%[[ROW0]], %[[S1]]) : (f32, f32) -> f32
// CHECK: nvvm.shfl.sync  bfly %[[ALL]], %{{.*}}, %[[X1]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: llvm.intr.maximum
// CHECK-NEXT: nvvm.shfl.sync  bfly %[[ALL]], %[[M1]], %[[X2]], %[[CLAMP]] : f32 -> f32
// CHECK-NEXT: llvm.intr.maximum
// CHECK-NEXT: nvvm.shfl.sync  bfly %[[ALL]], %{{.*}}, %[[X2]], %[[CLAMP]] : f32 -> f32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %[[ALL]], %{{.*}}, %[[X4]], %[[CLAMP]] : f32 -> f32
// CHECK-COUNT-2: nvvm.shfl.sync  bfly %[[ALL]], %{{.*}}, %[[X8]], %[[CLAMP]] : f32 -> f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return

// 512 elements over 4 warps: shuffles 1..16 within the warp, then each warp
// stores its partial sum at slot `warp`, and every thread adds the 4 slots.
// CHECK-LABEL: llvm.func @all(
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-COUNT-3: llvm.add
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: %[[PART:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.barrier0
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: llvm.store %[[PART]], %[[SLOT]] : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %arg1 {alignment = 4 : i64} : vector<1xi32>, !llvm.ptr<1>
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#v = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>
module attributes {tile.num_warps = 4 : i32, tile.shared = 16 : i32} {
  func.func @rows(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel} {
    %xs = tile.splat %x : tensor<16x64x!tile.ptr<f32>, #b>
    %v = tile.load %xs : (tensor<16x64x!tile.ptr<f32>, #b>) -> tensor<16x64xf32, #b>
    %m = tile.reduce max %v {axis = 1 : i32} : tensor<16x64xf32, #b> -> tensor<16xf32, #tile.slice<dim = 1, parent = #b>>
    %os = tile.splat %out : tensor<16x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #b>>
    tile.store %os, %m : tensor<16x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #b>>, tensor<16xf32, #tile.slice<dim = 1, parent = #b>>
    return
  }
  func.func @all(%x: !tile.ptr<i32>, %out: !tile.ptr<i32>) attributes {tile.kernel} {
    %r = tile.make_range 0, 512 : tensor<512xi32, #v>
    %xs = tile.splat %x : tensor<512x!tile.ptr<i32>, #v>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<i32>, #v>, tensor<512xi32, #v>
    %v = tile.load %xp : (tensor<512x!tile.ptr<i32>, #v>) -> tensor<512xi32, #v>
    %s = tile.reduce sum %v {axis = 0 : i32} : tensor<512xi32, #v> -> i32
    tile.store %out, %s : !tile.ptr<i32>, i32
    return
  }
}
