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

Value TargetInfo::shuffleXor(OpBuilder &builder, Location loc, Value value,
                             unsigned mask) const {
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
    lo = shuffleXor(builder, loc, lo, mask);
    hi = shuffleXor(builder, loc, hi, mask);
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
  Value offset = LLVM::ConstantOp::create(builder, loc, i32, mask);
  Value clamp = LLVM::ConstantOp::create(builder, loc, i32, 0x1f);
  Value result =
      NVVM::ShflOp::create(builder, loc, word.getType(), allLanes, word, offset,
                           clamp, NVVM::ShflKind::bfly, UnitAttr());
  if (bits < 32) {
    Value narrow = LLVM::TruncOp::create(builder, loc,
                                         builder.getIntegerType(bits), result);
    return LLVM::BitcastOp::create(builder, loc, type, narrow);
  }
  if (!type.isF32())
    return LLVM::BitcastOp::create(builder, loc, type, result);
  return result;
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
  auto [split, inProducer] = getWarpPartition(builder.getInsertionBlock());
  if (!split) {
    NVVM::Barrier0Op::create(builder, loc);
    return;
  }
  // After a warp split, barrier 0 would wait for the other side: named
  // barrier 1 holds the consumer threads, 2 the producer threads.
  WarpPartition partition = getPartitionThreads(split, inProducer);
  NVVM::BarrierOp::create(builder, loc, Type(),
                          i32Constant(builder, loc, inProducer ? 2 : 1),
                          i32Constant(builder, loc, partition.threads),
                          NVVM::BarrierReductionAttr(), Value());
}

void TargetInfo::fenceAsyncProxy(OpBuilder &builder, Location loc) const {
  MLIRContext *ctx = builder.getContext();
  NVVM::FenceProxyOp::create(
      builder, loc,
      NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}
