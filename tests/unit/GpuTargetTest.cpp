//===- GpuTargetTest.cpp - the one value that names a GPU target ----------===//
#include "tilemla/Support/GpuTarget.h"

#include <gtest/gtest.h>

using tilemla::GpuTarget;

TEST(GpuTarget, ParsesKnownNamesOnly) {
  for (const char *name :
       {"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100",
        "sm_103", "sm_110", "sm_120", "sm_121"}) {
    std::optional<GpuTarget> target = GpuTarget::parse(name);
    ASSERT_TRUE(target) << name;
    EXPECT_EQ(target->name(), name);
  }
  for (const char *name : {"", "sm_75", "sm_99", "sm_80a", "sm_100a", "sm_101",
                           "sm_90 ", "SM_90A", "compute_90a", "sm_1000"})
    EXPECT_FALSE(GpuTarget::parse(name)) << name;
  EXPECT_EQ(GpuTarget::knownNames(), "sm_80, sm_86, sm_87, sm_89, sm_90, "
                                     "sm_90a, sm_100, sm_103, sm_110, sm_120, "
                                     "sm_121");
}

TEST(GpuTarget, FeaturesFollowTheArchitecture) {
  GpuTarget hopper = *GpuTarget::parse("sm_90a");
  EXPECT_EQ(hopper.computeCapability(), 90u);
  EXPECT_TRUE(hopper.isArchSpecific());
  EXPECT_TRUE(hopper.hasWgmma());
  EXPECT_TRUE(hopper.hasDependentLaunch());
  EXPECT_EQ(hopper.maxSharedBytes(), 227u * 1024);
  EXPECT_EQ(hopper, GpuTarget()); // the tools' default

  GpuTarget portableHopper = *GpuTarget::parse("sm_90");
  EXPECT_FALSE(portableHopper.hasWgmma());
  EXPECT_TRUE(portableHopper.hasDependentLaunch());
  EXPECT_NE(portableHopper, hopper);

  GpuTarget ampere = *GpuTarget::parse("sm_80");
  EXPECT_FALSE(ampere.hasWgmma());
  EXPECT_FALSE(ampere.hasDependentLaunch());
  EXPECT_EQ(ampere.maxSharedBytes(), 163u * 1024);
  EXPECT_EQ(GpuTarget::parse("sm_89")->maxSharedBytes(), 99u * 1024);
  EXPECT_EQ(ampere.ptxVersion(), 80u);
  EXPECT_EQ(hopper.ptxVersion(), 80u);
  // fp8's paired conversions: sm_89 on, at PTX 8.1 there.
  EXPECT_FALSE(ampere.hasFp8Conversions());
  EXPECT_FALSE(GpuTarget::parse("sm_87")->hasFp8Conversions());
  EXPECT_TRUE(GpuTarget::parse("sm_89")->hasFp8Conversions());
  EXPECT_EQ(GpuTarget::parse("sm_89")->ptxVersion(), 81u);
  EXPECT_TRUE(hopper.hasFp8Conversions());

  // Blackwell: the portable kernels (no wgmma), dependent launch, and the
  // first PTX version that names each architecture.
  GpuTarget blackwell = *GpuTarget::parse("sm_100");
  EXPECT_EQ(blackwell.computeCapability(), 100u);
  EXPECT_FALSE(blackwell.isArchSpecific());
  EXPECT_FALSE(blackwell.hasWgmma());
  EXPECT_TRUE(blackwell.hasDependentLaunch());
  EXPECT_EQ(blackwell.maxSharedBytes(), 227u * 1024);
  EXPECT_EQ(blackwell.ptxVersion(), 86u);
  GpuTarget consumer = *GpuTarget::parse("sm_120");
  EXPECT_EQ(consumer.maxSharedBytes(), 99u * 1024);
  EXPECT_EQ(consumer.ptxVersion(), 87u);
  EXPECT_EQ(GpuTarget::parse("sm_103")->ptxVersion(), 88u);
  EXPECT_EQ(GpuTarget::parse("sm_121")->ptxVersion(), 88u);
  EXPECT_EQ(GpuTarget::parse("sm_110")->ptxVersion(), 90u);
}

TEST(GpuTarget, DevicesGetTheirBestKnownTarget) {
  EXPECT_EQ(GpuTarget::forDevice(9, 0)->name(), "sm_90a");
  EXPECT_EQ(GpuTarget::forDevice(8, 0)->name(), "sm_80");
  EXPECT_EQ(GpuTarget::forDevice(8, 6)->name(), "sm_86");
  EXPECT_EQ(GpuTarget::forDevice(8, 9)->name(), "sm_89");
  EXPECT_EQ(GpuTarget::forDevice(10, 0)->name(), "sm_100");
  EXPECT_EQ(GpuTarget::forDevice(10, 3)->name(), "sm_103");
  EXPECT_EQ(GpuTarget::forDevice(11, 0)->name(), "sm_110");
  EXPECT_EQ(GpuTarget::forDevice(12, 0)->name(), "sm_120");
  EXPECT_EQ(GpuTarget::forDevice(12, 1)->name(), "sm_121");
  // Older than Ampere, capabilities no toolkit names (10.1 was renamed
  // 11.0), and ones newer than the backend knows.
  EXPECT_FALSE(GpuTarget::forDevice(7, 5));
  EXPECT_FALSE(GpuTarget::forDevice(10, 1));
  EXPECT_FALSE(GpuTarget::forDevice(13, 0));
  EXPECT_FALSE(GpuTarget::forDevice(-1, 0));
}
