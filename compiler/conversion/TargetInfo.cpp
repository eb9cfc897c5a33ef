//===- TargetInfo.cpp - sm_80 / sm_90a specifics --------------------------===//
#include "tilemla/Conversion/TargetInfo.h"
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

std::optional<tilemla::GpuTarget>
mlir::tile::parseTargetOption(Operation *module, StringRef arch) {
  std::optional<tilemla::GpuTarget> gpu = tilemla::GpuTarget::parse(arch);
  if (!gpu)
    module->emitError() << "unknown target architecture '" << arch
                        << "' (known: " << tilemla::GpuTarget::knownNames()
                        << ")";
  return gpu;
}

/// shfl.sync of `kind` with its operand and clamp word; narrow values are
/// widened, 64-bit ones moved as two halves.
static Value shuffle(OpBuilder &builder, Location loc, Value value,
                     NVVM::ShflKind kind, unsigned operand, unsigned clamp) {
  Type type = value.getType();
  Type i32 = builder.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  // shfl.sync moves 32-bit registers: widen narrow values, split 64-bit ones.
  if (bits == 64) {
    Type i64 = builder.getI64Type();
    Value asInt = LLVM::BitcastOp::create(builder, loc, i64, value);
    Value lo = LLVM::TruncOp::create(builder, loc, i32, asInt);
    Value hi = LLVM::TruncOp::create(
        builder, loc, i32,
        LLVM::LShrOp::create(builder, loc, asInt,
                             LLVM::ConstantOp::create(builder, loc, i64, 32)));
    lo = shuffle(builder, loc, lo, kind, operand, clamp);
    hi = shuffle(builder, loc, hi, kind, operand, clamp);
    Value wide = LLVM::OrOp::create(
        builder, loc, LLVM::ZExtOp::create(builder, loc, i64, lo),
        LLVM::ShlOp::create(builder, loc,
                            LLVM::ZExtOp::create(builder, loc, i64, hi),
                            LLVM::ConstantOp::create(builder, loc, i64, 32)));
    return LLVM::BitcastOp::create(builder, loc, type, wide);
  }
  Value word = value;
  if (bits < 32) {
    Type narrowInt = builder.getIntegerType(bits);
    word = LLVM::ZExtOp::create(
        builder, loc, i32,
        LLVM::BitcastOp::create(builder, loc, narrowInt, value));
  } else if (!type.isF32()) {
    word = LLVM::BitcastOp::create(builder, loc, i32, value);
  }
  Value allLanes = LLVM::ConstantOp::create(builder, loc, i32, -1);
  Value result = NVVM::ShflOp::create(
      builder, loc, word.getType(), allLanes, word,
      LLVM::ConstantOp::create(builder, loc, i32, operand),
      LLVM::ConstantOp::create(builder, loc, i32, clamp), kind, UnitAttr());
  if (bits < 32) {
    Value narrow = LLVM::TruncOp::create(builder, loc,
                                         builder.getIntegerType(bits), result);
    return LLVM::BitcastOp::create(builder, loc, type, narrow);
  }
  if (!type.isF32())
    return LLVM::BitcastOp::create(builder, loc, type, result);
  return result;
}

Value TargetInfo::shuffleXor(OpBuilder &builder, Location loc, Value value,
                             unsigned mask) const {
  return shuffle(builder, loc, value, NVVM::ShflKind::bfly, mask, 0x1f);
}

Value TargetInfo::shuffleUp(OpBuilder &builder, Location loc, Value value,
                            unsigned delta, unsigned width) const {
  // The clamp word's bits 8..12 mask the lane index down to its group
  // (32 - width); an up shuffle's lower bound is then the group's first lane.
  return shuffle(builder, loc, value, NVVM::ShflKind::up, delta,
                 (32 - width) << 8);
}

void TargetInfo::barrier(OpBuilder &builder, Location loc) const {
  // In code only one warpgroup runs, a named barrier of its own threads
  // (ids 0..2 are the program's and the warp split's).
  if (int64_t owner = getEnclosingOwner(builder.getInsertionBlock());
      owner >= 0) {
    NVVM::BarrierOp::create(builder, loc, Type(),
                            i32Constant(builder, loc, 3 + owner),
                            i32Constant(builder, loc, kWarpgroupThreads),
                            NVVM::BarrierReductionAttr(), Value());
    return;
  }
  // With the seesaw each warpgroup runs its own copy of the code
  // (tile-split-warpgroups): the copies meet at these barriers from
  // different instructions, which an aligned barrier (bar.sync) does not
  // allow; `barrier.sync` does.
  auto module =
      builder.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  bool aligned = !module || !hasSeesaw(module);
  auto [split, inProducer] = getWarpPartition(builder.getInsertionBlock());
  if (!split) {
    if (aligned)
      NVVM::Barrier0Op::create(builder, loc);
    else
      LLVM::CallIntrinsicOp::create(
          builder, loc, builder.getStringAttr("llvm.nvvm.barrier.cta.sync.all"),
          ValueRange{i32Constant(builder, loc, 0)});
    return;
  }
  // After a warp split, barrier 0 would wait for the other side: named
  // barrier 1 holds the consumer threads, 2 the producer threads.
  WarpPartition partition = getPartitionThreads(split, inProducer);
  Value id = i32Constant(builder, loc, inProducer ? 2 : 1);
  Value threads = i32Constant(builder, loc, partition.threads);
  if (aligned)
    NVVM::BarrierOp::create(builder, loc, Type(), id, threads,
                            NVVM::BarrierReductionAttr(), Value());
  else
    LLVM::CallIntrinsicOp::create(
        builder, loc, builder.getStringAttr("llvm.nvvm.barrier.cta.sync.count"),
        ValueRange{id, threads});
}

void TargetInfo::fenceAsyncProxy(OpBuilder &builder, Location loc) const {
  MLIRContext *ctx = builder.getContext();
  NVVM::FenceProxyOp::create(
      builder, loc,
      NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}
