//===- MlaApiTest.cpp - TRITON_MLA backend: refusals, validation, splits --===//
//
// Runs without a GPU: impls are built with options.device = -1 (no
// workspace), and forward_decode validates every argument before it would
// touch the device, so each validation path is reachable; a fully valid call
// ends with the "device = -1" error.
//
//===----------------------------------------------------------------------===//
#include "MlaApiCall.h"
#include "tilemla/Driver/Compiler.h"

#include "gtest/gtest.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>

using namespace tilemla;
using namespace tilemla::mla;
using namespace tilemla::mla::test;

namespace {
const char *kUnsupported = "TritonMLAImpl does not support one of the "
                           "following: alibi_slopes, sliding_window, "
                           "logits_soft_cap";
const char *kEncoder = "Encoder self-attention and encoder/decoder "
                       "cross-attention are not implemented for TritonMLAImpl";
const char *kKvDtype =
    "kv_cache_dtype: expected one of \"auto\", \"fp8\", \"fp8_e4m3\", "
    "\"fp8_ds_mla\", got ";

TEST(MlaBackend, Description) {
  EXPECT_EQ(TritonMLABackend::getName(), "TRITON_MLA");
  EXPECT_EQ(TritonMLABackend::supportedDtypes(),
            (std::vector<DType>{DType::F16, DType::BF16}));
  EXPECT_EQ(
      TritonMLABackend::supportedKvCacheDtypes(),
      (std::vector<std::string>{"auto", "fp8", "fp8_e4m3", "fp8_ds_mla"}));
  EXPECT_TRUE(TritonMLABackend::supportsComputeCapability(9, 0));
  EXPECT_TRUE(TritonMLABackend::supportsComputeCapability(8, 0));
  EXPECT_TRUE(TritonMLABackend::supportsComputeCapability(10, 0));
  EXPECT_FALSE(TritonMLABackend::supportsComputeCapability(7, 5));
  EXPECT_TRUE(TritonMLAImpl::can_return_lse_for_decode);
}

TEST(MlaBackend, RefusesWhatTheSeedRefuses) {
  Ctor c;
  EXPECT_EQ(errorOf([&] { c.make(); }), "");
  {
    Ctor a = c;
    a.alibi = std::vector<float>{0.5f};
    EXPECT_EQ(errorOf([&] { a.make(); }), kUnsupported);
    a.alibi = std::vector<float>{}; // Python: [] is falsy
    EXPECT_EQ(errorOf([&] { a.make(); }), "");
  }
  {
    Ctor a = c;
    a.window = 4096;
    EXPECT_EQ(errorOf([&] { a.make(); }), kUnsupported);
  }
  {
    Ctor a = c;
    a.softCap = 30.0;
    EXPECT_EQ(errorOf([&] { a.make(); }), kUnsupported);
  }
  for (const char *type : {"encoder", "encoder_only", "encoder_decoder"}) {
    Ctor a = c;
    a.attnType = type;
    EXPECT_EQ(errorOf([&] { a.make(); }), kEncoder) << type;
  }
  // fp8 caches are read (e4m3 with a scale, or DeepSeek's tokens with
  // their own scales); other types are refused.
  for (const char *kv : {"fp8", "fp8_e4m3", "fp8_ds_mla"}) {
    Ctor a = c;
    a.kvDtype = kv;
    EXPECT_EQ(errorOf([&] { a.make(); }), "") << kv;
  }
  for (const char *kv : {"fp8_e5m2", "int8", ""}) {
    Ctor a = c;
    a.kvDtype = kv;
    EXPECT_EQ(errorOf([&] { a.make(); }),
              std::string(kKvDtype) + "\"" + kv + "\"")
        << kv;
  }
  {
    // The seed's order: unsupported features, then attn_type, then the cache.
    Ctor a = c;
    a.softCap = 1.0, a.attnType = "encoder", a.kvDtype = "int8";
    EXPECT_EQ(errorOf([&] { a.make(); }), kUnsupported);
    a.softCap.reset();
    EXPECT_EQ(errorOf([&] { a.make(); }), kEncoder);
    a.attnType = "decoder";
    EXPECT_EQ(errorOf([&] { a.make(); }), std::string(kKvDtype) + "\"int8\"");
  }
}

TEST(MlaBackend, RefusesWhatTheKernelsCannotTake) {
  auto expect = [](Ctor a, const std::string &message) {
    EXPECT_EQ(errorOf([&] { a.make(); }), message);
  };
  Ctor c;
  Ctor a = c;
  a.kvHeads = 2;
  expect(a, "num_kv_heads: MLA has one latent KV head, got 2");
  a = c, a.headSize = 512;
  expect(a, "head_size: expected kv_lora_rank + qk_rope_head_dim = 576, got "
            "512");
  a = c, a.mla.kv_lora_rank = 500, a.headSize = 564;
  expect(a, "mla_args.kv_lora_rank: expected a power of two, got 500");
  a = c, a.mla.qk_rope_head_dim = 48, a.headSize = 560;
  expect(a, "mla_args.qk_rope_head_dim: expected a power of two, got 48");
  a = c, a.heads = 0;
  expect(a, "num_heads: expected 1..65535, got 0");
  a = c, a.scale = NAN;
  expect(a, "scale: expected a finite number, got nan");
  a = c, a.options.maxBatch = 0;
  expect(a, "options.maxBatch: expected 1..65535, got 0");
  a = c, a.options.maxBatch = 65536;
  expect(a, "options.maxBatch: expected 1..65535, got 65536");
  a = c, a.options.headBlock = 8;
  expect(a, "options.headBlock: expected 0, 16, 32 or 64, got 8");
  a = c, a.options.tokenBlock = 48;
  expect(a, "options.tokenBlock: expected 0 or a power of two in 16..128, "
            "got 48");
  a = c, a.options.stage1Warps = 32;
  expect(a, "options.stage1Warps: expected 0 or a power of two in 1..16, "
            "got 32");
  a = c, a.options.maxSplits = 257;
  expect(a, "options.maxSplits: expected 1..256, got 257");
  a = c, a.options.persistentWaves = 17;
  expect(a, "options.persistentWaves: expected 0..16, got 17");
  a = c, a.options.persistentWaves = -1;
  expect(a, "options.persistentWaves: expected 0..16, got -1");
  a = c, a.options.wideFp8TilesMinTokens = -1;
  expect(a, "options.wideFp8TilesMinTokens: expected >= 0, got -1");
  a = c, a.options.scheduleOverheadBlocks = 65;
  expect(a, "options.scheduleOverheadBlocks: expected 0..64, got 65");
  a = c, a.options.scheduleMinPieceBlocks = -1;
  expect(a, "options.scheduleMinPieceBlocks: expected 0..1024, got -1");
  // Small ranks are fine (the interpreter tests use them).
  a = c, a.mla.kv_lora_rank = 64, a.mla.qk_rope_head_dim = 16, a.headSize = 80;
  expect(a, "");
}

TEST(MlaSplits, Policies) {
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Fixed4, 8, 16, 4096, 132), 4);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Fixed4, 1, 16, 1, 132), 4);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::BatchInvariant, 8, 16, 4096, 132), 1);
  // DeepSeek-V3 decode, B = 8, H = 16: 8 programs a split; two waves want
  // cdiv(264, 8) = 33; by length cdiv(4096, 256) = 16 -> 16.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 8, 16, 4096, 132), 16);
  // One long request, 128 heads (8 head blocks): want 33, by length 274
  // -> 33 -> 32 (power of two).
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 128, 70000, 132), 32);
  // Large batches would fill the GPU without splitting, but keep the seed's
  // 4 splits (ragged lengths balance better), if the length allows.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 256, 16, 4096, 132), 4);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 264, 16, 4096, 132), 4);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 264, 16, 600, 132), 2);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 64, 16, 4096, 132), 4);
  // Long (or ragged, by their longest) requests: chunks of at most 4096
  // tokens per head block, within 16 programs per SM (2112).
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 128, 16, 32768, 132), 8);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 128, 16, 65536, 132), 16);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 256, 16, 65536, 132), 8);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 128, 128, 65536, 132, 128, 32),
            4);
  // 64-head programs fill an SM: one wave, not two. H = 128, B = 8: 16
  // programs a split, cdiv(132, 16) = 9 -> 8 (16 programs of 32 heads at
  // B = 4: 17 -> 16); one request at L = 32768: 66 -> 64.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 8, 128, 4096, 132, 128, 64), 8);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 4, 128, 4096, 132, 128, 32), 16);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 128, 32768, 132, 128, 64),
            64);
  // Their chunks are at most 2048 tokens: H = 64, B = 32 (32 programs a
  // split, wave 5): L = 8192 -> 4 (uniform), 16384 -> 8 (a ragged batch's
  // longest request).
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 32, 64, 8192, 132, 128, 64), 4);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 32, 64, 16384, 132, 128, 64), 8);
  // minSplits replaces the seed's floor of 4.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 256, 16, 4096, 132, 128, 16, 1),
            2);
  // Short sequences: >= 256 tokens a split.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 16, 300, 132), 2);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 16, 1, 132), 1);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 16, 0, 132), 1);
  // The cap.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 16, 1 << 20, 132, 8), 8);
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 16, 1 << 20, 1000), 128);
  // One long request fills all 132 SMs: want 264, by length 128 -> 128.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 16, 32768, 132), 128);
  // 32 heads a program: 128 heads are 4 programs a split, not 8.
  EXPECT_EQ(chooseNumSplits(SplitPolicy::Auto, 1, 128, 70000, 132, 128, 32),
            64);

  Ctor c;
  c.options.splitPolicy = SplitPolicy::Auto;
  c.options.maxSplits = 48;
  c.options.numSMs = 132;
  auto impl = c.make();
  // The workspace covers the largest B * splits over B = 1..maxBatch (8):
  // B = 8 wants cdiv(264, 8) = 33 -> 32 splits -> 256 rows; B = 1 gets 32.
  EXPECT_EQ(impl->workspaceSplitRows(), 256);
  EXPECT_EQ(impl->numSplits(1, 70000), 32);
  EXPECT_EQ(impl->numSplits(8, 4096), 16);
  // BatchInvariant: [B, H, 64 pieces] rows (16 heads: 8 x 64 x 16 x 513
  // floats, well inside the budget); the grid covers the longest request's.
  c.options.splitPolicy = SplitPolicy::BatchInvariant;
  EXPECT_EQ(c.make()->workspaceSplitRows(), 8 * 64);
  EXPECT_EQ(c.make()->numSplits(1, 70000), 64);
  EXPECT_EQ(c.make()->numSplits(8, 1000), 4);
  EXPECT_EQ(c.make()->numSplits(8, 0), 1);
  EXPECT_EQ(c.make()->numSplits(8, -1), 64);
  c.options.splitPolicy = SplitPolicy::Fixed4;
  EXPECT_EQ(c.make()->workspaceSplitRows(), 32);
}

