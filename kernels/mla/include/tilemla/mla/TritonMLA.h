//===- TritonMLA.h - MLA decode attention backend (TRITON_MLA) --*- C++ -*-===//
//
// The C++ counterpart of the Python serving stack's TritonMLABackend /
// TritonMLAImpl (../shared/spec/seed_triton_mla_backend.txt, contract in
// ../shared/spec/MLA_DECODE.md): multi-head latent attention for decode, one
// query token per request (or several, causal among themselves: multi-token
// decode for speculative verification), over a paged latent KV cache,
// computed by two tile kernels (kernels/mla/mla_decode_stage1.tile,
// mla_decode_stage2.tile).
//
//   TritonMLAImpl impl(16, 576, scale, 1, std::nullopt, std::nullopt, "auto",
//                      std::nullopt, "decoder", std::nullopt,
//                      MLAArgs{512, 64, 128, 128}, TritonMLAOptions{});
//   impl.forward_decode(q, kv_cache, {block_table, seq_lens, max_len}, o, lse,
//                       stream);
//
// Tensors are views (TensorView): pointer, dtype, shape, strides (elements)
// and device. Every mismatch of shape, dtype, stride or device throws
// tilemla::Error naming the argument and what was expected, before anything
// touches the GPU; so do pointers not aligned to their elements, views the
// kernels cannot index in 32 bits, and outputs whose elements overlap or
// share memory with the inputs. forward_decode writes into caller-provided
// outputs, allocates nothing, never synchronizes the host and never reads
// device memory to decide a launch (the first call of a specialization
// JIT-compiles it; warm it up before capturing a CUDA graph).
//
// Threads: one impl may be called from several host threads and streams.
// Its calls share one workspace, so they queue their launches one at a time
// and a call on another stream than the previous call's waits for it on the
// device (the host never waits). Calls that should run at the same time on
// the GPU need an impl each. Captured graphs are ordered by whoever launches
// them: two graphs captured from one impl must not be replayed concurrently.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_MLA_TRITONMLA_H
#define TILEMLA_MLA_TRITONMLA_H

#include "tilemla/Runtime.h"
#include "tilemla/mla/DecodeSchedule.h"
#include "tilemla/mla/SplitPolicy.h"
#include "tilemla/mla/TritonMLAOptions.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tilemla::mla {

/// U8: raw bytes (an fp8_ds_mla cache; no tile-language type).
enum class DType { F16, BF16, F32, I32, FP8E4M3, U8 };
/// "f16", "bf16", "f32", "i32", "fp8e4m3" (the tile language's names), "u8".
TILEMLA_API const char *dtypeName(DType dtype);
TILEMLA_API size_t dtypeSize(DType dtype);

/// A strided tensor in device memory. Strides are in elements.
struct TensorView {
  void *data = nullptr;
  DType dtype = DType::BF16;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int device = 0; ///< CUDA device ordinal
};

/// A contiguous (row-major) view of `shape` at `data`.
TILEMLA_API TensorView contiguousView(void *data, DType dtype,
                                      std::vector<int64_t> shape,
                                      int device = 0);

/// The backend description (the seed's TritonMLABackend).
struct TILEMLA_API TritonMLABackend {
  static std::string getName();                ///< "TRITON_MLA"
  static std::vector<DType> supportedDtypes(); ///< F16, BF16
  /// "auto" (the cache in q's dtype), "fp8" and "fp8_e4m3" (e4m3 codes
  /// with a per-tensor scale, DecodeMetadata::kv_scale).
  static std::vector<std::string> supportedKvCacheDtypes();
  /// True for compute capability >= 8.0. (The seed says true for all; our
  /// runtime generates sm_80+ code: bf16 arithmetic and conversions,
  /// and it refuses older devices when it picks the target.)
  static bool supportsComputeCapability(int major, int minor);
};

