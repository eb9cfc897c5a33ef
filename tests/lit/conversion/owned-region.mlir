// Code only one warpgroup runs (an scf.if marked tile.owner_warpgroup, as
// tile-predicate-warpgroups makes it): tile.warpgroup_id is the thread index
// / 128; a reduction across warps inside the branch meets at a named barrier
// of the owner's 128 threads (id 3 + g), not at a barrier of the program;
// the other side yields poison (folded here). A conversion out of the
// owned layout after the branch is written by the owner only, then read by
// every thread.
// RUN: tile-opt %s -tile-allocate-shared -convert-tile-to-llvm -canonicalize | FileCheck %s

// CHECK-LABEL: llvm.func @owned
// CHECK-DAG: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG: %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[WG:.*]] = llvm.lshr %[[TID]], %[[C7]] : i32
// CHECK-NEXT: %[[OWNER:.*]] = llvm.icmp "eq" %[[WG]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OWNER]], ^bb1, ^bb2
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.barrier id = %[[C3]] number_of_threads = %[[C128]]
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.barrier id = %[[C3]] number_of_threads = %[[C128]]
// CHECK: nvvm.barrier0
// CHECK: llvm.icmp "eq"
// CHECK-NEXT: llvm.cond_br
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.load
#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 0>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
module attributes {tile.num_warps = 8 : i32} {
  func.func @owned(%x: tensor<64x64xf32, #own>, %out: tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #acc>>) attributes {tile.kernel} {
    %wg = tile.warpgroup_id : i32
    %c0 = arith.constant 0 : i32
    %is = arith.cmpi eq, %wg, %c0 : i32
    %r = scf.if %is -> (tensor<64xf32, #tile.slice<dim = 1, parent = #own>>) {
      %cols = tile.reduce sum %x {axis = 0 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #tile.slice<dim = 0, parent = #own>>
      %rows = tile.reduce max %x {axis = 1 : i32} : tensor<64x64xf32, #own> -> tensor<64xf32, #tile.slice<dim = 1, parent = #own>>
      scf.yield %rows : tensor<64xf32, #tile.slice<dim = 1, parent = #own>>
    } else {
      %p = ub.poison : tensor<64xf32, #tile.slice<dim = 1, parent = #own>>
      scf.yield %p : tensor<64xf32, #tile.slice<dim = 1, parent = #own>>
    } {tile.owner_warpgroup = 0 : i64}
    %all = tile.convert_layout %r : tensor<64xf32, #tile.slice<dim = 1, parent = #own>> -> tensor<64xf32, #tile.slice<dim = 1, parent = #acc>>
    tile.store %out, %all : tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, parent = #acc>>, tensor<64xf32, #tile.slice<dim = 1, parent = #acc>>
    return
  }
}
