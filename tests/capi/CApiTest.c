/*===- CApiTest.c - tilemla_c.h from C ------------------------------------===*
 *
 * A C program (compiled as C99) that drives the C ABI in the interpreter
 * (TILEMLA_INTERPRET=1: CPU tensors are device memory):
 *  - a full MLA decode (bf16, 16 heads, pages of 16 tokens in a shuffled
 *    block table, lengths 37, 0 and 20) in each form (q whole or the pair,
 *    with and without lse) against an fp64 reference computed here, o
 *    row-relative <= 1e-2, lse <= 1e-3, outputs poisoned first;
 *  - a generic kernel (vector_add) from source, launched with tensors and
 *    pointers, and its PTX and tile IR through tilemla_kernel_emit;
 *  - every error path: each status, and each message naming its argument.
 * Exits non-zero on the first failed check.
 *
 *===----------------------------------------------------------------------===*/
#include "tilemla/tilemla_c.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__,  \
              __LINE__, #cond, tilemla_last_error());                          \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* `call` returns `status` and the message contains `text`. */
#define EXPECT_ERROR(call, status, text)                                       \
  do {                                                                         \
    tilemla_status got_ = (call);                                              \
    if (got_ != (status) || !strstr(tilemla_last_error(), (text))) {           \
      fprintf(stderr,                                                          \
              "%s:%d: %s gave '%s' (%s), expected '%s' containing '%s'\n",     \
              __FILE__, __LINE__, #call, tilemla_status_name(got_),            \
              tilemla_last_error(), tilemla_status_name(status), (text));      \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* ---- bf16 and tensors --------------------------------------------------- */

static uint16_t to_bf16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  bits += 0x7fff + ((bits >> 16) & 1); /* round to nearest even */
  return (uint16_t)(bits >> 16);
}

static double from_bf16(uint16_t half) {
  uint32_t bits = (uint32_t)half << 16;
  float value;
  memcpy(&value, &bits, 4);
  return value;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static float uniform(void) { /* [-1, 1) */
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (float)((rng_state >> 11) * (1.0 / 9007199254740992.0)) * 2 - 1;
}

enum { MAX_DIMS = 4 };
typedef struct {
  DLTensor t;
  int64_t shape[MAX_DIMS];
} tensor;

/* *x: a compact CPU tensor over `data` (its DLTensor points at x->shape,
 * so a tensor is made in place, and copied with copy_tensor). */
static void make_tensor(tensor *x, void *data, DLDataTypeCode code, int bits,
                        int ndim, const int64_t *shape) {
  memset(x, 0, sizeof *x);
  memcpy(x->shape, shape, sizeof(int64_t) * (size_t)ndim);
  x->t.data = data;
  x->t.device.device_type = kDLCPU;
  x->t.ndim = ndim;
  x->t.dtype.code = (uint8_t)code;
  x->t.dtype.bits = (uint8_t)bits;
  x->t.dtype.lanes = 1;
  x->t.shape = x->shape;
}

static void copy_tensor(tensor *x, const tensor *from) {
  *x = *from;
  x->t.shape = x->shape;
}

/* ---- the decode --------------------------------------------------------- */

enum { B = 3, H = 16, R = 512, P = 64, D = R + P, PAGE = 16, PAGES = 8 };
static const int32_t lens[B] = {37, 0, 20};
static const double softmax_scale = 0.0721687836;

static uint16_t q[B * H * D], kv[PAGES * PAGE * D];
static uint16_t q_nope[B * H * R], q_pe[B * H * P];
static uint16_t o[B * H * R];
static float lse[B * H];
static int32_t block_table[B * 4];
static double ref_o[B * H * R], ref_lse[B * H];

static void make_problem(void) {
  for (size_t i = 0; i < sizeof q / 2; ++i)
    q[i] = to_bf16(uniform());
  for (size_t i = 0; i < sizeof kv / 2; ++i)
    kv[i] = to_bf16(uniform());
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      memcpy(&q_nope[(b * H + h) * R], &q[(b * H + h) * D], R * 2);
      memcpy(&q_pe[(b * H + h) * P], &q[(b * H + h) * D + R], P * 2);
    }
  /* Pages out of order: request 0 has 3, request 2 has 2. */
  const int32_t table[B * 4] = {5, 2, 7, 0, 0, 0, 0, 0, 1, 6, 0, 0};
  memcpy(block_table, table, sizeof table);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      double s[64], peak = -INFINITY, total = 0;
      const uint16_t *qrow = &q[(b * H + h) * D];
      for (int t = 0; t < lens[b]; ++t) {
        const uint16_t *k =
            &kv[(block_table[b * 4 + t / PAGE] * PAGE + t % PAGE) * D];
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += from_bf16(qrow[d]) * from_bf16(k[d]);
        s[t] = dot * softmax_scale;
        peak = s[t] > peak ? s[t] : peak;
      }
      double *orow = &ref_o[(b * H + h) * R];
      memset(orow, 0, R * sizeof(double));
      for (int t = 0; t < lens[b]; ++t)
        total += (s[t] = exp(s[t] - peak));
      for (int t = 0; t < lens[b]; ++t) {
        const uint16_t *v =
            &kv[(block_table[b * 4 + t / PAGE] * PAGE + t % PAGE) * D];
        for (int d = 0; d < R; ++d)
          orow[d] += s[t] / total * from_bf16(v[d]);
      }
      ref_lse[b * H + h] = lens[b] ? peak + log(total) : -INFINITY;
    }
}

