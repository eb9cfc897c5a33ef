// Conversions from and to fp8 (bytes once lowered), each thread's registers
// two at a time. sm_90a (and sm_89+): cvt.rn.f16x2.e4m3x2 widens a pair
// (low byte first), f16 then widened to f32 or narrowed exactly to bf16;
// cvt.rn.satfinite.e4m3x2.f32 narrows a pair (its first operand goes to the
// upper byte), and a value past 464 becomes NaN, 0x7f with the input's
// sign, instead of the instruction's 448 (NaN: NaN). e5m2 the same with its
// e5m2x2 forms, an infinity (0x7c) from 61440 and NaN 0x7e. sm_80: no fp8
// instructions, integer arithmetic on the bits (e4m3: rebias 7 <-> 127,
// m * 2^-9 for subnormals, rounding to even; e5m2: f16's upper byte).
// RUN: tile-opt %s -convert-tile-to-llvm | FileCheck %s
// RUN: tile-opt %s -convert-tile-to-llvm=arch=sm_80 | FileCheck %s --check-prefix=SM80

#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4]>

// CHECK-LABEL: llvm.func @widen(
// CHECK: %[[B0:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(i8, i8)>
// CHECK: %[[B1:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(i8, i8)>
// CHECK: %[[HI:.*]] = llvm.zext %[[B1]] : i8 to i16
// CHECK: %[[SHIFTED:.*]] = llvm.shl %[[HI]], %{{.*}} : i16
// CHECK: %[[LO:.*]] = llvm.zext %[[B0]] : i8 to i16
// CHECK: %[[PACKED:.*]] = llvm.or %[[LO]], %[[SHIFTED]] : i16
// CHECK: %[[HALVES:.*]] = llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"(%[[PACKED]]) : (i16) -> vector<2xf16>
// CHECK: llvm.extractelement %[[HALVES]]
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// The bf16 result: through f32 (exact).
// CHECK: llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
// SM80-LABEL: llvm.func @widen(
// SM80-NOT: llvm.call_intrinsic "llvm.nvvm.e4m3x2
// SM80: llvm.and %{{.*}}, %{{.*}} : i32
// SM80: llvm.uitofp %{{.*}} : i32 to f32
// SM80: llvm.select
// SM80-NOT: llvm.call_intrinsic "llvm.nvvm.e4m3x2
// SM80: llvm.return
module attributes {tile.num_warps = 4 : i32} {
  func.func @widen(%src: !tile.ptr<f8E4M3FN>, %dst: !tile.ptr<f32>, %dstb: !tile.ptr<bf16>) attributes {tile.kernel} {
    %r = tile.make_range 0, 256 : tensor<256xi32, #b>
    %ss = tile.splat %src : tensor<256x!tile.ptr<f8E4M3FN>, #b>
    %s = tile.addptr %ss, %r : tensor<256x!tile.ptr<f8E4M3FN>, #b>, tensor<256xi32, #b>
    %x = tile.load %s : (tensor<256x!tile.ptr<f8E4M3FN>, #b>) -> tensor<256xf8E4M3FN, #b>
    %w = arith.extf %x : tensor<256xf8E4M3FN, #b> to tensor<256xf32, #b>
    %ds = tile.splat %dst : tensor<256x!tile.ptr<f32>, #b>
    %d = tile.addptr %ds, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
    tile.store %d, %w : tensor<256x!tile.ptr<f32>, #b>, tensor<256xf32, #b>
    %wb = arith.extf %x : tensor<256xf8E4M3FN, #b> to tensor<256xbf16, #b>
    %dbs = tile.splat %dstb : tensor<256x!tile.ptr<bf16>, #b>
    %db = tile.addptr %dbs, %r : tensor<256x!tile.ptr<bf16>, #b>, tensor<256xi32, #b>
    tile.store %db, %wb : tensor<256x!tile.ptr<bf16>, #b>, tensor<256xbf16, #b>
    return
  }

// CHECK-LABEL: llvm.func @narrow(
// CHECK: %[[X0:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f32, f32)>
// CHECK: %[[X1:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(f32, f32)>
// CHECK: %[[PAIR:.*]] = llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"(%[[X1]], %[[X0]]) : (f32, f32) -> i16
// CHECK-DAG: %[[LIMIT:.*]] = llvm.mlir.constant(4.640000e+02 : f32) : f32
// CHECK: %[[ABS:.*]] = llvm.intr.fabs(%[[X0]]) : (f32) -> f32
// CHECK: %[[PAST:.*]] = llvm.fcmp "ogt" %[[ABS]], %[[LIMIT]] : f32
// CHECK: llvm.select %[[PAST]], %{{.*}}, %{{.*}} : i1, i8
// CHECK: %[[NAN:.*]] = llvm.fcmp "uno" %[[X0]], %[[X0]] : f32
// CHECK: llvm.select %[[NAN]], %{{.*}}, %{{.*}} : i1, i8
// f16 widens to f32 first (exact).
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"
// SM80-LABEL: llvm.func @narrow(
// SM80-NOT: llvm.call_intrinsic "llvm.nvvm.ff.to
// SM80: llvm.intr.roundeven
// SM80: llvm.fptoui %{{.*}} : f32 to i32
// SM80: llvm.intr.minnum
// SM80: llvm.fcmp "ogt"
// SM80-NOT: llvm.call_intrinsic "llvm.nvvm.ff.to
// SM80: llvm.return
  func.func @narrow(%src: !tile.ptr<f32>, %srch: !tile.ptr<f16>, %dst: !tile.ptr<f8E4M3FN>) attributes {tile.kernel} {
    %r = tile.make_range 0, 256 : tensor<256xi32, #b>
    %ss = tile.splat %src : tensor<256x!tile.ptr<f32>, #b>
    %s = tile.addptr %ss, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
    %x = tile.load %s : (tensor<256x!tile.ptr<f32>, #b>) -> tensor<256xf32, #b>
    %n = arith.truncf %x : tensor<256xf32, #b> to tensor<256xf8E4M3FN, #b>
    %ds = tile.splat %dst : tensor<256x!tile.ptr<f8E4M3FN>, #b>
    %d = tile.addptr %ds, %r : tensor<256x!tile.ptr<f8E4M3FN>, #b>, tensor<256xi32, #b>
    tile.store %d, %n : tensor<256x!tile.ptr<f8E4M3FN>, #b>, tensor<256xf8E4M3FN, #b>
    %hs = tile.splat %srch : tensor<256x!tile.ptr<f16>, #b>
    %h = tile.addptr %hs, %r : tensor<256x!tile.ptr<f16>, #b>, tensor<256xi32, #b>
    %y = tile.load %h : (tensor<256x!tile.ptr<f16>, #b>) -> tensor<256xf16, #b>
    %m = arith.truncf %y : tensor<256xf16, #b> to tensor<256xf8E4M3FN, #b>
    tile.store %d, %m : tensor<256x!tile.ptr<f8E4M3FN>, #b>, tensor<256xf8E4M3FN, #b>
    return
  }

// CHECK-LABEL: llvm.func @e5m2(
// CHECK: llvm.call_intrinsic "llvm.nvvm.e5m2x2.to.f16x2.rn"(%{{.*}}) : (i16) -> vector<2xf16>
// CHECK: llvm.call_intrinsic "llvm.nvvm.ff.to.e5m2x2.rn"(%{{.*}}, %{{.*}}) : (f32, f32) -> i16
// CHECK-DAG: %[[INF:.*]] = llvm.mlir.constant(6.144000e+04 : f32) : f32
// CHECK: llvm.fcmp "oge" %{{.*}}, %[[INF]] : f32
// SM80-LABEL: llvm.func @e5m2(
// SM80-NOT: llvm.call_intrinsic
// SM80: %[[HIGH:.*]] = llvm.shl %{{.*}}, %{{.*}} : i16
// SM80: llvm.bitcast %[[HIGH]] : i16 to f16
// SM80: llvm.intr.roundeven
// SM80-NOT: llvm.call_intrinsic
// SM80: llvm.return
  func.func @e5m2(%src: !tile.ptr<f8E5M2>, %dst: !tile.ptr<f32>) attributes {tile.kernel} {
    %r = tile.make_range 0, 256 : tensor<256xi32, #b>
    %ss = tile.splat %src : tensor<256x!tile.ptr<f8E5M2>, #b>
    %s = tile.addptr %ss, %r : tensor<256x!tile.ptr<f8E5M2>, #b>, tensor<256xi32, #b>
    %x = tile.load %s : (tensor<256x!tile.ptr<f8E5M2>, #b>) -> tensor<256xf8E5M2, #b>
    %w = arith.extf %x : tensor<256xf8E5M2, #b> to tensor<256xf32, #b>
    %ds = tile.splat %dst : tensor<256x!tile.ptr<f32>, #b>
    %d = tile.addptr %ds, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
    tile.store %d, %w : tensor<256x!tile.ptr<f32>, #b>, tensor<256xf32, #b>
    %y = tile.load %d : (tensor<256x!tile.ptr<f32>, #b>) -> tensor<256xf32, #b>
    %n = arith.truncf %y : tensor<256xf32, #b> to tensor<256xf8E5M2, #b>
    tile.store %s, %n : tensor<256x!tile.ptr<f8E5M2>, #b>, tensor<256xf8E5M2, #b>
    return
  }
}
