// RUN: tile-opt %s -tile-allocate-shared -convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// mbarriers are initialized for their type's arrivals; a per-warp arrive
// is made by each warp's first lane, a plain one by every thread.
// CHECK-LABEL: llvm.func @arrivals
// CHECK-DAG: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: mbarrier.init.shared.b64 [$0], $1;", "r,n,b" %{{.*}}, %[[ONE]],
// CHECK: mbarrier.init.shared.b64 [$0], $1;", "r,n,b" %{{.*}}, %[[EIGHT]],
// CHECK: mbarrier.init.shared.b64 [$0], $1;", "r,n,b" %{{.*}}, %[[EIGHT]],
// CHECK: %[[LANE0:.*]] = llvm.icmp "eq"
// CHECK-NEXT: llvm.cond_br %[[LANE0]], ^[[ARRIVE:.*]], ^[[AFTER:.*]]
// CHECK: ^[[ARRIVE]]:
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: ^[[AFTER]]:
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NOT: nvvm.mbarrier.arrive
module attributes {tile.num_warps = 8 : i32} {
  func.func @arrivals(%i: i32) attributes {tile.kernel} {
    %full = tile.mbarrier_alloc -> <1>
    %empty = tile.mbarrier_alloc -> <2, arrivals = 8>
    tile.mbarrier_arrive %empty[%i] {perWarp} : <2, arrivals = 8>
    tile.mbarrier_arrive %full[%i] : <1>
    return
  }
}

// A ring's trip count: a stack slot made and zeroed at the kernel's entry
// (SROA keeps it in a register), read, and advanced by this entry's trips,
// cdiv(upper - lower, step) when upper > lower.
// CHECK-LABEL: llvm.func @ring_base
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK-NEXT: llvm.store %{{.*}}, %[[SLOT]]
// CHECK: %[[BASE:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> i32
// CHECK: %[[SPAN:.*]] = llvm.sub %{{.*}}, %{{.*}} : i32
// CHECK: %[[TRIPS:.*]] = llvm.sdiv
// CHECK: %[[RAN:.*]] = llvm.icmp "sgt" %[[SPAN]]
// CHECK: %[[SOME:.*]] = llvm.select %[[RAN]], %[[TRIPS]]
// CHECK: %[[NEXT:.*]] = llvm.add %[[BASE]], %[[SOME]]
// CHECK: llvm.store %[[NEXT]], %[[SLOT]]
module attributes {tile.num_warps = 4 : i32} {
  func.func @ring_base(%lower: i32, %upper: i32, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %full = tile.mbarrier_alloc -> <2>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %base = tile.pipeline_base %full, %lower to %upper step %c64 : <2>
      tile.mbarrier_wait %full[%c0], %base : <2>
    }
    return
  }
}
