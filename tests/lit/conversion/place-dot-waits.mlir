// RUN: tile-opt %s -split-input-file -tile-place-dot-waits | FileCheck %s

// A pipelined TMA loop (two stages): the trip's dot accumulates on the
// previous trip's result without waiting (it queues behind that group on
// the same registers) and stays in flight across the back edge. The refill
// writes the stage the previous trip's dot read, (i - 1) mod 2 ==
// (i + 1) mod 2: that group is waited for before the refill's barrier,
// while this trip's group stays in flight (pending = 1). No value passes
// through that wait: the only reader of the old accumulator is the dot.
// The loop's result is waited for after the loop.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @carried_accumulator
// CHECK: %[[INIT:.*]] = tile.as_pending %{{.*}} : tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>> -> <tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>>
// CHECK: %[[LOOP:.*]] = scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (!tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>>)
// CHECK: %[[DOT:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ACC]] {transB} : {{.*}} -> !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>>
// CHECK-NEXT: tile.dot_wait {pending = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK: tile.tma_copy
// CHECK: scf.yield %[[DOT]] : !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>>
// CHECK: %[[DONE:.*]] = tile.dot_wait %[[LOOP]] : !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>> {pending = 0 : i32}
// CHECK: tile.store %{{.*}}, %[[DONE]]
func.func @carried_accumulator(%a: !tile.tensordesc<bf16>, %out: tensor<64x64x!tile.ptr<f32>, #mma>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
  %bar = tile.mbarrier_alloc -> <2>
  %r = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %i = arith.divsi %iv, %c64 : i32
    %cur = arith.remsi %i, %c2 : i32
    %i1 = arith.addi %i, %c1 : i32
    %ahead = arith.remsi %i1, %c2 : i32
    %parity = arith.andi %i, %c1 : i32
    tile.mbarrier_wait %bar[%cur], %parity : <2>
    %v = tile.local_view %buf[%cur] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
    %d = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
    tile.barrier
    %next = arith.addi %iv, %c64 : i32
    %more = arith.cmpi slt, %next, %n : i32
    tile.tma_copy %a[%c0, %next], %buf[%ahead], %bar, %more : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
  return
}

// -----

