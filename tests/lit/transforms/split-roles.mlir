// RUN: tile-opt %s -split-input-file -tile-split-roles -canonicalize -verify-diagnostics | FileCheck %s

// A trip of a TMA ring in the consumer region: warpgroup 2 (past the 8
// warps) computes scores and their row max; the 8 warps rescale by it and
// accumulate p . v. The score role's copy keeps the branch's ops inline and
// writes the row max into a per-stage slot as soon as it has it (inside the
// branch, before p), and p into the ring buffer only its dot read (the rope
// box), arriving after each on a per-stage signal of its own; the
// accumulate role's copy waits for the row max's signal, loads it and
// rescales, then waits for p's and reads it through a view of the rope box,
// and releases the stage, now also for the slot. The slot read with plain loads is also freed explicitly: the
// accumulate role's threads arrive on a per-stage barrier at the end of the
// trip (naming the slot, so no dot must finish first), which the score role
// waits for (a trip's phase earlier) right after issuing its dot, before
// writing. Neither carries the other's loop values.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
#row = #tile.slice<dim = 1, parent = #own>
#arow = #tile.slice<dim = 1, parent = #acc>
// CHECK-LABEL: func.func @ring
// CHECK: %[[V:.*]] = tile.local_alloc -> <2 x 64 x 512 x bf16, swizzle = 128>
// CHECK: %[[K:.*]] = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
// CHECK: %[[EMPTY:.*]] = tile.mbarrier_alloc -> <2, arrivals = 8>
// CHECK: %[[SIGNAL:.*]] = tile.mbarrier_alloc -> <2, arrivals = 128>
// CHECK: %[[SLOT:.*]] = tile.local_alloc -> <2 x 1 x 64 x f32>
// CHECK: %[[PSIGNAL:.*]] = tile.mbarrier_alloc -> <2, arrivals = 128>
// CHECK: %[[FREE:.*]] = tile.mbarrier_alloc -> <2, arrivals = 256>
// CHECK: tile.warp_specialize {consumerRegisters = 160 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32, scoreWarps = 4 : i32}
// CHECK: } consumer {
// CHECK: %[[WG:.*]] = tile.warpgroup_id
// CHECK: %[[IS_SCORE:.*]] = arith.cmpi eq, %[[WG]], %c2_i32
// CHECK: %[[IS_ACC:.*]] = arith.cmpi ne, %[[WG]], %c2_i32
// CHECK: scf.if %[[IS_SCORE]] {
// CHECK: scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}) -> (tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>>>)
// CHECK: tile.mbarrier_wait
// CHECK: tile.dot
// CHECK-NEXT: %[[EARLIER:.*]] = arith.xori
// CHECK-NEXT: tile.mbarrier_wait %[[FREE]][%[[STAGE:.*]]], %[[EARLIER]]
// CHECK-NEXT: tile.reduce max
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf
// CHECK-NEXT: tile.local_store %[[MAX]], %[[SLOT]][%[[STAGE]]] :
// CHECK-NEXT: tile.mbarrier_arrive %[[SIGNAL]][%[[STAGE]]] :
// CHECK-NEXT: math.exp2
// CHECK-NOT: scf.if
// CHECK: %[[P:.*]] = arith.truncf
// CHECK: tile.local_store %[[P]], %[[K]][%[[STAGE]]]
// CHECK-NEXT: tile.mbarrier_arrive %[[PSIGNAL]][%[[STAGE]]] :
// CHECK-NOT: tile.mbarrier_arrive %[[EMPTY]]
// CHECK: scf.yield
// CHECK: } {tile.owner_warpgroup = 2 : i64}
// CHECK: scf.if %[[IS_ACC]] {
// CHECK: scf.for {{.*}} -> (tensor<64x512xf32, #tile.mma<warpsPerCTA = [4, 2], version = 3>>)
// CHECK-NOT: tile.reduce
// CHECK: tile.mbarrier_wait %[[SIGNAL]][%[[ASTAGE:.*]]], %[[PARITY:.*]] :
// CHECK-NEXT: tile.local_load %[[SLOT]][%[[ASTAGE]]]
// CHECK: arith.mulf
// CHECK-NEXT: tile.mbarrier_wait %[[PSIGNAL]][%[[ASTAGE]]], %[[PARITY]] :
// CHECK-NEXT: %[[PV:.*]] = tile.local_view %[[K]][%[[ASTAGE]]]
// CHECK: tile.dot %[[PV]], %{{.*}}, %{{.*}} :
// CHECK: tile.mbarrier_arrive %[[EMPTY]][%[[ASTAGE]]] releases %[[V]], %[[K]], %[[SLOT]]
// CHECK-NEXT: tile.mbarrier_arrive %[[FREE]][%[[ASTAGE]]] releases %[[SLOT]] :
// CHECK-NEXT: scf.yield
// CHECK-NOT: tile.owner_warpgroup
module attributes {tile.num_warps = 8 : i32, tile.score_warpgroup = true, tile.producer_warps = 4 : i32} {
  func.func @ring(%n: i32, %q: tensor<64x64xbf16, #smem>, %out: tensor<64x512x!tile.ptr<f32>, #acc>) attributes {tile.kernel} {
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
        %wg = tile.warpgroup_id : i32
        %owner = arith.cmpi eq, %wg, %c2 : i32
        %b:2 = scf.if %owner -> (tensor<64xf32, #row>, tensor<64x64xf32, #own>) {
          %s0 = tile.dot %q, %kv, %zs {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
          %rm = tile.reduce max %s0 {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #row>
          %mn = arith.maximumf %m, %rm : tensor<64xf32, #row>
          %p = math.exp2 %s0 : tensor<64x64xf32, #own>
          scf.yield %mn, %p : tensor<64xf32, #row>, tensor<64x64xf32, #own>
        } else {
          %u0 = ub.poison : tensor<64xf32, #row>
          %u1 = ub.poison : tensor<64x64xf32, #own>
          scf.yield %u0, %u1 : tensor<64xf32, #row>, tensor<64x64xf32, #own>
        } {tile.owner_warpgroup = 2 : i64}
        %ma = tile.convert_layout %b#0 : tensor<64xf32, #row> -> tensor<64xf32, #arow>
        %me = tile.expand_dims %ma {axis = 1 : i32} : tensor<64xf32, #arow> -> tensor<64x1xf32, #acc>
        %mb = tile.broadcast %me : tensor<64x1xf32, #acc> -> tensor<64x512xf32, #acc>
        %scaled = arith.mulf %acc, %mb : tensor<64x512xf32, #acc>
        %pb = arith.truncf %b#1 : tensor<64x64xf32, #own> to tensor<64x64xbf16, #own>
        %o = tile.dot %pb, %vv, %scaled : tensor<64x64xbf16, #own> * tensor<64x512xbf16, #smem> + tensor<64x512xf32, #acc> -> tensor<64x512xf32, #acc>
        tile.mbarrier_arrive %empty[%stage] releases %v, %k : !tile.smem<2 x 64 x 512 x bf16, swizzle = 128>, !tile.smem<2 x 64 x 64 x bf16, swizzle = 128> {perWarp} : <2, arrivals = 8>
        scf.yield %b#0, %o : tensor<64xf32, #row>, tensor<64x512xf32, #acc>
      }
      tile.store %out, %r#1 : tensor<64x512x!tile.ptr<f32>, #acc>, tensor<64x512xf32, #acc>
    }
    return
  }
}

