//===- LoadStoreOpToLLVM.cpp - addptr, load, store ------------------------===//
//
// Each thread accesses its registers' addresses. Consecutive registers along
// the contiguous dimension are accessed as one vector when the access-width
// analysis proves them contiguous, aligned and uniformly masked; masked
// accesses use llvm.masked.load/store, which NVPTX turns into one predicated
// branch around a vector access when the mask is uniform.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/AccessWidth.h"
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <array>
#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {
struct AddPtrOpConversion : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee =
        cast<PointerType>(getElementTypeOrSelf(op.getType())).getPointeeType();
    auto converter =
        static_cast<const TileLLVMTypeConverter *>(getTypeConverter());
    Type elemType = converter->convertElementType(pointee);
    Type ptrType =
        converter->convertElementType(getElementTypeOrSelf(op.getType()));
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offsets =
        unpackStruct(rewriter, loc, adaptor.getOffset());
    SmallVector<Value> results;
    for (auto [ptr, offset] : llvm::zip(ptrs, offsets))
      results.push_back(LLVM::GEPOp::create(rewriter, loc, ptrType, elemType,
                                            ptr,
                                            ArrayRef<LLVM::GEPArg>{offset}));
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, results.front());
      return success();
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      converter->convertType(op.getType()),
                                      results));
    return success();
  }
};

/// Registers of one access: `width` consecutive registers from `first`.
struct AccessGroup {
  unsigned first, width;
};

SmallVector<AccessGroup> groupRegisters(unsigned count, unsigned width) {
  SmallVector<AccessGroup> groups;
  for (unsigned r = 0; r < count; r += width)
    groups.push_back({r, width});
  return groups;
}

Value vectorOf(OpBuilder &builder, Location loc, ArrayRef<Value> values) {
  auto type = VectorType::get({int64_t(values.size())}, values[0].getType());
  Value vector = LLVM::UndefOp::create(builder, loc, type);
  for (auto [i, value] : llvm::enumerate(values))
    vector = LLVM::InsertElementOp::create(builder, loc, vector, value,
                                           i32Constant(builder, loc, i));
  return vector;
}

Value splatMask(OpBuilder &builder, Location loc, Value mask, unsigned width) {
  return vectorOf(builder, loc, SmallVector<Value>(width, mask));
}

struct LoadOpConversion : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto converter =
        static_cast<const TileLLVMTypeConverter *>(getTypeConverter());
    Type elemType =
        converter->convertElementType(getElementTypeOrSelf(op.getType()));
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpackStruct(rewriter, loc, adaptor.getOther());
    unsigned width = getAccessWidth(op);
    unsigned bytes = getSharedElementBytes(elemType) * width;
    SmallVector<Value> results;
    for (AccessGroup group : groupRegisters(ptrs.size(), width)) {
      Type vectorType = VectorType::get({int64_t(width)}, elemType);
      Value ptr = ptrs[group.first];
      Value loaded;
      if (masks.empty()) {
        loaded = LLVM::LoadOp::create(rewriter, loc, vectorType, ptr, bytes);
      } else {
        SmallVector<Value> fill;
        for (unsigned i = 0; i < width; ++i)
          fill.push_back(others.empty()
                             ? scalarConstant(rewriter, loc, elemType,
                                              rewriter.getZeroAttr(elemType))
                             : others[group.first + i]);
        loaded = LLVM::MaskedLoadOp::create(
            rewriter, loc, vectorType, ptr,
            splatMask(rewriter, loc, masks[group.first], width),
            vectorOf(rewriter, loc, fill), bytes);
      }
      for (unsigned i = 0; i < width; ++i)
        results.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, loaded, i32Constant(rewriter, loc, i)));
    }
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, results.front());
      return success();
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      converter->convertType(op.getType()),
                                      results));
    return success();
  }
};

/// The registers of one quad-transposed store: a row's two columns in each
/// of four consecutive 8-column tiles, 32 columns from a multiple of 32.
struct QuadGroup {
  std::array<unsigned, 8> registers; // tile t's pair: 2 t, 2 t + 1
};

/// Every register in exactly one group, or nothing.
std::optional<SmallVector<QuadGroup>> quadGroups(RankedTensorType type) {
  SmallVector<SmallVector<int64_t>> offsets = getRegisterOffsets(type);
  std::map<std::pair<int64_t, int64_t>, unsigned> at;
  for (auto [reg, offset] : llvm::enumerate(offsets))
    at[{offset[0], offset[1]}] = unsigned(reg);
  SmallVector<QuadGroup> groups;
  for (auto [reg, offset] : llvm::enumerate(offsets)) {
    if (offset[1] % 32 != 0)
      continue;
    QuadGroup group;
    for (int64_t i = 0; i < 8; ++i) {
      auto found = at.find({offset[0], offset[1] + 8 * (i / 2) + i % 2});
      if (found == at.end())
        return std::nullopt;
      group.registers[i] = found->second;
    }
    groups.push_back(group);
  }
  if (groups.size() * 8 != offsets.size())
    return std::nullopt;
  return groups;
}

