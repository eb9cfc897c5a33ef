//===- SharedUtility.cpp - shared-memory helpers of the lowering ----------===//
//
// Addresses of a program's shared memory (buffers, stages, the exchange
// scratch) and the element runs that stage tiles through it.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

Value mlir::tile::getSharedBase(OpBuilder &builder, Location loc,
                                Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto ptrType =
      LLVM::LLVMPointerType::get(builder.getContext(), kSharedAddressSpace);
  if (!module.lookupSymbol(kSharedSymbol)) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    auto arrayType = LLVM::LLVMArrayType::get(builder.getI8Type(), 0);
    auto global = LLVM::GlobalOp::create(
        builder, loc, arrayType, /*isConstant=*/false, LLVM::Linkage::External,
        kSharedSymbol, Attribute(), kSharedAlignment, kSharedAddressSpace);
    (void)global;
  }
  return LLVM::AddressOfOp::create(builder, loc, ptrType, kSharedSymbol);
}

Value mlir::tile::getExchangeScratch(OpBuilder &builder, Location loc,
                                     Operation *op) {
  Value shared = getSharedBase(builder, loc, op);
  if (auto offset = op->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
          TileDialect::ReduceOffsetAttrHelper::getNameStr()))
    shared = sharedElementPtr(builder, loc, shared, builder.getI8Type(),
                              i32Constant(builder, loc, offset.getInt()));
  return shared;
}

bool mlir::tile::usesExchangeScratch(Operation *op) {
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return !convertsInRegisters(convert);
  return isa<ReduceOp, ScanOp, AtomicAddOp>(op);
}

Value mlir::tile::emitCombine(OpBuilder &builder, Location loc, ReduceKind kind,
                              Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case ReduceKind::Sum:
    return isFloat ? Value(LLVM::FAddOp::create(builder, loc, lhs, rhs))
                   : Value(LLVM::AddOp::create(builder, loc, lhs, rhs));
  case ReduceKind::Max:
    return isFloat ? Value(LLVM::MaximumOp::create(builder, loc, lhs, rhs))
                   : Value(LLVM::SMaxOp::create(builder, loc, lhs, rhs));
  case ReduceKind::Min:
    return isFloat ? Value(LLVM::MinimumOp::create(builder, loc, lhs, rhs))
                   : Value(LLVM::SMinOp::create(builder, loc, lhs, rhs));
  }
  llvm_unreachable("unknown reduction");
}

unsigned mlir::tile::getSharedElementBytes(Type elemType) {
  if (isa<PointerType, LLVM::LLVMPointerType>(elemType))
    return 8;
  return std::max(1u, elemType.getIntOrFloatBitWidth() / 8);
}

Value mlir::tile::sharedElementPtr(OpBuilder &builder, Location loc, Value base,
                                   Type elemType, Value index) {
  return LLVM::GEPOp::create(builder, loc, base.getType(), elemType, base,
                             ArrayRef<LLVM::GEPArg>{index});
}

Value mlir::tile::stageBase(OpBuilder &builder, Location loc, Value buffer,
                            SharedBufferType type, Value stage, Type elemType) {
  Value index = LLVM::MulOp::create(
      builder, loc, stage, i32Constant(builder, loc, type.getStageElements()));
  return sharedElementPtr(builder, loc, buffer, elemType, index);
}

unsigned mlir::tile::getScratchBytes(Operation *op) {
  auto bytesOf = [](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    return unsigned(tensor.getNumElements()) *
           getSharedElementBytes(tensor.getElementType());
  };
  // A layout conversion passes every element through; a scan combines
  // them in place.
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return convertsInRegisters(convert) ? 0
                                        : bytesOf(convert.getSrc().getType());
  if (isa<ScanOp>(op))
    return bytesOf(op->getOperand(0).getType());
  if (isa<AtomicAddOp>(op)) // the old value, to every thread
    return 4;
  if (auto dot = dyn_cast<DotOp>(op)) {
    if (isTensorCoreDot(dot))
      return isSharedView(dot.getA()) ? 0 : getMmaDotStagedABytes(dot);
    return bytesOf(dot.getA().getType()) + bytesOf(dot.getB().getType());
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto src = reduce.getSrc().getType();
    unsigned warps = getDistinctWarpCount(src, reduce.getAxis());
    if (warps == 1)
      return 0;
    unsigned outputs = src.getNumElements() / src.getDimSize(reduce.getAxis());
    return outputs * warps * getSharedElementBytes(src.getElementType());
  }
  return 0;
}

