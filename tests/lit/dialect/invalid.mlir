// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @make_range_not_pow2() {
  // expected-error @+1 {{'tile.make_range' op range [0, 12) must have a positive power-of-two length}}
  %r = tile.make_range 0, 12 : tensor<12xi32>
  return
}

// -----

func.func @make_range_empty() {
  // expected-error @+1 {{range [8, 8) must have a positive power-of-two length}}
  %r = tile.make_range 8, 8 : tensor<1xi32>
  return
}

// -----

func.func @make_range_wrong_result() {
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tensor of 16 elements}}
  %r = tile.make_range 16, 32 : tensor<32xi32>
  return
}

// -----

func.func @make_range_2d() {
  // expected-error @+1 {{result must be a 1-D tensor of 16 elements}}
  %r = tile.make_range 0, 16 : tensor<4x4xi32>
  return
}

// -----

func.func @program_id_axis(%a: i32) {
  // expected-error @+1 {{'tile.program_id' op attribute 'axis' failed to satisfy constraint}}
  %p = tile.program_id 3 : i32
  return
}

// -----

func.func @splat_type_mismatch(%a: i32) {
  // expected-error @+1 {{'tile.splat' op failed to verify that result element type matches the scalar}}
  %s = "tile.splat"(%a) : (i32) -> tensor<16xf32>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<16xi32>) {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast rank 1 to rank 2}}
  %b = tile.broadcast %a : tensor<16xi32> -> tensor<16x16xi32>
  return
}

// -----

func.func @broadcast_non_unit(%a: tensor<2x16xi32>) {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast [2, 16] to [8, 16]}}
  %b = tile.broadcast %a : tensor<2x16xi32> -> tensor<8x16xi32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<1x16xi32>) {
  // expected-error @+1 {{'tile.broadcast' op requires the same element type for all operands and results}}
  %b = tile.broadcast %a : tensor<1x16xi32> -> tensor<8x16xf32>
  return
}

// -----

func.func @expand_dims_axis(%a: tensor<16xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 out of range for rank 1}}
  %e = tile.expand_dims %a {axis = 2 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  return
}

// -----

func.func @expand_dims_shape(%a: tensor<16xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op expected result shape [1, 16]}}
  %e = tile.expand_dims %a {axis = 0 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<16x!tile.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error @+1 {{'tile.addptr' op pointer and offset must have the same shape}}
  %q = tile.addptr %p, %o : tensor<16x!tile.ptr<f32>>, tensor<32xi32>
  return
}

// -----

func.func @addptr_scalar_ptr_tensor_offset(%p: !tile.ptr<f32>, %o: tensor<16xi32>) {
  // expected-error @+1 {{'tile.addptr' op pointer and offset must have the same shape}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, tensor<16xi32>
  return
}

// -----

func.func @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return
}

// -----

func.func @load_element_type(%p: tensor<16x!tile.ptr<f16>>) {
  // expected-error @+1 {{'tile.load' op value element type 'f32' does not match the pointee type 'f16'}}
  %v = tile.load %p : (tensor<16x!tile.ptr<f16>>) -> tensor<16xf32>
  return
}

// -----

func.func @load_shape(%p: tensor<16x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op value shape [32] does not match pointer shape [16]}}
  %v = tile.load %p : (tensor<16x!tile.ptr<f32>>) -> tensor<32xf32>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<32xi1>) {
  // expected-error @+1 {{'tile.load' op mask shape must match the pointer shape}}
  %v = tile.load %p, %m : (tensor<16x!tile.ptr<f32>>, tensor<32xi1>) -> tensor<16xf32>
  return
}

// -----

func.func @load_other_without_mask(%p: tensor<16x!tile.ptr<f32>>, %o: tensor<16xf32>) {
  // expected-error @+1 {{'tile.load' op 'other' needs a mask}}
  %v = "tile.load"(%p, %o) {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @load_other_type(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<16xi1>, %o: tensor<16xf16>) {
  // expected-error @+1 {{'tile.load' op 'other' must have the result type}}
  %v = tile.load %p, %m, other %o : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>, tensor<16xf16>) -> tensor<16xf32>
  return
}

// -----

func.func @store_element_type(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<16xf16>) {
  // expected-error @+1 {{'tile.store' op value element type 'f16' does not match the pointee type 'f32'}}
  tile.store %p, %v : tensor<16x!tile.ptr<f32>>, tensor<16xf16>
  return
}

// -----

func.func @store_shape(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'tile.store' op value shape [8] does not match pointer shape [16]}}
  tile.store %p, %v : tensor<16x!tile.ptr<f32>>, tensor<8xf32>
  return
}

