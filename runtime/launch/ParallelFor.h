//===- ParallelFor.h - bounded parallel loop for host-side work --*- C++
//-*-===//
#ifndef TILEMLA_RUNTIME_PARALLELFOR_H
#define TILEMLA_RUNTIME_PARALLELFOR_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tilemla::runtime {
/// Runs work(0) ... work(count - 1) on at most `threads` threads (the
/// caller's among them; 0 means one per hardware thread) and returns when
/// every call has ended. A compile holds hundreds of MB, so this bounds how
/// many run at once. The first exception a call throws is rethrown then.
inline void parallelFor(size_t count, unsigned threads,
                        const std::function<void(size_t)> &work) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>(threads, count);
  std::atomic<size_t> next{0};
  std::exception_ptr firstError;
  std::mutex errorMutex;
  auto drain = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!firstError)
          firstError = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < workers; ++t)
    pool.emplace_back(drain);
  drain();
  for (std::thread &thread : pool)
    thread.join();
  if (firstError)
    std::rethrow_exception(firstError);
}
} // namespace tilemla::runtime

#endif
