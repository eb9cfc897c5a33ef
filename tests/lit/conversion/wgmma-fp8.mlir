// fp8 x fp8 dots on wgmma (sm_90a): m64nNk32 with e4m3 or e5m2 operands,
// both read K-major from swizzled 8-bit panels. A k step is 32 codes, the
// same 32 bytes of a panel row as a 16-bit step of 16; a 64-code row is
// one 64-byte panel (descriptor mode 2), a 256-code row two 128-byte ones
// (mode 1). An a in registers is staged into the scratch in 64-byte
// panels first. wgmma's fp8 forms do not transpose: a [K, N] b is refused.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-allocate-shared -convert-tile-to-llvm -canonicalize | FileCheck %s

// a [64, 256] and b^T [128, 256] in place: 8 k steps, 4 in each of the two
// 128-byte panels; SBO = 8 rows of 128 bytes, mode 1 (high word 0x40000040).
// CHECK-LABEL: llvm.func @e4m3_shared
// CHECK-DAG: llvm.mlir.constant(4611686293305294848 : i64)
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#sa = #tile.shared<rowStride = 8192, swizzle = 128>
#sb = #tile.shared<rowStride = 16384, swizzle = 128>
module attributes {tile.num_warps = 4 : i32} {
  func.func @e4m3_shared(%out: tensor<64x128x!tile.ptr<f32>, #mma>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
    %bufa = tile.local_alloc -> <1 x 64 x 256 x f8E4M3FN, swizzle = 128>
    %bufb = tile.local_alloc -> <1 x 128 x 256 x f8E4M3FN, swizzle = 128>
    %x = tile.local_view %bufa[%c0] {column = 0 : i32} : <1 x 64 x 256 x f8E4M3FN, swizzle = 128> -> tensor<64x256xf8E4M3FN, #sa>
    %y = tile.local_view %bufb[%c0] {column = 0 : i32} : <1 x 128 x 256 x f8E4M3FN, swizzle = 128> -> tensor<128x256xf8E4M3FN, #sb>
    %s = tile.dot %x, %y, %zero {transB} : tensor<64x256xf8E4M3FN, #sa> * tensor<128x256xf8E4M3FN, #sb> -> tensor<64x128xf32, #mma>
    tile.store %out, %s : tensor<64x128x!tile.ptr<f32>, #mma>, tensor<64x128xf32, #mma>
    return
  }
}

// -----

// a [64, 64] e5m2 in registers: staged as 16-code vectors into the
// scratch's 64-byte panels (mode 2, high word 0x80000020), fenced for the
// async proxy, then 2 k steps against b^T [64, 64] in place.
// CHECK-LABEL: llvm.func @e5m2_staged_a
// CHECK-DAG: llvm.mlir.constant(-9223371899415822336 : i64)
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2
// CHECK-NOT: wgmma.mma_async
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#a = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>
#sb = #tile.shared<rowStride = 4096, swizzle = 64>
module attributes {tile.num_warps = 4 : i32} {
  func.func @e5m2_staged_a(%pa: !tile.ptr<f8E5M2>, %out: tensor<64x64x!tile.ptr<f32>, #mma>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %sa = tile.splat %pa : tensor<64x64x!tile.ptr<f8E5M2>, #a>
    %x = tile.load %sa : (tensor<64x64x!tile.ptr<f8E5M2>, #a>) -> tensor<64x64xf8E5M2, #a>
    %bufb = tile.local_alloc -> <1 x 64 x 64 x f8E5M2, swizzle = 64>
    %y = tile.local_view %bufb[%c0] {column = 0 : i32} : <1 x 64 x 64 x f8E5M2, swizzle = 64> -> tensor<64x64xf8E5M2, #sb>
    %s = tile.dot %x, %y, %zero {transB} : tensor<64x64xf8E5M2, #a> * tensor<64x64xf8E5M2, #sb> -> tensor<64x64xf32, #mma>
    tile.store %out, %s : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}

// -----

// An fp8 [K, N] b: wgmma would have to transpose it.
#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#sa = #tile.shared<rowStride = 4096, swizzle = 64>
module attributes {tile.num_warps = 4 : i32} {
  func.func @e4m3_kn_b(%out: tensor<64x64x!tile.ptr<f32>, #mma>) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %buf = tile.local_alloc -> <1 x 64 x 64 x f8E4M3FN, swizzle = 64>
    %x = tile.local_view %buf[%c0] {column = 0 : i32} : <1 x 64 x 64 x f8E4M3FN, swizzle = 64> -> tensor<64x64xf8E4M3FN, #sa>
    // expected-error @+2 {{does not fit the wgmma layout}}
    // expected-error @+1 {{failed to legalize}}
    %s = tile.dot %x, %x, %zero : tensor<64x64xf8E4M3FN, #sa> * tensor<64x64xf8E4M3FN, #sa> -> tensor<64x64xf32, #mma>
    tile.store %out, %s : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}
