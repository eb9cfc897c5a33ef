// RUN: tile-opt %s -split-input-file -tile-split-warpgroups | FileCheck %s

// With the seesaw the compute code becomes one copy per warpgroup: each
// keeps its own owned run and the code both run (the exchange, the dot
// into both warpgroups' accumulator), and reads poison where the other
// warpgroup's run was. Behind a producer, each copy first raises its
// registers to the consumers' count (ptxas compiles a branch for a
// setmaxnreg only at its start).

#own0 = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#own1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 128, swizzle = 128>
// CHECK-LABEL: func.func @copies
// CHECK: tile.warp_specialize
// CHECK: } consumer {
// CHECK-NEXT: %[[WG:.*]] = tile.warpgroup_id : i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[WG]], %[[C0]] : i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: tile.set_max_registers 240 increase
// CHECK: %[[A:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>) {
// CHECK: } {tile.owner_warpgroup = 0 : i64}
// CHECK-NOT: tile.owner_warpgroup = 1
// CHECK: %[[B0:.*]] = ub.poison : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>
// CHECK: tile.convert_layout %[[A]]
// CHECK: tile.convert_layout %[[B0]]
// CHECK: tile.store
// CHECK: } else {
// CHECK-NEXT: tile.set_max_registers 240 increase
// CHECK: %[[A1:.*]] = ub.poison : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>
// CHECK-NOT: tile.owner_warpgroup = 0
// CHECK: %[[B:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>) {
// CHECK: } {tile.owner_warpgroup = 1 : i64}
// CHECK: tile.convert_layout %[[A1]]
// CHECK: tile.convert_layout %[[B]]
// CHECK: tile.store
// CHECK: }
module attributes {tile.num_warps = 8 : i32, tile.seesaw = true, tile.producer_warps = 4 : i32} {
  func.func @copies(%q: tensor<64x64xbf16, #smem>, %k: tensor<64x64xbf16, #smem>, %out: tensor<64x64x!tile.ptr<f32>, #acc>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zs0 = arith.constant dense<0.0> : tensor<64x64xf32, #own0>
    %zs1 = arith.constant dense<0.0> : tensor<64x64xf32, #own1>
    tile.warp_specialize {consumerRegisters = 240 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32} producer {
    } consumer {
      %wg = tile.warpgroup_id : i32
      %is0 = arith.cmpi eq, %wg, %c0 : i32
      %a = scf.if %is0 -> (tensor<64x64xf32, #own0>) {
        %s = tile.dot %q, %k, %zs0 {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own0> -> tensor<64x64xf32, #own0>
        scf.yield %s : tensor<64x64xf32, #own0>
      } else {
        %u = ub.poison : tensor<64x64xf32, #own0>
        scf.yield %u : tensor<64x64xf32, #own0>
      } {tile.owner_warpgroup = 0 : i64}
      %is1 = arith.cmpi eq, %wg, %c1 : i32
      %b = scf.if %is1 -> (tensor<64x64xf32, #own1>) {
        %s = tile.dot %q, %k, %zs1 {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own1> -> tensor<64x64xf32, #own1>
        scf.yield %s : tensor<64x64xf32, #own1>
      } else {
        %u = ub.poison : tensor<64x64xf32, #own1>
        scf.yield %u : tensor<64x64xf32, #own1>
      } {tile.owner_warpgroup = 1 : i64}
      %ax = tile.convert_layout %a : tensor<64x64xf32, #own0> -> tensor<64x64xf32, #acc>
      %bx = tile.convert_layout %b : tensor<64x64xf32, #own1> -> tensor<64x64xf32, #acc>
      %sum = arith.addf %ax, %bx : tensor<64x64xf32, #acc>
      tile.store %out, %sum : tensor<64x64x!tile.ptr<f32>, #acc>, tensor<64x64xf32, #acc>
    }
    return
  }
}

// -----

// Without the seesaw nothing changes.

#own0 = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#smem = #tile.shared<rowStride = 128, swizzle = 128>
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: tile.warpgroup_id
// CHECK: tile.dot
module attributes {tile.num_warps = 8 : i32} {
  func.func @unchanged(%q: tensor<64x64xbf16, #smem>, %k: tensor<64x64xbf16, #smem>, %out: tensor<64x64x!tile.ptr<f32>, #own0>) attributes {tile.kernel} {
    %zs0 = arith.constant dense<0.0> : tensor<64x64xf32, #own0>
    %s = tile.dot %q, %k, %zs0 {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own0> -> tensor<64x64xf32, #own0>
    tile.store %out, %s : tensor<64x64x!tile.ptr<f32>, #own0>, tensor<64x64xf32, #own0>
    return
  }
}
