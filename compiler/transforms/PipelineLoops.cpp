//===- PipelineLoops.cpp - cp.async pipelines for tensor-core operands ----===//
//
// A loop marked `tile.num_stages = S` streams the tiles its tensor-core dots
// read through S shared-memory stages: the copy for iteration i + S - 1 is
// issued (cp.async) before iteration i waits for its own tile, so up to S - 1
// tiles are in flight while one is computed on, and the dots read their
// operands in place instead of through registers.
//
// Iteration i of the rewritten loop, with d = S - 1 tiles of lookahead:
//   barrier                         // stage (i + d) % S was read by i - 1
//   async_copy tile(i + d) -> stage (i + d) % S, masked off past the end
//   async_wait (d groups per tile may stay in flight)   // + barrier
//   dots read local_view(stage i % S)
// and before the loop the copies for iterations 0 .. d - 1.
//
// The address of tile(i + d) is the load's address computation cloned with
// the induction variable advanced by d steps. Where it depends on a value
// the loop carries, the carried value of the next iteration is what this
// iteration yields: that computation moves to the top of the body, and the
// lookahead is one tile (S = 2).
//
// The prologue moves up its block past loads and pure code it does not
// depend on (PipelineSlices.h), so that its copies overlap them.
//
// A loop inside another loop (a persistent program's work loop) starts each
// entry with a barrier, and its TMA stages and phases continue from the
// trips of the entries before (tile.pipeline_base).
//
// Buffers read only by wgmma dots are swizzled (the layout its matrix
// descriptors read) and their wait fences the async proxy; those read only
// by mma.sync keep padded rows for ldmatrix.
//
// A tile the dots read through casts (fp8 codes widened to bf16) streams in
// its own type; after the wait it is read into registers, cast and written
// to a one-stage buffer of the cast type that the dots read after a barrier.
// A TMA stream's codes land in swizzled panels of 8-bit elements, and its
// tile is converted where the load was, after its stage's mbarrier wait.
//
// When a score warpgroup's dots read such tiles (`with score_warpgroup`:
// tile-split-roles gives them a role of their own, and the other warps
// widen), each tile is widened one trip ahead, into S converted stages:
//   scf.if (first trip) { wait tile(i); widen it into converted stage i % S }
//   barrier
//   scf.if (i + 1 < n) { wait tile(i + 1); widen it into stage (i + 1) % S }
//   copy tile(i + S) -> code stage i % S   // its codes were widened
//   dots read converted stage i % S
// so that the score role's dots need not wait for this trip's widening.
//
//===----------------------------------------------------------------------===//
#include "PipelineSlices.h"
#include "PipelineStreams.h"
#include "TransformUtils.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINELOOPS
#include "tilemla/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// A buffer for a [rows, cols] tile: the swizzled layout wgmma reads when
/// every dot that reads it is a wgmma, padded rows (ldmatrix) otherwise. A
/// tile read only as the a of dots against fp8 codes (`codeOrderedReaders`)
/// is stored in their k order (even words first) where that order applies:
/// unswizzled rows of whole 16-column blocks.
SharedBufferType bufferFor(RankedTensorType type, int64_t stages,
                           bool warpgroupReaders,
                           bool codeOrderedReaders = false) {
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t swizzle = 0;
  if (warpgroupReaders && rows % 8 == 0)
    swizzle = getSwizzleFor(cols, type.getElementTypeBitWidth());
  bool evenWordsFirst = codeOrderedReaders && !swizzle && cols % 16 == 0 &&
                        type.getElementType().getIntOrFloatBitWidth() == 16;
  return SharedBufferType::get(type.getContext(), stages, rows, cols,
                               type.getElementType(), swizzle, evenWordsFirst);
}

Value asI32(OpBuilder &b, Location loc, Value v) {
  Type i32 = b.getI32Type();
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i32, v);
  if (v.getType().getIntOrFloatBitWidth() > 32)
    return arith::TruncIOp::create(b, loc, i32, v);
  return v;
}

