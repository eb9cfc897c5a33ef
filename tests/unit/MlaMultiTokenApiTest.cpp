//===- MlaMultiTokenApiTest.cpp - forward_decode with s_q query tokens ----===//
//
// Without a GPU (options.device = -1): the multi-token form's shapes and
// errors (q [B, s_q, H, D], o [B, s_q, H, R], lse [B, s_q, H]), the
// options that size it, and how s_q * H query rows choose splits and the
// workspace. The kernels' results are tested in MlaInterpreterTest
// (MultiTokenCausal) and tests/gpu/MlaMultiTokenTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "MlaApiCall.h"

#include "gtest/gtest.h"

using namespace tilemla;
using namespace tilemla::mla;
using namespace tilemla::mla::test;

namespace {
Ctor multiToken(int maxQueryLen) {
  Ctor c;
  c.options.maxQueryLen = maxQueryLen;
  return c;
}

TEST(MlaMultiToken, ValidCallsReachTheDevice) {
  auto impl = multiToken(4).make();
  for (int64_t sq : {1, 2, 4}) {
    SCOPED_TRACE("s_q = " + std::to_string(sq));
    Call k(sq);
    for (const std::string &error : formErrors(*impl, k))
      EXPECT_EQ(error, kValid);
    EXPECT_EQ(errorOf([&] { impl->precompile(k.q, k.kv, k.md, k.o, k.lse); }),
              kValid);
  }
  // Padded token strides, and lse with its tokens last.
  Call k(3);
  k.q.strides = {3 * 16 * 600, 16 * 600, 600, 1};
  k.o.strides = {3 * 16 * 520 + 8, 16 * 520, 520, 1};
  k.lse.strides = {48, 1, 3};
  EXPECT_EQ(errorOf([&] { impl->forward_decode(k.q, k.kv, k.md, k.o, k.lse); }),
            kValid);
}

TEST(MlaMultiToken, EveryArgumentIsChecked) {
  auto impl = multiToken(4).make();
  auto run = [&](const Call &k) {
    return errorOf([&] { impl->forward_decode(k.q, k.kv, k.md, k.o, k.lse); });
  };
  auto runPair = [&](const Call &k) {
    return errorOf(
        [&] { impl->forward_decode(k.qNope, k.qPe, k.kv, k.md, k.o, k.lse); });
  };
  EXPECT_EQ(run(Call(5)), "q: 5 query tokens per request (dimension 1) "
                          "outside 1..options.maxQueryLen (4)");
  Call k(2);
  k.q.shape[1] = 0;
  EXPECT_EQ(run(k), "q: 0 query tokens per request (dimension 1) outside "
                    "1..options.maxQueryLen (4)");
  // The outputs and the pair follow q's rank and s_q.
  k = Call(2), k.o = Call().o;
  EXPECT_EQ(run(k), "o: expected shape [8, 2, 16, 512], got [8, 16, 512]");
  k = Call(2), k.lse = Call(3).lse;
  EXPECT_EQ(run(k), "lse: expected shape [8, 2, 16], got [8, 3, 16]");
  k = Call(), k.lse = Call(1).lse;
  EXPECT_EQ(run(k), "lse: expected shape [8, 16], got [8, 1, 16]");
  k = Call(2), k.qPe = Call(3).qPe;
  EXPECT_EQ(runPair(k),
            "q_pe: expected shape [8, 2, 16, 64], got [8, 3, 16, 64]");
  k = Call(2), k.q.shape = {8, 2, 16, 512};
  EXPECT_EQ(run(k), "q: expected shape [8, 2, 16, 576], got [8, 2, 16, 512]");
  k = Call(2), k.q.strides = {2 * 16 * 576, int64_t(1) << 32, 576, 1};
  EXPECT_EQ(run(k), "q: stride 4294967296 does not fit in 32 bits");
  // Two query tokens' outputs in one place.
  k = Call(2), k.o.strides = {2 * 16 * 512, 0, 512, 1};
  EXPECT_EQ(run(k), "o: strides [16384, 0, 512, 1] for shape [8, 2, 16, 512] "
                    "make elements overlap (dimension 1); outputs need one "
                    "place each");
  // One query token per request unless the impl allows more.
  auto single = Ctor().make();
  EXPECT_EQ(errorOf([&] {
              Call two(2);
              single->forward_decode(two.q, two.kv, two.md, two.o, two.lse);
            }),
            "q: 2 query tokens per request (dimension 1) outside "
            "1..options.maxQueryLen (1)");
}

TEST(MlaMultiToken, MaxQueryLenIsChecked) {
  auto error = [](Ctor c) { return errorOf([&] { c.make(); }); };
  EXPECT_EQ(error(multiToken(0)),
            "options.maxQueryLen: expected 1..16 with maxQueryLen * num_heads "
            "<= 65535, got 0 (with 16 heads)");
  EXPECT_EQ(error(multiToken(17)),
            "options.maxQueryLen: expected 1..16 with maxQueryLen * num_heads "
            "<= 65535, got 17 (with 16 heads)");
  Ctor wide = multiToken(2);
  wide.heads = 40000;
  EXPECT_EQ(error(wide),
            "options.maxQueryLen: expected 1..16 with maxQueryLen * num_heads "
            "<= 65535, got 2 (with 40000 heads)");
  EXPECT_EQ(error(multiToken(16)), "");
}

TEST(MlaMultiToken, QueryRowsChooseTheSplitsAndTheWorkspace) {
  // s_q * H rows split as that many heads would: 16 heads with 4 tokens
  // as 64 heads with one.
  Ctor auto16 = multiToken(4), auto64;
  auto16.options.splitPolicy = auto64.options.splitPolicy = SplitPolicy::Auto;
  auto64.heads = 64;
  auto a = auto16.make(), b = auto64.make();
  for (int64_t batch : {1, 8})
    for (int64_t len : {0, 300, 4096, 70000}) {
      EXPECT_EQ(a->numSplits(batch, len, 4), b->numSplits(batch, len))
          << batch << " " << len;
      EXPECT_EQ(a->numSplits(batch, len, 1), a->numSplits(batch, len));
    }
  // Fixed4: 4 splits of 8 requests, s_q * 16 rows of R floats and an lse
  // each, for the largest s_q.
  const size_t row = (512 + 1) * sizeof(float);
  EXPECT_EQ(Ctor().make()->workspaceBytes(), 8 * 4 * 16 * row);
  EXPECT_EQ(multiToken(4).make()->workspaceBytes(), 8 * 4 * 4 * 16 * row);
  EXPECT_EQ(multiToken(4).make()->workspaceSplitRows(), 8 * 4);
}
} // namespace
