//===- AccessWidth.cpp - contiguity/alignment along the last dimension ----===//
#include "tilemla/Conversion/AccessWidth.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "tilemla/Conversion/Utility.h"
#include <numeric>

using namespace mlir;
using namespace mlir::tile;

namespace {
/// What is known of a value along its last dimension (scalars: one element).
/// contiguity: runs of this many consecutive elements increase by 1;
/// divisibility: the first element of each run is a multiple of this
/// (elements for integers, bytes for pointers); constancy: runs of this many
/// equal elements. All are powers of two.
struct AxisInfo {
  int64_t contiguity = 1, divisibility = 1, constancy = 1;
  bool operator==(const AxisInfo &o) const {
    return contiguity == o.contiguity && divisibility == o.divisibility &&
           constancy == o.constancy;
  }
};

constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t largestPowerOf2Dividing(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(kMaxDivisibility, value & -value);
}

int64_t lastDimSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() ? tensor.getShape().back() : 1;
}

/// What every element starting a run of `runLength` is divisible by: inside
/// a contiguous run that starts at a multiple of D, the elements at multiples
/// of `runLength` are multiples of gcd(D, runLength).
int64_t divisibilityAt(const AxisInfo &info, int64_t runLength) {
  if (runLength >= info.contiguity)
    return info.divisibility;
  return std::gcd(info.divisibility, runLength);
}

AxisInfo meet(const AxisInfo &a, const AxisInfo &b) {
  return {std::gcd(a.contiguity, b.contiguity),
          std::gcd(a.divisibility, b.divisibility),
          std::gcd(a.constancy, b.constancy)};
}

class AxisInfoAnalysis {
public:
  void analyzeBlock(Block &block) {
    for (Operation &op : block)
      analyzeOp(&op);
  }
  AxisInfo get(Value value) const {
    auto it = infos.find(value);
    return it == infos.end() ? AxisInfo() : it->second;
  }
  void set(Value value, AxisInfo info) { infos[value] = info; }

private:
  void analyzeOp(Operation *op);
  void analyzeFor(scf::ForOp forOp);
  llvm::DenseMap<Value, AxisInfo> infos;
};

void AxisInfoAnalysis::analyzeFor(scf::ForOp forOp) {
  // The induction variable takes lb + k * step: each is a multiple of what
  // divides both (a column block's start, `range(0, R, BLOCK)`).
  set(forOp.getInductionVar(),
      {1,
       std::gcd(divisibilityAt(get(forOp.getLowerBound()), 1),
                divisibilityAt(get(forOp.getStep()), 1)),
       1});
  SmallVector<AxisInfo> carried;
  for (Value init : forOp.getInitArgs())
    carried.push_back(get(init));
  // Iterate to a fixed point; the lattice only goes down, so this ends.
  for (int round = 0; round < 8; ++round) {
    for (auto [arg, info] : llvm::zip(forOp.getRegionIterArgs(), carried))
      set(arg, info);
    analyzeBlock(*forOp.getBody());
    Operation *yield = forOp.getBody()->getTerminator();
    bool changed = false;
    for (auto [i, info] : llvm::enumerate(carried)) {
      AxisInfo next = meet(info, get(yield->getOperand(i)));
      changed |= !(next == info);
      info = next;
    }
    if (!changed)
      break;
  }
  for (auto [result, info] : llvm::zip(forOp.getResults(), carried))
    set(result, info);
}

