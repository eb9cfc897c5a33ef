//===- TritonMLA.cpp - the TRITON_MLA decode backend ----------------------===//
#include "tilemla/mla/TritonMLA.h"

#include "ArgChecks.h"
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
  return {"auto"};
}
bool TritonMLABackend::supportsComputeCapability(int major, int) {
  return major >= 8;
}

// Pieces stage 2 merges at a time with a device schedule (at most).
constexpr int64_t kMaxSplitBlock = 128;

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
  // The seed's is_quantized_kv_cache: anything but "auto".
  if (kv_cache_dtype != "auto")
    throw Error("TritonMLA V1 with FP8 KV cache not yet supported");

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
    if (opts.numSMs <= 0)
      numSMs = device.multiprocessors;
  }
  // The workspace holds the most (request, split) pairs any batch up to
  // maxBatch uses: Auto gives small batches many splits, large ones few;
  // BatchInvariant's rows are [B, H, maxPieces] whatever the lengths.
  invariant = batchInvariantChunks(heads, headBlock(), rank, opts.maxBatch);
  for (int64_t b = 1; b <= opts.maxBatch; ++b)
    wsSplitRows = std::max(wsSplitRows, b * numSplits(b, int64_t(1) << 40));
  // A device schedule gives each request a piece, plus one more per part
  // boundary inside a request.
  const bool mayScheduleOnDevice = deviceScheduled(/*tma=*/true, opts.maxBatch);
  if (mayScheduleOnDevice)
    wsSplitRows = std::max(wsSplitRows, opts.maxBatch + scheduleParts());
  if (opts.device < 0)
    return; // validation-only impl: nothing on a device
  if (mayScheduleOnDevice)
    ownSchedule = newDecodeSchedule();

  // Partial outputs, then their log-sum-exps (see wsLseOffset).
  size_t wsBytes =
      wsLseOffset() + size_t(wsSplitRows) * size_t(heads) * sizeof(float);
  workspace = std::make_unique<DeviceBuffer>(wsBytes);
  lseScratch = std::make_unique<DeviceBuffer>(size_t(opts.maxBatch) *
                                              size_t(heads) * sizeof(float));
  if (opts.checkInputs) {
    checkReport = std::make_unique<DeviceBuffer>(size_t(opts.maxBatch) * 3 * 4);
    checkReport->fill(0);
    checkedLens = std::make_unique<DeviceBuffer>(size_t(opts.maxBatch) * 4);
  }
}

TritonMLAImpl::~TritonMLAImpl() = default;

bool TritonMLAImpl::canStreamWithTma(const TensorView &kv) const {
  const int64_t pageSize = kv.shape[1];
  const size_t rowBytes = size_t(kv.strides[1]) * dtypeSize(kv.dtype);
  return opts.tma && warpgroupTiles && headBlock() == kWarpgroupHeadBlock &&
         pageSize % tokenBlock() == 0 &&
         kv.strides[0] == pageSize * kv.strides[1] &&
         reinterpret_cast<uintptr_t>(kv.data) % 16 == 0 && rowBytes % 16 == 0;
}

