//===- MlaCApi.cpp - TritonMLAImpl behind the C ABI -----------------------===//
#include "CApiSupport.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

using namespace tilemla;
using namespace tilemla::capi;

struct tilemla_decode_schedule {
  std::unique_ptr<mla::DecodeSchedule> schedule;
};

struct tilemla_mla_impl {
  std::unique_ptr<mla::TritonMLAImpl> impl;
  int device = 0;
  /// How a uint8 cache is read: an fp8 cache's e4m3 codes, or bytes.
  mla::DType cacheBytesAs = mla::DType::U8;
};

namespace {
template <typename Struct>
void checkStructSize(const Struct *value, const char *name) {
  requireNonNull(value, name);
  if (value->struct_size != sizeof(Struct))
    throw ArgumentError(fmt::format(
        "{}: struct_size {} but this library's is {} (fill it with its "
        "_init function, from the same tilemla_c.h)",
        name, value->struct_size, sizeof(Struct)));
}

mla::DeviceSchedule deviceScheduleOf(int32_t schedule) {
  switch (schedule) {
  case TILEMLA_DEVICE_SCHEDULE_DEFAULT:
    return mla::DeviceSchedule::Default;
  case TILEMLA_DEVICE_SCHEDULE_OFF:
    return mla::DeviceSchedule::Off;
  case TILEMLA_DEVICE_SCHEDULE_ALWAYS:
    return mla::DeviceSchedule::Always;
  }
  throw ArgumentError(fmt::format("config.device_schedule: {} is not a "
                                  "tilemla_device_schedule (0, 1 or 2)",
                                  schedule));
}

mla::SplitPolicy splitPolicyOf(int32_t policy) {
  switch (policy) {
  case TILEMLA_SPLIT_FIXED4:
    return mla::SplitPolicy::Fixed4;
  case TILEMLA_SPLIT_BATCH_INVARIANT:
    return mla::SplitPolicy::BatchInvariant;
  case TILEMLA_SPLIT_AUTO:
    return mla::SplitPolicy::Auto;
  }
  throw ArgumentError(fmt::format("config.split_policy: {} is not a "
                                  "tilemla_split_policy (0, 1 or 2)",
                                  policy));
}

/// A decode call's tensors as the C++ API's views, kept by the thread for
/// its next call: their vectors keep their storage, so converting a call's
/// arguments allocates nothing (it runs on every call of every layer).
struct DecodeViews {
  mla::TensorView q, qPe, kv, o, lse;
  mla::DecodeMetadata metadata;
};

/// A decode call's C arguments as the C++ API's.
struct DecodeArgs {
  DecodeViews &views;
  mla::TensorView &q, &qPe, &kv, &o, &lse;
  mla::DecodeMetadata &metadata;
  bool paired = false, withLse = false;
  CallLoans loans;

  static DecodeViews &threadViews() {
    thread_local DecodeViews views;
    return views;
  }

  DecodeArgs(const tilemla_mla_impl &h, const DLTensor *qIn,
             const DLTensor *qPeIn, const DLTensor *kvIn,
             const tilemla_decode_metadata *md, const DLTensor *oIn,
             const DLTensor *lseIn)
      : views(threadViews()), q(views.q), qPe(views.qPe), kv(views.kv),
        o(views.o), lse(views.lse), metadata(views.metadata) {
    checkStructSize(md, "metadata");
    paired = qPeIn != nullptr;
    withLse = lseIn != nullptr;
    toView(q, paired ? "q_nope" : "q", qIn, h.device);
    if (paired)
      toView(qPe, "q_pe", qPeIn, h.device);
    toView(kv, "kv_cache", kvIn, h.device, h.cacheBytesAs);
    toView(o, "o", oIn, h.device);
    if (withLse)
      toView(lse, "lse", lseIn, h.device);
    toView(metadata.block_table, "metadata.block_table", md->block_table,
           h.device);
    toView(metadata.seq_lens, "metadata.seq_lens", md->seq_lens, h.device);
    metadata.max_seq_len = md->max_seq_len;
    metadata.schedule = md->schedule ? md->schedule->schedule.get() : nullptr;
    for (const DLTensor *t : {qIn, qPeIn, kvIn, oIn, lseIn, md->block_table,
                              md->seq_lens, md->kv_scale_tensor})
      if (t)
        loans.add(*t);
    metadata.kv_scale =
        md->has_kv_scale ? std::optional<float>(md->kv_scale) : std::nullopt;
    if (md->kv_scale_tensor)
      toView(metadata.kv_scale_tensor, "metadata.kv_scale_tensor",
             md->kv_scale_tensor, h.device);
    else
      metadata.kv_scale_tensor.data = nullptr; // "not given"
  }
};
} // namespace

