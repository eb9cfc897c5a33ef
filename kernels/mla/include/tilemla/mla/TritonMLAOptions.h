//===- TritonMLAOptions.h - how a TritonMLAImpl is configured ---*- C++ -*-===//
//
// The MLA shape arguments and the options of TritonMLAImpl (TritonMLA.h):
// the workspace's sizes, the split policy and device schedule, tile tuning,
// checked inputs and the experiments that stay off.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_MLA_TRITONMLAOPTIONS_H
#define TILEMLA_MLA_TRITONMLAOPTIONS_H

#include "tilemla/mla/SplitPolicy.h"

#include <cstdint>
#include <optional>

namespace tilemla::mla {

/// The MLA arguments of the seed's **mla_args that the decode path uses.
struct MLAArgs {
  int64_t kv_lora_rank = 512;    ///< R: latent (value) width
  int64_t qk_rope_head_dim = 64; ///< P: rotary key width
  int64_t qk_nope_head_dim = 128;
  int64_t v_head_dim = 128;
};

/// dtype of the lse output: f32 (default), or q's dtype like the seed.
enum class LseDType { F32, Query };

struct TritonMLAOptions {
  /// The largest batch forward_decode accepts; sizes the f32 workspace
  /// (partial outputs [B, H, splits, R] and their log-sum-exps [B, H,
  /// splits] for the largest B * splits the policy gives a batch of up to
  /// maxBatch requests), allocated once.
  int64_t maxBatch = 256;
  SplitPolicy splitPolicy = SplitPolicy::Fixed4;
  LseDType lseDtype = LseDType::F32;
  /// The CUDA device of every tensor; it must be the current context's.
  /// -1: no device: nothing is allocated and forward_decode validates its
  /// arguments and then throws (for testing validation without a GPU).
  int device = 0;
  /// SplitPolicy::Auto: the SM count (0: ask the driver; 132 without one).
  int numSMs = 0;
  /// SplitPolicy::Auto: the most splits (1..256) and the fewest it gives a
  /// batch long enough for them (1..256; maxSplits wins).
  int maxSplits = 128;
  int minSplits = 4;
  /// Stage-1 tile configuration, for tuning: tokens per step (a power of two,
  /// 16..128), warps per program (1..16, a power of two), heads per program
  /// (16, 32 or 64) and pipeline stages (1..4: token blocks in shared
  /// memory, stages - 1 of them in flight while one is computed on; 1: no
  /// pipelining); 0: defaults (TritonMLAImpl::kTokenBlock, kStage1Warps,
  /// kHeadBlock or kWideHeadBlock, kStages; on sm_90a with H > 16,
  /// kWarpgroupHeadBlock heads over kWarpgroupWarps warps; elsewhere the
  /// largest token block whose stage 1 fits the device's shared memory,
  /// fittingTokenBlock). Stage 1 needs stage1SharedBytes(...) of shared
  /// memory; a tokenBlock set here that needs more than the device has
  /// fails at the first call with the compiler's error.
  int tokenBlock = 0;
  int stage1Warps = 0;
  int headBlock = 0;
  int stages = 0;
  /// On sm_90a with warpgroup head blocks (kWarpgroupHeadBlock), stage 1
  /// streams the cache's token blocks with TMA when it can: pages of a
  /// multiple of tokenBlock tokens, stored one after the other, 16-byte
  /// aligned rows. false: always cp.async (for comparison).
  bool tma = true;
  /// On that TMA path, a producer warpgroup of its own issues the copies
  /// and runs ahead of the compute warps (tile-warp-specialize): 4 more
  /// warps per program. false: the compute warps issue them (for
  /// comparison).
  bool warpSpecialize = true;
  /// On the TMA path with more heads than a block (the score tiles are
  /// owned by one warpgroup), a third compute warpgroup takes the score
  /// tiles and their softmax, with loops of its own (tile-split-roles),
  /// ahead of the two that rescale and accumulate; it replaces the
  /// producer warpgroup (12 warps: a 16-warp program would leave ptxas 128
  /// registers per thread, too few beside a 128-register accumulator).
  /// On by default: 9-12 % faster at H=128 and B >= 32 on the H200
  /// (docs/design/PINGPONG.md section 11); false: the producer warpgroup.
  bool scoreWarpgroup = true;
  /// Work in progress, off by default: on that path, instead of a score
  /// warpgroup, the two compute warpgroups take the score tiles of
  /// alternate token blocks (`with seesaw`, docs/design/PINGPONG.md section
  /// 15). Correct, but 1.2-1.3x slower than the score warpgroup on the
  /// H200 today: with two whole-tile stages, a stage's refill sits on every
  /// pair's path. Wins over scoreWarpgroup.
  bool seesaw = false;
  /// An experiment, off by default: on the TMA path, stage 1 streams the
  /// latent part of each token block as two halves of R / 2 columns, each
  /// with its own barrier, so that the score dots start on the rope box
  /// and the first half while the second lands, and p . V runs as two
  /// dots (docs/design/PINGPONG.md section 15.2). Measured on the H200:
  /// 0-2.5 % slower at H=64 and 128 (no shape gains), so off.
  bool latentHalves = false;
  /// With a per-tensor fp8 cache ("fp8", "fp8_e4m3") and bf16 queries,
  /// whether stage 1 widens the codes to f16 rather than bf16 (one cvt per
  /// two codes on sm_89+, against about four instructions on sm_90) and
  /// runs the cache's dots in f16: q scaled by a power of two so that its
  /// largest value fits (exact above f16's normal floor), the scores scaled
  /// back, p computed times 2^13 and rounded to f16. Unset: f16 where
  /// mma.sync dots read the codes in place (sm_89+, head blocks below 64;
  /// H100, H=16 B=128 L=8192: 309.9 -> 280.1 us), bf16 elsewhere (the
  /// widened copy: H=128 B=32 wgmma 332 -> 415 us in f16). No effect on "fp8_ds_mla" (p
  /// times a tile's scale would fall below f16's range). docs/design/FP8.md.
  std::optional<bool> f16Dots;
  /// With a per-tensor fp8 cache whose codes the mma.sync dots read in
  /// place (sm_89+, head blocks below 64) and 16-bit queries: the dots run
  /// on the tensor cores' fp8 forms, with no widening. q (scaled by a power
  /// of two) and p (times 2^8) are each two e4m3 terms, hi + lo, about
  /// bf16's precision, so each dot runs twice, accumulating on the tensor
  /// cores. An option, off by default, whose accuracy
  /// tests/gpu/MlaFp8CacheTest.cpp states; takes precedence over f16Dots.
  /// On sm_90 ptxas emulates mma.sync's fp8 forms (conversions and f16
  /// HMMA): H100, H=16 B=128 L=8192, 273.8 -> 549.8 us. For sm_89, where
  /// they are native (unmeasured). docs/design/FP8.md, session 47.
  bool fp8Dots = false;
  /// With a per-tensor fp8 cache and 64-head programs on sm_90a: stage 1
  /// streams the codes with TMA into 8-bit swizzled stages (not cp.async),
  /// and the compute warps widen each landed tile once; a producer
  /// warpgroup issues the copies where warpSpecialize (the default), never
  /// the score warpgroup unless fp8ScoreWarpgroup (docs/design/FP8.md,
  /// Next 2). On: with the producer it was 17-19 % faster than cp.async at
  /// H=64 and 128 on the H200 (H=128 B=128 L=8192: 1297 -> 1080 us; bf16
  /// 511), the score warpgroup 0-20 % faster again; every fp8 GPU test
  /// passes with it on (an H100, session 57). Off: cp.async's kernels.
  bool fp8Tma = true;
  /// With fp8Tma: stage 1 with the score warpgroup (scoreWarpgroup), the
  /// accumulating warpgroups widening each landed tile a trip ahead and
  /// signalling it to the score warpgroup (tile-pipeline-loops,
  /// tile-split-roles), in place of the producer warpgroup; at 64 heads
  /// too, whose scores it then owns. On (acting only with fp8Tma): on an
  /// H100 it passes its tests at 64 and 128 heads and is 0-20 % faster
  /// than the producer kernel on every shape timed (H=128 B=128 L=8192:
  /// 1090 -> 876 us, bf16 526; H=64 B=32 L=8192: 150.6 -> 125.0, bf16
  /// 125.9). Not with f16Dots (the producer warpgroup's kernel then).
  bool fp8ScoreWarpgroup = true;
  /// With a producer warpgroup, stage 1 can run persistentWaves programs
  /// per SM (1..16), each taking work items (head block, request, split)
  /// that many apart: the producer streams the next item's first tokens
  /// while the compute warps finish this one. 0 (the default): a program
  /// per item.
  /// Measured on the H200 with 1: uniform batches gain up to 13 %
  /// (H=128 B=128 L=8192: 813 -> 706 us), ragged ones lose up to 27 % (a
  /// fixed share of items per program, where the hardware otherwise hands
  /// the next program to whichever SM is free).
  int persistentWaves = 0;
  /// Where SplitPolicy::Auto schedules on the device (see
  /// SplitPolicy::Auto and DeviceSchedule).
  DeviceSchedule deviceSchedule = DeviceSchedule::Default;
  /// The device schedule's cost model, for tuning: what entering a request
  /// costs in token blocks (0..64) and the fewest blocks it cuts a piece
  /// of (1..1024); 0: kScheduleOverheadBlocks, kScheduleMinPieceBlocks.
  int scheduleOverheadBlocks = 0;
  int scheduleMinPieceBlocks = 0;
  /// An experiment, off by default: where a call schedules on the device
  /// and was given no DecodeMetadata::schedule, stage 1's program 0 makes
  /// the schedule (the schedule kernel's code) while the other programs
  /// wait for its flag, instead of a third kernel before stage 1: one
  /// launch fewer (docs/design/SCHEDULE.md). Off until measured.
  /// precompile() prepares those calls' kernels; a call given a step
  /// schedule uses the schedule kernel's stages, compiled at its first use.
  bool scheduleInStage1 = false;
  /// With a schedule kernel's schedule: no stage 2. The last stage-1
  /// program to finish a piece of a request (per head block) merges the
  /// request's partial rows itself, counted by an atomic add (one launch
  /// fewer per call; requests without tokens are written by stage 1 too).
  /// Measured slower where requests have several pieces, so off. A given
  /// DecodeMetadata::schedule must match the lengths exactly: a stale one
  /// leaves a count behind that later calls inherit.
  bool mergeInStage1 = false;
  /// Where a call launches its own schedule kernel (TMA stage 1, bf16/f16
  /// cache, one query token): while that kernel runs, each stage-1 program
  /// prefetches into L2 the q rows and first token blocks it would take if
  /// the batch were uniform. Measured on an H100: 2.0-2.6 % faster at
  /// H=64/128 B=32 L=4096 uniform, the other shapes within 0.5 %
  /// (docs/design/SCHEDULE.md).
  bool prefetchWhileScheduling = true;
  /// A call's kernels go to the stream as one CUDA graph (LaunchGraph),
  /// made at the first call of each launch plan and given each call's
  /// grids and arguments, rather than a launch per kernel. Measured on an
  /// H100 (mla-bench, auto, H=16/64/128, B=32/128, L=4096, two rounds):
  /// host time per call 8.4-15 -> 3.5-5.1 us, the GPU's within 1.5 % (H=128
  /// B=128 uniform 1.4 % slower, most others 0.5-2 % faster). Calls made
  /// while the stream is captured, and checked calls, launch directly;
  /// false: always directly.
  bool launchAsGraph = true;
  /// With a per-tensor fp8 cache whose codes 16-head programs read in
  /// place: where a call schedules on the device and its batch times
  /// max_seq_len reaches this many tokens, stage 1 keeps its default tiles
  /// (64-token steps over 4 warps) on the schedule's two programs per SM,
  /// instead of the shared-SM tiles (32 over 2). Measured on an H100
  /// (docs/design/FP8.md, Next 4): from 2^19 tokens (B=64 L=8192, B=128
  /// L=4096 and 8192, B=32 L=32768) 5-10 % faster on uniform batches,
  /// 2-22 % on ragged ones; mixed at 2^18, 3-4 % slower at B=32 L=4096.
  /// 0: never.
  /// Calls given a DecodeMetadata::schedule keep the shared-SM tiles, whose
  /// steps it was made in (a captured call may replay against schedules
  /// made later for other batches).
  int64_t wideFp8TilesMinTokens = int64_t{1} << 19;
  /// Checked inputs (also on when the environment has
  /// TILEMLA_CHECK_INPUTS=1): a kernel checks the metadata on the device
  /// before the decode reads it (seq_lens >= 0 and within the block table's
  /// row, the page ids a request uses within the cache). A bad request is
  /// decoded as empty (o = 0, lse = -inf), never read outside the cache;
  /// the call then synchronizes its stream and throws an Error naming the
  /// request and the table column. Under graph capture nothing can wait:
  /// a replay's violation is reported by the next call made outside a
  /// capture. Off by default (no kernel, no synchronization).
  bool checkInputs = false;
  /// The most query tokens per request (s_q, 1..16) a call may decode:
  /// sizes the workspace, which holds s_q * H partial rows per (request,
  /// split). See forward_decode's multi-token form.
  int maxQueryLen = 1;
};

} // namespace tilemla::mla

#endif // TILEMLA_MLA_TRITONMLAOPTIONS_H
