//===- GpuEvent.cpp - CUDA events: timing and ordering across streams ----===//
#include "../cuda/CudaDriver.h"
#include "tilemla/Runtime.h"

#include <chrono>
#include <fmt/format.h>
#include <utility>

namespace tilemla {
using namespace cuda;

namespace {
int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

GpuEvent::GpuEvent() {
  if (isInterpreterMode())
    return;
  currentContext();
  CUevent created = nullptr;
  TILEMLA_CU(cuEventCreate, "a timing event", &created, CU_EVENT_DEFAULT);
  event = created;
}

GpuEvent::~GpuEvent() {
  if (event)
    driver().cuEventDestroy(static_cast<CUevent>(event)); // no throwing
}

GpuEvent::GpuEvent(GpuEvent &&other) noexcept
    : event(std::exchange(other.event, nullptr)),
      recorded(std::exchange(other.recorded, false)), hostNs(other.hostNs) {}

GpuEvent &GpuEvent::operator=(GpuEvent &&other) noexcept {
  if (this != &other) {
    if (event)
      driver().cuEventDestroy(static_cast<CUevent>(event));
    event = std::exchange(other.event, nullptr);
    recorded = std::exchange(other.recorded, false);
    hostNs = other.hostNs;
  }
  return *this;
}

void GpuEvent::record(StreamHandle stream) {
  if (event)
    TILEMLA_CU(cuEventRecord, "a timing event", static_cast<CUevent>(event),
               static_cast<CUstream>(stream));
  else
    hostNs = steadyNs();
  recorded = true;
}

void GpuEvent::synchronize() const {
  if (!recorded)
    throw Error("GpuEvent::synchronize: the event was never recorded");
  if (event)
    TILEMLA_CU(cuEventSynchronize, "a timing event",
               static_cast<CUevent>(event));
}

float GpuEvent::elapsedMs(const GpuEvent &start, const GpuEvent &end) {
  if (!start.recorded || !end.recorded)
    throw Error(fmt::format("GpuEvent::elapsedMs: the {} event was never "
                            "recorded",
                            start.recorded ? "end" : "start"));
  if (!start.event || !end.event) {
    if (start.event || end.event)
      throw Error("GpuEvent::elapsedMs: events from the interpreter and the "
                  "GPU cannot be compared");
    return float(double(end.hostNs - start.hostNs) * 1e-6);
  }
  float ms = 0;
  TILEMLA_CU(cuEventElapsedTime, "two timing events", &ms,
             static_cast<CUevent>(start.event),
             static_cast<CUevent>(end.event));
  return ms;
}
bool isStreamCapturing(StreamHandle stream) {
  if (isInterpreterMode())
    return false;
  int status = CU_STREAM_CAPTURE_STATUS_NONE;
  TILEMLA_CU(cuStreamIsCapturing, "a stream", static_cast<CUstream>(stream),
             &status);
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

StreamOrder::~StreamOrder() {
  if (event)
    driver().cuEventDestroy(static_cast<CUevent>(event)); // no throwing
}

void StreamOrder::acquire(StreamHandle stream) {
  if (pending && stream != last && !isStreamCapturing(stream))
    TILEMLA_CU(cuStreamWaitEvent, "the previous stream's uses",
               static_cast<CUstream>(stream), static_cast<CUevent>(event), 0u);
}

void StreamOrder::release(StreamHandle stream) {
  if (isInterpreterMode())
    return;
  // Work captured into a graph runs when the graph is launched: nothing to
  // wait for now, and an event recorded in a capture cannot be waited for
  // outside it.
  pending = false;
  if (isStreamCapturing(stream))
    return;
  if (!event) {
    CUevent created = nullptr;
    TILEMLA_CU(cuEventCreate, "a stream-order event", &created,
               CU_EVENT_DISABLE_TIMING);
    event = created;
  }
  TILEMLA_CU(cuEventRecord, "a stream-order event", static_cast<CUevent>(event),
             static_cast<CUstream>(stream));
  last = stream;
  pending = true;
}
} // namespace tilemla
