//===- CApiSupport.h - what the C ABI's functions share ---------*- C++ -*-===//
//
// The exception barrier (every entry point runs its body through `guarded`,
// which turns what it throws into a status and this thread's message) and
// DLPack tensors read into the C++ API's views.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_CAPI_CAPISUPPORT_H
#define TILEMLA_CAPI_CAPISUPPORT_H

#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"
#include "tilemla/tilemla_c.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilemla::capi {
/// A mistake in a C call's own arguments (TILEMLA_ERROR_INVALID_ARGUMENT).
class ArgumentError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

/// Records `status` and `message` as this thread's last result (without
/// memory for the message: a fixed one; it never throws).
tilemla_status setResult(tilemla_status status,
                         const std::string &message) noexcept;

/// Throws ArgumentError for a negative rank or a rank without a shape.
void checkShape(const char *name, const DLTensor &tensor);

/// The tile language's name of a tensor's element type ("f32", "bf16",
/// "fp8e4m3", ...); none for what it has no name for (uint8 among them).
std::optional<std::string> elementName(DLDataType type);

/// Runs `body`; its exceptions become a status and the thread's message.
template <typename Body> tilemla_status guarded(Body &&body) noexcept {
  try {
    body();
    return setResult(TILEMLA_OK, "");
  } catch (const ArgumentError &error) {
    return setResult(TILEMLA_ERROR_INVALID_ARGUMENT, error.what());
  } catch (const Error &error) {
    return setResult(TILEMLA_ERROR_LIBRARY, error.what());
  } catch (const std::bad_alloc &) {
    return setResult(TILEMLA_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception &error) {
    return setResult(TILEMLA_ERROR_INTERNAL, error.what());
  } catch (...) {
    return setResult(TILEMLA_ERROR_INTERNAL, "unknown exception");
  }
}

/// Throws ArgumentError "`name`: NULL" when `pointer` is null.
void requireNonNull(const void *pointer, const char *name);

/// `tensor` as a view of the C++ API. `device`: the ordinal a CPU tensor
/// stands for in interpreter mode (the handle's). `bytesAs`: the dtype a
/// uint8 tensor is read as (an fp8 cache's codes), else U8.
mla::TensorView toView(const char *name, const DLTensor *tensor, int device,
                       mla::DType bytesAs = mla::DType::U8);
/// The same into `view`, whose shape and stride vectors keep their storage
/// (a view reused call after call allocates nothing).
void toView(mla::TensorView &view, const char *name, const DLTensor *tensor,
            int device, mla::DType bytesAs = mla::DType::U8);

/// The first element's address, checked to be memory this library reaches
/// (CUDA, or CPU when interpreting).
void *dataOf(const char *name, const DLTensor &tensor);

/// Interpreter mode: the CPU tensors of one call, lent to its kernels
/// (HostMemoryLoan) until the call returns. CUDA tensors need none.
class CallLoans {
public:
  void add(const DLTensor &tensor);

private:
  std::vector<HostMemoryLoan> loans;
};
} // namespace tilemla::capi

#endif
