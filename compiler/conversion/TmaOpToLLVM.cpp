//===- TmaOpToLLVM.cpp - descriptors, mbarriers and TMA copies ------------===//
//
// A `!tile.tensordesc` is the address of its by-value kernel parameter
// (`kTensorDescBytes` bytes: the tensor map, then base, rows, cols and row
// stride). One thread initializes the mbarriers (thread 0, or after a warp
// split the producers' first thread); one lane of that thread's warp,
// elected, announces each stage's bytes and issues the TMA copies, one per
// swizzle panel of the box. Every thread waits on the barrier's phase
// parity itself, so a landed stage needs no CTA barrier unless rows are
// zeroed; tile.mbarrier_arrive counts the threads or warps that release a
// stage to its next writer; tile.pipeline_base carries a ring's trip count
// from one entry of its loop to the next. tile.prefetch_l2, a bulk
// prefetch, is issued the same way as the copies.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"
#include "tilemla/Support/TensorDescriptorABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The suspend-time hint of mbarrier.try_wait (ns): the waiting loop
/// re-tests after at most this long.
constexpr int64_t kTryWaitTicks = 10'000'000;

Value barrierAt(OpBuilder &b, Location loc, Value barriers, Value index) {
  return LLVM::GEPOp::create(b, loc, barriers.getType(), b.getI64Type(),
                             barriers, index);
}

/// Where one thread issues asynchronous work for the program: a builder
/// inside a branch taken by the first warp of the warps that run the code
/// (its index made warp-uniform, so the branch does not diverge), and that
/// warp's elected lane. Work predicated on the election is issued back to
/// back; predicated on the first thread instead, each TMA copy became a
/// loop over the active lanes in every warp (about 65 cycles per copy on
/// the refilling warp's path; docs/design/PINGPONG.md section 14).
std::pair<OpBuilder, Value> electIssuer(OpBuilder &rewriter, Location loc) {
  auto [split, inProducer] = getWarpPartition(rewriter.getInsertionBlock());
  int64_t firstWarp =
      (split ? getPartitionThreads(split, inProducer).first : 0) / kWarpSize;
  Value inFirstWarp =
      LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                           getUniformWarpIndex(rewriter, loc),
                           i32Constant(rewriter, loc, firstWarp));
  OpBuilder b =
      scf::IfOp::create(rewriter, loc, inFirstWarp, /*withElse=*/false)
          .getThenBodyBuilder();
  Value elected = NVVM::ElectSyncOp::create(b, loc, b.getI1Type(),
                                            /*membermask=*/Value());
  return {b, elected};
}

struct DescFieldsOpConversion : OpConversionPattern<DescFieldsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DescFieldsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto field = [&](unsigned index, Type type) -> Value {
      Value at =
          LLVM::GEPOp::create(rewriter, loc, adaptor.getDesc().getType(),
                              rewriter.getI8Type(), adaptor.getDesc(),
                              ArrayRef<LLVM::GEPArg>{int32_t(
                                  tilemla::kTensorMapBytes + 8 * index)});
      return LLVM::LoadOp::create(rewriter, loc, type, at, /*alignment=*/8,
                                  /*isVolatile=*/false,
                                  /*isNonTemporal=*/false,
                                  /*isInvariant=*/true);
    };
    Type i64 = rewriter.getI64Type();
    rewriter.replaceOp(
        op, {field(0, getTypeConverter()->convertType(op.getBase().getType())),
             field(1, i64), field(2, i64), field(3, i64)});
    return success();
  }
};

