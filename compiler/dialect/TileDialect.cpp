//===- TileDialect.cpp - dialect, types and layout attributes -------------===//
#include "tilemla/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tilemla/Dialect/TileDialect.cpp.inc"
#include "tilemla/Dialect/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilemla/Dialect/TileTypes.cpp.inc"

/// `, version = V`, `, warpgroup = G`, `, interleave = I` after an mma
/// layout's warps, each optional, in any order; absent ones keep their
/// defaults (2, -1, 1).
static ParseResult parseMmaOptions(AsmParser &parser, unsigned &version,
                                   int64_t &warpgroup, unsigned &interleave) {
  version = 2;
  warpgroup = -1;
  interleave = 1;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    unsigned value = 0;
    int64_t signedValue = 0;
    if (key == "warpgroup") {
      if (parser.parseInteger(signedValue))
        return failure();
      warpgroup = signedValue;
    } else if (key == "version" || key == "interleave") {
      if (parser.parseInteger(value))
        return failure();
      (key == "version" ? version : interleave) = value;
    } else {
      return parser.emitError(at) << "unknown mma layout parameter '" << key
                                  << "' (version, warpgroup, interleave)";
    }
  }
  return success();
}

static void printMmaOptions(AsmPrinter &printer, unsigned version,
                            int64_t warpgroup, unsigned interleave) {
  if (version != 2)
    printer << ", version = " << version;
  if (warpgroup != -1)
    printer << ", warpgroup = " << warpgroup;
  if (interleave != 1)
    printer << ", interleave = " << interleave;
}

#include "tilemla/Dialect/TileAttrInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tilemla/Dialect/TileAttrs.cpp.inc"

