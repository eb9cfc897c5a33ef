//===- ApplyArgFacts.cpp - specialize on what launch arguments guarantee --===//
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEAPPLYARGFACTS
#include "tilemla/Transforms/Passes.h.inc"

namespace {
struct ApplyArgFactsPass : impl::TileApplyArgFactsBase<ApplyArgFactsPass> {
  using TileApplyArgFactsBase::TileApplyArgFactsBase;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func.isExternal() &&
          func->hasAttr(TileDialect::KernelAttrHelper::getNameStr()))
        apply(func);
    });
  }

  void apply(func::FuncOp func) {
    OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      BlockArgument arg = func.getArgument(i);
      auto intType = dyn_cast<IntegerType>(arg.getType());
      if (intType && llvm::is_contained(ones, i)) {
        arg.replaceAllUsesWith(arith::ConstantOp::create(
            builder, func.getLoc(), builder.getIntegerAttr(intType, 1)));
        continue;
      }
      if (i < divisibility.size() && divisibility[i])
        func.setArgAttr(i, TileDialect::DivisibilityAttrHelper::getNameStr(),
                        builder.getI64IntegerAttr(divisibility[i]));
    }
  }
};
} // namespace
} // namespace mlir::tile