/// The seed's decode metadata, plus a host-side fact.
struct DecodeMetadata {
  TensorView block_table; ///< [B, max_pages] i32, unit column stride
  TensorView seq_lens;    ///< [B] i32, contiguous
  /// The batch's largest seq_len as the host knows it (like vLLM's
  /// max_seq_len); -1: unknown. Required by SplitPolicy::Auto; when given,
  /// checked against the block table's capacity. Never read from the GPU.
  int64_t max_seq_len = -1;
  /// Optional: a schedule made by scheduleDecode from these seq_lens (the
  /// same data pointer and batch, else the call throws). A call that
  /// schedules on the device then reads it instead of making its own; other
  /// calls, and impls with TritonMLAOptions::checkInputs (whose schedule
  /// comes from the checked lengths), ignore it.
  const DecodeSchedule *schedule = nullptr;
  /// An fp8 cache's scale (kv_cache_dtype "fp8" / "fp8_e4m3"): the cache
  /// holds e4m3 codes of value / scale, dequantized as code * scale on
  /// load. Exactly one of: `kv_scale`, a host number (a captured graph
  /// keeps the value it was captured with), or `kv_scale_tensor`, one f32
  /// on the device ([] or [1]) read by every call, so a graph replays
  /// with the scale the tensor holds then. Neither with an "auto" cache,
  /// nor with "fp8_ds_mla", whose tokens carry their own scales.
  /// The two forms are different kernels: precompile prepares the one its
  /// metadata gives.
  std::optional<float> kv_scale;
  TensorView kv_scale_tensor; ///< data null: not given
};

class TILEMLA_API TritonMLAImpl {
public:
  static constexpr bool can_return_lse_for_decode = true;
  /// Heads per stage-1 program: 16 for H <= 16, 32 above (each program
  /// then reads a request's tokens for twice the heads). With s_q query
  /// tokens per request, these and kWarpgroupHeadBlock count query rows
  /// (s_q * H per request) instead of heads.
  static constexpr int kHeadBlock = 16;
  static constexpr int kWideHeadBlock = 32;
  static constexpr int kTokenBlock = 64; ///< tokens per stage-1 step
  static constexpr int kStages = 2;      ///< stage-1 pipeline stages
  static constexpr int kStage1Warps = 4; ///< warps per stage-1 program
  /// On sm_90a with H > 16: 64 heads per program over two warpgroups, so
  /// both dots run on wgmma (each warpgroup holds half of the 64 x R
  /// accumulator). Below 64 heads the rows past H are masked; still, on
  /// the H200 H=20 took 305 us instead of 409 at B=128 L=8192 (uniform;
  /// ragged 306 against 501) and 16 heads x 3 query tokens 309 against
  /// 813: the cache streams by TMA and one program reads it per request.
  static constexpr int kWarpgroupHeadBlock = 64;
  /// DeviceSchedule::Default schedules on the device from this many
  /// (request, head block) pairs: fewer lose to the schedule's fixed cost
  /// (a kernel and a round trip, about 5 us) more than a ragged batch gains.
  static constexpr int64_t kDeviceScheduleMinItems = 32;
  /// The device schedule charges entering a request (q's load, the first
  /// copies, writing a partial) as this many token blocks. Measured (H100,
  /// session 40): 4 against 2 took ragged batches of 32 and 128 at H=64
  /// and 128 0.8-6 % faster, H=16 ones up to 1 %, uniform ones within
  /// 0.5 % either way.
  static constexpr int kScheduleOverheadBlocks = 4;
  /// ... and cuts pieces of at least this many token blocks.
  static constexpr int kScheduleMinPieceBlocks = 4;
  static constexpr int kWarpgroupWarps = 8;
  /// 64-row wgmma tiles on an fp8 cache (cp.async codes widened into a
  /// swizzled block; no TMA yet): 32-token steps, whose code stages,
  /// widened block and q fit a program's shared memory (151 KB; 64-token
  /// steps need 229 KB, past sm_90a's 227).
  static constexpr int kFp8WarpgroupTokenBlock = 32;
  /// With 16-head blocks and a launch of at least 1.5 programs per SM:
  /// 32-token steps over 2 warps, whose 93 KB of shared memory let two
  /// programs share an SM (one's prologue and epilogue overlap the other's
  /// stream). Measured on the H200 (H=16, page 64, uniform lengths): B=128
  /// L=32768 1320 -> 1213 us, L=8192 362 -> 332 us, B=32 L=32768 343 -> 317
  /// us (256 programs); ragged batches within -5..+9%. Fewer programs keep
  /// the defaults (B=1 and B=8 L=4096, 128 programs, lose: a lone program
  /// streams faster with 4 warps and 64-token steps).
  static constexpr int kSharedTokenBlock = 32;
  static constexpr int kSharedWarps = 2;
  /// Stage 2: the narrowest column block, and the most values (splits x
  /// columns) one program merges per step.
  static constexpr int64_t kMinStage2Columns = 32;
  static constexpr int64_t kStage2BlockValues = 4096;
  /// After a device schedule, stage 2 takes up to kMaxStage2Heads heads per
  /// program while that leaves kStage2ProgramsPerSM programs per SM.
  static constexpr int64_t kMaxStage2Heads = 8;
  static constexpr int64_t kStage2ProgramsPerSM = 4;
  /// BatchInvariant: the workspace its pieces may fill (see
  /// batchInvariantChunks), stage 2's column block (fixed: it decides which
  /// threads sum which pieces), and the chunk of 64-head programs and of
  /// smaller ones.
  static constexpr int64_t kBatchInvariantWorkspaceBytes = int64_t(1) << 30;
  static constexpr int64_t kBatchInvariantColumns = 128;
  static constexpr int64_t kBatchInvariantChunk = 256;
  static constexpr int64_t kBatchInvariantWideChunk = 512;

