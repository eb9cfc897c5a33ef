//===- WgmmaDotOpToLLVM.cpp - dot on the Hopper warpgroup tensor cores ----===//
//
// f16/bf16 dots whose accumulator carries the version 3 #tile.mma layout run
// on wgmma.mma_async.m64nNk16 (sm_90a), fp8 dots (e4m3 or e5m2, both
// operands one format, b transposed) on m64nNk32. Each warpgroup (four
// consecutive warps) computes one 64-row block of M against its block of N
// columns; both operands are read from shared memory through matrix
// descriptors, in the swizzled panel layout of SharedBufferType:
//   - a [M, K] and a transposed b ([N, K]) are K-major: 8-row groups are
//     8 * W bytes apart (SBO), a k step (16 elements of 16 bits, 32 of 8)
//     is 32 bytes within a panel row;
//   - a [K, N] b is N-major (transposed by the instruction): panels along N
//     are the panel stride apart (LBO), 8-row groups along K 8 * W (SBO).
// Operands in registers are first written there (the a scratch, the b
// region), then fenced for the async proxy. The accumulator's registers are
// exactly the instruction's D fragments (see MmaEncodingAttr), reordered.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/TargetInfo.h"
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// A wgmma operand in shared memory: its first element and layout.
struct SharedOperand {
  Value base;      // !llvm.ptr<3>
  int64_t swizzle; // bytes per panel row
  int64_t panelBytes;
};

/// The descriptor mode field for a swizzle width (PTX: 1 = 128B, 2 = 64B,
/// 3 = 32B).
uint64_t swizzleMode(int64_t swizzle) {
  return swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
}

/// `text` as one inline asm statement with side effects through which the
/// registers `values` pass, tied ("=f" outputs matched to the inputs): code
/// that writes them stays before it, code that reads the results after it,
/// and no copy of them is made around it. Returns the values after it.
SmallVector<Value> tiedRegisterAsm(OpBuilder &b, Location loc, StringRef text,
                                   ArrayRef<Value> values) {
  if (values.empty()) {
    LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{}, text, "",
                              /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              /*asm_dialect=*/nullptr,
                              /*operand_attrs=*/nullptr);
    return {};
  }
  std::string constraints;
  llvm::raw_string_ostream os(constraints);
  SmallVector<Type> types;
  for (auto [i, value] : llvm::enumerate(values)) {
    os << (i ? "," : "") << (value.getType().isF32() ? "=f" : "=r");
    types.push_back(value.getType());
  }
  for (size_t i = 0; i < values.size(); ++i)
    os << "," << i;
  Type resultType =
      types.size() == 1
          ? types.front()
          : LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto statement = LLVM::InlineAsmOp::create(
      b, loc, resultType, values, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
      /*operand_attrs=*/nullptr);
  if (types.size() == 1)
    return {statement.getResult(0)};
  return unpackStruct(b, loc, statement.getResult(0));
}