// A chain of two dots is one wait: the first dot's only reader is the
// second (it queues behind it); the wait sits before the first op that
// reads the result, not right after the dot.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @chain
// CHECK: %[[S1:.*]] = tile.dot {{.*}} + tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>> -> !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>>
// CHECK-NEXT: %[[S2:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[S1]] {{.*}} -> !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>>
// CHECK-NEXT: arith.addi
// CHECK-NEXT: %[[W:.*]] = tile.dot_wait %[[S2]] : !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>> {pending = 0 : i32}
// CHECK-NEXT: arith.mulf %[[W]], %[[W]]
func.func @chain(%x: tensor<64x64xbf16, #smem>, %y: tensor<64x64xbf16, #smem>, %n: i32, %out: tensor<64x64x!tile.ptr<f32>, #mma>) -> i32 {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %s1 = tile.dot %x, %y, %zero {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
  %s2 = tile.dot %y, %x, %s1 {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
  %m = arith.addi %n, %n : i32
  %sq = arith.mulf %s2, %s2 : tensor<64x64xf32, #mma>
  tile.store %out, %sq : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
  return %m : i32
}

// -----

// A reader of the older group's result waits with pending = 1: the younger
// group stays in flight. A zeroing of the stage the younger dot reads
// waits for it and brings its own barrier after the wait (every
// warpgroup's reads must be done before any thread writes).

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @shared_writes
// CHECK: %[[P:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xbf16, #tile.mma<warpsPerCTA = [4, 1], version = 3>> * {{.*}} -> !tile.pending
// CHECK-NEXT: %[[Q:.*]] = tile.dot {{.*}} -> !tile.pending
// CHECK-NEXT: %[[WP:.*]] = tile.dot_wait %[[P]] : {{.*}} {pending = 1 : i32}
// CHECK-NEXT: tile.reduce max %[[WP]]
// CHECK-NEXT: tile.dot_wait {pending = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.zero_rows
func.func @shared_writes(%p: tensor<64x64xbf16, #mma>, %y: tensor<64x64xbf16, #smem>, %first: i32) -> tensor<64xf32, #tile.slice<dim = 1, parent = #mma>> {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %buf = tile.local_alloc -> <1 x 64 x 64 x bf16, swizzle = 128>
  %v = tile.local_view %buf[%c0] {column = 0 : i32} : <1 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
  %pv = tile.dot %p, %y, %zero : tensor<64x64xbf16, #mma> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
  %q = tile.dot %y, %v, %zero {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
  %m = tile.reduce max %pv {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>
  tile.zero_rows %buf[%c0] from %first : <1 x 64 x 64 x bf16, swizzle = 128>
  return %m : tensor<64xf32, #tile.slice<dim = 1, parent = #mma>>
}

// -----

// A loop-carried accumulator the next trip reads (attention's rescale of
// its output) is not carried pending: ptxas would serialize every wgmma of
// the kernel. Its group is waited for at the end of the trip.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @rescaled_accumulator
// CHECK-NOT: tile.as_pending
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>)
// CHECK: arith.mulf
// CHECK: %[[DOT:.*]] = tile.dot {{.*}} -> !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3>>>
// CHECK-NEXT: %[[W:.*]] = tile.dot_wait %[[DOT]] : {{.*}} {pending = 0 : i32}
// CHECK-NEXT: scf.yield %[[W]]
func.func @rescaled_accumulator(%x: tensor<64x64xbf16, #smem>, %n: i32, %out: tensor<64x64x!tile.ptr<f32>, #mma>) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %half = arith.constant dense<0.5> : tensor<64x64xf32, #mma>
  %r = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %scaled = arith.mulf %acc, %half : tensor<64x64xf32, #mma>
    %d = tile.dot %x, %x, %scaled {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
  return
}

// -----

// A loop running two trips per iteration (tile-seesaw-pairs): the second
// trip's stage is computed from iv + 64 and is the first's plus one, so
// storing into the second trip's stage of a buffer waits for no dot that
// reads the first's. Warpgroup 1's run only issues a dot (tile-seesaw-
// handoffs): it yields the dot pending. The wait for it goes inside the
// later run of warpgroup 1 that reads it (a run without dots waits for its
// owner only) and keeps the dot everyone issued after it in flight
// (pending = 1). The dot every thread issued is waited for before the
// stage's release.

#own1 = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @issuing_run
// CHECK: %[[S:.*]] = scf.if %{{.*}} -> (!tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>>) {
// CHECK: %[[QK:.*]] = tile.dot {{.*}} -> !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>>
// CHECK-NEXT: scf.yield %[[QK]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[NONE:.*]] = ub.poison : !tile.pending<tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 1>>>
// CHECK-NEXT: scf.yield %[[NONE]]
// CHECK: %[[PV:.*]] = tile.dot {{.*}} -> !tile.pending<tensor<64x512xf32, #tile.mma<warpsPerCTA = [4, 2], version = 3>>>
// CHECK-NEXT: scf.if
// CHECK-NEXT: %[[SDONE:.*]] = tile.dot_wait %[[S]] : {{.*}} {pending = 1 : i32}
// CHECK-NEXT: tile.reduce max %[[SDONE]]
// CHECK: tile.local_store
// CHECK: } {tile.owner_warpgroup = 1 : i64}
// CHECK-NEXT: %[[PVDONE:.*]] = tile.dot_wait %[[PV]] : {{.*}} {pending = 0 : i32}
// CHECK-NEXT: tile.mbarrier_arrive
module attributes {tile.num_warps = 8 : i32} {
  func.func @issuing_run(%n: i32, %q: tensor<64x64xbf16, #smem>, %out: tensor<64x512x!tile.ptr<f32>, #acc>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zs = arith.constant dense<0.0> : tensor<64x64xf32, #own1>
    %zacc = arith.constant dense<0.0> : tensor<64x512xf32, #acc>
    %v = tile.local_alloc -> <2 x 64 x 512 x bf16, swizzle = 128>
    %k = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %full = tile.mbarrier_alloc -> <2>
    %empty = tile.mbarrier_alloc -> <2, arrivals = 8>
    %r = scf.for %iv = %c0 to %n step %c128 iter_args(%acc = %zacc) -> (tensor<64x512xf32, #acc>) : i32 {
      %i0 = arith.divsi %iv, %c64 : i32
      %stage0 = arith.remsi %i0, %c2 : i32
      %iv1 = arith.addi %iv, %c64 : i32
      %i1 = arith.divsi %iv1, %c64 : i32
      %stage1 = arith.remsi %i1, %c2 : i32
      %wg = tile.warpgroup_id : i32
      %mine = arith.cmpi eq, %wg, %c1 : i32
      %s = scf.if %mine -> (tensor<64x64xf32, #own1>) {
        %k1 = tile.local_view %k[%stage1] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
        %qk = tile.dot %q, %k1, %zs {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #own1> -> tensor<64x64xf32, #own1>
        scf.yield %qk : tensor<64x64xf32, #own1>
      } else {
        %none = ub.poison : tensor<64x64xf32, #own1>
        scf.yield %none : tensor<64x64xf32, #own1>
      } {tile.owner_warpgroup = 1 : i64}
      %v0 = tile.local_view %v[%stage0] {column = 0 : i32} : <2 x 64 x 512 x bf16, swizzle = 128> -> tensor<64x512xbf16, #smem>
      %p = tile.local_view %k[%stage0] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
      %o = tile.dot %p, %v0, %acc : tensor<64x64xbf16, #smem> * tensor<64x512xbf16, #smem> + tensor<64x512xf32, #acc> -> tensor<64x512xf32, #acc>
      scf.if %mine {
        %m = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #own1> -> tensor<64xf32, #tile.slice<dim = 1, parent = #own1>>
        %sb = arith.truncf %s : tensor<64x64xf32, #own1> to tensor<64x64xbf16, #own1>
        tile.local_store %sb, %k[%stage1] : tensor<64x64xbf16, #own1>, <2 x 64 x 64 x bf16, swizzle = 128>
      } {tile.owner_warpgroup = 1 : i64}
      tile.mbarrier_arrive %empty[%stage0] releases %v, %k : !tile.smem<2 x 64 x 512 x bf16, swizzle = 128>, !tile.smem<2 x 64 x 64 x bf16, swizzle = 128> {perWarp} : <2, arrivals = 8>
      scf.yield %o : tensor<64x512xf32, #acc>
    }
    tile.store %out, %r : tensor<64x512x!tile.ptr<f32>, #acc>, tensor<64x512xf32, #acc>
    return
  }
}

// -----

// A branch that stores a tile into the stage a dot of the previous trip
// reads (a tile widened a trip ahead, tile-pipeline-loops): as for a store,
// the group is waited for before the barrier ahead of the branch, so that
// every warpgroup's reads are done before any thread writes. This trip's
// group stays in flight across the back edge.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>
// CHECK-LABEL: func.func @stored_in_branch
// CHECK: scf.for
// CHECK: tile.dot_wait %{{.*}} {pending = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NOT: tile.dot_wait
// CHECK: tile.local_store
// CHECK: tile.dot {{.*}} -> !tile.pending
// CHECK-NOT: tile.dot_wait
// CHECK: scf.yield
func.func @stored_in_branch(%tile: tensor<64x64xbf16, #blk>, %out: tensor<64x64x!tile.ptr<f32>, #mma>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
  %r = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %i = arith.divsi %iv, %c64 : i32
    %cur = arith.remsi %i, %c2 : i32
    tile.barrier
    %next = arith.addi %iv, %c64 : i32
    %more = arith.cmpi slt, %next, %n : i32
    scf.if %more {
      %i1 = arith.addi %i, %c1 : i32
      %ahead = arith.remsi %i1, %c2 : i32
      tile.local_store %tile, %buf[%ahead] : tensor<64x64xbf16, #blk>, <2 x 64 x 64 x bf16, swizzle = 128>
    }
    %v = tile.local_view %buf[%cur] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
    %d = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
  return
}