struct PipelineLoopsPass
    : mlir::tile::impl::TilePipelineLoopsBase<PipelineLoopsPass> {
  using TilePipelineLoopsBase::TilePipelineLoopsBase;

  void runOnOperation() override {
    swizzles = tmaSwizzles(getOperation());
    auto warps = getOperation()->getAttrOfType<IntegerAttr>(
        TileDialect::NumWarpsAttrHelper::getNameStr());
    scoreOwner = getNarrowDotOwner(getOperation(), warps ? warps.getInt() : 4);
    // Codes kept for TMA must reach wgmma dots as they are (fp8 dots) or
    // through their casts (as tile-lower-descriptor-loads planned): they
    // land as 8-bit panels, which only those dots or the conversion read.
    WalkResult unread = getOperation().walk([&](DescLoadOp load) {
      if (load.getType().getElementTypeBitWidth() != 8 || castsToDots(load) ||
          (!load->use_empty() &&
           llvm::all_of(load->getUsers(), isWarpgroupDot)))
        return WalkResult::advance();
      load.emitOpError("loads 8-bit codes with TMA, but they reach neither "
                       "fp8 wgmma dots nor casts to a 16-bit tile read only "
                       "by wgmma dots");
      return WalkResult::interrupt();
    });
    if (unread.wasInterrupted())
      return signalPassFailure();
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(TileDialect::NumStagesAttrHelper::getNameStr()))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto stages = loop->getAttrOfType<IntegerAttr>(
                            TileDialect::NumStagesAttrHelper::getNameStr())
                        .getInt();
      loop->removeAttr(TileDialect::NumStagesAttrHelper::getNameStr());
      if (stages >= 2)
        pipeline(loop, stages);
      // Descriptor loads kept for TMA in a loop that could not be pipelined.
      for (auto load :
           llvm::make_early_inc_range(loop.getBody()->getOps<DescLoadOp>()))
        copyInPlace(loop, load);
    }
    getOperation().walk([&](DescLoadOp load) {
      load.emitOpError("must be lowered by tile-lower-descriptor-loads first");
      signalPassFailure();
    });
  }