/// Stage 1 compiled for `arch` with a token block, heads per program,
/// pipeline stages and rank (cp.async path): its shared memory, or the
/// compiler's errors.
struct Stage1Build {
  std::optional<CompiledKernel> kernel;
  std::string errs;
};
Stage1Build compileStage1(const char *arch, int tokenBlock, int headBlock,
                          int stages, int64_t rank,
                          KvCacheFormat format = KvCacheFormat::Native) {
  std::ifstream in(std::string(TILEMLA_SOURCE_DIR) +
                   "/kernels/mla/mla_decode_stage1.tile");
  std::stringstream source;
  source << in.rdbuf();
  CompileOptions options;
  options.target = *GpuTarget::parse(arch);
  options.defines = {{"H", "64"},
                     {"R", std::to_string(rank)},
                     {"BLOCK_H", std::to_string(headBlock)},
                     {"BLOCK_N", std::to_string(tokenBlock)},
                     {"STAGES", std::to_string(stages)}};
  if (format == KvCacheFormat::Fp8)
    options.defines.insert({{"KV_T", "fp8e4m3"}, {"KV_SCALE", "2"}});
  if (format == KvCacheFormat::Fp8DsMla)
    options.defines.insert({{"KV_T", "fp8e4m3"}, {"KV_LAYOUT", "1"}});
  Stage1Build build;
  build.kernel = compileKernel(
      SourceFile("kernels/mla/mla_decode_stage1.tile", source.str()), options,
      build.errs);
  return build;
}

