//===- ArrayArg.cpp - A call's array argument as a DLTensor ---------------===//
#include "ArrayArg.h"

#include <cstring>
#include <string>

namespace nb = nanobind;

namespace tilemla::python {

PyObject *errorType = nullptr;

void raiseError(const std::string &message) {
  PyErr_SetString(errorType, message.c_str());
  throw nb::python_error();
}

namespace {
/// DLPack 1.x codes that Debian's dlpack.h (0.6) does not name.
constexpr uint8_t kDLBoolCode = 6;
constexpr uint8_t kDLFloat8E4M3FNCode = 10;
constexpr uint8_t kDLFloat8E5M2Code = 12;

/// A member of torch.Tensor that the torch path reads: an attribute, or a
/// method called without arguments. torch defines them in C on its tensor
/// base class (getset and method descriptors): read through the descriptor
/// found once, a read skips the lookup along the class's bases and the
/// bound method, about half of its cost. Anything else is read by name.
class Member {
public:
  Member() = default;
  Member(PyTypeObject *type, const char *name, bool call)
      : name(PyUnicode_InternFromString(name)), call(call) {
    descriptor =
        PyObject_GetAttr(reinterpret_cast<PyObject *>(type), this->name);
    if (!descriptor)
      PyErr_Clear();
    else if (call ? !PyObject_TypeCheck(descriptor, &PyMethodDescr_Type)
                  : !PyObject_TypeCheck(descriptor, &PyGetSetDescr_Type))
      Py_CLEAR(descriptor);
  }
  /// A new reference, or null with Python's error set.
  PyObject *read(PyObject *object) const {
    if (descriptor && call)
      return PyObject_Vectorcall(descriptor, &object, 1, nullptr);
    if (descriptor)
      return Py_TYPE(descriptor)
          ->tp_descr_get(descriptor, object,
                         reinterpret_cast<PyObject *>(Py_TYPE(object)));
    return call ? PyObject_CallMethodNoArgs(object, name)
                : PyObject_GetAttr(object, name);
  }

private:
  PyObject *name = nullptr;
  PyObject *descriptor = nullptr;
  bool call = false;
};

/// What the torch path reads, found once torch has been imported. Every
/// object here lives as long as the interpreter (torch's type, dtype and
/// descriptor singletons, interned names), so the references are never
/// released.
struct TorchInfo {
  PyTypeObject *tensorType = nullptr;
  struct Dtype {
    PyObject *object;
    DLDataType type;
  };
  Dtype dtypes[12] = {};
  int dtypeCount = 0;
  Member dtype, requiresGrad, isCuda, isCpu, getDevice, shape, isContiguous,
      stride, dataPtr;
};

/// The torch facts, or null while torch is not imported (then no
/// torch.Tensor can exist).
const TorchInfo *torchInfo() {
  static TorchInfo *info = nullptr;
  if (info)
    return info;
  PyObject *torch = PyImport_GetModule(nb::str("torch").ptr());
  if (!torch) {
    PyErr_Clear();
    return nullptr;
  }
  nb::object module = nb::steal(torch);
  auto *made = new TorchInfo();
  made->tensorType = reinterpret_cast<PyTypeObject *>(
      nb::getattr(module, "Tensor").release().ptr());
  const struct {
    const char *name;
    DLDataType type;
  } known[] = {{"float16", {kDLFloat, 16, 1}},
               {"bfloat16", {kDLBfloat, 16, 1}},
               {"float32", {kDLFloat, 32, 1}},
               {"float64", {kDLFloat, 64, 1}},
               {"int8", {kDLInt, 8, 1}},
               {"int16", {kDLInt, 16, 1}},
               {"int32", {kDLInt, 32, 1}},
               {"int64", {kDLInt, 64, 1}},
               {"uint8", {kDLUInt, 8, 1}},
               {"bool", {kDLBoolCode, 8, 1}},
               {"float8_e4m3fn", {kDLFloat8E4M3FNCode, 8, 1}},
               {"float8_e5m2", {kDLFloat8E5M2Code, 8, 1}}};
  for (const auto &[name, type] : known)
    if (nb::hasattr(module, name))
      made->dtypes[made->dtypeCount++] = {
          nb::getattr(module, name).release().ptr(), type};
  PyTypeObject *tensor = made->tensorType;
  made->dtype = Member(tensor, "dtype", false);
  made->requiresGrad = Member(tensor, "requires_grad", false);
  made->isCuda = Member(tensor, "is_cuda", false);
  made->isCpu = Member(tensor, "is_cpu", false);
  made->getDevice = Member(tensor, "get_device", true);
  made->shape = Member(tensor, "shape", false);
  made->isContiguous = Member(tensor, "is_contiguous", true);
  made->stride = Member(tensor, "stride", true);
  made->dataPtr = Member(tensor, "data_ptr", true);
  info = made;
  return info;
}

/// A tuple of ints into `out`; false when it is not one or too long.
bool readInts(PyObject *tuple, int64_t *out, int capacity, int &count) {
  if (!tuple || !PyTuple_Check(tuple))
    return false;
  count = int(PyTuple_GET_SIZE(tuple));
  if (count > capacity)
    return false;
  for (int i = 0; i < count; ++i) {
    out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
    if (out[i] == -1 && PyErr_Occurred())
      return false;
  }
  return true;
}

/// Whether `member` of `object` is True (false on any error).
bool isTrue(PyObject *object, const Member &member) {
  nb::object value = nb::steal(member.read(object));
  if (!value.is_valid())
    PyErr_Clear();
  return value.is_valid() && value.ptr() == Py_True;
}
} // namespace

bool ArrayArg::readTorch(const char *name, PyObject *object) {
  // torch.Tensor's type is named "Tensor": other types skip the lookup.
  if (std::strcmp(Py_TYPE(object)->tp_name, "Tensor") != 0)
    return false;
  const TorchInfo *torch = torchInfo();
  if (!torch || Py_TYPE(object) != torch->tensorType)
    return false; // subclasses keep their own __dlpack__
  nb::object dtype = nb::steal(torch->dtype.read(object));
  const TorchInfo::Dtype *known = nullptr;
  for (int i = 0; i < torch->dtypeCount && dtype.is_valid(); ++i)
    if (torch->dtypes[i].object == dtype.ptr())
      known = &torch->dtypes[i];
  // (The layout is not read: every layout but torch.strided, and nested
  // tensors, raise on stride() below, and the DLPack path then says why.)
  if (!known) {
    PyErr_Clear();
    return false;
  }
  if (isTrue(object, torch->requiresGrad))
    raiseError(std::string(name) +
               ": the tensor requires grad; pass it detached (.detach())");
  if (isTrue(object, torch->isCuda)) {
    nb::object index = nb::steal(torch->getDevice.read(object));
    const long id = index.is_valid() ? PyLong_AsLong(index.ptr()) : -1;
    if (id < 0) {
      PyErr_Clear();
      return false;
    }
    tensor.device = {kDLCUDA, int32_t(id)};
  } else if (isTrue(object, torch->isCpu)) {
    tensor.device = {kDLCPU, 0};
  } else {
    PyErr_Clear();
    return false; // meta, mps, xpu, ...: the DLPack path says what it can
  }
  nb::object sizes = nb::steal(torch->shape.read(object));
  int rank = 0;
  if (!readInts(sizes.ptr(), shape, kMaxDirectRank, rank)) {
    PyErr_Clear();
    return false;
  }
  // is_contiguous() costs about half of stride() (which parses its optional
  // argument and builds a tuple): for a contiguous tensor the row-major
  // strides describe the same memory (a size-1 dimension's stride is never
  // stepped).
  nb::object contiguous = nb::steal(torch->isContiguous.read(object));
  if (!contiguous.is_valid()) {
    PyErr_Clear();
    return false; // sparse and other layouts: the DLPack path says why
  }
  if (contiguous.ptr() == Py_True) {
    int64_t step = 1;
    for (int i = rank - 1; i >= 0; --i) {
      strides[i] = step;
      step *= shape[i] > 1 ? shape[i] : 1;
    }
  } else {
    nb::object steps = nb::steal(torch->stride.read(object));
    int strideCount = 0;
    if (!readInts(steps.ptr(), strides, kMaxDirectRank, strideCount) ||
        strideCount != rank) {
      PyErr_Clear();
      return false;
    }
  }
  nb::object address = nb::steal(torch->dataPtr.read(object));
  if (!address.is_valid()) {
    PyErr_Clear();
    return false;
  }
  void *data = PyLong_AsVoidPtr(address.ptr());
  if (!data && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  // data_ptr() is the first element's address, as torch's DLPack export
  // gives it (byte_offset 0).
  tensor.data = data;
  tensor.ndim = rank;
  tensor.dtype = known->type;
  tensor.byte_offset = 0;
  return true;
}

ArrayArg::ArrayArg(const char *name, nb::handle object, Access access,
                   bool torchDirect) {
  if (object.is_none())
    return;
  present = true;
  if (torchDirect && readTorch(name, object.ptr())) {
    direct = true;
    return;
  }
  auto describe = [&](const auto &array) {
    tensor.data = array.data_handle();
    tensor.device = {DLDeviceType(array.device_type()),
                     int32_t(array.device_id())};
    tensor.ndim = int32_t(array.ndim());
    tensor.dtype = {array.dtype().code, array.dtype().bits,
                    array.dtype().lanes};
    tensor.shape = const_cast<int64_t *>(array.shape_ptr());
    tensor.strides = const_cast<int64_t *>(array.stride_ptr());
    tensor.byte_offset = array.byte_offset();
  };
  auto refuse = [&](const char *what) {
    raiseError(std::string(name) + ": expected " + what +
               " (torch, CuPy, JAX, NumPy: any DLPack producer), got " +
               nb::type_name(object.type()).c_str());
  };
  if (access == Access::ReadOnly) {
    nb::ndarray<nb::ro> array;
    if (!nb::try_cast(object, array, /*convert=*/false))
      refuse("an array");
    importedReadOnly = std::move(array);
    describe(*importedReadOnly);
  } else {
    nb::ndarray<> array;
    if (!nb::try_cast(object, array, /*convert=*/false))
      refuse("a writable array");
    imported = std::move(array);
    describe(*imported);
  }
}

const DLTensor *ArrayArg::get() {
  if (!present)
    return nullptr;
  if (direct) { // its own arrays, wherever this object now lives
    tensor.shape = shape;
    tensor.strides = strides;
  }
  return &tensor;
}

} // namespace tilemla::python
