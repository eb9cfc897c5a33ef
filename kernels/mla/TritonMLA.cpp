//===- TritonMLA.cpp - the TRITON_MLA decode backend ----------------------===//
#include "tilemla/mla/TritonMLA.h"

#include "SplitMath.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tilemla::mla {

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::FP8E4M3:
    return "fp8e4m3";
  case DType::U8:
    return "u8";
  }
  return "?";
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::FP8E4M3:
  case DType::U8:
    return 1;
  }
  return 0;
}

TensorView contiguousView(void *data, DType dtype, std::vector<int64_t> shape,
                          int device) {
  TensorView view{data, dtype, std::move(shape), {}, device};
  view.strides.assign(view.shape.size(), 1);
  for (size_t i = view.shape.size(); i-- > 1;)
    view.strides[i - 1] = view.strides[i] * view.shape[i];
  return view;
}

std::string TritonMLABackend::getName() { return "TRITON_MLA"; }
std::vector<DType> TritonMLABackend::supportedDtypes() {
  return {DType::F16, DType::BF16};
}
std::vector<std::string> TritonMLABackend::supportedKvCacheDtypes() {
  return {"auto", "fp8", "fp8_e4m3", "fp8_ds_mla"};
}
bool TritonMLABackend::supportsComputeCapability(int major, int) {
  return major >= 8;
}

