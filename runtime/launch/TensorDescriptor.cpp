//===- TensorDescriptor.cpp - checks and encodes `desc<T>` arguments -----===//
#include "TensorDescriptor.h"

#include <cstring>
#include <fmt/format.h>

namespace tilemla::launch {
using namespace cuda;

TensorParam tensorParamFor(const std::string &kernel, const KernelParam &param,
                           unsigned index) {
  using ElementType = KernelParam::ElementType;
  TensorParam tensor;
  tensor.index = index;
  // The element types a tensor map can describe (fp8 moves as bytes).
  static const struct {
    ElementType type;
    unsigned bytes;
    int dataType;
  } encodings[] = {{ElementType::F16, 2, CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
                   {ElementType::BF16, 2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
                   {ElementType::F32, 4, CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
                   {ElementType::I32, 4, CU_TENSOR_MAP_DATA_TYPE_INT32},
                   {ElementType::I64, 8, CU_TENSOR_MAP_DATA_TYPE_INT64},
                   {ElementType::FP8E4M3, 1, CU_TENSOR_MAP_DATA_TYPE_UINT8},
                   {ElementType::FP8E5M2, 1, CU_TENSOR_MAP_DATA_TYPE_UINT8}};
  for (const auto &encoding : encodings)
    if (encoding.type == param.elementType) {
      tensor.elementBytes = encoding.bytes;
      tensor.dataType = encoding.dataType;
    }
  if (param.kind != KernelParam::TensorDesc || !tensor.elementBytes)
    throw Error(fmt::format("kernel {}, parameter {}: unsupported tensor "
                            "parameter '{}'",
                            kernel, index, toString(param)));
  if (!param.readWithTma())
    return tensor; // no TMA reads it
  if (!isEncodableTmaBox(param.tmaBoxRows, param.tmaBoxCols, param.tmaSwizzle))
    throw Error(fmt::format("kernel {}, parameter {}: malformed TMA tensor "
                            "parameter '{}' (boxes of 1 to {} elements per "
                            "side, swizzle 32, 64 or 128 bytes)",
                            kernel, index, toString(param), kMaxTmaBoxDim));
  tensor.boxRows = param.tmaBoxRows;
  tensor.boxCols = param.tmaBoxCols;
  tensor.swizzle = param.tmaSwizzle == 32   ? CU_TENSOR_MAP_SWIZZLE_32B
                   : param.tmaSwizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                            : CU_TENSOR_MAP_SWIZZLE_128B;
  return tensor;
}

void checkTensorArg(const std::string &kernel, const KernelParam &param,
                    const TensorParam &tensor, const KernelArg &arg) {
  uint64_t base = *static_cast<uint64_t *>(arg.storage());
  int64_t rows = arg.tensorRows(), cols = arg.tensorCols(),
          stride = arg.tensorRowStride();
  // Wraps only for strides no TMA nor kernel could use; 16 divides 2^64.
  uint64_t strideBytes = uint64_t(stride) * tensor.elementBytes;
  std::string reason;
  if (base % 16)
    reason = fmt::format("base address {:#x} is not 16-byte aligned", base);
  else if (rows < 1 || cols < 1)
    reason =
        fmt::format("{} x {} elements; both must be at least 1", rows, cols);
  else if (stride < cols)
    reason =
        fmt::format("row stride {} is less than the {} columns", stride, cols);
  else if (strideBytes % 16)
    reason = fmt::format("row stride {} ({} bytes) is not a multiple of 16 "
                         "bytes",
                         stride, strideBytes);
  else if (tensor.tma() && (uint64_t(rows) > (uint64_t(1) << 32) ||
                            uint64_t(cols) > (uint64_t(1) << 32)))
    reason = fmt::format("{} x {} elements; TMA addresses at most 2^32 per "
                         "dimension",
                         rows, cols);
  else if (tensor.tma() &&
           stride >= (int64_t(1) << 40) / int64_t(tensor.elementBytes))
    reason =
        fmt::format("row stride {}; TMA needs it below 2^40 bytes", stride);
  if (!reason.empty())
    throw Error(fmt::format("kernel {}: argument {} ({}): {}", kernel,
                            tensor.index, toString(param), reason));
}

void buildTensorDesc(const std::string &kernel, const KernelParam &param,
                     const TensorParam &tensor, const KernelArg &arg,
                     TensorDescBlock &block) {
  block.base = *static_cast<uint64_t *>(arg.storage());
  block.rows = arg.tensorRows();
  block.cols = arg.tensorCols();
  block.rowStride = arg.tensorRowStride();
  if (!tensor.tma()) {
    std::memset(&block.map, 0, sizeof block.map);
    return;
  }
  auto encode = driver().cuTensorMapEncodeTiled;
  if (!encode)
    throw Error(fmt::format("kernel {}: argument {} ({}) is read with TMA, "
                            "but this CUDA driver has no "
                            "cuTensorMapEncodeTiled (CUDA 12.0+ needed)",
                            kernel, tensor.index, toString(param)));
  // TMA lists dimensions innermost first; strides omit the innermost.
  const unsigned long long dims[2] = {(unsigned long long)block.cols,
                                      (unsigned long long)block.rows};
  const unsigned long long strides[1] = {(unsigned long long)block.rowStride *
                                         tensor.elementBytes};
  const unsigned box[2] = {tensor.boxCols, tensor.boxRows};
  const unsigned elementStrides[2] = {1, 1};
  CUresult result = encode(&block.map, tensor.dataType, 2,
                           reinterpret_cast<void *>(block.base), dims, strides,
                           box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                           tensor.swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    check(result, "cuTensorMapEncodeTiled",
          fmt::format("kernel {} argument {} ({}, {} x {} elements, row "
                      "stride {})",
                      kernel, tensor.index, toString(param), block.rows,
                      block.cols, block.rowStride));
}
} // namespace tilemla::launch
