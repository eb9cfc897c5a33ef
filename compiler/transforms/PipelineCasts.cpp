//===- PipelineCasts.cpp - tile-pipeline-loops' cast tiles ----------------===//
#include "PipelineSlices.h"
#include "PipelineStreams.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// A 2-D register tile whose masked-off elements are zero (cp.async
/// zero-fills them).
bool isCopyable(LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2 || !getLayout(type) ||
      load.getResult().use_empty())
    return false;
  return !load.getOther() || matchPattern(load.getOther(), m_AnyZeroFloat());
}

/// The dots read a view of the landed codes; the cast and the load go.
void handOverCodes(OpBuilder &b, Location loc, PipelineStream &stream,
                   Value current) {
  auto bufferType = cast<SharedBufferType>(stream.buffer.getType());
  Value view =
      LocalViewOp::create(b, loc, viewTypeFor(stream.getType(), bufferType),
                          stream.buffer, current, 0);
  stream.casts.front()->getResult(0).replaceAllUsesWith(view);
  stream.casts.front()->erase();
  stream.load->erase();
  stream.casts.clear();
}
} // namespace

Value tile::followCasts(Value value, SmallVector<Operation *> &casts) {
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (!isa<CastOpInterface>(user) ||
        !user->hasTrait<OpTrait::Elementwise>() || user->getNumOperands() != 1)
      break;
    casts.push_back(user);
    value = user->getResult(0);
  }
  return value;
}

std::optional<SmallVector<Operation *>> tile::castsToDots(DescLoadOp load) {
  SmallVector<Operation *> casts;
  Value value = followCasts(load.getResult(), casts);
  auto type = cast<RankedTensorType>(value.getType());
  if (casts.empty() || load.getType().getElementTypeBitWidth() != 8 ||
      type.getElementTypeBitWidth() != 16 || value.use_empty() ||
      !llvm::all_of(value.getUsers(), isWarpgroupDot))
    return std::nullopt;
  return casts;
}

DenseMap<Value, int64_t> tile::tmaSwizzles(Operation *root) {
  DenseMap<Value, int64_t> swizzles;
  root->walk([&](DescLoadOp load) {
    int64_t swizzle = getSwizzleFor(load.getType().getDimSize(1),
                                    load.getType().getElementTypeBitWidth());
    auto [it, inserted] = swizzles.try_emplace(load.getDesc(), swizzle);
    it->second = std::min(it->second, swizzle);
  });
  return swizzles;
}

std::optional<SmallVector<Operation *>> tile::castsToDots(LoadOp load) {
  if (!isCopyable(load))
    return std::nullopt;
  SmallVector<Operation *> casts;
  Value value = followCasts(load.getResult(), casts);
  // 16-bit tiles, or fp8 ones read as they are (by fp8 x fp8 dots).
  auto type = cast<RankedTensorType>(value.getType());
  if ((type.getElementType().getIntOrFloatBitWidth() != 16 &&
       !isFp8Type(type)) ||
      !llvm::all_of(value.getUsers(), isTensorCoreDot))
    return std::nullopt;
  if (llvm::any_of(value.getUsers(), isWarpgroupDot) &&
      !llvm::all_of(value.getUsers(), isWarpgroupDot))
    return std::nullopt;
  return casts;
}

Attribute tile::conversionLayout(RankedTensorType loadType,
                                 ArrayRef<Operation *> casts) {
  auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(loadType.getEncoding());
  if (!blocked)
    return loadType.getEncoding();
  unsigned widest = loadType.getElementType().getIntOrFloatBitWidth();
  for (Operation *op : casts)
    widest = std::max(widest, cast<RankedTensorType>(op->getResult(0).getType())
                                  .getElementType()
                                  .getIntOrFloatBitWidth());
  unsigned width = std::max(1u, 128 / widest);
  if (blocked.getSizePerThread().back() <= width)
    return blocked;
  unsigned warps = 1;
  for (unsigned w : blocked.getWarpsPerCTA())
    warps *= w;
  return BlockedEncodingAttr::getDefault(loadType.getContext(),
                                         loadType.getShape(), warps, width);
}

