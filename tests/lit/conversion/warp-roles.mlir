// A roles-only warp split (tile-split-roles without a producer warpgroup):
// tile.warp_specialize with producerWarps = 0 is its consumer region, with
// no setmaxnreg and no branch on the producers; the kernel's 384 threads
// (8 warps and the score warpgroup) are its maxntid, without minctasm.
// The score role (warpgroup 2) writes a row of 64 floats into stage 1 of a
// one-row buffer with plain shared stores (no fence: nothing reads it
// through the async proxy) and zeroes rows of a stage with its own 128
// threads (thread index less 256) at its named barrier 5; the accumulate
// role reads the row back in its own layout and meets at named barrier 1
// (256 threads).
// RUN: tile-opt %s -tile-allocate-shared -convert-tile-to-llvm -canonicalize | FileCheck %s

// CHECK-LABEL: llvm.func @roles
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK-NOT: nvvm.minctasm
// CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-DAG: %[[C5:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NOT: setmaxnreg
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.sub %{{.*}}, %[[C256]] : i32
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.barrier id = %[[C5]] number_of_threads = %[[C128]]
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.barrier id = %[[C1]] number_of_threads = %[[C256]]
// CHECK-NOT: setmaxnreg
#own = #tile.mma<warpsPerCTA = [4, 1], version = 3, warpgroup = 2>
#acc = #tile.mma<warpsPerCTA = [4, 2], version = 3>
#row = #tile.slice<dim = 1, parent = #own>
#arow = #tile.slice<dim = 1, parent = #acc>
module attributes {tile.num_warps = 8 : i32, tile.producer_warps = 4 : i32} {
  func.func @roles(%x: tensor<64xf32, #row>, %out: tensor<64x!tile.ptr<f32>, #arow>, %first: i32) attributes {tile.kernel} {
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %slot = tile.local_alloc -> <2 x 1 x 64 x f32>
    %tile = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
    tile.warp_specialize {consumerRegisters = 24 : i32, producerRegisters = 24 : i32, producerWarps = 0 : i32, scoreWarps = 4 : i32} producer {
    } consumer {
      %wg = tile.warpgroup_id : i32
      %is = arith.cmpi eq, %wg, %c2 : i32
      %not = arith.cmpi ne, %wg, %c2 : i32
      scf.if %is {
        tile.local_store %x, %slot[%c1] : tensor<64xf32, #row>, <2 x 1 x 64 x f32>
        tile.zero_rows %tile[%c1] from %first : <2 x 64 x 64 x bf16, swizzle = 128>
      } {tile.owner_warpgroup = 2 : i64}
      scf.if %not {
        %y = tile.local_load %slot[%c1] : <2 x 1 x 64 x f32> -> tensor<64xf32, #arow>
        tile.barrier
        tile.store %out, %y : tensor<64x!tile.ptr<f32>, #arow>, tensor<64xf32, #arow>
      }
    }
    return
  }
}
