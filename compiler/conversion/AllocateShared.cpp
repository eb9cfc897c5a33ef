//===- AllocateShared.cpp - size the shared-memory scratch ----------------===//
#include "tilemla/Conversion/Passes.h"
#include "tilemla/Conversion/Utility.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "tilemla/Transforms/ConversionPasses.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
struct AllocateSharedPass
    : mlir::tile::impl::TileAllocateSharedBase<AllocateSharedPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned bytes = 0;
    module.walk(
        [&](Operation *op) { bytes = std::max(bytes, getScratchBytes(op)); });
    module->setAttr(kSharedBytesAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                     llvm::alignTo(bytes, 16)));
  }
};
} // namespace