void AxisInfoAnalysis::analyzeOp(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return analyzeFor(forOp);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      analyzeBlock(block);
  if (op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  int64_t size = lastDimSize(result.getType());
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };

  APInt constant;
  if (matchPattern(result, m_ConstantInt(&constant))) {
    set(result, {1, largestPowerOf2Dividing(constant.getSExtValue()), size});
    return;
  }
  if (auto range = dyn_cast<MakeRangeOp>(op)) {
    set(result, {size, largestPowerOf2Dividing(range.getStart()), 1});
    return;
  }
  if (isa<SplatOp>(op)) {
    set(result, {1, operand(0).divisibility, size});
    return;
  }
  if (isa<ConvertLayoutOp>(op)) {
    set(result, operand(0));
    return;
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    AxisInfo info = operand(0);
    if (expand.getAxis() == expand.getType().getRank() - 1)
      info = {1, divisibilityAt(info, 1), 1}; // a new last dim of size 1
    set(result, info);
    return;
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    AxisInfo info = operand(0);
    if (lastDimSize(broadcast.getSrc().getType()) == 1)
      info = {1, divisibilityAt(info, 1), size};
    set(result, info);
    return;
  }
  if (isa<arith::AddIOp, AddPtrOp>(op)) {
    AxisInfo lhs = operand(0), rhs = operand(1);
    int64_t scale = 1;
    if (auto ptr =
            dyn_cast<PointerType>(getElementTypeOrSelf(result.getType())))
      scale = getSharedElementBytes(ptr.getPointeeType());
    int64_t contiguity = std::max(std::gcd(lhs.contiguity, rhs.constancy),
                                  std::gcd(rhs.contiguity, lhs.constancy));
    int64_t rhsDiv =
        std::min(kMaxDivisibility, divisibilityAt(rhs, contiguity) * scale);
    set(result, {contiguity, std::gcd(divisibilityAt(lhs, contiguity), rhsDiv),
                 std::gcd(lhs.constancy, rhs.constancy)});
    return;
  }
  if (isa<arith::MulIOp, arith::ShLIOp>(op)) {
    AxisInfo lhs = operand(0), rhs = operand(1);
    // The product is not contiguous: every element starts its own run.
    int64_t div = isa<arith::MulIOp>(op)
                      ? std::min(kMaxDivisibility, divisibilityAt(lhs, 1) *
                                                       divisibilityAt(rhs, 1))
                      : divisibilityAt(lhs, 1);
    set(result, {1, div, std::gcd(lhs.constancy, rhs.constancy)});
    return;
  }
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::ShRSIOp, arith::ShRUIOp>(op)) {
    // An exact quotient: x / 2^k of an x divisible by D >= 2^k is divisible
    // by D / 2^k (a byte offset halved into a 2-byte element index keeps its
    // alignment). Anything else may round: nothing known.
    AxisInfo lhs = operand(0);
    APInt divisor;
    if (!matchPattern(op->getOperand(1), m_ConstantInt(&divisor)) ||
        divisor.isNegative())
      return;
    bool shift = isa<arith::ShRSIOp, arith::ShRUIOp>(op);
    if ((shift && divisor.uge(31)) || (!shift && !divisor.isPowerOf2()))
      return;
    int64_t by =
        shift ? int64_t(1) << divisor.getZExtValue() : divisor.getSExtValue();
    int64_t div = divisibilityAt(lhs, 1);
    if (div % by == 0)
      set(result, {1, div / by, lhs.constancy});
    else
      set(result, {1, 1, lhs.constancy});
    return;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    // x < n over a run of contiguous x that starts at a multiple of the run
    // length flips at most at a multiple of n's divisibility.
    AxisInfo lhs = operand(0), rhs = operand(1);
    int64_t run =
        std::gcd(lhs.contiguity, std::min(lhs.divisibility, lhs.contiguity));
    int64_t constancy = std::gcd(lhs.constancy, rhs.constancy);
    auto pred = cmp.getPredicate();
    bool flipsAtN = pred == arith::CmpIPredicate::slt ||
                    pred == arith::CmpIPredicate::ult ||
                    pred == arith::CmpIPredicate::sge ||
                    pred == arith::CmpIPredicate::uge;
    if (flipsAtN)
      constancy = std::max(
          constancy, std::min(rhs.constancy, std::gcd(run, rhs.divisibility)));
    set(result, {1, 1, constancy});
    return;
  }
  if (isa<arith::AndIOp, arith::OrIOp>(op) &&
      getElementTypeOrSelf(result.getType()).isInteger(1)) {
    set(result, {1, 1, std::gcd(operand(0).constancy, operand(1).constancy)});
    return;
  }
  if (isa<arith::ExtSIOp, arith::TruncIOp>(op)) {
    set(result, operand(0));
    return;
  }
}

