//===- AssignLayouts.cpp - tile IR -> tile-gpu IR -------------------------===//
//
// Walks each kernel in program order, so every operand already carries its
// layout when its user is reached. The assignment is deliberately local:
// conversions it inserts are cleaned up by the canonicalizer, which
// rematerializes cheap producers (ranges, splats, their elementwise
// combinations) directly in the layout a consumer wants.
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <map>

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
        tile::TileDialect::NumWarpsAttrHelper::getNameStr(),
        IntegerAttr::get(IntegerType::get(&getContext(), 32), numWarps));
    WalkResult result = getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return WalkResult::advance();
      // Layouts change tensor types; a function's results would keep the
      // old ones. Kernels return nothing (helpers are inlined before).
      if (llvm::any_of(func.getResultTypes(), llvm::IsaPred<TensorType>)) {
        func.emitError() << "tile-assign-layouts lays out kernels, which "
                            "return nothing; this function returns a tensor";
        return WalkResult::interrupt();
      }
      collectAccessWidths(func);
      dotPlan.emplace(func, numWarps, warpgroups,
                      ownsNarrowDots(getOperation(), ownNarrowDots),
                      getNarrowDotOwner(getOperation(), numWarps));
      assignBlock(func.getBody().front());
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  /// Narrowest element loaded or stored per tensor shape: the default layout
  /// of that shape gives each thread `vectorBytes` of it (16-byte accesses).
  void collectAccessWidths(func::FuncOp func) {
    accessBytes.clear();
    func.walk([&](Operation *op) {
      if (!isa<LoadOp, StoreOp>(op))
        return;
      auto ptrs = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      if (!ptrs)
        return;
      Type pointee = cast<PointerType>(ptrs.getElementType()).getPointeeType();
      unsigned bytes = std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
      std::vector<int64_t> shape(ptrs.getShape());
      auto [it, inserted] = accessBytes.try_emplace(shape, bytes);
      if (!inserted)
        it->second = std::min(it->second, bytes);
    });
  }

  DistributedLayoutAttr defaultLayout(ArrayRef<int64_t> shape) {
    unsigned bytes = 4;
    auto it = accessBytes.find(std::vector<int64_t>(shape));
    if (it != accessBytes.end())
      bytes = it->second;
    return BlockedEncodingAttr::getDefault(&getContext(), shape, numWarps,
                                           std::max(1u, vectorBytes / bytes));
  }

  /// The accumulator layout `dot` gets: tensor cores where the dot fits.
  DistributedLayoutAttr dotLayout(DotOp dot) {
    if (tensorCores && (fp8Dots || !isFp8Dot(dot)))
      if (MmaEncodingAttr mma = dotPlan->layoutFor(dot)) {
        if (fp8InPlace && !mma.isWarpgroup() && readsCodesInPlace(dot)) {
          auto interleaved = MmaEncodingAttr::get(
              &getContext(), mma.getWarpsPerCTA(), 2, -1, /*interleave=*/2);
          if (isMmaCompatibleDot(dot, interleaved))
            return interleaved;
        }
        return mma;
      }
    return defaultLayout(dot.getAccType().getShape());
  }

  /// A [K, N] b that tile-pipeline-loops will hand over as landed fp8
  /// codes: a pipelined loop's 2-D load widened to 16 bits by one extf,
  /// read by dots alone, in a body that writes no memory (which that pass
  /// would leave unpipelined).
  static bool readsCodesInPlace(DotOp dot) {
    auto widen = dot.getB().getDefiningOp<arith::ExtFOp>();
    auto load = widen ? widen.getIn().getDefiningOp<LoadOp>() : LoadOp();
    if (dot.getTransB() || !load || !isFp8Type(load.getType()) ||
        getElementTypeOrSelf(widen.getType()).getIntOrFloatBitWidth() != 16)
      return false;
    auto loop = load->getParentOfType<scf::ForOp>();
    if (!loop ||
        !loop->hasAttr(TileDialect::NumStagesAttrHelper::getNameStr()) ||
        load->getBlock() != loop.getBody() || !load->hasOneUse() ||
        !llvm::all_of(widen->getUsers(),
                      [](Operation *user) { return isa<DotOp>(user); }))
      return false;
    return !writesMemory(*loop.getBody());
  }

  Attribute chooseElementwiseLayout(Operation *op);
  std::map<std::vector<int64_t>, unsigned> accessBytes;
  std::optional<DotLayoutPlan> dotPlan;

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

/// Elements a conversion of `value` would move: splats, ranges and constants
/// are rebuilt for free, broadcasts and expand_dims move only their source.
int64_t conversionCost(Value value) {
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<SplatOp, MakeRangeOp, arith::ConstantOp>(def))
    return 0;
  if (isa_and_nonnull<BroadcastOp, ExpandDimsOp>(def))
    return conversionCost(def->getOperand(0));
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    return tensor.getNumElements();
  return 0;
}

bool isMmaDerived(Attribute layout) {
  while (auto slice = dyn_cast_or_null<SliceEncodingAttr>(layout))
    layout = slice.getParent();
  return isa_and_nonnull<MmaEncodingAttr>(layout);
}

