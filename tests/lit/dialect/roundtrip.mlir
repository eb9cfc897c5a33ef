// RUN: tile-opt %s | tile-opt | FileCheck %s
#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>
// CHECK-LABEL: func.func @ops
func.func @ops(%p: !tile.ptr<f32>, %n: i32) {
  // CHECK: tile.program_id 0 : i32
  %pid = tile.program_id 0 : i32
  // CHECK: tile.make_range 0, 16 : tensor<16xi32>
  %r = tile.make_range 0, 16 : tensor<16xi32>
  // CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  // CHECK: tile.broadcast %{{.*}} : tensor<16x1xi32> -> tensor<16x64xi32>
  %b = tile.broadcast %e : tensor<16x1xi32> -> tensor<16x64xi32>
  %ps = tile.splat %p : tensor<16x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %b : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %ns = tile.splat %n : tensor<16x64xi32>
  %m = arith.cmpi slt, %b, %ns : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // CHECK: tile.load %{{.*}}, %{{.*}}, other %{{.*}} : (tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi1>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %x = tile.load %ptrs, %m, other %zero : (tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi1>, tensor<16x64xf32>) -> tensor<16x64xf32>
  // CHECK: tile.reduce sum %{{.*}} {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  %s = tile.reduce sum %x {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  // CHECK: tile.scan max %{{.*}} {axis = 0 : i32} : tensor<16x64xf32>
  %running = tile.scan max %x {axis = 0 : i32} : tensor<16x64xf32>
  // CHECK: tile.dot
  %acc = arith.constant dense<0.0> : tensor<16x16xf32>
  %xt = tile.load %ptrs : (tensor<16x64x!tile.ptr<f32>>) -> tensor<16x64xf32>
  %w = arith.constant dense<1.0> : tensor<64x16xf32>
  %d = tile.dot %xt, %w, %acc : tensor<16x64xf32> * tensor<64x16xf32> -> tensor<16x16xf32>
  // CHECK: tile.convert_layout %{{.*}} : tensor<16x64xf32> -> tensor<16x64xf32, #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1]>>
  %c = tile.convert_layout %x : tensor<16x64xf32> -> tensor<16x64xf32, #blocked>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {transB} : tensor<16x64xf32> * tensor<16x64xf32> -> tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 4]>>
  %accm = arith.constant dense<0.0> : tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 4]>>
  %dt = tile.dot %xt, %x, %accm {transB} : tensor<16x64xf32> * tensor<16x64xf32> -> tensor<16x16xf32, #tile.mma<warpsPerCTA = [1, 4]>>
  // CHECK: tile.store
  tile.store %ptrs, %x, %m : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>, tensor<16x64xi1>
  return
}

// CHECK-LABEL: func.func @shared_memory
func.func @shared_memory(%p: tensor<32x64x!tile.ptr<bf16>>, %m: tensor<32x64xi1>, %q: tensor<16x64xbf16>, %s: i32) {
  // CHECK: %[[B:.*]] = tile.local_alloc -> <3 x 32 x 64 x bf16>
  %b = tile.local_alloc -> <3 x 32 x 64 x bf16>
  // CHECK: tile.local_alloc %{{.*}} : tensor<16x64xbf16> -> <1 x 16 x 64 x bf16>
  %r = tile.local_alloc %q : tensor<16x64xbf16> -> <1 x 16 x 64 x bf16>
  // CHECK: tile.async_copy %{{.*}}, %[[B]][%{{.*}}], %{{.*}} : tensor<32x64x!tile.ptr<bf16>>, <3 x 32 x 64 x bf16>, tensor<32x64xi1>
  tile.async_copy %p, %b[%s], %m : tensor<32x64x!tile.ptr<bf16>>, <3 x 32 x 64 x bf16>, tensor<32x64xi1>
  // CHECK: tile.async_wait 2
  tile.async_wait 2
  // CHECK: tile.barrier
  tile.barrier
  // CHECK: tile.local_view %[[B]][%{{.*}}] {column = 32 : i32} : <3 x 32 x 64 x bf16> -> tensor<32x32xbf16, #tile.shared<rowStride = 72>>
  %v = tile.local_view %b[%s] {column = 32 : i32} : <3 x 32 x 64 x bf16> -> tensor<32x32xbf16, #tile.shared<rowStride = 72>>
  // CHECK: %[[W:.*]] = tile.local_alloc -> <2 x 32 x 128 x bf16, swizzle = 128>
  %w = tile.local_alloc -> <2 x 32 x 128 x bf16, swizzle = 128>
  // CHECK: tile.async_wait 1 async_proxy
  tile.async_wait 1 async_proxy
  // CHECK: tile.local_view %[[W]][%{{.*}}] {column = 64 : i32} : <2 x 32 x 128 x bf16, swizzle = 128> -> tensor<32x64xbf16, #tile.shared<rowStride = 2048, swizzle = 128>>
  %x = tile.local_view %w[%s] {column = 64 : i32} : <2 x 32 x 128 x bf16, swizzle = 128> -> tensor<32x64xbf16, #tile.shared<rowStride = 2048, swizzle = 128>>
  // CHECK: %[[E:.*]] = tile.local_alloc %{{.*}} : tensor<16x64xbf16> -> <1 x 16 x 64 x bf16, evenWordsFirst = true>
  %e = tile.local_alloc %q : tensor<16x64xbf16> -> <1 x 16 x 64 x bf16, evenWordsFirst = true>
  // CHECK: tile.local_view %[[E]][%{{.*}}] {column = 16 : i32} : <1 x 16 x 64 x bf16, evenWordsFirst = true> -> tensor<16x48xbf16, #tile.shared<rowStride = 72, evenWordsFirst = true>>
  %y = tile.local_view %e[%s] {column = 16 : i32} : <1 x 16 x 64 x bf16, evenWordsFirst = true> -> tensor<16x48xbf16, #tile.shared<rowStride = 72, evenWordsFirst = true>>
  return
}