  /// The seed's constructor. Throws tilemla::Error with the seed's messages
  /// for what it refuses: alibi_slopes, sliding_window or logits_soft_cap
  /// set (Python truthiness: an empty list or 0 counts as unset), attn_type
  /// other than "decoder", kv_cache_dtype other than "auto"; and for
  /// arguments the kernels cannot take (num_kv_heads != 1, head_size !=
  /// R + P, R or P not a power of two, ...). Allocates the workspace.
  TritonMLAImpl(int64_t num_heads, int64_t head_size, double scale,
                int64_t num_kv_heads,
                const std::optional<std::vector<float>> &alibi_slopes,
                std::optional<int64_t> sliding_window,
                const std::string &kv_cache_dtype,
                std::optional<double> logits_soft_cap,
                const std::string &attn_type,
                const std::optional<std::string> &kv_sharing_target_layer_name,
                const MLAArgs &mla_args, const TritonMLAOptions &options = {});
  ~TritonMLAImpl();
  TritonMLAImpl(const TritonMLAImpl &) = delete;
  TritonMLAImpl &operator=(const TritonMLAImpl &) = delete;

  /// Decode attention. q: [B, H, R + P] (or the pair q_nope [B, H, R], q_pe
  /// [B, H, P]), f16 or bf16, unit last stride. kv_cache: [num_pages,
  /// page_size, R + P] or [num_pages, page_size, 1, R + P] in q's dtype, unit
  /// last stride (kv_cache_dtype "fp8": e4m3 codes; "fp8_ds_mla": rows of
  /// dsMlaTokenBytes(R, P) = 656 bytes, u8 or fp8e4m3, 4-byte aligned with
  /// page and token strides in multiples of 4 bytes; see KvCacheFormat).
  /// Writes o [B, H, R] (q's dtype) and lse [B, H] (f32, or q's
  /// dtype with LseDType::Query), any strides with a unit last one for o.
  /// seq_lens[b] == 0 gives o = 0, lse = -inf. `stream`: a CUstream.
  ///
  /// Multi-token decode (MTP, speculative verification): q [B, s_q, H,
  /// R + P] (or the pair [B, s_q, H, R] and [B, s_q, H, P]), 1 <= s_q <=
  /// options.maxQueryLen, the same s_q for every request of a call; o
  /// [B, s_q, H, R], lse [B, s_q, H]. seq_lens[b] counts the request's
  /// tokens including its s_q new ones, and query token j attends to the
  /// first seq_lens[b] - s_q + j + 1 (causal among the new tokens); a
  /// token that sees none (seq_lens[b] < s_q - j) gets o = 0, lse = -inf.
  /// The s_q * H query rows of a request share every cache tile stage 1
  /// reads, as heads do: the cache is read once per request, whatever s_q.
  void forward_decode(const TensorView &q, const TensorView &kv_cache,
                      const DecodeMetadata &metadata, const TensorView &o,
                      const TensorView &lse, StreamHandle stream = nullptr);
  void forward_decode(const TensorView &q_nope, const TensorView &q_pe,
                      const TensorView &kv_cache,
                      const DecodeMetadata &metadata, const TensorView &o,
                      const TensorView &lse, StreamHandle stream = nullptr);
  /// Without lse (written to an internal buffer).
  void forward_decode(const TensorView &q, const TensorView &kv_cache,
                      const DecodeMetadata &metadata, const TensorView &o,
                      StreamHandle stream = nullptr);
  void forward_decode(const TensorView &q_nope, const TensorView &q_pe,
                      const TensorView &kv_cache,
                      const DecodeMetadata &metadata, const TensorView &o,
                      StreamHandle stream = nullptr);

