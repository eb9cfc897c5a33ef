//===- MlaCheckedInputsTest.cpp - TritonMLAOptions::checkInputs -----------===//
//
// With checked inputs a kernel validates the metadata on the device before
// the decode reads it. Valid batches decode as without the check (fp64
// reference); a page id outside the cache (past its end, or negative), a
// negative length or a length past the block table's row makes the call
// throw, naming the request and the table column, with nothing decoded (the
// poisoned outputs stay as they were); the impl then decodes a valid batch
// again. Page ids past a request's length are not its pages and are not
// checked. GPU (cp.async, and TMA with the device schedule) and interpreter.
//
//===----------------------------------------------------------------------===//
#include "../common/MlaViews.h"
#include "MlaDeviceTest.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <gtest/gtest.h>

#include <functional>

using namespace tilemla;
using namespace tilemla::test;
namespace mla = tilemla::mla;

namespace {
class MlaCheckedInputsTest : public MlaDeviceTest {
protected:
  std::unique_ptr<mla::TritonMLAImpl> makeImpl(const MlaCase &c,
                                               mla::SplitPolicy policy) {
    mla::TritonMLAOptions options;
    options.maxBatch = c.B();
    options.splitPolicy = policy;
    options.checkInputs = true;
    return std::make_unique<mla::TritonMLAImpl>(
        c.H, c.R + c.P, c.scale, 1, std::nullopt, std::nullopt, "auto",
        std::nullopt, "decoder", std::nullopt, mla::MLAArgs{c.R, c.P, 128, 128},
        options);
  }

  /// Decodes p with `impl` and compares with the fp64 reference.
  void expectCorrect(mla::TritonMLAImpl &impl, const MlaProblem &p) {
    MlaDeviceProblem d = uploadMlaProblem(p, mla::DType::BF16);
    impl.forward_decode(d.qView, d.kvView, d.metadata, d.oView, d.lseView);
    synchronize();
    MlaErrors e = downloadedMlaErrors(p, d);
    EXPECT_LE(e.o, 1e-2) << "at " << e.where;
    EXPECT_LE(e.lse, 1e-3);
  }

  /// p after `spoil`: the call throws an Error whose text holds `expected`
  /// and writes nothing.
  void expectRefused(mla::TritonMLAImpl &impl, MlaProblem p,
                     const std::function<void(MlaProblem &)> &spoil,
                     const std::string &expected, int64_t maxSeqLen) {
    SCOPED_TRACE(expected);
    spoil(p);
    MlaDeviceProblem d = uploadMlaProblem(p, mla::DType::BF16);
    d.metadata.max_seq_len = maxSeqLen;
    std::string message;
    try {
      impl.forward_decode(d.qView, d.kvView, d.metadata, d.oView, d.lseView);
    } catch (const Error &e) {
      message = e.what();
    }
    EXPECT_NE(message.find(expected), std::string::npos)
        << "message: '" << message << "'";
    synchronize();
    std::vector<unsigned char> o(d.o.size()), lse(d.lse.size());
    d.o.download(o.data(), o.size());
    d.lse.download(lse.data(), lse.size());
    for (unsigned char byte : o)
      ASSERT_EQ(byte, 0xff) << "o was written";
    for (unsigned char byte : lse)
      ASSERT_EQ(byte, 0xff) << "lse was written";
  }

  void checkCase(MlaCase c, mla::SplitPolicy policy) {
    SCOPED_TRACE(c.describe());
    MlaProblem p = makeMlaProblem(c, rng);
    auto impl = makeImpl(c, policy);
    expectCorrect(*impl, p);

    // Request 1 is the longest (at least 3 pages); request 0 is short.
    const int stride = p.btStride, pages = p.numPages, page = c.page;
    const int64_t capacity = int64_t(p.maxPages) * page;
    // Auto needs max_seq_len (and checks it on the host): the longest.
    const int64_t known = policy == mla::SplitPolicy::Auto ? c.lens[1] : -1;
    expectRefused(
        *impl, p, [&](MlaProblem &q) { q.blockTable[stride + 2] = pages; },
        "block_table[1, 2] = " + std::to_string(pages) +
            ": not a page of kv_cache (" + std::to_string(pages) + " pages)",
        known);
    expectRefused(
        *impl, p, [&](MlaProblem &q) { q.blockTable[stride + 0] = -7; },
        "block_table[1, 0] = -7: not a page of kv_cache", known);
    if (policy != mla::SplitPolicy::Auto) {
      expectRefused(
          *impl, p, [&](MlaProblem &q) { q.seqLens[0] = -3; },
          "seq_lens[0] = -3: a negative length", -1);
      expectRefused(
          *impl, p,
          [&](MlaProblem &q) { q.seqLens[0] = int32_t(capacity + 1); },
          "seq_lens[0] = " + std::to_string(capacity + 1) +
              ": more tokens than block_table's row holds",
          -1);
    }
    // The next valid call decodes; columns past a request's length are not
    // its pages (the last column of every row is spare).
    p.blockTable[stride + p.maxPages - 1] = -1;
    expectCorrect(*impl, p);
  }
};

TEST_F(MlaCheckedInputsTest, BadPagesAndLengthsAreRefused) {
  using SP = mla::SplitPolicy;
  const bool gpu = !isInterpreterMode();
  MlaCase c;
  c.H = 16;
  c.page = 64;
  c.lens = {77, gpu ? 4096 : 300, 0, 1};
  checkCase(c, SP::Fixed4);
  c.page = 16;
  checkCase(c, SP::Auto);
  if (!gpu)
    return;
  // 128 heads over back-to-back pages: TMA, and the device schedule.
  c.H = 128, c.page = 64, c.contiguousPages = true;
  c.lens = {64, 3000};
  std::uniform_int_distribution<int32_t> len(0, 4096);
  for (int i = 0; i < 38; ++i)
    c.lens.push_back(len(rng));
  checkCase(c, SP::Auto);
}
} // namespace
