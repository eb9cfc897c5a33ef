// Layout assignment: default blocked layouts for sources, slice layouts out of
// reductions, parents out of expand_dims of slices, conversions where
// operands disagree, and layouts through scf.for / scf.if.
// RUN: tile-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tile-opt %s -tile-assign-layouts=num-warps=8 | FileCheck %s --check-prefix=W8
// The tile-gpu pipeline's canonicalizer then rebuilds cheap converted values
// (ranges, splats, their arithmetic) in the layout their users want.
// RUN: tile-opt %s -tile-gpu-pipeline | FileCheck %s --check-prefix=GPU

// CHECK: module attributes {tile.num_warps = 4 : i32}
// W8: module attributes {tile.num_warps = 8 : i32}

// 1-D: 4 contiguous elements per thread (16 bytes of f32), 32 lanes, all warps.
// CHECK-LABEL: func.func @one_d
// CHECK: tile.make_range 0, 256 : tensor<256xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: tile.splat %arg1 : tensor<256xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: arith.cmpi slt, {{.*}} : tensor<256xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: tile.addptr {{.*}} : tensor<256x!tile.ptr<f32>, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>, tensor<256xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: arith.constant dense<0.000000e+00> : tensor<256xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: tile.load {{.*}} -> tensor<256xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// A 1-D reduction gives a scalar: no layout.
// CHECK: tile.reduce sum {{.*}} : tensor<256xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>> -> f32
// CHECK-NOT: tile.convert_layout
// CHECK: return
// W8-LABEL: func.func @one_d
// W8: tile.make_range 0, 256 : tensor<256xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8]>>
// W8: tile.make_range 0, 1024 : tensor<1024xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8]>>
func.func @one_d(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.make_range 0, 256 : tensor<256xi32>
  %ns = tile.splat %n : tensor<256xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<256xi32>
  %ps = tile.splat %p : tensor<256x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %z = arith.constant dense<0.0> : tensor<256xf32>
  %v = tile.load %q, %m, other %z : (tensor<256x!tile.ptr<f32>>, tensor<256xi1>, tensor<256xf32>) -> tensor<256xf32>
  %s = tile.reduce sum %v {axis = 0 : i32} : tensor<256xf32> -> f32
  %big = tile.make_range 0, 1024 : tensor<1024xi32>
  tile.store %p, %s : !tile.ptr<f32>, f32
  return
}