/* Worst row-relative error of o (an empty request's row must be 0) and
 * absolute error of lse (-inf exactly where expected). */
static void compare(int with_lse, const char *form) {
  double worst_o = 0, worst_lse = 0;
  for (int row = 0; row < B * H; ++row) {
    double peak = 0, err = 0;
    for (int d = 0; d < R; ++d)
      peak = fmax(peak, fabs(ref_o[row * R + d]));
    for (int d = 0; d < R; ++d) {
      double got = from_bf16(o[row * R + d]), want = ref_o[row * R + d];
      double diff = isnan(got) ? INFINITY : fabs(got - want);
      err = fmax(err, peak > 0 ? diff / peak : diff);
    }
    worst_o = fmax(worst_o, err);
    if (with_lse) {
      double want = ref_lse[row], got = lse[row];
      worst_lse = fmax(worst_lse, isinf(want) ? (got == want ? 0 : INFINITY)
                                              : fabs(got - want));
    }
  }
  printf("[ capi ] decode (%s): o %.3e, lse %.3e\n", form, worst_o, worst_lse);
  CHECK(worst_o <= 1e-2);
  CHECK(worst_lse <= 1e-3);
}

/* The decode's arguments over the problem's arrays, made in place. */
typedef struct {
  tensor q, q_nope, q_pe, kv, o, lse, block_table, seq_lens;
  tilemla_decode_metadata md;
} decode_args;

static void make_decode_args(decode_args *a) {
  const int64_t q_shape[] = {B, H, D}, qn_shape[] = {B, H, R},
                qp_shape[] = {B, H, P}, kv_shape[] = {PAGES, PAGE, D},
                o_shape[] = {B, H, R}, lse_shape[] = {B, H},
                bt_shape[] = {B, 4}, lens_shape[] = {B};
  make_tensor(&a->q, q, kDLBfloat, 16, 3, q_shape);
  make_tensor(&a->q_nope, q_nope, kDLBfloat, 16, 3, qn_shape);
  make_tensor(&a->q_pe, q_pe, kDLBfloat, 16, 3, qp_shape);
  make_tensor(&a->kv, kv, kDLBfloat, 16, 3, kv_shape);
  make_tensor(&a->o, o, kDLBfloat, 16, 3, o_shape);
  make_tensor(&a->lse, lse, kDLFloat, 32, 2, lse_shape);
  make_tensor(&a->block_table, block_table, kDLInt, 32, 2, bt_shape);
  make_tensor(&a->seq_lens, (void *)lens, kDLInt, 32, 1, lens_shape);
  tilemla_decode_metadata_init(&a->md);
  a->md.block_table = &a->block_table.t;
  a->md.seq_lens = &a->seq_lens.t;
  a->md.max_seq_len = 37;
}