namespace {
/// Tile ops carry no state that prevents inlining helper functions.
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilemla/Dialect/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilemla/Dialect/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tilemla/Dialect/TileOps.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface>();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Discardable attributes (declared in TileDialect.td)
//===----------------------------------------------------------------------===//

namespace {
/// Where a discardable attribute may sit and what it holds, in words for the
/// diagnostics.
struct AttrRule {
  llvm::StringLiteral name;
  const char *holder;
  bool (*holderMatches)(Operation *);
  const char *value;
  bool (*valueMatches)(Attribute);
};

bool isUnit(Attribute a) { return isa<UnitAttr>(a); }
bool isBool(Attribute a) { return isa<BoolAttr>(a); }
bool isPositiveInt(Attribute a) {
  auto i = dyn_cast<IntegerAttr>(a);
  return i && i.getType().isSignlessInteger() && i.getInt() > 0;
}
bool isNonNegativeInt(Attribute a) {
  auto i = dyn_cast<IntegerAttr>(a);
  return i && i.getType().isSignlessInteger() && i.getInt() >= 0;
}
bool isStageCount(Attribute a) {
  auto i = dyn_cast<IntegerAttr>(a);
  return i && i.getType().isSignlessInteger() && i.getInt() >= 1 &&
         i.getInt() <= kMaxPipelineStages;
}
bool isFunction(Operation *op) { return isa<FunctionOpInterface>(op); }
bool isModule(Operation *op) { return isa<ModuleOp>(op); }
bool isLoop(Operation *op) { return isa<scf::ForOp>(op); }
bool isDot(Operation *op) { return isa<DotOp>(op); }
bool isIf(Operation *op) { return isa<scf::IfOp>(op); }
bool isScratchUser(Operation *op) {
  return isa<ReduceOp, ScanOp, ConvertLayoutOp, DotOp>(op);
}
bool isGlobalAccess(Operation *op) {
  return isa<LoadOp, StoreOp, AsyncCopyOp>(op);
}

const AttrRule kOperationAttrRules[] = {
    {TileDialect::KernelAttrHelper::getNameStr(), "a function", isFunction,
     "a unit attribute", isUnit},
    {TileDialect::NumStagesAttrHelper::getNameStr(), "an scf.for loop", isLoop,
     "an integer in 1..8 (kMaxPipelineStages)", isStageCount},
    {TileDialect::NumWarpsAttrHelper::getNameStr(), "the module", isModule,
     "a positive integer", isPositiveInt},
    {TileDialect::WarpSpecializeAttrHelper::getNameStr(), "the module",
     isModule, "a unit attribute", isUnit},
    {TileDialect::OwnNarrowDotsAttrHelper::getNameStr(), "the module", isModule,
     "a boolean", isBool},
    {TileDialect::ScoreWarpgroupAttrHelper::getNameStr(), "the module",
     isModule, "a boolean", isBool},
    {TileDialect::SeesawAttrHelper::getNameStr(), "the module", isModule,
     "a boolean", isBool},
    {TileDialect::ProducerWarpsAttrHelper::getNameStr(), "the module", isModule,
     "a positive integer", isPositiveInt},
    {TileDialect::SharedAttrHelper::getNameStr(), "the module", isModule,
     "a non-negative integer", isNonNegativeInt},
    {TileDialect::DotBOffsetAttrHelper::getNameStr(), "the module", isModule,
     "a non-negative integer", isNonNegativeInt},
    {TileDialect::ReduceOffsetAttrHelper::getNameStr(), "the module", isModule,
     "a non-negative integer", isNonNegativeInt},
    {TileDialect::ScratchOrderedAttrHelper::getNameStr(),
     "tile.reduce, tile.convert_layout or tile.dot", isScratchUser,
     "a unit attribute", isUnit},
    {TileDialect::AccessWidthAttrHelper::getNameStr(),
     "tile.load, tile.store or tile.async_copy", isGlobalAccess,
     "a positive integer", isPositiveInt},
    {TileDialect::ReuseStagedBAttrHelper::getNameStr(), "tile.dot", isDot,
     "a unit attribute", isUnit},
    {TileDialect::OwnerWarpgroupAttrHelper::getNameStr(), "an scf.if", isIf,
     "a non-negative integer", isNonNegativeInt},
};
} // namespace

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  for (const AttrRule &rule : kOperationAttrRules) {
    if (name != rule.name)
      continue;
    if (!rule.holderMatches(op))
      return op->emitError() << "'" << name << "' belongs on " << rule.holder;
    if (!rule.valueMatches(attribute.getValue()))
      return op->emitError() << "'" << name << "' must be " << rule.value
                             << ", got " << attribute.getValue();
    return success();
  }
  if (name == ConstexprAttrHelper::getNameStr() ||
      name == DivisibilityAttrHelper::getNameStr())
    return op->emitError() << "'" << name << "' belongs on a function argument";
  return op->emitError() << "unknown tile dialect attribute '" << name << "'";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  Attribute value = attribute.getValue();
  if (!isFunction(op))
    return op->emitError() << "'" << name << "' belongs on a function argument";
  if (name == ConstexprAttrHelper::getNameStr()) {
    if (!isa<TypedAttr>(value))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a typed constant, got " << value;
    return success();
  }
  if (name == DivisibilityAttrHelper::getNameStr()) {
    if (!isPositiveInt(value))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a positive integer, got " << value;
    return success();
  }
  return op->emitError() << "'" << name
                         << "' is not a tile dialect argument attribute";
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

DistributedLayoutAttr mlir::tile::getLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  return dyn_cast_or_null<DistributedLayoutAttr>(tensor.getEncoding());
}

int64_t mlir::tile::getOwningWarpgroup(Type type) {
  if (auto pending = dyn_cast<PendingType>(type))
    type = pending.getValueType();
  Attribute layout = getLayout(type);
  while (auto slice = dyn_cast_or_null<SliceEncodingAttr>(layout))
    layout = slice.getParent();
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(layout);
  return mma ? mma.getWarpgroup() : -1;
}

