//===- AssignLayouts.cpp - tile IR -> tile-gpu IR -------------------------===//
//
// Walks each kernel in program order, so every operand already carries its
// layout when its user is reached. The assignment is deliberately local:
// conversions it inserts are cleaned up by the canonicalizer, which
// rematerializes cheap producers (ranges, splats, their elementwise
// combinations) directly in the layout a consumer wants.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
struct AssignLayoutsPass
    : mlir::tile::impl::TileAssignLayoutsBase<AssignLayoutsPass> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;

  void runOnOperation() override {
    getOperation()->setAttr(
        "tile.num_warps",
        IntegerAttr::get(IntegerType::get(&getContext(), 32), numWarps));
    getOperation().walk([&](func::FuncOp func) {
      if (!func.isExternal())
        assignBlock(func.getBody().front());
    });
  }

private:
  DistributedLayoutAttr defaultLayout(ArrayRef<int64_t> shape) {
    return BlockedEncodingAttr::getDefault(&getContext(), shape, numWarps,
                                           std::max(1u, vectorBytes / 4));
  }

  static RankedTensorType withLayout(Type type, Attribute layout) {
    auto tensor = cast<RankedTensorType>(type);
    return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                                 layout);
  }

  /// Gives `value` the layout `layout`, converting before `user` if needed.
  Value convertTo(Value value, Attribute layout, Operation *user) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getEncoding() == layout)
      return value;
    OpBuilder builder(user);
    return ConvertLayoutOp::create(builder, value.getLoc(),
                                   withLayout(type, layout), value);
  }

  void convertOperand(Operation *op, unsigned index, Attribute layout) {
    op->setOperand(index, convertTo(op->getOperand(index), layout, op));
  }

  void setResultLayout(Operation *op, Attribute layout) {
    for (Value result : op->getResults())
      if (isa<RankedTensorType>(result.getType()))
        result.setType(withLayout(result.getType(), layout));
  }

  void assignBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      assignOp(&op);
  }

  void assignOp(Operation *op);
  void assignFor(scf::ForOp forOp);
  void assignIf(scf::IfOp ifOp);
  void assignConstant(arith::ConstantOp op);
};

void AssignLayoutsPass::assignFor(scf::ForOp forOp) {
  for (auto [init, arg, result] :
       llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                 forOp.getResults())) {
    arg.setType(init.getType());
    result.setType(init.getType());
  }
  assignBlock(*forOp.getBody());
  Operation *yield = forOp.getBody()->getTerminator();
  for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs()))
    if (auto tensor = dyn_cast<RankedTensorType>(arg.getType()))
      convertOperand(yield, i, tensor.getEncoding());
}

void AssignLayoutsPass::assignIf(scf::IfOp ifOp) {
  assignBlock(*ifOp.thenBlock());
  if (ifOp.elseBlock())
    assignBlock(*ifOp.elseBlock());
  if (ifOp.getNumResults() == 0)
    return;
  Operation *thenYield = ifOp.thenBlock()->getTerminator();
  Operation *elseYield = ifOp.elseBlock()->getTerminator();
  for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
    Type type = thenYield->getOperand(i).getType();
    result.setType(type);
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      convertOperand(elseYield, i, tensor.getEncoding());
  }
}

void AssignLayoutsPass::assignConstant(arith::ConstantOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!type || !dense)
    return;
  auto encoded = withLayout(type, defaultLayout(type.getShape()));
  op.setValueAttr(
      dense.isSplat()
          ? DenseElementsAttr(dense.resizeSplat(encoded))
          : DenseElementsAttr::getFromRawBuffer(encoded, dense.getRawData()));
  op.getResult().setType(encoded);
}

void AssignLayoutsPass::assignOp(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return assignFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return assignIf(ifOp);
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return assignConstant(constant);

  auto resultShape = [&]() {
    return cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  };
  if (isa<MakeRangeOp, SplatOp>(op))
    return setResultLayout(op, defaultLayout(resultShape()));

  if (isa<LoadOp, StoreOp, AddPtrOp>(op)) {
    auto ptrType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!ptrType)
      return;
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      convertOperand(op, i, ptrType.getEncoding());
    return setResultLayout(op, ptrType.getEncoding());
  }

  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    auto srcLayout = getLayout(expand.getSrc().getType());
    auto slice = dyn_cast_or_null<SliceEncodingAttr>(srcLayout);
    if (slice && slice.getDim() == expand.getAxis())
      return setResultLayout(op, slice.getParent());
    DistributedLayoutAttr parent = defaultLayout(resultShape());
    convertOperand(
        op, 0, SliceEncodingAttr::get(&getContext(), expand.getAxis(), parent));
    return setResultLayout(op, parent);
  }

  if (isa<BroadcastOp>(op)) {
    DistributedLayoutAttr layout = defaultLayout(resultShape());
    convertOperand(op, 0, layout);
    return setResultLayout(op, layout);
  }

  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto layout = getLayout(reduce.getSrc().getType());
    return setResultLayout(
        op, SliceEncodingAttr::get(&getContext(), reduce.getAxis(), layout));
  }

  if (auto dot = dyn_cast<DotOp>(op)) {
    DistributedLayoutAttr layout = defaultLayout(resultShape());
    convertOperand(op, 2, layout);
    return setResultLayout(op, layout);
  }

  // Elementwise ops: agree on the default layout of the shape when an operand
  // already has it, otherwise on the first tensor operand's layout.
  if (op->getNumResults() == 0 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return;
  Attribute chosen;
  Attribute preferred = defaultLayout(resultShape());
  for (Value operand : op->getOperands())
    if (auto tensor = dyn_cast<RankedTensorType>(operand.getType())) {
      if (!chosen || tensor.getEncoding() == preferred)
        chosen = tensor.getEncoding();
    }
  if (!chosen)
    chosen = preferred;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (isa<RankedTensorType>(op->getOperand(i).getType()))
      convertOperand(op, i, chosen);
  setResultLayout(op, chosen);
}
} // namespace
