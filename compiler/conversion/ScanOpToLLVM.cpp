//===- ScanOpToLLVM.cpp - running combinations along one axis -------------===//
//
// Through shared memory, whatever the layout: every thread writes the
// elements it holds at their row-major position (replicas write the same
// value). Each line along the axis is then cut into P segments of
// consecutive elements (P the largest power of two dividing the extent, at
// most 32), one per thread, and the P threads of a line are neighbouring
// lanes of one warp:
// - a thread combines its segment's elements in order, in registers;
// - the P segment totals are scanned across the lanes with up-shuffles
//   (log2 P steps, no barrier);
// - each thread combines the total of the segments before its own into its
//   elements and writes them back in place.
// Last, every thread reads its own elements back. Three barriers whatever
// the extent (a step per barrier would take log2(extent) of them): meant for
// the small tensors of work schedules (a batch's lengths), which sit on the
// critical path before the kernels they schedule.
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
    // Outside a warp split, producer warps may run the code too (see below).
    const bool extraThreadsPossible = !split;

    Location loc = op.getLoc();
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getSrc());
    Type elemType = values.front().getType();
    SmallVector<int64_t> strides = getRowMajorStrides(type.getShape());
    unsigned axis = op.getAxis();
    int64_t extent = type.getDimSize(axis), stride = strides[axis];
    int64_t elements = type.getNumElements();
    int64_t threads = getProgramWarps(op) * kWarpSize;
    // P segments per line of `extent`, each `length` elements long.
    int64_t segmentsPerLine = 1;
    while (segmentsPerLine < kWarpSize && extent % (2 * segmentsPerLine) == 0)
      segmentsPerLine *= 2;
    int64_t length = extent / segmentsPerLine;
    int64_t segments = elements / extent * segmentsPerLine;

    auto [lane, warp] = getLaneAndWarp(rewriter, loc);
    Value thread = LLVM::AddOp::create(
        rewriter, loc, lane,
        LLVM::MulOp::create(rewriter, loc, warp,
                            i32Constant(rewriter, loc, kWarpSize)));
    Value scratch = getExchangeScratch(rewriter, loc, op);
    auto element = [&](Value index) {
      return sharedElementPtr(rewriter, loc, scratch, elemType, index);
    };
    auto constant = [&](int64_t value) {
      return i32Constant(rewriter, loc, value);
    };
    auto plus = [&](Value index, int64_t offset) -> Value {
      return LLVM::AddOp::create(rewriter, loc, index, constant(offset));
    };
    // Code that runs only where `bound` exceeds `value`.
    auto guardBelow = [&](Value value, Value bound) {
      Value below = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::slt, value, bound);
      auto ifOp = scf::IfOp::create(rewriter, loc, below, /*withElse=*/false);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    };

    if (!op->hasAttr(TileDialect::ScratchOrderedAttrHelper::getNameStr()))
      target.barrier(rewriter, loc); // earlier readers of the scratch are done
    auto [base, offsets] =
        emitLinearIndices(rewriter, loc, type, strides, lane, warp);
    for (auto [value, offset] : llvm::zip(values, offsets))
      LLVM::StoreOp::create(rewriter, loc, value, element(plus(base, offset)));
    target.barrier(rewriter, loc);

    {
      OpBuilder::InsertionGuard scanGuard(rewriter);
      // Outside a warp split, a warp-specialized kernel's producer warps run
      // the code too: they sit the scan out (whole warps, so the shuffles
      // stay convergent).
      if (extraThreadsPossible)
        guardBelow(thread, constant(threads));
      // Segment s = first + thread of each round. Its group of P lanes is
      // all inside or all past the last segment (segments and rounds are
      // multiples of P), so every lane shuffles; those past it touch no
      // shared memory (a read there would race with the owner's write) and
      // shuffle zeros.
      Value groupLane =
          LLVM::URemOp::create(rewriter, loc, lane, constant(segmentsPerLine));
      for (int64_t first = 0; first < segments; first += threads) {
        const bool partialRound = first + threads > segments;
        Value segment = plus(thread, first);
        // Line l = segment / P holds outer index l / stride and inner
        // index l % stride; the segment starts at its part along the axis.
        Value line = LLVM::UDivOp::create(rewriter, loc, segment,
                                          constant(segmentsPerLine));
        Value start = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::AddOp::create(
                rewriter, loc,
                LLVM::MulOp::create(
                    rewriter, loc,
                    LLVM::UDivOp::create(rewriter, loc, line, constant(stride)),
                    constant(extent * stride)),
                LLVM::URemOp::create(rewriter, loc, line, constant(stride))),
            LLVM::MulOp::create(rewriter, loc, groupLane,
                                constant(length * stride)));
        // The segment's running combination, in order.
        auto emitRunning = [&]() {
          SmallVector<Value> running;
          for (int64_t k = 0; k < length; ++k) {
            Value value = LLVM::LoadOp::create(
                rewriter, loc, elemType, element(plus(start, k * stride)));
            running.push_back(k ? emitCombine(rewriter, loc, op.getKind(),
                                              running.back(), value)
                                : value);
          }
          return running;
        };
        SmallVector<Value> running;
        if (partialRound) {
          Value inRange =
              LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt,
                                   segment, constant(segments));
          auto ifOp = scf::IfOp::create(
              rewriter, loc, SmallVector<Type>(length, elemType), inRange,
              /*withElseRegion=*/true);
          OpBuilder::InsertionGuard branchGuard(rewriter);
          rewriter.setInsertionPointToStart(ifOp.thenBlock());
          scf::YieldOp::create(rewriter, loc, emitRunning());
          rewriter.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(
              rewriter, loc,
              SmallVector<Value>(
                  length, LLVM::ZeroOp::create(rewriter, loc, elemType)));
          running.assign(ifOp.getResults().begin(), ifOp.getResults().end());
        } else {
          running = emitRunning();
        }
        // Inclusive scan of the segment totals across the group, then the
        // total of the segments before this one.
        Value total = running.back();
        for (int64_t distance = 1; distance < segmentsPerLine; distance *= 2) {
          Value earlier =
              target.shuffleUp(rewriter, loc, total, distance, segmentsPerLine);
          Value hasEarlier =
              LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::uge,
                                   groupLane, constant(distance));
          total = LLVM::SelectOp::create(
              rewriter, loc, hasEarlier,
              emitCombine(rewriter, loc, op.getKind(), earlier, total), total);
        }
        Value before =
            segmentsPerLine > 1
                ? target.shuffleUp(rewriter, loc, total, 1, segmentsPerLine)
                : total;
        Value hasBefore = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::ugt, groupLane, constant(0));
        OpBuilder::InsertionGuard storeGuard(rewriter);
        if (partialRound)
          guardBelow(segment, constant(segments));
        for (int64_t k = 0; k < length; ++k) {
          Value result = running[k];
          if (segmentsPerLine > 1)
            result = LLVM::SelectOp::create(
                rewriter, loc, hasBefore,
                emitCombine(rewriter, loc, op.getKind(), before, result),
                result);
          LLVM::StoreOp::create(rewriter, loc, result,
                                element(plus(start, k * stride)));
        }
      }
    }
    target.barrier(rewriter, loc);

    SmallVector<Value> results;
    for (int64_t offset : offsets)
      results.push_back(LLVM::LoadOp::create(rewriter, loc, elemType,
                                             element(plus(base, offset))));
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
