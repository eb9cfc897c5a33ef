// Layout assignment: default blocked layouts for sources, slice layouts out of
// reductions, parents out of expand_dims of slices, conversions where
// operands disagree, and layouts through scf.for / scf.if.
// RUN: tile-opt %s -tile-assign-layouts | FileCheck %s
// RUN: tile-opt %s -tile-assign-layouts=num-warps=8 | FileCheck %s --check-prefix=W8
// The tile-gpu pipeline's canonicalizer then rebuilds cheap converted values
// (ranges, splats, their arithmetic) in the layout their users want.
// RUN: tile-opt %s -tile-gpu-pipeline | FileCheck %s --check-prefix=GPU
// RUN: tile-opt %s -tile-assign-layouts=tensor-cores=false | FileCheck %s --check-prefix=FMA

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
// An elementwise op whose operands disagree takes the layout of the operand
// that is costlier to move: the reduction's, not the constant's.
// CHECK: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<16xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK-NEXT: %[[ONESC:.*]] = tile.convert_layout %[[ONES]] : {{.*}} -> tensor<16xf32, #tile.slice<dim = 1, {{.*}}>>
// CHECK-NEXT: %[[W:.*]] = arith.addf %[[MX]], %[[ONESC]] : tensor<16xf32, #tile.slice<dim = 1, {{.*}}>>
// The store converts its value to the pointers' layout.
// CHECK: tile.convert_layout %[[W]] : tensor<16xf32, #tile.slice<{{.*}}>> -> tensor<16xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
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

// Loop-carried values take the layout the body yields (the reduction's
// slice); the init is converted once, before the loop. An scf.if takes its
// then-branch's layout; the else branch converts.
// CHECK-LABEL: func.func @control
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<32xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>
// CHECK: %[[INITC:.*]] = tile.convert_layout %[[INIT]] : {{.*}} -> tensor<32xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: %[[FOR:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[INITC]]) -> (tensor<32xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>)
// CHECK: %[[S:.*]] = tile.reduce sum {{.*}} {axis = 1 : i32} : tensor<32x32xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>> -> tensor<32xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: scf.yield %[[S]] : tensor<32xf32, #tile.slice<dim = 1, {{.*}}>>
// CHECK: scf.if %arg2 -> (tensor<32xf32, #tile.slice<dim = 1, {{.*}}>>) {
// CHECK-NEXT: scf.yield %[[FOR]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E:.*]] = tile.reduce sum {{.*}} {axis = 0 : i32} : {{.*}} -> tensor<32xf32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>
// CHECK-NEXT: %[[EC:.*]] = tile.convert_layout %[[E]] : {{.*}} -> tensor<32xf32, #tile.slice<dim = 1, {{.*}}>>
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

// f16 dot: the accumulator and result take the tensor-core layout (one
// 16-row instruction tile; warps along N, surplus warps replicate); the
// operands keep theirs (the lowering stages them in shared memory).
// CHECK-LABEL: func.func @dot
// 16-byte vectors of f16 per thread (8 elements) along the contiguous dim.
// CHECK: %[[A:.*]] = tile.load {{.*}} -> tensor<16x32xf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]>>
// CHECK: %[[B:.*]] = tile.load {{.*}} -> tensor<32x16xf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>>
// CHECK: %[[ACC:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #tile.blocked<{{.*}}>>
// CHECK-NEXT: %[[ACCC:.*]] = tile.convert_layout %[[ACC]] : {{.*}} -> tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 4]>>
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACCC]] : {{.*}} -> tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 4]>>
// CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[D]] : {{.*}} -> tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 4]>>
// W8-LABEL: func.func @dot
// W8: tile.dot {{.*}} -> tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 8]>>
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

