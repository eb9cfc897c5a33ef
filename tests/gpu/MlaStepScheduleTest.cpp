//===- MlaStepScheduleTest.cpp - one device schedule for a step's calls ---===//
//
// DecodeSchedule: scheduleDecode makes a batch's device schedule once, and
// the calls of two impls of one configuration (two layers of a decode step)
// read it through DecodeMetadata::schedule. Each must give the bits of a
// call that makes its own schedule (which matches the fp64 reference), and a
// schedule made from other lengths must change them (the call reads the
// given schedule, not a fresh one). A schedule that does not fit throws,
// naming it: another batch, other seq_lens, another configuration.
//
// Ragged lengths with 0 and 1 beside longer ones, DeviceSchedule::Always.
// On the GPU: 128 heads over back-to-back pages (TMA, warp-specialized
// 64-head programs), 16 heads, and 16 over an fp8 cache (where an impl
// whose own calls take wider tiles reads a given schedule in its steps);
// interpreted (TILEMLA_INTERPRET=1): 16 heads. (Graph capture of a step:
// MlaGraphTest.)
//
//===----------------------------------------------------------------------===//
#include "../common/MlaViews.h"
#include "MlaDeviceTest.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <gtest/gtest.h>

#include <optional>

using namespace tilemla;
using namespace tilemla::test;
namespace mla = tilemla::mla;