TritonMLAImpl::Kernels &TritonMLAImpl::kernelsFor(int64_t pageSize, int splits,
                                                  DType dtype, DType lseDtype,
                                                  bool tma, bool scheduled,
                                                  LaunchShape shape) {
  auto key =
      std::make_tuple(pageSize, splits, dtype, lseDtype, tma, scheduled, shape);
  if (auto it = kernelCache.find(key); it != kernelCache.end())
    return it->second;
  std::string h = std::to_string(heads), r = std::to_string(rank),
              s = std::to_string(splits), t = dtypeName(dtype);
  std::string fixedChunk =
      batchInvariant() ? std::to_string(invariant.chunkTokens) : "0";
  // TMA reads whole token blocks: splits start on them (both stages agree).
  std::string chunkAlign = tma ? std::to_string(shape.tokenBlock) : "1";
  Kernel::Constexprs stage1 = {
      {"H", h},
      {"R", r},
      {"P", std::to_string(rope)},
      {"PAGE", std::to_string(pageSize)},
      {"BLOCK_H", std::to_string(headBlock())},
      {"BLOCK_N", std::to_string(shape.tokenBlock)},
      {"STAGES", std::to_string(opts.stages ? opts.stages : kStages)},
      {"TMA", tma ? "1" : "0"},
      {"CHUNK_ALIGN", chunkAlign},
      {"WARP_SPECIALIZE", tma && opts.warpSpecialize ? "1" : "0"},
      {"SCHEDULE", scheduled ? "1" : "0"},
      {"FIXED_CHUNK", fixedChunk},
      {"T", t},
      {"LSE_T", dtypeName(lseDtype)}};
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
                               {"SCHEDULE", scheduled ? "1" : "0"},
                               {"FIXED_CHUNK", fixedChunk},
                               {"T", t},
                               {"LSE_T", dtypeName(lseDtype)}};
  // 4 warps (8 with warpgroup tiles; 2 in launches of two programs per SM
  // and more, see launchShape), 64-token steps (32 with 2 warps) in 2
  // pipeline stages: the fastest measured with mla-bench
  // --block-n/--stages/--warps on the H200.
  Kernels kernels{sharedKernel("mla/mla_decode_stage1", stage1, shape.warps),
                  Kernel::fromEmbedded("mla/mla_decode_stage2", stage2),
                  std::nullopt};
  if (scheduled)
    kernels.schedule = scheduleKernel(shape.tokenBlock, opts.maxBatch);
  if (opts.checkInputs)
    kernels.check = sharedKernel("mla/mla_decode_check",
                                 {{"PAGE", std::to_string(pageSize)}}, 4);
  return kernelCache.emplace(key, std::move(kernels)).first->second;
}

