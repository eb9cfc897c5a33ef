//===- WarpgroupOpToLLVM.cpp - warpgroup ids and what non-owners hold -----===//
//
// tile-predicate-warpgroups runs the ops on an owned layout under
// `scf.if (tile.warpgroup_id == g)` and yields `ub.poison` from the other
// side: the other warpgroups' registers for a tensor they do not hold.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct WarpgroupIdOpConversion : OpConversionPattern<WarpgroupIdOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpgroupIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, emitWarpgroupId(rewriter, op.getLoc()));
    return success();
  }
};

/// Poison of any type, tensors as their register structs.
struct PoisonOpConversion : OpConversionPattern<ub::PoisonOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ub::PoisonOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "type does not convert");
    rewriter.replaceOpWithNewOp<LLVM::PoisonOp>(op, type);
    return success();
  }
};
} // namespace

Value mlir::tile::emitWarpgroupId(OpBuilder &builder, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(builder, loc, builder.getI32Type());
  return LLVM::LShrOp::create(
      builder, loc, tid,
      i32Constant(builder, loc, llvm::Log2_64(kWarpgroupThreads)));
}

void mlir::tile::emitByHolders(OpBuilder &builder, Location loc, Type type,
                               function_ref<void()> body) {
  int64_t owner = getOwningWarpgroup(type);
  if (owner < 0)
    return body();
  Value isOwner = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::eq,
                                       emitWarpgroupId(builder, loc),
                                       i32Constant(builder, loc, owner));
  auto ifOp = scf::IfOp::create(builder, loc, isOwner, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

int64_t mlir::tile::getEnclosingOwner(Block *block) {
  for (Region *region = block ? block->getParent() : nullptr; region;
       region = region->getParentRegion())
    if (auto owned = region->getParentOp()->getAttrOfType<IntegerAttr>(
            TileDialect::OwnerWarpgroupAttrHelper::getNameStr()))
      return owned.getInt();
  return -1;
}

void mlir::tile::populateWarpgroupOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WarpgroupIdOpConversion, PoisonOpConversion>(
      converter, patterns.getContext());
}