static tilemla_mla_impl *make_impl(int32_t device_schedule) {
  tilemla_mla_config config;
  tilemla_mla_config_init(&config);
  config.num_heads = H;
  config.scale = softmax_scale;
  config.max_batch = 8;
  config.split_policy = TILEMLA_SPLIT_AUTO;
  config.device_schedule = device_schedule;
  tilemla_mla_impl *impl = NULL;
  CHECK(tilemla_mla_create(&config, &impl) == TILEMLA_OK);
  CHECK(impl != NULL);
  CHECK(strcmp(tilemla_last_error(), "") == 0);
  return impl;
}

/* A decode with lse through `md` (its tensors and max_seq_len set from
 * `args`), compared with the reference. */
static void decode_with(tilemla_mla_impl *impl, const decode_args *args,
                        tilemla_decode_metadata *md, const char *form) {
  md->block_table = args->md.block_table;
  md->seq_lens = args->md.seq_lens;
  md->max_seq_len = args->md.max_seq_len;
  memset(o, 0xff, sizeof o); /* NaN */
  memset(lse, 0xff, sizeof lse);
  CHECK(tilemla_mla_forward_decode(impl, &args->q.t, NULL, &args->kv.t, md,
                                   &args->o.t, &args->lse.t,
                                   NULL) == TILEMLA_OK);
  compare(1, form);
}

/* Options structs of other headers' sizes: one without the last field (an
 * older tilemla_c.h) lying before bytes that are not zero, which neither its
 * init nor the call may touch; one with a field more (a newer header),
 * taken while that field is zero and refused once it is not. */
static void test_struct_sizes(tilemla_mla_impl *impl, const decode_args *args) {
  union {
    tilemla_decode_metadata md;
    unsigned char bytes[sizeof(tilemla_decode_metadata) + 16];
  } older, newer;
  const size_t older_size = offsetof(tilemla_decode_metadata, schedule);
  memset(&older, 0xa5, sizeof older);
  CHECK(tilemla_decode_metadata_init_sized(&older.md, older_size) ==
        TILEMLA_OK);
  CHECK(older.md.struct_size == older_size && older.md.max_seq_len == -1);
  for (size_t i = older_size; i < sizeof older; ++i)
    CHECK(older.bytes[i] == 0xa5);
  decode_with(impl, args, &older.md, "an older header's metadata");

  const size_t newer_size = sizeof(tilemla_decode_metadata) + 8;
  memset(&newer, 0xa5, sizeof newer);
  CHECK(tilemla_decode_metadata_init_sized(&newer.md, newer_size) ==
        TILEMLA_OK);
  CHECK(newer.md.struct_size == newer_size && newer.md.schedule == NULL);
  for (size_t i = sizeof(tilemla_decode_metadata); i < sizeof newer; ++i)
    CHECK(newer.bytes[i] == (i < newer_size ? 0 : 0xa5));
  decode_with(impl, args, &newer.md, "a newer header's metadata");
  newer.bytes[sizeof(tilemla_decode_metadata) + 2] = 1;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args->q.t, NULL, &args->kv.t,
                                          &newer.md, &args->o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "metadata: byte ");

  EXPECT_ERROR(tilemla_decode_metadata_init_sized(&newer.md, 12),
               TILEMLA_ERROR_INVALID_ARGUMENT, "metadata: struct_size 12");
  EXPECT_ERROR(tilemla_decode_metadata_init_sized(&newer.md, 52),
               TILEMLA_ERROR_INVALID_ARGUMENT, "metadata: struct_size 52");
  /* Past what a newer header may add: refused before anything is written. */
  EXPECT_ERROR(tilemla_decode_metadata_init_sized(
                   &newer.md, sizeof(tilemla_decode_metadata) + 264),
               TILEMLA_ERROR_INVALID_ARGUMENT, "is not the size of a");

  /* The config the same way, through tilemla_mla_create. */
  union {
    tilemla_mla_config config;
    unsigned char bytes[sizeof(tilemla_mla_config) + 8];
  } config;
  CHECK(tilemla_mla_config_init_sized(&config.config, sizeof config) ==
        TILEMLA_OK);
  CHECK(config.config.struct_size == sizeof config &&
        config.config.num_heads == 128);
  config.config.num_heads = H;
  tilemla_mla_impl *made = NULL;
  CHECK(tilemla_mla_create(&config.config, &made) == TILEMLA_OK);
  tilemla_mla_destroy(made);
  config.bytes[sizeof(tilemla_mla_config) + 4] = 7;
  EXPECT_ERROR(tilemla_mla_create(&config.config, &made),
               TILEMLA_ERROR_INVALID_ARGUMENT, "config: byte ");
  config.config.struct_size = sizeof(tilemla_mla_config) - 8;
  EXPECT_ERROR(tilemla_mla_create(&config.config, &made),
               TILEMLA_ERROR_INVALID_ARGUMENT, "config: struct_size ");
  EXPECT_ERROR(tilemla_decode_metadata_init_sized(NULL, newer_size),
               TILEMLA_ERROR_INVALID_ARGUMENT, "metadata: NULL");
  EXPECT_ERROR(tilemla_mla_config_init_sized(NULL, 64),
               TILEMLA_ERROR_INVALID_ARGUMENT, "config: NULL");
}