// -----

func.func @store_scalar_to_tensor(%p: tensor<16x!tile.ptr<f32>>, %v: f32) {
  // expected-error @+1 {{'tile.store' op value shape [] does not match pointer shape [16]}}
  tile.store %p, %v : tensor<16x!tile.ptr<f32>>, f32
  return
}

// -----

func.func @store_mask_shape(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<16xf32>, %m: i1) {
  // expected-error @+1 {{'tile.store' op mask shape must match the pointer shape}}
  tile.store %p, %v, %m : tensor<16x!tile.ptr<f32>>, tensor<16xf32>, i1
  return
}

// -----

func.func @dot_inner(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op inner dimensions differ: [16, 32] x [16, 16]}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_rank(%a: tensor<16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be 2-D}}
  %d = tile.dot %a, %b, %c : tensor<16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_mixed(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op a and b must have one element type}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator shape [16, 16] does not match the product}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_f16(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'tile.dot' op operand #2 must be ranked tensor of 32-bit float values}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @reduce_axis(%a: tensor<16x32xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 out of range for rank 2}}
  %r = tile.reduce sum %a {axis = 2 : i32} : tensor<16x32xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_shape(%a: tensor<16x32xf32>) {
  // expected-error @+1 {{'tile.reduce' op expected result shape [32]}}
  %r = tile.reduce sum %a {axis = 0 : i32} : tensor<16x32xf32> -> tensor<16xf32>
  return
}

// -----

func.func @scan_axis(%a: tensor<16x32xi32>) {
  // expected-error @+1 {{'tile.scan' op axis -1 out of range for rank 2}}
  %r = tile.scan sum %a {axis = -1 : i32} : tensor<16x32xi32>
  return
}

// -----

func.func @scan_pointers(%a: tensor<16x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.scan' op needs numbers, got '!tile.ptr<f32>'}}
  %r = tile.scan sum %a {axis = 0 : i32} : tensor<16x!tile.ptr<f32>>
  return
}

// -----

func.func @reduce_1d_gives_scalar(%a: tensor<16xf32>) {
  // expected-error @+1 {{'tile.reduce' op expected result shape []}}
  %r = tile.reduce sum %a {axis = 0 : i32} : tensor<16xf32> -> tensor<1xf32>
  return
}

// -----

func.func @reduce_element_type(%a: tensor<16xf32>) {
  // expected-error @+1 {{'tile.reduce' op result element type must be 'f32'}}
  %r = tile.reduce min %a {axis = 0 : i32} : tensor<16xf32> -> f16
  return
}

// -----

func.func @convert_layout_shape(%a: tensor<16xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op requires the same shape for all operands and results}}
  %c = tile.convert_layout %a : tensor<16xf32> -> tensor<32xf32>
  return
}

// -----

func.func @dot_trans_b_inner(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op inner dimensions differ: [16, 32] x [32, 16] (b transposed)}}
  %d = tile.dot %a, %b, %c {transB} : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @local_alloc_init_stages(%x: tensor<16x64xbf16>) {
  // expected-error @+1 {{'tile.local_alloc' op an initialized buffer has one stage}}
  %b = tile.local_alloc %x : tensor<16x64xbf16> -> <2 x 16 x 64 x bf16>
  return
}

// -----

func.func @local_alloc_init_shape(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{'tile.local_alloc' op init must be a [16, 64] tile}}
  %b = tile.local_alloc %x : tensor<16x32xbf16> -> <1 x 16 x 64 x bf16>
  return
}

// -----

func.func @async_copy_element_type(%p: tensor<32x64x!tile.ptr<f16>>, %s: i32) {
  %b = tile.local_alloc -> <2 x 32 x 64 x bf16>
  // expected-error @+1 {{'tile.async_copy' op pointers to 'f16' cannot fill a buffer of 'bf16'}}
  tile.async_copy %p, %b[%s] : tensor<32x64x!tile.ptr<f16>>, <2 x 32 x 64 x bf16>
  return
}