  /// A device schedule for calls of up to options.maxBatch requests on
  /// this impl's configuration (see DecodeSchedule); allocates its buffer.
  /// Throws without a device (options.device = -1). The schedule serves
  /// calls of `queryLen` query tokens per request (the heads per stage-1
  /// program, hence its parts, depend on s_q * H).
  std::unique_ptr<DecodeSchedule> newDecodeSchedule(int64_t queryLen = 1) const;
  /// Launches the device schedule of metadata.seq_lens' batch (1 up to the
  /// schedule's maxBatch requests) into `schedule` on `stream`; reads only
  /// seq_lens (block_table and max_seq_len are not used). Like
  /// forward_decode it never synchronizes (the first call compiles the
  /// kernel). Throws when `schedule` was made for another configuration,
  /// and for a bad seq_lens view, naming it. Kernels launched on the stream
  /// between this and the calls that read the schedule must wait for their
  /// predecessors (any ordinary launch does).
  void scheduleDecode(const DecodeMetadata &metadata, DecodeSchedule &schedule,
                      StreamHandle stream = nullptr);

  /// Compiles and loads, in parallel threads, every kernel forward_decode
  /// can choose for calls with these tensors or with views of their first
  /// 1..B requests (B: q's batch; pass buffers of options.maxBatch requests
  /// to cover every batch), whatever max_seq_len the block table can hold
  /// (its pages times the page size): each split count, device schedule
  /// and stage-2 shape. Call it once before capturing CUDA graphs, so that
  /// no capture compiles; calls after it compile nothing new for such
  /// tensors. metadata.max_seq_len and the tensors' contents are not used.
  /// Checks its arguments as forward_decode does (the same errors); launches
  /// nothing. Returns how many kernel sets (stage 1, stage 2, schedule) it
  /// prepared.
  int precompile(const TensorView &q, const TensorView &kv_cache,
                 const DecodeMetadata &metadata, const TensorView &o,
                 const TensorView &lse);
  int precompile(const TensorView &q_nope, const TensorView &q_pe,
                 const TensorView &kv_cache, const DecodeMetadata &metadata,
                 const TensorView &o, const TensorView &lse);
  /// For the forward_decode forms without lse.
  int precompile(const TensorView &q, const TensorView &kv_cache,
                 const DecodeMetadata &metadata, const TensorView &o);
  int precompile(const TensorView &q_nope, const TensorView &q_pe,
                 const TensorView &kv_cache, const DecodeMetadata &metadata,
                 const TensorView &o);

  /// How many kernel sets (stage 1, stage 2, schedule) this impl holds:
  /// one per distinct launch configuration its calls have chosen.
  size_t kernelSetCount() const {
    std::lock_guard<std::mutex> lock(callMutex);
    return kernelCache.size();
  }

