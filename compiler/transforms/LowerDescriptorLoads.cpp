//===- LowerDescriptorLoads.cpp - desc_load as TMA or pointer loads -------===//
//
// A `tile.desc_load` that TMA will stream (sm_90a, a pipelined loop, wgmma
// readers: of the tile itself, 16-bit, or of its casts to 16 bits from 8-bit
// codes) stays for tile-pipeline-loops; every other one becomes a masked
// pointer load, so descriptors work on every target and in the interpreter.
//
//===----------------------------------------------------------------------===//
#include "PipelineStreams.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERDESCRIPTORLOADS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// What a TMA copy of `type` moves per instruction: one swizzle panel of all
/// rows ({rows, swizzle bytes}); zeros when TMA cannot.
struct TmaBox {
  int64_t rows = 0, swizzle = 0;
};

TmaBox tmaBoxFor(RankedTensorType type) {
  Type element = type.getElementType();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  if ((bits != 16 && bits != 8) || rows % 8 != 0 || rows > 256)
    return {};
  int64_t swizzle = getSwizzleFor(cols, bits);
  if (!swizzle)
    return {};
  return {rows, swizzle};
}

bool inPipelinedLoop(Operation *op) {
  auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
  auto stages = loop ? loop->getAttrOfType<IntegerAttr>(
                           tile::TileDialect::NumStagesAttrHelper::getNameStr())
                     : nullptr;
  return stages && stages.getInt() >= 2;
}

struct LowerDescriptorLoadsPass
    : mlir::tile::impl::TileLowerDescriptorLoadsBase<LowerDescriptorLoadsPass> {
  using TileLowerDescriptorLoadsBase::TileLowerDescriptorLoadsBase;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      SmallVector<DescLoadOp> loads;
      func.walk([&](DescLoadOp load) { loads.push_back(load); });
      if (loads.empty())
        return;
      // What tile-assign-layouts will give the function's dots on sm_90a.
      DotLayoutPlan plan(func, numWarps, /*warpgroups=*/true,
                         ownsNarrowDots(getOperation(), /*byDefault=*/true));
      DenseMap<Value, TmaBox> boxes; // per descriptor: its one tensor map
      for (DescLoadOp load : loads) {
        if (tma && servedByTma(load, plan, boxes))
          continue;
        lowerToPointers(load);
      }
    });
  }

private:
  bool servedByTma(DescLoadOp load, const DotLayoutPlan &plan,
                   DenseMap<Value, TmaBox> &boxes) {
    TmaBox box = tmaBoxFor(load.getType());
    if (!box.rows || !inPipelinedLoop(load) || load->use_empty())
      return false;
    // 8-bit codes reach the dots as they are (fp8 dots) or through casts to
    // a 16-bit tile, which tile-pipeline-loops converts from the landed
    // stage.
    SmallVector<Operation *> casts;
    Value read = load.getResult();
    if (load.getType().getElementTypeBitWidth() == 8 &&
        !llvm::all_of(read.getUsers(), llvm::IsaPred<DotOp>))
      read = followCasts(read, casts);
    bool wgmmaReaders =
        (cast<RankedTensorType>(read.getType()).getElementTypeBitWidth() ==
             16 ||
         isFp8Type(read.getType())) &&
        !read.use_empty() &&
        llvm::all_of(read.getUsers(), [&](Operation *user) {
          auto dot = dyn_cast<DotOp>(user);
          MmaEncodingAttr mma = dot ? plan.layoutFor(dot) : MmaEncodingAttr();
          return mma && mma.getVersion() == 3 &&
                 (dot.getA() == read) != (dot.getB() == read);
        });
    if (!wgmmaReaders)
      return false;
    // One tensor map per descriptor: loads of one row count. Codes take the
    // narrowest swizzle any of their loads needs (tmaSwizzles; an fp8 rope
    // tile of 64 codes beside 512 latent ones: 64-byte panels); 16-bit
    // tiles, which wgmma reads in place, keep one swizzle.
    auto [it, inserted] = boxes.try_emplace(load.getDesc(), box);
    if (inserted)
      return true;
    bool codes = load.getType().getElementTypeBitWidth() == 8;
    if (it->second.rows != box.rows ||
        (!codes && it->second.swizzle != box.swizzle))
      return false;
    it->second.swizzle = std::min(it->second.swizzle, box.swizzle);
    return true;
  }

  /// base + (row + i) * stride + (col + j), masked to the tensor and to
  /// rows before `row_end`; masked-off elements read zero.
  void lowerToPointers(DescLoadOp load) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    RankedTensorType type = load.getType();
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    Type i1 = b.getI1Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
    auto fields =
        DescFieldsOp::create(b, loc, PointerType::get(type.getElementType()),
                             i64, i64, i64, load.getDesc());
    Value rowLimit = fields.getRows();
    if (load.getRowEnd())
      rowLimit = arith::MinSIOp::create(
          b, loc, rowLimit,
          arith::ExtSIOp::create(b, loc, i64, load.getRowEnd()));
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);

    // Indices of one dimension (i64) and whether each lies in [0, limit).
    auto axis = [&](Value start, int64_t size, Value limit, int axisOfOther) {
      auto rangeType = RankedTensorType::get({size}, i32);
      Value range = MakeRangeOp::create(
          b, loc, rangeType, b.getI32IntegerAttr(0), b.getI32IntegerAttr(size));
      Value first = SplatOp::create(b, loc, rangeType, start);
      Value index =
          arith::ExtSIOp::create(b, loc, RankedTensorType::get({size}, i64),
                                 arith::AddIOp::create(b, loc, first, range));
      auto splat = [&](Value v) {
        return SplatOp::create(b, loc, RankedTensorType::get({size}, i64), v);
      };
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                                splat(zero)),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                splat(limit)));
      // [size] -> [size, 1] (rows) or [1, size] (cols) -> [rows, cols].
      auto spread = [&](Value v, Type element) {
        SmallVector<int64_t> unit = {size, 1};
        if (axisOfOther == 0)
          unit = {1, size};
        Value expanded = ExpandDimsOp::create(
            b, loc, RankedTensorType::get(unit, element), v, axisOfOther);
        return BroadcastOp::create(b, loc,
                                   RankedTensorType::get({rows, cols}, element),
                                   expanded)
            .getResult();
      };
      return std::make_pair(spread(index, i64), spread(inside, i1));
    };
    auto [rowIndex, rowInside] = axis(load.getRow(), rows, rowLimit, 1);
    auto [colIndex, colInside] = axis(load.getCol(), cols, fields.getCols(), 0);

    auto wideType = RankedTensorType::get({rows, cols}, i64);
    Value offset = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, rowIndex,
            SplatOp::create(b, loc, wideType, fields.getRowStride())),
        colIndex);
    auto ptrType =
        RankedTensorType::get({rows, cols}, fields.getBase().getType());
    Value ptrs = AddPtrOp::create(
        b, loc, ptrType, SplatOp::create(b, loc, ptrType, fields.getBase()),
        offset);
    Value mask = arith::AndIOp::create(b, loc, rowInside, colInside);
    Value other = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
    Value value = LoadOp::create(b, loc, type, ptrs, mask, other);
    load.getResult().replaceAllUsesWith(value);
    load.erase();
  }
};
} // namespace
