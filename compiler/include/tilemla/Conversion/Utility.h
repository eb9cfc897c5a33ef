//===- Utility.h - helpers shared by the lowering patterns ------*- C++ -*-===//
#ifndef TILEMLA_CONVERSION_UTILITY_H
#define TILEMLA_CONVERSION_UTILITY_H

#include "tilemla/Conversion/TargetInfo.h"
#include "tilemla/Dialect/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {
constexpr unsigned kWarpSize = 32;
/// Four consecutive warps: what a wgmma and setmaxnreg act on together.
constexpr unsigned kWarpgroupThreads = 4 * kWarpSize;
constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;
constexpr llvm::StringLiteral kSharedSymbol = "global_smem";
/// Alignment of the shared-memory base: a 128-byte swizzle repeats every
/// 1024 bytes of the address, and wgmma applies it to absolute addresses.
constexpr unsigned kSharedAlignment = 1024;

/// Converts tile-gpu types: a tensor becomes the struct of the registers one
/// thread holds, a tile pointer an LLVM global pointer.
class TileLLVMTypeConverter : public TypeConverter {
public:
  explicit TileLLVMTypeConverter(MLIRContext *context);
  /// Scalar type the registers of an element type use.
  Type convertElementType(Type type) const;
};

/// A conversion pattern that emits target instructions (barriers, fences)
/// through `target`.
template <typename SourceOp>
struct TargetPattern : OpConversionPattern<SourceOp> {
  TargetPattern(TypeConverter &converter, MLIRContext *context,
                const TargetInfo &target, PatternBenefit benefit = 1)
      : OpConversionPattern<SourceOp>(converter, context, benefit),
        target(target) {}

protected:
  const TargetInfo &target;
};

//===--------------------------------------------------------------------===//
// Registers of a tensor
//===--------------------------------------------------------------------===//

SmallVector<Value> unpackStruct(OpBuilder &builder, Location loc, Value value);
Value packStruct(OpBuilder &builder, Location loc, Type structType,
                 ValueRange values);

//===--------------------------------------------------------------------===//
// Constants and thread indices
//===--------------------------------------------------------------------===//

Value i32Constant(OpBuilder &builder, Location loc, int64_t value);
Value scalarConstant(OpBuilder &builder, Location loc, Type type,
                     Attribute value);
/// Lane and warp index of the executing thread.
std::pair<Value, Value> getLaneAndWarp(OpBuilder &builder, Location loc);
/// The executing thread's warp index, read from lane 0 so that ptxas knows
/// it is the same in every lane (a branch on it does not diverge).
Value getUniformWarpIndex(OpBuilder &builder, Location loc);

/// The threads one side of a tile.warp_specialize runs on:
/// [first, first + threads). Consumers are the program's tile.num_warps
/// warps from thread 0; producers follow them.
struct WarpPartition {
  int64_t first, threads;
};
WarpPartition getPartitionThreads(WarpSpecializeOp split, bool producer);
/// Warps per program as laid out (the module's tile.num_warps, else 4).
int64_t getProgramWarps(Operation *op);
/// True in the first thread of the warps that run the code at the builder's
/// insertion point: thread 0, or a warp split's first producer thread.
Value isPartitionLeader(OpBuilder &builder, Location loc);
/// The executing thread's warpgroup (thread index / 128).
Value emitWarpgroupId(OpBuilder &builder, Location loc);
/// Emits `body` (writes of a tensor of `type` from registers) so that only
/// threads holding its values run it: under a branch on the owner for an
/// owned layout, in place otherwise.
void emitByHolders(OpBuilder &builder, Location loc, Type type,
                   function_ref<void()> body);
/// The warpgroup that alone runs `block` (inside an scf.if marked
/// tile.owner_warpgroup), or -1.
int64_t getEnclosingOwner(Block *block);

//===--------------------------------------------------------------------===//
// Layouts: which thread holds which element
//===--------------------------------------------------------------------===//

/// A distributed layout reduced to its blocked root: `shape` is the root's
/// shape and `dims[i]` the root dimension of tensor dimension i. A wgmma
/// accumulator root (`warpgroup`) has the register counts of `blocked` but
/// places warps and repeats as MmaEncodingAttr version 3 says.
struct ResolvedLayout {
  BlockedEncodingAttr blocked;
  MmaEncodingAttr warpgroup;
  SmallVector<int64_t> shape;
  SmallVector<unsigned> dims;
};
ResolvedLayout resolveLayout(RankedTensorType type);

/// Whether every thread holds the same elements of `a` and `b` in the same
/// registers (a row slice of the interleaved and of the plain mma layout):
/// converting between them moves nothing.
bool haveSameRegisterMap(RankedTensorType a, RankedTensorType b);

/// Static part of each register's coordinates: `[register][dim]`.
SmallVector<SmallVector<int64_t>> getRegisterOffsets(RankedTensorType type);

/// Runtime part of the coordinates (the same for all registers of a thread):
/// coordinate = base[dim] + offsets[register][dim].
SmallVector<Value> emitBaseCoords(OpBuilder &builder, Location loc,
                                  RankedTensorType type, Value lane,
                                  Value warp);

