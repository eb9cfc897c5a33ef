//===- GpuTargetTest.cpp - the one value that names a GPU target ----------===//
#include "tilemla/Support/GpuTarget.h"

#include <gtest/gtest.h>

using tilemla::GpuTarget;

TEST(GpuTarget, ParsesKnownNamesOnly) {
  for (const char *name :
       {"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"}) {
    std::optional<GpuTarget> target = GpuTarget::parse(name);
    ASSERT_TRUE(target) << name;
    EXPECT_EQ(target->name(), name);
  }
  for (const char *name : {"", "sm_75", "sm_99", "sm_80a", "sm_100", "sm_90 ",
                           "SM_90A", "compute_90a"})
    EXPECT_FALSE(GpuTarget::parse(name)) << name;
  EXPECT_EQ(GpuTarget::knownNames(),
            "sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a");
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
}

TEST(GpuTarget, DevicesGetTheirBestKnownTarget) {
  EXPECT_EQ(GpuTarget::forDevice(9, 0)->name(), "sm_90a");
  EXPECT_EQ(GpuTarget::forDevice(8, 0)->name(), "sm_80");
  EXPECT_EQ(GpuTarget::forDevice(8, 6)->name(), "sm_86");
  EXPECT_EQ(GpuTarget::forDevice(8, 9)->name(), "sm_89");
  // Older than Ampere, or newer than what PTX 8.0 can describe.
  EXPECT_FALSE(GpuTarget::forDevice(7, 5));
  EXPECT_FALSE(GpuTarget::forDevice(10, 0));
  EXPECT_FALSE(GpuTarget::forDevice(12, 0));
  EXPECT_FALSE(GpuTarget::forDevice(-1, 0));
}
