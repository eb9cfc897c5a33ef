// RUN: tile-opt %s -split-input-file -tile-warp-specialize | FileCheck %s

// The smallest loop tile-pipeline-loops streams with TMA (two stages, one
// trip ahead): the prologue copy goes, the producer replays the refill
// with its own trip's coordinate (iv - 1 * step, then + step: its own k),
// computed before it waits for the stage to be free, and the consumer releases the
// previous trip's stage after its dot, in every trip but the first.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @ring
// CHECK: %[[BUF:.*]] = tile.local_alloc
// CHECK: %[[FULL:.*]] = tile.mbarrier_alloc -> <2>
// CHECK-NOT: tile.tma_copy
// CHECK: %[[EMPTY:.*]] = tile.mbarrier_alloc -> <2, arrivals = 4>
// CHECK: tile.warp_specialize {consumerRegisters = 240 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32} producer {
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %[[STEP:.*]] :
// CHECK: %[[BACK:.*]] = arith.subi %[[K]], %{{.*}}
// CHECK: %[[AHEAD:.*]] = arith.addi %[[BACK]], %[[STEP]]
// CHECK: tile.mbarrier_wait %[[EMPTY]]
// CHECK-NEXT: tile.tma_copy %{{.*}}[%{{.*}}, %[[AHEAD]]], %[[BUF]][%{{.*}}], %[[FULL]], %true
// CHECK: } consumer {
// CHECK: scf.for
// CHECK: tile.mbarrier_wait %[[FULL]]
// CHECK: tile.dot
// CHECK: %[[LATER:.*]] = arith.cmpi sgt
// CHECK: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] if %[[LATER]] releases %[[BUF]] : !tile.smem<2 x 64 x 64 x bf16, swizzle = 128> {perWarp}
// CHECK-NOT: tile.barrier
// CHECK-NOT: tile.tma_copy
// CHECK: scf.yield
// CHECK: tile.store
// CHECK: }
// CHECK-NEXT: return
module attributes {tile.num_warps = 4 : i32, tile.warp_specialize} {
  func.func @ring(%a: !tile.tensordesc<bf16>, %out: tensor<64x64x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %bar = tile.mbarrier_alloc -> <2>
    %first = arith.cmpi sgt, %n, %c0 : i32
    tile.tma_copy %a[%c0, %c0], %buf[%c0], %bar, %first : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
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
}

// -----

// A refill whose coordinate comes from a loop-carried value cannot be
// replayed by a producer running ahead: the loop is left as it is.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @carried_coordinate
// CHECK-NOT: tile.warp_specialize
// CHECK: tile.barrier
// CHECK: tile.tma_copy
module attributes {tile.num_warps = 4 : i32, tile.warp_specialize} {
  func.func @carried_coordinate(%a: !tile.tensordesc<bf16>, %out: tensor<64x64x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %bar = tile.mbarrier_alloc -> <2>
    %first = arith.cmpi sgt, %n, %c0 : i32
    tile.tma_copy %a[%c0, %c0], %buf[%c0], %bar, %first : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
    %r:2 = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %zero, %col = %c0) -> (tensor<64x64xf32, #mma>, i32) : i32 {
      %i = arith.divsi %iv, %c64 : i32
      %cur = arith.remsi %i, %c2 : i32
      %i1 = arith.addi %i, %c1 : i32
      %ahead = arith.remsi %i1, %c2 : i32
      %parity = arith.andi %i, %c1 : i32
      tile.mbarrier_wait %bar[%cur], %parity : <2>
      %v = tile.local_view %buf[%cur] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
      %d = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
      tile.barrier
      %next = arith.addi %col, %c64 : i32
      %more = arith.cmpi slt, %next, %n : i32
      tile.tma_copy %a[%c0, %next], %buf[%ahead], %bar, %more : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
      scf.yield %d, %next : tensor<64x64xf32, #mma>, i32
    }
    tile.store %out, %r#0 : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}

// -----

// Tensor code before the loop would run on the producer warps as well,
// outside the layouts: the loop is left as it is.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @tensor_before
// CHECK-NOT: tile.warp_specialize
// CHECK: tile.barrier
module attributes {tile.num_warps = 4 : i32, tile.warp_specialize} {
  func.func @tensor_before(%a: !tile.tensordesc<bf16>, %out: tensor<64x64x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %one = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
    %init = arith.addf %one, %one : tensor<64x64xf32, #mma>
    %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %bar = tile.mbarrier_alloc -> <2>
    %first = arith.cmpi sgt, %n, %c0 : i32
    tile.tma_copy %a[%c0, %c0], %buf[%c0], %bar, %first : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
    %r = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64x64xf32, #mma>) : i32 {
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
}

// -----

// An attention-shaped loop under a condition, as MLA stage 1 has it: the
// loop sits in an scf.if whose body computes tensors first, and each
// trip's rows come from a page-table entry. The split replaces the whole
// scf.if: allocations move before it; the producer replays the condition,
// the table pointer inside it and the per-trip table load (before its
// stage wait); the consumer keeps the tensor code. The accumulator is rescaled by the
// next trip (read, not only accumulated on), so its dot is waited for in
// its own trip, and each trip releases its own stage, unconditionally.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @guarded_attention
// CHECK: %[[OK:.*]] = arith.cmpi slt
// CHECK-NEXT: %[[BUF:.*]] = tile.local_alloc -> <2 x 64 x 64 x bf16
// CHECK-NEXT: %[[FULL:.*]] = tile.mbarrier_alloc -> <2>
// CHECK-NEXT: %[[EMPTY:.*]] = tile.mbarrier_alloc -> <2, arrivals = 4>
// CHECK-NEXT: tile.warp_specialize
// CHECK-SAME: producer {
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: %[[ROW:.*]] = arith.muli
// CHECK-NEXT: %[[TABLE:.*]] = tile.addptr %{{.*}}, %[[ROW]]
// CHECK-NEXT: scf.for
// CHECK-NOT: arith.addf
// CHECK: %[[ENTRY:.*]] = tile.addptr %[[TABLE]]
// CHECK-NEXT: %[[PAGE:.*]] = tile.load %[[ENTRY]]
// CHECK: tile.mbarrier_wait %[[EMPTY]]
// CHECK-NEXT: tile.tma_copy %{{.*}}[%[[PAGE]], %{{.*}}], %[[BUF]][%{{.*}}], %[[FULL]], %true
// CHECK: } consumer {
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: arith.addf
// CHECK-NOT: tile.tma_copy
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK: tile.dot
// CHECK: %[[OWN:.*]] = arith.remsi
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[OWN]]] releases %[[BUF]] : {{.*}} {perWarp}
// CHECK-NEXT: scf.yield
// CHECK: tile.store
module attributes {tile.num_warps = 4 : i32, tile.warp_specialize} {
  func.func @guarded_attention(%a: !tile.tensordesc<bf16>, %table: !tile.ptr<i32>, %out: tensor<64x64x!tile.ptr<f32>, #mma>, %b: i32, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %ok = arith.cmpi slt, %c0, %n : i32
    scf.if %ok {
      %one = arith.constant dense<1.0> : tensor<64x64xf32, #mma>
      %init = arith.addf %one, %one : tensor<64x64xf32, #mma>
      %row = arith.muli %b, %c64 : i32
      %pages = tile.addptr %table, %row : !tile.ptr<i32>, i32
      %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
      %bar = tile.mbarrier_alloc -> <2>
      %page0 = tile.load %pages : (!tile.ptr<i32>) -> i32
      tile.tma_copy %a[%page0, %c0], %buf[%c0], %bar, %ok : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
      %r = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64x64xf32, #mma>) : i32 {
        %i = arith.divsi %iv, %c64 : i32
        %cur = arith.remsi %i, %c2 : i32
        %i1 = arith.addi %i, %c1 : i32
        %ahead = arith.remsi %i1, %c2 : i32
        tile.barrier
        %next = arith.addi %iv, %c64 : i32
        %slot = arith.divsi %next, %c64 : i32
        %entry = tile.addptr %pages, %slot : !tile.ptr<i32>, i32
        %page = tile.load %entry : (!tile.ptr<i32>) -> i32
        %more = arith.cmpi slt, %next, %n : i32
        tile.tma_copy %a[%page, %c0], %buf[%ahead], %bar, %more : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
        %parity = arith.andi %i, %c1 : i32
        tile.mbarrier_wait %bar[%cur], %parity : <2>
        %v = tile.local_view %buf[%cur] {column = 0 : i32} : <2 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
        %scaled = arith.mulf %acc, %acc : tensor<64x64xf32, #mma>
        %d = tile.dot %v, %v, %scaled {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
        scf.yield %d : tensor<64x64xf32, #mma>
      }
      tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    }
    return
  }
}

// -----

// A loop in an else branch is not replayed (the producer clones then
// branches only): the loop is left as it is.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @else_branch
// CHECK-NOT: tile.warp_specialize
// CHECK: tile.barrier
// CHECK: tile.tma_copy
module attributes {tile.num_warps = 4 : i32, tile.warp_specialize} {
  func.func @else_branch(%a: !tile.tensordesc<bf16>, %out: tensor<64x64x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %empty = arith.cmpi sle, %n, %c0 : i32
    scf.if %empty {
    } else {
      %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
      %bar = tile.mbarrier_alloc -> <2>
      %true = arith.constant true
      tile.tma_copy %a[%c0, %c0], %buf[%c0], %bar, %true : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
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
    }
    return
  }
}