static void test_decode(void) {
  make_problem();
  tilemla_mla_impl *impl = make_impl(TILEMLA_DEVICE_SCHEDULE_DEFAULT);
  static decode_args args;
  make_decode_args(&args);
  tilemla_decode_metadata md = args.md;

  int32_t sets = -1;
  CHECK(tilemla_mla_precompile(impl, &args.q.t, NULL, &args.kv.t, &md,
                               &args.o.t, &args.lse.t, &sets) == TILEMLA_OK);
  CHECK(sets >= 1);
  for (int form = 0; form < 4; ++form) {
    const int paired = form & 1, with_lse = form & 2;
    memset(o, 0xff, sizeof o); /* NaN */
    memset(lse, 0xff, sizeof lse);
    CHECK(tilemla_mla_forward_decode(
              impl, paired ? &args.q_nope.t : &args.q.t,
              paired ? &args.q_pe.t : NULL, &args.kv.t, &md, &args.o.t,
              with_lse ? &args.lse.t : NULL, NULL) == TILEMLA_OK);
    compare(with_lse, paired ? (with_lse ? "pair, lse" : "pair")
                             : (with_lse ? "q, lse" : "q"));
  }

  /* Mistakes in the C call itself. */
  EXPECT_ERROR(tilemla_mla_forward_decode(NULL, &args.q.t, NULL, &args.kv.t,
                                          &md, &args.o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "impl: NULL");
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, NULL, NULL, &args.kv.t, &md,
                                          &args.o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "q: NULL");
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &args.kv.t,
                                          NULL, &args.o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "metadata: NULL");
  tilemla_decode_metadata old = md;
  old.struct_size = 8;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &args.kv.t,
                                          &old, &args.o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "metadata: struct_size 8");
  test_struct_sizes(impl, &args);
  tensor bad;
  copy_tensor(&bad, &args.q);
  bad.t.dtype.lanes = 2;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &bad.t, NULL, &args.kv.t, &md,
                                          &args.o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "q: 2 lanes per element");
  copy_tensor(&bad, &args.q);
  bad.t.dtype.code = kDLFloat, bad.t.dtype.bits = 64;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &bad.t, NULL, &args.kv.t, &md,
                                          &args.o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "q: DLPack dtype (code 2, 64 bits) is not one tilemla takes");
  copy_tensor(&bad, &args.kv);
  bad.t.device.device_type = kDLOpenCL;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &bad.t, &md,
                                          &args.o.t, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "kv_cache: DLPack device type 4 is not CUDA");
  /* What the C++ API checks, with its messages. */
  copy_tensor(&bad, &args.kv);
  bad.t.dtype.code = kDLFloat;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &bad.t, &md,
                                          &args.o.t, NULL, NULL),
               TILEMLA_ERROR_LIBRARY, "kv_cache: expected dtype bf16, got f16");
  copy_tensor(&bad, &args.o);
  bad.shape[2] = 500;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &args.kv.t,
                                          &md, &bad.t, NULL, NULL),
               TILEMLA_ERROR_LIBRARY, "o: expected shape [3, 16, 512]");
  md.has_kv_scale = 1, md.kv_scale = 0.5f;
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &args.kv.t,
                                          &md, &args.o.t, NULL, NULL),
               TILEMLA_ERROR_LIBRARY,
               "metadata.kv_scale: a scale is for an "
               "fp8 cache");
  md.has_kv_scale = 0;
  /* A success clears the message. */
  CHECK(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &args.kv.t, &md,
                                   &args.o.t, NULL, NULL) == TILEMLA_OK);
  CHECK(strcmp(tilemla_last_error(), "") == 0);
  tilemla_mla_destroy(impl);
  tilemla_mla_destroy(NULL);
}

