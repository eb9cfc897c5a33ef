//===- SplitPolicy.h - how MLA decode divides its work ----------*- C++ -*-===//
//
// The split policies and device schedules of TritonMLAImpl (TritonMLA.h),
// and the pure host functions that size its tiles and splits (SplitPolicy.cpp
// implements them; the unit tests call them directly).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_MLA_SPLITPOLICY_H
#define TILEMLA_MLA_SPLITPOLICY_H

#include "tilemla/Export.h"

#include <algorithm>
#include <cstdint>

namespace tilemla::mla {

/// How many KV splits (stage-1 programs per request and head block) a call
/// uses.
enum class SplitPolicy {
  /// 4, always: the seed's default.
  Fixed4,
  /// Each request's o and lse are bitwise identical whatever batch,
  /// position or neighbours it has (reproducible serving, RL rollouts),
  /// while a long request still runs on many programs: a request of L
  /// tokens is cut into pieces of a fixed length that depends on L alone
  /// (BatchInvariantChunks::pieceTokens), each piece is one stage-1
  /// program's, and stage 2 merges them in one fixed order. The kernels'
  /// tile shapes do not depend on the batch either. The seed's mode (one
  /// split per request) was 11x slower at B=8 L=4096.
  BatchInvariant,
  /// From host-side facts only (SM count, batch, heads, max_seq_len):
  ///   head_blocks = cdiv(H, headBlock), programs_per_split = B * head_blocks
  ///   tail   = 2048 for 64-head programs (one fills an SM's shared
  ///            memory and its tensor cores), else 4096 * head_blocks
  ///   by_tail = min(cdiv(max_seq_len, tail),
  ///                 16 * numSMs / programs_per_split)
  ///            (the longest chunk is the launch's tail; at most 16 programs
  ///            per SM)
  ///   wave   = numSMs for 64-head programs, else 2 * numSMs
  ///   want   = max(minSplits (4), cdiv(wave, programs_per_split), by_tail)
  ///            (about one wave of SM-filling programs or two of others, at
  ///            least the seed's 4 for ragged batches)
  ///   by_len = cdiv(max_seq_len, 256)                (>= 256 tokens a split)
  ///   splits = clamp(min(want, by_len), 1, maxSplits), rounded down to a
  ///            power of two (so at most 9 specializations get compiled).
  /// Where stage 1 runs 64-head programs with a warp-specialized TMA
  /// producer, or 16-head programs on sm_90a, and B * head blocks >=
  /// kDeviceScheduleMinItems, Auto instead schedules on the device
  /// (TritonMLAOptions::deviceSchedule): a kernel reads seq_lens and gives
  /// each SM's program (two per SM for 16-head ones) one piece of about the
  /// batch's mean share, or, when that makes more pieces than programs, an
  /// equal range of the batch's token blocks (a fixed cost per request
  /// included; mla_decode_schedule.tile).
  /// Needs DecodeMetadata::max_seq_len.
  Auto,
};

/// What a cache row holds (TritonMLAImpl's kv_cache_dtype).
enum class KvCacheFormat {
  /// "auto": R + P values in q's dtype.
  Native,
  /// "fp8" / "fp8_e4m3": R + P e4m3 codes; one scale per call.
  Fp8,
  /// "fp8_ds_mla" (DeepSeek-V3.2's token): R = 512 e4m3 codes in four
  /// tiles of 128, each tile's f32 scale (value = code * scale), then P
  /// bf16 rope values: 656 bytes with P = 64.
  Fp8DsMla,
};

/// Bytes of an fp8_ds_mla token of `rank` codes and `rope` rope values.
constexpr int64_t dsMlaTokenBytes(int64_t rank, int64_t rope) {
  return rank + rank / 128 * 4 + rope * 2;
}

/// Where SplitPolicy::Auto schedules stage 1's work on the device.
enum class DeviceSchedule {
  /// Where it measured faster (H200): 64-head programs with a
  /// warp-specialized TMA producer (sm_90a, H > 16), and 16-head programs
  /// on sm_90a (H <= 16, default tiles), in batches of at least
  /// TritonMLAImpl::kDeviceScheduleMinItems (request, head block) pairs.
  Default,
  /// Never: host-side splits everywhere (for comparison).
  Off,
  /// On every stage-1 variant (for testing; the interpreter too).
  Always,
};

/// How SplitPolicy::BatchInvariant cuts a request: into pieces of
/// pieceTokens(L) tokens, a multiple of chunkTokens chosen so that there are
/// at most maxPieces of them.
struct BatchInvariantChunks {
  int64_t chunkTokens = 256;
  int maxPieces = 1;
  int64_t pieceTokens(int64_t seqLen) const {
    int64_t most = chunkTokens * maxPieces;
    return chunkTokens * std::max<int64_t>(1, (seqLen + most - 1) / most);
  }
  int64_t pieces(int64_t seqLen) const {
    int64_t piece = pieceTokens(seqLen);
    return seqLen > 0 ? (seqLen + piece - 1) / piece : 0;
  }
};

/// BatchInvariant's cut for an impl: chunkTokens from the heads per stage-1
/// program (more heads, longer chunks: a piece's partial result grows with
/// the heads), maxPieces as many as a workspace of
/// kBatchInvariantWorkspaceBytes allows for maxBatch requests (4..64).
TILEMLA_API BatchInvariantChunks batchInvariantChunks(int64_t numHeads,
                                                      int headBlock,
                                                      int64_t rank,
                                                      int64_t maxBatch);

/// Stage 1's shared memory where it copies the cache with cp.async (every
/// target but sm_90a's 64-head tiles), bytes: `stages` blocks of
/// `tokenBlock` cache rows and the q tile's `headBlock` rows, each of
/// rank + rope 2-byte values padded by 16 (ldmatrix reads them without
/// bank conflicts), and p's staging, `headBlock` rows of tokenBlock + 8.
/// A cache of 1-byte codes (KvCacheFormat::Fp8) has 1-byte rows in its
/// stages, each part padded by 16, and, unless the dots read the codes in
/// place (`codesInPlace`: targets with paired fp8 conversions, sm_89 on),
/// one more block of 2-byte rows its codes are widened into. An fp8_ds_mla
/// cache stages its four code tiles and its 2-byte rope, each padded by 16
/// bytes, widens the tiles alone (unless in place), reads q as five parts,
/// and converts four scaled copies of p. The unit tests hold it to what the
/// compiler allocates.
TILEMLA_API int64_t stage1SharedBytes(
    int tokenBlock, int headBlock, int stages, int64_t rank, int64_t rope,
    KvCacheFormat format = KvCacheFormat::Native, bool codesInPlace = true);

/// The default token block on a device whose programs may use
/// `maxSharedBytes`: the largest of 64, 32 and 16 whose stage 1 fits
/// (sm_90a and Blackwell's data-center parts: 64; sm_80: 32; the 99 KB of
/// sm_86, sm_89 and sm_120: 32 with 16 heads, 16 with 32); 16 if none does.
TILEMLA_API int fittingTokenBlock(int64_t maxSharedBytes, int headBlock,
                                  int stages, int64_t rank, int64_t rope,
                                  KvCacheFormat format = KvCacheFormat::Native,
                                  bool codesInPlace = true);

/// The split count `policy` chooses (see SplitPolicy). Pure host function.
/// BatchInvariant: 1 here (its pieces depend on each request's length; see
/// TritonMLAImpl::numSplits). `headBlock`: heads per stage-1 program.
TILEMLA_API int chooseNumSplits(SplitPolicy policy, int64_t batch,
                                int64_t numHeads, int64_t maxSeqLen, int numSMs,
                                int maxSplits = 128, int headBlock = 16,
                                int minSplits = 4);

} // namespace tilemla::mla

#endif