TEST(MlaTiles, Stage1SharedMemoryIsWhatTheCompilerAllocates) {
  for (int tokenBlock : {16, 32, 64})
    for (int headBlock : {16, 32})
      for (int stages : {2, 3})
        for (int64_t rank : {512, 256})
          for (KvCacheFormat format :
               {KvCacheFormat::Native, KvCacheFormat::Fp8,
                KvCacheFormat::Fp8DsMla}) {
            SCOPED_TRACE(::testing::Message()
                         << "tokenBlock=" << tokenBlock
                         << " headBlock=" << headBlock << " stages=" << stages
                         << " rank=" << rank << " format=" << int(format));
            const bool quantized = format != KvCacheFormat::Native;
            if ((tokenBlock != 32 && stages == 3) ||
                (quantized && rank != 512) ||
                (format == KvCacheFormat::Fp8 && headBlock != 16))
              continue; // a few points are enough (fp8_ds_mla: R = 512)
            // sm_100 reads fp8 codes in place; sm_80 widens them in shared
            // memory (no paired fp8 conversions).
            for (const char *arch : {"sm_100", "sm_80"}) {
              SCOPED_TRACE(arch);
              const bool inPlace = std::string_view(arch) == "sm_100";
              if (!inPlace && (!quantized || tokenBlock == 64))
                continue; // 64-token widened blocks exceed sm_80's 163 KB
              Stage1Build build = compileStage1(arch, tokenBlock, headBlock,
                                                stages, rank, format);
              ASSERT_TRUE(build.kernel) << build.errs;
              EXPECT_EQ(int64_t(build.kernel->sharedBytes),
                        stage1SharedBytes(tokenBlock, headBlock, stages, rank,
                                          64, format, inPlace));
            }
          }
}