/* One schedule per decode step: made once, filled from seq_lens, read by
 * the call; a call with other lengths refuses it. */
static void test_step_schedule(void) {
  tilemla_mla_impl *impl = make_impl(TILEMLA_DEVICE_SCHEDULE_ALWAYS);
  static decode_args args;
  make_decode_args(&args);
  static int32_t lens_copy[B];
  memcpy(lens_copy, lens, sizeof lens_copy);
  const int64_t lens_shape[] = {B};
  tensor other;
  make_tensor(&other, lens_copy, kDLInt, 32, 1, lens_shape);
  tilemla_decode_metadata md = args.md;

  tilemla_decode_schedule *schedule = NULL;
  CHECK(tilemla_mla_schedule_create(impl, 1, &schedule) == TILEMLA_OK);
  CHECK(tilemla_mla_schedule_decode(impl, &md, schedule, NULL) == TILEMLA_OK);
  md.schedule = schedule;
  memset(o, 0xff, sizeof o);
  memset(lse, 0xff, sizeof lse);
  CHECK(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &args.kv.t, &md,
                                   &args.o.t, &args.lse.t, NULL) == TILEMLA_OK);
  compare(1, "step schedule");
  md.seq_lens = &other.t; /* the same lengths elsewhere: not this step's */
  EXPECT_ERROR(tilemla_mla_forward_decode(impl, &args.q.t, NULL, &args.kv.t,
                                          &md, &args.o.t, &args.lse.t, NULL),
               TILEMLA_ERROR_LIBRARY,
               "metadata.schedule: made for 3 "
               "requests at seq_lens");
  EXPECT_ERROR(tilemla_mla_schedule_decode(impl, &md, NULL, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "schedule: NULL");
  tilemla_decode_schedule_destroy(schedule);
  tilemla_decode_schedule_destroy(NULL);
  tilemla_mla_destroy(impl);
  tilemla_mla_config config;
  tilemla_mla_config_init(&config);
  config.device_schedule = 5;
  tilemla_mla_impl *refused = NULL;
  EXPECT_ERROR(tilemla_mla_create(&config, &refused),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "config.device_schedule: 5 is not a tilemla_device_schedule");
  CHECK(refused == NULL);
}

