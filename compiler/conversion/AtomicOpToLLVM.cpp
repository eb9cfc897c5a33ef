//===- AtomicOpToLLVM.cpp - atomic_add and wait_flag ----------------------===//
//
// atomic_add runs once per program, in its leader thread, between two
// barriers. The first orders every thread's earlier writes before the
// leader's release fence (cumulative at GPU scope), then the add; the
// leader's acquire fence after it, and the second barrier, order every
// thread's later reads after what the programs that added before it wrote.
// The old value, where it is read, reaches the other threads through the
// exchange scratch.
// wait_flag needs no barrier: every thread reads the flag itself, with
// acquire loads, until it is high enough; a thread that reads too low sleeps
// briefly before the next read, so that waiting programs do not flood the
// memory system while the one they wait for works.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// LLVM's name for GPU scope on NVPTX (PTX `.gpu`).
constexpr llvm::StringLiteral kGpuScope = "device";

struct AtomicAddOpConversion : TargetPattern<AtomicAddOp> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // One warpgroup's region has no single leader for the program.
    if (getEnclosingOwner(op->getBlock()) >= 0)
      return op.emitError("atomic_add inside one warpgroup's region (its "
                          "operands come from a tensor only that warpgroup "
                          "holds) is not supported");
    Type i32 = rewriter.getI32Type();
    // An add whose old value nobody reads (raising a flag) needs no
    // exchange: ptxas also allocates MLA stage 1 worse around the unread
    // scratch round trip (72 spilled bytes at 64 heads).
    const bool oldValueRead = !op->use_empty();
    Value scratch =
        oldValueRead ? getExchangeScratch(rewriter, loc, op) : Value();
    // Also orders the scratch against earlier readers of its bytes.
    target.barrier(rewriter, loc);
    auto leader =
        scf::IfOp::create(rewriter, loc, isPartitionLeader(rewriter, loc),
                          /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(leader.thenBlock()->getTerminator());
      auto fence = [&] {
        LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acq_rel,
                              kGpuScope);
      };
      fence();
      Value old = LLVM::AtomicRMWOp::create(
          rewriter, loc, LLVM::AtomicBinOp::add, adaptor.getPtr(),
          adaptor.getValue(), LLVM::AtomicOrdering::monotonic, kGpuScope);
      fence();
      if (oldValueRead)
        LLVM::StoreOp::create(rewriter, loc, old, scratch);
    }
    target.barrier(rewriter, loc);
    if (!oldValueRead) {
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOp(op, LLVM::LoadOp::create(rewriter, loc, i32, scratch));
    return success();
  }
};

/// Every thread spins on its own acquire loads (no leader, no barrier).
struct WaitFlagOpConversion : TargetPattern<WaitFlagOp> {
  using TargetPattern::TargetPattern;
  LogicalResult
  matchAndRewrite(WaitFlagOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    // while (load.acquire.gpu(ptr) < value) nanosleep(kSleepNs);
    auto loop = scf::WhileOp::create(rewriter, loc, TypeRange(), ValueRange());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.createBlock(&loop.getBefore());
      Value held = LLVM::LoadOp::create(
          rewriter, loc, i32, adaptor.getPtr(), /*alignment=*/4,
          /*isVolatile=*/false, /*isNonTemporal=*/false,
          /*isInvariant=*/false, /*isInvariantGroup=*/false,
          LLVM::AtomicOrdering::acquire, kGpuScope);
      Value low = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt,
                                       held, adaptor.getValue());
      scf::ConditionOp::create(rewriter, loc, low, ValueRange());
      Block *after = rewriter.createBlock(&loop.getAfter());
      rewriter.setInsertionPointToStart(after);
      NVVM::NanosleepOp::create(rewriter, loc,
                                i32Constant(rewriter, loc, kSleepNs));
      scf::YieldOp::create(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
  /// Between reads of a flag that is not there yet.
  static constexpr int32_t kSleepNs = 64;
};
} // namespace

void mlir::tile::populateAtomicOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<AtomicAddOpConversion, WaitFlagOpConversion>(
      converter, patterns.getContext(), target);
}
