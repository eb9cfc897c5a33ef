// scf.for / scf.if with tensor values: the structure survives as blocks whose
// arguments are the register structs (values and pointers alike).
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s

#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2]>

// CHECK-LABEL: llvm.func @loop(
// CHECK-SAME: %[[P:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32, %[[C:.*]]: i1)
// CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}}, %{{.*}} : i32, !llvm.struct<(f32, f32)>, !llvm.struct<(ptr<1>, ptr<1>)>)
// CHECK: ^bb1(%[[I:.*]]: i32, %[[ACC:.*]]: !llvm.struct<(f32, f32)>, %[[PTRS:.*]]: !llvm.struct<(ptr<1>, ptr<1>)>):
// CHECK-NEXT: %[[CMP:.*]] = llvm.icmp "slt" %[[I]], %[[N]] : i32
// CHECK-NEXT: llvm.cond_br %[[CMP]], ^bb2, ^bb3
// CHECK: ^bb2:
// CHECK: %[[P0:.*]] = llvm.extractvalue %[[PTRS]][0] : !llvm.struct<(ptr<1>, ptr<1>)>
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[P0]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK: %[[A0:.*]] = llvm.extractvalue %[[ACC]][0] : !llvm.struct<(f32, f32)>
// CHECK: llvm.fadd %[[A0]], %{{.*}} : f32
// CHECK: llvm.fadd
// CHECK: llvm.getelementptr %{{.*}}[128] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK-NEXT: llvm.getelementptr %{{.*}}[128] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}}, %{{.*}} : i32, !llvm.struct<(f32, f32)>, !llvm.struct<(ptr<1>, ptr<1>)>)
// CHECK: ^bb3:
// scf.if with a tensor result: a merge block taking the struct.
// CHECK: llvm.cond_br %[[C]], ^bb4, ^bb5
// CHECK: ^bb4:
// CHECK: llvm.br ^bb6(%{{.*}} : !llvm.struct<(f32, f32)>)
// CHECK: ^bb5:
// CHECK-COUNT-2: llvm.fmul
// CHECK: llvm.br ^bb6(%{{.*}} : !llvm.struct<(f32, f32)>)
// CHECK: ^bb6(%[[SEL:.*]]: !llvm.struct<(f32, f32)>):
// CHECK: llvm.extractvalue %[[SEL]][0]
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT: scf.
// CHECK-NOT: unrealized_conversion_cast
module attributes {tile.num_warps = 2 : i32} {
  func.func @loop(%p: !tile.ptr<f32>, %n: i32, %c: i1) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = tile.make_range 0, 128 : tensor<128xi32, #b>
    %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #b>
    %p0 = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
    %zero = arith.constant dense<0.0> : tensor<128xf32, #b>
    %step = arith.constant dense<128> : tensor<128xi32, #b>
    %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %ptrs = %p0) -> (tensor<128xf32, #b>, tensor<128x!tile.ptr<f32>, #b>) : i32 {
      %v = tile.load %ptrs : (tensor<128x!tile.ptr<f32>, #b>) -> tensor<128xf32, #b>
      %a = arith.addf %acc, %v : tensor<128xf32, #b>
      %next = tile.addptr %ptrs, %step : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
      scf.yield %a, %next : tensor<128xf32, #b>, tensor<128x!tile.ptr<f32>, #b>
    }
    %sel = scf.if %c -> (tensor<128xf32, #b>) {
      scf.yield %res#0 : tensor<128xf32, #b>
    } else {
      %d = arith.mulf %res#0, %res#0 : tensor<128xf32, #b>
      scf.yield %d : tensor<128xf32, #b>
    }
    tile.store %p0, %sel : tensor<128x!tile.ptr<f32>, #b>, tensor<128xf32, #b>
    return
  }
}
