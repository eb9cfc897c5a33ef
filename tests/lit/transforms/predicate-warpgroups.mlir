// RUN: tile-opt %s -split-input-file -tile-predicate-warpgroups -verify-diagnostics | FileCheck %s

// Scores owned by warpgroup 0: the dot, the row max, the exp2 and the store
// of the row max run on warpgroup 0 only, in one branch; the scalar
// constant and the splat between them move above it. m and p leave it as
// results, poison elsewhere. Pure ops that read them move below the branch,
// to their first reader: p's narrowing to bf16 sits before the dot
// everyone runs (an exchange: the owner stages p), where the staging stores
// are, and the conversion of m (an exchange) before the add.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 64, swizzle = 128>
// CHECK-LABEL: func.func @scores
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK-NEXT: tile.splat
// CHECK: %[[WG:.*]] = tile.warpgroup_id : i32
// CHECK: %[[OWNER:.*]] = arith.cmpi eq, %[[WG]], %c0_i32
// CHECK: %[[IF:.*]]:2 = scf.if %[[OWNER]] -> (tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>>, tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>) {
// CHECK-NEXT: tile.dot
// CHECK-NEXT: tile.reduce
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: math.exp2
// CHECK-NEXT: tile.store
// CHECK: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: ub.poison : tensor<64xf32
// CHECK-NEXT: ub.poison : tensor<64x64xf32
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tile.owner_warpgroup = 0 : i64}
// CHECK: %[[P:.*]] = arith.truncf %[[IF]]#1
// CHECK-NEXT: tile.dot %[[P]]
// CHECK: tile.convert_layout %[[IF]]#0
// CHECK-NEXT: arith.addf
func.func @scores(%q: tensor<64x64xbf16, #smem>, %k: tensor<64x64xbf16, #smem>,
                  %v: tensor<64x512xbf16, #smem>,
                  %m_out: tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #own>>,
                  %o_out: tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #acc>>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #own>
  %s = tile.dot %q, %k, %zero {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
  %m = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #tile.slice<dim = 1, parent = #own>>
  %two = arith.constant 2.0 : f32
  %sb = tile.splat %two : tensor<64x64xf32, #own>
  %scaled = arith.mulf %s, %sb : tensor<64x64xf32, #own>
  %p = math.exp2 %scaled : tensor<64x64xf32, #own>
  %pb = arith.truncf %p : tensor<64x64xf32, #own> to tensor<64x64xbf16, #own>
  tile.store %m_out, %m : tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #own>>, tensor<64xf32, #tile.slice<dim = 1, parent = #own>>
  %m_all = tile.convert_layout %m : tensor<64xf32, #tile.slice<dim = 1, parent = #own>> -> tensor<64xf32, #tile.slice<dim = 1, parent = #acc>>
  %acc0 = arith.constant dense<0.0> : tensor<64x512xf32, #acc>
  %o = tile.dot %pb, %v, %acc0 : tensor<64x64xbf16, #own> * tensor<64x512xbf16, #smem> + tensor<64x512xf32, #acc> -> tensor<64x512xf32, #acc>
  %row = tile.reduce sum %o {axis = 1 : i32} : tensor<64x512xf32, #acc> -> tensor<64xf32, #tile.slice<dim = 1, parent = #acc>>
  %r = arith.addf %row, %m_all : tensor<64xf32, #tile.slice<dim = 1, parent = #acc>>
  tile.store %o_out, %r : tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #acc>>, tensor<64xf32, #tile.slice<dim = 1, parent = #acc>>
  return
}

// -----

// A value carried by a loop is owner-only once the body's owned dot feeds
// it: the body's owned ops form a run inside the loop, which everyone runs
// (others carry poison). An owned tensor made from a constant is held by
// every thread: its add runs everywhere; its store, as every store of an
// owned tensor, on the owner only.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#smem = #tile.shared<rowStride = 64, swizzle = 128>
// CHECK-LABEL: func.func @carried
// CHECK: arith.addf %{{.*}} : tensor<64x64xf32
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.warpgroup_id
// CHECK: scf.if
// CHECK-NEXT: tile.dot
// CHECK-NEXT: arith.addf
// CHECK: } {tile.owner_warpgroup = 0 : i64}
// CHECK-NEXT: scf.yield
// CHECK: scf.if
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.store
// CHECK: } {tile.owner_warpgroup = 0 : i64}
func.func @carried(%q: tensor<64x64xbf16, #smem>, %out: tensor<64x64x!tile.ptr<f32>, #own>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #own>
  %one = arith.constant dense<1.0> : tensor<64x64xf32, #own>
  %two = arith.addf %one, %one : tensor<64x64xf32, #own>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%l = %zero) -> (tensor<64x64xf32, #own>) : i32 {
    %s = tile.dot %q, %q, %l {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
    %next = arith.addf %s, %one : tensor<64x64xf32, #own>
    scf.yield %next : tensor<64x64xf32, #own>
  }
  tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #own>, tensor<64x64xf32, #own>
  tile.store %out, %two : tensor<64x64x!tile.ptr<f32>, #own>, tensor<64x64xf32, #own>
  return
}

// -----

// A scalar reduced from owned scores would leave the branch as poison in
// the other warpgroup: refused, with what to do instead.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#smem = #tile.shared<rowStride = 64, swizzle = 128>
func.func @scalar_escapes(%q: tensor<64x64xbf16, #smem>, %out: !tile.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #own>
  %s = tile.dot %q, %q, %zero {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
  %m = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #tile.slice<dim = 1, parent = #own>>
  // expected-error@+1 {{computes a value every warpgroup reads from a tensor only warpgroup 0 holds; convert that tensor's layout first}}
  %top = tile.reduce max %m {axis = 0 : i32} : tensor<64xf32, #tile.slice<dim = 1, parent = #own>> -> f32
  tile.store %out, %top : !tile.ptr<f32>, f32
  return
}