// An f32 dot has no tensor-core path here: default blocked layout (FMA).
// With tensor-cores=false, f16 dots take it too.
// CHECK-LABEL: func.func @dot_f32
// CHECK: tile.dot {{.*}} -> tensor<16x16xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]>>
// FMA-LABEL: func.func @dot
// FMA: tile.dot {{.*}} -> tensor<16x16xf32, #tile.blocked<
// FMA-NOT: #tile.mma
func.func @dot_f32(%pa: !tile.ptr<f32>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %sa = tile.splat %pa : tensor<16x16x!tile.ptr<f32>>
  %a = tile.load %sa : (tensor<16x16x!tile.ptr<f32>>) -> tensor<16x16xf32>
  %acc = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %a, %acc : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %sc = tile.splat %pc : tensor<16x16x!tile.ptr<f32>>
  tile.store %sc, %d : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>
  return
}

// A loop-carried accumulator starts in the dot's layout, and the rescaling of
// an online softmax (acc * alpha[:, None], alpha from a row reduction of the
// scores) happens there too: after canonicalization the loop moves nothing
// but the transposed-b operand through the dot's own staging.
// GPU-LABEL: func.func @attention_loop
// GPU: scf.for {{.*}} -> (tensor<16x64xf32, #tile.mma<warpsPerCTA = [1, 4]>>, tensor<16xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [1, 4]>>>)
// GPU-NOT: tile.convert_layout
// GPU: tile.dot {{.*}} {transB} : {{.*}} -> tensor<16x32xf32, #tile.mma<warpsPerCTA = [1, 4]>>
// GPU-NOT: tile.convert_layout
// GPU: tile.reduce max {{.*}} -> tensor<16xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [1, 4]>>>
// GPU-NOT: tile.convert_layout
// GPU: tile.broadcast {{.*}} -> tensor<16x64xf32, #tile.mma<warpsPerCTA = [1, 4]>>
// GPU-NOT: tile.convert_layout
// GPU: tile.dot {{.*}} -> tensor<16x64xf32, #tile.mma<warpsPerCTA = [1, 4]>>
// GPU-NEXT: scf.yield
func.func @attention_loop(%pq: !tile.ptr<bf16>, %pk: !tile.ptr<bf16>, %po: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %sq = tile.splat %pq : tensor<16x64x!tile.ptr<bf16>>
  %q = tile.load %sq : (tensor<16x64x!tile.ptr<bf16>>) -> tensor<16x64xbf16>
  %sk = tile.splat %pk : tensor<32x64x!tile.ptr<bf16>>
  %acc0 = arith.constant dense<0.0> : tensor<16x64xf32>
  %m0 = arith.constant dense<0xFF800000> : tensor<16xf32>
  %zs = arith.constant dense<0.0> : tensor<16x32xf32>
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0, %m = %m0) -> (tensor<16x64xf32>, tensor<16xf32>) : i32 {
    %k = tile.load %sk : (tensor<32x64x!tile.ptr<bf16>>) -> tensor<32x64xbf16>
    %s = tile.dot %q, %k, %zs {transB} : tensor<16x64xbf16> * tensor<32x64xbf16> -> tensor<16x32xf32>
    %rm = tile.reduce max %s {axis = 1 : i32} : tensor<16x32xf32> -> tensor<16xf32>
    %mn = arith.maximumf %m, %rm : tensor<16xf32>
    %d = arith.subf %m, %mn : tensor<16xf32>
    %alpha = math.exp2 %d : tensor<16xf32>
    %ae = tile.expand_dims %alpha {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %ab = tile.broadcast %ae : tensor<16x1xf32> -> tensor<16x64xf32>
    %scaled = arith.mulf %acc, %ab : tensor<16x64xf32>
    %me = tile.expand_dims %mn {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %mb = tile.broadcast %me : tensor<16x1xf32> -> tensor<16x32xf32>
    %sd = arith.subf %s, %mb : tensor<16x32xf32>
    %p = math.exp2 %sd : tensor<16x32xf32>
    %pt = arith.truncf %p : tensor<16x32xf32> to tensor<16x32xbf16>
    %next = tile.dot %pt, %k, %scaled : tensor<16x32xbf16> * tensor<32x64xbf16> -> tensor<16x64xf32>
    scf.yield %next, %mn : tensor<16x64xf32>, tensor<16xf32>
  }
  %so = tile.splat %po : tensor<16x64x!tile.ptr<f32>>
  tile.store %so, %res#0 : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}