Kernel TritonMLAImpl::sharedKernel(const std::string &name,
                                   const Kernel::Constexprs &constexprs,
                                   unsigned warps) {
  auto key = std::make_tuple(name, constexprs, warps);
  if (auto it = sharedKernels.find(key); it != sharedKernels.end())
    return it->second;
  KernelOptions options;
  options.numWarps = warps;
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

std::optional<TritonMLAImpl::CallPlan>
TritonMLAImpl::plan(const DecodeCall &call) {
  const TensorView &qNope = *call.qNope, &qPe = *call.qPe, &kv = *call.kv,
                   &o = *call.o;
  const TensorView *lse = call.lse;
  const DecodeMetadata &metadata = *call.metadata;
  const bool paired = call.paired;
  const int device = opts.device;
  // q (or the pair) fixes B and the dtype everything else must match.
  const char *qName = paired ? "q_nope" : "q";
  if (qNope.shape.size() != 3)
    throw Error(fmt::format("{}: expected rank 3 [B, {}, {}], got shape {}",
                            qName, heads, paired ? rank : rank + rope,
                            shapeString(qNope.shape)));
  const int64_t B = qNope.shape[0];
  if (B < 0)
    throw Error(fmt::format("{}: negative batch {}", qName, B));
  if (B > opts.maxBatch)
    throw Error(fmt::format("{}: batch {} exceeds options.maxBatch {}", qName,
                            B, opts.maxBatch));
  checkView(qName, qNope, {B, heads, paired ? rank : rank + rope},
            {DType::F16, DType::BF16}, device);
  checkUnitLastStride(qName, qNope);
  const DType dtype = qNope.dtype;
  if (paired) {
    checkView("q_pe", qPe, {B, heads, rope}, {dtype}, device);
    checkUnitLastStride("q_pe", qPe);
  }

  // The KV cache: [pages, page_size, R + P] or [pages, page_size, 1, R + P].
  if (kv.shape.size() != 3 && kv.shape.size() != 4)
    throw Error(fmt::format(
        "kv_cache: expected [num_pages, page_size, {0}] or [num_pages, "
        "page_size, 1, {0}], got shape {1}",
        rank + rope, shapeString(kv.shape)));
  const int64_t row = rank + rope;
  if (kv.shape.size() == 3)
    checkView("kv_cache", kv, {kv.shape[0], kv.shape[1], row}, {dtype}, device);
  else
    checkView("kv_cache", kv, {kv.shape[0], kv.shape[1], 1, row}, {dtype},
              device);
  checkUnitLastStride("kv_cache", kv);
  const int64_t numPages = kv.shape[0], pageSize = kv.shape[1];
  if (numPages < 1 || pageSize < 1)
    throw Error(fmt::format("kv_cache: must not be empty, got shape {}",
                            shapeString(kv.shape)));

  // Decode metadata.
  const TensorView &bt = metadata.block_table, &lens = metadata.seq_lens;
  if (bt.shape.size() != 2)
    throw Error(fmt::format("block_table: expected rank 2 [{}, max_pages], "
                            "got shape {}",
                            B, shapeString(bt.shape)));
  checkView("block_table", bt, {B, bt.shape[1]}, {DType::I32}, device);
  checkUnitLastStride("block_table", bt);
  checkView("seq_lens", lens, {B}, {DType::I32}, device);
  checkUnitLastStride("seq_lens", lens);
  if (metadata.max_seq_len < -1)
    throw Error(fmt::format("max_seq_len: expected >= 0 (or -1: unknown), "
                            "got {}",
                            metadata.max_seq_len));
  // cdiv(max_seq_len, page) pages (the product could overflow).
  if (metadata.max_seq_len > 0 &&
      (metadata.max_seq_len - 1) / pageSize >= bt.shape[1])
    throw Error(
        fmt::format("max_seq_len: {} tokens do not fit in block_table's "
                    "{} pages of {} tokens",
                    metadata.max_seq_len, bt.shape[1], pageSize));
  if (opts.splitPolicy == SplitPolicy::Auto && metadata.max_seq_len < 0)
    throw Error("max_seq_len: required by SplitPolicy::Auto (the batch's "
                "largest seq_len, known on the host)");

  // Outputs.
  checkView("o", o, {B, heads, rank}, {dtype}, device);
  checkUnitLastStride("o", o);
  const DType lseType = opts.lseDtype == LseDType::F32 ? DType::F32 : dtype;
  if (lse)
    checkView("lse", *lse, {B, heads}, {lseType}, device);

  // Strides the kernels take as i32 (the page stride is i64).
  int32_t sqnB = i32Stride(qName, qNope.strides[0]),
          sqnH = i32Stride(qName, qNope.strides[1]);
  int32_t sqpB = paired ? i32Stride("q_pe", qPe.strides[0]) : sqnB,
          sqpH = paired ? i32Stride("q_pe", qPe.strides[1]) : sqnH;
  int32_t skvTok = i32Stride("kv_cache", kv.strides[1]);
  int32_t sbt = i32Stride("block_table", bt.strides[0]);
  int32_t soB = i32Stride("o", o.strides[0]),
          soH = i32Stride("o", o.strides[1]);
  int32_t slB = lse ? i32Stride("lse", lse->strides[0]) : int32_t(heads),
          slH = lse ? i32Stride("lse", lse->strides[1]) : 1;
  checkI32Extent(qName, qNope);
  if (paired)
    checkI32Extent("q_pe", qPe);
  checkI32Extent("block_table", bt);
  // Pages are addressed in 64 bits, a page's rows in 32.
  checkI32Extent("kv_cache", kv, /*firstDim=*/1);
  checkI32Extent("o", o);
  if (lse)
    checkI32Extent("lse", *lse);
  // Each output element has a place of its own, apart from the inputs'.
  // (q_pe is q when not paired.)
  const std::pair<const char *, const TensorView *> inputs[] = {
      {qName, &qNope},
      {"kv_cache", &kv},
      {"block_table", &bt},
      {"seq_lens", &lens},
      {paired ? "q_pe" : qName, paired ? &qPe : &qNope}};
  checkNoSelfOverlap("o", o);
  for (auto [name, view] : inputs)
    checkNoAlias("o", o, name, *view);
  if (lse) {
    checkNoSelfOverlap("lse", *lse);
    for (auto [name, view] : inputs)
      checkNoAlias("lse", *lse, name, *view);
    checkNoAlias("lse", *lse, "o", o);
  }

  if (device < 0)
    throw Error("TritonMLAImpl: constructed with options.device = -1 (no "
                "device); forward_decode only validated its arguments");
  if (B == 0)
    return std::nullopt;

  const bool tma = canStreamWithTma(kv);
  const bool scheduled = deviceScheduled(tma, B);
  // A device schedule has one stage-1 program per SM (per part and head
  // block); stage 2 merges a few pieces per request (more when the batch is
  // small), which it takes SPLIT_BLOCK at a time like splits.
  const int64_t parts = scheduleParts();
  const int splits =
      scheduled ? int(std::min<int64_t>(floorPowerOfTwo(cdiv(B + parts, B)),
                                        kMaxSplitBlock))
                : numSplits(B, metadata.max_seq_len);
  // Workspace rows: a device schedule makes at most a slot per request and
  // one more per part boundary.
  const int64_t rows = scheduled          ? B + parts
                       : batchInvariant() ? B * invariant.maxPieces
                                          : B * splits;
  if (rows > wsSplitRows) // B <= maxBatch makes this unreachable
    throw Error(fmt::format("forward_decode: {} requests need {} partial "
                            "rows, more than the workspace's {}",
                            B, rows, wsSplitRows));
  const int64_t headBlocks = cdiv(heads, headBlock());
  // A program per work item, or persistent: persistentWaves per SM (a
  // 64-head program fills one), each taking items that many apart.
  const int64_t items = headBlocks * B * splits;
  const int64_t programs =
      scheduled ? parts * headBlocks
      : persistentStage1(tma)
          ? std::min<int64_t>(items, int64_t(numSMs) * opts.persistentWaves)
          : items;
  const LaunchShape shape = launchShape(B, programs, scheduled);
  // BatchInvariant's kernels take the most pieces (the workspace's row
  // stride, and the chunk rule's): one specialization whatever the grid.
  const int stage1Splits = batchInvariant() ? invariant.maxPieces : splits;
  Kernels *kernels = &kernelsFor(pageSize, stage1Splits, dtype, lseType, tma,
                                 scheduled, shape);
  const char *qPeData =
      static_cast<const char *>(qPe.data) + call.qPeOffset * dtypeSize(dtype);
  char *wsO = static_cast<char *>(workspace->data());
  char *wsLse = wsO + wsLseOffset();
  // The schedule (mla_decode_schedule.tile says how it is laid out): the
  // caller's, made once for these lengths, or the impl's own, made by this
  // call; without one, stage 1 and 2 never read it. Checked inputs: the
  // decode reads the lengths the check let through, and schedules them.
  const DecodeSchedule *given = metadata.schedule;
  if (given && (given->batch() != B || given->seqLens() != lens.data))
    throw Error(fmt::format(
        "metadata.schedule: made for {} requests at seq_lens {}, not this "
        "call's {} at {} (scheduleDecode with this metadata first)",
        given->batch(), given->seqLens(), B, lens.data));
  const bool useGiven = scheduled && given && !opts.checkInputs;
  if (useGiven)
    checkScheduleFits(*given, "metadata.schedule");
  const DecodeSchedule *workSchedule = !scheduled ? nullptr
                                       : useGiven ? given
                                                  : ownSchedule.get();
  void *workList = workSchedule ? workSchedule->buffer->data() : nullptr;
  const void *lensData = opts.checkInputs ? checkedLens->data() : lens.data;
  const auto maxBatchArg = KernelArg::i32(
      int32_t(workSchedule ? workSchedule->maxBatch() : opts.maxBatch));
  // Both stages write o and lse: stage 1 (with a device schedule) the
  // requests it takes in one piece, stage 2 the others.
  const auto outO = KernelArg::pointer(o.data);
  const auto outLse = KernelArg::pointer(lse ? lse->data : lseScratch->data());
  CallPlan launches{kernels,
                    scheduled,
                    scheduled && !useGiven,
                    unsigned(programs),
                    {unsigned(B), unsigned(cdiv(heads, shape.stage2Heads)),
                     unsigned(rank / shape.columnBlock)},
                    unsigned(B)};
  launches.tablePages = bt.shape[1];
  launches.pageSize = pageSize;
  launches.cachePages = numPages;
  if (opts.checkInputs)
    launches.checkArgs = {
        KernelArg::pointer(lens.data),
        KernelArg::pointer(bt.data),
        KernelArg::i32(sbt),
        KernelArg::i32(int32_t(std::min<int64_t>(bt.shape[1], INT32_MAX))),
        KernelArg::i32(int32_t(std::min<int64_t>(numPages, INT32_MAX))),
        KernelArg::pointer(checkReport->data()),
        KernelArg::pointer(checkedLens->data())};
  if (launches.makesSchedule)
    launches.scheduleArgs = scheduleArgs(lensData, B, *workSchedule);
  launches.stage1Args = {
      KernelArg::pointer(qNope.data), KernelArg::pointer(qPeData),
      KernelArg::pointer(kv.data),
      // The cache's rows for TMA; a kernel without TMA never reads it, and
      // gets a small valid tensor when the cache cannot be described.
      tma ? KernelArg::tensor(kv.data, numPages * pageSize, rank + rope,
                              kv.strides[1])
          : KernelArg::tensor(wsO, 1, 8, 8),
      KernelArg::pointer(bt.data), KernelArg::pointer(lensData),
      KernelArg::pointer(wsO), KernelArg::pointer(wsLse), outO, outLse,
      KernelArg::pointer(workList), maxBatchArg, KernelArg::i32(sqnB),
      KernelArg::i32(sqnH), KernelArg::i32(sqpB), KernelArg::i32(sqpH),
      KernelArg::i64(kv.strides[0]), KernelArg::i32(skvTok),
      KernelArg::i32(sbt), KernelArg::i32(soB), KernelArg::i32(soH),
      KernelArg::i32(slB), KernelArg::i32(slH),
      KernelArg::f32(float(softmaxScale)),
      // Not specialized: one stage-1 compile serves every batch size and
      // split count (BatchInvariant: its most pieces, the row stride; a
      // schedule ignores it).
      KernelArg::i32(int32_t(B)).unspecialized(),
      KernelArg::i32(scheduled ? 1 : stage1Splits).unspecialized()};
  launches.stage2Args = {KernelArg::pointer(wsO),
                         KernelArg::pointer(wsLse),
                         KernelArg::pointer(lensData),
                         KernelArg::pointer(workList),
                         maxBatchArg,
                         outO,
                         outLse,
                         KernelArg::i32(soB),
                         KernelArg::i32(soH),
                         KernelArg::i32(slB),
                         KernelArg::i32(slH)};
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
    std::vector<std::pair<Kernel, std::vector<KernelArg>>> launches = {
        {kernels.stage1, p.stage1Args}, {kernels.stage2, p.stage2Args}};
    if (p.makesSchedule)
      launches.push_back({*kernels.schedule, p.scheduleArgs});
    if (kernels.check)
      launches.push_back({*kernels.check, p.checkArgs});
    Kernel::prepare(launches);
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
  if (p.makesSchedule)
    kernels.schedule->launch({1, 1, 1}, p.scheduleArgs, stream,
                             kDependentLaunch);
  kernels.stage1.launch({p.programs, 1, 1}, p.stage1Args, stream,
                        p.scheduled ? kDependentLaunch : LaunchOptions());
  kernels.stage2.launch(p.stage2Grid, p.stage2Args, stream, kDependentLaunch);
  workspaceOrder.release(stream);
}

} // namespace tilemla::mla
