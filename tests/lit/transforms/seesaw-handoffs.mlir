// RUN: tile-opt %s -tile-seesaw-pairs -tile-predicate-warpgroups -tile-seesaw-handoffs -canonicalize | FileCheck %s

// A seesaw pair behind a producer warpgroup: warpgroup 0 scores the first
// tile of each pair and warpgroup 1 the second. What crossed between them
// as exchanges now goes one way through slots of its own: the owner writes
// each value right after computing it (after waiting on the slot's "empty"
// barrier for the previous pair's phase) and arrives on "full"; the readers
// wait on "full", read and arrive on "empty". The row max reaches every
// consumer thread (it scales the accumulator) and warpgroup 1 (its running
// max), and warpgroup 1's goes back to warpgroup 0 at the pair's end. p
// goes into the trip's stage of the rope box, which only the owner's score
// dot read; its readers free it once their dot is done, right before the
// stage's release. Both phases are the pair's index, counted per thread
// (tile.pipeline_base). Warpgroup 1's score dot of the second tile, with
// its stage's wait and view, runs in a run of its own right after
// warpgroup 0's scores of the first; everyone still waits for the stage
// where the trip did. The odd last trip keeps its exchanges.

// CHECK-LABEL: func.func @pair
// CHECK: %[[V:.*]] = tile.local_alloc -> <2 x 64 x 512 x bf16, swizzle = 128>
// CHECK: %[[FILLED:.*]] = tile.mbarrier_alloc -> <2>
// CHECK: %[[K:.*]] = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
// CHECK: %[[RELEASE:.*]] = tile.mbarrier_alloc -> <2, arrivals = 8>
// CHECK: %[[MAX_FULL:.*]] = tile.mbarrier_alloc -> <1, arrivals = 128>
// CHECK: %[[MAX_EMPTY:.*]] = tile.mbarrier_alloc -> <1, arrivals = 256>
// CHECK: %[[MAX_SLOT:.*]] = tile.local_alloc -> <1 x 1 x 64 x f32>
// CHECK: %[[P_FULL:.*]] = tile.mbarrier_alloc -> <1, arrivals = 128>
// CHECK: %[[P_EMPTY:.*]] = tile.mbarrier_alloc -> <1, arrivals = 256>
// CHECK: %[[TO1_FULL:.*]] = tile.mbarrier_alloc -> <1, arrivals = 128>
// CHECK: %[[TO1_EMPTY:.*]] = tile.mbarrier_alloc -> <1, arrivals = 128>
// CHECK: %[[TO1_SLOT:.*]] = tile.local_alloc -> <1 x 1 x 64 x f32>
// CHECK: tile.warp_specialize
// CHECK: } consumer {
// CHECK: %[[BASE:.*]] = tile.pipeline_base %[[MAX_FULL]], %{{.*}} to %[[PAIRS_END:.*]] step %c128_i32
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[PAIRS_END]] step %c128_i32
// CHECK: %[[PAIR:.*]] = arith.divsi %[[IV]], %c128_i32
// CHECK: %[[COUNT:.*]] = arith.addi %[[BASE]], %[[PAIR]]
// CHECK: %[[PARITY:.*]] = arith.andi %[[COUNT]], %c1_i32
// CHECK: tile.mbarrier_wait %[[FILLED]][%[[STAGE0:.*]]], %{{.*}} : <2>
// CHECK: scf.if
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>
// CHECK: %[[MAX0:.*]] = arith.maximumf
// CHECK: %[[PREV:.*]] = arith.xori %[[PARITY]], %c1_i32
// CHECK-NEXT: tile.mbarrier_wait %[[TO1_EMPTY]][%c0_i32], %[[PREV]]
// CHECK-NEXT: tile.local_store %[[MAX0]], %[[TO1_SLOT]][%c0_i32]
// CHECK-NEXT: tile.mbarrier_arrive %[[TO1_FULL]][%c0_i32]
// CHECK: tile.mbarrier_wait %[[MAX_EMPTY]][%c0_i32]
// CHECK-NEXT: tile.local_store %[[MAX0]], %[[MAX_SLOT]][%c0_i32]
// CHECK-NEXT: tile.mbarrier_arrive %[[MAX_FULL]][%c0_i32]
// CHECK: %[[P0:.*]] = arith.truncf
// CHECK: tile.mbarrier_wait %[[P_EMPTY]][%c0_i32]
// CHECK-NEXT: tile.local_store %[[P0]], %[[K]][%[[STAGE0]]]
// CHECK-NEXT: tile.mbarrier_arrive %[[P_FULL]][%c0_i32]
// CHECK: } {tile.owner_warpgroup = 0 : i64}
// CHECK: %[[S1:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>) {
// CHECK: tile.mbarrier_wait %[[FILLED]][%[[STAGE1:.*]]], %{{.*}} : <2>
// CHECK-NEXT: %[[K1:.*]] = tile.local_view %[[K]][%[[STAGE1]]]
// CHECK-NEXT: tile.dot %{{.*}}, %[[K1]], %{{.*}} {transB}
// CHECK: } {tile.owner_warpgroup = 1 : i64}
// CHECK-NEXT: tile.mbarrier_wait %[[MAX_FULL]][%c0_i32], %[[PARITY]]
// CHECK-NEXT: tile.local_load %[[MAX_SLOT]][%c0_i32] {{.*}} -> tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 2], version = 3>>>
// CHECK-NEXT: tile.mbarrier_arrive %[[MAX_EMPTY]][%c0_i32]
// CHECK: tile.mbarrier_wait %[[P_FULL]][%c0_i32], %[[PARITY]]
// CHECK-NEXT: %[[PV0:.*]] = tile.local_view %[[K]][%[[STAGE0]]]
// CHECK-NEXT: tile.dot %[[PV0]], %{{.*}}, %{{.*}} : tensor<64x64xbf16, #tile.shared
// CHECK-NEXT: tile.mbarrier_arrive %[[P_EMPTY]][%c0_i32] releases %[[K]]
// CHECK-NEXT: tile.mbarrier_arrive %[[RELEASE]][%[[STAGE0]]] releases %[[V]], %[[K]]
// CHECK: %[[MAX0_IN1:.*]] = scf.if
// CHECK-NEXT: tile.mbarrier_wait %[[TO1_FULL]][%c0_i32], %[[PARITY]]
// CHECK-NEXT: tile.local_load %[[TO1_SLOT]][%c0_i32] {{.*}} -> tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>>
// CHECK-NEXT: tile.mbarrier_arrive %[[TO1_EMPTY]][%c0_i32]
// CHECK: } {tile.owner_warpgroup = 1 : i64}
// CHECK: tile.mbarrier_wait %[[FILLED]]
// CHECK: scf.if
// CHECK: tile.reduce max %[[S1]]
// CHECK-NEXT: arith.maximumf %[[MAX0_IN1]]
// CHECK: } {tile.owner_warpgroup = 1 : i64}
// CHECK: tile.mbarrier_arrive %[[RELEASE]][%{{.*}}] releases %[[V]], %[[K]]
// CHECK: scf.if
// CHECK: tile.local_load {{.*}} -> tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>>>
// CHECK: } {tile.owner_warpgroup = 0 : i64}
// CHECK-NEXT: scf.yield
// CHECK: scf.for %{{.*}} = %[[PAIRS_END]] to
// CHECK-NOT: tile.local_store
// CHECK: tile.convert_layout
// CHECK-NOT: warpgroup = 1
// CHECK: tile.store
#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
#row = #tile.slice<dim = 1, parent = #own>
#arow = #tile.slice<dim = 1, parent = #acc>
module attributes {tile.num_warps = 8 : i32, tile.seesaw = true, tile.producer_warps = 4 : i32} {
  func.func @pair(%n: i32, %q: tensor<64x64xbf16, #smem>, %out: tensor<64x512x!tile.ptr<f32>, #acc>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %zs = arith.constant dense<0.0> : tensor<64x64xf32, #own>
    %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #row>
    %zacc = arith.constant dense<0.0> : tensor<64x512xf32, #acc>
    %v = tile.local_alloc -> <2 x 64 x 512 x bf16, swizzle = 128>
    %vfull = tile.mbarrier_alloc -> <2>
    %k = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %empty = tile.mbarrier_alloc -> <2, arrivals = 8>
    tile.warp_specialize {consumerRegisters = 240 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32} producer {
    } consumer {
      %r:2 = scf.for %iv = %c0 to %n step %c64 iter_args(%m = %ninf, %acc = %zacc) -> (tensor<64xf32, #row>, tensor<64x512xf32, #acc>) : i32 {
        %i = arith.divsi %iv, %c64 : i32
        %stage = arith.remsi %i, %c2 : i32
        %half = arith.divsi %i, %c2 : i32
        %parity = arith.andi %half, %c1 : i32
        tile.mbarrier_wait %vfull[%stage], %parity : <2>
        %vv = tile.local_view %v[%stage] {column = 0 : i32} : <2 x 64 x 512 x bf16, swizzle = 128> -> tensor<64x512xbf16, #smem>
        %kv = tile.local_view %k[%stage] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
        %s0 = tile.dot %q, %kv, %zs {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
        %rm = tile.reduce max %s0 {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #row>
        %mn = arith.maximumf %m, %rm : tensor<64xf32, #row>
        %p = math.exp2 %s0 : tensor<64x64xf32, #own>
        %ma = tile.convert_layout %mn : tensor<64xf32, #row> -> tensor<64xf32, #arow>
        %me = tile.expand_dims %ma {axis = 1 : i32} : tensor<64xf32, #arow> -> tensor<64x1xf32, #acc>
        %mb = tile.broadcast %me : tensor<64x1xf32, #acc> -> tensor<64x512xf32, #acc>
        %scaled = arith.mulf %acc, %mb : tensor<64x512xf32, #acc>
        %pb = arith.truncf %p : tensor<64x64xf32, #own> to tensor<64x64xbf16, #own>
        %o = tile.dot %pb, %vv, %scaled : tensor<64x64xbf16, #own> * tensor<64x512xbf16, #smem> + tensor<64x512xf32, #acc> -> tensor<64x512xf32, #acc>
        tile.mbarrier_arrive %empty[%stage] releases %v, %k : !tile.smem<2 x 64 x 512 x bf16, swizzle = 128>, !tile.smem<2 x 64 x 64 x bf16, swizzle = 128> {perWarp} : <2, arrivals = 8>
        scf.yield %mn, %o : tensor<64xf32, #row>, tensor<64x512xf32, #acc>
      }
      tile.store %out, %r#1 : tensor<64x512x!tile.ptr<f32>, #acc>, tensor<64x512xf32, #acc>
    }
    return
  }
}