unsigned widthFor(Operation *op, Value ptr, Value mask,
                  const AxisInfoAnalysis &analysis) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return 1;
  auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(type.getEncoding());
  if (auto mma = dyn_cast_or_null<MmaEncodingAttr>(type.getEncoding()))
    blocked = mma.getBlockedEquivalent();
  if (!blocked)
    return 1;
  Type pointee = cast<PointerType>(type.getElementType()).getPointeeType();
  int64_t elemBytes = getSharedElementBytes(pointee);
  int64_t registersInRun = std::min<int64_t>(blocked.getSizePerThread().back(),
                                             type.getShape().back());
  AxisInfo info = analysis.get(ptr);
  int64_t width = std::min({registersInRun, info.contiguity,
                            info.divisibility / elemBytes, 16 / elemBytes});
  if (mask)
    width = std::min(width, analysis.get(mask).constancy);
  return std::max<int64_t>(1, width);
}
/// A store whose 16-bit values sit in a tensor-core accumulator layout
/// (four lanes hold an 8-column tile's row, two columns each) and whose row
/// runs of 32 columns are contiguous, 16-byte aligned and masked alike
/// every 8: the quad of lanes can transpose four tiles and store 16 bytes
/// per lane instead of 4.
bool allowsQuadStore(StoreOp store, const AxisInfoAnalysis &analysis) {
  auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
  auto mma = type ? dyn_cast_or_null<MmaEncodingAttr>(type.getEncoding())
                  : MmaEncodingAttr();
  if (!mma || mma.isInterleaved() || type.getRank() != 2 ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() != 16 ||
      (type.getDimSize(1) / mma.getWarpsPerCTA()[1]) % 32 != 0)
    return false;
  AxisInfo info = analysis.get(store.getPtr());
  if (info.contiguity < 32 || info.divisibility < 16)
    return false;
  return !store.getMask() || analysis.get(store.getMask()).constancy >= 8;
}
} // namespace

void mlir::tile::annotateAccessWidths(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    if (func.isExternal())
      return;
    AxisInfoAnalysis analysis;
    for (BlockArgument arg : func.getArguments()) {
      AxisInfo info;
      if (auto div = func.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(),
              TileDialect::DivisibilityAttrHelper::getNameStr()))
        info.divisibility = div.getInt();
      else if (isa<PointerType>(arg.getType()))
        info.divisibility = kDefaultPointerAlignment;
      analysis.set(arg, info);
    }
    analysis.analyzeBlock(func.getBody().front());
    func.walk([&](Operation *op) {
      unsigned width = 0;
      if (auto load = dyn_cast<LoadOp>(op))
        width = widthFor(op, load.getPtr(), load.getMask(), analysis);
      else if (auto store = dyn_cast<StoreOp>(op)) {
        width = widthFor(op, store.getPtr(), store.getMask(), analysis);
        if (allowsQuadStore(store, analysis))
          op->setAttr(TileDialect::QuadStoreAttrHelper::getNameStr(),
                      UnitAttr::get(op->getContext()));
      } else if (auto copy = dyn_cast<AsyncCopyOp>(op))
        width = widthFor(op, copy.getPtr(), copy.getMask(), analysis);
      if (width)
        op->setAttr(
            TileDialect::AccessWidthAttrHelper::getNameStr(),
            IntegerAttr::get(IntegerType::get(op->getContext(), 32), width));
    });
  });
}

unsigned mlir::tile::getAccessWidth(Operation *op) {
  if (auto width = op->getAttrOfType<IntegerAttr>(
          TileDialect::AccessWidthAttrHelper::getNameStr()))
    return width.getInt();
  return 1;
}