TEST(MlaTiles, TheDefaultTokenBlockFitsEachTarget) {
  struct Expected {
    const char *arch;
    int headBlock;
    int64_t rank;
    int tokenBlock;
  };
  // Hopper and Blackwell's data-center parts keep 64; Ampere's 163 KB and
  // the 99 KB parts take smaller blocks.
  for (const Expected &e : std::vector<Expected>{{"sm_90", 32, 512, 64},
                                                 {"sm_100", 32, 512, 64},
                                                 {"sm_80", 16, 512, 32},
                                                 {"sm_80", 32, 512, 32},
                                                 {"sm_80", 16, 256, 64},
                                                 {"sm_86", 16, 512, 32},
                                                 {"sm_120", 16, 512, 32},
                                                 {"sm_120", 32, 512, 16},
                                                 {"sm_89", 16, 256, 64},
                                                 {"sm_121", 32, 256, 32}}) {
    SCOPED_TRACE(::testing::Message() << e.arch << " headBlock=" << e.headBlock
                                      << " rank=" << e.rank);
    GpuTarget target = *GpuTarget::parse(e.arch);
    int tokenBlock =
        fittingTokenBlock(target.maxSharedBytes(), e.headBlock, 2, e.rank, 64);
    EXPECT_EQ(tokenBlock, e.tokenBlock);
    // It compiles there; twice the block does not.
    Stage1Build fits =
        compileStage1(e.arch, tokenBlock, e.headBlock, 2, e.rank);
    EXPECT_TRUE(fits.kernel) << fits.errs;
    if (tokenBlock < TritonMLAImpl::kTokenBlock) {
      Stage1Build over =
          compileStage1(e.arch, 2 * tokenBlock, e.headBlock, 2, e.rank);
      EXPECT_FALSE(over.kernel);
      EXPECT_NE(over.errs.find("bytes of shared memory"), std::string::npos)
          << over.errs;
    }
  }
}

