//===- Utility.cpp - helpers shared by the lowering patterns --------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

TileLLVMTypeConverter::TileLLVMTypeConverter(MLIRContext *context) {
  addConversion([](Type type) { return type; });
  addConversion([context](PointerType) {
    return LLVM::LLVMPointerType::get(context, kGlobalAddressSpace);
  });
  addConversion([this](Float8E4M3FNType type) -> Type {
    return IntegerType::get(type.getContext(), 8);
  });
  addConversion([this](Float8E5M2Type type) -> Type {
    return IntegerType::get(type.getContext(), 8);
  });
  addConversion([context](SharedBufferType) {
    return LLVM::LLVMPointerType::get(context, kSharedAddressSpace);
  });
  // A pending accumulator is the accumulator's registers.
  addConversion(
      [this](PendingType type) { return convertType(type.getValueType()); });
  addConversion([context](MBarrierType) {
    return LLVM::LLVMPointerType::get(context, kSharedAddressSpace);
  });
  // The address of the by-value kernel parameter (a generic address of the
  // parameter space: TMA reads the tensor map there).
  addConversion([context](TensorDescType) {
    return LLVM::LLVMPointerType::get(context);
  });
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (isa_and_nonnull<SharedEncodingAttr>(type.getEncoding()))
      return LLVM::LLVMPointerType::get(type.getContext(), kSharedAddressSpace);
    auto layout = getLayout(type);
    if (!layout)
      return std::nullopt; // tile IR without layouts cannot be lowered.
    unsigned count = layout.getTotalElemsPerThread(type.getShape());
    Type element = convertElementType(type.getElementType());
    SmallVector<Type> fields(count, element);
    return LLVM::LLVMStructType::getLiteral(type.getContext(), fields);
  });
}

Type TileLLVMTypeConverter::convertElementType(Type type) const {
  return convertType(type);
}

SmallVector<Value> mlir::tile::unpackStruct(OpBuilder &builder, Location loc,
                                            Value value) {
  auto type = dyn_cast<LLVM::LLVMStructType>(value.getType());
  if (!type)
    return {value};
  SmallVector<Value> values;
  for (unsigned i = 0, e = type.getBody().size(); i < e; ++i)
    values.push_back(LLVM::ExtractValueOp::create(builder, loc, value, i));
  return values;
}

Value mlir::tile::packStruct(OpBuilder &builder, Location loc, Type structType,
                             ValueRange values) {
  Value result = LLVM::UndefOp::create(builder, loc, structType);
  for (auto [i, value] : llvm::enumerate(values))
    result = LLVM::InsertValueOp::create(builder, loc, result, value, i);
  return result;
}

Value mlir::tile::i32Constant(OpBuilder &builder, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(builder, loc, builder.getI32Type(),
                                  builder.getI32IntegerAttr(value));
}

Value mlir::tile::scalarConstant(OpBuilder &builder, Location loc, Type type,
                                 Attribute value) {
  return LLVM::ConstantOp::create(builder, loc, type, cast<TypedAttr>(value));
}

std::pair<Value, Value> mlir::tile::getLaneAndWarp(OpBuilder &builder,
                                                   Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(builder, loc, builder.getI32Type());
  Value lane = LLVM::AndOp::create(builder, loc, tid,
                                   i32Constant(builder, loc, kWarpSize - 1));
  Value warp =
      LLVM::LShrOp::create(builder, loc, tid, i32Constant(builder, loc, 5));
  return {lane, warp};
}

/// tid / 32 read from lane 0.
static Value shuffleWarpIndex(OpBuilder &builder, Location loc) {
  Type i32 = builder.getI32Type();
  Value warp = getLaneAndWarp(builder, loc).second;
  return NVVM::ShflOp::create(builder, loc, i32, i32Constant(builder, loc, -1),
                              warp, i32Constant(builder, loc, 0),
                              i32Constant(builder, loc, kWarpSize - 1),
                              NVVM::ShflKind::idx, UnitAttr());
}

Value mlir::tile::getUniformWarpIndex(OpBuilder &builder, Location loc) {
  // Made before the outermost loop around the insertion point (inside the
  // same warp partition): a shuffle in a loop is neither hoisted nor merged
  // (it is convergent), so its latency would sit in every trip. Not in a
  // producer partition, whose few registers it would take for its whole
  // loop (MLA's unspecialized producer spilled 32 bytes).
  OpBuilder::InsertionGuard guard(builder);
  if (getWarpPartition(builder.getInsertionBlock()).second)
    return shuffleWarpIndex(builder, loc);
  Operation *outermostLoop = nullptr;
  for (Operation *parent = builder.getInsertionBlock()->getParentOp();
       parent && !isa<WarpSpecializeOp, FunctionOpInterface>(parent);
       parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface>(parent))
      outermostLoop = parent;
  if (outermostLoop)
    builder.setInsertionPoint(outermostLoop);
  return shuffleWarpIndex(builder, loc);
}