TritonMLAImpl::TritonMLAImpl(
    int64_t num_heads, int64_t head_size, double scale, int64_t num_kv_heads,
    const std::optional<std::vector<float>> &alibi_slopes,
    std::optional<int64_t> sliding_window, const std::string &kv_cache_dtype,
    std::optional<double> logits_soft_cap, const std::string &attn_type,
    const std::optional<std::string> &kv_sharing_target_layer_name,
    const MLAArgs &mla_args, const TritonMLAOptions &options)
    : heads(num_heads), rank(mla_args.kv_lora_rank),
      rope(mla_args.qk_rope_head_dim), softmaxScale(scale), mla(mla_args),
      opts(options) {
  if (const char *check = std::getenv("TILEMLA_CHECK_INPUTS"))
    opts.checkInputs = opts.checkInputs || std::string(check) == "1";
  (void)kv_sharing_target_layer_name; // KV sharing is the caller's business:
                                      // it hands us the shared cache.
  // The seed's refusals, in the seed's order, with its messages. Python's
  // any([...]) tests truthiness: an empty list, 0 and 0.0 count as unset.
  bool alibi = alibi_slopes && !alibi_slopes->empty();
  bool window = sliding_window && *sliding_window != 0;
  bool softCap = logits_soft_cap && *logits_soft_cap != 0.0;
  if (alibi || window || softCap)
    throw Error("TritonMLAImpl does not support one of the following: "
                "alibi_slopes, sliding_window, logits_soft_cap");
  if (attn_type != "decoder")
    throw Error("Encoder self-attention and encoder/decoder cross-attention "
                "are not implemented for TritonMLAImpl");
  // The seed refused every quantized cache; e4m3 codes with a per-tensor
  // scale are read here (the upstream backend's "fp8" and "fp8_e4m3"), and
  // DeepSeek-V3.2's tokens with their own tile scales ("fp8_ds_mla").
  if (kv_cache_dtype == "fp8" || kv_cache_dtype == "fp8_e4m3")
    kvFormat = KvCacheFormat::Fp8;
  else if (kv_cache_dtype == "fp8_ds_mla")
    kvFormat = KvCacheFormat::Fp8DsMla;
  else if (kv_cache_dtype != "auto")
    throw Error(fmt::format("kv_cache_dtype: expected one of \"auto\", "
                            "\"fp8\", \"fp8_e4m3\", \"fp8_ds_mla\", got "
                            "\"{}\"",
                            kv_cache_dtype));

  // What the kernels need (the seed's base class and Triton kernels assume
  // the same, less loudly).
  // Stage 2's grid has a program per head in its second dimension.
  if (num_heads < 1 || num_heads > 65535)
    throw Error(fmt::format("num_heads: expected 1..65535, got {}", num_heads));
  if (num_kv_heads != 1)
    throw Error(fmt::format("num_kv_heads: MLA has one latent KV head, got {}",
                            num_kv_heads));
  if (!isPowerOfTwo(rank))
    throw Error(fmt::format(
        "mla_args.kv_lora_rank: expected a power of two, got {}", rank));
  if (!isPowerOfTwo(rope))
    throw Error(fmt::format(
        "mla_args.qk_rope_head_dim: expected a power of two, got {}", rope));
  if (head_size != rank + rope)
    throw Error(fmt::format("head_size: expected kv_lora_rank + "
                            "qk_rope_head_dim = {}, got {}",
                            rank + rope, head_size));
  if (kvFormat == KvCacheFormat::Fp8DsMla && rank != 512)
    throw Error(fmt::format("mla_args.kv_lora_rank: kv_cache_dtype "
                            "\"fp8_ds_mla\" holds 512 latent values (four "
                            "tiles of 128), got {}",
                            rank));
  if (mla.qk_nope_head_dim < 1 || mla.v_head_dim < 1)
    throw Error(fmt::format("mla_args: qk_nope_head_dim and v_head_dim must "
                            "be >= 1, got {} and {}",
                            mla.qk_nope_head_dim, mla.v_head_dim));
  if (!std::isfinite(scale))
    throw Error(fmt::format("scale: expected a finite number, got {}", scale));
  // The batch is stage 1's second grid dimension (at most 65535).
  if (opts.maxBatch < 1 || opts.maxBatch > 65535)
    throw Error(fmt::format("options.maxBatch: expected 1..65535, got {}",
                            opts.maxBatch));
  if (opts.maxSplits < 1 || opts.maxSplits > 256)
    throw Error(fmt::format("options.maxSplits: expected 1..256, got {}",
                            opts.maxSplits));
  if (opts.persistentWaves < 0 || opts.persistentWaves > 16)
    throw Error(fmt::format("options.persistentWaves: expected 0..16, got {}",
                            opts.persistentWaves));
  if (opts.minSplits < 1 || opts.minSplits > 256)
    throw Error(fmt::format("options.minSplits: expected 1..256, got {}",
                            opts.minSplits));
  auto isTileSize = [](int v, int lo, int hi) {
    return v == 0 || (v >= lo && v <= hi && isPowerOfTwo(v));
  };
  if (!isTileSize(opts.tokenBlock, 16, 128))
    throw Error(fmt::format("options.tokenBlock: expected 0 or a power of two "
                            "in 16..128, got {}",
                            opts.tokenBlock));
  if (!isTileSize(opts.headBlock, 16, 64))
    throw Error(fmt::format("options.headBlock: expected 0, 16, 32 or 64, got "
                            "{}",
                            opts.headBlock));
  if (opts.stages < 0 || opts.stages > 4)
    throw Error(
        fmt::format("options.stages: expected 0..4, got {}", opts.stages));
  if (!isTileSize(opts.stage1Warps, 1, 16))
    throw Error(fmt::format("options.stage1Warps: expected 0 or a power of two "
                            "in 1..16, got {}",
                            opts.stage1Warps));
  if (opts.device < -1)
    throw Error(
        fmt::format("options.device: expected >= -1, got {}", opts.device));
  if (opts.scheduleOverheadBlocks < 0 || opts.scheduleOverheadBlocks > 64)
    throw Error(fmt::format("options.scheduleOverheadBlocks: expected 0..64, "
                            "got {}",
                            opts.scheduleOverheadBlocks));
  if (opts.scheduleMinPieceBlocks < 0 || opts.scheduleMinPieceBlocks > 1024)
    throw Error(fmt::format("options.scheduleMinPieceBlocks: expected "
                            "0..1024, got {}",
                            opts.scheduleMinPieceBlocks));
  if (opts.wideFp8TilesMinTokens < 0)
    throw Error(fmt::format("options.wideFp8TilesMinTokens: expected >= 0, "
                            "got {}",
                            opts.wideFp8TilesMinTokens));
  // Stage 2's grid has a program per query row (s_q * H of them).
  if (opts.maxQueryLen < 1 || opts.maxQueryLen > 16 ||
      opts.maxQueryLen * num_heads > 65535)
    throw Error(fmt::format("options.maxQueryLen: expected 1..16 with "
                            "maxQueryLen * num_heads <= 65535, got {} (with "
                            "{} heads)",
                            opts.maxQueryLen, num_heads));

  numSMs = opts.numSMs > 0 ? opts.numSMs : 132;
  // The device's target and SM count choose stage 1's tiles and the split
  // counts, which size the workspace below.
  if (opts.device >= 0 && !isInterpreterMode()) {
    DeviceInfo device = deviceInfo();
    if (device.ordinal != opts.device)
      throw Error(fmt::format("options.device: expected the current CUDA "
                              "context's device {}, got {}",
                              device.ordinal, opts.device));
    warpgroupTiles = device.target && device.target->hasWgmma();
    // Stage 1 of 16- or 32-head blocks copies the cache with cp.async into
    // padded rows: 64-token blocks need 169-190 KB (more with more
    // stages), more than Ampere and the 99 KB parts give a program
    // (deviceTokenBlock).
    if (device.target) {
      deviceSharedBytes = device.target->maxSharedBytes();
      fp8CodesInPlace = device.target->hasFp8Conversions();
    }
    if (opts.numSMs <= 0)
      numSMs = device.multiprocessors;
  }
  // The workspace holds the partial rows of the most (request, split)
  // pairs a call of any s_q up to maxQueryLen uses, s_q * H rows each.
  // The own schedule has room for the most parts any s_q schedules.
  wsSplitRows = splitPairs(heads);
  int64_t scheduleCapacity = 0;
  for (int64_t queryLen = 1; queryLen <= opts.maxQueryLen; ++queryLen) {
    const int64_t rows = queryLen * heads;
    wsPartialRows = std::max(wsPartialRows, splitPairs(rows) * rows);
    if (deviceScheduled(/*tma=*/true, opts.maxBatch, rows))
      scheduleCapacity = std::max(scheduleCapacity, scheduleParts(rows));
  }
  if (opts.device < 0)
    return; // validation-only impl: nothing on a device
  if (scheduleCapacity)
    ownSchedule = std::unique_ptr<DecodeSchedule>(
        new DecodeSchedule(opts.maxBatch, scheduleCapacity, 0, 0));

  // Partial outputs, then their log-sum-exps (see wsLseOffset).
  workspace = std::make_unique<DeviceBuffer>(workspaceBytes());
  lseScratch = std::make_unique<DeviceBuffer>(
      size_t(opts.maxBatch) * size_t(opts.maxQueryLen * heads) * sizeof(float));
  if (scheduleCapacity && opts.mergeInStage1) {
    // A count per request and head block, for the most blocks any s_q has.
    int64_t blocks = 1;
    for (int64_t queryLen = 1; queryLen <= opts.maxQueryLen; ++queryLen)
      blocks = std::max(blocks, headBlocks(queryLen * heads));
    mergeCounts = std::make_unique<DeviceBuffer>(
        size_t(opts.maxBatch) * size_t(blocks) * sizeof(int32_t));
    mergeCounts->fill(0);
    // The memset runs on the legacy stream: done before any call's stream
    // (a non-blocking one too) reads the counts.
    synchronizeStream(nullptr);
  }
  if (opts.checkInputs) {
    checkReport = std::make_unique<DeviceBuffer>(size_t(opts.maxBatch) * 3 * 4);
    checkReport->fill(0);
    checkedLens = std::make_unique<DeviceBuffer>(size_t(opts.maxBatch) * 4);
  }
}