// CHECK-LABEL: func.func @warpgroup_layout
// CHECK-SAME: tensor<64x256xf32, #tile.mma<warpsPerCTA = [4, 2], version = 3>>
// CHECK-SAME: tensor<64x256xf32, #tile.mma<warpsPerCTA = [4, 2]>>
func.func @warpgroup_layout(%a: tensor<64x256xf32, #tile.mma<warpsPerCTA = [4, 2], version = 3>>, %b: tensor<64x256xf32, #tile.mma<warpsPerCTA = [4, 2], version = 2>>) {
  return
}

// CHECK-LABEL: func.func @descriptors_and_tma
// CHECK-SAME: %[[D:.*]]: !tile.tensordesc<bf16>
func.func @descriptors_and_tma(%d: !tile.tensordesc<bf16>, %i: i32, %p: i1) {
  // CHECK: tile.desc_load %[[D]][%{{.*}}, %{{.*}}] : <bf16> -> tensor<64x64xbf16>
  %t = tile.desc_load %d[%i, %i] : <bf16> -> tensor<64x64xbf16>
  // CHECK: tile.desc_load %[[D]][%{{.*}}, %{{.*}}] row_end %{{.*}} : <bf16> -> tensor<64x64xbf16>
  %u = tile.desc_load %d[%i, %i] row_end %i : <bf16> -> tensor<64x64xbf16>
  // CHECK: tile.desc_fields %[[D]] : <bf16> -> <bf16>
  %base, %rows, %cols, %stride = tile.desc_fields %d : <bf16> -> <bf16>
  // CHECK: %[[B:.*]] = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
  %b = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
  // CHECK: %[[M:.*]] = tile.mbarrier_alloc -> <2>
  %m = tile.mbarrier_alloc -> <2>
  // CHECK: tile.tma_copy %[[D]][%{{.*}}, %{{.*}}], %[[B]][%{{.*}}], %[[M]], %{{.*}} : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
  tile.tma_copy %d[%i, %i], %b[%i], %m, %p : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
  // CHECK: tile.mbarrier_wait %[[M]][%{{.*}}], %{{.*}} : <2>
  tile.mbarrier_wait %m[%i], %i : <2>
  // CHECK: tile.zero_rows %[[B]][%{{.*}}] from %{{.*}} : <2 x 64 x 64 x bf16, swizzle = 128>
  tile.zero_rows %b[%i] from %i : <2 x 64 x 64 x bf16, swizzle = 128>
  // CHECK: %[[E:.*]] = tile.mbarrier_alloc -> <2, arrivals = 8>
  %e = tile.mbarrier_alloc -> <2, arrivals = 8>
  // CHECK: tile.mbarrier_arrive %[[E]][%{{.*}}] {perWarp} : <2, arrivals = 8>
  tile.mbarrier_arrive %e[%i] {perWarp} : <2, arrivals = 8>
  // CHECK: tile.mbarrier_arrive %[[M]][%{{.*}}] : <2>
  tile.mbarrier_arrive %m[%i] : <2>
  return
}

// A warp split: producer and consumer regions, no terminators.
// CHECK-LABEL: func.func @warp_split
// CHECK: tile.warp_specialize {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32} producer {
// CHECK: tile.mbarrier_wait
// CHECK: } consumer {
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: return
func.func @warp_split(%i: i32) attributes {tile.kernel} {
  %m = tile.mbarrier_alloc -> <2, arrivals = 4>
  tile.warp_specialize {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32}
  producer {
    tile.mbarrier_wait %m[%i], %i : <2, arrivals = 4>
  } consumer {
    tile.mbarrier_arrive %m[%i] {perWarp} : <2, arrivals = 4>
  }
  return
}

// fp8 codes in shared memory as a dot's b beside a bf16 a, into the
// interleaved accumulator (tile-pipeline-loops' fp8-in-place).
// CHECK-LABEL: func.func @dot_codes_in_place
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xbf16, #tile.mma<warpsPerCTA = [1, 2]>> * tensor<32x512xf8E4M3FN, #tile.shared<rowStride = 528>> -> tensor<16x512xf32, #tile.mma<warpsPerCTA = [1, 2], interleave = 2>>
func.func @dot_codes_in_place(%p: tensor<16x32xbf16, #tile.mma<warpsPerCTA = [1, 2]>>, %v: tensor<32x512xf8E4M3FN, #tile.shared<rowStride = 528>>, %acc: tensor<16x512xf32, #tile.mma<warpsPerCTA = [1, 2], interleave = 2>>) {
  %d = tile.dot %p, %v, %acc : tensor<16x32xbf16, #tile.mma<warpsPerCTA = [1, 2]>> * tensor<32x512xf8E4M3FN, #tile.shared<rowStride = 528>> -> tensor<16x512xf32, #tile.mma<warpsPerCTA = [1, 2], interleave = 2>>
  return
}
