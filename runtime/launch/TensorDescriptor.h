//===- TensorDescriptor.h - the argument block of `desc<T>` -----*- C++ -*-===//
//
// A `desc<T>` kernel parameter is passed as the block TensorDescriptorABI.h
// lays out: a CUtensorMap (encoded here when the kernel reads the tensor
// with TMA), then the tensor's address and shape. Its KernelParam is
// resolved once per loaded module; each launch checks the argument and
// builds the block.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_RUNTIME_TENSORDESCRIPTOR_H
#define TILEMLA_RUNTIME_TENSORDESCRIPTOR_H

#include "../cuda/CudaDriver.h"
#include "tilemla/Driver/Compiler.h"
#include "tilemla/Runtime.h"
#include "tilemla/Support/TensorDescriptorABI.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tilemla::launch {
/// A `desc<T>` parameter, resolved from its KernelParam once, when its
/// module is loaded, so that launches only read numbers.
struct TensorParam {
  unsigned index = 0; ///< the argument's position
  unsigned elementBytes = 0;
  int dataType = 0; ///< CU_TENSOR_MAP_DATA_TYPE_*
  /// The box each TMA copy moves; 0 when no TMA reads the tensor.
  unsigned boxRows = 0, boxCols = 0;
  int swizzle = cuda::CU_TENSOR_MAP_SWIZZLE_NONE;
  bool tma() const { return boxRows != 0; }
};

/// The argument block of a `desc<T>` parameter (kTensorDescBytes, aligned to
/// kTensorDescAlign): the tensor map, then the tensor's address and shape.
struct alignas(kTensorDescAlign) TensorDescBlock {
  cuda::CUtensorMap map; ///< zeros when no TMA reads the tensor
  uint64_t base;
  int64_t rows, cols, rowStride;
};
static_assert(sizeof(cuda::CUtensorMap) == kTensorMapBytes);
static_assert(offsetof(TensorDescBlock, base) == kTensorMapBytes);
static_assert(offsetof(TensorDescBlock, rowStride) + sizeof(int64_t) ==
              kTensorDescBytes);
/// Kernel parameters are limited to 4 KB; 16 descriptors take 2.5 KB.
constexpr size_t kMaxTensorParams = 16;

/// What a launch needs of tensor-descriptor parameter `index` of `kernel`;
/// throws, naming both, for an element type no tensor map holds or a TMA box
/// no tensor map encodes.
TensorParam tensorParamFor(const std::string &kernel, const KernelParam &param,
                           unsigned index);

/// Throws, naming the kernel, the argument and the reason, unless `arg`
/// describes a tensor that `tensor` (and TMA, if it reads it) can address.
void checkTensorArg(const std::string &kernel, const KernelParam &param,
                    const TensorParam &tensor, const KernelArg &arg);

/// Fills `block` for a checked `arg`, encoding the tensor map for TMA. Per
/// launch: encoding takes about 50 ns (H200 host), too little for a cache of
/// maps to pay for its locking.
void buildTensorDesc(const std::string &kernel, const KernelParam &param,
                     const TensorParam &tensor, const KernelArg &arg,
                     TensorDescBlock &block);
} // namespace tilemla::launch

#endif