Value mlir::tile::emitRowMajorBase(OpBuilder &builder, Location loc,
                                   RankedTensorType type, int64_t rowStride,
                                   Value lane, Value warp) {
  SmallVector<Value> coords = emitBaseCoords(builder, loc, type, lane, warp);
  return LLVM::AddOp::create(
      builder, loc,
      LLVM::MulOp::create(builder, loc, coords[0],
                          i32Constant(builder, loc, rowStride)),
      coords[1]);
}

Value mlir::tile::emitSharedIndex(OpBuilder &builder, Location loc,
                                  const SharedTileLayout &layout, Value row,
                                  Value col) {
  auto constant = [&](int64_t v) { return i32Constant(builder, loc, v); };
  if (layout.evenWordsFirst) {
    // Word w = (col % 16) / 2 of a 16-column block moves to place
    // (w % 2) * 4 + w / 2: bit 1 of col goes to bit 3, bits 2-3 to bits
    // 1-2; bit 0 (the element in its word) and the block stay.
    auto masked = [&](int64_t mask) {
      return LLVM::AndOp::create(builder, loc, col, constant(mask));
    };
    Value kept = masked(~int64_t(14));
    Value oddWord = LLVM::ShlOp::create(builder, loc, masked(2), constant(2));
    Value wordPair =
        LLVM::LShrOp::create(builder, loc, masked(12), constant(1));
    col =
        LLVM::OrOp::create(builder, loc, kept,
                           LLVM::OrOp::create(builder, loc, oddWord, wordPair));
  }
  if (!layout.swizzle)
    return LLVM::AddOp::create(
        builder, loc,
        LLVM::MulOp::create(builder, loc, row, constant(layout.rowStride)),
        col);
  // Panel col / P (P = rowStride elements), row `row` of it, 16-byte chunk
  // (col % P) / E XOR the row bits the swizzle mixes in (E = P / chunks
  // elements a chunk: 8 of 16 bits, 16 of 8).
  int64_t panel = layout.rowStride;
  int64_t chunks = layout.swizzle / 16;
  int64_t chunkShift = llvm::Log2_64(panel / chunks);
  int64_t rowShift = llvm::Log2_64(128 / layout.swizzle);
  Value panelIndex =
      LLVM::LShrOp::create(builder, loc, col, constant(llvm::Log2_64(panel)));
  Value inPanel = LLVM::AndOp::create(builder, loc, col, constant(panel - 1));
  Value mix = LLVM::AndOp::create(
      builder, loc, LLVM::LShrOp::create(builder, loc, row, constant(rowShift)),
      constant(chunks - 1));
  Value swizzled = LLVM::XOrOp::create(
      builder, loc, inPanel,
      LLVM::ShlOp::create(builder, loc, mix, constant(chunkShift)));
  Value rowStart = LLVM::AddOp::create(
      builder, loc,
      LLVM::MulOp::create(builder, loc, panelIndex,
                          constant(layout.rows * panel)),
      LLVM::MulOp::create(builder, loc, row, constant(panel)));
  return LLVM::AddOp::create(builder, loc, rowStart, swizzled);
}

SharedTileIndexer::SharedTileIndexer(OpBuilder &builder, Location loc,
                                     RankedTensorType type,
                                     const SharedTileLayout &layout, Value lane,
                                     Value warp)
    : layout(layout) {
  if (layout.isPermuted())
    baseCoords = emitBaseCoords(builder, loc, type, lane, warp);
  else
    linearBase =
        emitRowMajorBase(builder, loc, type, layout.rowStride, lane, warp);
}

Value SharedTileIndexer::index(OpBuilder &builder, Location loc,
                               ArrayRef<int64_t> offsets) const {
  if (!layout.isPermuted())
    return LLVM::AddOp::create(
        builder, loc, linearBase,
        i32Constant(builder, loc, offsets[0] * layout.rowStride + offsets[1]));
  auto coord = [&](unsigned dim) {
    return LLVM::AddOp::create(builder, loc, baseCoords[dim],
                               i32Constant(builder, loc, offsets[dim]));
  };
  return emitSharedIndex(builder, loc, layout, coord(0), coord(1));
}