/// A tensor-core-sized dot in `body` that `value` is computed from through
/// same-shape elementwise ops (operands searched in order, a few levels
/// deep), or null. Elementwise ops follow their costliest operand, which for
/// such a chain is the dot's result.
static DotOp findSourceDot(Value value, Block *body, int depth = 6) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != body || depth == 0)
    return {};
  if (auto dot = dyn_cast<DotOp>(def))
    return dot;
  if (def->getNumResults() != 1 || def->getNumRegions() != 0 ||
      !isa<arith::ArithDialect, math::MathDialect>(def->getDialect()))
    return {};
  for (Value operand : def->getOperands())
    if (operand.getType() == value.getType())
      if (DotOp dot = findSourceDot(operand, body, depth - 1))
        return dot;
  return {};
}

void AssignLayoutsPass::assignFor(scf::ForOp forOp) {
  Operation *yield = forOp.getBody()->getTerminator();
  MutableArrayRef<OpOperand> inits = forOp.getInitArgsMutable();
  // An accumulator the body yields from a dot, directly or through
  // elementwise ops of the same shape (a running sum of softmax weights),
  // starts out in the dot's layout, so the body is assigned around it.
  for (auto [i, init] : llvm::enumerate(inits))
    if (DotOp dot = findSourceDot(yield->getOperand(i), forOp.getBody()))
      init.set(convertTo(init.get(), dotLayout(dot), forOp));
  for (auto [init, arg, result] :
       llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                 forOp.getResults())) {
    arg.setType(init.getType());
    result.setType(init.getType());
  }
  assignBlock(*forOp.getBody());
  // Carry each value in the layout the body yields it in: the body's uses see
  // a conversion back to the layout they were assigned with, which the
  // canonicalizer cancels against their own conversions.
  for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs())) {
    auto argType = dyn_cast<RankedTensorType>(arg.getType());
    if (!argType)
      continue;
    Value yielded = yield->getOperand(i);
    Attribute carried = cast<RankedTensorType>(yielded.getType()).getEncoding();
    if (carried == argType.getEncoding())
      continue;
    inits[i].set(convertTo(inits[i].get(), carried, forOp));
    arg.setType(yielded.getType());
    OpBuilder builder(forOp.getBody(), forOp.getBody()->begin());
    Value asAssigned =
        ConvertLayoutOp::create(builder, arg.getLoc(), argType, arg);
    arg.replaceAllUsesExcept(asAssigned, asAssigned.getDefiningOp());
    // Ops after the loop are assigned later and take the new layout as is.
    forOp.getResult(i).setType(yielded.getType());
  }
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
  if (isa<MakeRangeOp, SplatOp, DescLoadOp>(op))
    return setResultLayout(op, defaultLayout(resultShape()));

  // A tensor-core result is stored from where it is: its pointers (ranges
  // and splats, usually) are rebuilt in its layout instead of moving it.
  if (auto store = dyn_cast<StoreOp>(op)) {
    auto value = dyn_cast<RankedTensorType>(store.getValue().getType());
    if (value && isMmaDerived(value.getEncoding())) {
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        convertOperand(op, i, value.getEncoding());
      return;
    }
  }
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

  // A broadcast of a tensor-core value keeps its layout (a size-1 dimension
  // is held replicated), so it meets the accumulator without moving. Others
  // take the result shape's default layout: an [N, 1] operand's own default
  // would spread the result badly.
  if (isa<BroadcastOp>(op)) {
    Attribute layout = getLayout(op->getOperand(0).getType());
    if (!isa_and_nonnull<MmaEncodingAttr>(layout)) {
      layout = defaultLayout(resultShape());
      convertOperand(op, 0, layout);
    }
    return setResultLayout(op, layout);
  }

  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto layout = getLayout(reduce.getSrc().getType());
    return setResultLayout(
        op, SliceEncodingAttr::get(&getContext(), reduce.getAxis(), layout));
  }

  if (auto dot = dyn_cast<DotOp>(op)) {
    DistributedLayoutAttr layout = dotLayout(dot);
    convertOperand(op, 2, layout);
    return setResultLayout(op, layout);
  }

  if (op->getNumResults() == 0 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return;
  Attribute chosen = chooseElementwiseLayout(op);
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    if (isa<RankedTensorType>(op->getOperand(i).getType()))
      convertOperand(op, i, chosen);
  setResultLayout(op, chosen);
}

/// Elementwise ops take the layout of the operand that is costliest to move,
/// so a loop's accumulator never leaves its registers. Ties go to tensor-core
/// layouts, then to the shape's default (coalesced) layout, then to the first
/// operand.
Attribute AssignLayoutsPass::chooseElementwiseLayout(Operation *op) {
  Attribute preferred = defaultLayout(
      cast<RankedTensorType>(op->getResult(0).getType()).getShape());
  Attribute chosen;
  std::tuple<int64_t, bool, bool> best;
  for (Value operand : op->getOperands()) {
    auto tensor = dyn_cast<RankedTensorType>(operand.getType());
    if (!tensor)
      continue;
    Attribute layout = tensor.getEncoding();
    std::tuple<int64_t, bool, bool> rank = {
        conversionCost(operand), isMmaDerived(layout), layout == preferred};
    if (!chosen || rank > best) {
      chosen = layout;
      best = rank;
    }
  }
  return chosen ? chosen : preferred;
}
} // namespace
