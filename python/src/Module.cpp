//===- Module.cpp - tilemla._tilemla: the C ABI for Python ----------------===//
//
// A thin nanobind layer over tilemla_c.h: arrays (any DLPack producer:
// torch, CuPy, JAX, NumPy) go to the C ABI as DLTensors, zero-copy
// (ArrayArg.h); a failed status becomes tilemla.Error with
// the library's message. Everything Pythonic (the seed's signatures,
// output allocation, the current torch stream) is in python/tilemla/*.py.
//
//===----------------------------------------------------------------------===//
#include "ArrayArg.h"
#include "tilemla/tilemla_c.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;
using tilemla::python::Access;
using tilemla::python::ArrayArg;
using tilemla::python::errorType;

namespace {
void check(tilemla_status status) {
  if (status != TILEMLA_OK)
    tilemla::python::raiseError(tilemla_last_error());
}

tilemla_split_policy splitPolicy(const std::string &name) {
  if (name == "fixed4")
    return TILEMLA_SPLIT_FIXED4;
  if (name == "batch_invariant")
    return TILEMLA_SPLIT_BATCH_INVARIANT;
  if (name == "auto")
    return TILEMLA_SPLIT_AUTO;
  throw nb::value_error(("split_policy: expected \"fixed4\", "
                         "\"batch_invariant\" or \"auto\", got \"" +
                         name + "\"")
                            .c_str());
}

tilemla_device_schedule deviceSchedule(const std::string &name) {
  if (name == "default")
    return TILEMLA_DEVICE_SCHEDULE_DEFAULT;
  if (name == "off")
    return TILEMLA_DEVICE_SCHEDULE_OFF;
  if (name == "always")
    return TILEMLA_DEVICE_SCHEDULE_ALWAYS;
  throw nb::value_error(("device_schedule: expected \"default\", \"off\" "
                         "or \"always\", got \"" +
                         name + "\"")
                            .c_str());
}

/// One decode step's schedule (tilemla_decode_schedule).
class Schedule {
public:
  explicit Schedule(tilemla_decode_schedule *schedule) : schedule(schedule) {}
  ~Schedule() { tilemla_decode_schedule_destroy(schedule); }
  Schedule(const Schedule &) = delete;
  Schedule &operator=(const Schedule &) = delete;
  tilemla_decode_schedule *schedule;
};

/// TritonMLAImpl through the C ABI; tilemla/mla.py gives it the seed's
/// signature.
class MlaImpl {
public:
  MlaImpl(int64_t numHeads, int64_t headSize, double scale, int64_t numKvHeads,
          const std::string &kvCacheDtype, int64_t kvLoraRank, int64_t ropeDim,
          int64_t nopeDim, int64_t vDim, int64_t maxBatch, int32_t maxQueryLen,
          const std::string &policy, bool lseInQueryDtype, int32_t device,
          bool checkInputs, const std::string &schedule) {
    tilemla_mla_config config;
    tilemla_mla_config_init(&config);
    config.num_heads = numHeads;
    config.head_size = headSize;
    config.scale = scale;
    config.num_kv_heads = numKvHeads;
    config.kv_cache_dtype = kvCacheDtype.c_str();
    config.kv_lora_rank = kvLoraRank;
    config.qk_rope_head_dim = ropeDim;
    config.qk_nope_head_dim = nopeDim;
    config.v_head_dim = vDim;
    config.max_batch = maxBatch;
    config.max_query_len = maxQueryLen;
    config.split_policy = splitPolicy(policy);
    config.lse_in_query_dtype = lseInQueryDtype;
    config.device = device;
    config.check_inputs = checkInputs;
    config.device_schedule = deviceSchedule(schedule);
    check(tilemla_mla_create(&config, &impl));
  }
  ~MlaImpl() { tilemla_mla_destroy(impl); }
  MlaImpl(const MlaImpl &) = delete;
  MlaImpl &operator=(const MlaImpl &) = delete;