int64_t mlir::tile::getProgramWarps(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  auto warps = module ? module->getAttrOfType<IntegerAttr>(
                            TileDialect::NumWarpsAttrHelper::getNameStr())
                      : IntegerAttr();
  return warps ? warps.getInt() : 4;
}

WarpPartition mlir::tile::getPartitionThreads(WarpSpecializeOp split,
                                              bool producer) {
  // The kernel's warps first (with a score role, its warpgroup next), then
  // the producers.
  int64_t consumers = getProgramWarps(split) * kWarpSize;
  if (!producer)
    return {0, consumers};
  return {consumers + int64_t(split.getScoreWarps()) * kWarpSize,
          int64_t(split.getProducerWarps()) * kWarpSize};
}

Value mlir::tile::isPartitionLeader(OpBuilder &builder, Location loc) {
  auto [split, inProducer] = getWarpPartition(builder.getInsertionBlock());
  int64_t first = split ? getPartitionThreads(split, inProducer).first : 0;
  Value tid = NVVM::ThreadIdXOp::create(builder, loc, builder.getI32Type());
  return LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::eq, tid,
                              i32Constant(builder, loc, first));
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

static ResolvedLayout resolve(DistributedLayoutAttr layout,
                              ArrayRef<int64_t> shape) {
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(layout)) {
    ResolvedLayout resolved{blocked, {}, SmallVector<int64_t>(shape), {}};
    for (unsigned d = 0; d < shape.size(); ++d)
      resolved.dims.push_back(d);
    return resolved;
  }
  if (auto mma = dyn_cast<MmaEncodingAttr>(layout)) {
    ResolvedLayout resolved = resolve(mma.getBlockedEquivalent(), shape);
    if (mma.isWarpgroup())
      resolved.warpgroup = mma;
    return resolved;
  }
  auto slice = cast<SliceEncodingAttr>(layout);
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + slice.getDim(), 1);
  ResolvedLayout resolved = resolve(slice.getParent(), parentShape);
  resolved.dims.erase(resolved.dims.begin() + slice.getDim());
  return resolved;
}

ResolvedLayout mlir::tile::resolveLayout(RankedTensorType type) {
  return resolve(getLayout(type), type.getShape());
}

namespace {
/// Where lanes and warps sit along one dimension of a resolved layout: the
/// coordinate of register r of lane l in warp w is
///   (l >> laneShift) % tpw * spt + (w >> warpShift) % wpc * warpMul
///   + r / spt * repMul + r % spt.
struct DimPlacement {
  int64_t size, spt, tpw, wpc, laneShift, warpShift, warpMul, repMul;
};

DimPlacement placement(const ResolvedLayout &resolved, unsigned rootDim) {
  BlockedEncodingAttr blocked = resolved.blocked;
  unsigned rank = resolved.shape.size();
  int64_t laneStride = 1, warpStride = 1;
  for (unsigned d = rootDim + 1; d < rank; ++d)
    laneStride *= blocked.getThreadsPerWarp()[d];
  // Blocked layouts number warps with the last dimension fastest, wgmma
  // accumulators with M (the first) fastest.
  if (resolved.warpgroup)
    for (unsigned d = 0; d < rootDim; ++d)
      warpStride *= blocked.getWarpsPerCTA()[d];
  else
    for (unsigned d = rootDim + 1; d < rank; ++d)
      warpStride *= blocked.getWarpsPerCTA()[d];
  int64_t size = resolved.shape[rootDim];
  int64_t spt = blocked.getSizePerThread()[rootDim],
          tpw = blocked.getThreadsPerWarp()[rootDim],
          wpc = blocked.getWarpsPerCTA()[rootDim];
  DimPlacement p = {size,
                    spt,
                    tpw,
                    wpc,
                    llvm::Log2_64(laneStride),
                    llvm::Log2_64(warpStride),
                    spt * tpw,
                    spt * tpw * wpc};
  if (resolved.warpgroup && rootDim == 0 && size == 16 * wpc) {
    p.warpMul = 16; // rows 16w + l / 4 and 16w + 8 + l / 4
    p.repMul = 8;
  } else if (resolved.warpgroup && rootDim == 1 && size >= spt * tpw * wpc) {
    p.warpMul = size / wpc; // one contiguous column block per warp
    p.repMul = spt * tpw;
  }
  return p;
}

/// (id >> shift) % count, count a power of two: a lane's or warp's index
/// along one dimension.
Value indexAlong(OpBuilder &builder, Location loc, Value id, int64_t shift,
                 int64_t count) {
  Value shifted =
      LLVM::LShrOp::create(builder, loc, id, i32Constant(builder, loc, shift));
  return LLVM::AndOp::create(builder, loc, shifted,
                             i32Constant(builder, loc, count - 1));
}
} // namespace

