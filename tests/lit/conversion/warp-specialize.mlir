// RUN: tile-opt %s -tile-allocate-shared -convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// A stage ring between 4 producer warps (TMA) and the program's 8 consumer
// warps: the kernel is sized for 384 threads; consumers (threads 0..255)
// raise their registers and meet at named barrier 1 over 256 threads;
// producers (threads 256..383) lower theirs, and one elected lane of their
// first warp (warp 8, its index read from lane 0 so that the branch does
// not diverge) announces the bytes and issues the copies. The mbarriers are
// set up by every thread before the split (barrier 0).

// CHECK-LABEL: llvm.func @ring
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[C5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-DAG: %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK: nvvm.barrier0
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: mbarrier.init
// CHECK: nvvm.barrier0
// CHECK: mbarrier.init
// CHECK: nvvm.barrier0
// CHECK: %[[CONSUMER:.*]] = llvm.icmp "ult" %[[TID]], %[[C256]] : i32
// CHECK-NEXT: llvm.cond_br %[[CONSUMER]], ^[[C:.*]], ^[[P:bb[0-9]+]]
// CHECK: ^[[C]]:
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: mbarrier.try_wait.parity
// CHECK: nvvm.barrier id = %[[C1]] number_of_threads = %[[C256]]
// CHECK: nvvm.mbarrier.arrive
// CHECK: ^[[P]]:
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: mbarrier.try_wait.parity
// CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]], %[[C5]] : i32
// CHECK: %[[UNIFORM:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[WARP]], %[[C0]], %{{.*}} : i32 -> i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[UNIFORM]], %[[C8]] : i32
// CHECK: llvm.cond_br %[[FIRST]], ^[[ISSUE:.*]], ^
// CHECK: ^[[ISSUE]]:
// CHECK-NEXT: %[[ELECTED:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT: %[[ISSUES:.*]] = llvm.and %[[ELECTED]], %{{.*}} : i1
// CHECK: mbarrier.arrive.expect_tx{{.*}} %[[ISSUES]]
// CHECK: cp.async.bulk.tensor{{.*}} %[[ISSUES]]
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
module attributes {tile.num_warps = 8 : i32} {
  func.func @ring(%a: !tile.tensordesc<bf16>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant true
    %buf = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    %full = tile.mbarrier_alloc -> <2>
    %empty = tile.mbarrier_alloc -> <2, arrivals = 8>
    tile.warp_specialize {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32}
    producer {
      scf.for %k = %c0 to %n step %c64 : i32 {
        %i = arith.divsi %k, %c64 : i32
        %s = arith.remsi %i, %c2 : i32
        %round = arith.divsi %i, %c2 : i32
        %phase = arith.andi %round, %c1 : i32
        %free = arith.xori %phase, %c1 : i32
        tile.mbarrier_wait %empty[%s], %free : <2, arrivals = 8>
        tile.tma_copy %a[%c0, %k], %buf[%s], %full, %true : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
      }
    } consumer {
      scf.for %k = %c0 to %n step %c64 : i32 {
        %i = arith.divsi %k, %c64 : i32
        %s = arith.remsi %i, %c2 : i32
        %round = arith.divsi %i, %c2 : i32
        %phase = arith.andi %round, %c1 : i32
        tile.mbarrier_wait %full[%s], %phase : <2>
        tile.barrier
        tile.mbarrier_arrive %empty[%s] {perWarp} : <2, arrivals = 8>
      }
    }
    return
  }
}
