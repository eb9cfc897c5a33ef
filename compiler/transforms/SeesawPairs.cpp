//===- SeesawPairs.cpp - alternate trips' owned work between warpgroups ---===//
//
// With `with seesaw = True`, a loop whose trip computes values owned by
// warpgroup 0 (the scores of a narrow dot and their softmax) runs its trips
// in pairs, and the second trip's owned layouts belong to warpgroup 1: each
// warpgroup owns the scores of every other tile, so that (once each has its
// own instruction stream) one's softmax can run beside the other's dots.
// What the loop computes is unchanged; values cross between the owners
// through layout conversions, which tile-predicate-warpgroups leaves to
// everyone and whose lowering lets only the owner write.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESEESAWPAIRS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
constexpr int64_t kFirstOwner = 0, kSecondOwner = 1;

/// Whether the loop's own body (not a nested loop's) holds a dot whose
/// accumulator warpgroup 0 owns.
bool holdsOwnedDot(scf::ForOp loop) {
  for (Operation &op : *loop.getBody()) {
    bool owned = false;
    op.walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (isa<scf::ForOp>(inner))
        return WalkResult::skip();
      if (auto dot = dyn_cast<DotOp>(inner))
        owned |= getOwningWarpgroup(dot.getAcc().getType()) == kFirstOwner;
      return WalkResult::advance();
    });
    if (owned)
      return true;
  }
  return false;
}

/// Rewrites warpgroup 0's owned layouts (and slices of them, inside any
/// type) as warpgroup 1's.
AttrTypeReplacer makeOwnerReplacer() {
  AttrTypeReplacer replacer;
  replacer.addReplacement([](MmaEncodingAttr mma) -> std::optional<Attribute> {
    if (mma.getWarpgroup() != kFirstOwner)
      return std::nullopt;
    return MmaEncodingAttr::get(mma.getContext(), mma.getWarpsPerCTA(),
                                mma.getVersion(), kSecondOwner,
                                mma.getInterleave());
  });
  return replacer;
}

struct SeesawPairsPass
    : mlir::tile::impl::TileSeesawPairsBase<SeesawPairsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasSeesaw(module))
      return;
    auto warps = module->getAttrOfType<IntegerAttr>(
        TileDialect::NumWarpsAttrHelper::getNameStr());
    int64_t numWarps = warps ? warps.getInt() : 4;
    if (getNarrowDotOwner(module, numWarps) != kFirstOwner) {
      module.emitError("'seesaw' and 'score_warpgroup' exclude each other: "
                       "the seesaw gives the owned work to the kernel's own "
                       "two warpgroups");
      return signalPassFailure();
    }
    if (numWarps != 8) {
      module.emitError("'seesaw' needs two warpgroups (num_warps = 8), not ")
          << numWarps << " warps";
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) {
      if (holdsOwnedDot(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      pairTrips(loop);
  }

private:
  void pairTrips(scf::ForOp loop);
};

/// Runs `loop`'s trips two at a time in a new loop before it, which keeps
/// the odd last trip (its lower bound moves to the pairs' end). Returns the
/// pairs' loop and the second trip's top-level ops.
scf::ForOp unrollPairs(scf::ForOp loop, SmallVectorImpl<Operation *> &second) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Type type = lb.getType();
  auto constant = [&](int64_t value) -> Value {
    if (type.isIndex())
      return arith::ConstantIndexOp::create(b, loc, value);
    return arith::ConstantIntOp::create(b, loc, type, value);
  };
  // Trips: cdiv(ub - lb, step), none when ub <= lb (steps are positive).
  Value one = constant(1), zero = constant(0), two = constant(2);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value trips = arith::DivSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, span,
                            arith::SubIOp::create(b, loc, step, one)),
      step);
  trips = arith::MaxSIOp::create(b, loc, trips, zero);
  Value pairStep = arith::MulIOp::create(b, loc, step, two);
  Value pairsEnd = arith::AddIOp::create(
      b, loc, lb,
      arith::MulIOp::create(b, loc, arith::DivSIOp::create(b, loc, trips, two),
                            pairStep));

  auto pairs =
      scf::ForOp::create(b, loc, lb, pairsEnd, pairStep, loop.getInitArgs());
  for (NamedAttribute attr : loop->getDiscardableAttrs())
    pairs->setAttr(attr.getName(), attr.getValue());
  Block *body = pairs.getBody();
  OpBuilder inside = OpBuilder::atBlockBegin(body);
  auto oldYield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> carried(pairs.getRegionIterArgs());
  for (int trip = 0; trip < 2; ++trip) {
    IRMapping mapping;
    Value iv = pairs.getInductionVar();
    if (trip == 1)
      iv = arith::AddIOp::create(inside, loc, iv, step);
    mapping.map(loop.getInductionVar(), iv);
    mapping.map(loop.getRegionIterArgs(), carried);
    for (Operation &op : loop.getBody()->without_terminator()) {
      Operation *copy = inside.clone(op, mapping);
      if (trip == 1)
        second.push_back(copy);
    }
    carried.clear();
    for (Value value : oldYield.getOperands())
      carried.push_back(mapping.lookupOrDefault(value));
  }
  scf::YieldOp::create(inside, loc, carried);

  // The odd last trip, if any: the old loop from the pairs' end on.
  loop.getLowerBoundMutable().assign(pairsEnd);
  loop.getInitArgsMutable().assign(pairs.getResults());
  return pairs;
}

