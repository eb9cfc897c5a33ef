//===- MmaDotOpToLLVM.cpp - dot on the tensor cores (mma.sync) ------------===//
//
// f16/bf16 dots whose accumulator carries the #tile.mma layout run on
// mma.sync.m16n8k16 (sm_80 and later), fp8 ones (a and b of one format) on
// mma.sync.m16n8k32 (sm_89 and later), whose fragments hold four codes a
// register where the 16-bit ones hold two elements: for a and an [N, K] b
// the same ldmatrix reads give them, a row being 16 codes and a k step 32
// deep; a [K, N] b fills the interleaved accumulator (below). Operands in
// registers are staged in shared memory (operands already there, `#tile.shared`
// views of a pipelined buffer, are read in place), row-major with rows padded
// by 16 bytes so that the eight 16-byte rows one ldmatrix phase reads fall into
// distinct bank groups; fragments come back with ldmatrix (.trans for a [K, N]
// b, plain for a transposed [N, K] b, whose rows are the instruction's "col"
// layout already).
//
// The accumulator's register rows 2t and 2t + 1 are the instruction tile's
// row halves and each pair of register columns one 8-column tile (see
// MmaEncodingAttr), so accumulators never move.
//
// A b of fp8 codes (hasCodesB) is read from its landed stage by ldmatrix and
// widened in registers (cvt ...e4m3x2). [N, K]: one matrix row is a whole
// 16-deep k step, lane (g, q) getting codes 4q .. 4q + 3, which serve as
// slots (2q, 2q + 1, 2q + 8, 2q + 9). An a resident in even-words-first
// order (SharedBufferType) holds those columns where ldmatrix.x4 puts them
// in the fragment registers; any other a is read with two 8-byte loads per
// tile, whose words ptxas must move into place. [K, N]: ldmatrix.trans gives
// two tokens of columns (2g, 2g + 1); a byte permute of the two k halves'
// words makes the fragments of an even and an odd n tile, the interleaved
// accumulator's (registers 0, 2 and 1, 3 of each 16-column block).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Elements of `element` in 16 bytes: one ldmatrix row, and the padding
/// added to every staged row.
int64_t elementsIn16Bytes(Type element) {
  return 16 / getSharedElementBytes(element);
}

/// Where one warp's fragments sit in the staged operands.
struct WarpTiles {
  int64_t m, n, k;        // dot shape
  int64_t wm, wn;         // warps along M and N
  int64_t mTiles, nTiles; // instruction tiles per warp along M and N
  Value row0, col0;       // first row / column the warp owns
};

Value add(OpBuilder &b, Location loc, Value x, int64_t c) {
  return LLVM::AddOp::create(b, loc, x, i32Constant(b, loc, c));
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return LLVM::AddOp::create(b, loc, x, y);
}
Value mul(OpBuilder &b, Location loc, Value x, int64_t c) {
  return LLVM::MulOp::create(b, loc, x, i32Constant(b, loc, c));
}

/// ldmatrix of `count` 8x8 b16 matrices; lane l gives the address of row
/// l % 8 of matrix l / 8. Returns one i32 (two b16) per matrix.
SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value address,
                                int count, bool transposed) {
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  Type result = count == 1 ? i32
                           : LLVM::LLVMStructType::getLiteral(
                                 ctx, SmallVector<Type>(count, i32));
  Value loaded = NVVM::LdMatrixOp::create(
      b, loc, result, address, b.getI32IntegerAttr(count),
      NVVM::MMALayoutAttr::get(ctx, transposed ? NVVM::MMALayout::col
                                               : NVVM::MMALayout::row),
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
      NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
  return unpackStruct(b, loc, loaded);
}

/// Two fp8 codes (the low and high byte of `pair`, an i16) widened exactly
/// to a pair of `element` (f16 or bf16) in one i32, as a fragment holds
/// them: cvt.rn.f16x2.e4m3x2 / e5m2x2, then f16 to bf16 through f32.
Value widenCodes(OpBuilder &b, Location loc, Value pair, Type codeType,
                 Type element) {
  Type halves = VectorType::get({2}, b.getF16Type());
  StringRef name = isa<Float8E5M2Type>(codeType)
                       ? "llvm.nvvm.e5m2x2.to.f16x2.rn"
                       : "llvm.nvvm.e4m3x2.to.f16x2.rn";
  Value widened =
      LLVM::CallIntrinsicOp::create(b, loc, halves, b.getStringAttr(name), pair)
          .getResult(0);
  if (element.isBF16()) {
    Value floats = LLVM::FPExtOp::create(
        b, loc, VectorType::get({2}, b.getF32Type()), widened);
    widened = LLVM::FPTruncOp::create(
        b, loc, VectorType::get({2}, b.getBF16Type()), floats);
  }
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), widened);
}