/// The layout TMA-landed codes are widened in: 16 bytes of codes a thread
/// (one swizzle chunk; fewer when the tile has too few for every thread), a
/// warp's lanes along the rows of one panel (whole rows where 32 lanes
/// cover one) and its warps down the rows first. A warp's reads then cover
/// whole panel rows, and so do its stores into the converted buffer's panels:
/// every bank once per 128 bytes. Otherwise (columns that do not tile, a
/// non-blocked load) conversionLayout's.
static Attribute landedConversionLayout(const PipelineStream &stream) {
  RankedTensorType type = stream.getType();
  auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(type.getEncoding());
  auto buffer = cast<SharedBufferType>(stream.buffer.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  if (!blocked || !buffer.getSwizzle() || elemBytes == 0)
    return conversionLayout(type, stream.casts);
  int64_t warps = 1;
  for (unsigned w : blocked.getWarpsPerCTA())
    warps *= w;
  int64_t panel = buffer.getSwizzle() / elemBytes;
  int64_t perThread = llvm::bit_floor(static_cast<uint64_t>(
      std::min<int64_t>({16 / elemBytes, panel, rows * cols / (32 * warps)})));
  int64_t lanesAlong =
      perThread > 0 ? std::min<int64_t>(32, panel / perThread) : 0;
  if (lanesAlong == 0 || cols % panel != 0 || rows % (32 / lanesAlong) != 0)
    return conversionLayout(type, stream.casts);
  int64_t lanesDown = 32 / lanesAlong;
  int64_t warpsDown = std::min<int64_t>(warps, rows / lanesDown);
  int64_t warpsAlong = warps / warpsDown;
  if (warpsDown * warpsAlong != warps || rows % (lanesDown * warpsDown) != 0 ||
      cols % (perThread * lanesAlong * warpsAlong) != 0)
    return conversionLayout(type, stream.casts);
  auto u = [](int64_t v) { return static_cast<unsigned>(v); };
  return BlockedEncodingAttr::get(type.getContext(), {1, u(perThread)},
                                  {u(lanesDown), u(lanesAlong)},
                                  {u(warpsDown), u(warpsAlong)});
}

bool tile::readersTakeCodes(const PipelineStream &stream) {
  auto widen = dyn_cast<arith::ExtFOp>(stream.casts.front());
  if (stream.casts.size() != 1 || !widen || !isFp8Type(stream.getType()))
    return false;
  return llvm::all_of(widen->getUses(), [](OpOperand &use) {
    auto dot = dyn_cast<DotOp>(use.getOwner());
    if (!dot || use.getOperandNumber() != 1 || !isTensorCoreDot(dot) ||
        isWarpgroupDot(dot))
      return false;
    auto mma = cast<MmaEncodingAttr>(dot.getAccType().getEncoding());
    return dot.getTransB() || mma.isInterleaved();
  });
}

/// Whether `op`, found between two TMA cast loads, lets them convert
/// together: no memory effects, no regions, no dot (which would read a
/// converted tile before its barrier).
static bool passesBetweenLoads(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) && !isa<DotOp>(op);
}

SmallVector<SmallVector<PipelineStream *>>
tile::landedCastGroups(MutableArrayRef<PipelineStream> streams) {
  SmallVector<PipelineStream *> landed;
  for (PipelineStream &stream : streams)
    if (stream.isTma() && !stream.casts.empty())
      landed.push_back(&stream);
  llvm::sort(landed, [](PipelineStream *x, PipelineStream *y) {
    Block *bx = x->load->getBlock(), *by = y->load->getBlock();
    return bx == by ? x->load->isBeforeInBlock(y->load) : bx < by;
  });
  SmallVector<SmallVector<PipelineStream *>> groups;
  for (PipelineStream *stream : landed) {
    bool joins = false;
    if (!groups.empty()) {
      Operation *previous = groups.back().back()->load;
      if (previous->getBlock() == stream->load->getBlock()) {
        joins = true;
        for (Operation *op = previous->getNextNode(); op != stream->load;
             op = op->getNextNode())
          joins &= passesBetweenLoads(op);
      }
    }
    if (joins)
      groups.back().push_back(stream);
    else
      groups.push_back({stream});
  }
  return groups;
}

void tile::convertLandedTiles(OpBuilder &b, Location loc,
                              MutableArrayRef<PipelineStream> streams,
                              Value current) {
  SmallVector<PipelineStream *> all;
  for (PipelineStream &stream : streams)
    all.push_back(&stream);
  convertLandedTiles(b, loc, all, current);
}

void tile::convertLandedTiles(OpBuilder &b, Location loc,
                              ArrayRef<PipelineStream *> streams,
                              Value current) {
  SmallVector<PipelineStream *> castStreams;
  for (PipelineStream *stream : streams) {
    if (stream->casts.empty())
      continue;
    if (stream->codesInPlace)
      handOverCodes(b, loc, *stream, current);
    else
      castStreams.push_back(stream);
  }
  if (castStreams.empty())
    return;
  Value first = arith::ConstantIntOp::create(b, loc, 0, 32);
  widenLandedTiles(b, loc, castStreams, current, first);
  BarrierOp::create(b, loc);
  for (PipelineStream *stream : castStreams)
    readConverted(b, loc, *stream, first);
}

void tile::widenLandedTiles(OpBuilder &b, Location loc,
                            ArrayRef<PipelineStream *> streams, Value codeStage,
                            Value convertedStage) {
  for (PipelineStream *stream : streams) {
    Attribute layout = stream->isTma()
                           ? landedConversionLayout(*stream)
                           : conversionLayout(stream->getType(), stream->casts);
    IRMapping map;
    map.map(stream->load->getResult(0),
            LocalLoadOp::create(b, loc,
                                stream->getType().cloneWithEncoding(layout),
                                stream->buffer, codeStage));
    for (Operation *op : stream->casts) {
      Operation *copy = b.clone(*op, map);
      copy->getResult(0).setType(
          cast<RankedTensorType>(op->getResult(0).getType())
              .cloneWithEncoding(layout));
    }
    LocalStoreOp::create(b, loc, map.lookup(stream->casts.back()->getResult(0)),
                         stream->converted, convertedStage);
  }
}