  /// One call's arguments as the C ABI takes them.
  struct Call {
    ArrayArg q, qPe, kv, o, blockTable, seqLens, lse, scaleTensor;
    tilemla_decode_metadata md;
    Call(nb::handle qIn, nb::handle qPeIn, nb::handle kvIn, nb::handle bt,
         nb::handle lens, int64_t maxSeqLen, nb::handle oIn, nb::handle lseIn,
         std::optional<float> kvScale, nb::handle kvScaleTensor,
         const Schedule *schedule)
        : q(qPeIn.is_none() ? "q" : "q_nope", qIn, Access::ReadOnly),
          qPe("q_pe", qPeIn, Access::ReadOnly),
          kv("kv_cache", kvIn, Access::ReadOnly), o("o", oIn, Access::Writable),
          blockTable("block_table", bt, Access::ReadOnly),
          seqLens("seq_lens", lens, Access::ReadOnly),
          lse("lse", lseIn, Access::Writable),
          scaleTensor("kv_scale", kvScaleTensor, Access::ReadOnly) {
      tilemla_decode_metadata_init(&md);
      md.block_table = blockTable.get();
      md.seq_lens = seqLens.get();
      md.max_seq_len = maxSeqLen;
      md.has_kv_scale = kvScale.has_value();
      md.kv_scale = kvScale.value_or(0.0f);
      md.kv_scale_tensor = scaleTensor.get();
      md.schedule = schedule ? schedule->schedule : nullptr;
    }
  };

  /// One decode through the C ABI (no Python object is touched).
  tilemla_status decode(Call &c, uintptr_t stream) {
    return tilemla_mla_forward_decode(impl, c.q.get(), c.qPe.get(), c.kv.get(),
                                      &c.md, c.o.get(), c.lse.get(),
                                      reinterpret_cast<void *>(stream));
  }

  void forwardDecode(nb::handle q, nb::handle qPe, nb::handle kv,
                     nb::handle blockTable, nb::handle seqLens,
                     int64_t maxSeqLen, nb::handle o, nb::handle lse,
                     uintptr_t stream, std::optional<float> kvScale,
                     nb::handle kvScaleTensor, const Schedule *schedule) {
    Call c(q, qPe, kv, blockTable, seqLens, maxSeqLen, o, lse, kvScale,
           kvScaleTensor, schedule);
    tilemla_status status;
    {
      nb::gil_scoped_release unlocked; // the call queues work, or interprets
      status = decode(c, stream);
    }
    check(status);
  }

  /// For bench_overhead.py: the arrays read once, then `count` calls of
  /// the C ABI one after the other, each timed (ns): the C call beside the
  /// Python one in the same process, so that both see the same host.
  std::vector<int64_t> timeCCalls(nb::handle q, nb::handle qPe, nb::handle kv,
                                  nb::handle blockTable, nb::handle seqLens,
                                  int64_t maxSeqLen, nb::handle o,
                                  nb::handle lse, uintptr_t stream,
                                  int32_t count) {
    Call c(q, qPe, kv, blockTable, seqLens, maxSeqLen, o, lse, std::nullopt,
           nb::none(), nullptr);
    std::vector<int64_t> times;
    times.reserve(size_t(std::max(count, 0)));
    tilemla_status status = TILEMLA_OK;
    {
      nb::gil_scoped_release unlocked;
      for (int32_t i = 0; i < count && status == TILEMLA_OK; ++i) {
        auto start = std::chrono::steady_clock::now();
        status = decode(c, stream);
        times.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count());
      }
    }
    check(status);
    return times;
  }

  int32_t precompile(nb::handle q, nb::handle qPe, nb::handle kv,
                     nb::handle blockTable, nb::handle seqLens,
                     int64_t maxSeqLen, nb::handle o, nb::handle lse,
                     std::optional<float> kvScale, nb::handle kvScaleTensor,
                     const Schedule *schedule) {
    Call c(q, qPe, kv, blockTable, seqLens, maxSeqLen, o, lse, kvScale,
           kvScaleTensor, schedule);
    int32_t sets = 0;
    tilemla_status status;
    {
      nb::gil_scoped_release unlocked;
      status = tilemla_mla_precompile(impl, c.q.get(), c.qPe.get(), c.kv.get(),
                                      &c.md, c.o.get(), c.lse.get(), &sets);
    }
    check(status);
    return sets;
  }

  Schedule *newSchedule(int32_t queryLen) {
    tilemla_decode_schedule *schedule = nullptr;
    check(tilemla_mla_schedule_create(impl, queryLen, &schedule));
    return new Schedule(schedule);
  }

  void scheduleDecode(nb::handle seqLens, Schedule &schedule,
                      uintptr_t stream) {
    ArrayArg lens("seq_lens", seqLens, Access::ReadOnly);
    tilemla_decode_metadata md;
    tilemla_decode_metadata_init(&md);
    md.seq_lens = lens.get();
    tilemla_status status;
    {
      nb::gil_scoped_release unlocked;
      status = tilemla_mla_schedule_decode(impl, &md, schedule.schedule,
                                           reinterpret_cast<void *>(stream));
    }
    check(status);
  }

private:
  tilemla_mla_impl *impl = nullptr;
};