unsigned mlir::tile::getTotalElemsPerThread(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return getLayout(type).getTotalElemsPerThread(tensor.getShape());
}

static bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

//===----------------------------------------------------------------------===//
// BlockedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> sizePerThread,
                            ArrayRef<unsigned> threadsPerWarp,
                            ArrayRef<unsigned> warpsPerCTA) {
  if (sizePerThread.size() != threadsPerWarp.size() ||
      sizePerThread.size() != warpsPerCTA.size() || sizePerThread.empty())
    return emitError() << "blocked layout needs sizePerThread, threadsPerWarp "
                          "and warpsPerCTA of one non-zero rank";
  unsigned lanes = 1;
  for (auto list : {sizePerThread, threadsPerWarp, warpsPerCTA})
    for (unsigned v : list)
      if (!isPowerOf2(v))
        return emitError() << "blocked layout extents must be powers of two";
  for (unsigned v : threadsPerWarp)
    lanes *= v;
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32, got " << lanes;
  return success();
}

SmallVector<unsigned>
BlockedEncodingAttr::getElemsPerThreadPerDim(ArrayRef<int64_t> shape) const {
  SmallVector<unsigned> elems;
  for (auto [d, size] : llvm::enumerate(shape)) {
    int64_t spread = int64_t(getThreadsPerWarp()[d]) * getWarpsPerCTA()[d];
    int64_t perThread = std::max<int64_t>(getSizePerThread()[d], size / spread);
    elems.push_back(std::min<int64_t>(size, perThread));
  }
  return elems;
}

unsigned BlockedEncodingAttr::getRank() const {
  return getSizePerThread().size();
}

unsigned BlockedEncodingAttr::getNumWarps() const {
  unsigned warps = 1;
  for (unsigned w : getWarpsPerCTA())
    warps *= w;
  return warps;
}

BlockedEncodingAttr BlockedEncodingAttr::getDefault(MLIRContext *ctx,
                                                    ArrayRef<int64_t> shape,
                                                    unsigned numWarps,
                                                    unsigned vectorWidth) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  spt[rank - 1] = std::min<int64_t>(vectorWidth, shape[rank - 1]);
  unsigned lanes = 32;
  for (int d = rank - 1; d >= 0 && lanes > 1; --d) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    tpw[d] = std::min<int64_t>(lanes, room);
    lanes /= tpw[d];
  }
  tpw[rank - 1] *= lanes; // Left-over lanes replicate the last dimension.
  unsigned warps = numWarps;
  for (unsigned d = 0; d < rank && warps > 1; ++d) {
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    wpc[d] = std::min<int64_t>(warps, room);
    warps /= wpc[d];
  }
  wpc[0] *= warps; // Left-over warps replicate the first dimension.
  return BlockedEncodingAttr::get(ctx, spt, tpw, wpc);
}

//===----------------------------------------------------------------------===//
// SliceEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, DistributedLayoutAttr parent) {
  if (!parent)
    return emitError() << "slice layout needs a distributed parent layout";
  if (dim >= parent.getRank())
    return emitError() << "slice dim " << dim << " out of range for a parent "
                       << "of rank " << parent.getRank();
  return success();
}

SmallVector<unsigned>
SliceEncodingAttr::getElemsPerThreadPerDim(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  SmallVector<unsigned> elems =
      getParent().getElemsPerThreadPerDim(parentShape);
  elems.erase(elems.begin() + getDim());
  return elems;
}

unsigned SliceEncodingAttr::getRank() const {
  return getParent().getRank() - 1;
}

unsigned SliceEncodingAttr::getNumWarps() const {
  return getParent().getNumWarps();
}

