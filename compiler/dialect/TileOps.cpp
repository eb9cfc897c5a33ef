//===- TileOps.cpp - verifiers, folders, canonicalizers -------------------===//
#include "tilemla/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

/// `-> R` when the accumulator has the result's type, else `+ ACC -> R`.
static ParseResult parseAccumulatorType(OpAsmParser &parser, Type &acc,
                                        Type &result) {
  bool distinct = succeeded(parser.parseOptionalPlus());
  if (distinct && parser.parseType(acc))
    return failure();
  if (parser.parseArrow() || parser.parseType(result))
    return failure();
  if (!distinct)
    acc = result;
  return success();
}

static void printAccumulatorType(OpAsmPrinter &printer, Operation *, Type acc,
                                 Type result) {
  if (acc != result)
    printer << "+ " << acc << " ";
  printer << "-> " << result;
}

#define GET_OP_CLASSES
#include "tilemla/Dialect/TileOps.cpp.inc"

static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

LogicalResult MakeRangeOp::verify() {
  int64_t start = int32_t(getStart()), end = int32_t(getEnd());
  int64_t length = end - start;
  if (length <= 0 || (length & (length - 1)))
    return emitOpError() << "range [" << start << ", " << end
                         << ") must have a positive power-of-two length";
  auto type = getResult().getType();
  if (type.getRank() != 1 || type.getDimSize(0) != length)
    return emitOpError() << "result must be a 1-D tensor of " << length
                         << " elements";
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto value = adaptor.getSrc();
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getResult().getType(), value);
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), result = getResult().getType();
  if (src.getRank() != result.getRank())
    return emitOpError() << "cannot broadcast rank " << src.getRank()
                         << " to rank " << result.getRank();
  for (auto [from, to] : llvm::zip(src.getShape(), result.getShape()))
    if (from != to && from != 1)
      return emitOpError() << "cannot broadcast " << shapeString(src.getShape())
                           << " to " << shapeString(result.getShape());
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getResult().getType());
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), result = getResult().getType();
  int64_t axis = int32_t(getAxis());
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected result shape " << shapeString(expected);
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getResult().getType());
  return {};
}

namespace {
/// True when `value` is computed from splats, ranges and constants alone, so
/// building it again in another layout is cheaper than moving it.
bool isRematerializable(Value value, int depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 16)
    return false;
  if (isa<SplatOp, MakeRangeOp, arith::ConstantOp>(def))
    return true;
  if (isa<ExpandDimsOp, BroadcastOp, ConvertLayoutOp>(def))
    return isRematerializable(def->getOperand(0), depth + 1);
  // Elementwise arithmetic, and pointer arithmetic (elementwise too).
  bool elementwise =
      OpTrait::hasElementwiseMappableTraits(def) || isa<AddPtrOp>(def);
  if (!elementwise || !isPure(def) || def->getNumResults() != 1 ||
      def->getNumRegions() != 0)
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return !isa<RankedTensorType>(operand.getType()) ||
           isRematerializable(operand, depth + 1);
  });
}

RankedTensorType withEncoding(Type type, Attribute encoding) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               encoding);
}

/// convert_layout(op(x, ...)) -> op(convert_layout(x), ...) when op's whole
/// operand tree is rematerializable; ends at splats, ranges and constants,
/// which are rebuilt in the new layout directly. A broadcast or expand_dims
/// always passes the conversion to its source: fewer elements move.
struct RematerializeConvertedSource : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc();
    Operation *def = src.getDefiningOp();
    RankedTensorType type = op.getResult().getType();
    // A chain of conversions needs only its last layout.
    if (auto inner = dyn_cast_or_null<ConvertLayoutOp>(def)) {
      if (inner.getSrc().getType() == type)
        rewriter.replaceOp(op, inner.getSrc());
      else
        rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, type, inner.getSrc());
      return success();
    }
    // A broadcast (and the expand_dims under it) moves only its source.
    if (!def ||
        !(isa<BroadcastOp, ExpandDimsOp>(def) || isRematerializable(src)))
      return failure();
    Attribute layout = type.getEncoding();
    Location loc = op.getLoc();
    auto convert = [&](Value value, Attribute encoding) -> Value {
      if (cast<RankedTensorType>(value.getType()).getEncoding() == encoding)
        return value;
      return ConvertLayoutOp::create(
          rewriter, loc, withEncoding(value.getType(), encoding), value);
    };
    Value rebuilt;
    if (auto inner = dyn_cast<ConvertLayoutOp>(def)) {
      rebuilt = convert(inner.getSrc(), layout);
    } else if (auto splat = dyn_cast<SplatOp>(def)) {
      rebuilt = SplatOp::create(rewriter, loc, type, splat.getSrc());
    } else if (auto range = dyn_cast<MakeRangeOp>(def)) {
      rebuilt = MakeRangeOp::create(rewriter, loc, type, range.getStart(),
                                    range.getEnd());
    } else if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      auto dense = dyn_cast<SplatElementsAttr>(constant.getValue());
      if (!dense)
        return failure();
      rebuilt = arith::ConstantOp::create(rewriter, loc, type,
                                          dense.resizeSplat(type));
    } else if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
      auto parent = dyn_cast<DistributedLayoutAttr>(layout);
      if (!parent)
        return failure();
      Value inner = convert(
          expand.getSrc(),
          SliceEncodingAttr::get(getContext(), expand.getAxis(), parent));
      rebuilt =
          ExpandDimsOp::create(rewriter, loc, type, inner, expand.getAxis());
    } else if (auto broadcast = dyn_cast<BroadcastOp>(def)) {
      rebuilt = BroadcastOp::create(rewriter, loc, type,
                                    convert(broadcast.getSrc(), layout));
    } else {
      IRMapping mapping;
      for (Value operand : def->getOperands())
        if (isa<RankedTensorType>(operand.getType()))
          mapping.map(operand, convert(operand, layout));
      Operation *clone = rewriter.clone(*def, mapping);
      clone->getResult(0).setType(
          withEncoding(clone->getResult(0).getType(), layout));
      rebuilt = clone->getResult(0);
    }
    rewriter.replaceOp(op, rebuilt);
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<RematerializeConvertedSource>(context);
}