/// Lane-id bits whose change moves the coordinate along `dim` (lanes that
/// differ only in other bits along this dim hold replicas).
unsigned getDistinctLaneMask(RankedTensorType type, unsigned dim);
/// Number of warps holding distinct coordinates along `dim`, and the warp's
/// index among them.
unsigned getDistinctWarpCount(RankedTensorType type, unsigned dim);
Value emitWarpIndexAlong(OpBuilder &builder, Location loc,
                         RankedTensorType type, unsigned dim, Value warp);

/// Whether this thread holds the first copy of its elements (i1), where a
/// blocked layout repeats a tensor smaller than its threads' extent (lanes
/// or warps past the size along a dimension hold copies); null when no
/// thread repeats another (or for wgmma accumulators). A write to shared
/// memory by every copy would be a race of equal values.
Value emitIsFirstHolder(OpBuilder &builder, Location loc, RankedTensorType type,
                        Value lane, Value warp);
/// Most elements a layout conversion picks from a thread's own registers
/// (a select chain per destination register) instead of shared memory.
constexpr int64_t kMaxRegisterPickElements = 16;
/// For a small tensor that every thread holds whole (one smaller than its
/// layout's first thread's share: a few rows' statistics), the register
/// holding each row-major element; empty otherwise, and for owned and
/// wgmma-accumulator layouts.
SmallVector<unsigned> getWholeTensorRegisters(RankedTensorType type);
/// Whether `op` moves its tensor without shared memory: every thread
/// already holds all of it and picks what the new layout gives it.
bool convertsInRegisters(ConvertLayoutOp op);
/// Row-major linear index of each register's element: base + offsets[r].
std::pair<Value, SmallVector<int64_t>>
emitLinearIndices(OpBuilder &builder, Location loc, RankedTensorType type,
                  ArrayRef<int64_t> strides, Value lane, Value warp);
SmallVector<int64_t> getRowMajorStrides(ArrayRef<int64_t> shape);
/// Element `first + offsets[r]` of `elemType` at the shared `base`, for each
/// register r: its value stored there, or loaded from there.
void storeSharedElements(OpBuilder &builder, Location loc, Value base,
                         Type elemType, Value first, ArrayRef<int64_t> offsets,
                         ArrayRef<Value> values);
SmallVector<Value> loadSharedElements(OpBuilder &builder, Location loc,
                                      Value base, Type elemType, Value first,
                                      ArrayRef<int64_t> offsets);

//===--------------------------------------------------------------------===//
// Shared memory
//===--------------------------------------------------------------------===//

/// Base of the program's dynamic shared memory, as `!llvm.ptr<3>`.
Value getSharedBase(OpBuilder &builder, Location loc, Operation *op);
/// Where reductions and layout conversions exchange values: their own region
/// (`tile.reduce_offset`) when tile-allocate-shared placed one, else the
/// common scratch.
Value getExchangeScratch(OpBuilder &builder, Location loc, Operation *op);
/// Whether `op` exchanges values through that scratch (reductions, scans,
/// layout conversions, atomic_add's old value).
bool usesExchangeScratch(Operation *op);
/// Address of element `index` of `elemType` in the scratch at `base`.
Value sharedElementPtr(OpBuilder &builder, Location loc, Value base,
                       Type elemType, Value index);
/// The first element of stage `stage` of `buffer` (a `!tile.smem` lowered
/// to its base pointer), addressed in elements of `elemType`.
Value stageBase(OpBuilder &builder, Location loc, Value buffer,
                SharedBufferType type, Value stage, Type elemType);
/// `lhs` combined with `rhs` as a reduction or scan of `kind` combines
/// elements (float max / min propagate NaN).
Value emitCombine(OpBuilder &builder, Location loc, ReduceKind kind, Value lhs,
                  Value rhs);
/// Bytes one element of `type` takes in shared memory.
unsigned getSharedElementBytes(Type elemType);
/// Scratch bytes the op needs while it runs, 0 if none.
unsigned getScratchBytes(Operation *op);
/// Index, in a row-major tile of `rowStride` elements per row, of the
/// element the thread's register 0 of 2-D `type` holds.
Value emitRowMajorBase(OpBuilder &builder, Location loc, RankedTensorType type,
                       int64_t rowStride, Value lane, Value warp);
/// True for a tensor read in place from shared memory (`#tile.shared`).
inline bool isSharedView(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa_and_nonnull<SharedEncodingAttr>(type.getEncoding());
}
/// How a 2-D tile sits in shared memory: row-major with `rowStride`
/// elements per row (swizzle 0; with `evenWordsFirst`, each 16-column block
/// by words, even ones first), or in `swizzle`-byte panels of `rows` rows
/// (see SharedBufferType).
struct SharedTileLayout {
  int64_t rows, rowStride, swizzle;
  bool evenWordsFirst = false;
  static SharedTileLayout of(SharedBufferType type) {
    return {type.getRows(), type.getRowStride(), type.getSwizzle(),
            type.getEvenWordsFirst()};
  }
  /// Panels `swizzle` bytes wide for elements of `bits` bits.
  static SharedTileLayout swizzled(int64_t rows, int64_t swizzle,
                                   unsigned bits = 16) {
    return {rows, swizzle * 8 / bits, swizzle};
  }
  /// Whether an element's place is not its row-major index.
  bool isPermuted() const { return swizzle || evenWordsFirst; }
};
/// Element index of (row, col) in a tile laid out as `layout`.
Value emitSharedIndex(OpBuilder &builder, Location loc,
                      const SharedTileLayout &layout, Value row, Value col);