void SeesawPairsPass::pairTrips(scf::ForOp loop) {
  SmallVector<Operation *> second;
  scf::ForOp pairs = unrollPairs(loop, second);
  llvm::SmallPtrSet<Operation *, 32> inSecond(second.begin(), second.end());
  auto isSecondTrips = [&](Value value) {
    Operation *op = value.getDefiningOp();
    if (!op)
      op = value.getParentBlock()->getParentOp();
    for (; op && op != pairs; op = op->getParentOp())
      if (inSecond.contains(op))
        return true;
    return false;
  };

  // Owned values the second trip reads from elsewhere, in its new layouts:
  // remade (splats) or converted before the loop when defined above it,
  // converted at the second trip's top otherwise (the loop-carried ones,
  // the first trip's).
  AttrTypeReplacer replacer = makeOwnerReplacer();
  llvm::DenseMap<Value, Value> crossed;
  auto crossing = [&](Value value) -> Value {
    if (Value done = crossed.lookup(value))
      return done;
    Type type = replacer.replace(value.getType());
    Location loc = value.getLoc();
    Value made;
    if (!pairs->isAncestor(value.getParentBlock()->getParentOp())) {
      OpBuilder b(pairs);
      auto constant = value.getDefiningOp<arith::ConstantOp>();
      auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue())
                            : SplatElementsAttr();
      if (splat)
        made = arith::ConstantOp::create(
            b, loc, type,
            SplatElementsAttr::get(cast<ShapedType>(type),
                                   splat.getSplatValue<Attribute>()));
      else
        made = ConvertLayoutOp::create(b, loc, type, value);
    } else {
      OpBuilder b(second.front());
      made = ConvertLayoutOp::create(b, loc, type, value);
    }
    crossed[value] = made;
    return made;
  };
  for (Operation *top : second)
    top->walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands())
        if (getOwningWarpgroup(use.get().getType()) == kFirstOwner &&
            !isSecondTrips(use.get()))
          use.set(crossing(use.get()));
    });
  for (Operation *top : second)
    replacer.recursivelyReplaceElementsIn(top, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);

  // What the loop carries keeps its layouts: the second trip's owned
  // results go back to warpgroup 0 for the next pair's first trip.
  auto yield = cast<scf::YieldOp>(pairs.getBody()->getTerminator());
  OpBuilder b(yield);
  for (auto [operand, carried] :
       llvm::zip(yield->getOpOperands(), pairs.getRegionIterArgs()))
    if (operand.get().getType() != carried.getType())
      operand.set(ConvertLayoutOp::create(b, operand.get().getLoc(),
                                          carried.getType(), operand.get()));
}
} // namespace
