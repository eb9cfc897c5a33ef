// mma.sync dots against fp8 codes read in place ([N, K] b, the scores): a
// resident in even-words-first order is read with one ldmatrix.x4 per tile
// (its fragments land in the registers the instruction wants); a in plain
// rows is read with two 8-byte loads per tile, rows g and g + 8.
// RUN: tile-opt %s -split-input-file -tile-allocate-shared -convert-tile-to-llvm -canonicalize | FileCheck %s

// CHECK-LABEL: llvm.func @scores_even_words(
// q is written a word at a time (words move within 16-column blocks):
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: vector<2xi32>
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 2 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK: llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"
// CHECK: nvvm.mma.sync
// CHECK-NOT: vector<2xi32>
// CHECK: llvm.return
#k = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1]>
#m = #tile.mma<warpsPerCTA = [1, 2]>
module attributes {tile.num_warps = 2 : i32} {
  func.func @scores_even_words(%pq: !tile.ptr<bf16>, %po: !tile.ptr<f32>, %s: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %sq = tile.splat %pq : tensor<16x64x!tile.ptr<bf16>, #k>
    %q = tile.load %sq : (tensor<16x64x!tile.ptr<bf16>, #k>) -> tensor<16x64xbf16, #k>
    %qb = tile.local_alloc %q : tensor<16x64xbf16, #k> -> <1 x 16 x 64 x bf16, evenWordsFirst = true>
    %qv = tile.local_view %qb[%c0] {column = 0 : i32} : <1 x 16 x 64 x bf16, evenWordsFirst = true> -> tensor<16x64xbf16, #tile.shared<rowStride = 72, evenWordsFirst = true>>
    %codes = tile.local_alloc -> <2 x 32 x 64 x f8E4M3FN>
    %kv = tile.local_view %codes[%s] {column = 0 : i32} : <2 x 32 x 64 x f8E4M3FN> -> tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #m>
    %d = tile.dot %qv, %kv, %z {transB} : tensor<16x64xbf16, #tile.shared<rowStride = 72, evenWordsFirst = true>> * tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>> -> tensor<16x32xf32, #m>
    %so = tile.splat %po : tensor<16x32x!tile.ptr<f32>, #m>
    tile.store %so, %d : tensor<16x32x!tile.ptr<f32>, #m>, tensor<16x32xf32, #m>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @scores_plain_rows(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: nvvm.ldmatrix %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>, num = 2 : i32{{.*}}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK: nvvm.mma.sync
#k = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1]>
#m = #tile.mma<warpsPerCTA = [1, 2]>
module attributes {tile.num_warps = 2 : i32} {
  func.func @scores_plain_rows(%pq: !tile.ptr<bf16>, %po: !tile.ptr<f32>, %s: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %sq = tile.splat %pq : tensor<16x64x!tile.ptr<bf16>, #k>
    %q = tile.load %sq : (tensor<16x64x!tile.ptr<bf16>, #k>) -> tensor<16x64xbf16, #k>
    %qb = tile.local_alloc %q : tensor<16x64xbf16, #k> -> <1 x 16 x 64 x bf16>
    %qv = tile.local_view %qb[%c0] {column = 0 : i32} : <1 x 16 x 64 x bf16> -> tensor<16x64xbf16, #tile.shared<rowStride = 72>>
    %codes = tile.local_alloc -> <2 x 32 x 64 x f8E4M3FN>
    %kv = tile.local_view %codes[%s] {column = 0 : i32} : <2 x 32 x 64 x f8E4M3FN> -> tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #m>
    %d = tile.dot %qv, %kv, %z {transB} : tensor<16x64xbf16, #tile.shared<rowStride = 72>> * tensor<32x64xf8E4M3FN, #tile.shared<rowStride = 80>> -> tensor<16x32xf32, #m>
    %so = tile.splat %po : tensor<16x32x!tile.ptr<f32>, #m>
    tile.store %so, %d : tensor<16x32x!tile.ptr<f32>, #m>, tensor<16x32xf32, #m>
    return
  }
}
