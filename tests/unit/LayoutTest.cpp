//===- LayoutTest.cpp - blocked/slice layout arithmetic -------------------===//
#include "tilemla/Dialect/TileDialect.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;

namespace {
unsigned total(DistributedLayoutAttr layout, ArrayRef<int64_t> shape) {
  return layout.getTotalElemsPerThread(shape);
}

class LayoutTest : public ::testing::Test {
protected:
  LayoutTest() { context.loadDialect<TileDialect>(); }
  MLIRContext context;
};

TEST_F(LayoutTest, DefaultBlockedCoversRowsWithWarpsAndColumnsWithLanes) {
  auto layout = BlockedEncodingAttr::getDefault(&context, {64, 64}, 4, 4);
  EXPECT_EQ(layout.getSizePerThread(), ArrayRef<unsigned>({1, 4}));
  EXPECT_EQ(layout.getThreadsPerWarp(), ArrayRef<unsigned>({2, 16}));
  EXPECT_EQ(layout.getWarpsPerCTA(), ArrayRef<unsigned>({4, 1}));
  // 64*64 elements over 128 threads.
  EXPECT_EQ(total(layout, {64, 64}), 32u);
}

TEST_F(LayoutTest, SmallTensorsAreReplicated) {
  auto layout = BlockedEncodingAttr::getDefault(&context, {16}, 4, 4);
  // 16 elements, 4 per thread: every thread holds 4, threads repeat.
  EXPECT_EQ(total(layout, {16}), 4u);
  EXPECT_EQ(layout.getThreadsPerWarp(), ArrayRef<unsigned>({32}));
}

TEST_F(LayoutTest, SliceDropsTheReducedDimension) {
  auto parent = BlockedEncodingAttr::getDefault(&context, {64, 64}, 4, 4);
  auto rows = SliceEncodingAttr::get(&context, 1, parent);
  auto cols = SliceEncodingAttr::get(&context, 0, parent);
  // Reducing along columns leaves each thread its 64/(2*4) = 8 rows.
  EXPECT_EQ(total(rows, {64}), 8u);
  // Reducing along rows leaves each thread its 4 columns.
  EXPECT_EQ(total(cols, {64}), 4u);
}
} // namespace
