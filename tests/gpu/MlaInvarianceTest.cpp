//===- MlaInvarianceTest.cpp - SplitPolicy::BatchInvariant, bit for bit ---===//
//
// Five requests are decoded alone, then inside batches of 7 and 64 at
// shuffled positions beside fresh random neighbours (other lengths, so
// other grids and max_seq_len): each of the five must get the same bits of o
// and lse every time. One cache holds every request's pages; a batch is a
// choice of requests, whose q rows, block-table rows and lengths are copied
// into the batch's buffers. Outputs are poisoned with NaN before each call.
// (The values themselves are checked against the fp64 reference under every
// policy by MlaGpuTest.)
//
// On the GPU: 16 heads (cp.async, 16-head programs) and 128 heads (TMA,
// 64-head warp-specialized programs), lengths up to 33,000 (pieces longer
// than the chunk). In the interpreter (TILEMLA_INTERPRET=1): 16 heads,
// lengths up to 900.
//
//===----------------------------------------------------------------------===//
#include "../common/MlaViews.h"
#include "MlaDeviceTest.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace tilemla;
using namespace tilemla::test;
namespace mla = tilemla::mla;

namespace {
struct Outputs {
  std::vector<unsigned char> o, lse; ///< one request's rows, raw bits
};

class MlaInvarianceTest : public MlaDeviceTest {
protected:
  /// Decodes the requests `pick` (indices into `p`'s requests) as one batch
  /// with `impl`; returns each picked request's outputs.
  std::vector<Outputs> decode(mla::TritonMLAImpl &impl, const MlaProblem &p,
                              DeviceBuffer &kv, const std::vector<int> &pick) {
    const MlaCase &c = p.c;
    const int64_t B = int64_t(pick.size()), H = c.H, R = c.R, P = c.P;
    const size_t elem = dtypeBytes(c.type);
    const size_t qRow = size_t(H) * (R + P) * elem;
    std::vector<unsigned char> q(B * qRow);
    std::vector<int32_t> table(size_t(B) * p.btStride), lens(B);
    int64_t longest = 0;
    for (int64_t i = 0; i < B; ++i) {
      const int b = pick[i];
      std::memcpy(&q[i * qRow], &p.qn.bytes[b * qRow], qRow);
      std::copy_n(&p.blockTable[size_t(b) * p.btStride], p.btStride,
                  &table[size_t(i) * p.btStride]);
      lens[i] = p.seqLens[b];
      longest = std::max<int64_t>(longest, lens[i]);
    }
    DeviceBuffer dq = uploadBytes(q.data(), q.size());
    DeviceBuffer dbt = uploadBytes(table.data(), table.size() * 4);
    DeviceBuffer dlens = uploadBytes(lens.data(), lens.size() * 4);
    const size_t oRow = size_t(H) * R * elem, lseRow = size_t(H) * 4;
    DeviceBuffer dout(B * oRow), dlse(B * lseRow);
    dout.fill(0xff); // NaN
    dlse.fill(0xff);

    const mla::DType t =
        c.type == DType::F16 ? mla::DType::F16 : mla::DType::BF16;
    mla::DecodeMetadata md;
    md.block_table = {
        dbt.data(), mla::DType::I32, {B, p.maxPages}, {p.btStride, 1}, 0};
    md.seq_lens = mla::contiguousView(dlens.data(), mla::DType::I32, {B});
    md.max_seq_len = longest;
    impl.forward_decode(
        mla::TensorView{
            dq.data(), t, {B, H, R + P}, {H * (R + P), R + P, 1}, 0},
        kvCacheView(p, kv.data(), t), md,
        mla::contiguousView(dout.data(), t, {B, H, R}),
        mla::contiguousView(dlse.data(), mla::DType::F32, {B, H}));
    synchronize();
    std::vector<unsigned char> o(B * oRow), lse(B * lseRow);
    dout.download(o.data(), o.size());
    dlse.download(lse.data(), lse.size());
    std::vector<Outputs> out(B);
    for (int64_t i = 0; i < B; ++i) {
      out[i].o.assign(&o[i * oRow], &o[(i + 1) * oRow]);
      out[i].lse.assign(&lse[i * lseRow], &lse[(i + 1) * lseRow]);
    }
    return out;
  }

  /// The five requests `targets` alone, then in batches of 7 and 64 with
  /// neighbours of lengths up to `neighbourMax`: identical bits.
  void check(int H, bool contiguousPages, const std::vector<int> &targets,
             int neighbourMax) {
    const int kNeighbours = 2 + 59; // batch 7's two, batch 64's 59
    MlaCase c;
    c.H = H;
    c.contiguousPages = contiguousPages;
    c.lens = targets;
    std::uniform_int_distribution<int> len(0, neighbourMax);
    for (int i = 0; i < kNeighbours; ++i)
      c.lens.push_back(i == 0 ? 0 : i == 1 ? 1 : len(rng));
    MlaProblem p = makeMlaProblem(c, rng);
    DeviceBuffer kv = uploadBytes(p.kv.bytes.data(), p.kv.bytes.size());

    mla::TritonMLAOptions options;
    options.maxBatch = 64;
    options.splitPolicy = mla::SplitPolicy::BatchInvariant;
    mla::TritonMLAImpl impl(H, c.R + c.P, c.scale, 1, std::nullopt,
                            std::nullopt, "auto", std::nullopt, "decoder",
                            std::nullopt, mla::MLAArgs{c.R, c.P, 128, 128},
                            options);
    SCOPED_TRACE(c.describe() + " seed=" + std::to_string(seed));

    std::vector<Outputs> alone;
    for (int t = 0; t < 5; ++t)
      alone.push_back(decode(impl, p, kv, {t})[0]);
    // Every lse was written (no NaN left from the poison).
    for (int t = 0; t < 5; ++t) {
      const float *lse = reinterpret_cast<const float *>(alone[t].lse.data());
      for (int h = 0; h < H; ++h)
        EXPECT_FALSE(std::isnan(lse[h])) << "request " << t << " head " << h;
    }

    int next = 5; // the first unused neighbour
    for (int size : {7, 64}) {
      std::vector<int> pick = {0, 1, 2, 3, 4};
      while (int(pick.size()) < size)
        pick.push_back(next++);
      std::shuffle(pick.begin(), pick.end(), rng);
      std::vector<Outputs> got = decode(impl, p, kv, pick);
      for (int i = 0; i < size; ++i) {
        if (pick[i] >= 5)
          continue;
        const int t = pick[i];
        EXPECT_TRUE(got[i].o == alone[t].o)
            << "request " << t << " (" << targets[t] << " tokens): o differs "
            << "at position " << i << " of a batch of " << size;
        EXPECT_TRUE(got[i].lse == alone[t].lse)
            << "request " << t << " (" << targets[t] << " tokens): lse "
            << "differs at position " << i << " of a batch of " << size;
      }
    }
  }
};

TEST_F(MlaInvarianceTest, SixteenHeads) {
  if (isInterpreterMode())
    check(16, false, {1, 70, 300, 513, 900}, 100);
  else
    check(16, false, {1, 200, 4099, 20000, 33000}, 9000);
}

TEST_F(MlaInvarianceTest, WarpgroupHeadsWithTma) {
  if (isInterpreterMode())
    GTEST_SKIP() << "128 heads: GPU only";
  check(128, true, {1, 200, 4099, 20000, 33000}, 9000);
}
} // namespace
