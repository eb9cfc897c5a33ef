// dot on the tensor cores: operands staged row-major in shared memory with
// rows padded by 8 elements (16 bytes), fragments loaded with ldmatrix, one
// mma.sync.m16n8k16 per 16x8 accumulator tile and 16-deep k step. The
// accumulator's registers are the instruction's D fragments in place.
// RUN: tile-opt %s -split-input-file -tile-allocate-shared -convert-tile-to-llvm -canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-allocate-shared | FileCheck %s --check-prefix=ALLOC

// a [16, 32] bf16, b^T [16, 32] bf16 (transB), acc [16, 16] f32 on 2 warps:
// each warp owns one 8-column tile, 2 k steps -> 2 mma.sync per warp, into
// two accumulator sets (independent chains) that are added at the end.
// a: 16 x (32 + 8) x 2 = 1280 bytes of common scratch, then b's own region
// (the same size): 2560 in all.
// CHECK: module attributes {tile.dot_b_offset = 1280 : i32, tile.num_warps = 2 : i32, tile.shared = 2560 : i32}
// CHECK-LABEL: llvm.func @dot_trans_b(
// CHECK: nvvm.barrier0
// Rows of 32 bf16 are stored as 16-byte vectors at a padded stride.
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// A fragment (4 matrices), then b^T's rows are already the "col" operand: no
// .trans, 2 matrices for one n tile.
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 2 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-COUNT-4: llvm.fadd
// CHECK: llvm.return
#a = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1]>
#mma = #tile.mma<warpsPerCTA = [1, 2]>
module attributes {tile.num_warps = 2 : i32} {
  func.func @dot_trans_b(%pa: !tile.ptr<bf16>, %pb: !tile.ptr<bf16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
    %sa = tile.splat %pa : tensor<16x32x!tile.ptr<bf16>, #a>
    %a = tile.load %sa : (tensor<16x32x!tile.ptr<bf16>, #a>) -> tensor<16x32xbf16, #a>
    %sb = tile.splat %pb : tensor<16x32x!tile.ptr<bf16>, #a>
    %b = tile.load %sb : (tensor<16x32x!tile.ptr<bf16>, #a>) -> tensor<16x32xbf16, #a>
    %acc = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
    %d = tile.dot %a, %b, %acc {transB} : tensor<16x32xbf16, #a> * tensor<16x32xbf16, #a> -> tensor<16x16xf32, #mma>
    %sc = tile.splat %pc : tensor<16x16x!tile.ptr<f32>, #mma>
    tile.store %sc, %d : tensor<16x16x!tile.ptr<f32>, #mma>, tensor<16x16xf32, #mma>
    return
  }
}

// -----

// b [K, N] = [16, 32] (no transB) on 1 warp: 4 n tiles per warp, b fragments
// by ldmatrix .trans, two n tiles per x4 load; 4 mma.sync.
// a: 16 x 24 x 2 = 768 bytes, b: 16 x 40 x 2 = 1280, 2048 in all.
// CHECK: module attributes {tile.dot_b_offset = 768 : i32, tile.num_warps = 1 : i32, tile.shared = 2048 : i32}
// CHECK-LABEL: llvm.func @dot_b_rows(
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: llvm.return
#b1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1]>
#mma1 = #tile.mma<warpsPerCTA = [1, 1]>
module attributes {tile.num_warps = 1 : i32} {
  func.func @dot_b_rows(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
    %sa = tile.splat %pa : tensor<16x16x!tile.ptr<f16>, #b1>
    %a = tile.load %sa : (tensor<16x16x!tile.ptr<f16>, #b1>) -> tensor<16x16xf16, #b1>
    %sb = tile.splat %pb : tensor<16x32x!tile.ptr<f16>, #b1>
    %b = tile.load %sb : (tensor<16x32x!tile.ptr<f16>, #b1>) -> tensor<16x32xf16, #b1>
    %acc = arith.constant dense<0.0> : tensor<16x32xf32, #mma1>
    %d = tile.dot %a, %b, %acc : tensor<16x16xf16, #b1> * tensor<16x32xf16, #b1> -> tensor<16x32xf32, #mma1>
    %sc = tile.splat %pc : tensor<16x32x!tile.ptr<f32>, #mma1>
    tile.store %sc, %d : tensor<16x32x!tile.ptr<f32>, #mma1>, tensor<16x32xf32, #mma1>
    return
  }
}

// -----

// One instruction tile per warp and K = 256 (16 k steps): 4 accumulator sets
// take turns (4 independent mma.sync chains), rolled into a loop of 4
// iterations that each do 4 k steps; the sets are added at the end.
// CHECK-LABEL: llvm.func @dot_long_k(
// CHECK: llvm.br ^[[HEADER:bb[0-9]+]](%{{.*}} : i32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: ^[[HEADER]](%[[K:.*]]: i32,
// CHECK: llvm.icmp "slt" %[[K]]
// CHECK-COUNT-4: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: llvm.add %[[K]], %{{.*}} : i32
// CHECK: llvm.br ^[[HEADER]]
// CHECK-COUNT-12: llvm.fadd
// CHECK: llvm.return
#l = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1]>
#mmal = #tile.mma<warpsPerCTA = [1, 1]>
module attributes {tile.num_warps = 1 : i32} {
  func.func @dot_long_k(%pa: !tile.ptr<bf16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
    %sa = tile.splat %pa : tensor<16x256x!tile.ptr<bf16>, #l>
    %a = tile.load %sa : (tensor<16x256x!tile.ptr<bf16>, #l>) -> tensor<16x256xbf16, #l>
    %sb = tile.splat %pa : tensor<8x256x!tile.ptr<bf16>, #l>
    %b = tile.load %sb : (tensor<8x256x!tile.ptr<bf16>, #l>) -> tensor<8x256xbf16, #l>
    %acc = arith.constant dense<0.0> : tensor<16x8xf32, #mmal>
    %d = tile.dot %a, %b, %acc {transB} : tensor<16x256xbf16, #l> * tensor<8x256xbf16, #l> -> tensor<16x8xf32, #mmal>
    %sc = tile.splat %pc : tensor<16x8x!tile.ptr<f32>, #mmal>
    tile.store %sc, %d : tensor<16x8x!tile.ptr<f32>, #mmal>, tensor<16x8xf32, #mmal>
    return
  }
}

// -----

// Attention's pattern: scores = q x k^T, then p x k with the same k rows. The
// b region sits above the common scratch (tile.dot_b_offset); the second dot
// is marked to reuse the rows the first staged, so only one copy of k is
// written: the reduction between the dots uses the common scratch only.
// a: 16 x 40 x 2 = 1280 bytes of common scratch, then k: 32 x 40 x 2 = 2560.
// ALLOC: module attributes {tile.dot_b_offset = 1280 : i32, tile.num_warps = 1 : i32, tile.shared = 3840 : i32}
// ALLOC: tile.dot {{.*}} {transB}
// ALLOC-NOT: reuse_staged_b
// ALLOC: tile.reduce
// ALLOC: tile.dot {{.*}} {tile.reuse_staged_b}
// CHECK-LABEL: llvm.func @shared_keys(
// CHECK: nvvm.barrier0
// q (16 x 32) and k (32 x 32), one 16-byte store each per row run:
// CHECK-COUNT-6: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.mma.sync
// The second dot stages p only (16 x 32 in the accumulator layout: 8 pairs
// per thread), not k.
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.mma.sync
#k = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1]>
#mk = #tile.mma<warpsPerCTA = [1, 1]>
module attributes {tile.num_warps = 1 : i32} {
  func.func @shared_keys(%pq: !tile.ptr<bf16>, %pk: !tile.ptr<bf16>, %po: !tile.ptr<f32>) attributes {tile.kernel} {
    %sq = tile.splat %pq : tensor<16x32x!tile.ptr<bf16>, #k>
    %q = tile.load %sq : (tensor<16x32x!tile.ptr<bf16>, #k>) -> tensor<16x32xbf16, #k>
    %sk = tile.splat %pk : tensor<32x32x!tile.ptr<bf16>, #k>
    %kk = tile.load %sk : (tensor<32x32x!tile.ptr<bf16>, #k>) -> tensor<32x32xbf16, #k>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #mk>
    %s = tile.dot %q, %kk, %z {transB} : tensor<16x32xbf16, #k> * tensor<32x32xbf16, #k> -> tensor<16x32xf32, #mk>
    %m = tile.reduce max %s {axis = 1 : i32} : tensor<16x32xf32, #mk> -> tensor<16xf32, #tile.slice<dim = 1, parent = #mk>>
    %p = arith.truncf %s : tensor<16x32xf32, #mk> to tensor<16x32xbf16, #mk>
    %o = tile.dot %p, %kk, %z : tensor<16x32xbf16, #mk> * tensor<32x32xbf16, #k> -> tensor<16x32xf32, #mk>
    %so = tile.splat %po : tensor<16x32x!tile.ptr<f32>, #mk>
    tile.store %so, %o : tensor<16x32x!tile.ptr<f32>, #mk>, tensor<16x32xf32, #mk>
    return
  }
}
