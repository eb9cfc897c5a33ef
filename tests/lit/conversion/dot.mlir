// dot on the FMA path: a and b are staged row-major in shared memory (b right
// after a's M*K elements) between barriers; each accumulator register then
// takes K fused multiply-adds of f32-widened operands.
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s

// a: 8x4, b: 4x16, acc: 8x16 -> 4 accumulator registers per thread, K = 4.
// CHECK-LABEL: llvm.func @dot(
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// The loop-carried accumulator is a struct of the thread's registers.
// CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}} : i32, !llvm.struct<(f32, f32, f32, f32)>)
// CHECK: ^bb1(%{{.*}}: i32, %[[ACC:.*]]: !llvm.struct<(f32, f32, f32, f32)>):
// CHECK: llvm.cond_br %{{.*}}, ^bb2, ^bb3
// CHECK: ^bb2:
// CHECK: %[[BBASE:.*]] = llvm.getelementptr %[[SMEM]][32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f16
// CHECK: nvvm.barrier0
// Each thread's run of 4 contiguous elements is stored as one vector.
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
// CHECK: llvm.getelementptr %[[BBASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[A0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK-NEXT: %[[AW:.*]] = llvm.fpext %[[A0]] : f16 to f32
// CHECK: %[[B0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f16
// CHECK-NEXT: %[[BW:.*]] = llvm.fpext %[[B0]] : f16 to f32
// CHECK-NEXT: %[[F0:.*]] = llvm.intr.fmuladd(%[[AW]], %[[BW]], %{{.*}}) : (f32, f32, f32) -> f32
// CHECK: %[[F1:.*]] = llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %[[F0]]) : (f32, f32, f32) -> f32
// CHECK: %[[F2:.*]] = llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %[[F1]]) : (f32, f32, f32) -> f32
// CHECK: %[[F3:.*]] = llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %[[F2]]) : (f32, f32, f32) -> f32
// CHECK-COUNT-12: llvm.intr.fmuladd
// CHECK-NOT: llvm.intr.fmuladd
// CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}} : i32, !llvm.struct<(f32, f32, f32, f32)>)
// CHECK: ^bb3:
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
// CHECK: llvm.return
#a = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1]>
module attributes {tile.num_warps = 1 : i32, tile.shared = 128 : i32} {
  func.func @dot(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %sa = tile.splat %pa : tensor<8x4x!tile.ptr<f16>, #a>
    %a = tile.load %sa : (tensor<8x4x!tile.ptr<f16>, #a>) -> tensor<8x4xf16, #a>
    %sb = tile.splat %pb : tensor<4x16x!tile.ptr<f16>, #a>
    %b = tile.load %sb : (tensor<4x16x!tile.ptr<f16>, #a>) -> tensor<4x16xf16, #a>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<8x16xf32, #a>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%it = %zero) -> (tensor<8x16xf32, #a>) : i32 {
      %d = tile.dot %a, %b, %it : tensor<8x4xf16, #a> * tensor<4x16xf16, #a> -> tensor<8x16xf32, #a>
      scf.yield %d : tensor<8x16xf32, #a>
    }
    %sc = tile.splat %pc : tensor<8x16x!tile.ptr<f32>, #a>
    tile.store %sc, %acc : tensor<8x16x!tile.ptr<f32>, #a>, tensor<8x16xf32, #a>
    return
  }
}