// 2-D: lanes along the contiguous dim first, warps along dim 0. expand_dims of
// a plain range converts the range to the slice of the result's default
// layout; broadcast converts its operand to its result's default layout.
// CHECK-LABEL: func.func @two_d
// CHECK: %[[ROWS:.*]] = tile.make_range 0, 16 : tensor<16xi32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: %[[RS:.*]] = tile.convert_layout %[[ROWS]] : {{.*}} -> tensor<16xi32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: tile.expand_dims %[[RS]] {axis = 1 : i32} : {{.*}} -> tensor<16x1xi32, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>>
// CHECK: %[[RO:.*]] = arith.muli {{.*}} : tensor<16x1xi32, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: %[[ROC:.*]] = tile.convert_layout %[[RO]] : {{.*}} -> tensor<16x1xi32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: tile.broadcast %[[ROC]] : {{.*}} -> tensor<16x64xi32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>
// CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xi32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1]>>> -> tensor<1x64xi32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1]>>
// CHECK: %[[X:.*]] = tile.load {{.*}} -> tensor<16x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>
// The reduction's result is the slice of its operand's layout ...
// CHECK-NEXT: %[[MX:.*]] = tile.reduce max %[[X]] {axis = 1 : i32} : {{.*}} -> tensor<16xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>>
// ... and expand_dims of that slice is the parent again, with no conversion.
// CHECK-NEXT: %[[MXE:.*]] = tile.expand_dims %[[MX]] {axis = 1 : i32} : {{.*}} -> tensor<16x1xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: %[[MXB:.*]] = tile.broadcast %[[MXE]] : {{.*}} -> tensor<16x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: arith.subf %[[X]], %[[MXB]] : tensor<16x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>
// An elementwise op whose operands disagree converts to the operand that
// already has the shape's default layout (here the constant).
// CHECK: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<16xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: %[[MXC:.*]] = tile.convert_layout %[[MX]] : tensor<16xf32, #tile.slice<{{.*}}>> -> tensor<16xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: arith.addf %[[MXC]], %[[ONES]] : tensor<16xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// GPU-LABEL: func.func @two_d
// GPU-DAG: tile.make_range 0, 16 : tensor<16xi32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>>
// GPU-DAG: tile.make_range 0, 64 : tensor<64xi32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>>
// Only the reduction result still needs a real conversion.
// GPU: tile.reduce max
// GPU: tile.convert_layout %{{.*}} : tensor<16xf32, #tile.slice<dim = 1, {{.*}}>> -> tensor<16xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// GPU-NOT: tile.convert_layout
// GPU-LABEL: func.func @wide
// W8-LABEL: func.func @two_d
// W8: tile.load {{.*}} -> tensor<16x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1]>>
// W8-NEXT: tile.reduce max {{.*}} -> tensor<16xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1]>>>
func.func @two_d(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %rows = tile.make_range 0, 16 : tensor<16xi32>
  %cols = tile.make_range 0, 64 : tensor<64xi32>
  %re = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %ro = arith.muli %re, %c64 : tensor<16x1xi32>
  %rb = tile.broadcast %ro : tensor<16x1xi32> -> tensor<16x64xi32>
  %ce = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = arith.addi %rb, %cb : tensor<16x64xi32>
  %ps = tile.splat %p : tensor<16x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %off : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %x = tile.load %ptrs : (tensor<16x64x!tile.ptr<f32>>) -> tensor<16x64xf32>
  %mx = tile.reduce max %x {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  %mxe = tile.expand_dims %mx {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %mxb = tile.broadcast %mxe : tensor<16x1xf32> -> tensor<16x64xf32>
  %y = arith.subf %x, %mxb : tensor<16x64xf32>
  %ones = arith.constant dense<1.0> : tensor<16xf32>
  %w = arith.addf %mx, %ones : tensor<16xf32>
  %qs = tile.splat %q : tensor<16x!tile.ptr<f32>>
  %qp = tile.addptr %qs, %rows : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %qp, %w : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  tile.store %ptrs, %y : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}

// Warps go along dim 0 while it has room, then along dim 1.
// CHECK-LABEL: func.func @wide
// CHECK: tile.load {{.*}} -> tensor<4x256xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1]>>
// W8-LABEL: func.func @wide
// W8: tile.load {{.*}} -> tensor<4x256xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2]>>
func.func @wide(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : tensor<4x256x!tile.ptr<f32>>
  %x = tile.load %ps : (tensor<4x256x!tile.ptr<f32>>) -> tensor<4x256xf32>
  tile.store %ps, %x : tensor<4x256x!tile.ptr<f32>>, tensor<4x256xf32>
  return
}

// Loop-carried values keep their init's layout: the yielded slice is
// converted back. An scf.if takes its then-branch's layout; the else branch
// converts.
// CHECK-LABEL: func.func @control
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<32xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: %[[FOR:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (tensor<32xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>)
// CHECK-NEXT: %[[S:.*]] = tile.reduce sum {{.*}} {axis = 1 : i32} : tensor<32x32xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>> -> tensor<32xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: %[[SC:.*]] = tile.convert_layout %[[S]] : {{.*}} -> tensor<32xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: scf.yield %[[SC]] : tensor<32xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: scf.if %arg2 -> (tensor<32xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>) {
// CHECK-NEXT: scf.yield %[[FOR]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E:.*]] = tile.reduce sum {{.*}} {axis = 0 : i32} : {{.*}} -> tensor<32xf32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: %[[EC:.*]] = tile.convert_layout %[[E]] : {{.*}} -> tensor<32xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: scf.yield %[[EC]]
func.func @control(%p: !tile.ptr<f32>, %n: i32, %c: i1) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant dense<0.0> : tensor<32xf32>
  %x = arith.constant dense<1.0> : tensor<32x32xf32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32xf32>) : i32 {
    %s = tile.reduce sum %x {axis = 1 : i32} : tensor<32x32xf32> -> tensor<32xf32>
    scf.yield %s : tensor<32xf32>
  }
  %sel = scf.if %c -> (tensor<32xf32>) {
    scf.yield %res : tensor<32xf32>
  } else {
    %s = tile.reduce sum %x {axis = 0 : i32} : tensor<32x32xf32> -> tensor<32xf32>
    scf.yield %s : tensor<32xf32>
  }
  %ps = tile.splat %p : tensor<32x!tile.ptr<f32>>
  %r = tile.make_range 0, 32 : tensor<32xi32>
  %ptrs = tile.addptr %ps, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %ptrs, %sel : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
  return
}

// dot: the accumulator and result take the default layout of [M, N]; the
// operands keep theirs.
// CHECK-LABEL: func.func @dot
// CHECK: %[[A:.*]] = tile.load {{.*}} -> tensor<16x32xf16, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>
// CHECK: %[[B:.*]] = tile.load {{.*}} -> tensor<32x16xf16, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]>>
// CHECK: %[[ACC:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]] : {{.*}} -> tensor<16x16xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]>>
// CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[D]]
// W8-LABEL: func.func @dot
// W8: tile.dot {{.*}} -> tensor<16x16xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1]>>
func.func @dot(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %sa = tile.splat %pa : tensor<16x32x!tile.ptr<f16>>
  %a = tile.load %sa : (tensor<16x32x!tile.ptr<f16>>) -> tensor<16x32xf16>
  %sb = tile.splat %pb : tensor<32x16x!tile.ptr<f16>>
  %b = tile.load %sb : (tensor<32x16x!tile.ptr<f16>>) -> tensor<32x16xf16>
  %acc = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %acc : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
  %e = tile.dot %a, %b, %d : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
  %sc = tile.splat %pc : tensor<16x16x!tile.ptr<f32>>
  tile.store %sc, %e : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>
  return
}