/// mma.sync.m16n8k32.row.col.f32 on fp8 fragments (four words of a, two
/// of b, four codes each) accumulating onto `acc`. The NVVM dialect's op
/// does not take fp8 types: the intrinsic is called by name (PTX 8.4,
/// which the backend then emits).
Value emitFp8Mma(OpBuilder &b, Location loc, Type accStruct, Type codeType,
                 ArrayRef<Value> a, ArrayRef<Value> bWords,
                 ArrayRef<Value> acc) {
  std::string name = isa<Float8E5M2Type>(codeType)
                         ? "llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e5m2.f32"
                         : "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32";
  SmallVector<Value> operands(a);
  operands.append(bWords.begin(), bWords.end());
  operands.append(acc.begin(), acc.end());
  return LLVM::CallIntrinsicOp::create(b, loc, accStruct, b.getStringAttr(name),
                                       operands)
      .getResult(0);
}

/// A word's two i16 halves, low first.
std::pair<Value, Value> halvesOf(OpBuilder &b, Location loc, Value word) {
  Type i16 = b.getIntegerType(16);
  Value high = LLVM::LShrOp::create(b, loc, word, i32Constant(b, loc, 16));
  return {LLVM::TruncOp::create(b, loc, i16, word),
          LLVM::TruncOp::create(b, loc, i16, high)};
}

/// Bytes `first`, `first` + 2 of `x` and the same of `y`, as one word (a
/// byte permute: `prmt`).
Value pickBytes(OpBuilder &b, Location loc, Value x, Value y, int32_t first) {
  Type bytes = VectorType::get({4}, b.getI8Type());
  Value shuffled = LLVM::ShuffleVectorOp::create(
      b, loc, LLVM::BitcastOp::create(b, loc, bytes, x),
      LLVM::BitcastOp::create(b, loc, bytes, y),
      ArrayRef<int32_t>{first, first + 2, first + 4, first + 6});
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), shuffled);
}

/// The dot that `op` hands its whole result to as the accumulator and that
/// multiplies another a by the same b, read from shared memory like op's
/// (q's two e4m3 terms against one tile of codes): both are lowered as one,
/// each k step reading b's fragments once for both a's. Null if none.
DotOp fusedPartner(DotOp op) {
  if (!op.getResult().hasOneUse())
    return {};
  auto partner = dyn_cast<DotOp>(*op.getResult().getUsers().begin());
  if (!partner || partner.getAcc() != op.getResult() ||
      partner.getB() != op.getB() || partner.getTransB() != op.getTransB() ||
      partner.getA().getType() != op.getA().getType() ||
      partner.getAccType() != op.getAccType() || !isSharedView(op.getA()) ||
      !isSharedView(op.getB()))
    return {};
  // partner's a must be there already where op is lowered, with the same
  // contents: partner in op's block, nothing between them that writes
  // memory or waits.
  Operation *def = partner.getA().getDefiningOp();
  Operation *user = def ? def->getBlock()->findAncestorOpInBlock(*op) : nullptr;
  if (!user || !def->isBeforeInBlock(user) ||
      partner->getBlock() != op->getBlock())
    return {};
  for (Operation *between = op->getNextNode(); between != partner;
       between = between->getNextNode()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(between);
    if (effects ? effects.hasEffect<MemoryEffects::Write>()
                : !isMemoryEffectFree(between))
      return {};
  }
  return partner;
}

