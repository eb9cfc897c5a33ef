// RUN: tile-opt %s -tile-place-dot-waits -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s

// Two dots in a chain (the second accumulates on the first's pending
// result, as a score's rope and latent parts do): the first group is
// fenced after its zero fill; the second queues behind it on the same
// registers, of the same shape, which PTX orders without a fence, so it
// has none (a fence through its registers would wait for the first group).
// One wait, at the result's reader.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: llvm.func @chain
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.fence
// CHECK-COUNT-4: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.fence
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.fence
// CHECK: llvm.return
module attributes {tile.num_warps = 4 : i32} {
  func.func @chain(%out: tensor<64x64x!tile.ptr<f32>, #mma>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %buf = tile.local_alloc -> <1 x 64 x 64 x bf16, swizzle = 128>
    %x = tile.local_view %buf[%c0] {column = 0 : i32} : <1 x 64 x 64 x bf16, swizzle = 128> -> tensor<64x64xbf16, #smem>
    %s1 = tile.dot %x, %x, %zero {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
    %s2 = tile.dot %x, %x, %s1 {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
    tile.store %out, %s2 : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}
