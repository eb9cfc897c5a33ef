//===- MlaCApi.cpp - TritonMLAImpl behind the C ABI -----------------------===//
#include "CApiSupport.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
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
/// What *_init writes; the (unused) argument picks the struct.
tilemla_mla_config defaultsOf(const tilemla_mla_config *) {
  const mla::MLAArgs shape;
  const mla::TritonMLAOptions options;
  tilemla_mla_config config{};
  config.struct_size = sizeof(tilemla_mla_config);
  config.num_heads = 128;
  config.head_size = shape.kv_lora_rank + shape.qk_rope_head_dim;
  config.scale =
      1.0 / std::sqrt(double(shape.qk_nope_head_dim + shape.qk_rope_head_dim));
  config.num_kv_heads = 1;
  config.kv_cache_dtype = "auto";
  config.kv_lora_rank = shape.kv_lora_rank;
  config.qk_rope_head_dim = shape.qk_rope_head_dim;
  config.qk_nope_head_dim = shape.qk_nope_head_dim;
  config.v_head_dim = shape.v_head_dim;
  config.max_batch = options.maxBatch;
  config.max_query_len = options.maxQueryLen;
  config.split_policy = int32_t(options.splitPolicy);
  config.lse_in_query_dtype = options.lseDtype == mla::LseDType::Query;
  config.device = options.device;
  config.check_inputs = options.checkInputs;
  config.device_schedule = TILEMLA_DEVICE_SCHEDULE_DEFAULT;
  return config;
}

tilemla_decode_metadata defaultsOf(const tilemla_decode_metadata *) {
  tilemla_decode_metadata md{};
  md.struct_size = sizeof(tilemla_decode_metadata);
  md.max_seq_len = -1;
  return md;
}

/// The sizes a struct has had in tilemla_c.h, from its first published
/// layout to this library's. Fields are only ever appended, and a struct
/// never ends in padding, so a size says which fields a caller has.
template <typename Struct> struct StructSizes;
template <> struct StructSizes<tilemla_mla_config> {
  static constexpr size_t first = sizeof(tilemla_mla_config);
};
template <> struct StructSizes<tilemla_decode_metadata> {
  // Before `schedule`.
  static constexpr size_t first = offsetof(tilemla_decode_metadata, schedule);
};
static_assert(offsetof(tilemla_mla_config, device_schedule) + sizeof(int32_t) ==
                  sizeof(tilemla_mla_config),
              "tilemla_mla_config ends in padding: a field added there "
              "would not change its size");
static_assert(offsetof(tilemla_decode_metadata, schedule) + sizeof(void *) ==
                  sizeof(tilemla_decode_metadata),
              "tilemla_decode_metadata ends in padding");
/// How far past this library's struct a newer header's may reach.
constexpr size_t kNewerFieldsBytes = 256;

/// A struct_size some tilemla_c.h's struct has had or may have: from the
/// first layout's to a little past this library's, in whole multiples of
/// the struct's alignment.
template <typename Struct> void checkStructSize(size_t size, const char *name) {
  constexpr size_t least = StructSizes<Struct>::first;
  constexpr size_t most = sizeof(Struct) + kNewerFieldsBytes;
  if (size < least || size > most || size % alignof(Struct) != 0)
    throw ArgumentError(fmt::format(
        "{}: struct_size {} is not the size of a tilemla_c.h struct (a "
        "multiple of {} from {} to {}; this library's is {})",
        name, size, alignof(Struct), least, most, sizeof(Struct)));
}

/// The caller's struct read as this library's, touching only its
/// struct_size bytes: one from an older tilemla_c.h gets the defaults of
/// the fields it lacks; one from a newer header must leave the fields this
/// library does not know at zero (their defaults).
template <typename Struct>
Struct readStruct(const Struct *value, const char *name) {
  requireNonNull(value, name);
  size_t size = 0; // the caller's object may be smaller than Struct
  std::memcpy(&size, value, sizeof size);
  checkStructSize<Struct>(size, name);
  Struct result = defaultsOf(value);
  const auto *bytes = reinterpret_cast<const unsigned char *>(value);
  std::memcpy(&result, bytes, std::min(size, sizeof(Struct)));
  for (size_t i = sizeof(Struct); i < size; ++i)
    if (bytes[i] != 0)
      throw ArgumentError(fmt::format(
          "{}: byte {} of its struct_size {} is set, in a field this library "
          "does not know (its struct_size is {})",
          name, i, size, sizeof(Struct)));
  return result;
}

/// *_init_sized: the defaults into the caller's `size` bytes.
template <typename Struct>
tilemla_status initStruct(Struct *value, size_t size, const char *name) {
  return guarded([&] {
    requireNonNull(value, name);
    checkStructSize<Struct>(size, name);
    Struct defaults = defaultsOf(value);
    defaults.struct_size = size;
    auto *bytes = reinterpret_cast<unsigned char *>(value);
    std::memcpy(bytes, &defaults, std::min(size, sizeof(Struct)));
    if (size > sizeof(Struct))
      std::memset(bytes + sizeof(Struct), 0, size - sizeof(Struct));
  });
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
             const tilemla_decode_metadata *mdIn, const DLTensor *oIn,
             const DLTensor *lseIn)
      : views(threadViews()), q(views.q), qPe(views.qPe), kv(views.kv),
        o(views.o), lse(views.lse), metadata(views.metadata) {
    const tilemla_decode_metadata given = readStruct(mdIn, "metadata");
    const tilemla_decode_metadata *md = &given;
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
tilemla_status tilemla_mla_config_init_sized(tilemla_mla_config *config,
                                             size_t struct_size) {
  return initStruct(config, struct_size, "config");
}

tilemla_status tilemla_mla_create(const tilemla_mla_config *given,
                                  tilemla_mla_impl **impl) {
  return guarded([&] {
    requireNonNull(impl, "impl");
    *impl = nullptr;
    const tilemla_mla_config read = readStruct(given, "config");
    const tilemla_mla_config *config = &read;
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
    const tilemla_decode_metadata given = readStruct(metadata, "metadata");
    mla::DecodeMetadata md;
    md.seq_lens = toView("metadata.seq_lens", given.seq_lens, impl->device);
    CallLoans loans;
    loans.add(*given.seq_lens);
    impl->impl->scheduleDecode(md, *schedule->schedule, stream);
  });
}

tilemla_status tilemla_decode_metadata_init_sized(tilemla_decode_metadata *md,
                                                  size_t struct_size) {
  return initStruct(md, struct_size, "metadata");
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