TritonMLAImpl::~TritonMLAImpl() = default;

int64_t TritonMLAImpl::splitPairs(int64_t rows) const {
  // Auto gives small batches many splits, large ones few; BatchInvariant's
  // are [B, rows, maxPieces] whatever the lengths.
  int64_t pairs = 1;
  for (int64_t b = 1; b <= opts.maxBatch; ++b)
    pairs = std::max(pairs, b * splitsFor(b, int64_t(1) << 40, rows));
  // A device schedule gives each request a piece, plus one more per part
  // boundary inside a request.
  if (deviceScheduled(/*tma=*/true, opts.maxBatch, rows))
    pairs = std::max(pairs, opts.maxBatch + scheduleParts(rows));
  return pairs;
}

bool TritonMLAImpl::canStreamWithTma(const TensorView &kv,
                                     int64_t queryLen) const {
  const int64_t pageSize = kv.shape[1], rows = queryLen * heads;
  const size_t rowBytes = size_t(kv.strides[1]) * dtypeSize(kv.dtype);
  // An fp8 cache's codes are widened on their way to the dots: from TMA's
  // 8-bit stages with fp8Tma (the default), else from cp.async's.
  const bool format = kvFormat == KvCacheFormat::Native ||
                      (kvFormat == KvCacheFormat::Fp8 && opts.fp8Tma);
  return opts.tma && warpgroupTiles && format &&
         headBlock(rows) == kWarpgroupHeadBlock &&
         pageSize % tokenBlock(rows) == 0 &&
         kv.strides[0] == pageSize * kv.strides[1] &&
         reinterpret_cast<uintptr_t>(kv.data) % 16 == 0 && rowBytes % 16 == 0;
}