/// Element indices, in a tile laid out as `layout`, of the registers of a
/// 2-D tensor of `type`: the thread's part is computed once, each register
/// adds its static offsets (getRegisterOffsets).
class SharedTileIndexer {
public:
  SharedTileIndexer(OpBuilder &builder, Location loc, RankedTensorType type,
                    const SharedTileLayout &layout, Value lane, Value warp);
  Value index(OpBuilder &builder, Location loc,
              ArrayRef<int64_t> offsets) const;

private:
  SharedTileLayout layout;
  Value linearBase;              // row-major: index of (0, 0)
  SmallVector<Value> baseCoords; // permuted: the thread's coordinates
};
/// Writes a 2-D tensor's registers into shared memory at `base`, laid out as
/// `layout`; contiguous register runs are stored as vectors of up to 16
/// bytes (a swizzle moves whole 16-byte chunks, so runs stay contiguous).
void stageTile(OpBuilder &builder, Location loc, RankedTensorType type,
               ArrayRef<Value> values, Value base,
               const SharedTileLayout &layout, Value lane, Value warp);
/// The registers of a 2-D tensor of `type` read from a tile laid out as
/// `layout` at `base` (stageTile's inverse, with the same vectors).
SmallVector<Value> readStagedTile(OpBuilder &builder, Location loc,
                                  RankedTensorType type, Type elemType,
                                  Value base, const SharedTileLayout &layout,
                                  Value lane, Value warp);
/// stageTile, row-major with `rowStride` elements per row.
inline void stageRowMajor(OpBuilder &builder, Location loc,
                          RankedTensorType type, ArrayRef<Value> values,
                          Value base, int64_t rowStride, Value lane,
                          Value warp) {
  stageTile(builder, loc, type, values, base, {0, rowStride, 0}, lane, warp);
}

//===--------------------------------------------------------------------===//
// Tensor cores
//===--------------------------------------------------------------------===//

/// Shared memory the mma.sync lowering stages a in (part of the common
/// scratch) and b in (its own region at `tile.dot_b_offset`).
unsigned getMmaDotStagedABytes(DotOp op);
unsigned getMmaDotStagedBBytes(DotOp op);

//===--------------------------------------------------------------------===//
// Patterns, one op family per file
//===--------------------------------------------------------------------===//

void populateProgramIdOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                       const TargetInfo &target,
                                       RewritePatternSet &patterns);
void populateMakeRangeOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateViewOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                  RewritePatternSet &patterns);
void populateLoadStoreOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateAtomicOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                    const TargetInfo &target,
                                    RewritePatternSet &patterns);
void populateElementwiseOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                         RewritePatternSet &patterns);
/// arith.extf from fp8 (e4m3, e5m2) and arith.truncf to it (paired cvt on
/// sm_89+).
void populateFp8ConvertOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                        const TargetInfo &target,
                                        RewritePatternSet &patterns);
void populateReduceOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                    const TargetInfo &target,
                                    RewritePatternSet &patterns);
void populateScanOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                  const TargetInfo &target,
                                  RewritePatternSet &patterns);
void populateConvertLayoutOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                           const TargetInfo &target,
                                           RewritePatternSet &patterns);
void populateDotOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                 const TargetInfo &target,
                                 RewritePatternSet &patterns);
void populateMmaDotOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                    const TargetInfo &target,
                                    RewritePatternSet &patterns);
void populateWgmmaDotOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                      const TargetInfo &target,
                                      RewritePatternSet &patterns);
void populateSharedMemoryOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                          const TargetInfo &target,
                                          RewritePatternSet &patterns);
/// Tensor-descriptor fields, mbarriers, TMA copies and row zeroing.
void populateTmaOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                 const TargetInfo &target,
                                 RewritePatternSet &patterns);
/// tile.warpgroup_id, and ub.poison (what a warpgroup holds of a tensor
/// another warpgroup owns).
void populateWarpgroupOpToLLVMPatterns(TileLLVMTypeConverter &converter,
                                       RewritePatternSet &patterns);
/// tile.warp_specialize as a branch between its regions (run with the
/// structured control flow lowering, after the regions' ops are lowered).
void populateWarpSpecializeOpToLLVMPatterns(RewritePatternSet &patterns);
/// Scalar math (exp, log, ...) on NVPTX's approximate special functions;
/// f32 division as div.full.f32.
void populateMathToNVVMPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);
} // namespace mlir::tile

#endif
