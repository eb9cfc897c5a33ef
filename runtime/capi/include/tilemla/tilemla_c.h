/*===- tilemla_c.h - tilemla's C ABI --------------------------------------===*
 *
 * A C interface to the MLA decode backend (tilemla/mla/TritonMLA.h) and to
 * the generic kernel API (tilemla/Runtime.h), for callers that cannot take
 * C++: other languages' bindings, engines with a C plugin boundary.
 *
 *  - Objects are opaque handles, made by *_create and released by
 *    *_destroy (which take NULL).
 *  - Every other function returns a tilemla_status; no exception crosses
 *    this boundary. On failure tilemla_last_error() gives the message (the
 *    C++ API's, naming the argument) until the thread's next call here.
 *  - Tensors are DLPack DLTensors: data + byte_offset, shape, strides in
 *    elements (NULL: compact row-major), dtype with one lane. CUDA tensors
 *    (kDLCUDA) on the device the handle was made for; CPU tensors
 *    (kDLCPU) only when the library runs kernels in its interpreter
 *    (TILEMLA_INTERPRET=1), where device memory is host memory.
 *  - Streams are CUstream / cudaStream_t values passed as void *; NULL is
 *    the legacy default stream.
 *  - Options structs start with struct_size: fill them with *_init (a macro:
 *    *_init_sized with the caller's sizeof), which writes the defaults and
 *    that size. The library reads only struct_size bytes: a struct from an
 *    older tilemla_c.h gets the defaults of the fields it lacks, and one
 *    from a newer header is taken if the fields this library does not know
 *    are zero (fields are only appended, and zero is each new field's
 *    default). Bindings that lay a struct out themselves (ctypes) call
 *    *_init_sized with their own size. (Until 0.1 the init functions took
 *    no size and wrote this header's: a caller built against another
 *    header fails to link them rather than have its memory overwritten.)
 *
 *===----------------------------------------------------------------------===*/
#ifndef TILEMLA_TILEMLA_C_H
#define TILEMLA_TILEMLA_C_H

#include "tilemla/Export.h"

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilemla_status {
  TILEMLA_OK = 0,
  /** An argument of this C call itself: a NULL handle or output pointer, a
   *  tensor the library cannot take (its dtype, lanes, device), a struct
   *  of another size. */
  TILEMLA_ERROR_INVALID_ARGUMENT = 1,
  /** What the library reports (tilemla::Error): argument checks of the
   *  C++ API, compile errors (file:line:col), CUDA errors. */
  TILEMLA_ERROR_LIBRARY = 2,
  TILEMLA_ERROR_OUT_OF_MEMORY = 3,
  /** Any other failure inside the library. */
  TILEMLA_ERROR_INTERNAL = 4
} tilemla_status;

/** The message of this thread's last failed call ("" when the last call
 *  succeeded); valid until the thread's next call into this API. */
TILEMLA_API const char *tilemla_last_error(void);

/** "ok", "invalid argument", ... */
TILEMLA_API const char *tilemla_status_name(tilemla_status status);

/** Whether kernels run in the CPU interpreter (TILEMLA_INTERPRET=1). */
TILEMLA_API int tilemla_interpreter_mode(void);

/* ---- MLA decode (TritonMLAImpl) ---------------------------------------- */

typedef struct tilemla_mla_impl tilemla_mla_impl;
/** One decode step's work schedule, made once and read by every layer's
 *  call (DecodeSchedule). */
typedef struct tilemla_decode_schedule tilemla_decode_schedule;

typedef enum tilemla_split_policy {
  TILEMLA_SPLIT_FIXED4 = 0,
  TILEMLA_SPLIT_BATCH_INVARIANT = 1,
  TILEMLA_SPLIT_AUTO = 2
} tilemla_split_policy;

/** Where TILEMLA_SPLIT_AUTO schedules on the device (DeviceSchedule). */
typedef enum tilemla_device_schedule {
  TILEMLA_DEVICE_SCHEDULE_DEFAULT = 0, /**< where it measured faster */
  TILEMLA_DEVICE_SCHEDULE_OFF = 1,
  TILEMLA_DEVICE_SCHEDULE_ALWAYS = 2
} tilemla_device_schedule;