void tile::readConverted(OpBuilder &b, Location loc, PipelineStream &stream,
                         Value convertedStage) {
  Value view = LocalViewOp::create(
      b, loc,
      viewTypeFor(stream.getConvertedType(),
                  cast<SharedBufferType>(stream.converted.getType())),
      stream.converted, convertedStage, 0);
  stream.casts.back()->getResult(0).replaceAllUsesWith(view);
  for (Operation *op : llvm::reverse(stream.casts))
    op->erase();
  stream.load->erase();
}

void tile::waitForLanding(OpBuilder &b, DescLoadOp load, Value buffer,
                          Value barriers, Value stage, Value parity,
                          Value rows) {
  Location loc = load.getLoc();
  MBarrierWaitOp::create(b, loc, barriers, stage, parity);
  if (load.getRowEnd() && !rows)
    rows = arith::SubIOp::create(b, loc, load.getRowEnd(), load.getRow());
  if (rows)
    ZeroRowsOp::create(b, loc, buffer, stage, rows);
}

bool tile::widensAhead(Block &body, ArrayRef<PipelineStream> streams,
                       int64_t scoreOwner) {
  if (scoreOwner == 0)
    return false;
  for (const PipelineStream &stream : streams) {
    auto load = dyn_cast<DescLoadOp>(stream.load);
    if (!load || stream.casts.empty() ||
        (load.getRowEnd() &&
         failed(backwardSlice(body, {load.getRowEnd(), load.getRow()}))))
      return false;
  }
  return llvm::any_of(streams, [&](const PipelineStream &stream) {
    return llvm::any_of(
        stream.casts.back()->getResult(0).getUsers(), [&](Operation *user) {
          auto dot = dyn_cast<DotOp>(user);
          return dot &&
                 getOwningWarpgroup(dot.getAcc().getType()) == scoreOwner;
        });
  });
}

/// Waits for each stream's tile at induction value `iv` (in `stage`, with
/// `parity`) and widens it into the same stage of its converted buffer; the
/// rows the tile has are computed again for `iv` (widensAhead checked that
/// they can be).
static void widenTileAt(OpBuilder &b, Location loc, scf::ForOp loop,
                        MutableArrayRef<PipelineStream> streams, Value iv,
                        Value stage, Value parity) {
  SmallVector<PipelineStream *> all;
  for (PipelineStream &stream : streams) {
    auto load = cast<DescLoadOp>(stream.load);
    Value rows;
    if (load.getRowEnd()) {
      IRMapping map;
      map.map(loop.getInductionVar(), iv);
      FailureOr<SmallVector<Operation *>> slice =
          backwardSlice(*loop.getBody(), {load.getRowEnd(), load.getRow()});
      for (Operation *op : *slice)
        b.clone(*op, map);
      rows =
          arith::SubIOp::create(b, loc, map.lookupOrDefault(load.getRowEnd()),
                                map.lookupOrDefault(load.getRow()));
    }
    waitForLanding(b, load, stream.buffer, stream.barriers, stage, parity,
                   rows);
    all.push_back(&stream);
  }
  widenLandedTiles(b, loc, all, stage, stage);
}

Value tile::stageParity(OpBuilder &b, Location loc, Value index, Value stages) {
  return arith::AndIOp::create(b, loc,
                               arith::DivSIOp::create(b, loc, index, stages),
                               arith::ConstantIntOp::create(b, loc, 1, 32));
}

void tile::widenFirstTile(OpBuilder &b, Location loc, scf::ForOp loop,
                          MutableArrayRef<PipelineStream> streams, Value index,
                          Value current, Value stages) {
  Value parity = stageParity(b, loc, index, stages);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            loop.getInductionVar(), loop.getLowerBound());
  auto branch = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  OpBuilder inner = OpBuilder::atBlockBegin(branch.thenBlock());
  widenTileAt(inner, loc, loop, streams, loop.getInductionVar(), current,
              parity);
}

void tile::widenNextTile(OpBuilder &b, Location loc, scf::ForOp loop,
                         MutableArrayRef<PipelineStream> streams, Value index,
                         Value stages) {
  Value nextIv =
      arith::AddIOp::create(b, loc, loop.getInductionVar(), loop.getStep());
  Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, nextIv,
                                     loop.getUpperBound());
  auto branch = scf::IfOp::create(b, loc, more, /*withElse=*/false);
  OpBuilder inner = OpBuilder::atBlockBegin(branch.thenBlock());
  Value next = arith::AddIOp::create(
      inner, loc, index, arith::ConstantIntOp::create(inner, loc, 1, 32));
  Value stage = arith::RemSIOp::create(inner, loc, next, stages);
  widenTileAt(inner, loc, loop, streams, nextIv, stage,
              stageParity(inner, loc, next, stages));
}
