// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s
// RUN: tile-opt %s -convert-tile-to-llvm=arch=sm_80 | FileCheck %s --check-prefix=SM80

// tile.prefetch_l2 on sm_90+: the range rounded in to 16 bytes (begin up,
// end down), and one elected lane of the first warp issues a bulk prefetch
// of it when anything is left.
// CHECK-LABEL: llvm.func @prefetch
// CHECK-DAG: %[[MASK:.*]] = llvm.mlir.constant(-16 : i64) : i64
// CHECK-DAG: %[[FIFTEEN:.*]] = llvm.mlir.constant(15 : i64) : i64
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: %[[BYTES:.*]] = llvm.sext %{{.*}} : i32 to i64
// CHECK: %[[UP:.*]] = llvm.add %[[ADDR]], %[[FIFTEEN]]
// CHECK: %[[BEGIN:.*]] = llvm.and %[[UP]], %[[MASK]]
// CHECK: %[[END0:.*]] = llvm.add %[[ADDR]], %[[BYTES]]
// CHECK: %[[END:.*]] = llvm.and %[[END0]], %[[MASK]]
// CHECK: %[[SIZE:.*]] = llvm.sub %[[END]], %[[BEGIN]]
// CHECK: %[[SOME:.*]] = llvm.icmp "sgt" %[[SIZE]]
// CHECK: nvvm.elect.sync
// CHECK: llvm.and %{{.*}}, %[[SOME]]
// CHECK: %[[SRC:.*]] = llvm.inttoptr %[[BEGIN]] : i64 to !llvm.ptr<1>
// CHECK: %[[SIZE32:.*]] = llvm.trunc %[[SIZE]] : i64 to i32
// CHECK: nvvm.cp.async.bulk.prefetch %[[SRC]], %[[SIZE32]] : <1>
// CHECK-NOT: nvvm.cp.async.bulk.prefetch

// Older targets drop the hint.
// SM80-LABEL: llvm.func @prefetch
// SM80-NOT: prefetch
// SM80: llvm.return
module attributes {tile.num_warps = 4 : i32} {
  func.func @prefetch(%p: !tile.ptr<bf16>, %bytes: i32) attributes {tile.kernel} {
    tile.prefetch_l2 %p, %bytes : !tile.ptr<bf16>
    return
  }
}
