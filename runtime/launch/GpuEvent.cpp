//===- GpuEvent.cpp - CUDA events for timing stream-ordered work ---------===//
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
} // namespace tilemla
