//===- jit-bench.cpp - JIT and launch overheads of the runtime ------------===//
//
// For each embedded example kernel: the time of the first launch in this
// process (a compile when the disk cache is cold, a disk-cache load when it is
// warm), the time to get the same specialization through a second handle
// (memory cache), and the host time per launch (asynchronous launches, no
// synchronization in between). Run it twice with one TILEMLA_CACHE_DIR to see
// the cold and the disk-cache numbers.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Runtime.h"

#include <chrono>
#include <cstdio>

using namespace tilemla;
using Clock = std::chrono::steady_clock;

static double microsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start)
      .count();
}

int main() {
  if (!isGpuAvailable()) {
    std::printf("jit-bench: no GPU; nothing to measure\n");
    return 0;
  }
  struct Case {
    const char *name;
    Kernel::Constexprs constexprs;
  };
  const Case cases[] = {{"examples/vector_add", {{"BLOCK", "1024"}}},
                        {"examples/softmax", {{"BLOCK", "1024"}}},
                        {"examples/matmul", {{"T", "f16"}}}};
  DeviceBuffer buffer(1 << 20);
  buffer.fill(0);
  auto ptr = KernelArg::pointer(buffer.data());
  synchronize(); // context creation is not part of the numbers
  for (const Case &c : cases) {
    std::vector<KernelArg> args;
    unsigned grid = 1;
    if (std::string(c.name) == "examples/vector_add")
      args = {ptr, ptr, ptr, KernelArg::i32(1024)};
    else if (std::string(c.name) == "examples/softmax")
      args = {ptr, ptr, KernelArg::i32(1024), KernelArg::i32(1000)};
    else
      args = {ptr, ptr, ptr};
    if (args.size() == 3)
      for (int i = 0; i < 9; ++i)
        args.push_back(KernelArg::i32(64));

    auto start = Clock::now();
    Kernel kernel = Kernel::fromEmbedded(c.name, c.constexprs);
    kernel.launch({grid, 1, 1}, args);
    double first = microsSince(start);
    synchronize();

    start = Clock::now();
    Kernel again = Kernel::fromEmbedded(c.name, c.constexprs);
    again.launch({grid, 1, 1}, args);
    double memoryHit = microsSince(start);
    synchronize();

    const int launches = 20000;
    start = Clock::now();
    for (int i = 0; i < launches; ++i)
      kernel.launch({grid, 1, 1}, args);
    double perLaunch = microsSince(start) / launches;
    synchronize();
    KernelInfo info = kernel.info();
    std::printf("%-20s first launch %9.1f us  second handle %7.1f us  "
                "host/launch %5.2f us  cubin=%s\n",
                c.name, first, memoryHit, perLaunch,
                info.hasCubin ? "nvJitLink" : "driver-JIT");
  }
  return 0;
}
