//===- SplitPolicy.cpp - how the MLA backend divides a batch's work -------===//
//
// The split policies (how many stage-1 programs share a request), the
// batch-invariant cut, and the launch shape a batch gets: host-side facts
// only, never seq_lens.
//
//===----------------------------------------------------------------------===//
#include "tilemla/mla/TritonMLA.h"

#include "SplitMath.h"

namespace tilemla::mla {

/// Auto's cap on the tokens of one (request, split, head block) chunk; a
/// 64-head program is bound by its tensor cores, so its cap does not grow
/// with the head blocks beside it.
constexpr int64_t kTailChunkTokens = 4096;
constexpr int64_t kWarpgroupTailChunkTokens = 2048;

int chooseNumSplits(SplitPolicy policy, int64_t batch, int64_t numHeads,
                    int64_t maxSeqLen, int numSMs, int maxSplits, int headBlock,
                    int minSplits) {
  switch (policy) {
  case SplitPolicy::Fixed4:
    return 4;
  case SplitPolicy::BatchInvariant:
    return 1;
  case SplitPolicy::Auto: {
    int64_t headBlocks =
        cdiv(std::max<int64_t>(1, numHeads), std::max(1, headBlock));
    int64_t programs = std::max<int64_t>(1, batch) * headBlocks;
    int64_t len = std::max<int64_t>(0, maxSeqLen);
    // A 64-head program holds q and two token blocks in shared memory
    // (about 220 KB): it fills an SM.
    bool fillsSM = headBlock >= TritonMLAImpl::kWarpgroupHeadBlock;
    // At least minSplits (the seed's 4): with ragged lengths a few splits
    // per request balance the SMs much better, at little cost for uniform
    // ones. The longest request's chunk is the tail of the launch: chunks
    // of at most 4096 tokens per head block (ragged B=32..128 at L=32768,
    // H=16: 13-19% faster on the H200; uniform within 1%), 2048 for
    // SM-filling programs (ragged H=128 B=32 L=8192: 267 -> 229 us), as
    // long as that keeps the launch within 16 programs per SM (which also
    // bounds the workspace).
    int64_t sms = std::max(1, numSMs);
    int64_t tailChunk =
        fillsSM ? kWarpgroupTailChunkTokens : kTailChunkTokens * headBlocks;
    int64_t byTail = std::min(cdiv(len, tailChunk),
                              std::max<int64_t>(1, 16 * sms / programs));
    // Enough programs for two per SM, or one where a program fills an SM:
    // a second wave of those only adds each program's start and end
    // (H=128 B=8 L=4096 on the H200: 16 splits 51.6 us, 8 splits 39.2 us;
    // ragged 57.9 against 51.7).
    int64_t perWave = fillsSM ? sms : 2 * sms;
    int64_t want = std::max<int64_t>(
        {int64_t(minSplits), cdiv(perWave, programs), byTail});
    int64_t byLen = len / 256 + (len % 256 != 0); // cdiv without overflow
    int64_t splits = std::clamp<int64_t>(std::min(want, byLen), 1,
                                         std::clamp(maxSplits, 1, 256));
    return floorPowerOfTwo(splits);
  }
  }
  return 1;
}

BatchInvariantChunks batchInvariantChunks(int64_t numHeads, int headBlock,
                                          int64_t rank, int64_t maxBatch) {
  BatchInvariantChunks cut;
  cut.chunkTokens = headBlock >= TritonMLAImpl::kWarpgroupHeadBlock
                        ? TritonMLAImpl::kBatchInvariantWideChunk
                        : TritonMLAImpl::kBatchInvariantChunk;
  // A piece's partial result: H rows of R floats and an lse each.
  int64_t pieceBytes = std::max<int64_t>(1, numHeads) * (rank + 1) * 4;
  int64_t pieces = TritonMLAImpl::kBatchInvariantWorkspaceBytes /
                   (std::max<int64_t>(1, maxBatch) * pieceBytes);
  cut.maxPieces = int(std::clamp<int64_t>(pieces, 4, 64));
  return cut;
}

int64_t stage1SharedBytes(int tokenBlock, int headBlock, int stages,
                          int64_t rank, int64_t rope, KvCacheFormat format,
                          bool codesInPlace) {
  const int64_t tokens = tokenBlock, heads = headBlock;
  const int64_t row = (rank + rope + 16) * 2;
  const int64_t pScratch = heads * (tokens + 8) * 2;
  const int64_t widened = codesInPlace ? 0 : 1;
  switch (format) {
  case KvCacheFormat::Native:
    return (stages * tokens + heads) * row + pScratch;
  case KvCacheFormat::Fp8: // code stages (two parts padded by 16) + widened
    return stages * tokens * (rank + rope + 32) +
           (widened * tokens + heads) * row + pScratch;
  case KvCacheFormat::Fp8DsMla: {
    const int64_t tiles = rank / 128;
    const int64_t codeRow = rank + 16 * tiles + rope * 2 + 16;
    return stages * tokens * codeRow +
           widened * tokens * (rank + 8 * tiles) * 2 +
           heads * (rank + 8 * tiles + rope + 8) * 2 + 4 * heads * tokens;
  }
  }
  return 0;
}

int fittingTokenBlock(int64_t maxSharedBytes, int headBlock, int stages,
                      int64_t rank, int64_t rope, KvCacheFormat format,
                      bool codesInPlace) {
  for (int tokenBlock : {TritonMLAImpl::kTokenBlock, 32})
    if (stage1SharedBytes(tokenBlock, headBlock, stages, rank, rope, format,
                          codesInPlace) <= maxSharedBytes)
      return tokenBlock;
  return 16;
}

bool TritonMLAImpl::deviceScheduled(bool tma, int64_t batch,
                                    int64_t rows) const {
  if (opts.splitPolicy != SplitPolicy::Auto)
    return false;
  switch (opts.deviceSchedule) {
  case DeviceSchedule::Off:
    return false;
  case DeviceSchedule::Always:
    return true;
  case DeviceSchedule::Default:
    break;
  }
  const bool measured = (rolesOnTma(tma) && opts.warpSpecialize &&
                         headBlock(rows) == kWarpgroupHeadBlock) ||
                        (warpgroupTiles && mayShareSMs(rows));
  return measured && batch * headBlocks(rows) >= kDeviceScheduleMinItems;
}

BatchInvariantChunks TritonMLAImpl::invariantCut(int64_t rows) const {
  return batchInvariantChunks(rows, headBlock(rows), rank, opts.maxBatch);
}

int TritonMLAImpl::splitsFor(int64_t batch, int64_t maxSeqLen,
                             int64_t rows) const {
  // The grid covers the longest request's pieces (at most maxPieces), each
  // request its own (BatchInvariantChunks::pieces <= this).
  if (batchInvariant()) {
    const BatchInvariantChunks cut = invariantCut(rows);
    return maxSeqLen < 0
               ? cut.maxPieces
               : int(std::clamp<int64_t>(cdiv(maxSeqLen, cut.chunkTokens), 1,
                                         cut.maxPieces));
  }
  return chooseNumSplits(opts.splitPolicy, batch, rows, maxSeqLen, numSMs,
                         opts.maxSplits, headBlock(rows), opts.minSplits);
}

TritonMLAImpl::LaunchShape
TritonMLAImpl::launchShape(int64_t batch, int64_t programs, bool scheduled,
                           int64_t queryLen, bool wideFp8) const {
  const int64_t sms = numSMs, rows = queryLen * heads;
  LaunchShape shape{tokenBlock(rows), stage1Warps(rows), rank};
  shape.queryLen = queryLen;
  // Batch invariance: the same tiles whatever the batch (the token block
  // orders a piece's sums, the column block stage 2's).
  if (batchInvariant()) {
    shape.columnBlock = std::min<int64_t>(rank, kBatchInvariantColumns);
    return shape;
  }
  // Measured: 256 programs on 132 SMs gain, 128 lose (but large fp8
  // batches gain more with the default tiles: wideFp8Tiles).
  if (mayShareSMs(rows) && 2 * programs >= 3 * sms && !wideFp8)
    shape.tokenBlock = kSharedTokenBlock, shape.warps = kSharedWarps;
  // Stage 2: whole rows per program where that still gives two programs per
  // SM (a few large programs stream; many small ones wait on latency), else
  // narrower column blocks, down to 32.
  while (shape.columnBlock > kMinStage2Columns &&
         batch * rows * (rank / shape.columnBlock) < 2 * sms)
    shape.columnBlock /= 2;
  // After a device schedule most of a large batch's stage-2 programs find
  // their request done by stage 1 and only read its slot count, but
  // launching them still costs (H=64 B=128 L=4096 on the H200: 11.6 us for
  // 8,192 programs, 4.3-5.3 us for 2,048 of 4 heads each): several heads
  // per program, while enough programs remain to spread the merges. A
  // program of several heads also merges without exchanging anything
  // between its threads: at 4 programs per SM rather than 8, H=64 B=32
  // L=4096 took 4 % less (7 % ragged) and H=16 B=128 2 %, the rest the same.
  if (scheduled)
    while (shape.stage2Heads < kMaxStage2Heads &&
           batch * cdiv(rows, 2 * shape.stage2Heads) *
                   (rank / shape.columnBlock) >=
               kStage2ProgramsPerSM * sms)
      shape.stage2Heads *= 2;
  return shape;
}

} // namespace tilemla::mla