/** The seed's constructor arguments and the options a caller sets most. */
typedef struct tilemla_mla_config {
  size_t struct_size;
  int64_t num_heads;
  int64_t head_size; /**< kv_lora_rank + qk_rope_head_dim */
  double scale;
  int64_t num_kv_heads;
  /** "auto", "fp8", "fp8_e4m3" or "fp8_ds_mla" (NULL: "auto"). */
  const char *kv_cache_dtype;
  int64_t kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
  int64_t max_batch;
  int32_t max_query_len;
  int32_t split_policy;       /**< tilemla_split_policy */
  int32_t lse_in_query_dtype; /**< 0: lse in f32; 1: in q's dtype */
  int32_t device;             /**< CUDA ordinal; -1: validate only */
  int32_t check_inputs;       /**< TritonMLAOptions::checkInputs */
  int32_t device_schedule;    /**< tilemla_device_schedule */
} tilemla_mla_config;

/** DeepSeek-V3's shape (R 512, rope 64, 128 heads), scale 1/sqrt(192),
 *  "auto" cache, the TritonMLAOptions defaults, device 0, into the first
 *  struct_size bytes of *config: a size this struct has had (from its first
 *  layout's, in multiples of its alignment) or a newer header's (up to 256
 *  bytes more, filled with zeros). */
TILEMLA_API tilemla_status
tilemla_mla_config_init_sized(tilemla_mla_config *config, size_t struct_size);
#define tilemla_mla_config_init(config)                                        \
  tilemla_mla_config_init_sized((config), sizeof *(config))

TILEMLA_API tilemla_status tilemla_mla_create(const tilemla_mla_config *config,
                                              tilemla_mla_impl **impl);
TILEMLA_API void tilemla_mla_destroy(tilemla_mla_impl *impl);

/** A decode call's metadata (DecodeMetadata). */
typedef struct tilemla_decode_metadata {
  size_t struct_size;
  const DLTensor *block_table; /**< [B, max_pages] int32 */
  const DLTensor *seq_lens;    /**< [B] int32 */
  int64_t max_seq_len;         /**< -1: unknown */
  /** An fp8 cache's scale: a host number (has_kv_scale != 0) or one
   *  float32 on the device (kv_scale_tensor, NULL: none). */
  int32_t has_kv_scale;
  float kv_scale;
  const DLTensor *kv_scale_tensor;
  /** A schedule tilemla_mla_schedule_decode made from these seq_lens for
   *  this step (NULL: calls that schedule on the device make their own). */
  const tilemla_decode_schedule *schedule;
} tilemla_decode_metadata;

/** No tensors, max_seq_len -1, no scale, no schedule, into the first
 *  struct_size bytes of *md (as tilemla_mla_config_init_sized). */
TILEMLA_API tilemla_status tilemla_decode_metadata_init_sized(
    tilemla_decode_metadata *md, size_t struct_size);
#define tilemla_decode_metadata_init(md)                                       \
  tilemla_decode_metadata_init_sized((md), sizeof *(md))

/** forward_decode: q [B, H, R + P] (or [B, s_q, H, R + P]), or with q_pe
 *  not NULL the pair q = q_nope [.., R] and q_pe [.., P]; lse NULL: not
 *  returned. An fp8 cache may be uint8 or float8_e4m3fn; an fp8_ds_mla
 *  cache uint8. Queued on `stream`; the host is not synchronized. */
TILEMLA_API tilemla_status tilemla_mla_forward_decode(
    tilemla_mla_impl *impl, const DLTensor *q, const DLTensor *q_pe,
    const DLTensor *kv_cache, const tilemla_decode_metadata *metadata,
    const DLTensor *o, const DLTensor *lse, void *stream);

/** precompile: compiles every kernel set calls like this one can choose
 *  (every batch up to q's, every split count); *sets (may be NULL) gets
 *  how many were prepared. */
TILEMLA_API tilemla_status tilemla_mla_precompile(
    tilemla_mla_impl *impl, const DLTensor *q, const DLTensor *q_pe,
    const DLTensor *kv_cache, const tilemla_decode_metadata *metadata,
    const DLTensor *o, const DLTensor *lse, int32_t *sets);