/// Benefit 2: tried before the FMA dot lowering.
struct MmaDotOpConversion : TargetPattern<DotOp> {
  MmaDotOpConversion(TypeConverter &converter, MLIRContext *context,
                     const TargetInfo &target)
      : TargetPattern(converter, context, target, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType(),
                     accType = op.getAccType();
    auto mma = dyn_cast_or_null<MmaEncodingAttr>(accType.getEncoding());
    if (!mma || mma.isWarpgroup() || !isMmaCompatibleDot(op, mma))
      return rewriter.notifyMatchFailure(op, "not an mma.sync dot");
    bool aInShared = isSharedView(op.getA()),
         bInShared = isSharedView(op.getB());
    if ((!aInShared && !getLayout(aType)) || (!bInShared && !getLayout(bType)))
      return rewriter.notifyMatchFailure(op, "operands need layouts");
    Location loc = op.getLoc();
    bool transB = op.getTransB();
    WarpTiles tiles;
    tiles.m = aType.getDimSize(0);
    tiles.k = aType.getDimSize(1);
    tiles.n = accType.getDimSize(1);
    tiles.wm = mma.getWarpsPerCTA()[0];
    tiles.wn = mma.getWarpsPerCTA()[1];
    tiles.mTiles = tiles.m / (16 * tiles.wm);
    tiles.nTiles = std::max<int64_t>(1, tiles.n / (8 * tiles.wn));

    // fp8 codes read in place (hasCodesB): [N, K] (scores) or, with an
    // interleaved accumulator, [K, N] (p . v). See the file comment.
    bool codes = hasCodesB(op), interleaved = mma.isInterleaved();
    bool fp8 = isFp8Dot(op);
    if (interleaved && (!(codes || fp8) || transB))
      return op.emitOpError(
          "an interleaved accumulator is filled from fp8 codes of a [K, N] b "
          "read in place");
    Type codeType = bType.getElementType();
    auto wordOrdered = [](RankedTensorType type) {
      auto shared = dyn_cast_or_null<SharedEncodingAttr>(type.getEncoding());
      return shared && shared.getEvenWordsFirst();
    };
    bool codeOrderedA = takesCodeOrderedA(op);
    if (wordOrdered(bType) || (wordOrdered(aType) && !codeOrderedA))
      return op.emitOpError("reads an even-words-first tile only as the a of "
                            "a dot against fp8 codes of an [N, K] b");
    // a's columns 4q .. 4q + 3 as two 8-byte loads (see the file comment).
    bool aByWords = codeOrderedA && !wordOrdered(aType);

    auto [lane, warp] = getLaneAndWarp(rewriter, loc);
    // Warps are numbered along N fastest (row-major, as blocked layouts);
    // surplus warps wrap around and compute replicas.
    Value wn = i32Constant(rewriter, loc, tiles.wn);
    Value warpN = LLVM::URemOp::create(rewriter, loc, warp, wn);
    Value warpM = LLVM::URemOp::create(
        rewriter, loc, LLVM::UDivOp::create(rewriter, loc, warp, wn),
        i32Constant(rewriter, loc, tiles.wm));
    auto wrap = [&](Value v, int64_t size) {
      return LLVM::AndOp::create(rewriter, loc, v,
                                 i32Constant(rewriter, loc, size - 1));
    };
    tiles.row0 = wrap(mul(rewriter, loc, warpM, 8), tiles.m);
    // Interleaved: each warp owns 16-column blocks (two n tiles).
    tiles.col0 = wrap(mul(rewriter, loc, warpN, interleaved ? 16 : 8), tiles.n);

    // Operands in registers are staged row-major with padded rows; views
    // (#tile.shared) are read where they are. An ldmatrix row is 16 bytes:
    // 8 16-bit elements, or 16 fp8 ones, whose k step is 32 deep.
    Type inType = getTypeConverter()->convertType(aType.getElementType());
    int64_t rowElements = elementsIn16Bytes(aType.getElementType());
    int64_t kDepth = 2 * rowElements;
    Value shared, bShared;
    int64_t aStride, bStride;
    if (aInShared) {
      shared = adaptor.getA();
      aStride = cast<SharedEncodingAttr>(aType.getEncoding()).getRowStride();
    } else {
      shared = getSharedBase(rewriter, loc, op);
      aStride = tiles.k + rowElements;
    }
    if (bInShared) {
      bShared = adaptor.getB();
      bStride = cast<SharedEncodingAttr>(bType.getEncoding()).getRowStride();
    } else {
      // b has its own region (see tile-allocate-shared); a dot marked
      // reuse_staged_b finds it there already, written by the previous dot.
      auto bOffset =
          op->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
              TileDialect::DotBOffsetAttrHelper::getNameStr());
      if (!bOffset)
        return op.emitOpError(
            "needs tile-allocate-shared to place its operands");
      bShared = sharedElementPtr(
          rewriter, loc, getSharedBase(rewriter, loc, op), rewriter.getI8Type(),
          i32Constant(rewriter, loc, bOffset.getInt()));
      bStride = (transB ? tiles.k : tiles.n) + rowElements;
    }
    bool stageB =
        !bInShared &&
        !op->hasAttr(TileDialect::ReuseStagedBAttrHelper::getNameStr());
    if (!aInShared || stageB) {
      target.barrier(rewriter, loc);
      if (!aInShared)
        stageRowMajor(rewriter, loc, aType,
                      unpackStruct(rewriter, loc, adaptor.getA()), shared,
                      aStride, lane, warp);
      if (stageB)
        stageRowMajor(rewriter, loc, bType,
                      unpackStruct(rewriter, loc, adaptor.getB()), bShared,
                      bStride, lane, warp);
      target.barrier(rewriter, loc);
    }