/// A generic kernel through the C ABI; tilemla/kernel.py gives it
/// `kernel[grid](*args)`.
class Kernel {
public:
  Kernel(const std::string &path, const std::optional<std::string> &source,
         const std::vector<std::pair<std::string, std::string>> &constexprs,
         uint32_t numWarps) {
    std::vector<tilemla_constexpr> values;
    for (const auto &[name, value] : constexprs)
      values.push_back({name.c_str(), value.c_str()});
    check(
        tilemla_kernel_create(path.c_str(), source ? source->c_str() : nullptr,
                              values.data(), values.size(), numWarps, &kernel));
  }
  ~Kernel() { tilemla_kernel_destroy(kernel); }
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  std::vector<std::string> parameterTypes() {
    size_t count = 0;
    const char *const *types = nullptr;
    check(tilemla_kernel_parameters(kernel, &count, &types));
    return std::vector<std::string>(types, types + count);
  }

  /// `kinds[i]` (a tilemla_arg_kind) says how to read `values[i]`: an
  /// ndarray for tensors, an int address for pointers, else a scalar.
  void launch(std::tuple<uint32_t, uint32_t, uint32_t> grid,
              const std::vector<int32_t> &kinds,
              const std::vector<nb::object> &values, uintptr_t stream) {
    if (kinds.size() != values.size())
      throw nb::value_error("launch: one kind per value");
    // Kept until the launch ends: the DLTensors point into them.
    std::vector<std::optional<ArrayArg>> arrays(values.size());
    std::vector<tilemla_arg> args(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      tilemla_arg &arg = args[i];
      arg.kind = kinds[i];
      const nb::handle value = values[i];
      switch (kinds[i]) {
      case TILEMLA_ARG_TENSOR:
      case TILEMLA_ARG_TENSOR_DESC:
        arrays[i].emplace(("args[" + std::to_string(i) + "]").c_str(), value,
                          Access::Writable);
        arg.value.tensor = arrays[i]->get();
        break;
      case TILEMLA_ARG_POINTER:
        arg.value.pointer =
            reinterpret_cast<const void *>(nb::cast<uintptr_t>(value));
        break;
      case TILEMLA_ARG_I32:
        arg.value.i32 = nb::cast<int32_t>(value);
        break;
      case TILEMLA_ARG_I64:
        arg.value.i64 = nb::cast<int64_t>(value);
        break;
      case TILEMLA_ARG_F32:
        arg.value.f32 = nb::cast<float>(value);
        break;
      case TILEMLA_ARG_BOOL:
        arg.value.boolean = nb::cast<bool>(value);
        break;
      default:
        break; // the C ABI names the kind
      }
    }
    const uint32_t dims[3] = {std::get<0>(grid), std::get<1>(grid),
                              std::get<2>(grid)};
    tilemla_status status;
    {
      nb::gil_scoped_release unlocked;
      status = tilemla_kernel_launch(kernel, dims, args.data(), args.size(),
                                     reinterpret_cast<void *>(stream));
    }
    check(status);
  }

  std::string emit(const std::string &stage,
                   const std::optional<std::string> &arch) {
    char *text = nullptr;
    check(tilemla_kernel_emit(kernel, stage.c_str(),
                              arch ? arch->c_str() : nullptr, &text));
    std::string out = text;
    tilemla_string_free(text);
    return out;
  }

private:
  tilemla_kernel *kernel = nullptr;
};
} // namespace

