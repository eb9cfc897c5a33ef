//===- KernelCApi.cpp - Kernel behind the C ABI ---------------------------===//
#include "CApiSupport.h"

#include "tilemla/Runtime.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

using namespace tilemla;
using namespace tilemla::capi;

struct tilemla_kernel {
  Kernel kernel;
  /// The parameter types, read on first need (under the mutex: C callers
  /// may share a kernel between threads).
  std::mutex mutex;
  std::vector<std::string> parameterTypes;
  std::vector<const char *> parameterNames;
  bool parametersRead = false;

  const std::vector<std::string> &parameters() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!parametersRead) {
      parameterTypes = kernel.parameterTypes();
      for (const std::string &type : parameterTypes)
        parameterNames.push_back(type.c_str());
      parametersRead = true;
    }
    return parameterTypes;
  }
};

namespace {
/// A tensor for parameter `param` ("*f32", "desc<bf16>", ...) holds its
/// elements (uint8 stands for fp8 codes).
void checkElements(const std::string &name, const DLTensor &tensor,
                   const std::string &param) {
  if (param.empty())
    return; // more arguments than parameters: the launch says so
  const size_t open = param.find('<');
  const std::string element =
      param[0] == '*' ? param.substr(1)
      : open != std::string::npos
          ? param.substr(open + 1, param.find('>') - open - 1)
          : param;
  const std::optional<std::string> got = elementName(tensor.dtype);
  const bool codes = tensor.dtype.code == kDLUInt && tensor.dtype.bits == 8 &&
                     tensor.dtype.lanes == 1 && element.rfind("fp8", 0) == 0;
  if (codes || got == element)
    return;
  throw ArgumentError(fmt::format(
      "{}: a tensor of {} for a {} parameter", name,
      got ? *got
          : fmt::format("DLPack dtype (code {}, {} bits)",
                        int(tensor.dtype.code), int(tensor.dtype.bits)),
      param));
}

/// A CUDA tensor must live on the device the launch goes to (`device`; -1
/// in interpreter mode, where device memory is the host's).
void checkDevice(const std::string &name, const DLTensor &tensor, int device) {
  if (device >= 0 && tensor.device.device_type == kDLCUDA &&
      tensor.device.device_id != device)
    throw ArgumentError(fmt::format("{}: a tensor on CUDA device {}; the "
                                    "launch goes to the current device, {}",
                                    name, tensor.device.device_id, device));
}

/// args[i] as a KernelArg for a parameter of type `param` (its CPU tensor
/// lent to the launch); `device`: the current device's ordinal.
KernelArg kernelArg(const tilemla_arg &arg, size_t i, const std::string &param,
                    int device, CallLoans &loans) {
  const std::string name = fmt::format("args[{}]", i);
  KernelArg out = KernelArg::i32(0);
  switch (arg.kind) {
  case TILEMLA_ARG_POINTER:
    out = KernelArg::pointer(arg.value.pointer);
    break;
  case TILEMLA_ARG_I32:
    out = KernelArg::i32(arg.value.i32);
    break;
  case TILEMLA_ARG_I64:
    out = KernelArg::i64(arg.value.i64);
    break;
  case TILEMLA_ARG_F32:
    out = KernelArg::f32(arg.value.f32);
    break;
  case TILEMLA_ARG_BOOL:
    out = KernelArg::boolean(arg.value.boolean != 0);
    break;
  case TILEMLA_ARG_TENSOR:
    requireNonNull(arg.value.tensor, (name + ".value.tensor").c_str());
    checkShape(name.c_str(), *arg.value.tensor);
    checkElements(name, *arg.value.tensor, param);
    out = KernelArg::pointer(dataOf(name.c_str(), *arg.value.tensor));
    checkDevice(name, *arg.value.tensor, device);
    loans.add(*arg.value.tensor);
    break;
  case TILEMLA_ARG_TENSOR_DESC: {
    const DLTensor *t = arg.value.tensor;
    requireNonNull(t, (name + ".value.tensor").c_str());
    checkShape(name.c_str(), *t);
    checkElements(name, *t, param);
    // A dimension of one element may have any stride (DLPack producers
    // differ there): such a row stride is the compact one.
    if (t->ndim != 2 || (t->strides && t->strides[1] != 1 && t->shape[1] > 1))
      throw ArgumentError(fmt::format(
          "{}: a tensor descriptor is 2-D with a unit last stride", name));
    const int64_t rowStride =
        t->strides && t->shape[0] > 1 ? t->strides[0] : t->shape[1];
    out = KernelArg::tensor(dataOf(name.c_str(), *t), t->shape[0], t->shape[1],
                            rowStride);
    checkDevice(name, *t, device);
    loans.add(*t);
    break;
  }
  default:
    throw ArgumentError(
        fmt::format("{}.kind: {} is not a tilemla_arg_kind", name, arg.kind));
  }
  return arg.unspecialized ? out.unspecialized() : out;
}
} // namespace