extern "C" {
void tilemla_mla_config_init(tilemla_mla_config *config) {
  if (!config)
    return;
  const mla::MLAArgs shape;
  const mla::TritonMLAOptions options;
  *config = tilemla_mla_config{};
  config->struct_size = sizeof(tilemla_mla_config);
  config->num_heads = 128;
  config->head_size = shape.kv_lora_rank + shape.qk_rope_head_dim;
  config->scale =
      1.0 / std::sqrt(double(shape.qk_nope_head_dim + shape.qk_rope_head_dim));
  config->num_kv_heads = 1;
  config->kv_cache_dtype = "auto";
  config->kv_lora_rank = shape.kv_lora_rank;
  config->qk_rope_head_dim = shape.qk_rope_head_dim;
  config->qk_nope_head_dim = shape.qk_nope_head_dim;
  config->v_head_dim = shape.v_head_dim;
  config->max_batch = options.maxBatch;
  config->max_query_len = options.maxQueryLen;
  config->split_policy = int32_t(options.splitPolicy);
  config->lse_in_query_dtype = options.lseDtype == mla::LseDType::Query;
  config->device = options.device;
  config->check_inputs = options.checkInputs;
  config->device_schedule = TILEMLA_DEVICE_SCHEDULE_DEFAULT;
}

tilemla_status tilemla_mla_create(const tilemla_mla_config *config,
                                  tilemla_mla_impl **impl) {
  return guarded([&] {
    requireNonNull(impl, "impl");
    *impl = nullptr;
    checkStructSize(config, "config");
    mla::TritonMLAOptions options;
    options.maxBatch = config->max_batch;
    options.maxQueryLen = config->max_query_len;
    options.splitPolicy = splitPolicyOf(config->split_policy);
    options.lseDtype =
        config->lse_in_query_dtype ? mla::LseDType::Query : mla::LseDType::F32;
    options.device = config->device;
    options.checkInputs = config->check_inputs != 0;
    options.deviceSchedule = deviceScheduleOf(config->device_schedule);
    const std::string kvDtype =
        config->kv_cache_dtype ? config->kv_cache_dtype : "auto";
    auto handle = std::make_unique<tilemla_mla_impl>();
    handle->impl = std::make_unique<mla::TritonMLAImpl>(
        config->num_heads, config->head_size, config->scale,
        config->num_kv_heads, std::nullopt, std::nullopt, kvDtype, std::nullopt,
        "decoder", std::nullopt,
        mla::MLAArgs{config->kv_lora_rank, config->qk_rope_head_dim,
                     config->qk_nope_head_dim, config->v_head_dim},
        options);
    handle->device = config->device;
    if (kvDtype == "fp8" || kvDtype == "fp8_e4m3")
      handle->cacheBytesAs = mla::DType::FP8E4M3;
    *impl = handle.release();
  });
}

void tilemla_mla_destroy(tilemla_mla_impl *impl) { delete impl; }

tilemla_status tilemla_mla_schedule_create(tilemla_mla_impl *impl,
                                           int32_t query_len,
                                           tilemla_decode_schedule **schedule) {
  return guarded([&] {
    requireNonNull(schedule, "schedule");
    *schedule = nullptr;
    requireNonNull(impl, "impl");
    auto made = std::make_unique<tilemla_decode_schedule>();
    made->schedule = impl->impl->newDecodeSchedule(query_len);
    *schedule = made.release();
  });
}

void tilemla_decode_schedule_destroy(tilemla_decode_schedule *s) { delete s; }

tilemla_status
tilemla_mla_schedule_decode(tilemla_mla_impl *impl,
                            const tilemla_decode_metadata *metadata,
                            tilemla_decode_schedule *schedule, void *stream) {
  return guarded([&] {
    requireNonNull(impl, "impl");
    requireNonNull(schedule, "schedule");
    checkStructSize(metadata, "metadata");
    mla::DecodeMetadata md;
    md.seq_lens = toView("metadata.seq_lens", metadata->seq_lens, impl->device);
    CallLoans loans;
    loans.add(*metadata->seq_lens);
    impl->impl->scheduleDecode(md, *schedule->schedule, stream);
  });
}

void tilemla_decode_metadata_init(tilemla_decode_metadata *md) {
  if (!md)
    return;
  *md = tilemla_decode_metadata{};
  md->struct_size = sizeof(tilemla_decode_metadata);
  md->max_seq_len = -1;
}

tilemla_status tilemla_mla_forward_decode(
    tilemla_mla_impl *impl, const DLTensor *q, const DLTensor *q_pe,
    const DLTensor *kv_cache, const tilemla_decode_metadata *metadata,
    const DLTensor *o, const DLTensor *lse, void *stream) {
  return guarded([&] {
    requireNonNull(impl, "impl");
    DecodeArgs a(*impl, q, q_pe, kv_cache, metadata, o, lse);
    mla::TritonMLAImpl &backend = *impl->impl;
    if (a.paired && a.withLse)
      backend.forward_decode(a.q, a.qPe, a.kv, a.metadata, a.o, a.lse, stream);
    else if (a.paired)
      backend.forward_decode(a.q, a.qPe, a.kv, a.metadata, a.o, stream);
    else if (a.withLse)
      backend.forward_decode(a.q, a.kv, a.metadata, a.o, a.lse, stream);
    else
      backend.forward_decode(a.q, a.kv, a.metadata, a.o, stream);
  });
}

tilemla_status tilemla_mla_precompile(tilemla_mla_impl *impl, const DLTensor *q,
                                      const DLTensor *q_pe,
                                      const DLTensor *kv_cache,
                                      const tilemla_decode_metadata *metadata,
                                      const DLTensor *o, const DLTensor *lse,
                                      int32_t *sets) {
  return guarded([&] {
    requireNonNull(impl, "impl");
    DecodeArgs a(*impl, q, q_pe, kv_cache, metadata, o, lse);
    mla::TritonMLAImpl &backend = *impl->impl;
    int prepared =
        a.paired && a.withLse
            ? backend.precompile(a.q, a.qPe, a.kv, a.metadata, a.o, a.lse)
        : a.paired  ? backend.precompile(a.q, a.qPe, a.kv, a.metadata, a.o)
        : a.withLse ? backend.precompile(a.q, a.kv, a.metadata, a.o, a.lse)
                    : backend.precompile(a.q, a.kv, a.metadata, a.o);
    if (sets)
      *sets = prepared;
  });
}
}