  /// Whether a call with this cache schedules its work on the device (see
  /// DeviceSchedule); numSplits then does not apply. `queryLen`: s_q.
  bool schedulesOnDevice(const TensorView &kv, int64_t batch,
                         int64_t queryLen = 1) const {
    const int64_t rows = queryLen * heads;
    return deviceScheduled(canStreamWithTma(kv, queryLen), batch, rows);
  }
  /// The split count a call with this batch and max_seq_len uses
  /// (BatchInvariant: the most pieces a request of up to max_seq_len tokens
  /// has; all of BatchInvariantChunks::maxPieces when max_seq_len is -1).
  int numSplits(int64_t batch, int64_t maxSeqLen, int64_t queryLen = 1) const {
    return splitsFor(batch, maxSeqLen, queryLen * heads);
  }
  /// How BatchInvariant cuts requests of `queryLen` query tokens (whatever
  /// the policy).
  BatchInvariantChunks batchInvariantCut(int64_t queryLen = 1) const {
    return invariantCut(queryLen * heads);
  }
  /// The most (request, split) pairs one call of a query token per request
  /// can use.
  int64_t workspaceSplitRows() const { return wsSplitRows; }
  /// The workspace's bytes (partial rows of R floats and their lse, for
  /// every s_q up to options.maxQueryLen), allocated at construction.
  size_t workspaceBytes() const {
    return size_t(wsPartialRows) * size_t(rank + 1) * sizeof(float);
  }
  int64_t numHeads() const { return heads; }
  int64_t kvLoraRank() const { return rank; }
  int64_t ropeDim() const { return rope; }
  double getScale() const { return softmaxScale; }
  const TritonMLAOptions &getOptions() const { return opts; }
  /// Whether stage 1 reads the cache `kv` (a valid kv_cache view) with TMA
  /// (see TritonMLAOptions::tma) in calls of `queryLen` query tokens.
  bool canStreamWithTma(const TensorView &kv, int64_t queryLen = 1) const;

private:
  /// One call's tensors (pointed to: a call copies nothing).
  struct DecodeCall {
    const TensorView *qNope, *qPe;
    size_t qPeOffset; ///< elements from q_pe's data to its first value
    bool paired;
    const TensorView *kv;
    const DecodeMetadata *metadata;
    const TensorView *o, *lse; ///< lse null: the internal buffer
  };
  struct Kernels {
    Kernel stage1, stage2;
    std::optional<Kernel> schedule; ///< with a device-side schedule
    std::optional<Kernel> check;    ///< with TritonMLAOptions::checkInputs
    /// Compiled together on the first call (the next ones take what their
    /// arguments select, as any launch).
    bool prepared = false;
  };
  /// What a call launches, in order: the schedule (when scheduled), stage
  /// 1 on `programs` programs, stage 2 on stage2Grid.
  struct CallPlan {
    Kernels *kernels;
    bool scheduled;
    bool makesSchedule;  ///< a schedule kernel runs first
    bool mergesInStage1; ///< stage 1 merges the pieces: no stage 2
    unsigned programs;
    Dim3 stage2Grid;
    unsigned batch;
    /// For checked inputs' messages: the table's columns, tokens per page
    /// and the cache's pages.
    int64_t tablePages = 0, pageSize = 0, cachePages = 0;
    std::vector<KernelArg> checkArgs, scheduleArgs, stage1Args, stage2Args;
  };
  /// Checks a call's arguments (throwing what forward_decode documents)
  /// and plans its launches; nullopt for an empty batch. The caller holds
  /// callMutex (this may add kernel sets).
  std::optional<CallPlan> plan(const DecodeCall &call);
  void run(const DecodeCall &call, StreamHandle stream);
  int precompileCalls(const DecodeCall &call);
  /// The kernels a planned call launches, with their arguments: what its
  /// first call (or precompile) compiles side by side.
  static std::vector<std::pair<Kernel, std::vector<KernelArg>>>
  launchesOf(const CallPlan &plan);
  // Below, `rows` is a call's query rows per request: s_q * H (H with
  // one query token). Stage 1 blocks them as it blocks heads, so the tiles,
  // splits and schedule follow the rows.
  /// What a batch's launches look like: stage 1's query tokens per
  /// request, tokens per step and warps, stage 2's output columns per
  /// program.
  struct LaunchShape {
    int tokenBlock, warps;
    int64_t columnBlock;
    int64_t stage2Heads = 1; ///< rows per stage-2 program
    int64_t queryLen = 1;
    bool operator<(const LaunchShape &o) const {
      return std::tie(tokenBlock, warps, columnBlock, stage2Heads, queryLen) <
             std::tie(o.tokenBlock, o.warps, o.columnBlock, o.stage2Heads,
                      o.queryLen);
    }
  };
  /// `programs`: stage 1's grid; `scheduled`: with a device schedule;
  /// `wideFp8`: the default tiles on shared SMs (wideFp8Tiles).
  LaunchShape launchShape(int64_t batch, int64_t programs, bool scheduled,
                          int64_t queryLen, bool wideFp8 = false) const;
  int splitsFor(int64_t batch, int64_t maxSeqLen, int64_t rows) const;
  BatchInvariantChunks invariantCut(int64_t rows) const;
  bool batchInvariant() const {
    return opts.splitPolicy == SplitPolicy::BatchInvariant;
  }
  /// Stage 1's KV_SCALE for a call with `metadata` (see kernelsFor); throws
  /// for a scale that is missing, given twice or given to an "auto" cache.
  int checkKvScale(const DecodeMetadata &metadata) const;
  /// `scheduleMode`: the stages' SCHEDULE (0: host splits, 1: a schedule
  /// kernel's, 2: made in stage 1), or 3: 1 with a schedule kernel launched
  /// by the call right before stage 1, which then prefetches while it runs
  /// (TritonMLAOptions::prefetchWhileScheduling); `kvScaleMode`: stage 1's
  /// KV_SCALE (0: a cache in q's dtype, 1: an fp8 cache's host scale, 2: its
  /// device scalar).
  Kernels &kernelsFor(int64_t pageSize, int splits, DType dtype, DType lseDtype,
                      int kvScaleMode, bool tma, int scheduleMode,
                      LaunchShape shape);
  /// Whether a call with `batch` requests schedules its work on the device
  /// (see TritonMLAOptions::deviceSchedule).
  bool deviceScheduled(bool tma, int64_t batch, int64_t rows) const;
  /// The device schedule's parts: one stage-1 program per SM, a part per
  /// head block's worth of them; two per SM for 16-head programs, which
  /// then take launchShape's shared-SM tiles (one's prologue and epilogue
  /// overlap the other's stream).
  int64_t scheduleParts(int64_t rows) const {
    return std::max<int64_t>(1, (mayShareSMs(rows) ? 2 : 1) * numSMs /
                                    headBlocks(rows));
  }
  /// Stage 1's tokens per step after a device schedule (whatever the
  /// batch: its grid is scheduleParts() times the head blocks).
  int scheduleTokenBlock(int64_t rows) const {
    return launchShape(1, scheduleParts(rows) * headBlocks(rows), true,
                       rows / heads)
        .tokenBlock;
  }
  /// Whether a call of `batch` requests of up to `maxSeqLen` tokens (-1:
  /// unknown) that makes its own device schedule takes the default tiles on
  /// shared SMs (TritonMLAOptions::wideFp8TilesMinTokens), where those
  /// steps are longer than the shared-SM tiles'.
  bool wideFp8Tiles(int64_t rows, int64_t batch, int64_t maxSeqLen) const {
    const int64_t least = opts.wideFp8TilesMinTokens;
    return least > 0 && readsFp8InPlace(rows) && mayShareSMs(rows) &&
           deviceTokenBlock(rows) > kSharedTokenBlock && batch > 0 &&
           maxSeqLen > 0 && maxSeqLen >= (least - 1) / batch + 1;
  }
  /// The schedule kernel for stage-1 steps of `tokenBlock` tokens over
  /// batches of up to `maxBatch` requests.
  Kernel scheduleKernel(int tokenBlock, int64_t maxBatch);
  /// The schedule's batch tile (one program takes the whole batch): a power
  /// of two, at least 32 and `maxBatch`.
  static int64_t scheduleBlockB(int64_t maxBatch);
  /// The schedule's cost model: the options', else the defaults.
  int scheduleOverheadBlocks() const {
    return opts.scheduleOverheadBlocks ? opts.scheduleOverheadBlocks
                                       : kScheduleOverheadBlocks;
  }
  int scheduleMinPieceBlocks() const {
    return opts.scheduleMinPieceBlocks ? opts.scheduleMinPieceBlocks
                                       : kScheduleMinPieceBlocks;
  }
  /// The schedule kernel's arguments: `batch` lengths at `seqLens` into
  /// `schedule`'s `parts` parts (one home for forward_decode's and
  /// scheduleDecode's).
  std::vector<KernelArg> scheduleArgs(const void *seqLens, int64_t batch,
                                      int64_t parts,
                                      const DecodeSchedule &schedule) const;
  /// Throws unless `schedule` fits this impl's scheduled calls of `rows`.
  void checkScheduleFits(const DecodeSchedule &schedule, const char *what,
                         int64_t rows) const;
  /// 16-head programs with the default tiles, where the device holds the
  /// shared tiles' stage 1: launchShape gives launches of 1.5+ programs per
  /// SM tiles that let two programs share an SM.
  bool mayShareSMs(int64_t rows) const {
    return headBlock(rows) == kHeadBlock && !opts.tokenBlock &&
           !opts.stage1Warps && deviceTokenBlock(rows) >= kSharedTokenBlock;
  }
  /// A per-tensor fp8 cache whose codes the mma.sync dots read in place.
  bool readsFp8InPlace(int64_t rows) const {
    return kvFormat == KvCacheFormat::Fp8 && fp8CodesInPlace &&
           headBlock(rows) < kWarpgroupHeadBlock;
  }
  /// Whether stage 1's dots multiply the codes on the tensor cores' fp8
  /// forms (TritonMLAOptions::fp8Dots).
  bool fp8Dots(int64_t rows, DType dtype) const {
    return opts.fp8Dots && readsFp8InPlace(rows) &&
           (dtype == DType::BF16 || dtype == DType::F16);
  }
  /// Whether stage 1's fp8 dots run in f16 (TritonMLAOptions::f16Dots).
  bool f16Dots(int64_t rows, DType dtype) const {
    if (kvFormat != KvCacheFormat::Fp8 || dtype != DType::BF16 ||
        fp8Dots(rows, dtype))
      return false;
    return opts.f16Dots.value_or(readsFp8InPlace(rows));
  }
  /// Stage-1 programs per (request, split): blocks of headBlock(rows).
  int64_t headBlocks(int64_t rows) const {
    const int64_t block = headBlock(rows);
    return (rows + block - 1) / block;
  }
  int tokenBlock(int64_t rows) const {
    return opts.tokenBlock ? opts.tokenBlock : deviceTokenBlock(rows);
  }
  /// The default token block: kTokenBlock, or less where the device's
  /// shared memory cannot hold its stage 1 (fittingTokenBlock).
  int deviceTokenBlock(int64_t rows) const {
    if (warpgroupTiles && headBlock(rows) == kWarpgroupHeadBlock)
      return kvFormat != KvCacheFormat::Native ? kFp8WarpgroupTokenBlock
                                               : kTokenBlock;
    if (!deviceSharedBytes)
      return kTokenBlock;
    return fittingTokenBlock(deviceSharedBytes, headBlock(rows),
                             opts.stages ? opts.stages : kStages, rank, rope,
                             kvFormat, fp8CodesInPlace);
  }
  /// Whether a TMA stage 1 may take the roles beyond a producer warpgroup
  /// (the score warpgroup, the seesaw, latent halves, persistent programs)
  /// and the device schedule's measured default: with a cache in q's dtype.
  /// An fp8 cache on TMA (TritonMLAOptions::fp8Tma) is widened by all the
  /// compute warps, which those roles do not split yet.
  bool rolesOnTma(bool tma) const {
    return tma && kvFormat == KvCacheFormat::Native;
  }
  /// Stage 1 with a score warpgroup (TritonMLAOptions::scoreWarpgroup):
  /// where a head block's scores are owned by one warpgroup.
  bool scoreWarpgroup(bool tma, int64_t rows) const {
    return tma && opts.scoreWarpgroup && !opts.seesaw && rows > headBlock(rows);
  }
  /// The score warpgroup over an fp8 cache on TMA
  /// (TritonMLAOptions::fp8ScoreWarpgroup), where rolesOnTma is false: also
  /// with a single head block (64 heads), where the widening it takes off
  /// the scores' way outweighs their split over two warpgroups. Not with
  /// f16 dots, whose scaling of q the roles do not split.
  bool fp8ScoreWarpgroup(bool tma, int64_t rows, DType dtype) const {
    return tma && kvFormat == KvCacheFormat::Fp8 && opts.fp8ScoreWarpgroup &&
           opts.scoreWarpgroup && !opts.seesaw && !f16Dots(rows, dtype);
  }
  /// Stage 1 with the seesaw (TritonMLAOptions::seesaw), on the same path.
  bool seesaw(bool tma, int64_t rows) const {
    return tma && opts.seesaw && rows > headBlock(rows);
  }
  /// Stage 1 streams the latent part in halves
  /// (TritonMLAOptions::latentHalves): TMA only, and halves of at least a
  /// wgmma k step (16 columns).
  bool latentHalves(bool tma) const {
    return tma && opts.latentHalves && rank >= 32;
  }
  /// Stage 1 as persistent programs (TritonMLAOptions::persistentWaves).
  bool persistentStage1(bool tma) const {
    return tma && opts.warpSpecialize && opts.persistentWaves > 0;
  }
  /// Query rows (heads, with one query token) per stage-1 program.
  int headBlock(int64_t rows) const {
    if (opts.headBlock)
      return opts.headBlock;
    if (warpgroupTiles && rows > kHeadBlock)
      return kWarpgroupHeadBlock;
    return rows > kHeadBlock ? kWideHeadBlock : kHeadBlock;
  }
  /// Warps per stage-1 program.
  int stage1Warps(int64_t rows) const {
    if (opts.stage1Warps)
      return opts.stage1Warps;
    return warpgroupTiles && headBlock(rows) == kWarpgroupHeadBlock
               ? kWarpgroupWarps
               : kStage1Warps;
  }
  /// The most (request, split) pairs a call of `rows` query rows per
  /// request uses, at any batch up to maxBatch.
  int64_t splitPairs(int64_t rows) const;
  /// Byte offset of the log-sum-exps in the workspace (16-byte aligned).
  size_t wsLseOffset() const {
    return size_t(wsPartialRows) * size_t(rank) * sizeof(float);
  }

