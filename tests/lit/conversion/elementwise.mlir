// Elementwise arith/math on tensors: the scalar op once per register, then
// NVPTX's approximate special functions: exp(x) = exp2(x * log2(e)), exp2
// flushing results below 2^-126 to zero (ex2.approx.ftz),
// log(x) = lg2.approx(x) * ln(2); f16/bf16 widen to f32 around them.
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s

#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4]>

// CHECK-LABEL: llvm.func @math(
// CHECK-DAG: %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-DAG: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// Two registers per thread: every op twice.
// CHECK: %[[X0:.*]] = llvm.extractelement %{{.*}} : vector<2xf32>
// CHECK: %[[X1:.*]] = llvm.extractelement %{{.*}} : vector<2xf32>
// CHECK: %[[A0:.*]] = llvm.fadd %[[X0]], %[[X0]] : f32
// CHECK-NEXT: %[[A1:.*]] = llvm.fadd %[[X1]], %[[X1]] : f32
// exp
// CHECK-NEXT: %[[S0:.*]] = llvm.fmul %[[A0]], %[[LOG2E]] : f32
// CHECK-NEXT: %[[E0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[S0]]) : (f32) -> f32
// CHECK-NEXT: %[[S1:.*]] = llvm.fmul %[[A1]], %[[LOG2E]] : f32
// CHECK-NEXT: %[[E1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[S1]]) : (f32) -> f32
// log
// CHECK-NEXT: %[[G0:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[E0]]) : (f32) -> f32
// CHECK-NEXT: %[[L0:.*]] = llvm.fmul %[[G0]], %[[LN2]] : f32
// CHECK-NEXT: %[[G1:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[E1]]) : (f32) -> f32
// CHECK-NEXT: %[[L1:.*]] = llvm.fmul %[[G1]], %[[LN2]] : f32
// exp2 and log2 map directly
// CHECK-NEXT: %[[F0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[L0]]) : (f32) -> f32
// CHECK-NEXT: %[[F1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[L1]]) : (f32) -> f32
// CHECK-NEXT: %[[H0:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[F0]]) : (f32) -> f32
// CHECK-NEXT: %[[H1:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[F1]]) : (f32) -> f32
// CHECK-NOT: math.
// f16: widen, compute in f32, narrow.
// CHECK: %[[Y0:.*]] = llvm.extractelement %{{.*}} : vector<2xf16>
// CHECK: %[[W0:.*]] = llvm.fpext %[[Y0]] : f16 to f32
// CHECK-NEXT: %[[T0:.*]] = llvm.fmul %[[W0]], %[[LOG2E]] : f32
// CHECK-NEXT: %[[U0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[T0]]) : (f32) -> f32
// CHECK-NEXT: llvm.fptrunc %[[U0]] : f32 to f16
// bf16 likewise.
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
// Comparisons and selects are per register too.
// CHECK: llvm.fcmp "olt" %{{.*}}, %{{.*}} : f32
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// A scalar condition (an `if` on a scalar that merges tensors) serves both
// registers.
// CHECK: %[[FLAG:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.select %[[FLAG]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT: llvm.select %[[FLAG]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NOT: math.
// CHECK-NOT: arith.
module attributes {tile.num_warps = 4 : i32} {
  func.func @math(%pf: !tile.ptr<f32>, %ph: !tile.ptr<f16>, %pb: !tile.ptr<bf16>, %n: i32) attributes {tile.kernel} {
    %r = tile.make_range 0, 256 : tensor<256xi32, #b>
    %ps = tile.splat %pf : tensor<256x!tile.ptr<f32>, #b>
    %p = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
    %x = tile.load %p : (tensor<256x!tile.ptr<f32>, #b>) -> tensor<256xf32, #b>
    %a = arith.addf %x, %x : tensor<256xf32, #b>
    %e = math.exp %a : tensor<256xf32, #b>
    %l = math.log %e : tensor<256xf32, #b>
    %e2 = math.exp2 %l : tensor<256xf32, #b>
    %l2 = math.log2 %e2 : tensor<256xf32, #b>
    %hs = tile.splat %ph : tensor<256x!tile.ptr<f16>, #b>
    %h = tile.addptr %hs, %r : tensor<256x!tile.ptr<f16>, #b>, tensor<256xi32, #b>
    %y = tile.load %h : (tensor<256x!tile.ptr<f16>, #b>) -> tensor<256xf16, #b>
    %ye = math.exp %y : tensor<256xf16, #b>
    tile.store %h, %ye : tensor<256x!tile.ptr<f16>, #b>, tensor<256xf16, #b>
    %bs = tile.splat %pb : tensor<256x!tile.ptr<bf16>, #b>
    %bp = tile.addptr %bs, %r : tensor<256x!tile.ptr<bf16>, #b>, tensor<256xi32, #b>
    %z = tile.load %bp : (tensor<256x!tile.ptr<bf16>, #b>) -> tensor<256xbf16, #b>
    %zl = math.log %z : tensor<256xbf16, #b>
    tile.store %bp, %zl : tensor<256x!tile.ptr<bf16>, #b>, tensor<256xbf16, #b>
    %c = arith.cmpf olt, %l2, %x : tensor<256xf32, #b>
    %s = arith.select %c, %l2, %x : tensor<256xi1, #b>, tensor<256xf32, #b>
    tile.store %p, %s : tensor<256x!tile.ptr<f32>, #b>, tensor<256xf32, #b>
    %zero = arith.constant 0 : i32
    %flag = arith.cmpi eq, %n, %zero : i32
    %t = arith.select %flag, %s, %x : tensor<256xf32, #b>
    tile.store %p, %t : tensor<256x!tile.ptr<f32>, #b>, tensor<256xf32, #b>
    return
  }
}