TEST(MlaSplits, BatchInvariantCut) {
  // 16-head programs: 256-token chunks; the workspace budget (1 GiB) allows
  // 1 GiB / (256 requests x 16 x 513 x 4 bytes) = 127 pieces -> 64.
  BatchInvariantChunks cut = batchInvariantChunks(16, 16, 512, 256);
  EXPECT_EQ(cut.chunkTokens, 256);
  EXPECT_EQ(cut.maxPieces, 64);
  // Pieces depend on the request's length alone: whole chunks up to 64 of
  // them, then longer pieces (a multiple of the chunk) to stay within 64.
  EXPECT_EQ(cut.pieces(0), 0);
  EXPECT_EQ(cut.pieces(1), 1);
  EXPECT_EQ(cut.pieceTokens(4096), 256);
  EXPECT_EQ(cut.pieces(4096), 16);
  EXPECT_EQ(cut.pieces(16384), 64);
  EXPECT_EQ(cut.pieceTokens(16385), 512);
  EXPECT_EQ(cut.pieces(16385), 33);
  EXPECT_EQ(cut.pieceTokens(100000), 256 * 7);
  EXPECT_EQ(cut.pieces(100000), 56);
  for (int64_t L : {1, 255, 256, 257, 5000, 16384, 16385, 70000, 1 << 20})
    EXPECT_LE(cut.pieces(L), cut.maxPieces) << L;
  // 64-head programs: 512-token chunks; 128 heads x 256 requests leave 15
  // pieces in the budget; a large budget per request caps at 64, a small
  // one floors at 4.
  cut = batchInvariantChunks(128, 64, 512, 256);
  EXPECT_EQ(cut.chunkTokens, 512);
  EXPECT_EQ(cut.maxPieces, 15);
  EXPECT_EQ(batchInvariantChunks(128, 64, 512, 1).maxPieces, 64);
  EXPECT_EQ(batchInvariantChunks(128, 64, 512, 65535).maxPieces, 4);
}

TEST(MlaValidation, ValidCallsReachTheDevice) {
  auto impl = Ctor().make();
  Call k;
  for (const std::string &error : formErrors(*impl, k))
    EXPECT_EQ(error, kValid);
  // The unit head dim of the seed's cache, padded strides, a non-contiguous
  // q pair, strided outputs.
  k.kv = contiguousView(Call::at(3), DType::BF16, {10, 16, 1, 576}, -1);
  k.kv.strides = {16 * 600 + 8, 600, 600, 1};
  k.qNope.strides = {16 * 1024, 1024, 1};
  k.qPe.strides = {16 * 1024 + 7, 1024, 1};
  k.o.strides = {16 * 520, 520, 1};
  k.lse.strides = {1, 8};
  k.md.block_table.strides = {100, 1};
  EXPECT_EQ(errorOf([&] {
              impl->forward_decode(k.qNope, k.qPe, k.kv, k.md, k.o, k.lse);
            }),
            kValid);
  // Empty batch.
  Call zero;
  zero.q.shape[0] = 0, zero.o.shape[0] = 0, zero.lse.shape[0] = 0;
  zero.md.block_table.shape[0] = 0, zero.md.seq_lens.shape[0] = 0;
  zero.o.data = zero.q.data; // empty views share no element
  EXPECT_EQ(errorOf([&] {
              impl->forward_decode(zero.q, zero.kv, zero.md, zero.o, zero.lse);
            }),
            kValid);
  // ... with the zero strides NumPy gives empty arrays.
  for (TensorView *view :
       {&zero.q, &zero.o, &zero.lse, &zero.md.block_table, &zero.md.seq_lens})
    std::fill(view->strides.begin(), view->strides.end(), 0);
  EXPECT_EQ(errorOf([&] {
              impl->forward_decode(zero.q, zero.kv, zero.md, zero.o, zero.lse);
            }),
            kValid);
  // A step's schedule lives on a device (MlaStepScheduleTest uses one).
  EXPECT_EQ(errorOf([&] { impl->newDecodeSchedule(); }),
            "newDecodeSchedule: constructed with options.device = -1 (no "
            "device)");
}