// -----

func.func @async_copy_shape(%p: tensor<16x64x!tile.ptr<bf16>>, %s: i32) {
  %b = tile.local_alloc -> <2 x 32 x 64 x bf16>
  // expected-error @+1 {{'tile.async_copy' op the pointer tile must be a [32, 64] tile}}
  tile.async_copy %p, %b[%s] : tensor<16x64x!tile.ptr<bf16>>, <2 x 32 x 64 x bf16>
  return
}

// -----

func.func @local_view_stride(%s: i32) {
  %b = tile.local_alloc -> <2 x 32 x 64 x bf16>
  // expected-error @+1 {{'tile.local_view' op result must carry #tile.shared<rowStride = 72>}}
  %v = tile.local_view %b[%s] {column = 0 : i32} : <2 x 32 x 64 x bf16> -> tensor<32x64xbf16, #tile.shared<rowStride = 64>>
  return
}

// -----

func.func @local_view_window(%s: i32) {
  %b = tile.local_alloc -> <2 x 32 x 64 x bf16>
  // expected-error @+1 {{'tile.local_view' op window [32, columns 32..96) is outside the [32, 64] tile}}
  %v = tile.local_view %b[%s] {column = 32 : i32} : <2 x 32 x 64 x bf16> -> tensor<32x64xbf16, #tile.shared<rowStride = 72>>
  return
}

// -----

func.func @local_view_swizzled_panel(%s: i32) {
  %b = tile.local_alloc -> <2 x 32 x 128 x bf16, swizzle = 128>
  // expected-error @+1 {{'tile.local_view' op a window of a swizzled buffer starts on a panel (a multiple of 64 columns)}}
  %v = tile.local_view %b[%s] {column = 32 : i32} : <2 x 32 x 128 x bf16, swizzle = 128> -> tensor<32x32xbf16, #tile.shared<rowStride = 2048, swizzle = 128>>
  return
}

// -----

func.func @local_view_even_words_block(%q: tensor<16x64xbf16>, %s: i32) {
  %b = tile.local_alloc %q : tensor<16x64xbf16> -> <1 x 16 x 64 x bf16, evenWordsFirst = true>
  // expected-error @+1 {{'tile.local_view' op a window of an evenWordsFirst buffer starts on a 16-column block}}
  %v = tile.local_view %b[%s] {column = 8 : i32} : <1 x 16 x 64 x bf16, evenWordsFirst = true> -> tensor<16x32xbf16, #tile.shared<rowStride = 72, evenWordsFirst = true>>
  return
}

// -----

func.func @local_view_even_words_encoding(%q: tensor<16x64xbf16>, %s: i32) {
  %b = tile.local_alloc %q : tensor<16x64xbf16> -> <1 x 16 x 64 x bf16, evenWordsFirst = true>
  // expected-error @+1 {{'tile.local_view' op result must carry #tile.shared<rowStride = 72, evenWordsFirst = true>}}
  %v = tile.local_view %b[%s] {column = 0 : i32} : <1 x 16 x 64 x bf16, evenWordsFirst = true> -> tensor<16x64xbf16, #tile.shared<rowStride = 72>>
  return
}

// -----

func.func @async_copy_even_words(%p: tensor<16x64x!tile.ptr<bf16>>, %s: i32) {
  %b = tile.local_alloc -> <1 x 16 x 64 x bf16, evenWordsFirst = true>
  // expected-error @+1 {{'tile.async_copy' op cannot fill an evenWordsFirst buffer (its runs are one word)}}
  tile.async_copy %p, %b[%s] : tensor<16x64x!tile.ptr<bf16>>, <1 x 16 x 64 x bf16, evenWordsFirst = true>
  return
}

// -----

func.func @local_view_swizzled_encoding(%s: i32) {
  %b = tile.local_alloc -> <2 x 32 x 128 x bf16, swizzle = 128>
  // expected-error @+1 {{'tile.local_view' op result must carry #tile.shared<rowStride = 2048, swizzle = 128>}}
  %v = tile.local_view %b[%s] {column = 0 : i32} : <2 x 32 x 128 x bf16, swizzle = 128> -> tensor<32x128xbf16, #tile.shared<rowStride = 136>>
  return
}

