// Verifiers of the layout attributes, checked when the attribute is parsed.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{blocked layout needs sizePerThread, threadsPerWarp and warpsPerCTA of one non-zero rank}}
func.func @rank_mismatch(%a: tensor<16xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4, 1]>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout extents must be powers of two}}
func.func @size_not_pow2(%a: tensor<16xf32, #tile.blocked<sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4]>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout extents must be powers of two}}
func.func @warps_not_pow2(%a: tensor<16xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [3]>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout extents must be powers of two}}
func.func @zero_extent(%a: tensor<16xf32, #tile.blocked<sizePerThread = [0], threadsPerWarp = [32], warpsPerCTA = [4]>>) {
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 64}}
func.func @too_many_lanes(%a: tensor<16x16xf32, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1]>>) {
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 16}}
func.func @too_few_lanes(%a: tensor<16xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4]>>) {
  return
}

// -----

// expected-error @+1 {{slice dim 1 out of range for a parent of rank 1}}
func.func @slice_dim(%a: tensor<16xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>>>) {
  return
}

// -----

// The parent of a slice may itself be a slice (rank 1 here).
// expected-error @+1 {{slice dim 1 out of range for a parent of rank 1}}
func.func @slice_of_slice(%a: tensor<16xf32, #tile.slice<dim = 1, parent = #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>>>>) {
  return
}

// -----

// expected-error @+1 {{mma layout is 2-D: warpsPerCTA needs 2 entries}}
func.func @mma_rank(%a: tensor<16xf32, #tile.mma<warpsPerCTA = [4]>>) {
  return
}

// -----

// expected-error @+1 {{mma layout extents must be powers of two}}
func.func @mma_pow2(%a: tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 3]>>) {
  return
}

// -----

// expected-error @+1 {{a version 3 mma layout has whole warpgroups (a multiple of 4 warps) along M}}
func.func @wgmma_partial_warpgroup(%a: tensor<32x64xf32, #tile.mma<warpsPerCTA = [2, 2], version = 3>>) {
  return
}

// -----

// expected-error @+1 {{mma layout version must be 2 (mma.sync) or 3 (wgmma)}}
func.func @mma_version(%a: tensor<32x64xf32, #tile.mma<warpsPerCTA = [2, 2], version = 1>>) {
  return
}

// -----

// expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes}}
func.func @smem_swizzle_width(%b: !tile.smem<2 x 32 x 64 x bf16, swizzle = 48>) {
  return
}

// -----

// expected-error @+1 {{a 128-byte swizzle needs rows a multiple of 8 and rows of a multiple of 128 bytes}}
func.func @smem_swizzle_rows(%b: !tile.smem<2 x 32 x 32 x bf16, swizzle = 128>) {
  return
}

// -----

// expected-error @+1 {{swizzled buffers hold 8- or 16-bit elements}}
func.func @smem_swizzle_f32(%b: !tile.smem<2 x 32 x 64 x f32, swizzle = 128>) {
  return
}

// -----

// expected-error @+1 {{evenWordsFirst orders the 16-column blocks of unswizzled 16-bit rows}}
func.func @smem_even_words_swizzled(%b: !tile.smem<1 x 16 x 64 x bf16, swizzle = 128, evenWordsFirst = true>) {
  return
}

// -----

// expected-error @+1 {{evenWordsFirst orders the 16-column blocks of unswizzled 16-bit rows}}
func.func @smem_even_words_codes(%b: !tile.smem<1 x 16 x 64 x f8E4M3FN, evenWordsFirst = true>) {
  return
}

// -----

// expected-error @+1 {{evenWordsFirst orders the 16-column blocks of unswizzled 16-bit rows}}
func.func @smem_even_words_block(%b: !tile.smem<1 x 16 x 40 x bf16, evenWordsFirst = true>) {
  return
}

// -----

// expected-error @+1 {{mma layout interleave must be 1, or 2 on version 2}}
func.func @interleaved_wgmma(%a: tensor<64x64xf32, #tile.mma<warpsPerCTA = [4, 1], version = 3, interleave = 2>>) {
  return
}