TEST(MlaValidation, ThirtyTwoBitOffsets) {
  // The kernels index q, o, lse and the block table in 32 bits: a batch
  // whose last element lies past 2^31 - 1 is refused, not wrapped.
  auto impl = Ctor().make();
  auto run = [&](const Call &k) {
    return errorOf([&] { impl->forward_decode(k.q, k.kv, k.md, k.o, k.lse); });
  };
  Call k;
  k.o.strides = {int64_t(1) << 30, 512, 1}; // b = 2 is past 2^31
  EXPECT_EQ(run(k), "o: shape [8, 16, 512] with strides [1073741824, 512, 1] "
                    "reaches past element 2^31 - 1; the kernels index it in "
                    "32 bits");
  k = Call(), k.q.strides = {int64_t(1) << 30, 576, 1};
  EXPECT_TRUE(run(k).rfind("q: shape [8, 16, 576] with strides", 0) == 0)
      << run(k);
  k = Call(), k.lse.strides = {int64_t(1) << 29, 1};
  EXPECT_TRUE(run(k).rfind("lse: shape", 0) == 0) << run(k);
  // Just inside: 2 batches of 2^30 elements (last offset 2^31 - 1).
  k = Call();
  k.q = contiguousView(Call::at(0), DType::BF16, {2, 16, 576}, -1);
  k.o = contiguousView(Call::at(4), DType::BF16, {2, 16, 512}, -1);
  k.lse = contiguousView(Call::at(5), DType::F32, {2, 16}, -1);
  k.md.block_table = contiguousView(Call::at(6), DType::I32, {2, 4}, -1);
  k.md.seq_lens = contiguousView(Call::at(7), DType::I32, {2}, -1);
  k.o.strides = {(int64_t(1) << 31) - 1 - 15 * 512 - 511, 512, 1};
  EXPECT_EQ(run(k), kValid);
  k.o.strides[0] += 1;
  EXPECT_TRUE(run(k).rfind("o: shape [2, 16, 512]", 0) == 0) << run(k);
}

TEST(MlaValidation, OutputsOwnTheirMemory) {
  auto impl = Ctor().make();
  auto run = [&](const Call &k) {
    return errorOf([&] { impl->forward_decode(k.q, k.kv, k.md, k.o, k.lse); });
  };
  const std::string alias = " in memory; outputs must not alias the inputs "
                            "or each other";
  Call k;
  k.o.strides = {0, 512, 1};
  EXPECT_EQ(run(k), "o: strides [0, 512, 1] for shape [8, 16, 512] make "
                    "elements overlap (dimension 0); outputs need one place "
                    "each");
  k = Call(), k.o.strides = {16 * 512, 256, 1}; // rows narrower than R
  EXPECT_EQ(run(k), "o: strides [8192, 256, 1] for shape [8, 16, 512] make "
                    "elements overlap (dimension 1); outputs need one place "
                    "each");
  k = Call(), k.lse.strides = {16, 0};
  EXPECT_TRUE(run(k).rfind("lse: strides [16, 0]", 0) == 0) << run(k);
  k = Call(), k.o.data = k.q.data;
  EXPECT_EQ(run(k), "o: overlaps q" + alias);
  k = Call(), k.o.data = static_cast<char *>(k.kv.data) + 4096;
  EXPECT_EQ(run(k), "o: overlaps kv_cache" + alias);
  k = Call(), k.lse.data = static_cast<char *>(k.o.data) + 8 * 16 * 512 * 2 - 4;
  EXPECT_EQ(run(k), "lse: overlaps o" + alias);
  // Just past o's last element: fine.
  k = Call(), k.lse.data = static_cast<char *>(k.o.data) + 8 * 16 * 512 * 2;
  EXPECT_EQ(run(k), kValid);
  // Pointers aligned to their elements.
  k = Call(), k.q.data = static_cast<char *>(k.q.data) + 1;
  EXPECT_EQ(run(k), "q: data pointer 0x10000000001 is not aligned to its "
                    "2-byte elements");
  k = Call(), k.md.seq_lens.data = static_cast<char *>(k.md.seq_lens.data) + 2;
  EXPECT_TRUE(run(k).rfind("seq_lens: data pointer", 0) == 0) << run(k);
  // Sizes whose products overflow: a huge null cache, a huge block table.
  k = Call(), k.kv.shape = {int64_t(1) << 32, int64_t(1) << 32, 576};
  k.kv.strides = {0, 576, 1}, k.kv.data = nullptr;
  EXPECT_EQ(run(k), "kv_cache: null data pointer");
  k = Call(), k.md.block_table.shape = {8, int64_t(1) << 61};
  k.md.block_table.strides = {int64_t(1) << 61, 1};
  EXPECT_TRUE(run(k).rfind("block_table: stride 2305843009213693952 does "
                           "not fit in 32 bits",
                           0) == 0)
      << run(k);
  // More heads than stage 2's grid can hold.
  Ctor c;
  c.heads = 70000;
  EXPECT_EQ(errorOf([&] { c.make(); }), "num_heads: expected 1..65535, got "
                                        "70000");
  c.heads = int64_t(1) << 50;
  EXPECT_EQ(errorOf([&] { c.make(); }),
            "num_heads: expected 1..65535, got 1125899906842624");
}