struct StoreOpConversion : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    if (op->hasAttr(TileDialect::QuadStoreAttrHelper::getNameStr()))
      if (std::optional<SmallVector<QuadGroup>> groups =
              quadGroups(cast<RankedTensorType>(op.getValue().getType()))) {
        storeQuadTransposed(rewriter, loc, *groups, ptrs, values, masks);
        rewriter.eraseOp(op);
        return success();
      }
    unsigned width = getAccessWidth(op);
    unsigned bytes = getSharedElementBytes(values[0].getType()) * width;
    for (AccessGroup group : groupRegisters(ptrs.size(), width)) {
      Value vector = vectorOf(
          rewriter, loc, ArrayRef<Value>(values).slice(group.first, width));
      Value ptr = ptrs[group.first];
      if (masks.empty())
        LLVM::StoreOp::create(rewriter, loc, vector, ptr, bytes);
      else
        LLVM::MaskedStoreOp::create(
            rewriter, loc, vector, ptr,
            splatMask(rewriter, loc, masks[group.first], width), bytes);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Lane q of a quad holds words (column pairs) 2q of four tiles; after a
  /// 4 x 4 transpose in two butterfly steps (lanes q ^ 1, then q ^ 2) it
  /// holds the four words of tile q: 8 consecutive columns, one 16-byte
  /// store at its tile-0 address + 12 q bytes (the run is contiguous).
  static void storeQuadTransposed(OpBuilder &b, Location loc,
                                  ArrayRef<QuadGroup> groups,
                                  ArrayRef<Value> ptrs, ArrayRef<Value> values,
                                  ArrayRef<Value> masks) {
    Type i32 = b.getI32Type(), i8 = b.getI8Type();
    auto constant = [&](int64_t v) { return i32Constant(b, loc, v); };
    Value lane = getLaneAndWarp(b, loc).first;
    Value quadLane = LLVM::AndOp::create(b, loc, lane, constant(3));
    auto laneBit = [&](int64_t bit) {
      return LLVM::ICmpOp::create(
          b, loc, LLVM::ICmpPredicate::ne,
          LLVM::AndOp::create(b, loc, quadLane, constant(bit)), constant(0));
    };
    Value bit0 = laneBit(1), bit1 = laneBit(2);
    auto select = [&](Value c, Value x, Value y) {
      return LLVM::SelectOp::create(b, loc, c, x, y).getResult();
    };
    Value allLanes = constant(-1), clamp = constant(0x1f);
    Value byteOffset = LLVM::MulOp::create(b, loc, quadLane, constant(12));
    // isTile[t]: this lane stores tile t (t = 1..3) of each group.
    std::array<Value, 4> isTile;
    for (int t = 1; t < 4; ++t)
      isTile[t] = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                       quadLane, constant(t));
    for (const QuadGroup &group : groups) {
      std::array<Value, 4> words;
      for (int t = 0; t < 4; ++t)
        words[t] = LLVM::BitcastOp::create(
            b, loc, i32,
            vectorOf(b, loc,
                     {values[group.registers[2 * t]],
                      values[group.registers[2 * t + 1]]}));
      for (auto [mask, flag] : {std::pair<int, Value>{1, bit0}, {2, bit1}})
        for (int lo = 0; lo < 4; ++lo) {
          if (lo & mask)
            continue;
          int hi = lo | mask;
          Value send = select(flag, words[lo], words[hi]);
          Value got =
              NVVM::ShflOp::create(b, loc, i32, allLanes, send, constant(mask),
                                   clamp, NVVM::ShflKind::bfly, UnitAttr());
          words[lo] = select(flag, got, words[lo]);
          words[hi] = select(flag, words[hi], got);
        }
      Value vector = vectorOf(b, loc, words);
      Value ptr = LLVM::GEPOp::create(b, loc, ptrs[0].getType(), i8,
                                      ptrs[group.registers[0]],
                                      ArrayRef<LLVM::GEPArg>{byteOffset});
      if (masks.empty()) {
        LLVM::StoreOp::create(b, loc, vector, ptr, 16);
        continue;
      }
      // Tile q's mask: masked alike across its 8 columns.
      Value mask = masks[group.registers[0]];
      for (int t = 1; t < 4; ++t)
        mask = select(isTile[t], masks[group.registers[2 * t]], mask);
      LLVM::MaskedStoreOp::create(b, loc, vector, ptr,
                                  splatMask(b, loc, mask, 4), 16);
    }
  }
};
} // namespace

void mlir::tile::populateLoadStoreOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AddPtrOpConversion, LoadOpConversion, StoreOpConversion>(
      converter, patterns.getContext());
}