/// Benefit 2: tried before the FMA dot lowering.
struct WgmmaDotOpConversion : TargetPattern<DotOp> {
  WgmmaDotOpConversion(TypeConverter &converter, MLIRContext *context,
                       const TargetInfo &target)
      : TargetPattern(converter, context, target, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto mma = dyn_cast_or_null<MmaEncodingAttr>(op.getAccType().getEncoding());
    if (!mma || !mma.isWarpgroup())
      return rewriter.notifyMatchFailure(op, "not a wgmma dot");
    if (!isMmaCompatibleDot(op, mma))
      return op.emitOpError("does not fit the wgmma layout ") << mma;
    if (!target.getGpu().hasWgmma())
      return op.emitOpError("wgmma needs sm_90a; the target is ")
             << target.getGpu().name();
    Location loc = op.getLoc();
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType(),
                     accType = op.getAccType();
    bool transB = op.getTransB();
    int64_t n = accType.getDimSize(1), k = aType.getDimSize(1);
    int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
    int64_t blockN = n / wn;

    Value warp = getLaneAndWarp(rewriter, loc).second;
    auto constant = [&](int64_t v) { return i32Constant(rewriter, loc, v); };
    // Warps are numbered along M first: warp = warpM + wm * warpN.
    Value warpM = LLVM::AndOp::create(rewriter, loc, warp, constant(wm - 1));
    Value warpN = LLVM::AndOp::create(
        rewriter, loc,
        LLVM::LShrOp::create(rewriter, loc, warp, constant(llvm::Log2_64(wm))),
        constant(wn - 1));
    Value mBlock = LLVM::LShrOp::create(rewriter, loc, warpM, constant(2));

    FailureOr<SharedOperand> a = sharedOperand(
        rewriter, loc, op, op.getA(), adaptor.getA(), /*bOperand=*/false);
    FailureOr<SharedOperand> b = sharedOperand(
        rewriter, loc, op, op.getB(), adaptor.getB(), /*bOperand=*/true);
    if (failed(a) || failed(b))
      return failure();

    // The warpgroup's first row of a (64 rows per block of M) and first
    // column (transposed b: row) of b.
    Value aStart = add(rewriter, loc, a->base,
                       mul(rewriter, loc, mBlock, 64 * a->swizzle));
    Value bStart;
    if (transB) {
      bStart = add(rewriter, loc, b->base,
                   mul(rewriter, loc, warpN, blockN * b->swizzle));
    } else {
      int64_t panelsPerBlock = blockN / (b->swizzle / 2);
      bStart = add(rewriter, loc, b->base,
                   mul(rewriter, loc, warpN, panelsPerBlock * b->panelBytes));
    }

    MLIRContext *ctx = rewriter.getContext();
    Type f32 = rewriter.getF32Type();
    int64_t fragments = blockN / 2; // f32 registers per thread
    Type fragmentStruct = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(fragments, f32));
    // Our register order: row half h outer, then the warp's columns; the
    // instruction's: 8-column tile j, then row half, then column pair.
    SmallVector<Value> acc = unpackStruct(rewriter, loc, adaptor.getAcc());
    auto fragmentIndex = [&](int64_t reg) {
      int64_t h = reg / (2 * (blockN / 8)), col = reg % (2 * (blockN / 8));
      return 4 * (col / 2) + 2 * h + col % 2;
    };
    SmallVector<Value> ordered(fragments);
    for (int64_t reg = 0; reg < fragments; ++reg)
      ordered[fragmentIndex(reg)] = acc[reg];
    // The fence orders every earlier write of the accumulator registers
    // before the wgmma reads them; tying them through it keeps LLVM from
    // sinking such writes (a zero fill, a rescale) below it, which would
    // make ptxas serialize the whole pipeline. An accumulator still pending
    // from the group of a dot just before this one (same block, no copy of
    // its registers between: not a loop-carried value) was written by
    // wgmma alone, of the same shape (its type is this one's), which PTX
    // orders without a fence; a fence reading its registers would wait for
    // that group to complete (MLA's two score dots: about 7 % of the score
    // warps' time).
    auto previous = op.getAcc().getDefiningOp<DotOp>();
    if (!previous || !previous.isAsync() ||
        previous->getBlock() != op->getBlock())
      ordered =
          tiedRegisterAsm(rewriter, loc, "wgmma.fence.sync.aligned;", ordered);
    Value fragment = packStruct(rewriter, loc, fragmentStruct, ordered);