  int64_t heads, rank, rope;
  double softmaxScale;
  MLAArgs mla;
  TritonMLAOptions opts;
  int64_t wsSplitRows = 1;
  /// Partial rows (R floats, and an lse each) in the workspace: the most
  /// (request, split, query row) triples of any call.
  int64_t wsPartialRows = 1;
  int numSMs = 132;
  bool warpgroupTiles = false; ///< the device runs wgmma (sm_90a)
  /// mma.sync dots read fp8 codes in place (paired fp8 conversions, sm_89+).
  bool fp8CodesInPlace = true;
  /// What kv_cache_dtype makes of the cache's rows.
  KvCacheFormat kvFormat = KvCacheFormat::Native;
  /// A program's shared memory on the device; 0: unknown (no device).
  int64_t deviceSharedBytes = 0;
  std::unique_ptr<DeviceBuffer> workspace, lseScratch;
  /// mergeInStage1: an i32 per (request, head block), zero between calls.
  std::unique_ptr<DeviceBuffer> mergeCounts;
  /// The schedule calls make when not given one (DecodeMetadata::schedule).
  std::unique_ptr<DecodeSchedule> ownSchedule;
  /// Checked inputs: per request (kind, position, value) as
  /// mla_decode_check.tile writes them, and the lengths the decode reads.
  std::unique_ptr<DeviceBuffer> checkReport, checkedLens;
  /// A checked call was captured: any replay may leave a report, which
  /// every later call outside a capture reads first.
  bool checkedInCapture = false;
  /// Throws for the first bad request among the first `entries` of a
  /// finished check's report (and clears the report); `when` says what
  /// became of the call.
  void throwIfReported(int64_t entries, int64_t maxPages, int64_t pageSize,
                       int64_t numPages, const char *when);
  std::map<std::tuple<int64_t, int, DType, DType, int, bool, int, LaunchShape>,
           Kernels>
      kernelCache;
  /// One Kernel per (source, constexprs, warps, kernel of the source),
  /// shared by the kernel sets that use it (stage 1 and the schedule do not
  /// depend on the split count): each specialization is then loaded once,
  /// not once per set.
  Kernel sharedKernel(const std::string &name,
                      const Kernel::Constexprs &constexprs, unsigned warps,
                      const std::string &kernel = {});
  std::map<std::tuple<std::string, Kernel::Constexprs, unsigned, std::string>,
           Kernel>
      sharedKernels;
  /// Calls from several threads queue their launches one at a time...
  mutable std::mutex callMutex;
  /// ...and on the device, a call on another stream than the last one waits
  /// for it: they share the workspace and the schedule.
  StreamOrder workspaceOrder;
  /// The call's kernels as one graph (TritonMLAOptions::launchAsGraph).
  LaunchGraph launchGraph;
};

} // namespace tilemla::mla

#endif
