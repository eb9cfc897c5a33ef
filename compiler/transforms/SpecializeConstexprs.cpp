//===- SpecializeConstexprs.cpp - fold constexpr kernel arguments ---------===//
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPECIALIZECONSTEXPRS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct SpecializeConstexprsPass
    : mlir::tile::impl::TileSpecializeConstexprsBase<SpecializeConstexprsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal() || failed(specialize(func)))
        signalPassFailure();
    });
  }

  LogicalResult specialize(func::FuncOp func) {
    Block &entry = func.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    llvm::BitVector erased(func.getNumArguments());
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      auto value = func.getArgAttrOfType<TypedAttr>(
          i, tile::TileDialect::ConstexprAttrHelper::getNameStr());
      if (!value)
        continue;
      BlockArgument arg = entry.getArgument(i);
      if (value.getType() != arg.getType())
        return func.emitError()
               << "constexpr argument #" << i << " has type " << arg.getType()
               << " but its value is " << value;
      auto constant = arith::ConstantOp::create(builder, arg.getLoc(), value);
      arg.replaceAllUsesWith(constant);
      erased.set(i);
    }
    if (erased.any() && failed(func.eraseArguments(erased)))
      return failure();
    return success();
  }
};
} // namespace