extern "C" {
tilemla_status tilemla_kernel_create(const char *path, const char *source,
                                     const tilemla_constexpr *constexprs,
                                     size_t count, uint32_t num_warps,
                                     tilemla_kernel **kernel) {
  return guarded([&] {
    requireNonNull(kernel, "kernel");
    *kernel = nullptr;
    requireNonNull(path, "path");
    if (count)
      requireNonNull(constexprs, "constexprs");
    Kernel::Constexprs values;
    for (size_t i = 0; i < count; ++i) {
      if (!constexprs[i].name || !constexprs[i].value)
        throw ArgumentError(
            fmt::format("constexprs[{}]: NULL name or value", i));
      values[constexprs[i].name] = constexprs[i].value;
    }
    KernelOptions options;
    options.numWarps = num_warps;
    const std::string_view embedded = "embedded:";
    const std::string where = path;
    Kernel made = where.rfind(embedded, 0) == 0
                      ? Kernel::fromEmbedded(where.substr(embedded.size()),
                                             values, options)
                  : source ? Kernel::fromSource(where, source, values, options)
                           : Kernel::fromFile(where, values, options);
    *kernel = new tilemla_kernel{std::move(made)};
  });
}

void tilemla_kernel_destroy(tilemla_kernel *kernel) { delete kernel; }

tilemla_status tilemla_kernel_parameters(tilemla_kernel *kernel, size_t *count,
                                         const char *const **types) {
  return guarded([&] {
    requireNonNull(kernel, "kernel");
    requireNonNull(count, "count");
    requireNonNull(types, "types");
    kernel->parameters();
    *count = kernel->parameterNames.size();
    *types = kernel->parameterNames.data();
  });
}

tilemla_status tilemla_kernel_launch(tilemla_kernel *kernel,
                                     const uint32_t grid[3],
                                     const tilemla_arg *args, size_t count,
                                     void *stream) {
  return guarded([&] {
    requireNonNull(kernel, "kernel");
    requireNonNull(grid, "grid");
    if (count)
      requireNonNull(args, "args");
    std::vector<KernelArg> launchArgs;
    launchArgs.reserve(count);
    CallLoans loans;
    // Tensors are checked against their parameters' element types (the
    // launch checks the kinds and the count).
    bool tensors = false;
    for (size_t i = 0; i < count; ++i)
      tensors |= args[i].kind == TILEMLA_ARG_TENSOR ||
                 args[i].kind == TILEMLA_ARG_TENSOR_DESC;
    static const std::vector<std::string> none;
    const std::vector<std::string> &params =
        tensors ? kernel->parameters() : none;
    const int device = tensors ? currentDeviceOrdinal() : -1;
    for (size_t i = 0; i < count; ++i)
      launchArgs.push_back(kernelArg(
          args[i], i, i < params.size() ? params[i] : "", device, loans));
    kernel->kernel.launch({grid[0], grid[1], grid[2]}, launchArgs, stream);
  });
}

tilemla_status tilemla_kernel_emit(tilemla_kernel *kernel, const char *stage,
                                   const char *arch, char **text) {
  return guarded([&] {
    requireNonNull(text, "text");
    *text = nullptr;
    requireNonNull(kernel, "kernel");
    requireNonNull(stage, "stage");
    const std::string out = kernel->kernel.emit(stage, arch ? arch : "");
    char *copy = static_cast<char *>(std::malloc(out.size() + 1));
    if (!copy)
      throw std::bad_alloc();
    std::memcpy(copy, out.c_str(), out.size() + 1);
    *text = copy;
  });
}

void tilemla_string_free(char *text) { std::free(text); }
}
