//===- MlaDeviceTest.h - the fixture of the MLA backend's GPU tests -------===//
#ifndef TILEMLA_TESTS_MLADEVICETEST_H
#define TILEMLA_TESTS_MLADEVICETEST_H

#include "../common/HostNumerics.h"
#include "tilemla/Runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

namespace tilemla::test {
/// Runs on the GPU, or in the interpreter with TILEMLA_INTERPRET=1, and is
/// skipped without either; each test draws a fresh seed and prints it.
class MlaDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!isGpuAvailable() && !isInterpreterMode())
      GTEST_SKIP() << "no CUDA GPU on this machine: GPU tests skipped";
    seed = freshSeed();
    rng.seed(seed);
    RecordProperty("seed", std::to_string(seed));
    std::printf("[ mla ] seed %llu\n", (unsigned long long)seed);
  }

  uint64_t seed = 0;
  std::mt19937_64 rng;
};
} // namespace tilemla::test

#endif