private:
  using Stream = PipelineStream;
  DenseMap<Value, int64_t> swizzles; // per descriptor (tmaSwizzles)
  int64_t scoreOwner = 0;            // the score warpgroup, or 0: none

  /// The stages a TMA load lands in: swizzled as its descriptor's tensor map.
  SharedBufferType landingBufferFor(DescLoadOp load, int64_t stages) const {
    RankedTensorType type = load.getType();
    return SharedBufferType::get(type.getContext(), stages, type.getDimSize(0),
                                 type.getDimSize(1), type.getElementType(),
                                 swizzles.lookup(load.getDesc()), false);
  }

  void pipeline(scf::ForOp loop, int64_t stages) {
    Block &body = *loop.getBody();
    if (writesMemory(body))
      return; // moving reads across writes could change what they read

    SmallVector<Stream> streams;
    llvm::SetVector<unsigned> carriedArgs;
    for (Operation &op : body) {
      auto load = dyn_cast<LoadOp>(op);
      auto desc = dyn_cast<DescLoadOp>(op);
      std::optional<SmallVector<Operation *>> casts;
      if (load)
        casts = castsToDots(load);
      else if (desc)
        casts = castsToDots(desc);
      if (!desc && !casts)
        continue;
      Stream stream{&op, {}, {}, {}, casts.value_or(SmallVector<Operation *>()),
                    {}};
      SmallVector<Value> roots = stream.roots();
      FailureOr<SmallVector<Operation *>> slice = backwardSlice(body, roots);
      if (failed(slice) || llvm::is_contained(*slice, &op))
        continue;
      collectIterArgs(loop, *slice, roots, carriedArgs);
      stream.slice = std::move(*slice);
      streams.push_back(std::move(stream));
    }
    if (streams.empty())
      return;

    // The next iteration's carried values are this iteration's yields:
    // compute those first.
    auto yield = cast<scf::YieldOp>(body.getTerminator());
    bool carried = !carriedArgs.empty();
    Block::iterator bodyStart = body.begin();
    if (carried) {
      stages = 2;
      SmallVector<Value> yielded;
      for (unsigned i : carriedArgs)
        yielded.push_back(yield.getOperand(i));
      // Only read-only producers without dots move; a yield computed from a
      // pipelined tile cannot be known early.
      FailureOr<SmallVector<Operation *>> producers =
          backwardSlice(body, yielded);
      if (failed(producers) || llvm::any_of(*producers, [&](Operation *op) {
            return llvm::any_of(streams,
                                [&](Stream &s) { return s.load == op; });
          }))
        return;
      for (Operation *op : llvm::reverse(*producers))
        op->moveBefore(&body, body.begin());
      if (!producers->empty())
        bodyStart = std::next(producers->back()->getIterator());
    }
    // Widened a trip ahead, a tile's code stage is free a trip early: the
    // copies run S tiles ahead instead of S - 1.
    bool widenAhead = !carried && widensAhead(body, streams, scoreOwner);
    int64_t lookahead = widenAhead ? stages : stages - 1;
    SmallVector<Operation *> slice = unionOfSlices(streams);

    Location loc = loop.getLoc();
    OpBuilder b(loop);
    OpBuilder allocs(allocationPoint(loop));
    bool asyncProxy = false;
    int64_t copyGroups = 0; // cp.async groups per tile
    for (Stream &stream : streams) {
      // A TMA stream's readers become wgmma dots (tile-lower-descriptor-
      // loads checked): its buffer is swizzled as its tensor map.
      SharedBufferType bufferType =
          stream.isTma()
              ? landingBufferFor(cast<DescLoadOp>(stream.load), stages)
              : bufferFor(
                    stream.getType(), stages,
                    stream.casts.empty() &&
                        llvm::all_of(stream.load->getUsers(), isWarpgroupDot));
      stream.buffer =
          LocalAllocOp::create(allocs, loc, bufferType, Value(), IntegerAttr());
      stream.codesInPlace =
          !stream.casts.empty() && fp8InPlace && readersTakeCodes(stream);
      if (!stream.casts.empty() && !stream.codesInPlace)
        stream.converted = LocalAllocOp::create(
            allocs, loc,
            bufferFor(
                stream.getConvertedType(), widenAhead ? stages : 1,
                llvm::all_of(stream.casts.back()->getUsers(), isWarpgroupDot)),
            Value(), IntegerAttr());
      if (stream.isTma()) {
        stream.barriers = MBarrierAllocOp::create(
            allocs, loc,
            MBarrierType::get(b.getContext(), stages, /*arrivals=*/1),
            IntegerAttr());
        continue;
      }
      asyncProxy |= bufferType.getSwizzle() != 0;
      ++copyGroups;
    }
    // A loop entered again (inside a program's work loop): the previous
    // entry's readers are done with every stage before the prologue
    // refills them, and the TMA ring's phases go on from its trip count.
    Operation *beforePrologue = loop->getPrevNode();
    Value base;
    if (enteredAgain(loop)) {
      base = ringBase(b, loc, loop, streams);
      BarrierOp::create(b, loc);
    }
    Value numStages = i32Constant(b, loc, stages);
    // Prologue: tiles 0 .. lookahead - 1.
    for (int64_t i = 0; i < lookahead; ++i) {
      IRMapping map;
      map.map(loop.getRegionIterArgs(), loop.getInitArgs());
      Value iv = advance(b, loc, loop.getLowerBound(), loop.getStep(), i);
      map.map(loop.getInductionVar(), iv);
      Value stage = i32Constant(b, loc, i);
      if (base)
        stage = arith::RemSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, base, stage), numStages);
      issueCopies(b, loc, streams, slice, map, iv, loop.getUpperBound(), stage);
    }
    // The prologue's copies leave as soon as their addresses are known.
    SmallVector<Operation *> prologue;
    for (Operation *op = beforePrologue ? beforePrologue->getNextNode()
                                        : &loop->getBlock()->front();
         op != loop.getOperation(); op = op->getNextNode())
      prologue.push_back(op);
    issueEarly(prologue);

    // In the body, after the moved yield computations.
    b.setInsertionPoint(&body, bodyStart);
    Value iv = loop.getInductionVar();
    Value index = arith::DivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
        loop.getStep());
    index = asI32(b, loc, index);
    if (base)
      index = arith::AddIOp::create(b, loc, base, index);
    Value current = arith::RemSIOp::create(b, loc, index, numStages);
    Value ahead = lookahead == stages
                      ? current
                      : arith::RemSIOp::create(
                            b, loc,
                            arith::AddIOp::create(
                                b, loc, index, i32Constant(b, loc, lookahead)),
                            numStages);
    if (widenAhead)
      widenFirstTile(b, loc, loop, streams, index, current, numStages);
    Operation *refillStart = BarrierOp::create(b, loc);
    if (widenAhead)
      widenNextTile(b, loc, loop, streams, index, numStages);
    IRMapping map;
    for (unsigned i : carriedArgs)
      map.map(loop.getRegionIterArgs()[i], yield.getOperand(i));
    Value nextIv = advance(b, loc, iv, loop.getStep(), lookahead);
    map.map(iv, nextIv);
    issueCopies(b, loc, streams, slice, map, nextIv, loop.getUpperBound(),
                ahead);
    SmallVector<Operation *> refill;
    for (Operation &op :
         llvm::make_range(refillStart->getIterator(), b.getInsertionPoint()))
      refill.push_back(&op);
    if (copyGroups)
      AsyncWaitOp::create(b, loc, lookahead * copyGroups, asyncProxy);
    Value parity = stageParity(b, loc, index, numStages);
    // Waited for where the loads were: the copies land meanwhile. (Cast
    // loads are gone after their conversion: the streams' kinds first.)
    SmallVector<bool> tma = llvm::map_to_vector(
        streams, [](Stream &stream) { return stream.isTma(); });
    if (widenAhead) {
      for (Stream &stream : streams) {
        OpBuilder at(stream.load);
        readConverted(at, stream.load->getLoc(), stream, current);
      }
      streams.clear();
      tma.clear();
    }
    for (SmallVector<Stream *> &group : landedCastGroups(streams)) {
      OpBuilder at(group.back()->load);
      for (Stream *stream : group)
        waitForLanding(at, cast<DescLoadOp>(stream->load), stream->buffer,
                       stream->barriers, current, parity);
      convertLandedTiles(at, group.back()->load->getLoc(), group, current);
    }
    for (auto [stream, isTma] : llvm::zip(streams, tma)) {
      if (isTma) {
        if (stream.casts.empty()) {
          OpBuilder at(stream.load);
          replaceByLandedTile(at, cast<DescLoadOp>(stream.load), stream.buffer,
                              stream.barriers, current, parity);
        }
        stream.casts.clear(); // converted above
        continue;
      }
      if (!stream.casts.empty())
        continue;
      auto viewType = viewTypeFor(
          stream.getType(), cast<SharedBufferType>(stream.buffer.getType()));
      Value view =
          LocalViewOp::create(b, loc, viewType, stream.buffer, current, 0);
      stream.load->getResult(0).replaceAllUsesWith(view);
      stream.load->erase();
    }
    convertLandedTiles(b, loc, streams, current);
    if (!copyGroups && !widenAhead)
      delayRefill(body, refill);
    b.setInsertionPointAfter(loop);
    if (copyGroups)
      AsyncWaitOp::create(b, loc, 0, false);
    makeOperandsResident(loop);
  }

  /// With TMA streams read by wgmma dots that accumulate across trips (a
  /// dot whose group may stay in flight over the back edge,
  /// getLoopCarriedDots), the refill's barrier and copies move behind the
  /// body's leading dots, before the first op that reads one of their
  /// results: the previous trip's dot, which reads the stage being
  /// refilled, then stays in flight while this trip's is issued
  /// (tile-place-dot-waits), and the tensor cores run across the barrier.
  /// The address computation stays at the top, so its loads (a page table
  /// entry) land meanwhile. Other loops keep the refill first: their dots
  /// are done by the end of the trip, and the copies go out earlier.
  static void delayRefill(Block &body, ArrayRef<Operation *> refill) {
    auto isLeadingDot = [](Operation &op) { return isWarpgroupDot(&op); };
    if (getLoopCarriedDots(cast<scf::ForOp>(body.getParentOp())).empty())
      return;
    Operation *target = nullptr;
    bool sawDot = false;
    for (Operation &op : llvm::make_range(
             std::next(refill.back()->getIterator()), body.end())) {
      if (isLeadingDot(op)) {
        sawDot = true;
        continue;
      }
      bool readsDot = llvm::any_of(op.getOperands(), [](Value v) {
        Operation *def = v.getDefiningOp();
        return def && isWarpgroupDot(def);
      });
      if (sawDot && (readsDot || op.hasTrait<OpTrait::IsTerminator>())) {
        target = &op;
        break;
      }
    }
    if (!target)
      return;
    for (Operation *op : refill)
      if (isa<BarrierOp, TmaCopyOp>(op))
        op->moveBefore(target);
  }

  /// waitForLanding, then gives the load's readers a view of the stage.
  static void replaceByLandedTile(OpBuilder &b, DescLoadOp load, Value buffer,
                                  Value barriers, Value stage, Value parity) {
    Location loc = load.getLoc();
    waitForLanding(b, load, buffer, barriers, stage, parity);
    auto bufferType = cast<SharedBufferType>(buffer.getType());
    Value view = LocalViewOp::create(
        b, loc, viewTypeFor(load.getType(), bufferType), buffer, stage, 0);
    load.getResult().replaceAllUsesWith(view);
    load.erase();
  }

  /// A TMA load in a loop that is not pipelined: one stage, copied where the
  /// load is and waited for at once.
  void copyInPlace(scf::ForOp loop, DescLoadOp load) {
    OpBuilder b(loop);
    OpBuilder allocs(allocationPoint(loop));
    Location loc = load.getLoc();
    Value buffer = LocalAllocOp::create(allocs, loc, landingBufferFor(load, 1),
                                        Value(), IntegerAttr());
    Value barriers = MBarrierAllocOp::create(
        allocs, loc, MBarrierType::get(b.getContext(), 1, /*arrivals=*/1),
        IntegerAttr());
    Value base =
        enteredAgain(loop) ? tripsBefore(b, loc, loop, barriers) : Value();
    b.setInsertionPoint(load);
    Value index =
        asI32(b, loc,
              arith::DivSIOp::create(
                  b, loc,
                  arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                        loop.getLowerBound()),
                  loop.getStep()));
    if (base)
      index = arith::AddIOp::create(b, loc, base, index);
    Value parity = arith::AndIOp::create(b, loc, index, i32Constant(b, loc, 1));
    Value stage = i32Constant(b, loc, 0);
    BarrierOp::create(b, loc); // the previous iteration read the buffer
    TmaCopyOp::create(b, loc, load.getDesc(), load.getRow(), load.getCol(),
                      buffer, stage, barriers,
                      arith::ConstantIntOp::create(b, loc, 1, 1));
    std::optional<SmallVector<Operation *>> casts = castsToDots(load);
    if (!casts) {
      replaceByLandedTile(b, load, buffer, barriers, stage, parity);
      return;
    }
    Stream stream{load, {}, buffer, barriers, *casts, {}};
    stream.converted = LocalAllocOp::create(
        allocs, loc, bufferFor(stream.getConvertedType(), 1, true), Value(),
        IntegerAttr());
    waitForLanding(b, load, buffer, barriers, stage, parity);
    convertLandedTiles(b, loc, stream, stage);
  }

  /// Whether `loop` runs inside another loop, so that each of its entries
  /// starts where the previous one left its buffers and barriers.
  static bool enteredAgain(scf::ForOp loop) {
    return loop->getParentOfType<scf::ForOp>() != nullptr;
  }

  /// Where `loop`'s buffers and barriers are made: in the kernel's body,
  /// before the op holding the loop, so that they are made (and mbarriers
  /// initialized) once, not on every entry, and ahead of any split into
  /// warp roles (which share them).
  static Operation *allocationPoint(scf::ForOp loop) {
    Operation *point = loop;
    while (!isa<func::FuncOp>(point->getParentOp()))
      point = point->getParentOp();
    return point;
  }

  /// The trips the ring of `barriers` ran before this entry of `loop`.
  static Value tripsBefore(OpBuilder &b, Location loc, scf::ForOp loop,
                           Value barriers) {
    return PipelineBaseOp::create(
        b, loc, barriers, asI32(b, loc, loop.getLowerBound()),
        asI32(b, loc, loop.getUpperBound()), asI32(b, loc, loop.getStep()));
  }

  /// The TMA streams' trips before this entry of `loop` (they share one
  /// trip index), or null without TMA streams (cp.async has no phases to
  /// continue).
  static Value ringBase(OpBuilder &b, Location loc, scf::ForOp loop,
                        ArrayRef<Stream> streams) {
    for (const Stream &stream : streams)
      if (stream.isTma())
        return tripsBefore(b, loc, loop, stream.barriers);
    return Value();
  }

  /// The address computations of all streams, in block order.
  static SmallVector<Operation *> unionOfSlices(ArrayRef<Stream> streams) {
    llvm::SetVector<Operation *> ops;
    for (const Stream &stream : streams)
      ops.insert_range(stream.slice);
    SmallVector<Operation *> ordered = ops.takeVector();
    llvm::sort(ordered, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    return ordered;
  }

  static Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 32);
  }

  static Value advance(OpBuilder &b, Location loc, Value iv, Value step,
                       int64_t times) {
    if (times == 0)
      return iv;
    Value count = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(step.getType(), times));
    return arith::AddIOp::create(b, loc, iv,
                                 arith::MulIOp::create(b, loc, step, count));
  }

  /// `mask` (null: none) of an access through `ptr`, and'ed with `inRange`
  /// (a scalar i1) in the mask's type.
  static Value andInRange(OpBuilder &b, Location loc, Value ptr, Value mask,
                          Value inRange) {
    Type maskType = b.getI1Type();
    if (mask)
      maskType = mask.getType();
    else if (auto ptrType = dyn_cast<RankedTensorType>(ptr.getType()))
      maskType = RankedTensorType::get(ptrType.getShape(), b.getI1Type(),
                                       ptrType.getEncoding());
    Value splat = isa<RankedTensorType>(maskType)
                      ? SplatOp::create(b, loc, maskType, inRange)
                      : inRange;
    return mask ? arith::AndIOp::create(b, loc, mask, splat) : splat;
  }

  /// The copies of the tiles at induction value `iv` (`slice`: the streams'
  /// address computations, cloned once for all), masked off when `iv` is
  /// past the end. So are the address computations' own reads (a page id
  /// from a block table): past the end they could read past the table.
  void issueCopies(OpBuilder &b, Location loc, ArrayRef<Stream> streams,
                   ArrayRef<Operation *> slice, IRMapping &map, Value iv,
                   Value upperBound, Value stage) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                          upperBound);
    for (Operation *op : slice) {
      Operation *copy = b.clone(*op, map);
      if (auto load = dyn_cast<LoadOp>(copy)) {
        OpBuilder before(copy);
        load.getMaskMutable().assign(andInRange(
            before, load.getLoc(), load.getPtr(), load.getMask(), inRange));
      }
    }
    for (const Stream &stream : streams) {
      if (auto desc = dyn_cast<DescLoadOp>(stream.load)) {
        TmaCopyOp::create(b, loc, desc.getDesc(),
                          map.lookupOrDefault(desc.getRow()),
                          map.lookupOrDefault(desc.getCol()), stream.buffer,
                          stage, stream.barriers, inRange);
        continue;
      }
      auto load = cast<LoadOp>(stream.load);
      Value mask = andInRange(b, loc, load.getPtr(),
                              map.lookupOrDefault(load.getMask()), inRange);
      AsyncCopyOp::create(b, loc, map.lookupOrDefault(load.getPtr()),
                          stream.buffer, stage, mask);
    }
  }

  /// Dot operands defined before the loop are written to shared memory
  /// once, before it, instead of being staged on every iteration.
  void makeOperandsResident(scf::ForOp loop) {
    // Values read by a dot that is not a wgmma keep the ldmatrix layout;
    // those read only as the a of dots against fp8 codes are stored in
    // those dots' k order.
    DenseSet<Value> readByMmaSync, readOtherwise;
    loop.getBody()->walk([&](DotOp dot) {
      if (isTensorCoreDot(dot) && !isWarpgroupDot(dot))
        readByMmaSync.insert_range(dot->getOperands().take_front(2));
      if (!takesCodeOrderedA(dot))
        readOtherwise.insert(dot.getA());
      readOtherwise.insert(dot.getB());
    });
    DenseMap<Value, Value> views;
    loop.getBody()->walk([&](DotOp dot) {
      if (!isTensorCoreDot(dot))
        return;
      for (OpOperand &operand : dot->getOpOperands().take_front(2)) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || !getLayout(type) ||
            loop->isAncestor(value.getParentRegion()->getParentOp()) ||
            (type.getElementType().getIntOrFloatBitWidth() != 16 &&
             !isFp8Dot(dot)))
          continue;
        // A wgmma reads swizzled panels only; one also read by mma.sync
        // keeps staging it.
        if (isWarpgroupDot(dot) && readByMmaSync.contains(value))
          continue;
        Value &view = views[value];
        if (!view) {
          OpBuilder b(loop);
          Location loc = value.getLoc();
          SharedBufferType bufferType =
              bufferFor(type, 1, !readByMmaSync.contains(value),
                        !readOtherwise.contains(value));
          Value buffer =
              LocalAllocOp::create(b, loc, bufferType, value, IntegerAttr());
          view = LocalViewOp::create(b, loc, viewTypeFor(type, bufferType),
                                     buffer, i32Constant(b, loc, 0), 0);
        }
        operand.set(view);
      }
    });
  }
};
} // namespace
