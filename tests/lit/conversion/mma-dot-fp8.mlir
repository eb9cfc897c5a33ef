// fp8 x fp8 dots on the tensor cores (sm_89+): mma.sync.m16n8k32 with e4m3
// (or e5m2) fragments, called as the intrinsic (the NVVM dialect's mma op
// takes no fp8 types). An ldmatrix row is 16 codes and a k step 32 deep:
// the 16-bit addressing in bytes, with no widening.
// RUN: tile-opt %s -split-input-file -tile-allocate-shared -convert-tile-to-llvm -canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-allocate-shared | FileCheck %s --check-prefix=ALLOC

// a [16, 64] e4m3 in registers, b^T [16, 64] e4m3 (transB), acc [16, 16] on
// 2 warps: each warp owns one 8-column tile, 2 k steps of 32, each its own
// chain, added at the end. Rows padded by 16 bytes: a 16 x 80 = 1280 bytes,
// then b's region, 2560 in all.
// ALLOC: module attributes {tile.dot_b_offset = 1280 : i32, tile.num_warps = 2 : i32, tile.shared = 2560 : i32}
// CHECK-LABEL: llvm.func @fp8_trans_b(
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 2 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK-NOT: e4m3x2.to.f16x2
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"(%{{.*}}) : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.mma
// CHECK-COUNT-4: llvm.fadd
// CHECK: llvm.return
#a = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1]>
#mma = #tile.mma<warpsPerCTA = [1, 2]>
module attributes {tile.num_warps = 2 : i32} {
  func.func @fp8_trans_b(%pa: !tile.ptr<f8E4M3FN>, %pb: !tile.ptr<f8E4M3FN>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
    %sa = tile.splat %pa : tensor<16x64x!tile.ptr<f8E4M3FN>, #a>
    %a = tile.load %sa : (tensor<16x64x!tile.ptr<f8E4M3FN>, #a>) -> tensor<16x64xf8E4M3FN, #a>
    %sb = tile.splat %pb : tensor<16x64x!tile.ptr<f8E4M3FN>, #a>
    %b = tile.load %sb : (tensor<16x64x!tile.ptr<f8E4M3FN>, #a>) -> tensor<16x64xf8E4M3FN, #a>
    %acc = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
    %d = tile.dot %a, %b, %acc {transB} : tensor<16x64xf8E4M3FN, #a> * tensor<16x64xf8E4M3FN, #a> -> tensor<16x16xf32, #mma>
    %sc = tile.splat %pc : tensor<16x16x!tile.ptr<f32>, #mma>
    tile.store %sc, %d : tensor<16x16x!tile.ptr<f32>, #mma>, tensor<16x16xf32, #mma>
    return
  }
}

// -----

// Both operands landed in shared memory (a resident q, b a pipelined stage
// of e5m2 codes): read in place, no staging (the one barrier is q's
// store). a's rows 64 + 16 = 80 bytes, b's 64 + 16. 1 warp, 4 n tiles, 2 k
// steps of 32: per step a's fragments (one x4) and two x4 loads of b, each
// two n tiles' b0 and b1, then 4 mma.sync.
// CHECK-LABEL: llvm.func @fp8_views(
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-3: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}}
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e5m2.f32"
// CHECK-COUNT-3: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}}
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e5m2.f32"
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#k = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1]>
#m = #tile.mma<warpsPerCTA = [1, 1]>
module attributes {tile.num_warps = 1 : i32} {
  func.func @fp8_views(%pq: !tile.ptr<f8E5M2>, %po: !tile.ptr<f32>, %s: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %sq = tile.splat %pq : tensor<16x64x!tile.ptr<f8E5M2>, #k>
    %q = tile.load %sq : (tensor<16x64x!tile.ptr<f8E5M2>, #k>) -> tensor<16x64xf8E5M2, #k>
    %qb = tile.local_alloc %q : tensor<16x64xf8E5M2, #k> -> <1 x 16 x 64 x f8E5M2>
    %qv = tile.local_view %qb[%c0] {column = 0 : i32} : <1 x 16 x 64 x f8E5M2> -> tensor<16x64xf8E5M2, #tile.shared<rowStride = 80>>
    %codes = tile.local_alloc -> <2 x 32 x 64 x f8E5M2>
    %kv = tile.local_view %codes[%s] {column = 0 : i32} : <2 x 32 x 64 x f8E5M2> -> tensor<32x64xf8E5M2, #tile.shared<rowStride = 80>>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #m>
    %d = tile.dot %qv, %kv, %z {transB} : tensor<16x64xf8E5M2, #tile.shared<rowStride = 80>> * tensor<32x64xf8E5M2, #tile.shared<rowStride = 80>> -> tensor<16x32xf32, #m>
    %so = tile.splat %po : tensor<16x32x!tile.ptr<f32>, #m>
    tile.store %so, %d : tensor<16x32x!tile.ptr<f32>, #m>, tensor<16x32xf32, #m>
    return
  }
}

// -----

// A [K, N] b of e4m3 codes (p . v): the interleaved accumulator. Per
// 16-column block and 32-deep k step one transposed ldmatrix.x4 (tokens
// 4i, 4i + 1 and 4i + 2, 4i + 3 of each half) and four byte permutes give
// b0 and b1 of the block's even and odd n tiles, each n tile's mma.sync
// right after its fragments; a (p, in registers) is staged as bytes and
// read with ldmatrix.x4. 2 warps of two blocks each: 2 loads, 8 permutes
// and 4 mma.sync per warp.
// CHECK-LABEL: llvm.func @fp8_interleaved(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}}
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32{{.*}}}
// CHECK-COUNT-2: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6] : vector<4xi8>
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// CHECK-COUNT-2: llvm.shufflevector %{{.*}}, %{{.*}} [1, 3, 5, 7] : vector<4xi8>
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32{{.*}}}
// CHECK-COUNT-2: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6] : vector<4xi8>
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// CHECK-COUNT-2: llvm.shufflevector %{{.*}}, %{{.*}} [1, 3, 5, 7] : vector<4xi8>
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.mma
// CHECK: llvm.return
#p = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 2]>
#i = #tile.mma<warpsPerCTA = [1, 2], interleave = 2>
module attributes {tile.num_warps = 2 : i32} {
  func.func @fp8_interleaved(%pp: !tile.ptr<f8E4M3FN>, %po: !tile.ptr<f32>, %s: i32) attributes {tile.kernel} {
    %sp = tile.splat %pp : tensor<16x32x!tile.ptr<f8E4M3FN>, #p>
    %p = tile.load %sp : (tensor<16x32x!tile.ptr<f8E4M3FN>, #p>) -> tensor<16x32xf8E4M3FN, #p>
    %codes = tile.local_alloc -> <2 x 32 x 64 x f8E4M3FN>
    %v = tile.local_view %codes[%s] {column = 0 : i32} : <2 x 32 x 64 x f8E4M3FN> -> tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>>
    %z = arith.constant dense<0.0> : tensor<16x64xf32, #i>
    %d = tile.dot %p, %v, %z : tensor<16x32xf8E4M3FN, #p> * tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>> -> tensor<16x64xf32, #i>
    %so = tile.splat %po : tensor<16x64x!tile.ptr<f32>, #i>
    tile.store %so, %d : tensor<16x64x!tile.ptr<f32>, #i>, tensor<16x64xf32, #i>
    return
  }
}

// -----

// Two dots of one b, the second accumulating on the first (q's hi and lo
// terms against the codes), both a's in shared memory: lowered as one, each
// k step reading b's fragments once for both (4 ldmatrix, not 6), then the
// mma.sync of the first a and of the second.
// CHECK-LABEL: llvm.func @fp8_shared_b(
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}}
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}}
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.return
#k = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1]>
#m = #tile.mma<warpsPerCTA = [1, 1]>
module attributes {tile.num_warps = 1 : i32} {
  func.func @fp8_shared_b(%pq: !tile.ptr<f8E4M3FN>, %po: !tile.ptr<f32>, %s: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %sq = tile.splat %pq : tensor<16x64x!tile.ptr<f8E4M3FN>, #k>
    %q = tile.load %sq : (tensor<16x64x!tile.ptr<f8E4M3FN>, #k>) -> tensor<16x64xf8E4M3FN, #k>
    %hb = tile.local_alloc %q : tensor<16x64xf8E4M3FN, #k> -> <1 x 16 x 64 x f8E4M3FN>
    %hi = tile.local_view %hb[%c0] {column = 0 : i32} : <1 x 16 x 64 x f8E4M3FN> -> tensor<16x64xf8E4M3FN, #tile.shared<rowStride = 80>>
    %lb = tile.local_alloc %q : tensor<16x64xf8E4M3FN, #k> -> <1 x 16 x 64 x f8E4M3FN>
    %lo = tile.local_view %lb[%c0] {column = 0 : i32} : <1 x 16 x 64 x f8E4M3FN> -> tensor<16x64xf8E4M3FN, #tile.shared<rowStride = 80>>
    %codes = tile.local_alloc -> <2 x 32 x 64 x f8E4M3FN>
    %kv = tile.local_view %codes[%s] {column = 0 : i32} : <2 x 32 x 64 x f8E4M3FN> -> tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #m>
    %d1 = tile.dot %hi, %kv, %z {transB} : tensor<16x64xf8E4M3FN, #tile.shared<rowStride = 80>> * tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>> -> tensor<16x32xf32, #m>
    %d2 = tile.dot %lo, %kv, %d1 {transB} : tensor<16x64xf8E4M3FN, #tile.shared<rowStride = 80>> * tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>> -> tensor<16x32xf32, #m>
    %so = tile.splat %po : tensor<16x32x!tile.ptr<f32>, #m>
    tile.store %so, %d2 : tensor<16x32x!tile.ptr<f32>, #m>, tensor<16x32xf32, #m>
    return
  }
}
