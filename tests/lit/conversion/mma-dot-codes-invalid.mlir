// An even-words-first tile holds the k order of dots against fp8 codes: any
// other mma.sync dot that reads it is refused, not lowered wrongly.
// RUN: tile-opt %s -tile-allocate-shared -convert-tile-to-llvm -verify-diagnostics

#m = #tile.mma<warpsPerCTA = [1, 2]>
module attributes {tile.num_warps = 2 : i32} {
  func.func @even_words_against_bf16(%q: tensor<16x64xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1]>>, %s: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %qb = tile.local_alloc %q : tensor<16x64xbf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1]>> -> <1 x 16 x 64 x bf16, evenWordsFirst = true>
    %qv = tile.local_view %qb[%c0] {column = 0 : i32} : <1 x 16 x 64 x bf16, evenWordsFirst = true> -> tensor<16x64xbf16, #tile.shared<rowStride = 72, evenWordsFirst = true>>
    %keys = tile.local_alloc -> <2 x 32 x 64 x bf16>
    %kv = tile.local_view %keys[%s] {column = 0 : i32} : <2 x 32 x 64 x bf16> -> tensor<32x64xbf16, #tile.shared<rowStride = 72>>
    %z = arith.constant dense<0.0> : tensor<16x32xf32, #m>
    // expected-error @+2 {{failed to legalize operation 'tile.dot'}}
    // expected-error @+1 {{'tile.dot' op reads an even-words-first tile only as the a of a dot against fp8 codes of an [N, K] b}}
    %d = tile.dot %qv, %kv, %z {transB} : tensor<16x64xbf16, #tile.shared<rowStride = 72, evenWordsFirst = true>> * tensor<32x64xbf16, #tile.shared<rowStride = 72>> -> tensor<16x32xf32, #m>
    return
  }
}