static void test_create_errors(void) {
  tilemla_mla_config config;
  tilemla_mla_config_init(&config);
  CHECK(config.struct_size == sizeof config);
  CHECK(config.num_heads == 128 && config.kv_lora_rank == 512);
  tilemla_mla_impl *impl = (tilemla_mla_impl *)&config; /* reset on error */
  EXPECT_ERROR(tilemla_mla_create(NULL, &impl), TILEMLA_ERROR_INVALID_ARGUMENT,
               "config: NULL");
  CHECK(impl == NULL);
  EXPECT_ERROR(tilemla_mla_create(&config, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "impl: NULL");
  config.split_policy = 7;
  EXPECT_ERROR(tilemla_mla_create(&config, &impl),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "config.split_policy: 7 is not a tilemla_split_policy");
  tilemla_mla_config_init(&config);
  config.num_heads = 0;
  EXPECT_ERROR(tilemla_mla_create(&config, &impl), TILEMLA_ERROR_LIBRARY,
               "num_heads: expected 1..65535, got 0");
  tilemla_mla_config_init(&config);
  config.kv_cache_dtype = "int8";
  EXPECT_ERROR(tilemla_mla_create(&config, &impl), TILEMLA_ERROR_LIBRARY,
               "kv_cache_dtype: expected one of");
  CHECK(impl == NULL);
  CHECK(strcmp(tilemla_status_name(TILEMLA_ERROR_LIBRARY), "library error") ==
        0);
}

/* ---- generic kernels ---------------------------------------------------- */

static const char *vector_add =
    "kernel vector_add(x: *f32, y: *f32, out: *f32, n: i32,\n"
    "                  BLOCK: constexpr) {\n"
    "    offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
    "    a = load(x + offs, mask=offs < n, other=0.0);\n"
    "    b = load(y + offs, mask=offs < n, other=0.0);\n"
    "    store(out + offs, a + b, mask=offs < n);\n"
    "}\n";

static void test_kernels(void) {
  enum { N = 300 };
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; ++i)
    x[i] = uniform(), y[i] = uniform(), out[i] = NAN;
  const tilemla_constexpr block = {"BLOCK", "128"};
  tilemla_kernel *kernel = NULL;
  CHECK(tilemla_kernel_create("vector_add.tile", vector_add, &block, 1, 0,
                              &kernel) == TILEMLA_OK);
  const int64_t shape[] = {N};
  tensor tx;
  make_tensor(&tx, x, kDLFloat, 32, 1, shape);
  tensor ty;
  make_tensor(&ty, y, kDLFloat, 32, 1, shape);
  tilemla_arg args[4];
  memset(args, 0, sizeof args);
  args[0].kind = TILEMLA_ARG_TENSOR, args[0].value.tensor = &tx.t;
  args[1].kind = TILEMLA_ARG_TENSOR, args[1].value.tensor = &ty.t;
  tensor tout;
  make_tensor(&tout, out, kDLFloat, 32, 1, shape);
  args[2].kind = TILEMLA_ARG_TENSOR, args[2].value.tensor = &tout.t;
  args[3].kind = TILEMLA_ARG_I32, args[3].value.i32 = N;
  args[3].unspecialized = 1;
  const uint32_t grid[3] = {(N + 127) / 128, 1, 1};
  CHECK(tilemla_kernel_launch(kernel, grid, args, 4, NULL) == TILEMLA_OK);
  int wrong = 0;
  for (int i = 0; i < N; ++i)
    wrong += out[i] != x[i] + y[i];
  CHECK(wrong == 0);

  size_t params = 0;
  const char *const *types = NULL;
  CHECK(tilemla_kernel_parameters(kernel, &params, &types) == TILEMLA_OK);
  CHECK(params == 4 && strcmp(types[0], "*f32") == 0 &&
        strcmp(types[3], "i32") == 0);
  EXPECT_ERROR(tilemla_kernel_parameters(kernel, NULL, &types),
               TILEMLA_ERROR_INVALID_ARGUMENT, "count: NULL");

  char *text = NULL;
  CHECK(tilemla_kernel_emit(kernel, "ptx", "sm_80", &text) == TILEMLA_OK);
  CHECK(text && strstr(text, ".entry vector_add") &&
        strstr(text, ".target sm_80"));
  tilemla_string_free(text);
  CHECK(tilemla_kernel_emit(kernel, "tile", NULL, &text) == TILEMLA_OK);
  CHECK(text && strstr(text, "tile.load"));
  tilemla_string_free(text);
  EXPECT_ERROR(tilemla_kernel_emit(kernel, "sass", NULL, &text),
               TILEMLA_ERROR_LIBRARY, "stage: expected ast, tile");
  CHECK(text == NULL);
  EXPECT_ERROR(tilemla_kernel_emit(kernel, "ptx", "sm_99", &text),
               TILEMLA_ERROR_LIBRARY, "arch: unknown target 'sm_99'");

  /* Launch mistakes: a missing argument, a kind, a descriptor's rank, and
   * host memory as a bare pointer (only tensors say how far they reach). */
  args[2].kind = TILEMLA_ARG_POINTER, args[2].value.pointer = out;
  EXPECT_ERROR(tilemla_kernel_launch(kernel, grid, args, 4, NULL),
               TILEMLA_ERROR_LIBRARY,
               "argument 2 does not point into a DeviceBuffer");
  args[2].kind = TILEMLA_ARG_TENSOR, args[2].value.tensor = &tout.t;
  EXPECT_ERROR(tilemla_kernel_launch(kernel, grid, args, 3, NULL),
               TILEMLA_ERROR_LIBRARY, "argument");
  /* A tensor of another element type, a rank without a shape. */
  tensor halves;
  make_tensor(&halves, y, kDLFloat, 16, 1, shape);
  args[1].value.tensor = &halves.t;
  EXPECT_ERROR(tilemla_kernel_launch(kernel, grid, args, 4, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "args[1]: a tensor of f16 for a *f32 parameter");
  halves.t.dtype.bits = 32;
  halves.t.shape = NULL;
  EXPECT_ERROR(tilemla_kernel_launch(kernel, grid, args, 4, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "args[1]: ndim 1 without a "
               "shape");
  args[1].value.tensor = &ty.t;
  args[1].kind = 99;
  EXPECT_ERROR(tilemla_kernel_launch(kernel, grid, args, 4, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "args[1].kind: 99 is not a tilemla_arg_kind");
  args[1].kind = TILEMLA_ARG_TENSOR_DESC;
  EXPECT_ERROR(tilemla_kernel_launch(kernel, grid, args, 4, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT,
               "args[1]: a tensor descriptor is 2-D");
  EXPECT_ERROR(tilemla_kernel_launch(kernel, NULL, args, 4, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "grid: NULL");
  EXPECT_ERROR(tilemla_kernel_launch(NULL, grid, args, 4, NULL),
               TILEMLA_ERROR_INVALID_ARGUMENT, "kernel: NULL");
  tilemla_kernel_destroy(kernel);

  /* Creation mistakes; a compile error located in the source. */
  EXPECT_ERROR(tilemla_kernel_create(NULL, vector_add, NULL, 0, 0, &kernel),
               TILEMLA_ERROR_INVALID_ARGUMENT, "path: NULL");
  const tilemla_constexpr half = {"BLOCK", NULL};
  EXPECT_ERROR(
      tilemla_kernel_create("v.tile", vector_add, &half, 1, 0, &kernel),
      TILEMLA_ERROR_INVALID_ARGUMENT, "constexprs[0]: NULL name or value");
  EXPECT_ERROR(
      tilemla_kernel_create("v.tile", vector_add, &block, 1, 3, &kernel),
      TILEMLA_ERROR_LIBRARY, "numWarps must be 0");
  EXPECT_ERROR(tilemla_kernel_create("embedded:examples/nothing", NULL, NULL, 0,
                                     0, &kernel),
               TILEMLA_ERROR_LIBRARY, "no embedded kernel named");
  CHECK(tilemla_kernel_create("broken.tile", "kernel k(x: *f32) { y = ; }",
                              NULL, 0, 0, &kernel) == TILEMLA_OK);
  EXPECT_ERROR(tilemla_kernel_emit(kernel, "ptx", NULL, &text),
               TILEMLA_ERROR_LIBRARY, "broken.tile:1:");
  tilemla_kernel_destroy(kernel);
  /* The library's own kernels by name. */
  CHECK(tilemla_kernel_create("embedded:examples/vector_add", NULL, NULL, 0, 0,
                              &kernel) == TILEMLA_OK);
  CHECK(tilemla_kernel_emit(kernel, "tile-gpu", "sm_90a", &text) == TILEMLA_OK);
  tilemla_string_free(text);
  tilemla_kernel_destroy(kernel);
}

int main(void) {
  /* Before the first call: the library reads it once. */
  setenv("TILEMLA_INTERPRET", "1", 1);
  CHECK(tilemla_interpreter_mode());
  test_create_errors();
  test_decode();
  test_step_schedule();
  test_kernels();
  if (failures)
    fprintf(stderr, "[ capi ] %d checks failed\n", failures);
  else
    printf("[ capi ] every check passed\n");
  return failures ? 1 : 0;
}
