//===- ArrayArg.h - A call's array argument as a DLTensor -------*- C++ -*-===//
//
// Arrays reach the C ABI as DLTensors that point into the caller's memory.
// Any DLPack producer goes through nanobind's import (`__dlpack__`); a
// torch.Tensor is read through its own attributes instead, because torch's
// `__dlpack__` is Python code that costs about 1.6 µs a tensor (six or seven
// per decode call) and, for a CUDA tensor asked without a stream, makes the
// legacy default stream wait on the current one. Both ways give the same
// DLTensor (python/tests/test_arrays.py compares them).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_PYTHON_ARRAYARG_H
#define TILEMLA_PYTHON_ARRAYARG_H

#include <dlpack/dlpack.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>

namespace tilemla::python {

/// Raised for every failed call (a RuntimeError); made by the module.
extern PyObject *errorType;

/// Raises tilemla.Error with `message`.
[[noreturn]] void raiseError(const std::string &message);

/// Whether the callee may write the array (outputs refuse read-only arrays).
enum class Access { ReadOnly, Writable };

/// One array argument of a call, held for the call's length. `name` is the
/// argument's name in errors. None gives no tensor (get() is null).
/// `torchDirect` false sends torch tensors through DLPack too (tests).
class ArrayArg {
public:
  ArrayArg(const char *name, nanobind::handle object, Access access,
           bool torchDirect = true);

  /// The DLTensor, valid while this object lives.
  const DLTensor *get();
  /// Whether the torch attribute path made it (tests).
  bool readDirectly() const { return direct; }

private:
  /// Fills `tensor` from a torch.Tensor's attributes; false where the
  /// object is not a plain strided torch.Tensor of a dtype known here on
  /// the CPU or a CUDA device (the DLPack path then takes it, with its own
  /// checks).
  bool readTorch(const char *name, PyObject *object);

  static constexpr int kMaxDirectRank = 8;
  DLTensor tensor{};
  bool present = false;
  bool direct = false;
  int64_t shape[kMaxDirectRank] = {};
  int64_t strides[kMaxDirectRank] = {};
  /// The DLPack path's import, which owns its shape and strides.
  std::optional<nanobind::ndarray<>> imported;
  std::optional<nanobind::ndarray<nanobind::ro>> importedReadOnly;
};

} // namespace tilemla::python

#endif // TILEMLA_PYTHON_ARRAYARG_H