LogicalResult AddPtrOp::verify() {
  if (shapeOf(getPtr().getType()) != shapeOf(getOffset().getType()) ||
      isa<RankedTensorType>(getPtr().getType()) !=
          isa<RankedTensorType>(getOffset().getType()))
    return emitOpError() << "pointer and offset must have the same shape";
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(adaptor.getOffset(), m_Zero()))
    return getPtr();
  return {};
}

/// Checks shared by loads and stores: mask shape, element type vs pointee.
static LogicalResult verifyAccess(Operation *op, Type ptrType, Type valueType,
                                  Value mask) {
  Type pointee =
      cast<PointerType>(getElementTypeOrSelf(ptrType)).getPointeeType();
  if (getElementTypeOrSelf(valueType) != pointee)
    return op->emitOpError()
           << "value element type " << getElementTypeOrSelf(valueType)
           << " does not match the pointee type " << pointee;
  if (shapeOf(valueType) != shapeOf(ptrType))
    return op->emitOpError()
           << "value shape " << shapeString(shapeOf(valueType))
           << " does not match pointer shape " << shapeString(shapeOf(ptrType));
  if (mask && shapeOf(mask.getType()) != shapeOf(ptrType))
    return op->emitOpError() << "mask shape must match the pointer shape";
  return success();
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "'other' needs a mask";
  if (getOther() && getOther().getType() != getResult().getType())
    return emitOpError() << "'other' must have the result type";
  return verifyAccess(*this, getPtr().getType(), getResult().getType(),
                      getMask());
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getPtr().getType(), getValue().getType(),
                      getMask());
}

LogicalResult AtomicAddOp::verify() {
  Type pointee = getPtr().getType().getPointeeType();
  if (!pointee.isInteger(32))
    return emitOpError("adds to an i32, not to ") << pointee;
  return success();
}

LogicalResult WaitFlagOp::verify() {
  Type pointee = getPtr().getType().getPointeeType();
  if (!pointee.isInteger(32))
    return emitOpError("waits for an i32, not for ") << pointee;
  return success();
}

/// The tensor a value of accumulator type (a tensor or a pending one) holds.
static RankedTensorType accumulatorTensor(Type type) {
  if (auto pending = dyn_cast<PendingType>(type))
    return pending.getValueType();
  return cast<RankedTensorType>(type);
}

void DotOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isAsync())
    return;
  effects.emplace_back(MemoryEffects::Write::get(), WgmmaGroupResource::get());
  // The group reads its operands in shared memory until it is waited for.
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
}

Speculation::Speculatability DotOp::getSpeculatability() {
  return isAsync() ? Speculation::NotSpeculatable : Speculation::Speculatable;
}

RankedTensorType DotOp::getAccType() {
  return accumulatorTensor(getResult().getType());
}