//===----------------------------------------------------------------------===//
// MmaEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<unsigned> warpsPerCTA, unsigned version,
                        int64_t warpgroup, unsigned interleave) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma layout is 2-D: warpsPerCTA needs 2 entries";
  for (unsigned v : warpsPerCTA)
    if (!isPowerOf2(v))
      return emitError() << "mma layout extents must be powers of two";
  if (version != 2 && version != 3)
    return emitError() << "mma layout version must be 2 (mma.sync) or 3 "
                       << "(wgmma)";
  if (version == 3 && warpsPerCTA[0] % 4 != 0)
    return emitError() << "a version 3 mma layout has whole warpgroups "
                       << "(a multiple of 4 warps) along M";
  if (warpgroup < -1)
    return emitError() << "mma layout warpgroup must be >= 0 (or absent)";
  if (warpgroup >= 0 &&
      (version != 3 || warpsPerCTA[0] != 4 || warpsPerCTA[1] != 1))
    return emitError() << "an owned mma layout (warpgroup = " << warpgroup
                       << ") is a version 3 layout of one warpgroup, [4, 1]";
  if (interleave != 1 && (interleave != 2 || version != 2))
    return emitError() << "mma layout interleave must be 1, or 2 on version 2";
  return success();
}

BlockedEncodingAttr MmaEncodingAttr::getBlockedEquivalent() const {
  unsigned sizePerThread[] = {1, 2 * getInterleave()},
           threadsPerWarp[] = {8, 4};
  return BlockedEncodingAttr::get(getContext(), sizePerThread, threadsPerWarp,
                                  getWarpsPerCTA());
}

SmallVector<unsigned>
MmaEncodingAttr::getElemsPerThreadPerDim(ArrayRef<int64_t> shape) const {
  return getBlockedEquivalent().getElemsPerThreadPerDim(shape);
}

unsigned MmaEncodingAttr::getRank() const { return 2; }

unsigned MmaEncodingAttr::getNumWarps() const {
  return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
}

int64_t mlir::tile::getSwizzleFor(int64_t cols, unsigned bits) {
  for (int64_t swizzle : {128, 64, 32})
    if ((cols * bits / 8) % swizzle == 0)
      return swizzle;
  return 0;
}

bool mlir::tile::isMmaCompatibleDot(DotOp op, MmaEncodingAttr mma) {
  RankedTensorType aType = op.getA().getType(), accType = op.getAccType();
  Type element = aType.getElementType();
  // fp8 a and b (one format, sm_89+): mma.sync.m16n8k32, against an [N, K]
  // b (whose rows are the instruction's "col" layout) or into the
  // interleaved accumulator from a [K, N] one (byte permutes of transposed
  // reads); wgmma's k32 form (sm_90a) reads both operands K-major, so only
  // an [N, K] b.
  bool fp8 = isFp8Dot(op);
  if (!element.isBF16() && !element.isF16() && !fp8)
    return false;
  if (fp8 && (mma.isWarpgroup() ? !op.getTransB()
                                : mma.isInterleaved() == op.getTransB()))
    return false;
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1),
          k = aType.getDimSize(1);
  int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  if (k % (fp8 ? 32 : 16) != 0)
    return false;
  if (mma.isWarpgroup()) {
    // One m64nNk16 per warpgroup: 16 rows per warp along M, a column block
    // of at most 256 per warp along N. A [K, N] b is read N-major, so each
    // warpgroup's block must start on a panel of its swizzled layout.
    int64_t block = n / wn;
    if (m != 16 * wm || n % (8 * wn) != 0 || block > 256)
      return false;
    int64_t panel = getWgmmaSwizzle(n) / 2;
    return op.getTransB() || (panel && block % panel == 0);
  }
  // Whole instruction tiles per warp along M; along N either whole tiles or
  // one tile replicated by surplus warps (whole tile pairs when interleaved).
  if (mma.isInterleaved())
    return m % (16 * wm) == 0 && n % (16 * wn) == 0 && !op.getTransB();
  return m % (16 * wm) == 0 && n % 8 == 0 &&
         (n % (8 * wn) == 0 || (8 * wn) % n == 0);
}

