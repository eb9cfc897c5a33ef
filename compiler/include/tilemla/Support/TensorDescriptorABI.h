//===- TensorDescriptorABI.h - the `desc<T>` kernel argument ----*- C++ -*-===//
//
// The layout of a tensor-descriptor kernel argument, shared by the code
// generator (which reads it), the compiler driver (which describes it) and
// the runtime (which builds it). Standard C++ only, so that each of them can
// include it without MLIR, LLVM or CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_SUPPORT_TENSORDESCRIPTORABI_H
#define TILEMLA_SUPPORT_TENSORDESCRIPTORABI_H

namespace tilemla {
/// The kernel argument of a `desc<T>` parameter, passed by value:
///   bytes [0, 128)    a CUtensorMap (encoded by the host when the kernel
///                     reads the tensor with TMA; unused otherwise)
///   bytes [128, 160)  base address, rows, cols, row stride in elements
///                     (four 64-bit integers).
constexpr unsigned kTensorDescBytes = 160;
constexpr unsigned kTensorDescAlign = 64;
constexpr unsigned kTensorMapBytes = 128;

/// The largest TMA box dimension, in elements, a tensor map can encode.
constexpr unsigned kMaxTmaBoxDim = 256;

/// True if a tensor map can encode a box of `rows` x `cols` elements with a
/// shared-memory swizzle of `swizzleBytes` (32, 64 or 128).
constexpr bool isEncodableTmaBox(unsigned rows, unsigned cols,
                                 unsigned swizzleBytes) {
  return rows >= 1 && rows <= kMaxTmaBoxDim && cols >= 1 &&
         cols <= kMaxTmaBoxDim &&
         (swizzleBytes == 32 || swizzleBytes == 64 || swizzleBytes == 128);
}
} // namespace tilemla

#endif