TritonMLAImpl::Kernels &TritonMLAImpl::kernelsFor(int64_t pageSize, int splits,
                                                  DType dtype, DType lseDtype,
                                                  int kvScaleMode, bool tma,
                                                  int scheduleMode,
                                                  LaunchShape shape) {
  auto key = std::make_tuple(pageSize, splits, dtype, lseDtype, kvScaleMode,
                             tma, scheduleMode, shape);
  const bool prefetch = scheduleMode == 3;
  if (prefetch)
    scheduleMode = 1;
  if (auto it = kernelCache.find(key); it != kernelCache.end())
    return it->second;
  const int64_t rows = shape.queryLen * heads;
  std::string h = std::to_string(heads), r = std::to_string(rank),
              s = std::to_string(splits), t = dtypeName(dtype),
              queryLen = std::to_string(shape.queryLen);
  std::string fixedChunk =
      batchInvariant() ? std::to_string(invariantCut(rows).chunkTokens) : "0";
  // Splits start on whole token blocks (both stages agree) where TMA reads
  // them, and where a page holds whole blocks of an mma.sync kernel:
  // cp.async then addresses a block from one page id instead of moving a
  // page id per token between layouts (half the barriers of a step). ptxas
  // spills 0 -> 20 bytes at 32 rows, none at 16, but 112 -> 268 bytes on
  // the 64-row fp8 kernel, which keeps page ids per token.
  const bool onePageBlocks =
      pageSize % shape.tokenBlock == 0 && headBlock(rows) < kWarpgroupHeadBlock;
  std::string chunkAlign =
      tma || onePageBlocks ? std::to_string(shape.tokenBlock) : "1";
  const bool roles = rolesOnTma(tma);
  const bool scores =
      scoreWarpgroup(roles, rows) || fp8ScoreWarpgroup(tma, rows, dtype);
  Kernel::Constexprs stage1 = {
      {"H", h},
      {"R", r},
      {"P", std::to_string(rope)},
      {"PAGE", std::to_string(pageSize)},
      {"BLOCK_H", std::to_string(headBlock(rows))},
      {"BLOCK_N", std::to_string(shape.tokenBlock)},
      {"STAGES", std::to_string(opts.stages ? opts.stages : kStages)},
      {"TMA", tma ? "1" : "0"},
      {"CHUNK_ALIGN", chunkAlign},
      {"WARP_SPECIALIZE", tma && opts.warpSpecialize && !scores ? "1" : "0"},
      {"SCORE_WARPGROUP", scores ? "1" : "0"},
      {"SEESAW", seesaw(roles, rows) ? "1" : "0"},
      {"LATENT_HALVES", latentHalves(roles) ? "1" : "0"},
      {"SCHEDULE", std::to_string(scheduleMode)},
      {"FIXED_CHUNK", fixedChunk},
      {"QUERY_LEN", queryLen},
      {"T", t},
      {"LSE_T", dtypeName(lseDtype)}};
  if (kvFormat != KvCacheFormat::Native)
    stage1["KV_T"] = dtypeName(DType::FP8E4M3);
  if (kvScaleMode)
    stage1["KV_SCALE"] = std::to_string(kvScaleMode);
  if (kvFormat == KvCacheFormat::Fp8DsMla)
    stage1["KV_LAYOUT"] = "1";
  if (f16Dots(rows, dtype))
    stage1["DOT_T"] = dtypeName(DType::F16);
  if (fp8Dots(rows, dtype))
    stage1["DOT_T"] = dtypeName(DType::FP8E4M3);
  if (prefetch)
    stage1["PREFETCH"] = "1";
  if (scheduleMode == 1 && opts.mergeInStage1) {
    // Columns per step of the merge: a 64-head block's two loads and sum
    // fit 96 registers at 128 (the kernel's accumulator is free by then).
    int64_t mergeCols = headBlock(rows) < kWarpgroupHeadBlock ? 256 : 128;
    while (rank % mergeCols)
      mergeCols /= 2;
    stage1["MERGE"] = "1";
    stage1["MERGE_COLS"] = std::to_string(mergeCols);
  }
  // Made in stage 1: the schedule kernel's constants.
  if (scheduleMode == 2) {
    stage1["OVERHEAD"] = std::to_string(scheduleOverheadBlocks());
    stage1["MIN_PIECE"] = std::to_string(scheduleMinPieceBlocks());
    stage1["SCHEDULE_BLOCK_B"] = std::to_string(scheduleBlockB(opts.maxBatch));
  }
  // Stage 2 merges up to kStage2BlockValues values (splits x columns, a
  // power of two of splits) per step: narrow column blocks take all of a
  // long request's splits at once (B=1: 128 splits x 32 columns), since
  // each step is a round trip to memory.
  int splitBlock = 1;
  while (splitBlock <
         std::min<int64_t>(splits, kStage2BlockValues / shape.columnBlock))
    splitBlock *= 2;
  Kernel::Constexprs stage2 = {{"H", h},
                               {"R", r},
                               {"SPLITS", s},
                               {"SPLIT_BLOCK", std::to_string(splitBlock)},
                               {"R_BLOCK", std::to_string(shape.columnBlock)},
                               {"BLOCK_H", std::to_string(shape.stage2Heads)},
                               {"CHUNK_ALIGN", chunkAlign},
                               {"SCHEDULE", std::to_string(scheduleMode)},
                               {"FIXED_CHUNK", fixedChunk},
                               {"QUERY_LEN", queryLen},
                               {"T", t},
                               {"LSE_T", dtypeName(lseDtype)}};
  // 4 warps (8 with warpgroup tiles; 2 in launches of two programs per SM
  // and more, see launchShape), 64-token steps (32 with 2 warps) in 2
  // pipeline stages: the fastest measured with mla-bench
  // --block-n/--stages/--warps on the H200.
  Kernels kernels{sharedKernel("mla/mla_decode_stage1", stage1, shape.warps),
                  Kernel::fromEmbedded("mla/mla_decode_stage2", stage2),
                  std::nullopt};
  if (scheduleMode == 1)
    kernels.schedule = scheduleKernel(shape.tokenBlock, opts.maxBatch);
  if (opts.checkInputs)
    kernels.check = sharedKernel("mla/mla_decode_check",
                                 {{"PAGE", std::to_string(pageSize)}}, 4);
  return kernelCache.emplace(key, std::move(kernels)).first->second;
}

