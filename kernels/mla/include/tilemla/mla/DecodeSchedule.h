//===- DecodeSchedule.h - a decode step's device schedule -------*- C++ -*-===//
//
// The schedule TritonMLAImpl::scheduleDecode makes once per decode step for
// every layer's forward_decode (TritonMLA.h; StepSchedule.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_MLA_DECODESCHEDULE_H
#define TILEMLA_MLA_DECODESCHEDULE_H

#include "tilemla/Runtime.h"

#include <cstdint>
#include <memory>

namespace tilemla::mla {

/// Where things sit in a schedule buffer of i32 words, for a buffer made for
/// `maxBatch` requests: the host's copy of the layout mla_decode_stage1.tile
/// describes above make_schedule (and stage 2 reads).
struct ScheduleLayout {
  /// Word 0 holds per_part; words [1 + f * maxBatch + b] request b's fields.
  static constexpr int64_t field(int f, int64_t b, int64_t maxBatch) {
    return 1 + f * maxBatch + b;
  }
  /// The flag of a schedule made by stage 1 itself (SCHEDULE = 2).
  static constexpr int64_t flag(int64_t maxBatch) { return 1 + 5 * maxBatch; }
  /// The first request of part k.
  static constexpr int64_t partTable(int64_t maxBatch) {
    return 2 + 5 * maxBatch;
  }
  /// The whole buffer: the part table has one entry past the last part.
  static constexpr int64_t words(int64_t maxBatch, int64_t parts) {
    return partTable(maxBatch) + parts + 1;
  }
};

/// A device schedule of a batch's work, made once and read by many calls.
/// An engine builds its decode metadata once per step, and every layer's
/// forward_decode then reads the same lengths; the device schedule (see
/// SplitPolicy::Auto) depends on the lengths alone, so one kernel per step
/// can make it for all layers instead of one per call (about 4 us each on
/// the H200). TritonMLAImpl::newDecodeSchedule allocates one (once: a CUDA
/// graph can then capture the step); TritonMLAImpl::scheduleDecode fills it
/// on a stream from seq_lens' contents at that point of the stream; calls
/// later on the stream pass it in DecodeMetadata::schedule. Any impl with
/// the same configuration (heads per stage-1 program, SM count, stage-1
/// tiles; e.g. every layer's) can read it.
class TILEMLA_API DecodeSchedule {
public:
  ~DecodeSchedule();
  DecodeSchedule(const DecodeSchedule &) = delete;
  DecodeSchedule &operator=(const DecodeSchedule &) = delete;
  /// What the last scheduleDecode scheduled: its batch and seq_lens' data
  /// (0 and null before the first).
  int64_t batch() const { return scheduledBatch; }
  const void *seqLens() const { return scheduledLens; }
  int64_t maxBatch() const { return capacity; }

private:
  friend class TritonMLAImpl;
  DecodeSchedule(int64_t maxBatch, int64_t parts, int tokenBlock,
                 int64_t queryLen);
  std::unique_ptr<DeviceBuffer> buffer; ///< laid out as the kernel says
  /// Requests, parts (room for them), stage 1's tokens per step and query
  /// tokens per request it was made for (0 for an impl's own, which each
  /// call fills for itself).
  int64_t capacity, parts;
  int tokenBlock;
  int64_t queryLen;
  int64_t scheduledBatch = 0;
  const void *scheduledLens = nullptr;
};

} // namespace tilemla::mla

#endif