// -----

func.func @desc_load_element(%d: !tile.tensordesc<bf16>, %i: i32) {
  // expected-error @+1 {{'tile.desc_load' op result element type must be 'bf16'}}
  %t = tile.desc_load %d[%i, %i] : <bf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @desc_load_rank(%d: !tile.tensordesc<bf16>, %i: i32) {
  // expected-error @+1 {{'tile.desc_load' op reads a 2-D box}}
  %t = tile.desc_load %d[%i, %i] : <bf16> -> tensor<16xbf16>
  return
}

// -----

func.func @tma_copy_padded(%d: !tile.tensordesc<bf16>, %i: i32, %p: i1) {
  %b = tile.local_alloc -> <2 x 64 x 64 x bf16>
  %m = tile.mbarrier_alloc -> <2>
  // expected-error @+1 {{'tile.tma_copy' op TMA fills swizzled buffers}}
  tile.tma_copy %d[%i, %i], %b[%i], %m, %p : <bf16>, <2 x 64 x 64 x bf16>, <2>
  return
}

// -----

func.func @tma_copy_barriers(%d: !tile.tensordesc<bf16>, %i: i32, %p: i1) {
  %b = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
  %m = tile.mbarrier_alloc -> <3>
  // expected-error @+1 {{'tile.tma_copy' op needs one barrier per buffer stage}}
  tile.tma_copy %d[%i, %i], %b[%i], %m, %p : <bf16>, <2 x 64 x 64 x bf16, swizzle = 128>, <3>
  return
}

// -----

func.func @mbarrier_arrivals() {
  // expected-error @+1 {{mbarrier arrivals must be in [1, 2^20), got 0}}
  %m = tile.mbarrier_alloc -> <2, arrivals = 0>
  return
}

// -----

func.func @tma_copy_element(%d: !tile.tensordesc<f16>, %i: i32, %p: i1) {
  %b = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
  %m = tile.mbarrier_alloc -> <2>
  // expected-error @+1 {{'tile.tma_copy' op a descriptor of 'f16' cannot fill a buffer of 'bf16'}}
  tile.tma_copy %d[%i, %i], %b[%i], %m, %p : <f16>, <2 x 64 x 64 x bf16, swizzle = 128>, <2>
  return
}

// -----

// A pending accumulator is read only by an asynchronous dot or a dot_wait.
#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3>
func.func @pending_read(%p: !tile.pending<tensor<64x64xf32, #mma3>>) {
  // expected-error @+1 {{'arith.mulf' op operand #0 must be floating-point-like}}
  %x = arith.mulf %p, %p : !tile.pending<tensor<64x64xf32, #mma3>>
  return
}

// -----

#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
func.func @pending_acc_sync_dot(%x: tensor<64x64xbf16, #smem>, %p: !tile.pending<tensor<64x64xf32, #mma3>>) {
  // expected-error @+1 {{'tile.dot' op a pending accumulator needs a pending result}}
  %d = tile.dot %x, %x, %p {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + !tile.pending<tensor<64x64xf32, #mma3>> -> tensor<64x64xf32, #mma3>
  return
}

// -----

#mma2 = #tile.mma<warpsPerCTA = [4, 1]>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
func.func @async_mma_sync(%x: tensor<64x64xbf16, #smem>, %c: tensor<64x64xf32, #mma2>) {
  // expected-error @+1 {{'tile.dot' op only a wgmma dot (version 3 #tile.mma result) can be asynchronous}}
  %d = tile.dot %x, %x, %c {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #mma2> -> !tile.pending<tensor<64x64xf32, #mma2>>
  return
}

// -----

#mma3 = #tile.mma<warpsPerCTA = [4, 1], version = 3>
func.func @dot_wait_result(%p: !tile.pending<tensor<64x64xf32, #mma3>>) {
  // expected-error @+2 {{'tile.dot_wait' op inferred type(s)}}
  // expected-error @+1 {{'tile.dot_wait' op failed to infer returned types}}
  %x = "tile.dot_wait"(%p) {pending = 0 : i32} : (!tile.pending<tensor<64x64xf32, #mma3>>) -> tensor<64x32xf32, #mma3>
  return
}

// -----

// A warp split's producers run no tensor code.
func.func @producer_tensor(%x: tensor<16xf32>) attributes {tile.kernel} {
  tile.warp_specialize {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32}
  producer {
    // expected-error @+1 {{'arith.addf' op cannot run in a producer partition}}
    %y = arith.addf %x, %x : tensor<16xf32>
  } consumer {
  }
  return
}

// -----

func.func @producer_barrier() attributes {tile.kernel} {
  tile.warp_specialize {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32}
  producer {
    // expected-error @+1 {{'tile.barrier' op cannot run in a producer partition}}
    tile.barrier
  } consumer {
  }
  return
}

// -----

func.func @not_last(%p: !tile.ptr<f32>, %v: f32) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.warp_specialize' op must be the last operation before the kernel returns}}
  tile.warp_specialize {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32}
  producer {
  } consumer {
  }
  tile.store %p, %v : !tile.ptr<f32>, f32
  return
}

// -----

func.func @partial_warpgroup() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.warp_specialize' op producer warps must be whole warpgroups (a multiple of 4), got 2}}
  tile.warp_specialize {producerWarps = 2 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32}
  producer {
  } consumer {
  }
  return
}

// -----

func.func @registers() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.warp_specialize' op register counts must be multiples of 8 in [24, 256], got 20 and 232}}
  tile.warp_specialize {producerWarps = 4 : i32, producerRegisters = 20 : i32, consumerRegisters = 232 : i32}
  producer {
  } consumer {
  }
  return
}

// -----

func.func @atomic_add_f32(%p: !tile.ptr<f32>, %v: i32) -> i32 {
  // expected-error @+1 {{adds to an i32, not to 'f32'}}
  %old = tile.atomic_add %p, %v : !tile.ptr<f32>
  return %old : i32
}

// -----

func.func @wait_flag_f32(%p: !tile.ptr<f32>, %v: i32) {
  // expected-error @+1 {{waits for an i32, not for 'f32'}}
  tile.wait_flag %p, %v : !tile.ptr<f32>
  return
}

// -----

#row = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>
func.func @local_store_swizzled_row(%v: tensor<64xf32, #row>, %s: i32) {
  %b = tile.local_alloc -> <2 x 64 x 64 x bf16, swizzle = 128>
  // expected-error @+1 {{element type must be 'bf16'}}
  tile.local_store %v, %b[%s] : tensor<64xf32, #row>, <2 x 64 x 64 x bf16, swizzle = 128>
  return
}

// -----

#row = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4]>
func.func @local_store_not_a_row(%v: tensor<64xf32, #row>, %s: i32) {
  %b = tile.local_alloc -> <2 x 8 x 8 x f32>
  // expected-error @+1 {{a tensor that is not the stage's tile needs a stage of one unswizzled row of 64 elements}}
  tile.local_store %v, %b[%s] : tensor<64xf32, #row>, <2 x 8 x 8 x f32>
  return
}

// -----

#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1]>
func.func @local_load_part_of_tile(%s: i32) {
  %b = tile.local_alloc -> <2 x 64 x 64 x f32>
  // expected-error @+1 {{a tensor that is not the stage's tile needs a stage of one unswizzled row of 2048 elements}}
  %v = tile.local_load %b[%s] : <2 x 64 x 64 x f32> -> tensor<32x64xf32, #blk>
  return
}

// -----

func.func @score_warps_not_a_warpgroup() {
  // expected-error @+1 {{score warps are one warpgroup (4) or none, got 2}}
  tile.warp_specialize {consumerRegisters = 160 : i32, producerRegisters = 24 : i32, producerWarps = 4 : i32, scoreWarps = 2 : i32} producer {
  } consumer {
  }
  return
}

// -----

func.func @dot_codes_in_registers(%a: tensor<16x32xbf16>, %b: tensor<32x64xf8E4M3FN>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{'tile.dot' op a and b must have one element type (or b fp8 codes in shared memory beside a 16-bit a)}}
  %d = tile.dot %a, %b, %c : tensor<16x32xbf16> * tensor<32x64xf8E4M3FN> -> tensor<16x64xf32>
  return
}
