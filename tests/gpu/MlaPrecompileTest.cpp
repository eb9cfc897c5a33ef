//===- MlaPrecompileTest.cpp - TritonMLAImpl::precompile covers the calls -===//
//
// precompile on buffers of B requests prepares kernel sets; then calls with
// the first 1..B requests and max_seq_len anywhere from the batch's longest
// length to the block table's capacity choose no new kernel set, and the
// last call (all requests) matches the fp64 reference. Every policy at 16
// heads (cp.async), and 128 heads over back-to-back pages (TMA, the device
// schedule from 16 requests) on the GPU; in the interpreter 16 heads, short
// lengths.
//
//===----------------------------------------------------------------------===//
#include "../common/MlaViews.h"
#include "MlaDeviceTest.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace tilemla;
using namespace tilemla::test;
namespace mla = tilemla::mla;

namespace {
class MlaPrecompileTest : public MlaDeviceTest {
protected:
  void check(MlaCase c, mla::SplitPolicy policy) {
    static const char *policies[] = {"Fixed4", "BatchInvariant", "Auto"};
    SCOPED_TRACE(c.describe() + " policy=" + policies[int(policy)]);
    MlaProblem p = makeMlaProblem(c, rng);
    const int64_t B = c.B(), H = c.H, R = c.R, P = c.P;
    mla::TritonMLAOptions options;
    options.maxBatch = B;
    options.splitPolicy = policy;
    mla::TritonMLAImpl impl(H, R + P, c.scale, 1, std::nullopt, std::nullopt,
                            "auto", std::nullopt, "decoder", std::nullopt,
                            mla::MLAArgs{R, P, 128, 128}, options);
    MlaDeviceProblem d = uploadMlaProblem(p, mla::DType::BF16);
    const mla::TensorView &q = d.qView, &kv = d.kvView, &o = d.oView,
                          &lse = d.lseView;
    const mla::DecodeMetadata &md = d.metadata;

    auto start = std::chrono::steady_clock::now();
    const int sets = impl.precompile(q, kv, md, o, lse);
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("[ mla ] precompile %s %s: %d kernel sets in %.2f s\n",
                c.describe().c_str(), policies[int(policy)], sets, secs);
    EXPECT_GT(sets, 0);
    EXPECT_EQ(impl.kernelSetCount(), size_t(sets));
    EXPECT_EQ(impl.precompile(q, kv, md, o, lse), 0) << "prepared twice";

    const int64_t capacity = md.block_table.shape[1] * c.page;
    auto first = [](mla::TensorView view, int64_t batch) {
      view.shape[0] = batch;
      return view;
    };
    std::vector<int64_t> batches;
    for (int64_t b = 1; b <= B; ++b)
      if (!isInterpreterMode() || b == 1 || b == B)
        batches.push_back(b);
    for (int64_t b : batches) {
      int64_t longest = 0;
      for (int64_t i = 0; i < b; ++i)
        longest = std::max<int64_t>(longest, c.lens[i]);
      std::uniform_int_distribution<int64_t> between(longest, capacity);
      for (int64_t maxLen : {longest, between(rng), capacity}) {
        mla::DecodeMetadata sliced = md;
        sliced.block_table = first(md.block_table, b);
        sliced.seq_lens = first(md.seq_lens, b);
        sliced.max_seq_len = maxLen;
        impl.forward_decode(first(q, b), kv, sliced, first(o, b),
                            first(lse, b));
      }
    }
    EXPECT_EQ(impl.kernelSetCount(), size_t(sets))
        << "a call chose a kernel set precompile did not prepare";

    synchronize();
    MlaErrors e = downloadedMlaErrors(p, d);
    EXPECT_LE(e.o, 1e-2) << "at " << e.where;
    EXPECT_LE(e.lse, 1e-3);
  }
};

TEST_F(MlaPrecompileTest, CoversEveryBatchAndLength) {
  using SP = mla::SplitPolicy;
  const bool gpu = !isInterpreterMode();
  MlaCase c;
  c.H = 16, c.page = 64;
  c.lens = gpu ? std::vector<int32_t>{8000, 17, 0, 129, 4096, 1, 2500, 64}
               : std::vector<int32_t>{300, 17, 0, 129};
  for (SP policy : {SP::Auto, SP::BatchInvariant, SP::Fixed4})
    check(c, policy);
  if (!gpu)
    return;
  c.H = 128, c.contiguousPages = true;
  c.lens.clear();
  std::uniform_int_distribution<int32_t> len(0, 4096);
  for (int i = 0; i < 20; ++i)
    c.lens.push_back(len(rng));
  check(c, SP::Auto);
}
} // namespace
