//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
#ifndef TILEMLA_DIALECT_TILEDIALECT_H
#define TILEMLA_DIALECT_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilemla/Dialect/TileDialect.h.inc"
#include "tilemla/Dialect/TileEnums.h.inc"

namespace mlir::tile {
class SharedEncodingAttr;
} // namespace mlir::tile

#define GET_TYPEDEF_CLASSES
#include "tilemla/Dialect/TileTypes.h.inc"

#include "tilemla/Dialect/TileAttrInterfaces.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tilemla/Dialect/TileAttrs.h.inc"

namespace mlir::tile {
/// The wgmma groups a warp has in flight: an asynchronous tile.dot issues
/// one, tile.dot_wait retires them. Effects on it keep generic passes (CSE,
/// code motion, dead-code removal) from merging, moving or dropping the
/// groups whose waits tile-place-dot-waits counted.
struct WgmmaGroupResource
    : public SideEffects::Resource::Base<WgmmaGroupResource> {
  StringRef getName() final { return "tile::WgmmaGroup"; }
};
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "tilemla/Dialect/TileOps.h.inc"

namespace mlir::tile {
/// The most stages a pipelined loop (`tile.num_stages`, `range(...,
/// stages=S)`) may have: each holds a tile of every operand it streams in
/// shared memory.
constexpr int64_t kMaxPipelineStages = 8;
/// The distributed layout of a tensor type, or null.
DistributedLayoutAttr getLayout(Type type);
/// The warpgroup that alone holds tensors of `type` (an owned #tile.mma
/// layout, or a slice of one; pending accumulators too), or -1.
int64_t getOwningWarpgroup(Type type);
/// Registers per thread for a tensor type that carries a layout.
unsigned getTotalElemsPerThread(Type type);
/// True when `op` can run on the tensor cores with accumulator layout `mma`:
/// f16/bf16 operands (or fp8 ones, 32 deep a step: against an [N, K] b, or
/// a [K, N] one into the interleaved accumulator) and whole instruction
/// tiles per warp (mma.sync), or one 64-row tile per
/// warpgroup whose operands fit the swizzled shared layouts wgmma reads
/// (version 3, 16-bit operands).
bool isMmaCompatibleDot(DotOp op, MmaEncodingAttr mma);
/// Whether `type` (or its element type) is one of the fp8 formats the
/// language has, e4m3 or e5m2.
bool isFp8Type(Type type);
/// Whether `op` multiplies fp8 by fp8 (a and b of one fp8 format; on the
/// tensor cores, mma.sync's e4m3/e5m2 forms, sm_89+).
bool isFp8Dot(DotOp op);
/// Whether `op`'s b is fp8 codes read in place from shared memory beside a
/// 16-bit a: the dot widens them (exactly) as it reads its fragments.
bool hasCodesB(DotOp op);
/// True for a dot whose accumulator carries a #tile.mma layout it fits:
/// it runs on the tensor cores (mma.sync, or wgmma for version 3).
bool isTensorCoreDot(Operation *op);
/// True for a tensor-core dot with the warpgroup layout (wgmma, sm_90a).
bool isWarpgroupDot(Operation *op);
/// True for an mma.sync dot against fp8 codes of an [N, K] b read in place:
/// its a may be stored in the codes' k order (`evenWordsFirst`), and no
/// other reader may take a tile so stored.
bool takesCodeOrderedA(DotOp op);
/// The wgmma dots of `loop`'s body whose group may stay in flight across the
/// back edge, each with the iter_arg it is yielded to: its only use is the
/// yield, and that iter_arg's only user is a wgmma dot accumulating on it.
/// Empty unless every wgmma dot of the body accumulates on an iter_arg or on
/// another dot: ptxas serializes every wgmma of a kernel whose accumulator
/// registers other instructions read or write while a group of the previous
/// trip runs (a rescale, a zero fill).
SmallVector<std::pair<DotOp, unsigned>> getLoopCarriedDots(scf::ForOp loop);
/// The warp partition code in `block` runs on: the enclosing
/// tile.warp_specialize and whether `block` is in its producer region; a
/// null op when every warp of the program runs it.
std::pair<WarpSpecializeOp, bool> getWarpPartition(Block *block);
/// The tensor-core accumulator layout for `op` with `numWarps` warps, or null
/// when the dot does not fit the instruction. With `warpgroups` (sm_90a) a
/// dot that fits wgmma gets the version-3 layout.
MmaEncodingAttr getMmaLayoutForDot(DotOp op, unsigned numWarps,
                                   bool warpgroups = false);
/// The tensor-core layouts of the dots under `root`: dots with the same
/// number of rows share the layout of the widest one where it fits them
/// (attention's scores [M, BLOCK_N] then take the layout of its output
/// [M, R]), so their row statistics combine without conversions.
/// With `ownNarrowDots`, a wgmma dot whose columns would be split over
/// warpgroups into blocks narrower than kMinWgmmaBlockN runs on warpgroup 0
/// alone instead (an owned layout): m64n32 instructions re-read the whole
/// of a per warpgroup and run 1.6x slower than one m64n64 for the same work
/// (H200, docs/design/PINGPONG.md).
/// tile-assign-layouts applies it; earlier passes ask it what will be.
/// Whether `module`'s narrow wgmma dots run on one warpgroup: `byDefault`,
/// unless the kernel said false (`with own_narrow_dots`).
bool ownsNarrowDots(ModuleOp module, bool byDefault);
/// The warpgroup that owns `module`'s narrow dots: 0, or with `with
/// score_warpgroup = True` the one past its numWarps warps (the score role
/// of tile-split-roles).
int64_t getNarrowDotOwner(ModuleOp module, unsigned numWarps);
/// Whether `module` asks for the seesaw (`with seesaw = True`): its owned
/// work alternates between two warpgroups (tile-seesaw-pairs), which then
/// run copies of their own (tile-split-warpgroups).
bool hasSeesaw(ModuleOp module);
/// The warpgroup that alone runs `op`, an owned run (`scf.if` marked
/// tile.owner_warpgroup, tile-predicate-warpgroups), or -1 for any other op.
int64_t getRunOwner(Operation *op);
class DotLayoutPlan {
public:
  DotLayoutPlan(Operation *root, unsigned numWarps, bool warpgroups,
                bool ownNarrowDots = false, int64_t narrowDotOwner = 0);
  /// Null when the dot does not fit the tensor cores.
  MmaEncodingAttr layoutFor(DotOp dot) const;
  static constexpr int64_t kMinWgmmaBlockN = 64;

private:
  MmaEncodingAttr ownedIfNarrow(DotOp dot, MmaEncodingAttr mma) const;
  unsigned numWarps;
  bool warpgroups, ownNarrowDots;
  int64_t narrowDotOwner;
  llvm::DenseMap<int64_t, MmaEncodingAttr> rowLayouts;
};
/// The widest swizzle (128, 64 or 32 bytes) that tiles rows of `cols`
/// elements of `bits` bits, or 0 when none does.
int64_t getSwizzleFor(int64_t cols, unsigned bits);
/// The widest wgmma swizzle that tiles rows of `cols` elements of `bits`
/// bits (16: f16/bf16; 8: fp8).
inline int64_t getWgmmaSwizzle(int64_t cols, unsigned bits = 16) {
  return getSwizzleFor(cols, bits);
}
} // namespace mlir::tile

#endif
