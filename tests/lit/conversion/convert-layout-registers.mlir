// A conversion out of a layout where every thread holds the whole tensor
// (two values, two per thread) needs no shared memory: each destination
// register is picked from the thread's own by its row-major index. No
// scratch is reserved for it, and no barrier is emitted.
// RUN: tile-opt %s -tile-allocate-shared -convert-tile-to-llvm -canonicalize | FileCheck %s

// CHECK: module attributes {tile.num_warps = 2 : i32, tile.shared = 0 : i32}
// CHECK-LABEL: llvm.func @pick(
// CHECK: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> vector<2xf32>
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// The destination row is the warp's: element 0 where the index is 0, else 1.
// CHECK: %[[IS0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.select %[[IS0]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
#r = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2]>
#p = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1]>
#s = #tile.slice<dim = 1, parent = #p>
module attributes {tile.num_warps = 2 : i32} {
  func.func @pick(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel} {
    %r = tile.make_range 0, 2 : tensor<2xi32, #r>
    %xs = tile.splat %x : tensor<2x!tile.ptr<f32>, #r>
    %xp = tile.addptr %xs, %r : tensor<2x!tile.ptr<f32>, #r>, tensor<2xi32, #r>
    %v = tile.load %xp : (tensor<2x!tile.ptr<f32>, #r>) -> tensor<2xf32, #r>
    %c = tile.convert_layout %v : tensor<2xf32, #r> -> tensor<2xf32, #s>
    %rs = tile.make_range 0, 2 : tensor<2xi32, #s>
    %ys = tile.splat %y : tensor<2x!tile.ptr<f32>, #s>
    %yp = tile.addptr %ys, %rs : tensor<2x!tile.ptr<f32>, #s>, tensor<2xi32, #s>
    tile.store %yp, %c : tensor<2x!tile.ptr<f32>, #s>, tensor<2xf32, #s>
    return
  }
}
