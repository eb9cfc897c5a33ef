//===- CApiSupport.cpp - status, messages and DLPack views ----------------===//
#include "CApiSupport.h"

#include "tilemla/Runtime.h"

#include <fmt/format.h>

namespace tilemla::capi {
namespace {
thread_local std::string lastError;
/// Set when even the message could not be stored (no memory for it).
thread_local const char *unstoredError = nullptr;

// DLPack 1.x's code for float8_e4m3fn (torch.float8_e4m3fn); the 0.6 header
// Debian ships predates the fp8 codes.
constexpr uint8_t kDLFloat8E4M3FN = 10;

/// The API's dtype of a one-lane DLPack type (uint8: U8); none for others.
std::optional<mla::DType> knownDtype(DLDataType type) {
  if (type.lanes != 1)
    return std::nullopt;
  switch (type.code) {
  case kDLFloat:
    if (type.bits == 16)
      return mla::DType::F16;
    if (type.bits == 32)
      return mla::DType::F32;
    break;
  case kDLBfloat:
    if (type.bits == 16)
      return mla::DType::BF16;
    break;
  case kDLInt:
    if (type.bits == 32)
      return mla::DType::I32;
    break;
  case kDLUInt:
    if (type.bits == 8)
      return mla::DType::U8;
    break;
  case kDLFloat8E4M3FN:
    if (type.bits == 8)
      return mla::DType::FP8E4M3;
    break;
  }
  return std::nullopt;
}

mla::DType dtypeOf(const char *name, DLDataType type, mla::DType bytesAs) {
  if (type.lanes != 1)
    throw ArgumentError(
        fmt::format("{}: {} lanes per element; expected 1", name, type.lanes));
  if (std::optional<mla::DType> known = knownDtype(type))
    return *known == mla::DType::U8 ? bytesAs : *known;
  throw ArgumentError(fmt::format(
      "{}: DLPack dtype (code {}, {} bits) is not one tilemla takes "
      "(float16, bfloat16, float32, int32, uint8, float8_e4m3fn)",
      name, int(type.code), int(type.bits)));
}
} // namespace

tilemla_status setResult(tilemla_status status,
                         const std::string &message) noexcept {
  try {
    lastError = message;
    unstoredError = nullptr;
  } catch (...) {
    unstoredError = status == TILEMLA_OK ? nullptr
                                         : "out of host memory (the error's "
                                           "message could not be stored)";
    lastError.clear();
  }
  return status;
}

void checkShape(const char *name, const DLTensor &tensor) {
  if (tensor.ndim < 0 || (tensor.ndim > 0 && !tensor.shape))
    throw ArgumentError(
        fmt::format("{}: ndim {} without a shape", name, tensor.ndim));
}

std::optional<std::string> elementName(DLDataType type) {
  // i64 is a kernel parameter type the MLA API has no dtype for.
  if (type.code == kDLInt && type.bits == 64 && type.lanes == 1)
    return "i64";
  std::optional<mla::DType> known = knownDtype(type);
  if (!known || *known == mla::DType::U8)
    return std::nullopt;
  return dtypeName(*known);
}

void requireNonNull(const void *pointer, const char *name) {
  if (!pointer)
    throw ArgumentError(fmt::format("{}: NULL", name));
}

void *dataOf(const char *name, const DLTensor &tensor) {
  switch (tensor.device.device_type) {
  case kDLCUDA:
  case kDLCUDAManaged:
    break;
  case kDLCPU:
    if (!isInterpreterMode())
      throw ArgumentError(fmt::format(
          "{}: a CPU tensor; kernels read CUDA memory (CPU tensors only "
          "with TILEMLA_INTERPRET=1)",
          name));
    break;
  default:
    throw ArgumentError(fmt::format("{}: DLPack device type {} is not CUDA "
                                    "(or CPU with TILEMLA_INTERPRET=1)",
                                    name, int(tensor.device.device_type)));
  }
  if (!tensor.data)
    return nullptr;
  return static_cast<char *>(tensor.data) + tensor.byte_offset;
}

void CallLoans::add(const DLTensor &tensor) {
  if (tensor.device.device_type != kDLCPU || !tensor.data)
    return;
  // The bytes from the first element to past the last one.
  const int64_t element =
      (int64_t(tensor.dtype.bits) * tensor.dtype.lanes + 7) / 8;
  int64_t extent = element, stride = 1;
  for (int i = tensor.ndim - 1; i >= 0; --i) {
    const int64_t size = tensor.shape[i];
    const int64_t step = tensor.strides ? tensor.strides[i] : stride;
    if (size == 0)
      return; // empty: nothing is read
    if (size == 1)
      continue; // its stride is never stepped
    if (step < 0)
      return; // refused by the API's checks before any launch
    extent += (size - 1) * step * element;
    stride *= size;
  }
  loans.emplace_back(static_cast<char *>(tensor.data) + tensor.byte_offset,
                     size_t(extent));
}

mla::TensorView toView(const char *name, const DLTensor *tensor, int device,
                       mla::DType bytesAs) {
  mla::TensorView view;
  toView(view, name, tensor, device, bytesAs);
  return view;
}

void toView(mla::TensorView &view, const char *name, const DLTensor *tensor,
            int device, mla::DType bytesAs) {
  requireNonNull(tensor, name);
  checkShape(name, *tensor);
  view.data = dataOf(name, *tensor);
  view.dtype = dtypeOf(name, tensor->dtype, bytesAs);
  view.shape.assign(tensor->shape, tensor->shape + tensor->ndim);
  if (tensor->strides) {
    view.strides.assign(tensor->strides, tensor->strides + tensor->ndim);
  } else { // compact row-major
    view.strides.assign(size_t(tensor->ndim), 1);
    for (int i = tensor->ndim - 1; i > 0; --i)
      view.strides[size_t(i - 1)] = view.strides[size_t(i)] * view.shape[i];
  }
  view.device = tensor->device.device_type == kDLCPU
                    ? device
                    : int(tensor->device.device_id);
}
} // namespace tilemla::capi

using namespace tilemla::capi;

extern "C" {
const char *tilemla_last_error(void) {
  return unstoredError ? unstoredError : lastError.c_str();
}

const char *tilemla_status_name(tilemla_status status) {
  switch (status) {
  case TILEMLA_OK:
    return "ok";
  case TILEMLA_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case TILEMLA_ERROR_LIBRARY:
    return "library error";
  case TILEMLA_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case TILEMLA_ERROR_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

int tilemla_interpreter_mode(void) { return tilemla::isInterpreterMode(); }
}
