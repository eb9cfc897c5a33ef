// -tile-allocate-shared: one scratch buffer sized for the largest user,
// rounded up to 16 bytes, recorded as the module attribute tile.shared.
// RUN: tile-opt %s -split-input-file -tile-allocate-shared | FileCheck %s

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>

// Nothing staged through shared memory.
// CHECK: module attributes {tile.shared = 0 : i32}
// CHECK-LABEL: func.func @none
func.func @none(%p: tensor<16x64x!tile.ptr<f32>, #b>) {
  %x = tile.load %p : (tensor<16x64x!tile.ptr<f32>, #b>) -> tensor<16x64xf32, #b>
  tile.store %p, %x : tensor<16x64x!tile.ptr<f32>, #b>, tensor<16x64xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>

// Along dim 1 each row lives in one warp: lanes suffice, no scratch.
// CHECK: module attributes {tile.shared = 0 : i32}
// CHECK-LABEL: func.func @reduce_within_warp
func.func @reduce_within_warp(%x: tensor<16x64xf32, #b>) -> tensor<16xf32, #tile.slice<dim = 1, parent = #b>> {
  %r = tile.reduce sum %x {axis = 1 : i32} : tensor<16x64xf32, #b> -> tensor<16xf32, #tile.slice<dim = 1, parent = #b>>
  return %r : tensor<16xf32, #tile.slice<dim = 1, parent = #b>>
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>

// Along dim 0 the 4 warps hold distinct rows: 64 outputs x 4 warps x 4 bytes.
// CHECK: module attributes {tile.shared = 1024 : i32}
// CHECK-LABEL: func.func @reduce_across_warps
func.func @reduce_across_warps(%x: tensor<16x64xf32, #b>) -> tensor<64xf32, #tile.slice<dim = 0, parent = #b>> {
  %r = tile.reduce max %x {axis = 0 : i32} : tensor<16x64xf32, #b> -> tensor<64xf32, #tile.slice<dim = 0, parent = #b>>
  return %r : tensor<64xf32, #tile.slice<dim = 0, parent = #b>>
}

// -----

// 1-D: 512 elements spread over 4 warps -> 1 output x 4 warps x 4 bytes.
// CHECK: module attributes {tile.shared = 16 : i32}
func.func @reduce_1d(%x: tensor<512xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>) -> f32 {
  %r = tile.reduce sum %x {axis = 0 : i32} : tensor<512xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>> -> f32
  return %r : f32
}

// -----

// 1-D, 2 distinct warps of i64 (the other 2 replicate): 1 x 2 x 8 = 16 bytes.
// CHECK: module attributes {tile.shared = 16 : i32}
func.func @reduce_1d_replicated(%x: tensor<256xi64, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>>) -> i64 {
  %r = tile.reduce min %x {axis = 0 : i32} : tensor<256xi64, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>> -> i64
  return %r : i64
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#c = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>

// convert_layout stages the whole source tensor: 16 x 64 x 2 bytes (f16).
// CHECK: module attributes {tile.shared = 2048 : i32}
func.func @convert(%x: tensor<16x64xf16, #b>) -> tensor<16x64xf16, #c> {
  %y = tile.convert_layout %x : tensor<16x64xf16, #b> -> tensor<16x64xf16, #c>
  return %y : tensor<16x64xf16, #c>
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
#c = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1]>

// Pointers take 8 bytes each: 16 x 1 x 8 = 128.
// CHECK: module attributes {tile.shared = 128 : i32}
func.func @convert_ptr(%x: tensor<16x1x!tile.ptr<f16>, #c>) -> tensor<16x1x!tile.ptr<f16>, #b> {
  %y = tile.convert_layout %x : tensor<16x1x!tile.ptr<f16>, #c> -> tensor<16x1x!tile.ptr<f16>, #b>
  return %y : tensor<16x1x!tile.ptr<f16>, #b>
}

// -----

#a = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]>

// dot stages a and b: 16x32 + 32x16 f16 = 2048 bytes; the largest user wins
// over the 64-output cross-warp reduction (64 x 4 x 4 = 1024).
// CHECK: module attributes {tile.shared = 2048 : i32}
func.func @dot(%a: tensor<16x32xf16, #a>, %b: tensor<32x16xf16, #b>, %c: tensor<16x16xf32, #b>, %x: tensor<16x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>) -> tensor<16x16xf32, #b> {
  %r = tile.reduce sum %x {axis = 0 : i32} : tensor<16x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>> -> tensor<64xf32, #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>>
  %d = tile.dot %a, %b, %c : tensor<16x32xf16, #a> * tensor<32x16xf16, #b> -> tensor<16x16xf32, #b>
  return %d : tensor<16x16xf32, #b>
}

// -----

#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>
#mma = #tile.mma<warpsPerCTA = [1, 4]>

// Buffers get their own regions above the scratch (a's staging, 16 x 40 x 2
// = 1280): 3 stages of 32 x 72 bf16 (13824 bytes), then one of 16 x 72
// (2304). A dot whose b is a view stages nothing for b: no b region.
// CHECK: module attributes {tile.shared = 17408 : i32}
// CHECK-LABEL: func.func @buffers
// CHECK: tile.local_alloc {offset = 1280 : i32} -> <3 x 32 x 64 x bf16>
// CHECK: tile.local_alloc %{{.*}} : tensor<16x64xbf16, #{{.*}}> {offset = 15104 : i32} -> <1 x 16 x 64 x bf16>
// CHECK-NOT: tile.reuse_staged_b
func.func @buffers(%q: tensor<16x64xbf16, #b>, %p: tensor<16x32xbf16, #b>, %s: i32) -> tensor<16x64xf32, #mma> {
  %keys = tile.local_alloc -> <3 x 32 x 64 x bf16>
  %qbuf = tile.local_alloc %q : tensor<16x64xbf16, #b> -> <1 x 16 x 64 x bf16>
  %k = tile.local_view %keys[%s] {column = 0 : i32} : <3 x 32 x 64 x bf16> -> tensor<32x64xbf16, #tile.shared<rowStride = 72>>
  %acc = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
  %o = tile.dot %p, %k, %acc : tensor<16x32xbf16, #b> * tensor<32x64xbf16, #tile.shared<rowStride = 72>> -> tensor<16x64xf32, #mma>
  %o2 = tile.dot %p, %k, %o : tensor<16x32xbf16, #b> * tensor<32x64xbf16, #tile.shared<rowStride = 72>> -> tensor<16x64xf32, #mma>
  return %o2 : tensor<16x64xf32, #mma>
}