    Type element = aType.getElementType();
    auto inType = NVVM::WGMMATypesAttr::get(
        ctx, element.isBF16()                 ? NVVM::WGMMATypes::bf16
             : element.isF16()                ? NVVM::WGMMATypes::f16
             : isa<Float8E4M3FNType>(element) ? NVVM::WGMMATypes::e4m3
                                              : NVVM::WGMMATypes::e5m2);
    // A k step is 32 bytes of each operand's rows.
    int64_t kStep = 256 / element.getIntOrFloatBitWidth();
    auto f32Type = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
    auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    auto accumulate =
        NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one);
    auto rowMajor = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
    // For b, "col" is the instruction's K-major form, "row" the transposed.
    auto bLayout = NVVM::MMALayoutAttr::get(ctx, transB ? NVVM::MMALayout::col
                                                        : NVVM::MMALayout::row);
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, blockN, kStep);

    // K-major operands: LBO unused, SBO = one 8-row group. N-major b: LBO =
    // the next panel along N, SBO = one 8-row group along K.
    auto aDescriptor = descriptorBits(16, 8 * a->swizzle, a->swizzle);
    auto bDescriptor =
        descriptorBits(transB ? 16 : b->panelBytes, 8 * b->swizzle, b->swizzle);
    for (int64_t step = 0; step < k / kStep; ++step) {
      Value aAddress =
          add(rewriter, loc, aStart, kMajorOffset(rewriter, loc, *a, step));
      Value bAddress = add(rewriter, loc, bStart,
                           transB ? kMajorOffset(rewriter, loc, *b, step)
                                  : constant(step * 16 * b->swizzle));
      fragment = NVVM::WgmmaMmaAsyncOp::create(
          rewriter, loc, fragmentStruct, fragment,
          descriptor(rewriter, loc, aAddress, aDescriptor),
          descriptor(rewriter, loc, bAddress, bDescriptor), shape, inType,
          inType, f32Type, accumulate, one, one, rowMajor, bLayout,
          /*satfinite=*/nullptr);
    }
    // One group per dot. An asynchronous dot leaves it in flight: a
    // tile.dot_wait hands out its registers.
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    if (!op.isAsync())
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);

    SmallVector<Value> done = unpackStruct(rewriter, loc, fragment);
    for (int64_t reg = 0; reg < fragments; ++reg)
      acc[reg] = done[fragmentIndex(reg)];
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), acc));
    return success();
  }