TEST(MlaValidation, EveryArgumentIsChecked) {
  auto impl = Ctor().make();
  auto run = [&](const Call &k) {
    return errorOf([&] { impl->forward_decode(k.q, k.kv, k.md, k.o, k.lse); });
  };
  auto runPair = [&](const Call &k) {
    return errorOf(
        [&] { impl->forward_decode(k.qNope, k.qPe, k.kv, k.md, k.o, k.lse); });
  };
  Call k;
  // q.
  k = Call(), k.q.shape = {8, 16, 512};
  EXPECT_EQ(run(k), "q: expected shape [8, 16, 576], got [8, 16, 512]");
  k = Call(), k.q.shape = {8, 576};
  EXPECT_EQ(run(k), "q: expected rank 3 [B, 16, 576] or rank 4 [B, s_q, 16, "
                    "576], got shape [8, 576]");
  k = Call(), k.q.shape = {8, 20, 576};
  EXPECT_EQ(run(k), "q: expected shape [8, 16, 576], got [8, 20, 576]");
  k = Call(), k.q.dtype = DType::F32;
  EXPECT_EQ(run(k), "q: expected dtype f16 or bf16, got f32");
  k = Call(), k.q.strides = {576 * 16, 576, 2};
  EXPECT_EQ(run(k), "q: last dimension must be contiguous (stride 1), got "
                    "stride 2");
  k = Call(), k.q.device = 1;
  EXPECT_EQ(run(k), "q: expected device -1, got device 1");
  k = Call(), k.q.shape[0] = 9;
  EXPECT_EQ(run(k), "q: batch 9 exceeds options.maxBatch 8");
  k = Call(), k.q.strides = {int64_t(1) << 32, 576, 1};
  EXPECT_EQ(run(k), "q: stride 4294967296 does not fit in 32 bits");
  k = Call(), k.q.data = nullptr;
  EXPECT_EQ(run(k), "q: null data pointer");
  k = Call(), k.q.strides = {576, 1};
  EXPECT_EQ(run(k), "q: 2 strides for a rank-3 shape");
  // The pair.
  k = Call(), k.qPe.shape = {8, 16, 32};
  EXPECT_EQ(runPair(k), "q_pe: expected shape [8, 16, 64], got [8, 16, 32]");
  k = Call(), k.qNope.shape = {8, 16, 576};
  EXPECT_EQ(runPair(k),
            "q_nope: expected shape [8, 16, 512], got [8, 16, 576]");
  k = Call(), k.qPe.dtype = DType::F16;
  EXPECT_EQ(runPair(k), "q_pe: expected dtype bf16, got f16");
  k = Call(), k.qPe.strides = {1024, 64, 2};
  EXPECT_EQ(runPair(k), "q_pe: last dimension must be contiguous (stride 1), "
                        "got stride 2");
  // The cache.
  k = Call(), k.kv.dtype = DType::F16;
  EXPECT_EQ(run(k), "kv_cache: expected dtype bf16, got f16");
  k = Call(), k.kv.dtype = DType::FP8E4M3;
  EXPECT_EQ(run(k), "kv_cache: expected dtype bf16, got fp8e4m3");
  k = Call(), k.kv.strides = {16 * 576 * 2, 576 * 2, 2};
  EXPECT_EQ(run(k), "kv_cache: last dimension must be contiguous (stride 1), "
                    "got stride 2");
  k = Call(), k.kv.shape = {10, 16, 512};
  EXPECT_EQ(run(k),
            "kv_cache: expected shape [10, 16, 576], got [10, 16, 512]");
  k = Call(),
  k.kv = contiguousView(Call::at(3), DType::BF16, {10, 16, 2, 576}, -1);
  EXPECT_EQ(run(k),
            "kv_cache: expected shape [10, 16, 1, 576], got [10, 16, 2, 576]");
  k = Call(), k.kv.shape = {10, 576};
  EXPECT_EQ(run(k), "kv_cache: expected [num_pages, page_size, 576] or "
                    "[num_pages, page_size, 1, 576], got shape [10, 576]");
  k = Call(), k.kv.shape = {0, 16, 576};
  EXPECT_EQ(run(k), "kv_cache: must not be empty, got shape [0, 16, 576]");
  k = Call(), k.kv.device = 0;
  EXPECT_EQ(run(k), "kv_cache: expected device -1, got device 0");
  k = Call(), k.kv.strides = {-9216, 576, 1};
  EXPECT_EQ(run(k), "kv_cache: negative stride -9216 in dimension 0");
  // Metadata.
  k = Call(), k.md.block_table.dtype = DType::F32;
  EXPECT_EQ(run(k), "block_table: expected dtype i32, got f32");
  k = Call(), k.md.block_table.shape = {7, 4};
  EXPECT_EQ(run(k), "block_table: expected shape [8, 4], got [7, 4]");
  k = Call(), k.md.block_table.shape = {8};
  EXPECT_EQ(run(k), "block_table: expected rank 2 [8, max_pages], got shape "
                    "[8]");
  k = Call(), k.md.block_table.strides = {1, 8};
  EXPECT_EQ(run(k), "block_table: last dimension must be contiguous (stride "
                    "1), got stride 8");
  k = Call(), k.md.seq_lens.shape = {4};
  EXPECT_EQ(run(k), "seq_lens: expected shape [8], got [4]");
  k = Call(), k.md.seq_lens.dtype = DType::F16;
  EXPECT_EQ(run(k), "seq_lens: expected dtype i32, got f16");
  k = Call(), k.md.seq_lens.strides = {2};
  EXPECT_EQ(run(k), "seq_lens: last dimension must be contiguous (stride 1), "
                    "got stride 2");
  k = Call(), k.md.max_seq_len = 65;
  EXPECT_EQ(run(k), "max_seq_len: 65 tokens do not fit in block_table's 4 "
                    "pages of 16 tokens");
  k = Call(), k.md.max_seq_len = -2;
  EXPECT_EQ(run(k), "max_seq_len: expected >= 0 (or -1: unknown), got -2");
  // Outputs.
  k = Call(), k.o.shape = {8, 16, 576};
  EXPECT_EQ(run(k), "o: expected shape [8, 16, 512], got [8, 16, 576]");
  k = Call(), k.o.dtype = DType::F16;
  EXPECT_EQ(run(k), "o: expected dtype bf16, got f16");
  k = Call(), k.o.strides = {1, 8, 128};
  EXPECT_EQ(run(k), "o: last dimension must be contiguous (stride 1), got "
                    "stride 128");
  k = Call(), k.lse.dtype = DType::BF16;
  EXPECT_EQ(run(k), "lse: expected dtype f32, got bf16");
  k = Call(), k.lse.shape = {8, 16, 1};
  EXPECT_EQ(run(k), "lse: expected shape [8, 16], got [8, 16, 1]");

  // lse in q's dtype on request.
  Ctor c;
  c.options.lseDtype = LseDType::Query;
  auto queryLse = c.make();
  k = Call(), k.lse.dtype = DType::BF16;
  EXPECT_EQ(
      errorOf([&] { queryLse->forward_decode(k.q, k.kv, k.md, k.o, k.lse); }),
      kValid);
  k.lse.dtype = DType::F32;
  EXPECT_EQ(
      errorOf([&] { queryLse->forward_decode(k.q, k.kv, k.md, k.o, k.lse); }),
      "lse: expected dtype bf16, got f32");

  // Auto needs the host-side max_seq_len.
  c = Ctor();
  c.options.splitPolicy = SplitPolicy::Auto;
  auto autoSplits = c.make();
  k = Call(), k.md.max_seq_len = -1;
  EXPECT_EQ(
      errorOf([&] { autoSplits->forward_decode(k.q, k.kv, k.md, k.o, k.lse); }),
      "max_seq_len: required by SplitPolicy::Auto (the batch's largest "
      "seq_len, known on the host)");
}
} // namespace