/** A schedule for this impl's configuration, for calls of up to its
 *  max_batch requests of `query_len` query tokens (allocated once: a CUDA
 *  graph can capture the steps that fill it). */
TILEMLA_API tilemla_status
tilemla_mla_schedule_create(tilemla_mla_impl *impl, int32_t query_len,
                            tilemla_decode_schedule **schedule);
TILEMLA_API void tilemla_decode_schedule_destroy(tilemla_decode_schedule *s);

/** Fills `schedule` from metadata->seq_lens on `stream` (of the rest of
 *  the metadata only struct_size is checked), for the step's calls that
 *  pass it in their metadata. Never synchronizes. */
TILEMLA_API tilemla_status tilemla_mla_schedule_decode(
    tilemla_mla_impl *impl, const tilemla_decode_metadata *metadata,
    tilemla_decode_schedule *schedule, void *stream);

/* ---- Generic kernels (Kernel) ------------------------------------------ */

typedef struct tilemla_kernel tilemla_kernel;

/** A constexpr or dtype specialization value: NAME=VALUE. */
typedef struct tilemla_constexpr {
  const char *name;
  const char *value;
} tilemla_constexpr;

/** A kernel from tile-language source `source` (its diagnostics name
 *  `path`), or with `source` NULL, read from the file at `path`, or with
 *  `path` starting "embedded:", the library's own kernel of that name
 *  ("embedded:examples/softmax"). num_warps 0: the kernel's default.
 *  Nothing is compiled until the first launch (or prepare). */
TILEMLA_API tilemla_status tilemla_kernel_create(
    const char *path, const char *source, const tilemla_constexpr *constexprs,
    size_t count, uint32_t num_warps, tilemla_kernel **kernel);
TILEMLA_API void tilemla_kernel_destroy(tilemla_kernel *kernel);

typedef enum tilemla_arg_kind {
  TILEMLA_ARG_POINTER = 0, /**< pointer: a device address */
  TILEMLA_ARG_I32 = 1,
  TILEMLA_ARG_I64 = 2,
  TILEMLA_ARG_F32 = 3,
  TILEMLA_ARG_BOOL = 4,
  /** For a pointer parameter: the tensor's first element. */
  TILEMLA_ARG_TENSOR = 5,
  /** For a desc<T> parameter: a 2-D tensor with a unit last stride. */
  TILEMLA_ARG_TENSOR_DESC = 6
} tilemla_arg_kind;

/** One launch argument; `unspecialized` keeps a scalar's value out of the
 *  specialization key (KernelArg::unspecialized). */
typedef struct tilemla_arg {
  int32_t kind; /**< tilemla_arg_kind */
  int32_t unspecialized;
  union {
    const void *pointer;
    int32_t i32;
    int64_t i64;
    float f32;
    int32_t boolean;
    const DLTensor *tensor;
  } value;
} tilemla_arg;

/** The parameters a launch passes, in order: *count of them, (*types)[i]
 *  as "*f32", "i32", "i64", "f32", "i1" or "desc<bf16>" (owned by the
 *  kernel, valid until it is destroyed). Parses the source; no GPU needed. */
TILEMLA_API tilemla_status tilemla_kernel_parameters(tilemla_kernel *kernel,
                                                     size_t *count,
                                                     const char *const **types);

/** Launches grid[0] x grid[1] x grid[2] programs on `stream`, compiling
 *  and loading on first use; the arguments are checked against the
 *  kernel's parameters. */
TILEMLA_API tilemla_status tilemla_kernel_launch(tilemla_kernel *kernel,
                                                 const uint32_t grid[3],
                                                 const tilemla_arg *args,
                                                 size_t count, void *stream);

/** The kernel's code at a stage of the compiler, as `tilec --emit=STAGE`
 *  prints it: "ast", "tile", "tile-gpu", "llvm-mlir", "llvm" or "ptx", for
 *  `arch` (NULL: the current device's, or sm_90a without one). The string
 *  is the caller's, released with tilemla_string_free. Specialized as a
 *  launch with no known argument facts would be. */
TILEMLA_API tilemla_status tilemla_kernel_emit(tilemla_kernel *kernel,
                                               const char *stage,
                                               const char *arch, char **text);
TILEMLA_API void tilemla_string_free(char *text);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEMLA_TILEMLA_C_H */