bool mlir::tile::haveSameRegisterMap(RankedTensorType a, RankedTensorType b) {
  if (!getLayout(a) || !getLayout(b) || a.getShape() != b.getShape())
    return false;
  ResolvedLayout ra = resolveLayout(a), rb = resolveLayout(b);
  if (ra.warpgroup != rb.warpgroup || ra.dims.size() != rb.dims.size() ||
      getRegisterOffsets(a) != getRegisterOffsets(b))
    return false;
  for (auto [da, db] : llvm::zip(ra.dims, rb.dims)) {
    DimPlacement pa = placement(ra, da), pb = placement(rb, db);
    if (pa.spt != pb.spt || pa.tpw != pb.tpw || pa.wpc != pb.wpc ||
        pa.laneShift != pb.laneShift || pa.warpShift != pb.warpShift ||
        pa.warpMul != pb.warpMul)
      return false;
  }
  return true;
}

SmallVector<SmallVector<int64_t>>
mlir::tile::getRegisterOffsets(RankedTensorType type) {
  ResolvedLayout resolved = resolveLayout(type);
  SmallVector<unsigned> elems =
      resolved.blocked.getElemsPerThreadPerDim(resolved.shape);
  unsigned rank = resolved.shape.size();
  unsigned total = 1;
  for (unsigned e : elems)
    total *= e;
  SmallVector<SmallVector<int64_t>> offsets;
  for (unsigned reg = 0; reg < total; ++reg) {
    SmallVector<int64_t> rootOffsets(rank);
    unsigned rest = reg;
    for (int d = rank - 1; d >= 0; --d) {
      int64_t r = rest % elems[d];
      rest /= elems[d];
      DimPlacement p = placement(resolved, d);
      rootOffsets[d] = (r / p.spt) * p.repMul + r % p.spt;
    }
    SmallVector<int64_t> regOffsets;
    for (unsigned rootDim : resolved.dims)
      regOffsets.push_back(rootOffsets[rootDim]);
    offsets.push_back(regOffsets);
  }
  return offsets;
}

SmallVector<Value> mlir::tile::emitBaseCoords(OpBuilder &builder, Location loc,
                                              RankedTensorType type, Value lane,
                                              Value warp) {
  ResolvedLayout resolved = resolveLayout(type);
  SmallVector<Value> base;
  for (unsigned rootDim : resolved.dims) {
    DimPlacement p = placement(resolved, rootDim);
    Value laneIdx = indexAlong(builder, loc, lane, p.laneShift, p.tpw);
    Value warpIdx = indexAlong(builder, loc, warp, p.warpShift, p.wpc);
    Value coord = LLVM::AddOp::create(
        builder, loc,
        LLVM::MulOp::create(builder, loc, laneIdx,
                            i32Constant(builder, loc, p.spt)),
        LLVM::MulOp::create(builder, loc, warpIdx,
                            i32Constant(builder, loc, p.warpMul)));
    base.push_back(LLVM::AndOp::create(builder, loc, coord,
                                       i32Constant(builder, loc, p.size - 1)));
  }
  return base;
}

unsigned mlir::tile::getDistinctLaneMask(RankedTensorType type, unsigned dim) {
  ResolvedLayout resolved = resolveLayout(type);
  DimPlacement p = placement(resolved, resolved.dims[dim]);
  unsigned mask = 0;
  for (int64_t k = 0; (int64_t(1) << k) < p.tpw; ++k)
    if (p.spt * (int64_t(1) << k) < p.size)
      mask |= 1u << (p.laneShift + k);
  return mask;
}

unsigned mlir::tile::getDistinctWarpCount(RankedTensorType type, unsigned dim) {
  ResolvedLayout resolved = resolveLayout(type);
  DimPlacement p = placement(resolved, resolved.dims[dim]);
  int64_t distinct = std::max<int64_t>(1, p.size / (p.spt * p.tpw));
  return std::min<int64_t>(p.wpc, distinct);
}