Kernel TritonMLAImpl::sharedKernel(const std::string &name,
                                   const Kernel::Constexprs &constexprs,
                                   unsigned warps, const std::string &kernel) {
  auto key = std::make_tuple(name, constexprs, warps, kernel);
  if (auto it = sharedKernels.find(key); it != sharedKernels.end())
    return it->second;
  KernelOptions options;
  options.numWarps = warps;
  options.kernel = kernel;
  return sharedKernels
      .emplace(std::move(key), Kernel::fromEmbedded(name, constexprs, options))
      .first->second;
}

/// Stage 2 starts while stage 1's last programs finish (sm_90+): its launch
/// and scheduling overlap them, and it waits for stage 1's writes. The same
/// for stage 1 after the device schedule, and for the schedule after
/// whatever the stream ran before (it waits before reading seq_lens).
static const LaunchOptions kDependentLaunch = {/*programmaticDependent=*/true};

void TritonMLAImpl::forward_decode(const TensorView &q,
                                   const TensorView &kv_cache,
                                   const DecodeMetadata &metadata,
                                   const TensorView &o, const TensorView &lse,
                                   StreamHandle stream) {
  run({&q, &q, size_t(rank), false, &kv_cache, &metadata, &o, &lse}, stream);
}

void TritonMLAImpl::forward_decode(const TensorView &q_nope,
                                   const TensorView &q_pe,
                                   const TensorView &kv_cache,
                                   const DecodeMetadata &metadata,
                                   const TensorView &o, const TensorView &lse,
                                   StreamHandle stream) {
  run({&q_nope, &q_pe, 0, true, &kv_cache, &metadata, &o, &lse}, stream);
}