private:
  /// The fixed bits of a descriptor (offsets, swizzle mode) as the two
  /// 32-bit halves; the start address is or-ed into the low half per step.
  static std::pair<uint32_t, uint32_t>
  descriptorBits(int64_t leadingBytes, int64_t strideBytes, int64_t swizzle) {
    uint32_t low = uint32_t((leadingBytes >> 4) & 0x3fff) << 16;
    uint32_t high = uint32_t((strideBytes >> 4) & 0x3fff) |
                    uint32_t(swizzleMode(swizzle) << 30);
    return {low, high};
  }

  static Value descriptor(OpBuilder &b, Location loc, Value address,
                          std::pair<uint32_t, uint32_t> bits) {
    Value start = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, address, i32Constant(b, loc, 4)),
        i32Constant(b, loc, 0x3fff));
    Value low = LLVM::OrOp::create(b, loc, start,
                                   i32Constant(b, loc, int32_t(bits.first)));
    Type i64 = b.getI64Type();
    uint64_t high = uint64_t(bits.second) << 32;
    return LLVM::OrOp::create(
        b, loc, LLVM::ZExtOp::create(b, loc, i64, low),
        LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(high)));
  }

  /// Byte offset of k step `step` (32 bytes of a row) in a K-major operand:
  /// the panel it falls in, then 32 bytes per step within the panel row.
  static Value kMajorOffset(OpBuilder &b, Location loc,
                            const SharedOperand &operand, int64_t step) {
    int64_t perPanel = operand.swizzle / 32;
    return i32Constant(b, loc,
                       (step / perPanel) * operand.panelBytes +
                           (step % perPanel) * 32);
  }

  static Value add(OpBuilder &b, Location loc, Value x, Value y) {
    return LLVM::AddOp::create(b, loc, x, y);
  }
  static Value mul(OpBuilder &b, Location loc, Value x, int64_t c) {
    return LLVM::MulOp::create(b, loc, x, i32Constant(b, loc, c));
  }

  /// The shared-memory address (as i32) and layout of operand `value`:
  /// a view is read where it is; registers are written to the a scratch or
  /// the b region in the swizzled layout first.
  FailureOr<SharedOperand> sharedOperand(ConversionPatternRewriter &rewriter,
                                         Location loc, DotOp op, Value value,
                                         Value converted, bool bOperand) const {
    auto type = cast<RankedTensorType>(value.getType());
    Type i32 = rewriter.getI32Type();
    if (auto shared = dyn_cast<SharedEncodingAttr>(type.getEncoding())) {
      if (!shared.getSwizzle())
        return op.emitOpError("wgmma reads swizzled shared memory; operand ")
               << (bOperand ? "b" : "a") << " is " << shared;
      int64_t elemBytes = getSharedElementBytes(type.getElementType());
      return SharedOperand{
          LLVM::PtrToIntOp::create(rewriter, loc, i32, converted),
          shared.getSwizzle(), shared.getRowStride() * elemBytes};
    }
    Value base = getSharedBase(rewriter, loc, op);
    if (bOperand) {
      auto offset = op->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
          TileDialect::DotBOffsetAttrHelper::getNameStr());
      if (!offset)
        return op.emitOpError(
            "needs tile-allocate-shared to place its operands");
      base = sharedElementPtr(rewriter, loc, base, rewriter.getI8Type(),
                              i32Constant(rewriter, loc, offset.getInt()));
    }
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    unsigned bits = type.getElementTypeBitWidth();
    SharedTileLayout layout =
        SharedTileLayout::swizzled(rows, getWgmmaSwizzle(cols, bits), bits);
    if (!bOperand ||
        !op->hasAttr(TileDialect::ReuseStagedBAttrHelper::getNameStr())) {
      // Named values, not a structured binding: a lambda captures them.
      auto [laneValue, warpValue] = getLaneAndWarp(rewriter, loc);
      Value lane = laneValue, warp = warpValue;
      // Earlier readers of the region are done, unless barriers already
      // order them (tile-elide-scratch-barriers; the mark is for the dot's
      // first staging: a, or b when a is read in place).
      bool ordered =
          op->hasAttr(TileDialect::ScratchOrderedAttrHelper::getNameStr()) &&
          (!bOperand || isSharedView(op.getA()));
      if (!ordered)
        target.barrier(rewriter, loc);
      emitByHolders(rewriter, loc, type, [&] {
        stageTile(rewriter, loc, type, unpackStruct(rewriter, loc, converted),
                  base, layout, lane, warp);
      });
      target.fenceAsyncProxy(rewriter, loc);
      target.barrier(rewriter, loc);
    }
    return SharedOperand{LLVM::PtrToIntOp::create(rewriter, loc, i32, base),
                         layout.swizzle, rows * layout.swizzle};
  }
};
/// wgmma.wait_group with every register of the awaited accumulators tied
/// through it (outputs "=f" matched to the inputs): their readers depend on
/// the wait through the data, so neither LLVM nor ptxas can move a read
/// above it, and the registers are not copied while the tensor cores may
/// still write them.
struct DotWaitOpConversion : OpConversionPattern<DotWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> registers;
    SmallVector<size_t> counts;
    for (Value input : adaptor.getInputs()) {
      SmallVector<Value> values = unpackStruct(rewriter, loc, input);
      counts.push_back(values.size());
      llvm::append_range(registers, values);
    }
    SmallVector<Value> waited = tiedRegisterAsm(
        rewriter, loc,
        ("wgmma.wait_group.sync.aligned " + llvm::Twine(op.getPending()) + ";")
            .str(),
        registers);
    SmallVector<Value> results;
    size_t next = 0;
    for (auto [result, count] : llvm::zip(op.getResults(), counts)) {
      results.push_back(packStruct(
          rewriter, loc, getTypeConverter()->convertType(result.getType()),
          ArrayRef<Value>(waited).slice(next, count)));
      next += count;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// No group is in flight: the registers are the tensor's.
struct AsPendingOpConversion : OpConversionPattern<AsPendingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AsPendingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};
} // namespace

void mlir::tile::populateWgmmaDotOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<WgmmaDotOpConversion>(converter, patterns.getContext(), target);
  patterns.add<DotWaitOpConversion, AsPendingOpConversion>(
      converter, patterns.getContext());
}