/// Calls `visit(reg, width, ptr)` for each run of `width` registers of 2-D
/// `type` that sit contiguously at `ptr` in a tile laid out as `layout` at
/// `base`: runs of up to 16 bytes (a swizzle moves whole 16-byte chunks, so
/// runs stay contiguous; even-words-first order moves words, so runs are one
/// word), single elements elsewhere.
static void
forEachSharedRun(OpBuilder &builder, Location loc, RankedTensorType type,
                 Type elemType, Value base, const SharedTileLayout &layout,
                 Value lane, Value warp,
                 llvm::function_ref<void(size_t, int64_t, Value)> visit) {
  int64_t rowStride = layout.rowStride;
  SharedTileIndexer indexer(builder, loc, type, layout, lane, warp);
  SmallVector<SmallVector<int64_t>> offsets = getRegisterOffsets(type);
  // A thread's base column is a multiple of its layout's run length, so runs
  // that start at a multiple of the vector width are aligned to it.
  ResolvedLayout resolved = resolveLayout(type);
  unsigned elemBytes = getSharedElementBytes(elemType);
  int64_t vec = 1;
  if (resolved.dims.size() == 2 &&
      resolved.dims[1] == resolved.shape.size() - 1)
    vec = std::min<int64_t>({resolved.blocked.getSizePerThread().back(),
                             (layout.evenWordsFirst ? 4 : 16) / elemBytes,
                             type.getDimSize(1)});
  while (vec > 1 && rowStride % vec != 0)
    vec /= 2;
  for (size_t reg = 0; reg < offsets.size();) {
    int64_t width = 1;
    if (offsets[reg][1] % vec == 0 && reg + vec <= offsets.size()) {
      width = vec;
      for (int64_t i = 1; i < vec; ++i)
        if (offsets[reg + i][0] != offsets[reg][0] ||
            offsets[reg + i][1] != offsets[reg][1] + i)
          width = 1;
    }
    visit(reg, width,
          sharedElementPtr(builder, loc, base, elemType,
                           indexer.index(builder, loc, offsets[reg])));
    reg += width;
  }
}

void mlir::tile::stageTile(OpBuilder &builder, Location loc,
                           RankedTensorType type, ArrayRef<Value> values,
                           Value base, const SharedTileLayout &layout,
                           Value lane, Value warp) {
  Type elemType = values.front().getType();
  unsigned elemBytes = getSharedElementBytes(elemType);
  forEachSharedRun(
      builder, loc, type, elemType, base, layout, lane, warp,
      [&](size_t reg, int64_t width, Value ptr) {
        if (width == 1) {
          LLVM::StoreOp::create(builder, loc, values[reg], ptr);
          return;
        }
        auto vecType = VectorType::get(width, elemType);
        Value vector = LLVM::UndefOp::create(builder, loc, vecType);
        for (int64_t i = 0; i < width; ++i)
          vector = LLVM::InsertElementOp::create(builder, loc, vector,
                                                 values[reg + i],
                                                 i32Constant(builder, loc, i));
        LLVM::StoreOp::create(builder, loc, vector, ptr, width * elemBytes);
      });
}

SmallVector<Value> mlir::tile::readStagedTile(OpBuilder &builder, Location loc,
                                              RankedTensorType type,
                                              Type elemType, Value base,
                                              const SharedTileLayout &layout,
                                              Value lane, Value warp) {
  SmallVector<Value> values(getRegisterOffsets(type).size());
  unsigned elemBytes = getSharedElementBytes(elemType);
  forEachSharedRun(builder, loc, type, elemType, base, layout, lane, warp,
                   [&](size_t reg, int64_t width, Value ptr) {
                     if (width == 1) {
                       values[reg] =
                           LLVM::LoadOp::create(builder, loc, elemType, ptr);
                       return;
                     }
                     auto vecType = VectorType::get(width, elemType);
                     Value vector = LLVM::LoadOp::create(
                         builder, loc, vecType, ptr, width * elemBytes);
                     for (int64_t i = 0; i < width; ++i)
                       values[reg + i] = LLVM::ExtractElementOp::create(
                           builder, loc, vector, i32Constant(builder, loc, i));
                   });
  return values;
}

void mlir::tile::storeSharedElements(OpBuilder &builder, Location loc,
                                     Value base, Type elemType, Value first,
                                     ArrayRef<int64_t> offsets,
                                     ArrayRef<Value> values) {
  for (auto [value, offset] : llvm::zip(values, offsets)) {
    Value index = LLVM::AddOp::create(builder, loc, first,
                                      i32Constant(builder, loc, offset));
    LLVM::StoreOp::create(
        builder, loc, value,
        sharedElementPtr(builder, loc, base, elemType, index));
  }
}

SmallVector<Value> mlir::tile::loadSharedElements(OpBuilder &builder,
                                                  Location loc, Value base,
                                                  Type elemType, Value first,
                                                  ArrayRef<int64_t> offsets) {
  SmallVector<Value> values;
  for (int64_t offset : offsets) {
    Value index = LLVM::AddOp::create(builder, loc, first,
                                      i32Constant(builder, loc, offset));
    values.push_back(LLVM::LoadOp::create(
        builder, loc, elemType,
        sharedElementPtr(builder, loc, base, elemType, index)));
  }
  return values;
}