void TritonMLAImpl::forward_decode(const TensorView &q,
                                   const TensorView &kv_cache,
                                   const DecodeMetadata &metadata,
                                   const TensorView &o, StreamHandle stream) {
  run({&q, &q, size_t(rank), false, &kv_cache, &metadata, &o, nullptr}, stream);
}

void TritonMLAImpl::forward_decode(const TensorView &q_nope,
                                   const TensorView &q_pe,
                                   const TensorView &kv_cache,
                                   const DecodeMetadata &metadata,
                                   const TensorView &o, StreamHandle stream) {
  run({&q_nope, &q_pe, 0, true, &kv_cache, &metadata, &o, nullptr}, stream);
}

std::vector<std::pair<Kernel, std::vector<KernelArg>>>
TritonMLAImpl::launchesOf(const CallPlan &p) {
  std::vector<std::pair<Kernel, std::vector<KernelArg>>> launches = {
      {p.kernels->stage1, p.stage1Args}};
  if (!p.mergesInStage1)
    launches.push_back({p.kernels->stage2, p.stage2Args});
  if (p.makesSchedule)
    launches.push_back({*p.kernels->schedule, p.scheduleArgs});
  if (p.kernels->check)
    launches.push_back({*p.kernels->check, p.checkArgs});
  return launches;
}

void TritonMLAImpl::run(const DecodeCall &call, StreamHandle stream) {
  std::lock_guard<std::mutex> oneCallAtATime(callMutex);
  std::optional<CallPlan> planned = plan(call);
  if (!planned)
    return;
  const CallPlan &p = *planned;
  Kernels &kernels = *p.kernels;
  if (!kernels.prepared) {
    // A first call compiles its kernels side by side, not one per launch.
    Kernel::prepare(launchesOf(p));
    kernels.prepared = true;
  }

  workspaceOrder.acquire(stream);
  if (kernels.check) {
    const bool capturing = isStreamCapturing(stream);
    if (checkedInCapture && !capturing) {
      // A replay of a captured call may have reported since (any of them,
      // for as long as the graph lives: the flag stays).
      synchronizeStream(stream);
      throwIfReported(opts.maxBatch, p.tablePages, p.pageSize, p.cachePages,
                      "found by a CUDA graph replay, which decoded the "
                      "request as empty");
    }
    kernels.check->launch({p.batch, 1, 1}, p.checkArgs, stream);
    checkedInCapture = checkedInCapture || capturing;
    if (!capturing) {
      synchronizeStream(stream);
      throwIfReported(p.batch, p.tablePages, p.pageSize, p.cachePages,
                      "nothing was decoded");
    }
  }
  LaunchGraph::Launch launches[3];
  size_t count = 0;
  if (p.makesSchedule)
    launches[count++] = {
        &*kernels.schedule, {1, 1, 1}, &p.scheduleArgs, kDependentLaunch};
  launches[count++] = {&kernels.stage1,
                       {p.programs, 1, 1},
                       &p.stage1Args,
                       p.scheduled ? kDependentLaunch : LaunchOptions()};
  if (!p.mergesInStage1)
    launches[count++] = {&kernels.stage2, p.stage2Grid, &p.stage2Args,
                         kDependentLaunch};
  if (opts.launchAsGraph && !kernels.check)
    launchGraph.launch(launches, count, stream);
  else
    LaunchGraph::launchEach(launches, count, stream);
  workspaceOrder.release(stream);
}

} // namespace tilemla::mla
