// RUN: tile-opt %s -split-input-file -tile-seesaw-pairs -verify-diagnostics | FileCheck %s

// A loop whose scores warpgroup 0 owns runs its trips in pairs. The second
// trip is a copy whose owned layouts are warpgroup 1's: the zero it starts
// its scores from is remade as a splat in that layout before the loop, the
// running max it reads from the first trip crosses at its top, and the max
// it yields goes back to warpgroup 0's layout, which the loop carries. The
// accumulator (both warpgroups' layout) is untouched. An odd last trip runs
// after the pairs as the old body.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 128, swizzle = 128>
#row = #tile.slice<dim = 1, parent = #own>
#arow = #tile.slice<dim = 1, parent = #acc>
// CHECK-LABEL: func.func @pairs
// CHECK: %[[ZS1:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>
// CHECK: %[[R:.*]]:2 = scf.for %[[IV:.*]] = %{{.*}} to %[[PAIRS_END:.*]] step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>>, tensor<64x512xf32, #tile.mma<warpsPerCTA = [4, 2], version = 3>>)
// CHECK: %[[S0:.*]] = tile.dot {{.*}} -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>
// CHECK: %[[MN0:.*]] = arith.maximumf %[[M]], %{{.*}} : tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>>
// CHECK: %[[O0:.*]] = tile.dot %{{.*}} -> tensor<64x512xf32, #tile.mma<warpsPerCTA = [4, 2], version = 3>>
// CHECK-NEXT: %[[IV1:.*]] = arith.addi %[[IV]], %{{.*}} : i32
// CHECK-NEXT: %[[MN0X:.*]] = tile.convert_layout %[[MN0]] : tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>> -> tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>>
// CHECK: %[[S1:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ZS1]] {transB} : {{.*}} -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>
// CHECK: %[[MN1:.*]] = arith.maximumf %[[MN0X]], %{{.*}} : tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>>
// CHECK: tile.convert_layout %[[MN1]] : tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>> -> tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 2], version = 3>>>
// CHECK: arith.truncf {{.*}} to tensor<64x64xbf16, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>
// CHECK: %[[O1:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xbf16, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>> * {{.*}} -> tensor<64x512xf32, #tile.mma<warpsPerCTA = [4, 2], version = 3>>
// CHECK-NEXT: %[[BACK:.*]] = tile.convert_layout %[[MN1]] : {{.*}}warpgroup = 1>>> -> tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>>
// CHECK-NEXT: scf.yield %[[BACK]], %[[O1]]
// CHECK: scf.for %{{.*}} = %[[PAIRS_END]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[R]]#0, %{{.*}} = %[[R]]#1)
// CHECK-NOT: warpgroup = 1
// CHECK: tile.store
module attributes {tile.num_warps = 8 : i32, tile.seesaw = true} {
  func.func @pairs(%n: i32, %q: tensor<64x64xbf16, #smem>, %k: tensor<64x64xbf16, #smem>, %v: tensor<64x512xbf16, #smem>, %out: tensor<64x512x!tile.ptr<f32>, #acc>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zs = arith.constant dense<0.0> : tensor<64x64xf32, #own>
    %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #row>
    %zacc = arith.constant dense<0.0> : tensor<64x512xf32, #acc>
    %r:2 = scf.for %iv = %c0 to %n step %c64 iter_args(%m = %ninf, %acc = %zacc) -> (tensor<64xf32, #row>, tensor<64x512xf32, #acc>) : i32 {
      %s = tile.dot %q, %k, %zs {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
      %rm = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #row>
      %mn = arith.maximumf %m, %rm : tensor<64xf32, #row>
      %p = math.exp2 %s : tensor<64x64xf32, #own>
      %ma = tile.convert_layout %mn : tensor<64xf32, #row> -> tensor<64xf32, #arow>
      %me = tile.expand_dims %ma {axis = 1 : i32} : tensor<64xf32, #arow> -> tensor<64x1xf32, #acc>
      %mb = tile.broadcast %me : tensor<64x1xf32, #acc> -> tensor<64x512xf32, #acc>
      %scaled = arith.mulf %acc, %mb : tensor<64x512xf32, #acc>
      %pb = arith.truncf %p : tensor<64x64xf32, #own> to tensor<64x64xbf16, #own>
      %o = tile.dot %pb, %v, %scaled : tensor<64x64xbf16, #own> * tensor<64x512xbf16, #smem> + tensor<64x512xf32, #acc> -> tensor<64x512xf32, #acc>
      scf.yield %mn, %o : tensor<64xf32, #row>, tensor<64x512xf32, #acc>
    }
    tile.store %out, %r#1 : tensor<64x512x!tile.ptr<f32>, #acc>, tensor<64x512xf32, #acc>
    return
  }
}

// -----

// A loop without owned dots (its scores split over both warpgroups) is
// left as it is.

#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 128, swizzle = 128>
// CHECK-LABEL: func.func @unowned
// CHECK: scf.for
// CHECK-NOT: scf.for
module attributes {tile.num_warps = 8 : i32, tile.seesaw = true} {
  func.func @unowned(%n: i32, %q: tensor<64x64xbf16, #smem>, %k: tensor<64x64xbf16, #smem>, %out: tensor<64x64x!tile.ptr<f32>, #acc>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %zs = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %r = scf.for %iv = %c0 to %n step %c64 iter_args(%a = %zs) -> (tensor<64x64xf32, #acc>) : i32 {
      %s = tile.dot %q, %k, %a {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #acc>, tensor<64x64xf32, #acc>
    return
  }
}

// -----

// expected-error @below {{'seesaw' and 'score_warpgroup' exclude each other}}
module attributes {tile.num_warps = 8 : i32, tile.seesaw = true, tile.score_warpgroup = true} {
}

// -----

// expected-error @below {{'seesaw' needs two warpgroups (num_warps = 8), not 4 warps}}
module attributes {tile.num_warps = 4 : i32, tile.seesaw = true} {
}