static MmaEncodingAttr getTensorCoreLayout(Operation *op) {
  auto dot = dyn_cast_or_null<DotOp>(op);
  if (!dot)
    return {};
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(dot.getAccType().getEncoding());
  return mma && isMmaCompatibleDot(dot, mma) ? mma : MmaEncodingAttr();
}

bool mlir::tile::isTensorCoreDot(Operation *op) {
  return bool(getTensorCoreLayout(op));
}

bool mlir::tile::isWarpgroupDot(Operation *op) {
  MmaEncodingAttr mma = getTensorCoreLayout(op);
  return mma && mma.isWarpgroup();
}

bool mlir::tile::isFp8Type(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
}

bool mlir::tile::isFp8Dot(DotOp op) { return isFp8Type(op.getA().getType()); }

bool mlir::tile::takesCodeOrderedA(DotOp op) {
  return isTensorCoreDot(op) && !isWarpgroupDot(op) && hasCodesB(op) &&
         op.getTransB();
}

SmallVector<std::pair<DotOp, unsigned>>
mlir::tile::getLoopCarriedDots(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto isSyncWgmma = [](Operation *op) {
    auto dot = dyn_cast_or_null<DotOp>(op);
    return dot && isWarpgroupDot(dot) && !dot.isAsync();
  };
  // Dots nested in the body (a warpgroup's branch) count too.
  bool onlyChains = true;
  body->walk([&](DotOp dot) {
    if (!isWarpgroupDot(dot))
      return;
    auto arg = dyn_cast<BlockArgument>(dot.getAcc());
    onlyChains &= (arg && arg.getOwner() == body) ||
                  bool(dot.getAcc().getDefiningOp<DotOp>());
  });
  SmallVector<std::pair<DotOp, unsigned>> carried;
  if (!onlyChains)
    return carried;
  for (OpOperand &operand : body->getTerminator()->getOpOperands()) {
    Operation *def = operand.get().getDefiningOp();
    Value arg = loop.getRegionIterArgs()[operand.getOperandNumber()];
    Operation *user = arg.hasOneUse() ? *arg.getUsers().begin() : nullptr;
    if (def && def->getBlock() == body && isSyncWgmma(def) &&
        operand.get().hasOneUse() && isSyncWgmma(user) &&
        cast<DotOp>(user).getAcc() == arg)
      carried.push_back({cast<DotOp>(def), operand.getOperandNumber()});
  }
  return carried;
}

bool mlir::tile::ownsNarrowDots(ModuleOp module, bool byDefault) {
  auto chosen = module->getAttrOfType<BoolAttr>(
      TileDialect::OwnNarrowDotsAttrHelper::getNameStr());
  return byDefault && (!chosen || chosen.getValue());
}

int64_t mlir::tile::getNarrowDotOwner(ModuleOp module, unsigned numWarps) {
  auto chosen = module->getAttrOfType<BoolAttr>(
      TileDialect::ScoreWarpgroupAttrHelper::getNameStr());
  return chosen && chosen.getValue() ? numWarps / 4 : 0;
}

bool mlir::tile::hasSeesaw(ModuleOp module) {
  auto seesaw = module->getAttrOfType<BoolAttr>(
      TileDialect::SeesawAttrHelper::getNameStr());
  return seesaw && seesaw.getValue();
}

int64_t mlir::tile::getRunOwner(Operation *op) {
  auto owner = op->getAttrOfType<IntegerAttr>(
      TileDialect::OwnerWarpgroupAttrHelper::getNameStr());
  return owner && isa<scf::IfOp>(op) ? owner.getInt() : -1;
}

