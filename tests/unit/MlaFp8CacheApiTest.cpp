//===- MlaFp8CacheApiTest.cpp - forward_decode's checks of an fp8 cache ---===//
//
// Without a GPU (options.device = -1): kv_cache_dtype "fp8" / "fp8_e4m3"
// takes an e4m3 cache and exactly one scale (DecodeMetadata::kv_scale or
// kv_scale_tensor); "fp8_ds_mla" takes DeepSeek's 656-byte tokens and no
// scale; each mistake names its argument. The kernels' results
// are tested in tests/gpu/MlaFp8CacheTest.cpp (interpreted in CI).
//
//===----------------------------------------------------------------------===//
#include "MlaApiCall.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace tilemla;
using namespace tilemla::mla;
using namespace tilemla::mla::test;

namespace {
Ctor fp8Cache() {
  Ctor c;
  c.kvDtype = "fp8";
  return c;
}

/// A valid call on an fp8 cache with a host scale.
Call fp8Call() {
  Call k;
  k.kv.dtype = DType::FP8E4M3;
  k.md.kv_scale = 0.02f;
  return k;
}

/// Every form's error is `want`.
void expectAll(TritonMLAImpl &impl, const Call &k, const std::string &want) {
  for (const std::string &error : formErrors(impl, k))
    EXPECT_EQ(error, want);
}

TEST(MlaFp8Cache, ValidCallsReachTheDevice) {
  auto impl = fp8Cache().make();
  Call k = fp8Call();
  expectAll(*impl, k, kValid);
  // The scale on the device, as [1] or [].
  k.md.kv_scale.reset();
  k.md.kv_scale_tensor = contiguousView(Call::at(9), DType::F32, {1}, -1);
  expectAll(*impl, k, kValid);
  k.md.kv_scale_tensor = contiguousView(Call::at(9), DType::F32, {}, -1);
  expectAll(*impl, k, kValid);
  // "fp8_e4m3" is the same cache.
  Ctor e4m3 = fp8Cache();
  e4m3.kvDtype = "fp8_e4m3";
  expectAll(*e4m3.make(), fp8Call(), kValid);
}

TEST(MlaFp8Cache, EveryMistakeNamesItsArgument) {
  auto impl = fp8Cache().make();
  {
    Call k = fp8Call();
    k.kv.dtype = DType::BF16;
    expectAll(*impl, k, "kv_cache: expected dtype fp8e4m3, got bf16");
  }
  {
    Call k = fp8Call();
    k.md.kv_scale.reset();
    expectAll(*impl, k,
              "metadata.kv_scale: an fp8 cache needs its scale, as kv_scale "
              "(a host number) or kv_scale_tensor (one f32 on the device), "
              "got neither");
  }
  {
    Call k = fp8Call();
    k.md.kv_scale_tensor = contiguousView(Call::at(9), DType::F32, {1}, -1);
    expectAll(*impl, k,
              "metadata.kv_scale: an fp8 cache needs its scale, as kv_scale "
              "(a host number) or kv_scale_tensor (one f32 on the device), "
              "not both");
  }
  for (float bad : {0.0f, NAN, INFINITY}) {
    Call k = fp8Call();
    k.md.kv_scale = bad;
    for (const std::string &error : formErrors(*impl, k))
      EXPECT_EQ(error.rfind("metadata.kv_scale: expected a finite nonzero "
                            "number, got ",
                            0),
                0u)
          << error;
  }
  {
    Call k = fp8Call();
    k.md.kv_scale.reset();
    k.md.kv_scale_tensor = contiguousView(Call::at(9), DType::F32, {2}, -1);
    expectAll(*impl, k,
              "metadata.kv_scale_tensor: expected shape [] or [1], got [2]");
    k.md.kv_scale_tensor = contiguousView(Call::at(9), DType::BF16, {1}, -1);
    expectAll(*impl, k,
              "metadata.kv_scale_tensor: expected dtype f32, got bf16");
    k.md.kv_scale_tensor = contiguousView(nullptr, DType::F32, {1}, -1);
    k.md.kv_scale.reset();
    expectAll(*impl, k,
              "metadata.kv_scale: an fp8 cache needs its scale, as kv_scale "
              "(a host number) or kv_scale_tensor (one f32 on the device), "
              "got neither");
  }
}

TEST(MlaFp8Cache, OutputsDoNotOverlapTheScale) {
  auto impl = fp8Cache().make();
  Call k = fp8Call();
  k.md.kv_scale.reset();
  k.md.kv_scale_tensor = contiguousView(Call::at(5), DType::F32, {1}, -1);
  // The scale in lse's memory (the form without lse writes elsewhere).
  std::vector<std::string> errors = formErrors(*impl, k);
  EXPECT_EQ(errors[0].rfind("lse: overlaps metadata.kv_scale_tensor", 0), 0u)
      << errors[0];
  EXPECT_EQ(errors[1], errors[0]);
  EXPECT_EQ(errors[2], kValid);
}

TEST(MlaFp8Cache, AnAutoCacheTakesNoScale) {
  auto impl = Ctor().make();
  Call k;
  k.kv.dtype = DType::FP8E4M3;
  expectAll(*impl, k, "kv_cache: expected dtype bf16, got fp8e4m3");
  k = Call();
  k.md.kv_scale = 1.0f;
  expectAll(*impl, k,
            "metadata.kv_scale: a scale is for an fp8 cache; this impl's "
            "kv_cache_dtype is \"auto\"");
  k.md.kv_scale.reset();
  k.md.kv_scale_tensor = contiguousView(Call::at(9), DType::F32, {1}, -1);
  expectAll(*impl, k,
            "metadata.kv_scale_tensor: a scale is for an fp8 cache; this "
            "impl's kv_cache_dtype is \"auto\"");
}
Ctor dsMlaCache() {
  Ctor c;
  c.kvDtype = "fp8_ds_mla";
  return c;
}

/// A valid call on an fp8_ds_mla cache: [pages, page, 656] bytes.
Call dsMlaCall() {
  Call k;
  k.kv = contiguousView(Call::at(3), DType::U8,
                        {k.pages, k.page, dsMlaTokenBytes(k.R, k.P)}, -1);
  return k;
}

TEST(MlaFp8DsMlaCache, ValidCallsReachTheDevice) {
  EXPECT_EQ(dsMlaTokenBytes(512, 64), 656);
  auto impl = dsMlaCache().make();
  Call k = dsMlaCall();
  expectAll(*impl, k, kValid);
  // e4m3 views of the same bytes, and the rank-4 form with padded tokens.
  k.kv.dtype = DType::FP8E4M3;
  expectAll(*impl, k, kValid);
  k.kv = contiguousView(Call::at(3), DType::U8, {k.pages, k.page, 1, 656}, -1);
  k.kv.strides = {k.page * 672, 672, 672, 1};
  expectAll(*impl, k, kValid);
}

TEST(MlaFp8DsMlaCache, EveryMistakeNamesItsArgument) {
  auto impl = dsMlaCache().make();
  {
    Call k = dsMlaCall();
    k.kv.dtype = DType::BF16;
    expectAll(*impl, k, "kv_cache: expected dtype u8 or fp8e4m3, got bf16");
  }
  {
    Call k = dsMlaCall();
    k.kv = contiguousView(Call::at(3), DType::U8, {k.pages, k.page, 576}, -1);
    expectAll(*impl, k,
              "kv_cache: expected shape [10, 16, 656], got [10, 16, "
              "576]");
    k.kv.shape = {k.pages, 576};
    expectAll(*impl, k,
              "kv_cache: expected [num_pages, page_size, 656] or [num_pages, "
              "page_size, 1, 656], got shape [10, 576]");
  }
  {
    // bf16 queries only.
    Call k = dsMlaCall();
    for (TensorView *q : {&k.q, &k.qNope, &k.qPe, &k.o})
      q->dtype = DType::F16;
    std::vector<std::string> errors = formErrors(*impl, k);
    EXPECT_EQ(errors[0], "q: an fp8_ds_mla cache takes bf16 queries, got f16");
    EXPECT_EQ(errors[1],
              "q_nope: an fp8_ds_mla cache takes bf16 queries, got f16");
  }
  {
    // Its tokens carry their scales: a per-tensor one is a mistake.
    Call k = dsMlaCall();
    k.md.kv_scale = 0.5f;
    expectAll(*impl, k,
              "metadata.kv_scale: an fp8_ds_mla cache's tokens carry their "
              "own scales");
    k.md.kv_scale.reset();
    k.md.kv_scale_tensor = contiguousView(Call::at(9), DType::F32, {1}, -1);
    expectAll(*impl, k,
              "metadata.kv_scale_tensor: an fp8_ds_mla cache's tokens carry "
              "their own scales");
  }
  {
    // Scales are read as f32 at the token's byte offset / 4.
    Call k = dsMlaCall();
    k.kv.strides = {k.page * 658, 658, 1};
    expectAll(*impl, k,
              "kv_cache: an fp8_ds_mla cache's page and token strides must "
              "be multiples of 4 bytes, got 10528 and 658");
    k = dsMlaCall();
    k.kv.data = static_cast<char *>(Call::at(3)) + 2;
    expectAll(*impl, k,
              "kv_cache: an fp8_ds_mla cache must be 4-byte aligned, got "
              "address 0x40000000002");
  }
  {
    // The layout holds four tiles of 128 latent values.
    Ctor c = dsMlaCache();
    c.mla.kv_lora_rank = 256, c.headSize = 320;
    EXPECT_EQ(errorOf([&] { c.make(); }),
              "mla_args.kv_lora_rank: kv_cache_dtype \"fp8_ds_mla\" holds "
              "512 latent values (four tiles of 128), got 256");
  }
}
} // namespace
