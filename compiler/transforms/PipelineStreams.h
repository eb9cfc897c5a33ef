//===- PipelineStreams.h - tile-pipeline-loops' streams and cast tiles -*- C++
//-*-===//
//
// Internal to the transforms library: a pipelined load's stream, and what
// becomes of a tile the dots read through casts (fp8 codes): widened once
// per trip into a buffer of its own, or, with fp8-in-place, read by the
// dots as the codes that landed.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TRANSFORMS_PIPELINESTREAMS_H
#define TILEMLA_TRANSFORMS_PIPELINESTREAMS_H

#include "tilemla/Dialect/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace mlir::tile {

/// One pipelined load (a LoadOp copied with cp.async, or a DescLoadOp
/// copied with TMA): its buffer and address computation.
struct PipelineStream {
  Operation *load;
  SmallVector<Operation *> slice;
  Value buffer;
  Value barriers; // TMA only
  /// A cast tile: the casts from the load to what the dots read, and the
  /// one-stage buffer the dots read it from.
  SmallVector<Operation *> casts;
  Value converted;
  /// The dots read the landed fp8 codes themselves (fp8-in-place).
  bool codesInPlace = false;

  bool isTma() const { return isa<DescLoadOp>(load); }
  RankedTensorType getType() const {
    return cast<RankedTensorType>(load->getResult(0).getType());
  }
  /// What the dots read: the last cast's tile.
  RankedTensorType getConvertedType() const {
    return cast<RankedTensorType>(casts.back()->getResult(0).getType());
  }
  /// What the address computation starts from.
  SmallVector<Value> roots() const {
    if (auto desc = dyn_cast<DescLoadOp>(load))
      return {desc.getRow(), desc.getCol()};
    auto ptrLoad = cast<LoadOp>(load);
    SmallVector<Value> values = {ptrLoad.getPtr()};
    if (ptrLoad.getMask())
      values.push_back(ptrLoad.getMask());
    return values;
  }
};

/// The view type through which readers see one stage of `buffer`.
inline RankedTensorType viewTypeFor(RankedTensorType type,
                                    SharedBufferType buffer) {
  return RankedTensorType::get(type.getShape(), type.getElementType(),
                               buffer.getViewEncoding());
}

/// How a load reaches the tensor-core dots that read it: the elementwise
/// casts between them (empty when the dots read it directly), or nothing
/// when the load cannot be streamed through shared memory. The dots read a
/// 16-bit tile, all through one buffer layout: ldmatrix's padded rows or
/// wgmma's swizzled panels, not both. A cast tile (an fp8 tile widened to
/// bf16) is converted in registers between two buffers.
std::optional<SmallVector<Operation *>> castsToDots(LoadOp load);

/// The single-use elementwise casts that follow `value` one after another
/// (appended to `casts`), and the value the last of them gives (`value`
/// itself when none does).
Value followCasts(Value value, SmallVector<Operation *> &casts);

/// A TMA load of 8-bit codes read by wgmma dots through casts to a 16-bit
/// tile (fp8 widened to bf16 or f16): those casts, or nothing. Such a tile
/// lands in a swizzled code stage and is converted as a cp.async cast tile.
std::optional<SmallVector<Operation *>> castsToDots(DescLoadOp load);

/// The swizzle of each descriptor's tensor map, which all TMA loads of it
/// (the desc_loads tile-lower-descriptor-loads kept) share: the narrowest
/// that tiles every one of their rows.
DenseMap<Value, int64_t> tmaSwizzles(Operation *root);

/// The layout a cast tile is widened in (loaded from its buffer, cast and
/// stored): 16 bytes of the widest type a thread (8 codes for bf16), so
/// that each thread stores the cast tile as one 16-byte vector and a warp's
/// stores are contiguous. The load's own layout gives a thread 16 codes, 32
/// bytes once widened: two stores, each writing every other 16-byte chunk
/// (twice the shared-memory wavefronts). Non-blocked layouts are kept.
Attribute conversionLayout(RankedTensorType loadType,
                           ArrayRef<Operation *> casts);

/// Whether every reader of `stream`'s cast tile can take its landed fp8
/// codes instead (fp8-in-place): one widening extf, read as b by mma.sync
/// dots that are transposed or accumulate into an interleaved layout.
bool readersTakeCodes(const PipelineStream &stream);

/// The cast streams' landed tiles: the codes' own view where the stream
/// reads them in place, else each read into registers (in
/// conversionLayout's layout), cast there and written to its converted
/// buffer, then (one barrier for all) read in place by the dots. The converted
/// buffer has one stage: the dots that read it on the previous trip finished
/// before this trip's first barrier (mma.sync is done when its thread moves on;
/// tile-place-dot- waits waits for wgmma groups before the barrier ahead of a
/// store into the stage they read).
void convertLandedTiles(OpBuilder &b, Location loc,
                        MutableArrayRef<PipelineStream> streams, Value current);
void convertLandedTiles(OpBuilder &b, Location loc,
                        ArrayRef<PipelineStream *> streams, Value current);

/// Reads each stream's codes from `codeStage` of its buffer (in registers,
/// in the layout convertLandedTiles' comment gives), casts them and stores
/// the result into `convertedStage` of its converted buffer; no barrier.
void widenLandedTiles(OpBuilder &b, Location loc,
                      ArrayRef<PipelineStream *> streams, Value codeStage,
                      Value convertedStage);

/// The dots read `stream`'s tile through a view of `convertedStage` of its
/// converted buffer, made at `b`; the load and its casts go.
void readConverted(OpBuilder &b, Location loc, PipelineStream &stream,
                   Value convertedStage);

/// (index / stages) & 1: the parity of the phase a ring of `stages` stages
/// is in at trip `index` (i32).
Value stageParity(OpBuilder &b, Location loc, Value index, Value stages);

/// Waits for the copy into `stage` and zeroes its rows at or past the
/// load's row_end (`rows` of them landed: row_end - row when null).
void waitForLanding(OpBuilder &b, DescLoadOp load, Value buffer, Value barriers,
                    Value stage, Value parity, Value rows = Value());

/// Whether a pipelined loop's `streams` are widened a trip ahead for the
/// score warpgroup `scoreOwner` (0: none): all are TMA cast streams, one is
/// read by a dot of that warpgroup, and the rows each tile has can be
/// computed again for the next trip from `body`.
bool widensAhead(Block &body, ArrayRef<PipelineStream> streams,
                 int64_t scoreOwner);

/// Widening a trip ahead (PipelineLoops.cpp's header): on an entry's first
/// trip, its first tile (trip index `index`, into stage `current` of
/// `stages`), in a branch whose wait takes the trip's stage and parity
/// from outside it ...
void widenFirstTile(OpBuilder &b, Location loc, scf::ForOp loop,
                    MutableArrayRef<PipelineStream> streams, Value index,
                    Value current, Value stages);
/// ... and, when there is one, the next trip's tile into the next stage.
void widenNextTile(OpBuilder &b, Location loc, scf::ForOp loop,
                   MutableArrayRef<PipelineStream> streams, Value index,
                   Value stages);

/// The TMA cast streams among `streams`, in groups each converted where its
/// last load was, after every member's wait (one barrier a group): loads in
/// one block with nothing between them but pure, region-free ops other than
/// dots (their casts, the next load's address). Groups in program order.
SmallVector<SmallVector<PipelineStream *>>
landedCastGroups(MutableArrayRef<PipelineStream> streams);

} // namespace mlir::tile

#endif // TILEMLA_TRANSFORMS_PIPELINESTREAMS_H
