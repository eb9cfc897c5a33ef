// convert_layout through shared memory: barrier, every thread stores its
// registers at their row-major index, barrier, every thread loads the
// elements the new layout gives it.
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s

// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @convert(
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>}
// CHECK-DAG: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-DAG: %[[C96:.*]] = llvm.mlir.constant(96 : i32) : i32
// CHECK-DAG: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// Source [4] x 32 lanes: registers at base + 0, 1, 2, 3.
// CHECK: nvvm.barrier0
// CHECK: %[[SB:.*]] = llvm.add %{{.*}}, %[[C0]] : i32
// CHECK-NEXT: %[[I0:.*]] = llvm.add %[[SB]], %[[C0]] : i32
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[SMEM]][%[[I0]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: llvm.store %{{.*}}, %[[P0]] : f32, !llvm.ptr<3>
// CHECK-NEXT: %[[I1:.*]] = llvm.add %[[SB]], %[[C1]] : i32
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[SMEM]][%[[I1]]]
// CHECK-NEXT: llvm.store %{{.*}}, %[[P1]] : f32, !llvm.ptr<3>
// CHECK-NEXT: %[[I2:.*]] = llvm.add %[[SB]], %[[C2]] : i32
// CHECK-NEXT: %[[P2:.*]] = llvm.getelementptr %[[SMEM]][%[[I2]]]
// CHECK-NEXT: llvm.store %{{.*}}, %[[P2]] : f32, !llvm.ptr<3>
// CHECK-NEXT: %[[I3:.*]] = llvm.add %[[SB]], %[[C3]] : i32
// CHECK-NEXT: %[[P3:.*]] = llvm.getelementptr %[[SMEM]][%[[I3]]]
// CHECK-NEXT: llvm.store %{{.*}}, %[[P3]] : f32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// Destination [1] x 32 lanes: registers at base + 0, 32, 64, 96.
// CHECK: %[[DB:.*]] = llvm.add %{{.*}}, %[[C0]] : i32
// CHECK-NEXT: %[[J0:.*]] = llvm.add %[[DB]], %[[C0]] : i32
// CHECK-NEXT: %[[Q0:.*]] = llvm.getelementptr %[[SMEM]][%[[J0]]]
// CHECK-NEXT: llvm.load %[[Q0]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[J1:.*]] = llvm.add %[[DB]], %[[C32]] : i32
// CHECK-NEXT: %[[Q1:.*]] = llvm.getelementptr %[[SMEM]][%[[J1]]]
// CHECK-NEXT: llvm.load %[[Q1]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[J2:.*]] = llvm.add %[[DB]], %[[C64]] : i32
// CHECK-NEXT: %[[Q2:.*]] = llvm.getelementptr %[[SMEM]][%[[J2]]]
// CHECK-NEXT: llvm.load %[[Q2]] : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[J3:.*]] = llvm.add %[[DB]], %[[C96]] : i32
// CHECK-NEXT: %[[Q3:.*]] = llvm.getelementptr %[[SMEM]][%[[J3]]]
// CHECK-NEXT: llvm.load %[[Q3]] : !llvm.ptr<3> -> f32
// Pointer tensors move the same way, as !llvm.ptr<1> elements.
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : !llvm.ptr<1>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<1>
// The converted pointers and values are then stored one register at a time.
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
// CHECK-NOT: tile.convert_layout
#a = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1]>
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1]>
module attributes {tile.num_warps = 1 : i32, tile.shared = 512 : i32} {
  func.func @convert(%x: !tile.ptr<f32>) attributes {tile.kernel} {
    %r = tile.make_range 0, 128 : tensor<128xi32, #a>
    %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #a>
    %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #a>, tensor<128xi32, #a>
    %v = tile.load %xp : (tensor<128x!tile.ptr<f32>, #a>) -> tensor<128xf32, #a>
    %c = tile.convert_layout %v : tensor<128xf32, #a> -> tensor<128xf32, #b>
    %c2 = tile.convert_layout %xp : tensor<128x!tile.ptr<f32>, #a> -> tensor<128x!tile.ptr<f32>, #b>
    tile.store %c2, %c : tensor<128x!tile.ptr<f32>, #b>, tensor<128xf32, #b>
    return
  }
}
