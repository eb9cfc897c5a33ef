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
  DeviceBuffer buffer(1 << 20);
  buffer.fill(0);
  auto ptr = KernelArg::pointer(buffer.data());
  std::vector<KernelArg> matmulArgs{ptr, ptr, ptr};
  for (int i = 0; i < 9; ++i)
    matmulArgs.push_back(KernelArg::i32(64));
  // matmul_desc's default tiling with a bf16 C, as matmul-bench runs it:
  // A and B are one 256 x 256 bf16 view of the buffer's first half, C
  // (256 x 256 bf16) its second half.
  auto view = KernelArg::tensor(buffer.data(), 256, 256, 256);
  auto secondHalf =
      KernelArg::pointer(static_cast<char *>(buffer.data()) + (1 << 19));
  std::vector<KernelArg> descArgs{view, view, secondHalf};
  for (int value : {256, 256, 256, 256, 256, 1})
    descArgs.push_back(KernelArg::i32(value));
  struct Case {
    const char *name;
    Kernel::Constexprs constexprs;
    std::vector<KernelArg> args;
  };
  const Case cases[] = {
      {"examples/vector_add",
       {{"BLOCK", "1024"}},
       {ptr, ptr, ptr, KernelArg::i32(1024)}},
      {"examples/softmax",
       {{"BLOCK", "1024"}},
       {ptr, ptr, KernelArg::i32(1024), KernelArg::i32(1000)}},
      {"examples/matmul", {{"T", "f16"}}, matmulArgs},
      {"examples/matmul_desc", {{"OUT", "bf16"}}, descArgs}};
  synchronize(); // context creation is not part of the numbers
  for (const Case &c : cases) {
    const std::vector<KernelArg> &args = c.args;
    unsigned grid = 1;

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