// -----

// p read by two accumulate dots of the trip (p . V by halves, each half of
// V a buffer of its own): it crosses once, into the rope box, and both
// dots read it through the one view, after the one wait.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @halves
// CHECK: %[[K:.*]] = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
// CHECK-NOT: tile.local_alloc
// CHECK: %[[PSIGNAL:.*]] = tile.mbarrier_alloc -> <2, arrivals = 128>
// CHECK-NOT: tile.local_alloc
// CHECK: } consumer {
// CHECK: scf.if %{{.*}} {
// CHECK: tile.local_store %{{.*}}, %[[K]][%[[STAGE:[0-9a-z_]+]]]
// CHECK-NEXT: tile.mbarrier_arrive %[[PSIGNAL]][%[[STAGE]]] :
// CHECK-NOT: tile.local_store
// CHECK: } {tile.owner_warpgroup = 2 : i64}
// CHECK: tile.mbarrier_wait %[[PSIGNAL]][%[[ASTAGE:[0-9a-z_]+]]], %{{.*}} :
// CHECK-NEXT: %[[PV:.*]] = tile.local_view %[[K]][%[[ASTAGE]]]
// CHECK-NOT: tile.mbarrier_wait %[[PSIGNAL]]
// CHECK: tile.dot %[[PV]], %{{.*}}, %{{.*}} :
// CHECK-NOT: tile.mbarrier_wait %[[PSIGNAL]]
// CHECK: tile.dot %[[PV]], %{{.*}}, %{{.*}} :
module attributes {tile.num_warps = 8 : i32, tile.score_warpgroup = true, tile.producer_warps = 4 : i32} {
  func.func @halves(%n: i32, %q: tensor<64x64xbf16, #smem>, %out0: tensor<64x256x!tile.ptr<f32>, #acc>, %out1: tensor<64x256x!tile.ptr<f32>, #acc>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %zs = arith.constant dense<0.0> : tensor<64x64xf32, #own>
    %zacc = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    %v0 = tile.local_alloc -> <2 x 64 x 256 x bf16, swizzle = 128>
    %v1 = tile.local_alloc -> <2 x 64 x 256 x bf16, swizzle = 128>
    %full = tile.mbarrier_alloc -> <2>
    %k = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %empty = tile.mbarrier_alloc -> <2, arrivals = 8>
    tile.warp_specialize {consumerRegisters = 240 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32} producer {
    } consumer {
      %r:2 = scf.for %iv = %c0 to %n step %c64 iter_args(%a0 = %zacc, %a1 = %zacc) -> (tensor<64x256xf32, #acc>, tensor<64x256xf32, #acc>) : i32 {
        %i = arith.divsi %iv, %c64 : i32
        %stage = arith.remsi %i, %c2 : i32
        %half = arith.divsi %i, %c2 : i32
        %parity = arith.andi %half, %c1 : i32
        tile.mbarrier_wait %full[%stage], %parity : <2>
        %w0 = tile.local_view %v0[%stage] {column = 0 : i32} : <2 x 64 x 256 x bf16, swizzle = 128> -> tensor<64x256xbf16, #smem>
        %w1 = tile.local_view %v1[%stage] {column = 0 : i32} : <2 x 64 x 256 x bf16, swizzle = 128> -> tensor<64x256xbf16, #smem>
        %kv = tile.local_view %k[%stage] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
        %wg = tile.warpgroup_id : i32
        %owner = arith.cmpi eq, %wg, %c2 : i32
        %p = scf.if %owner -> (tensor<64x64xf32, #own>) {
          %s0 = tile.dot %q, %kv, %zs {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
          %e = math.exp2 %s0 : tensor<64x64xf32, #own>
          scf.yield %e : tensor<64x64xf32, #own>
        } else {
          %u = ub.poison : tensor<64x64xf32, #own>
          scf.yield %u : tensor<64x64xf32, #own>
        } {tile.owner_warpgroup = 2 : i64}
        %pb = arith.truncf %p : tensor<64x64xf32, #own> to tensor<64x64xbf16, #own>
        %o0 = tile.dot %pb, %w0, %a0 : tensor<64x64xbf16, #own> * tensor<64x256xbf16, #smem> + tensor<64x256xf32, #acc> -> tensor<64x256xf32, #acc>
        %o1 = tile.dot %pb, %w1, %a1 : tensor<64x64xbf16, #own> * tensor<64x256xbf16, #smem> + tensor<64x256xf32, #acc> -> tensor<64x256xf32, #acc>
        tile.mbarrier_arrive %empty[%stage] releases %v0, %v1, %k : !tile.smem<2 x 64 x 256 x bf16, swizzle = 128>, !tile.smem<2 x 64 x 256 x bf16, swizzle = 128>, !tile.smem<2 x 64 x 64 x bf16, swizzle = 128> {perWarp} : <2, arrivals = 8>
        scf.yield %o0, %o1 : tensor<64x256xf32, #acc>, tensor<64x256xf32, #acc>
      }
      tile.store %out0, %r#0 : tensor<64x256x!tile.ptr<f32>, #acc>, tensor<64x256xf32, #acc>
      tile.store %out1, %r#1 : tensor<64x256x!tile.ptr<f32>, #acc>, tensor<64x256xf32, #acc>
    }
    return
  }
}

// -----

// Outside a ring: the row sums after a loop go through one slot with full
// and empty barriers, each side counting its own runs for the phase.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#row = #tile.slice<dim = 1, parent = #own>
#arow = #tile.slice<dim = 1, parent = #acc>
// CHECK-LABEL: func.func @after_loop
// CHECK: %[[BUF:.*]] = tile.local_alloc -> <1 x 1 x 64 x f32>
// CHECK: %[[FULL:.*]] = tile.mbarrier_alloc -> <1, arrivals = 128>
// CHECK: %[[EMPTY:.*]] = tile.mbarrier_alloc -> <1, arrivals = 256>
// CHECK: scf.if
// CHECK: %[[RUNS:.*]] = tile.pipeline_base %[[FULL]], %{{.*}} to %{{.*}} step
// CHECK: %[[PHASE:.*]] = arith.andi %[[RUNS]],
// CHECK: %[[FREE:.*]] = arith.xori %[[PHASE]],
// CHECK: tile.mbarrier_wait %[[EMPTY]][%{{.*}}], %[[FREE]]
// CHECK-NEXT: tile.local_store %{{.*}}, %[[BUF]][%{{.*}}]
// CHECK-NEXT: tile.mbarrier_arrive %[[FULL]][%{{.*}}] :
// CHECK: } {tile.owner_warpgroup = 2 : i64}
// CHECK: scf.if
// CHECK: %[[RRUNS:.*]] = tile.pipeline_base %[[FULL]], %{{.*}} to %{{.*}} step
// CHECK: %[[RPHASE:.*]] = arith.andi %[[RRUNS]],
// CHECK: tile.mbarrier_wait %[[FULL]][%{{.*}}], %[[RPHASE]]
// CHECK-NEXT: %[[SUMS:.*]] = tile.local_load %[[BUF]][%{{.*}}]
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] :
// CHECK: tile.store %{{.*}}, %[[SUMS]]
module attributes {tile.num_warps = 8 : i32, tile.score_warpgroup = true, tile.producer_warps = 4 : i32} {
  func.func @after_loop(%s: tensor<64x64xf32, #own>, %out: tensor<64x!tile.ptr<f32>, #arow>) attributes {tile.kernel} {
    %c2 = arith.constant 2 : i32
    tile.warp_specialize {consumerRegisters = 240 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32} producer {
    } consumer {
      %wg = tile.warpgroup_id : i32
      %owner = arith.cmpi eq, %wg, %c2 : i32
      %l = scf.if %owner -> (tensor<64xf32, #row>) {
        %sum = tile.reduce sum %s {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #row>
        scf.yield %sum : tensor<64xf32, #row>
      } else {
        %u = ub.poison : tensor<64xf32, #row>
        scf.yield %u : tensor<64xf32, #row>
      } {tile.owner_warpgroup = 2 : i64}
      %la = tile.convert_layout %l : tensor<64xf32, #row> -> tensor<64xf32, #arow>
      tile.store %out, %la : tensor<64x!tile.ptr<f32>, #arow>, tensor<64xf32, #arow>
    }
    return
  }
}

// -----

// The score role may read only what crosses: a tensor of the kernel's
// warps computed in registers is not one.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1]>
module attributes {tile.num_warps = 8 : i32, tile.score_warpgroup = true, tile.producer_warps = 4 : i32} {
  func.func @leak(%x: tensor<64x64x!tile.ptr<f32>, #blk>, %out: tensor<64x64x!tile.ptr<f32>, #own>) attributes {tile.kernel} {
    %c2 = arith.constant 2 : i32
    tile.warp_specialize {consumerRegisters = 240 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32} producer {
    } consumer {
      %loaded = tile.load %x : (tensor<64x64x!tile.ptr<f32>, #blk>) -> tensor<64x64xf32, #blk>
      // expected-error @+1 {{reads a value of the other warp role}}
      %moved = tile.convert_layout %loaded : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #own>
      %wg = tile.warpgroup_id : i32
      %owner = arith.cmpi eq, %wg, %c2 : i32
      scf.if %owner {
        tile.store %out, %moved : tensor<64x64x!tile.ptr<f32>, #own>, tensor<64x64xf32, #own>
      } {tile.owner_warpgroup = 2 : i64}
    }
    return
  }
}

// -----

// Without a producer warpgroup: everything after the kernel's buffers and
// barriers goes into a tile.warp_specialize without producers (no
// setmaxnreg of its own), and the roles set their registers at their start:
// 384 threads enter with 168, the score role keeps 136 and the kernel's
// warps take 184. The module's added warps are the score warpgroup.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#row = #tile.slice<dim = 1, parent = #own>
#arow = #tile.slice<dim = 1, parent = #acc>
// CHECK: module attributes {{{.*}}tile.producer_warps = 4 : i32
// CHECK-LABEL: func.func @no_producer
// CHECK: tile.local_alloc -> <1 x 64 x 64 x bf16, swizzle = 128>
// CHECK: tile.warp_specialize {consumerRegisters = 24 : i32, producerRegisters = 24 : i32, producerWarps = 0 : i32, scoreWarps = 4 : i32} producer {
// CHECK-NEXT: } consumer {
// CHECK: scf.if
// CHECK-NEXT: tile.set_max_registers 136
// CHECK-NOT: increase
// CHECK: } {tile.owner_warpgroup = 2 : i64}
// CHECK: scf.if
// CHECK-NEXT: tile.set_max_registers 184 increase
module attributes {tile.num_warps = 8 : i32, tile.score_warpgroup = true} {
  func.func @no_producer(%s: tensor<64x64xf32, #own>, %out: tensor<64x!tile.ptr<f32>, #arow>) attributes {tile.kernel} {
    %c2 = arith.constant 2 : i32
    %unused = tile.local_alloc -> <1 x 64 x 64 x bf16, swizzle = 128>
    %wg = tile.warpgroup_id : i32
    %owner = arith.cmpi eq, %wg, %c2 : i32
    %l = scf.if %owner -> (tensor<64xf32, #row>) {
      %sum = tile.reduce sum %s {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #row>
      scf.yield %sum : tensor<64xf32, #row>
    } else {
      %u = ub.poison : tensor<64xf32, #row>
      scf.yield %u : tensor<64xf32, #row>
    } {tile.owner_warpgroup = 2 : i64}
    %la = tile.convert_layout %l : tensor<64xf32, #row> -> tensor<64xf32, #arow>
    tile.store %out, %la : tensor<64x!tile.ptr<f32>, #arow>, tensor<64xf32, #arow>
    return
  }
}

// -----

// A tile the trip widens from 8-bit codes into a buffer the score role's
// dot reads (tile-pipeline-loops' landed casts): the accumulate role loads,
// widens and stores it, and its threads then arrive on a per-stage signal
// of their own, which the score role waits for before its view. The score
// role neither loads nor widens the codes.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1]>
// CHECK-LABEL: func.func @widened
// CHECK: %[[WIDE:.*]] = tile.local_alloc -> <1 x 64 x 64 x bf16, swizzle = 128>
// CHECK: %[[WIDENED:.*]] = tile.mbarrier_alloc -> <2, arrivals = 256>
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for
// CHECK-NOT: tile.local_load
// CHECK-NOT: arith.extf
// CHECK: tile.mbarrier_wait %[[WIDENED]][%[[STAGE:.*]]], %[[PARITY:.*]] :
// CHECK-NEXT: %[[VIEW:.*]] = tile.local_view %[[WIDE]]
// CHECK-NEXT: tile.dot %{{.*}}, %[[VIEW]]
// CHECK: } {tile.owner_warpgroup = 2 : i64}
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for
// CHECK: tile.local_load {{.*}} -> tensor<64x64xf8E4M3FN
// CHECK-NEXT: arith.extf
// CHECK-NEXT: tile.local_store %{{.*}}, %[[WIDE]]
// CHECK-NEXT: tile.mbarrier_arrive %[[WIDENED]][%{{.*}}] : <2, arrivals = 256>
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.mbarrier_wait %[[WIDENED]]
// CHECK: return
module attributes {tile.num_warps = 8 : i32, tile.score_warpgroup = true, tile.producer_warps = 4 : i32} {
  func.func @widened(%n: i32, %q: tensor<64x64xbf16, #smem>, %out: tensor<64x64x!tile.ptr<f32>, #own>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %zs = arith.constant dense<0.0> : tensor<64x64xf32, #own>
    %codes = tile.local_alloc -> <2 x 64 x 64 x f8E4M3FN, swizzle = 64>
    %full = tile.mbarrier_alloc -> <2>
    %wide = tile.local_alloc -> <1 x 64 x 64 x bf16, swizzle = 128>
    %empty = tile.mbarrier_alloc -> <2, arrivals = 8>
    tile.warp_specialize {consumerRegisters = 240 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32} producer {
    } consumer {
      %r = scf.for %iv = %c0 to %n step %c64 iter_args(%s = %zs) -> (tensor<64x64xf32, #own>) : i32 {
        %i = arith.divsi %iv, %c64 : i32
        %stage = arith.remsi %i, %c2 : i32
        %half = arith.divsi %i, %c2 : i32
        %parity = arith.andi %half, %c1 : i32
        tile.mbarrier_wait %full[%stage], %parity : <2>
        %c = tile.local_load %codes[%stage] : <2 x 64 x 64 x f8E4M3FN, swizzle = 64> -> tensor<64x64xf8E4M3FN, #blk>
        %w = arith.extf %c : tensor<64x64xf8E4M3FN, #blk> to tensor<64x64xbf16, #blk>
        tile.local_store %w, %wide[%c0] : tensor<64x64xbf16, #blk>, <1 x 64 x 64 x bf16, swizzle = 128>
        tile.barrier
        %kv = tile.local_view %wide[%c0] {column = 0 : i32} : <1 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
        %wg = tile.warpgroup_id : i32
        %owner = arith.cmpi eq, %wg, %c2 : i32
        %b = scf.if %owner -> (tensor<64x64xf32, #own>) {
          %s1 = tile.dot %q, %kv, %s {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
          scf.yield %s1 : tensor<64x64xf32, #own>
        } else {
          %u = ub.poison : tensor<64x64xf32, #own>
          scf.yield %u : tensor<64x64xf32, #own>
        } {tile.owner_warpgroup = 2 : i64}
        tile.mbarrier_arrive %empty[%stage] releases %codes : !tile.smem<2 x 64 x 64 x f8E4M3FN, swizzle = 64> {perWarp} : <2, arrivals = 8>
        scf.yield %b : tensor<64x64xf32, #own>
      }
      %wg2 = tile.warpgroup_id : i32
      %owner2 = arith.cmpi eq, %wg2, %c2 : i32
      scf.if %owner2 {
        tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #own>, tensor<64x64xf32, #own>
      } {tile.owner_warpgroup = 2 : i64}
    }
    return
  }
}

// -----

// The same tile widened a trip ahead (tile-pipeline-loops with a score
// warpgroup, no producer: the trip refills its own code stages): the first
// trip's tile and the next trip's are stored in branches, into two-stage
// buffers. Each branch signals the stage it stored into, after its store;
// the score role waits for the trip's stage (the first branch's wait names
// it) before its view, and not for the codes' TMA stages, which only the
// accumulate role reads.

#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
#blk = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1]>
// CHECK-LABEL: func.func @widened_ahead
// CHECK: %[[FULL:.*]] = tile.mbarrier_alloc -> <2>
// CHECK: %[[WIDE:.*]] = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
// CHECK: %[[WIDENED:.*]] = tile.mbarrier_alloc -> <2, arrivals = 256>
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for
// CHECK-NOT: tile.mbarrier_wait %[[FULL]]
// CHECK-NOT: tile.local_store
// CHECK: tile.mbarrier_wait %[[WIDENED]][%[[STAGE:[0-9a-z_]+]]], %[[PARITY:[0-9a-z_]+]] :
// CHECK-NEXT: %[[VIEW:.*]] = tile.local_view %[[WIDE]][%[[STAGE]]]
// CHECK-NEXT: tile.dot %{{.*}}, %[[VIEW]]
// CHECK: } {tile.owner_warpgroup = 2 : i64}
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NEXT: tile.mbarrier_wait %[[FULL]][%[[CUR:[0-9a-z_]+]]]
// CHECK: tile.local_store %{{.*}}, %[[WIDE]][%[[CUR]]]
// CHECK-NEXT: tile.mbarrier_arrive %[[WIDENED]][%[[CUR]]] : <2, arrivals = 256>
// CHECK: scf.if
// CHECK: %[[NEXT:.*]] = arith.remsi
// CHECK: tile.mbarrier_wait %[[FULL]][%[[NEXT]]]
// CHECK: tile.local_store %{{.*}}, %[[WIDE]][%[[NEXT]]]
// CHECK-NEXT: tile.mbarrier_arrive %[[WIDENED]][%[[NEXT]]] : <2, arrivals = 256>
// CHECK: tile.tma_copy
// CHECK-NOT: tile.mbarrier_wait %[[WIDENED]]
// CHECK: return
module attributes {tile.num_warps = 8 : i32, tile.score_warpgroup = true} {
  func.func @widened_ahead(%n: i32, %desc: !tile.tensordesc<f8E4M3FN>, %q: tensor<64x64xbf16, #smem>, %out: tensor<64x64x!tile.ptr<f32>, #own>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zs = arith.constant dense<0.0> : tensor<64x64xf32, #own>
    %codes = tile.local_alloc -> <2 x 64 x 64 x f8E4M3FN, swizzle = 64>
    %full = tile.mbarrier_alloc -> <2>
    %wide = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %r = scf.for %iv = %c0 to %n step %c64 iter_args(%s = %zs) -> (tensor<64x64xf32, #own>) : i32 {
      %i = arith.divsi %iv, %c64 : i32
      %stage = arith.remsi %i, %c2 : i32
      %half = arith.divsi %i, %c2 : i32
      %parity = arith.andi %half, %c1 : i32
      %first = arith.cmpi eq, %iv, %c0 : i32
      scf.if %first {
        tile.mbarrier_wait %full[%stage], %parity : <2>
        %c = tile.local_load %codes[%stage] : <2 x 64 x 64 x f8E4M3FN, swizzle = 64> -> tensor<64x64xf8E4M3FN, #blk>
        %w = arith.extf %c : tensor<64x64xf8E4M3FN, #blk> to tensor<64x64xbf16, #blk>
        tile.local_store %w, %wide[%stage] : tensor<64x64xbf16, #blk>, <2 x 64 x 64 x bf16, swizzle = 128>
      }
      tile.barrier
      %niv = arith.addi %iv, %c64 : i32
      %more = arith.cmpi slt, %niv, %n : i32
      scf.if %more {
        %ni = arith.addi %i, %c1 : i32
        %nstage = arith.remsi %ni, %c2 : i32
        %nhalf = arith.divsi %ni, %c2 : i32
        %nparity = arith.andi %nhalf, %c1 : i32
        tile.mbarrier_wait %full[%nstage], %nparity : <2>
        %c = tile.local_load %codes[%nstage] : <2 x 64 x 64 x f8E4M3FN, swizzle = 64> -> tensor<64x64xf8E4M3FN, #blk>
        %w = arith.extf %c : tensor<64x64xf8E4M3FN, #blk> to tensor<64x64xbf16, #blk>
        tile.local_store %w, %wide[%nstage] : tensor<64x64xbf16, #blk>, <2 x 64 x 64 x bf16, swizzle = 128>
      }
      %fiv = arith.addi %iv, %c128 : i32
      %refill = arith.cmpi slt, %fiv, %n : i32
      tile.tma_copy %desc[%fiv, %c0], %codes[%stage], %full, %refill : <f8E4M3FN>, <2 x 64 x 64 x f8E4M3FN, swizzle = 64>, <2>
      %kv = tile.local_view %wide[%stage] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
      %wg = tile.warpgroup_id : i32
      %owner = arith.cmpi eq, %wg, %c2 : i32
      %b = scf.if %owner -> (tensor<64x64xf32, #own>) {
        %s1 = tile.dot %q, %kv, %s {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own> -> tensor<64x64xf32, #own>
        scf.yield %s1 : tensor<64x64xf32, #own>
      } else {
        %u = ub.poison : tensor<64x64xf32, #own>
        scf.yield %u : tensor<64x64xf32, #own>
      } {tile.owner_warpgroup = 2 : i64}
      scf.yield %b : tensor<64x64xf32, #own>
    }
    %wg2 = tile.warpgroup_id : i32
    %owner2 = arith.cmpi eq, %wg2, %c2 : i32
    scf.if %owner2 {
      tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #own>, tensor<64x64xf32, #own>
    } {tile.owner_warpgroup = 2 : i64}
    return
  }
}
