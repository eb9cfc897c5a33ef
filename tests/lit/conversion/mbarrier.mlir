// RUN: tile-opt %s -tile-allocate-shared -convert-tile-to-llvm -canonicalize -cse | FileCheck %s

// mbarriers are initialized for their type's arrivals; a per-warp arrive
// is made by each warp's first lane, a plain on// CHECK-LABEL: llvm.func @arrivals
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