DotLayoutPlan::DotLayoutPlan(Operation *root, unsigned numWarps,
                             bool warpgroups, bool ownNarrowDots,
                             int64_t narrowDotOwner)
    : numWarps(numWarps), warpgroups(warpgroups), ownNarrowDots(ownNarrowDots),
      narrowDotOwner(narrowDotOwner) {
  llvm::DenseMap<int64_t, DotOp> widest;
  root->walk([&](DotOp dot) {
    DotOp &best = widest[dot.getAccType().getDimSize(0)];
    if (!best ||
        dot.getAccType().getDimSize(1) > best.getAccType().getDimSize(1))
      best = dot;
  });
  for (auto [m, dot] : widest)
    if (MmaEncodingAttr mma = getMmaLayoutForDot(dot, numWarps, warpgroups))
      rowLayouts[m] = mma;
}

MmaEncodingAttr DotLayoutPlan::layoutFor(DotOp dot) const {
  auto shared = rowLayouts.find(dot.getAccType().getDimSize(0));
  // An interleaved accumulator is an fp8 [K, N] dot's alone.
  bool interleaved = isFp8Dot(dot) && !dot.getTransB();
  if (shared != rowLayouts.end() &&
      shared->second.isInterleaved() == interleaved &&
      isMmaCompatibleDot(dot, shared->second))
    return ownedIfNarrow(dot, shared->second);
  return ownedIfNarrow(dot, getMmaLayoutForDot(dot, numWarps, warpgroups));
}

MmaEncodingAttr DotLayoutPlan::ownedIfNarrow(DotOp dot,
                                             MmaEncodingAttr mma) const {
  // Only a 64-row dot has its columns split over the warpgroups.
  int64_t m = dot.getAccType().getDimSize(0),
          n = dot.getAccType().getDimSize(1);
  int64_t warpgroupsAlongN = numWarps / 4;
  if (!ownNarrowDots || !warpgroups || m != 64 || warpgroupsAlongN < 2 ||
      n / warpgroupsAlongN >= kMinWgmmaBlockN)
    return mma;
  unsigned warps[] = {4, 1};
  auto owned =
      MmaEncodingAttr::get(dot.getContext(), warps, 3, narrowDotOwner, 1);
  return isMmaCompatibleDot(dot, owned) ? owned : mma;
}

MmaEncodingAttr mlir::tile::getMmaLayoutForDot(DotOp op, unsigned numWarps,
                                               bool warpgroups) {
  RankedTensorType accType = op.getAccType();
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1);
  if (m % 16 != 0 || n % 8 != 0)
    return {};
  if (warpgroups && m % 64 == 0 && numWarps % (m / 16) == 0) {
    unsigned warps[] = {unsigned(m / 16), unsigned(numWarps / (m / 16))};
    auto mma = MmaEncodingAttr::get(op.getContext(), warps, 3, -1, 1);
    if (isMmaCompatibleDot(op, mma))
      return mma;
  }
  // Give each new warp to the dimension with more instruction tiles left per
  // warp; once both are down to one tile, surplus warps replicate along N.
  unsigned wm = 1, wn = 1;
  while (wm * wn < numWarps) {
    int64_t tilesM = m / (16 * wm), tilesN = n / (8 * wn);
    if (tilesM >= 2 && tilesM >= tilesN)
      wm *= 2;
    else
      wn *= 2;
  }
  unsigned warps[] = {wm, wn};
  // An fp8 dot's [K, N] b fills the interleaved accumulator.
  int64_t interleave = isFp8Dot(op) && !op.getTransB() ? 2 : 1;
  auto mma = MmaEncodingAttr::get(op.getContext(), warps, 2, -1, interleave);
  return isMmaCompatibleDot(op, mma) ? mma : MmaEncodingAttr();
}

std::pair<WarpSpecializeOp, bool> mlir::tile::getWarpPartition(Block *block) {
  for (Region *region = block ? block->getParent() : nullptr; region;
       region = region->getParentRegion()) {
    if (auto split = dyn_cast<WarpSpecializeOp>(region->getParentOp()))
      return {split, region == &split.getProducer()};
  }
  return {WarpSpecializeOp(), false};
}