    int64_t accCols = 2 * tiles.nTiles;
    Value laneRow =
        LLVM::AndOp::create(rewriter, loc, lane, i32Constant(rewriter, loc, 7));
    Value matrix = LLVM::LShrOp::create(rewriter, loc, lane,
                                        i32Constant(rewriter, loc, 3));
    Value matrixLow = LLVM::AndOp::create(rewriter, loc, matrix,
                                          i32Constant(rewriter, loc, 1));
    Value matrixHigh = LLVM::LShrOp::create(rewriter, loc, matrix,
                                            i32Constant(rewriter, loc, 1));
    bool isBF16 = aType.getElementType().isBF16();
    Type fragType = isBF16 ? Type(rewriter.getI32Type())
                           : Type(VectorType::get(2, rewriter.getF16Type()));
    Type f32 = rewriter.getF32Type();
    Type accStruct = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes ptxType =
        isBF16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;

    // a's of the k steps: op's, then a fused partner's (fusedPartner).
    DotOp partner = fusedPartner(op);
    SmallVector<Value> aBases = {shared};
    if (partner)
      aBases.push_back(rewriter.getRemappedValue(partner.getA()));

    // One k step (kDepth deep) into one set of accumulators. `kStep` may be
    // a loop variable.
    auto emitKStep = [&](OpBuilder &b, Value kStep, SmallVector<Value> &acc) {
      Value kOffset = mul(b, loc, kStep, kDepth);
      // A fragments, aFrags[a][t]: matrix j holds row half j % 2 and k half
      // j / 2 of instruction tile t (a0a1, a2a3, a4a5, a6a7).
      SmallVector<SmallVector<SmallVector<Value>>> aFragsOf;
      for (Value shared : aBases) {
        SmallVector<SmallVector<Value>> &aFrags = aFragsOf.emplace_back();
        for (int64_t t = 0; t < (aByWords ? tiles.mTiles : 0); ++t) {
          // Against codes, slots (2q, 2q + 1) and (2q + 8, 2q + 9) of a k step
          // are its columns 4q .. 4q + 3 (q = lane % 4), in a's fragments as
          // in b's: two 8-byte reads per tile, rows g and g + 8.
          Value g = LLVM::LShrOp::create(b, loc, lane, i32Constant(b, loc, 2));
          Value quad =
              LLVM::AndOp::create(b, loc, lane, i32Constant(b, loc, 3));
          Value col = add(b, loc, kOffset, mul(b, loc, quad, 4));
          Value row =
              add(b, loc, add(b, loc, tiles.row0, g), 2 * t * 8 * tiles.wm);
          SmallVector<Value> halves[2];
          for (int h = 0; h < 2; ++h) {
            Value r = add(b, loc, row, h * 8 * tiles.wm);
            Value index = add(b, loc, mul(b, loc, r, aStride), col);
            Value pair = LLVM::LoadOp::create(
                b, loc, VectorType::get({2}, b.getI32Type()),
                sharedElementPtr(b, loc, shared, inType, index),
                /*alignment=*/aStride % 4 == 0 ? 8 : 4);
            for (int64_t e = 0; e < 2; ++e)
              halves[h].push_back(LLVM::ExtractElementOp::create(
                  b, loc, pair, i32Constant(b, loc, e)));
          }
          aFrags.push_back(
              {halves[0][0], halves[1][0], halves[0][1], halves[1][1]});
        }
        for (int64_t t = 0; t < (aByWords ? 0 : tiles.mTiles); ++t) {
          Value row = add(b, loc, add(b, loc, tiles.row0, laneRow),
                          mul(b, loc, matrixLow, 8 * tiles.wm));
          row = add(b, loc, row, 2 * t * 8 * tiles.wm);
          Value col =
              add(b, loc, mul(b, loc, matrixHigh, rowElements), kOffset);
          Value index = add(b, loc, mul(b, loc, row, aStride), col);
          aFrags.push_back(loadMatrices(
              b, loc, sharedElementPtr(b, loc, shared, inType, index), 4,
              /*transposed=*/false));
        }
      }
      // One mma.sync of a `i`'s m tile t and n tile c (fragments in
      // bFrags[c]).
      SmallVector<SmallVector<Value>> bFrags;
      auto asFragment = [&](Value word) -> Value {
        return isBF16 || fp8 ? word
                             : LLVM::BitcastOp::create(b, loc, fragType, word);
      };
      auto mmaAt = [&](size_t i, int64_t t, int64_t c) {
        SmallVector<Value> aWords;
        for (Value word : aFragsOf[i][t])
          aWords.push_back(asFragment(word));
        SmallVector<Value> bWords = {asFragment(bFrags[c][0]),
                                     asFragment(bFrags[c][1])};
        // Interleaved: the even tile of block c / 2 holds its registers
        // 0 and 2, the odd tile 1 and 3.
        int64_t column = interleaved ? 4 * (c / 2) + c % 2 : 2 * c;
        int64_t step = interleaved ? 2 : 1;
        int64_t top = 2 * t * accCols + column, bottom = top + accCols;
        SmallVector<Value> d = {acc[top], acc[top + step], acc[bottom],
                                acc[bottom + step]};
        Value result =
            fp8 ? emitFp8Mma(b, loc, accStruct, aType.getElementType(), aWords,
                             bWords, d)
                : NVVM::MmaOp::create(
                      b, loc, accStruct, aWords, bWords, d, {16, 8, 16},
                      /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
                      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                     NVVM::MMALayout::col});
        SmallVector<Value> out = unpackStruct(b, loc, result);
        acc[top] = out[0];
        acc[top + step] = out[1];
        acc[bottom] = out[2];
        acc[bottom + step] = out[3];
      };
      // fp8 [K, N]: each block's mma.sync right after its fragments, so
      // that they are not all live at once (a k step spans all of b).
      bool mmaPerBlock = fp8 && !transB;
      // B fragments: matrix j holds k half j % 2 of n tile c + j / 2.
      Type i8 = b.getI8Type();
      auto widenWord = [&](Value word) -> SmallVector<Value> {
        auto [low, high] = halvesOf(b, loc, word);
        Type element = aType.getElementType();
        return {widenCodes(b, loc, low, codeType, element),
                widenCodes(b, loc, high, codeType, element)};
      };
      // Codes, [N, K]: matrix j is one whole k step (16 codes a row) of
      // n tile c + j; lane (g, q) gets codes 4q .. 4q + 3 of row g.
      for (int64_t c = 0; codes && transB && c < tiles.nTiles;) {
        int count = tiles.nTiles - c >= 4 ? 4 : tiles.nTiles - c >= 2 ? 2 : 1;
        Value j =
            LLVM::AndOp::create(b, loc, matrix, i32Constant(b, loc, count - 1));
        Value n = add(b, loc, tiles.col0,
                      mul(b, loc, add(b, loc, j, c), 8 * tiles.wn));
        Value index =
            add(b, loc, mul(b, loc, add(b, loc, n, laneRow), bStride), kOffset);
        for (Value word :
             loadMatrices(b, loc, sharedElementPtr(b, loc, bShared, i8, index),
                          count, /*transposed=*/false))
          bFrags.push_back(widenWord(word));
        c += count;
      }
      // Codes, [K, N], interleaved: matrix j is k half j % 2 of 16-column
      // block p + j / 2, transposed; lane (g, q) gets tokens 2q and 2q + 1,
      // each with columns 2g and 2g + 1 of the block. Bytes 0 and 2 of the
      // two halves' words are the even tile's fragment (column 2g), bytes
      // 1 and 3 the odd tile's.
      for (int64_t p = 0; codes && !transB && p < tiles.nTiles / 2;) {
        int count = tiles.nTiles / 2 - p >= 2 ? 4 : 2;
        Value j =
            LLVM::AndOp::create(b, loc, matrix, i32Constant(b, loc, count - 1));
        Value half = LLVM::AndOp::create(b, loc, j, i32Constant(b, loc, 1));
        Value block = LLVM::LShrOp::create(b, loc, j, i32Constant(b, loc, 1));
        Value column = add(b, loc, tiles.col0,
                           mul(b, loc, add(b, loc, block, p), 16 * tiles.wn));
        Value token =
            add(b, loc, add(b, loc, mul(b, loc, half, 8), laneRow), kOffset);
        Value index = add(b, loc, mul(b, loc, token, bStride), column);
        SmallVector<Value> words =
            loadMatrices(b, loc, sharedElementPtr(b, loc, bShared, i8, index),
                         count, /*transposed=*/true);
        for (int q = 0; q < count / 2; ++q) {
          bFrags.push_back(
              widenWord(pickBytes(b, loc, words[2 * q], words[2 * q + 1], 0)));
          bFrags.push_back(
              widenWord(pickBytes(b, loc, words[2 * q], words[2 * q + 1], 1)));
        }
        p += count / 2;
      }
      // fp8, [K, N], interleaved: for each 16-column block, matrices X0,
      // Y0, X1, Y1 transposed, whose row i is token 4 (i / 2) + i % 2 (X)
      // or that + 2 (Y), + 16 for X1, Y1: lane (g, q) gets tokens 4q,
      // 4q + 1 from X and 4q + 2, 4q + 3 from Y, each with columns 2g and
      // 2g + 1. Bytes 0 and 2 of X and Y are b0 of the even tile (column
      // 2g), bytes 1 and 3 the odd tile's; X1 and Y1 give b1.
      for (int64_t p = 0; fp8 && !transB && p < tiles.nTiles / 2; ++p) {
        Value pairOfRows =
            LLVM::LShrOp::create(b, loc, laneRow, i32Constant(b, loc, 1));
        Value rowInPair =
            LLVM::AndOp::create(b, loc, laneRow, i32Constant(b, loc, 1));
        Value token =
            add(b, loc, mul(b, loc, matrixHigh, 16),
                add(b, loc, mul(b, loc, pairOfRows, 4),
                    add(b, loc, mul(b, loc, matrixLow, 2), rowInPair)));
        Value column =
            add(b, loc, tiles.col0, i32Constant(b, loc, p * 16 * tiles.wn));
        Value index = add(
            b, loc, mul(b, loc, add(b, loc, token, kOffset), bStride), column);
        SmallVector<Value> words =
            loadMatrices(b, loc, sharedElementPtr(b, loc, bShared, i8, index),
                         4, /*transposed=*/true);
        for (int32_t first : {0, 1}) {
          bFrags.push_back({pickBytes(b, loc, words[0], words[1], first),
                            pickBytes(b, loc, words[2], words[3], first)});
          for (size_t i = 0; i < aBases.size(); ++i)
            for (int64_t t = 0; t < tiles.mTiles; ++t)
              mmaAt(i, t, 2 * p + first);
        }
      }
      for (int64_t c = 0; !codes && !(fp8 && !transB) && c < tiles.nTiles;
           c += 2) {
        int count = c + 1 < tiles.nTiles ? 4 : 2;
        Value nTile = count == 4 ? matrixHigh : i32Constant(b, loc, 0);
        Value n = add(b, loc, tiles.col0, mul(b, loc, nTile, 8 * tiles.wn));
        n = add(b, loc, n, c * 8 * tiles.wn);
        Value kRow = add(b, loc, mul(b, loc, matrixLow, rowElements), kOffset);
        Value index;
        if (transB) // b is [N, K]: rows are n, 8 contiguous k per row.
          index =
              add(b, loc, mul(b, loc, add(b, loc, n, laneRow), bStride), kRow);
        else // b is [K, N]: rows are k, 8 contiguous n per row.
          index =
              add(b, loc, mul(b, loc, add(b, loc, kRow, laneRow), bStride), n);
        SmallVector<Value> words = loadMatrices(
            b, loc, sharedElementPtr(b, loc, bShared, inType, index), count,
            /*transposed=*/!transB);
        bFrags.push_back({words[0], words[1]});
        if (count == 4)
          bFrags.push_back({words[2], words[3]});
      }
      for (size_t i = 0; i < aBases.size(); ++i)
        for (int64_t t = 0; t < tiles.mTiles; ++t)
          for (int64_t c = 0; c < tiles.nTiles && !mmaPerBlock; ++c)
            mmaAt(i, t, c);
    };

    // Few instruction tiles per warp make each k step one short dependent
    // chain of mma.sync: interleave up to 4 accumulator sets over the k
    // steps and add them at the end. Long k runs become a loop (rolled code
    // keeps ptxas fast), a group of `chains` k steps per iteration.
    int64_t kSteps = tiles.k / kDepth;
    int64_t chains = std::max<int64_t>(
        1, 4 / (tiles.mTiles * tiles.nTiles * int64_t(aBases.size())));
    while (kSteps % chains != 0)
      chains /= 2;
    SmallVector<SmallVector<Value>> sets(chains);
    sets[0] = unpackStruct(rewriter, loc, adaptor.getAcc());
    Value zero = LLVM::ConstantOp::create(rewriter, loc, f32,
                                          rewriter.getF32FloatAttr(0.0f));
    for (int64_t i = 1; i < chains; ++i)
      sets[i].assign(sets[0].size(), zero);
    int64_t groups = kSteps / chains;
    if (groups <= 2) {
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t i = 0; i < chains; ++i)
          emitKStep(rewriter, i32Constant(rewriter, loc, g * chains + i),
                    sets[i]);
    } else {
      SmallVector<Value> carried;
      for (auto &set : sets)
        carried.append(set);
      auto loop = scf::ForOp::create(
          rewriter, loc, i32Constant(rewriter, loc, 0),
          i32Constant(rewriter, loc, kSteps),
          i32Constant(rewriter, loc, chains), carried,
          [&](OpBuilder &b, Location, Value kStep, ValueRange args) {
            size_t per = sets[0].size();
            SmallVector<SmallVector<Value>> inner(chains);
            for (int64_t i = 0; i < chains; ++i) {
              inner[i].assign(args.begin() + i * per,
                              args.begin() + (i + 1) * per);
              emitKStep(b, add(b, loc, kStep, i), inner[i]);
            }
            SmallVector<Value> yielded;
            for (auto &set : inner)
              yielded.append(set);
            scf::YieldOp::create(b, loc, yielded);
          });
      size_t per = sets[0].size();
      for (int64_t i = 0; i < chains; ++i)
        sets[i].assign(loop.getResults().begin() + i * per,
                       loop.getResults().begin() + (i + 1) * per);
    }
    SmallVector<Value> acc = sets[0];
    for (int64_t i = 1; i < chains; ++i)
      for (auto [sum, part] : llvm::zip(acc, sets[i]))
        sum = LLVM::FAddOp::create(rewriter, loc, sum, part);
    Value result = packStruct(rewriter, loc,
                              getTypeConverter()->convertType(accType), acc);
    if (partner)
      rewriter.replaceOp(partner, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

/// Bytes of a 2-D tensor staged row-major with rows padded by 16 bytes.
static unsigned stagedBytes(RankedTensorType type) {
  Type element = type.getElementType();
  return unsigned(type.getDimSize(0) *
                  (type.getDimSize(1) + elementsIn16Bytes(element)) *
                  getSharedElementBytes(element));
}

unsigned mlir::tile::getMmaDotStagedABytes(DotOp op) {
  return stagedBytes(op.getA().getType());
}

unsigned mlir::tile::getMmaDotStagedBBytes(DotOp op) {
  return stagedBytes(op.getB().getType());
}

void mlir::tile::populateMmaDotOpToLLVMPatterns(
    TileLLVMTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<MmaDotOpConversion>(converter, patterns.getContext(), target);
}
