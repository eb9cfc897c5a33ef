//===- ScanOpToLLVM.cpp - running combinations along one axis -------------===//
//
// Through shared memory, whatever the layout: every thread writes the
// elements it holds at their row-major position (replicas write the same
// value), then log2(extent) Hillis-Steele steps each combine element i with
// element i - d along the axis (d = 1, 2, 4, ...), reading one half of the
// scratch and writing the other; in a step thread t takes the elements t,
// t + T, ... of the T threads running the code, so no element is computed
// twice. Last, every thread reads its own elements back. The cost is a
// barrier per step: meant for the small tensors of work schedules (a batch's
// lengths), not for hot loops.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct ScanOpConversion : TargetPattern<ScanOp> {
  using TargetPattern::TargetPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getSrc().getType();
    if (!getLayout(type))
      return rewriter.notifyMatchFailure(op, "tensor without a layout");
    // The steps spread the elements over a program's threads, or a warp
    // split's consumer threads (ids from 0 as well); a producer's or one
    // warpgroup's code would need its own thread numbering.
    auto [split, inProducer] = getWarpPartition(op->getBlock());
    if (inProducer || getEnclosingOwner(op->getBlock()) >= 0)
      return op.emitOpError(
          "is not supported in code that only some warps run");
    // Outside a warp split, a warp-specialized kernel's producer warps run
    // the code too: threads past the consumers' count sit the steps out.
    const bool extraThreadsPossible = !split;

    Location loc = op.getLoc();
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getSrc());
    Type elemType = values.front().getType();
    SmallVector<int64_t> strides = getRowMajorStrides(type.getShape());
    unsigned axis = op.getAxis();
    int64_t extent = type.getDimSize(axis), stride = strides[axis];
    int64_t elements = type.getNumElements();
    int64_t threads = getProgramWarps(op) * kWarpSize;

    auto [lane, warp] = getLaneAndWarp(rewriter, loc);
    Value thread = LLVM::AddOp::create(
        rewriter, loc, lane,
        LLVM::MulOp::create(rewriter, loc, warp,
                            i32Constant(rewriter, loc, kWarpSize)));
    Value scratch = getExchangeScratch(rewriter, loc, op);
    Value halves[2] = {scratch,
                       sharedElementPtr(rewriter, loc, scratch, elemType,
                                        i32Constant(rewriter, loc, elements))};
    auto element = [&](Value half, Value index) {
      return sharedElementPtr(rewriter, loc, half, elemType, index);
    };
    auto plus = [&](Value index, int64_t offset) -> Value {
      return LLVM::AddOp::create(rewriter, loc, index,
                                 i32Constant(rewriter, loc, offset));
    };

    if (!op->hasAttr(TileDialect::ScratchOrderedAttrHelper::getNameStr()))
      target.barrier(rewriter, loc); // earlier readers of the scratch are done
    auto [base, offsets] =
        emitLinearIndices(rewriter, loc, type, strides, lane, warp);
    for (auto [value, offset] : llvm::zip(values, offsets))
      LLVM::StoreOp::create(rewriter, loc, value,
                            element(halves[0], plus(base, offset)));
    target.barrier(rewriter, loc);

    // Code that runs only where `bound` exceeds `value`.
    auto guardBelow = [&](Value value, int64_t bound) {
      Value below =
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, value,
                               i32Constant(rewriter, loc, bound));
      auto ifOp = scf::IfOp::create(rewriter, loc, below, /*withElse=*/false);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    };
    // One step: `body` for each element index this thread takes (t, t + T,
    // ...), guarded where a round has fewer elements than threads, and for
    // threads past T when they may exist.
    auto emitStep = [&](function_ref<void(Value)> body) {
      OpBuilder::InsertionGuard stepGuard(rewriter);
      if (extraThreadsPossible)
        guardBelow(thread, threads);
      for (int64_t first = 0; first < elements; first += threads) {
        OpBuilder::InsertionGuard roundGuard(rewriter);
        Value index = plus(thread, first);
        if (first + threads > elements)
          guardBelow(index, elements);
        body(index);
      }
    };
    unsigned from = 0;
    for (int64_t distance = 1; distance < extent; distance *= 2) {
      emitStep([&](Value index) {
        Value coord = LLVM::URemOp::create(
            rewriter, loc,
            LLVM::UDivOp::create(rewriter, loc, index,
                                 i32Constant(rewriter, loc, stride)),
            i32Constant(rewriter, loc, extent));
        Value hasEarlier =
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sge, coord,
                                 i32Constant(rewriter, loc, distance));
        Value earlierIndex = LLVM::SelectOp::create(
            rewriter, loc, hasEarlier, plus(index, -distance * stride), index);
        Value own = LLVM::LoadOp::create(rewriter, loc, elemType,
                                         element(halves[from], index));
        Value earlier = LLVM::LoadOp::create(
            rewriter, loc, elemType, element(halves[from], earlierIndex));
        Value combined = LLVM::SelectOp::create(
            rewriter, loc, hasEarlier,
            emitCombine(rewriter, loc, op.getKind(), earlier, own), own);
        LLVM::StoreOp::create(rewriter, loc, combined,
                              element(halves[1 - from], index));
      });
      target.barrier(rewriter, loc);
      from = 1 - from;
    }

    SmallVector<Value> results;
    for (int64_t offset : offsets)
      results.push_back(LLVM::LoadOp::create(
          rewriter, loc, elemType, element(halves[from], plus(base, offset))));
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(type),
                                      results));
    return success();
  }
};
} // namespace

void mlir::tile::populateScanOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                              const TargetInfo &target,
                                              RewritePatternSet &patterns) {
  patterns.add<ScanOpConversion>(converter, patterns.getContext(), target);
}