NB_MODULE(_tilemla, m) {
  m.doc() = "tilemla's native layer (the C ABI); use the tilemla package";
  errorType = PyErr_NewExceptionWithDoc(
      "tilemla.Error",
      "A failed tilemla call: bad arguments (the message names them), "
      "compile errors (file:line:col), CUDA errors.",
      PyExc_RuntimeError, nullptr);
  m.attr("Error") = nb::handle(errorType);
  m.def("interpreter_mode", [] { return tilemla_interpreter_mode() != 0; });
  // What a call would hand the C ABI for `array` (tests compare the torch
  // attribute path with DLPack's): (read directly, data address, device
  // type, device id, dtype code, bits, lanes, shape, strides, byte offset).
  m.def(
      "_describe_array",
      [](nb::handle array, bool writable, bool torchDirect) -> nb::object {
        ArrayArg arg("array", array,
                     writable ? Access::Writable : Access::ReadOnly,
                     torchDirect);
        const DLTensor *t = arg.get();
        if (!t)
          return nb::none();
        nb::list shape, strides;
        for (int i = 0; i < t->ndim; ++i) {
          shape.append(t->shape[i]);
          strides.append(t->strides ? nb::object(nb::int_(t->strides[i]))
                                    : nb::object(nb::none()));
        }
        return nb::make_tuple(
            arg.readDirectly(), reinterpret_cast<uintptr_t>(t->data),
            int(t->device.device_type), t->device.device_id, int(t->dtype.code),
            int(t->dtype.bits), int(t->dtype.lanes), nb::tuple(shape),
            nb::tuple(strides), t->byte_offset);
      },
      nb::arg("array").none(), nb::arg("writable") = false,
      nb::arg("torch_direct") = true);
  m.attr("ARG_POINTER") = int(TILEMLA_ARG_POINTER);
  m.attr("ARG_I32") = int(TILEMLA_ARG_I32);
  m.attr("ARG_I64") = int(TILEMLA_ARG_I64);
  m.attr("ARG_F32") = int(TILEMLA_ARG_F32);
  m.attr("ARG_BOOL") = int(TILEMLA_ARG_BOOL);
  m.attr("ARG_TENSOR") = int(TILEMLA_ARG_TENSOR);
  m.attr("ARG_TENSOR_DESC") = int(TILEMLA_ARG_TENSOR_DESC);

  nb::class_<MlaImpl>(m, "MlaImpl")
      .def(nb::init<int64_t, int64_t, double, int64_t, const std::string &,
                    int64_t, int64_t, int64_t, int64_t, int64_t, int32_t,
                    const std::string &, bool, int32_t, bool,
                    const std::string &>(),
           nb::arg("num_heads"), nb::arg("head_size"), nb::arg("scale"),
           nb::arg("num_kv_heads"), nb::arg("kv_cache_dtype"),
           nb::arg("kv_lora_rank"), nb::arg("qk_rope_head_dim"),
           nb::arg("qk_nope_head_dim"), nb::arg("v_head_dim"),
           nb::arg("max_batch"), nb::arg("max_query_len"),
           nb::arg("split_policy"), nb::arg("lse_in_query_dtype"),
           nb::arg("device"), nb::arg("check_inputs"),
           nb::arg("device_schedule"))
      .def("forward_decode", &MlaImpl::forwardDecode, nb::arg("q"),
           nb::arg("q_pe").none(), nb::arg("kv_cache"), nb::arg("block_table"),
           nb::arg("seq_lens"), nb::arg("max_seq_len"), nb::arg("o"),
           nb::arg("lse").none(), nb::arg("stream"), nb::arg("kv_scale").none(),
           nb::arg("kv_scale_tensor").none(), nb::arg("schedule").none())
      .def("_time_c_calls", &MlaImpl::timeCCalls, nb::arg("q"),
           nb::arg("q_pe").none(), nb::arg("kv_cache"), nb::arg("block_table"),
           nb::arg("seq_lens"), nb::arg("max_seq_len"), nb::arg("o"),
           nb::arg("lse").none(), nb::arg("stream"), nb::arg("count"))
      .def("precompile", &MlaImpl::precompile, nb::arg("q"),
           nb::arg("q_pe").none(), nb::arg("kv_cache"), nb::arg("block_table"),
           nb::arg("seq_lens"), nb::arg("max_seq_len"), nb::arg("o"),
           nb::arg("lse").none(), nb::arg("kv_scale").none(),
           nb::arg("kv_scale_tensor").none(), nb::arg("schedule").none())
      .def("new_schedule", &MlaImpl::newSchedule, nb::arg("query_len"),
           nb::rv_policy::take_ownership)
      .def("schedule_decode", &MlaImpl::scheduleDecode, nb::arg("seq_lens"),
           nb::arg("schedule"), nb::arg("stream"));

  nb::class_<Schedule>(m, "Schedule");

  nb::class_<Kernel>(m, "Kernel")
      .def(nb::init<const std::string &, const std::optional<std::string> &,
                    const std::vector<std::pair<std::string, std::string>> &,
                    uint32_t>(),
           nb::arg("path"), nb::arg("source").none(), nb::arg("constexprs"),
           nb::arg("num_warps"))
      .def("parameter_types", &Kernel::parameterTypes)
      .def("launch", &Kernel::launch, nb::arg("grid"), nb::arg("kinds"),
           nb::arg("values"), nb::arg("stream"))
      .def("emit", &Kernel::emit, nb::arg("stage"), nb::arg("arch").none());
}