bool mlir::tile::hasCodesB(DotOp op) {
  RankedTensorType a = op.getA().getType(), b = op.getB().getType();
  return isFp8Type(b) &&
         (a.getElementType().isF16() || a.getElementType().isBF16()) &&
         isa_and_nonnull<SharedEncodingAttr>(b.getEncoding());
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType();
  RankedTensorType acc = accumulatorTensor(getAcc().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "operands must be 2-D";
  if (a.getElementType() != b.getElementType() && !hasCodesB(*this))
    return emitOpError() << "a and b must have one element type (or b fp8 "
                            "codes in shared memory beside a 16-bit a)";
  int64_t bK = b.getDimSize(getTransB() ? 1 : 0),
          bN = b.getDimSize(getTransB() ? 0 : 1);
  if (a.getDimSize(1) != bK)
    return emitOpError() << "inner dimensions differ: "
                         << shapeString(a.getShape()) << " x "
                         << shapeString(b.getShape())
                         << (getTransB() ? " (b transposed)" : "");
  if (acc.getDimSize(0) != a.getDimSize(0) || acc.getDimSize(1) != bN)
    return emitOpError() << "accumulator shape " << shapeString(acc.getShape())
                         << " does not match the product";
  if (getAccType() != acc)
    return emitOpError() << "result type must be the accumulator type";
  if (isa<PendingType>(getAcc().getType()) && !isAsync())
    return emitOpError() << "a pending accumulator needs a pending result "
                            "(only an asynchronous dot may take it)";
  if (isAsync()) {
    auto mma = dyn_cast_or_null<MmaEncodingAttr>(acc.getEncoding());
    if (!mma || !mma.isWarpgroup())
      return emitOpError() << "only a wgmma dot (version 3 #tile.mma result) "
                              "can be asynchronous";
  }
  return success();
}

LogicalResult DotWaitOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location>,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  for (Value input : operands)
    results.push_back(cast<PendingType>(input.getType()).getValueType());
  return success();
}

/// Reductions and scans name one axis of their source.
static LogicalResult verifyAxis(Operation *op, int64_t axis,
                                RankedTensorType src) {
  if (axis < 0 || axis >= src.getRank())
    return op->emitOpError()
           << "axis " << axis << " out of range for rank " << src.getRank();
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = int32_t(getAxis());
  if (failed(verifyAxis(*this, axis, src)))
    return failure();
  Type result = getResult().getType();
  if (getElementTypeOrSelf(result) != src.getElementType())
    return emitOpError() << "result element type must be "
                         << src.getElementType();
  SmallVector<int64_t> expected(src.getShape());
  expected.erase(expected.begin() + axis);
  if (expected.empty() ? isa<RankedTensorType>(result)
                       : shapeOf(result) != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected result shape " << shapeString(expected);
  return success();
}

LogicalResult ScanOp::verify() {
  auto src = getSrc().getType();
  if (failed(verifyAxis(*this, int32_t(getAxis()), src)))
    return failure();
  if (isa<PointerType>(src.getElementType()))
    return emitOpError() << "needs numbers, got " << src.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

/// setmaxnreg takes a multiple of 8 in [24, 256].
static bool isRegisterCount(int32_t count) {
  return count >= 24 && count <= 256 && count % 8 == 0;
}

int32_t WarpSpecializeOp::consumerRegisterBudget(int64_t consumerWarps,
                                                 int64_t producerWarps,
                                                 int32_t producerRegisters) {
  constexpr int64_t kRegisterFile = 65536;
  int64_t spare = kRegisterFile - producerWarps * 32 * producerRegisters;
  int64_t perThread = spare / (consumerWarps * 32) / 8 * 8;
  return int32_t(std::min<int64_t>(perThread, 240));
}

LogicalResult SetMaxRegistersOp::verify() {
  if (!isRegisterCount(getCount()))
    return emitOpError("register count must be a multiple of 8 in [24, 256], "
                       "got ")
           << getCount();
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  // setmaxnreg is collective over a warpgroup: producers are whole ones.
  if (getProducerWarps() % 4 != 0)
    return emitOpError("producer warps must be whole warpgroups (a multiple "
                       "of 4), got ")
           << getProducerWarps();
  if (getScoreWarps() != 0 && getScoreWarps() != 4)
    return emitOpError("score warps are one warpgroup (4) or none, got ")
           << getScoreWarps();
  if (!isRegisterCount(getProducerRegisters()) ||
      !isRegisterCount(getConsumerRegisters()))
    return emitOpError("register counts must be multiples of 8 in [24, 256], "
                       "got ")
           << getProducerRegisters() << " and " << getConsumerRegisters();
  if (!isa_and_nonnull<func::FuncOp>((*this)->getParentOp()))
    return emitOpError("must be directly in a kernel function");
  Operation *next = (*this)->getNextNode();
  if (!next || !next->hasTrait<OpTrait::IsTerminator>())
    return emitOpError("must be the last operation before the kernel returns "
                       "(the consumer region runs to the end)");
  bool nested = false;
  for (Region *region : getRegions())
    region->walk([&](WarpSpecializeOp) { nested = true; });
  if (nested)
    return emitOpError("does not nest");
  WalkResult walk = getProducer().walk([&](Operation *op) {
    auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
    if (llvm::any_of(op->getOperandTypes(), isTensor) ||
        llvm::any_of(op->getResultTypes(), isTensor) ||
        isa<BarrierOp, ZeroRowsOp, LocalAllocOp, MBarrierAllocOp, DotWaitOp,
            AsyncCopyOp, AsyncWaitOp, StoreOp>(op)) {
      op->emitOpError("cannot run in a producer partition: producers run "
                      "scalar code, TMA copies and mbarrier operations only");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