Value mlir::tile::emitWarpIndexAlong(OpBuilder &builder, Location loc,
                                     RankedTensorType type, unsigned dim,
                                     Value warp) {
  ResolvedLayout resolved = resolveLayout(type);
  DimPlacement p = placement(resolved, resolved.dims[dim]);
  Value shifted = LLVM::LShrOp::create(builder, loc, warp,
                                       i32Constant(builder, loc, p.warpShift));
  return LLVM::AndOp::create(
      builder, loc, shifted,
      i32Constant(builder, loc, getDistinctWarpCount(type, dim) - 1));
}

Value mlir::tile::emitIsFirstHolder(OpBuilder &builder, Location loc,
                                    RankedTensorType type, Value lane,
                                    Value warp) {
  ResolvedLayout resolved = resolveLayout(type);
  if (resolved.warpgroup)
    return {};
  // Along each root dimension a thread's first coordinate, before wrapping
  // around the size, is u = lane index * spt + warp index * spt * tpw; the
  // threads with u >= size repeat those with u % size (a sliced dimension
  // has size 1: only index 0 is not a repeat).
  Value first;
  for (unsigned rootDim = 0; rootDim < resolved.shape.size(); ++rootDim) {
    DimPlacement p = placement(resolved, rootDim);
    if (p.spt * p.tpw * p.wpc <= p.size)
      continue;
    Value u = LLVM::AddOp::create(
        builder, loc,
        LLVM::MulOp::create(builder, loc,
                            indexAlong(builder, loc, lane, p.laneShift, p.tpw),
                            i32Constant(builder, loc, p.spt)),
        LLVM::MulOp::create(builder, loc,
                            indexAlong(builder, loc, warp, p.warpShift, p.wpc),
                            i32Constant(builder, loc, p.warpMul)));
    Value inside = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ult,
                                        u, i32Constant(builder, loc, p.size));
    first = first ? LLVM::AndOp::create(builder, loc, first, inside) : inside;
  }
  return first;
}

SmallVector<int64_t> mlir::tile::getRowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

SmallVector<unsigned>
mlir::tile::getWholeTensorRegisters(RankedTensorType type) {
  const int64_t count = type.getNumElements();
  if (!getLayout(type) || count > kMaxRegisterPickElements ||
      getOwningWarpgroup(type) >= 0 || resolveLayout(type).warpgroup)
    return {};
  // No lane or warp moves a coordinate: every thread's base is the origin,
  // and its registers' offsets are the coordinates themselves.
  for (unsigned dim = 0; dim < type.getRank(); ++dim)
    if (getDistinctLaneMask(type, dim) || getDistinctWarpCount(type, dim) != 1)
      return {};
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> strides = getRowMajorStrides(shape);
  constexpr unsigned kNone = ~0u;
  SmallVector<unsigned> holder(count, kNone);
  for (auto [reg, offsets] : llvm::enumerate(getRegisterOffsets(type))) {
    int64_t linear = 0;
    bool inside = true;
    for (auto [offset, size, stride] : llvm::zip(offsets, shape, strides)) {
      inside &= offset >= 0 && offset < size;
      linear += offset * stride;
    }
    if (inside && holder[linear] == kNone)
      holder[linear] = reg;
  }
  if (llvm::is_contained(holder, kNone))
    return {};
  return holder;
}

bool mlir::tile::convertsInRegisters(ConvertLayoutOp op) {
  return getLayout(op.getType()) &&
         !getWholeTensorRegisters(op.getSrc().getType()).empty();
}

std::pair<Value, SmallVector<int64_t>>
mlir::tile::emitLinearIndices(OpBuilder &builder, Location loc,
                              RankedTensorType type, ArrayRef<int64_t> strides,
                              Value lane, Value warp) {
  SmallVector<Value> base = emitBaseCoords(builder, loc, type, lane, warp);
  Value linearBase = i32Constant(builder, loc, 0);
  for (auto [coord, stride] : llvm::zip(base, strides))
    linearBase = LLVM::AddOp::create(
        builder, loc, linearBase,
        LLVM::MulOp::create(builder, loc, coord,
                            i32Constant(builder, loc, stride)));
  SmallVector<int64_t> offsets;
  for (const auto &regOffsets : getRegisterOffsets(type)) {
    int64_t linear = 0;
    for (auto [offset, stride] : llvm::zip(regOffsets, strides))
      linear += offset * stride;
    offsets.push_back(linear);
  }
  return {linearBase, offsets};
}