namespace {
/// `wideFrom`: TritonMLAOptions::wideFp8TilesMinTokens.
mla::TritonMLAImpl makeImpl(int64_t heads, const MlaCase &c, int64_t maxBatch,
                            int64_t wideFrom = 0) {
  mla::TritonMLAOptions options;
  options.maxBatch = maxBatch;
  options.wideFp8TilesMinTokens = wideFrom;
  options.splitPolicy = mla::SplitPolicy::Auto;
  options.deviceSchedule = mla::DeviceSchedule::Always;
  return mla::TritonMLAImpl(heads, c.R + c.P, c.scale, 1, std::nullopt,
                            std::nullopt, c.kvScale > 0 ? "fp8" : "auto",
                            std::nullopt, "decoder", std::nullopt,
                            mla::MLAArgs{c.R, c.P, 128, 128}, options);
}

/// The raw bits of o and lse a finished call left in `d`.
std::vector<unsigned char> outputBits(const MlaDeviceProblem &d) {
  std::vector<unsigned char> bits(d.o.size() + d.lse.size());
  d.o.download(bits.data(), d.o.size());
  d.lse.download(bits.data() + d.o.size(), d.lse.size());
  return bits;
}

void poison(MlaDeviceProblem &d) {
  d.o.fill(0xff);
  d.lse.fill(0xff);
}

class MlaStepScheduleTest : public MlaDeviceTest {
protected:
  void layersShareOneSchedule(MlaCase c) {
    SCOPED_TRACE(c.describe() + " seed=" + std::to_string(seed));
    const int64_t B = c.B();
    MlaProblem p = makeMlaProblem(c, rng);
    MlaDeviceProblem d = uploadMlaProblem(p, mla::DType::BF16);
    std::optional<DeviceBuffer> codes; // an fp8 cache's
    if (c.kvScale > 0) {
      codes.emplace(uploadBytes(p.kvCodes.data(), p.kvCodes.size()));
      d.kvView = kvCacheView(p, codes->data(), mla::DType::FP8E4M3);
      d.metadata.kv_scale = float(c.kvScale);
    }
    mla::TritonMLAImpl layer1 = makeImpl(c.H, c, B),
                       layer2 = makeImpl(c.H, c, B);
    ASSERT_TRUE(layer1.schedulesOnDevice(d.kvView, B));

    // A call making its own schedule: the bits to match.
    layer1.forward_decode(d.qView, d.kvView, d.metadata, d.oView, d.lseView);
    synchronize();
    const std::vector<unsigned char> own = outputBits(d);
    MlaErrors e = downloadedMlaErrors(p, d);
    EXPECT_LE(e.o, 1e-2) << "at " << e.where;
    EXPECT_LE(e.lse, 1e-3);

    // One schedule, both layers.
    std::unique_ptr<mla::DecodeSchedule> schedule = layer1.newDecodeSchedule();
    mla::DecodeMetadata md = d.metadata;
    layer2.scheduleDecode(md, *schedule);
    EXPECT_EQ(schedule->batch(), B);
    md.schedule = schedule.get();
    for (mla::TritonMLAImpl *layer : {&layer1, &layer2}) {
      poison(d);
      layer->forward_decode(d.qView, d.kvView, md, d.oView, d.lseView);
      synchronize();
      EXPECT_TRUE(outputBits(d) == own) << "layer " << (layer == &layer2) + 1;
    }
    if (c.kvScale > 0) {
      // An impl whose own calls take the wide tiles (here from one token):
      // right on its own, and reading a given schedule in the steps it was
      // made in (the shared-SM tiles), so with the other impls' bits.
      mla::TritonMLAImpl wide = makeImpl(c.H, c, B, /*wideFrom=*/1);
      poison(d);
      wide.forward_decode(d.qView, d.kvView, d.metadata, d.oView, d.lseView);
      synchronize();
      MlaErrors wideErrors = downloadedMlaErrors(p, d);
      EXPECT_LE(wideErrors.o, 1e-2) << "wide tiles, at " << wideErrors.where;
      EXPECT_LE(wideErrors.lse, 1e-3) << "wide tiles";
      poison(d);
      wide.forward_decode(d.qView, d.kvView, md, d.oView, d.lseView);
      synchronize();
      EXPECT_TRUE(outputBits(d) == own) << "wide tiles, a given schedule";
    }

    // Scheduled from shorter lengths, then read with the real ones in the
    // same buffer: the pieces (and so the bits) are the short lengths'.
    std::vector<int32_t> shorter = p.seqLens;
    for (int32_t &len : shorter)
      len = std::min(len, 64);
    d.seqLens.upload(shorter.data(), shorter.size() * 4);
    layer1.scheduleDecode(md, *schedule);
    synchronize();
    d.seqLens.upload(p.seqLens.data(), p.seqLens.size() * 4);
    poison(d);
    layer1.forward_decode(d.qView, d.kvView, md, d.oView, d.lseView);
    synchronize();
    EXPECT_FALSE(outputBits(d) == own) << "the given schedule was not read";

    // Schedules that do not fit the call.
    mla::DecodeMetadata fewer = md;
    fewer.seq_lens.shape = {B - 1};
    fewer.block_table.shape[0] = B - 1;
    mla::TensorView q = d.qView, o = d.oView, lse = d.lseView;
    q.shape[0] = o.shape[0] = lse.shape[0] = B - 1;
    expectThrowNaming(
        [&] { layer1.forward_decode(q, d.kvView, fewer, o, lse); },
        "metadata.schedule");
    DeviceBuffer otherLens =
        uploadBytes(p.seqLens.data(), p.seqLens.size() * 4);
    mla::DecodeMetadata moved = md;
    moved.seq_lens.data = otherLens.data();
    expectThrowNaming(
        [&] {
          layer1.forward_decode(d.qView, d.kvView, moved, d.oView, d.lseView);
        },
        "metadata.schedule");
    // Another configuration: other heads per stage-1 program.
    mla::TritonMLAImpl other = makeImpl(c.H == 16 ? 128 : 16, c, B);
    expectThrowNaming([&] { other.scheduleDecode(md, *schedule); },
                      "schedule:");
    std::unique_ptr<mla::DecodeSchedule> small = other.newDecodeSchedule();
    mla::DecodeMetadata tooMany = d.metadata;
    tooMany.seq_lens.shape = {B + 1};
    expectThrowNaming([&] { other.scheduleDecode(tooMany, *small); },
                      "seq_lens:");
  }

  template <typename Call>
  static void expectThrowNaming(Call call, const std::string &name) {
    try {
      call();
      ADD_FAILURE() << "no error naming " << name;
    } catch (const Error &error) {
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos)
          << error.what();
    }
  }
};

TEST_F(MlaStepScheduleTest, LayersShareOneSchedule) {
  MlaCase c;
  c.H = 16;
  c.lens = {700, 0, 1, 513, 64, 90, 300};
  layersShareOneSchedule(c);
  if (isInterpreterMode())
    return;
  MlaCase codes = c;
  codes.kvScale = 1.0 / 240;
  layersShareOneSchedule(codes);
  c.H = 128, c.contiguousPages = true;
  c.lens = {4096, 0, 1, 2000, 64, 777, 3000, 129};
  layersShareOneSchedule(c);
}
} // namespace
