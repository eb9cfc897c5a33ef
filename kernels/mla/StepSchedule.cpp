//===- StepSchedule.cpp - a device schedule made once for many calls ------===//
//
// DecodeSchedule and TritonMLAImpl::scheduleDecode: the device schedule of
// a batch (mla_decode_stage1.tile's mla_decode_schedule) launched by the
// caller, once per decode step, into a buffer of its own that every layer's
// forward_decode then reads (DecodeMetadata::schedule) instead of launching the
// kernel itself.
//
//===----------------------------------------------------------------------===//
#include "tilemla/mla/TritonMLA.h"

#include "ArgChecks.h"

#include <fmt/format.h>

namespace tilemla::mla {

static size_t scheduleBytes(int64_t maxBatch, int64_t parts) {
  return size_t(ScheduleLayout::words(maxBatch, parts)) * sizeof(int32_t);
}

DecodeSchedule::DecodeSchedule(int64_t maxBatch, int64_t parts, int tokenBlock,
                               int64_t queryLen)
    : buffer(std::make_unique<DeviceBuffer>(scheduleBytes(maxBatch, parts))),
      capacity(maxBatch), parts(parts), tokenBlock(tokenBlock),
      queryLen(queryLen) {
  // The flag of a schedule made in stage 1 starts low (stage 2 lowers it
  // again at the end of each such call).
  buffer->fill(0);
}

DecodeSchedule::~DecodeSchedule() = default;

int64_t TritonMLAImpl::scheduleBlockB(int64_t maxBatch) {
  int64_t blockB = 32;
  while (blockB < maxBatch)
    blockB *= 2;
  return blockB;
}

Kernel TritonMLAImpl::scheduleKernel(int tokenBlock, int64_t maxBatch) {
  // A warp per 64 requests (4..16), so that its tiles stay in registers.
  const int64_t blockB = scheduleBlockB(maxBatch);
  return sharedKernel("mla/mla_decode_stage1",
                      {{"BLOCK_B", std::to_string(blockB)},
                       {"BLOCK_N", std::to_string(tokenBlock)},
                       {"OVERHEAD", std::to_string(scheduleOverheadBlocks())},
                       {"MIN_PIECE", std::to_string(scheduleMinPieceBlocks())}},
                      unsigned(std::clamp<int64_t>(blockB / 64, 4, 16)),
                      "mla_decode_schedule");
}

std::vector<KernelArg>
TritonMLAImpl::scheduleArgs(const void *seqLens, int64_t batch, int64_t parts,
                            const DecodeSchedule &schedule) const {
  return {KernelArg::pointer(seqLens),
          KernelArg::i32(int32_t(batch)).unspecialized(),
          KernelArg::i32(int32_t(parts)),
          KernelArg::pointer(schedule.buffer->data()),
          KernelArg::i32(int32_t(schedule.capacity))};
}

void TritonMLAImpl::checkScheduleFits(const DecodeSchedule &schedule,
                                      const char *what, int64_t rows) const {
  const int tokens = scheduleTokenBlock(rows);
  const int64_t parts = scheduleParts(rows);
  if (schedule.parts != parts || schedule.tokenBlock != tokens)
    throw Error(fmt::format(
        "{}: made for {} parts of {}-token steps; this impl schedules {} "
        "parts of {}-token steps for {} query tokens per request (another "
        "configuration: heads per program, query tokens, SM count or stage-1 "
        "tiles)",
        what, schedule.parts, schedule.tokenBlock, parts, tokens,
        rows / heads));
}

std::unique_ptr<DecodeSchedule>
TritonMLAImpl::newDecodeSchedule(int64_t queryLen) const {
  if (opts.device < 0)
    throw Error("newDecodeSchedule: constructed with options.device = -1 "
                "(no device)");
  if (queryLen < 1 || queryLen > opts.maxQueryLen)
    throw Error(fmt::format("newDecodeSchedule: queryLen {} outside "
                            "1..options.maxQueryLen ({})",
                            queryLen, opts.maxQueryLen));
  const int64_t rows = queryLen * heads;
  return std::unique_ptr<DecodeSchedule>(new DecodeSchedule(
      opts.maxBatch, scheduleParts(rows), scheduleTokenBlock(rows), queryLen));
}

void TritonMLAImpl::scheduleDecode(const DecodeMetadata &metadata,
                                   DecodeSchedule &schedule,
                                   StreamHandle stream) {
  const TensorView &lens = metadata.seq_lens;
  if (lens.shape.size() != 1)
    throw Error(fmt::format("seq_lens: expected rank 1 [B], got shape {}",
                            shapeString(lens.shape)));
  const int64_t B = lens.shape[0];
  if (B < 1 || B > schedule.capacity)
    throw Error(fmt::format("seq_lens: batch {} outside the schedule's 1..{}",
                            B, schedule.capacity));
  checkView("seq_lens", lens, {B}, {DType::I32}, opts.device);
  checkUnitLastStride("seq_lens", lens);
  // This impl's rows for the schedule's query tokens: a schedule another
  // configuration made does not fit.
  checkScheduleFits(schedule, "schedule", schedule.queryLen * heads);

  std::lock_guard<std::mutex> oneCallAtATime(callMutex);
  Kernel kernel = scheduleKernel(schedule.tokenBlock, schedule.capacity);
  // A programmatic dependent, as in forward_decode: it waits for the
  // stream's previous kernel before reading seq_lens.
  kernel.launch({1, 1, 1}, scheduleArgs(lens.data, B, schedule.parts, schedule),
                stream, LaunchOptions{/*programmaticDependent=*/true});
  schedule.scheduledBatch = B;
  schedule.scheduledLens = lens.data;
}

} // namespace tilemla::mla