struct MBarrierAllocOpConversion : TargetPattern<MBarrierAllocOp> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(MBarrierAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError("needs tile-allocate-shared to place it");
    Location loc = op.getLoc();
    Value base = sharedElementPtr(
        rewriter, loc, getSharedBase(rewriter, loc, op), rewriter.getI8Type(),
        i32Constant(rewriter, loc, *op.getOffset()));
    // A loop nest may enter the pipeline again: every thread must be done
    // waiting on the barriers' old phases before they restart at phase 0.
    target.barrier(rewriter, loc);
    Value first = isPartitionLeader(rewriter, loc);
    for (int64_t i = 0; i < op.getType().getCount(); ++i)
      NVVM::MBarrierInitOp::create(
          rewriter, loc,
          barrierAt(rewriter, loc, base, i32Constant(rewriter, loc, i)),
          i32Constant(rewriter, loc, op.getType().getArrivals()), first);
    // The TMA unit (async proxy) must see the initialized barriers too.
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    target.barrier(rewriter, loc);
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct TmaCopyOpConversion : OpConversionPattern<TmaCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType type = op.getBuffer().getType();
    int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t panelCols = type.getSwizzle() / elemBytes;
    int64_t panelBytes = type.getRows() * type.getSwizzle();
    int64_t panels = type.getCols() / panelCols;

    Value barrier =
        barrierAt(rewriter, loc, adaptor.getBarriers(), adaptor.getStage());
    // fp8 elements address as the bytes the type converter makes them.
    Value stage =
        stageBase(rewriter, loc, adaptor.getBuffer(), type, adaptor.getStage(),
                  getTypeConverter()->convertType(type.getElementType()));
    auto [b, elected] = electIssuer(rewriter, loc);
    // A predicate, not a branch of their own: the predicated forms take
    // the stage's shared::cta address, where the intrinsic wants a
    // shared::cluster one (two conversions through a generic address).
    Value issues = LLVM::AndOp::create(b, loc, elected, adaptor.getPred());
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, Type(), barrier, i32Constant(b, loc, panels * panelBytes),
        NVVM::MemScopeKind::CTA, /*relaxed=*/false, issues);
    for (int64_t panel = 0; panel < panels; ++panel) {
      Value dst = LLVM::GEPOp::create(
          b, loc, stage.getType(), b.getI8Type(), stage,
          ArrayRef<LLVM::GEPArg>{int32_t(panel * panelBytes)});
      Value col = LLVM::AddOp::create(b, loc, adaptor.getCol(),
                                      i32Constant(b, loc, panel * panelCols));
      // Coordinates innermost first: column, then row.
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, dst, adaptor.getDesc(), ValueRange{col, adaptor.getRow()},
          barrier, ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), issues);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitOpConversion : OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::MBarrierTryWaitParityOp::create(
        rewriter, loc,
        barrierAt(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex()),
        adaptor.getParity(), i32Constant(rewriter, loc, kTryWaitTicks));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveOpConversion : OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value barrier =
        barrierAt(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    Value arrives = adaptor.getPred();
    if (op.getPerWarp()) {
      Value firstLane = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::eq,
          getLaneAndWarp(rewriter, loc).first, i32Constant(rewriter, loc, 0));
      arrives = arrives ? LLVM::AndOp::create(rewriter, loc, arrives, firstLane)
                        : firstLane;
    }
    OpBuilder b = rewriter;
    if (arrives)
      b = scf::IfOp::create(rewriter, loc, arrives, /*else=*/false)
              .getThenBodyBuilder();
    NVVM::MBarrierArriveOp::create(b, loc, Type(), barrier, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Rows are whole 16-byte chunks in every panel (the swizzle permutes chunks
/// within a row), so the stage is zeroed chunk by chunk, each thread taking
/// every numThreads-th chunk, predicated on its row.
struct ZeroRowsOpConversion : TargetPattern<ZeroRowsOp> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(ZeroRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType type = op.getBuffer().getType();
    if (!type.getSwizzle())
      return op.emitOpError("zeroes rows of swizzled buffers only");
    // In one warpgroup's code (a score role) its 128 threads share the work.
    int64_t owner = getEnclosingOwner(op->getBlock());
    int64_t threads = owner >= 0 ? int64_t(kWarpgroupThreads)
                                 : getProgramWarps(op) * kWarpSize;
    int64_t rows = type.getRows();
    int64_t rowChunks = type.getSwizzle() / 16;
    int64_t chunks = rows * type.getCols() *
                     (type.getElementType().getIntOrFloatBitWidth() / 8) / 16;

    Value first = adaptor.getFirst();
    Value partial =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, first,
                             i32Constant(rewriter, loc, rows));
    auto ifOp = scf::IfOp::create(rewriter, loc, partial, /*else=*/false);
    OpBuilder b = ifOp.getThenBodyBuilder();
    Value stage =
        stageBase(b, loc, adaptor.getBuffer(), type, adaptor.getStage(),
                  getTypeConverter()->convertType(type.getElementType()));
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    if (owner > 0)
      tid = LLVM::SubOp::create(b, loc, tid,
                                i32Constant(b, loc, owner * kWarpgroupThreads));
    auto vecType = VectorType::get({4}, b.getI32Type());
    Value zeros = LLVM::ZeroOp::create(b, loc, vecType);
    for (int64_t k = 0; k < chunks; k += threads) {
      // Chunk c = k + tid sits in row (c / rowChunks) % rows of its panel.
      Value chunk = LLVM::AddOp::create(b, loc, tid, i32Constant(b, loc, k));
      Value row = LLVM::URemOp::create(
          b, loc,
          LLVM::UDivOp::create(b, loc, chunk, i32Constant(b, loc, rowChunks)),
          i32Constant(b, loc, rows));
      Value zeroIt = LLVM::AndOp::create(
          b, loc,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, row, first),
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, chunk,
                               i32Constant(b, loc, chunks)));
      Value offset =
          LLVM::MulOp::create(b, loc, chunk, i32Constant(b, loc, 16));
      Value at = LLVM::GEPOp::create(b, loc, stage.getType(), b.getI8Type(),
                                     stage, offset);
      auto store = scf::IfOp::create(b, loc, zeroIt, /*else=*/false);
      OpBuilder inStore = store.getThenBodyBuilder();
      LLVM::StoreOp::create(inStore, loc, zeros, at, /*alignment=*/16);
    }
    target.fenceAsyncProxy(b, loc); // wgmma reads through the async proxy
    target.barrier(b, loc);
    rewriter.eraseOp(op);
    return success();
  }
};
/// A per-thread counter in a stack slot made at the kernel's entry (zero
/// there); LLVM's SROA keeps it in a register. Each op has its own slot:
/// the producer's and the consumers' copies run in different threads.
struct PipelineBaseOpConversion : OpConversionPattern<PipelineBaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelineBaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Block &entry = op->getParentOfType<func::FuncOp>().getBody().front();
    Value slot;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&entry);
      slot = LLVM::AllocaOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()), i32,
          i32Constant(rewriter, loc, 1));
      LLVM::StoreOp::create(rewriter, loc, i32Constant(rewriter, loc, 0), slot);
    }
    Value base = LLVM::LoadOp::create(rewriter, loc, i32, slot);
    // cdiv(upper - lower, step) trips when upper > lower, else none.
    Value span = LLVM::SubOp::create(rewriter, loc, adaptor.getUpper(),
                                     adaptor.getLower());
    Value stepMinusOne = LLVM::SubOp::create(rewriter, loc, adaptor.getStep(),
                                             i32Constant(rewriter, loc, 1));
    Value trips = LLVM::SDivOp::create(
        rewriter, loc, LLVM::AddOp::create(rewriter, loc, span, stepMinusOne),
        adaptor.getStep());
    Value entered =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sgt, span,
                             i32Constant(rewriter, loc, 0));
    trips = LLVM::SelectOp::create(rewriter, loc, entered, trips,
                                   i32Constant(rewriter, loc, 0));
    LLVM::StoreOp::create(
        rewriter, loc, LLVM::AddOp::create(rewriter, loc, base, trips), slot);
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// One elected thread prefetches the range's 16-byte-aligned part with a
/// bulk prefetch (sm_90+); older targets drop the hint.
struct PrefetchL2OpConversion : TargetPattern<PrefetchL2Op> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(PrefetchL2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!target.getGpu().hasBulkCopies()) {
      rewriter.eraseOp(op);
      return success();
    }
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), i32 = rewriter.getI32Type();
    auto constant = [&](OpBuilder &b, int64_t v) {
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
    };
    // [ptr, ptr + bytes) rounded in to 16 bytes: begin up, end down.
    Value addr = LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getPtr());
    Value bytes = LLVM::SExtOp::create(rewriter, loc, i64, adaptor.getBytes());
    Value mask = constant(rewriter, -16);
    Value begin = LLVM::AndOp::create(
        rewriter, loc,
        LLVM::AddOp::create(rewriter, loc, addr, constant(rewriter, 15)), mask);
    Value end = LLVM::AndOp::create(
        rewriter, loc, LLVM::AddOp::create(rewriter, loc, addr, bytes), mask);
    Value size = LLVM::SubOp::create(rewriter, loc, end, begin);
    Value some = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sgt,
                                      size, constant(rewriter, 0));
    auto [b, elected] = electIssuer(rewriter, loc);
    Value issues = LLVM::AndOp::create(b, loc, elected, some);
    OpBuilder issue = scf::IfOp::create(b, loc, issues, /*withElse=*/false)
                          .getThenBodyBuilder();
    auto global = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    Value src = LLVM::IntToPtrOp::create(issue, loc, global, begin);
    NVVM::CpAsyncBulkPrefetchOp::create(
        issue, loc, src, LLVM::TruncOp::create(issue, loc, i32, size),
        /*l2CacheHint=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateTmaOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                             const TargetInfo &target,
                                             RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<DescFieldsOpConversion, TmaCopyOpConversion,
               MBarrierWaitOpConversion, MBarrierArriveOpConversion,
               PipelineBaseOpConversion>(converter, context);
  patterns.add<MBarrierAllocOpConversion, ZeroRowsOpConversion,
               PrefetchL2OpConversion>(converter, context, target);
}
