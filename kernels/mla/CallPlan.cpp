//===- CallPlan.cpp - forward_decode's checks and launch plan -------------===//
//
// Every argument checked (each error names it), then what the call launches:
// the split count or device schedule, the grid and tile shapes, the kernel
// set and each kernel's arguments. Host-side facts only: seq_lens stays on
// the device.
//
//===----------------------------------------------------------------------===//
#include "tilemla/mla/TritonMLA.h"

#include "ArgChecks.h"
#include "SplitMath.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fmt/format.h>

namespace tilemla::mla {

int TritonMLAImpl::checkKvScale(const DecodeMetadata &metadata) const {
  const bool host = metadata.kv_scale.has_value(),
             onDevice = metadata.kv_scale_tensor.data != nullptr;
  if (kvFormat != KvCacheFormat::Fp8) {
    const bool ds = kvFormat == KvCacheFormat::Fp8DsMla;
    if (host || onDevice)
      throw Error(fmt::format(
          "metadata.{}: {}", host ? "kv_scale" : "kv_scale_tensor",
          ds ? "an fp8_ds_mla cache's tokens carry their own scales"
             : "a scale is for an fp8 cache; this impl's kv_cache_dtype is "
               "\"auto\""));
    return 0;
  }
  if (host == onDevice)
    throw Error(fmt::format(
        "metadata.kv_scale: an fp8 cache needs its scale, as kv_scale (a "
        "host number) or kv_scale_tensor (one f32 on the device), {}",
        host ? "not both" : "got neither"));
  if (host) {
    if (!std::isfinite(*metadata.kv_scale) || *metadata.kv_scale == 0.0f)
      throw Error(fmt::format("metadata.kv_scale: expected a finite nonzero "
                              "number, got {}",
                              *metadata.kv_scale));
    return 1;
  }
  const TensorView &t = metadata.kv_scale_tensor;
  const char *name = "metadata.kv_scale_tensor";
  if (t.shape.empty())
    checkView(name, t, {}, {DType::F32}, opts.device);
  else if (t.shape.size() == 1 && t.shape[0] == 1)
    checkView(name, t, {1}, {DType::F32}, opts.device);
  else
    throw Error(fmt::format("{}: expected shape [] or [1], got {}", name,
                            shapeString(t.shape)));
  return 2;
}

// Pieces stage 2 merges at a time with a device schedule (at most).
constexpr int64_t kMaxSplitBlock = 128;

std::optional<TritonMLAImpl::CallPlan>
TritonMLAImpl::plan(const DecodeCall &call) {
  const TensorView &qNope = *call.qNope, &qPe = *call.qPe, &kv = *call.kv,
                   &o = *call.o;
  const TensorView *lse = call.lse;
  const DecodeMetadata &metadata = *call.metadata;
  const bool paired = call.paired;
  const int device = opts.device;
  // q (or the pair) fixes B, the query tokens per request (rank 4: [B,
  // s_q, H, D]) and the dtype everything else must match.
  const char *qName = paired ? "q_nope" : "q";
  const int64_t qWidth = paired ? rank : rank + rope;
  if (qNope.shape.size() != 3 && qNope.shape.size() != 4)
    throw Error(fmt::format("{}: expected rank 3 [B, {}, {}] or rank 4 [B, "
                            "s_q, {}, {}], got shape {}",
                            qName, heads, qWidth, heads, qWidth,
                            shapeString(qNope.shape)));
  const int64_t B = qNope.shape[0];
  if (B < 0)
    throw Error(fmt::format("{}: negative batch {}", qName, B));
  if (B > opts.maxBatch)
    throw Error(fmt::format("{}: batch {} exceeds options.maxBatch {}", qName,
                            B, opts.maxBatch));
  const bool multiToken = qNope.shape.size() == 4;
  const int64_t queryLen = multiToken ? qNope.shape[1] : 1;
  if (queryLen < 1 || queryLen > opts.maxQueryLen)
    throw Error(fmt::format("{}: {} query tokens per request (dimension 1) "
                            "outside 1..options.maxQueryLen ({})",
                            qName, queryLen, opts.maxQueryLen));
  // Rank 3 [B, H, width] or rank 4 [B, s_q, H, width], as q.
  auto checkRows = [&](const char *name, const TensorView &view, int64_t width,
                       std::initializer_list<DType> dtypes) {
    if (multiToken)
      checkView(name, view, {B, queryLen, heads, width}, dtypes, device);
    else
      checkView(name, view, {B, heads, width}, dtypes, device);
  };
  checkRows(qName, qNope, qWidth, {DType::F16, DType::BF16});
  checkUnitLastStride(qName, qNope);
  const DType dtype = qNope.dtype;
  if (paired) {
    checkRows("q_pe", qPe, rope, {dtype});
    checkUnitLastStride("q_pe", qPe);
  }

  // The KV cache: [pages, page_size, R + P] or [pages, page_size, 1, R + P],
  // in q's dtype or (kv_cache_dtype fp8) e4m3 codes; fp8_ds_mla: tokens of
  // dsMlaTokenBytes, as bytes or e4m3.
  const bool dsMla = kvFormat == KvCacheFormat::Fp8DsMla;
  const int64_t row = dsMla ? dsMlaTokenBytes(rank, rope) : rank + rope;
  if (kv.shape.size() != 3 && kv.shape.size() != 4)
    throw Error(fmt::format(
        "kv_cache: expected [num_pages, page_size, {0}] or [num_pages, "
        "page_size, 1, {0}], got shape {1}",
        row, shapeString(kv.shape)));
  auto checkCache = [&](std::initializer_list<DType> kvTypes) {
    if (kv.shape.size() == 3)
      checkView("kv_cache", kv, {kv.shape[0], kv.shape[1], row}, kvTypes,
                device);
    else
      checkView("kv_cache", kv, {kv.shape[0], kv.shape[1], 1, row}, kvTypes,
                device);
  };
  if (dsMla)
    checkCache({DType::U8, DType::FP8E4M3});
  else if (kvFormat == KvCacheFormat::Fp8)
    checkCache({DType::FP8E4M3});
  else
    checkCache({dtype});
  const int kvScaleMode = checkKvScale(metadata);
  checkUnitLastStride("kv_cache", kv);
  // p times a tile's scale (about its largest value / 448) would often fall
  // below f16's normal range; bf16 has f32's.
  if (dsMla && dtype != DType::BF16)
    throw Error(fmt::format("{}: an fp8_ds_mla cache takes bf16 queries, "
                            "got {}",
                            qName, dtypeName(dtype)));
  // Stage 1 reads an fp8_ds_mla token's scales as f32 and its rope as bf16
  // at the token's byte offset / 4 and / 2.
  if (dsMla && (kv.strides[0] % 4 != 0 || kv.strides[1] % 4 != 0))
    throw Error(fmt::format("kv_cache: an fp8_ds_mla cache's page and token "
                            "strides must be multiples of 4 bytes, got {} "
                            "and {}",
                            kv.strides[0], kv.strides[1]));
  if (dsMla && reinterpret_cast<uintptr_t>(kv.data) % 4 != 0)
    throw Error(fmt::format("kv_cache: an fp8_ds_mla cache must be 4-byte "
                            "aligned, got address {}",
                            kv.data));
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
  checkRows("o", o, rank, {dtype});
  checkUnitLastStride("o", o);
  const DType lseType = opts.lseDtype == LseDType::F32 ? DType::F32 : dtype;
  if (lse) {
    if (multiToken)
      checkView("lse", *lse, {B, queryLen, heads}, {lseType}, device);
    else
      checkView("lse", *lse, {B, heads}, {lseType}, device);
  }

  // Strides the kernels take as i32 (the page stride is i64): per request,
  // query token (0 with one) and head.
  struct RowStrides {
    int32_t b, s, h;
  };
  auto rowStrides = [&](const char *name, const TensorView &view) {
    const size_t hDim = multiToken ? 2 : 1;
    return RowStrides{i32Stride(name, view.strides[0]),
                      multiToken ? i32Stride(name, view.strides[1]) : 0,
                      i32Stride(name, view.strides[hDim])};
  };
  const RowStrides sqn = rowStrides(qName, qNope),
                   sqp = paired ? rowStrides("q_pe", qPe) : sqn,
                   so = rowStrides("o", o);
  // Without lse: the internal buffer, [B, s_q, H] contiguous.
  const RowStrides sl =
      lse ? rowStrides("lse", *lse)
          : RowStrides{int32_t(queryLen * heads), int32_t(heads), 1};
  int32_t skvTok = i32Stride("kv_cache", kv.strides[1]);
  int32_t sbt = i32Stride("block_table", bt.strides[0]);
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
  std::vector<std::pair<const char *, const TensorView *>> inputs = {
      {qName, &qNope},
      {"kv_cache", &kv},
      {"block_table", &bt},
      {"seq_lens", &lens},
      {paired ? "q_pe" : qName, paired ? &qPe : &qNope}};
  if (kvScaleMode == 2)
    inputs.emplace_back("metadata.kv_scale_tensor", &metadata.kv_scale_tensor);
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

  // Stage 1 blocks a request's query rows (s_q * H) as it blocks heads.
  const int64_t rows = queryLen * heads;
  const bool tma = canStreamWithTma(kv, queryLen);
  const bool scheduled = deviceScheduled(tma, B, rows);
  // A device schedule has one stage-1 program per SM (per part and head
  // block); stage 2 merges a few pieces per request (more when the batch is
  // small), which it takes SPLIT_BLOCK at a time like splits.
  const int64_t parts = scheduleParts(rows);
  const int splits =
      scheduled ? int(std::min<int64_t>(floorPowerOfTwo(cdiv(B + parts, B)),
                                        kMaxSplitBlock))
                : splitsFor(B, metadata.max_seq_len, rows);
  const int maxPieces = invariantCut(rows).maxPieces;
  // Workspace (request, split) pairs: a device schedule makes at most a
  // slot per request and one more per part boundary.
  const int64_t pairs = scheduled          ? B + parts
                        : batchInvariant() ? B * maxPieces
                                           : B * splits;
  if (pairs * rows > wsPartialRows) // unreachable: B and s_q are checked
    throw Error(fmt::format("forward_decode: {} requests need {} partial "
                            "rows, more than the workspace's {}",
                            B, pairs * rows, wsPartialRows));
  const int64_t headBlocks = this->headBlocks(rows);
  // A program per work item, or persistent: persistentWaves per SM (a
  // 64-head program fills one), each taking items that many apart.
  const int64_t items = headBlocks * B * splits;
  const int64_t programs =
      scheduled ? parts * headBlocks
      : persistentStage1(rolesOnTma(tma))
          ? std::min<int64_t>(items, int64_t(numSMs) * opts.persistentWaves)
          : items;
  // BatchInvariant's kernels take the most pieces (the workspace's row
  // stride, and the chunk rule's): one specialization whatever the grid.
  const int stage1Splits = batchInvariant() ? maxPieces : splits;
  // The schedule (mla_decode_schedule.tile says how it is laid out): the
  // caller's, made once for these lengths, or the impl's own, made by this
  // call (by a kernel before stage 1, or by stage 1 itself); without one,
  // stage 1 and 2 never read it. Checked inputs: the decode reads the
  // lengths the check let through, and schedules them.
  const DecodeSchedule *given = metadata.schedule;
  if (given && (given->batch() != B || given->seqLens() != lens.data))
    throw Error(fmt::format(
        "metadata.schedule: made for {} requests at seq_lens {}, not this "
        "call's {} at {} (scheduleDecode with this metadata first)",
        given->batch(), given->seqLens(), B, lens.data));
  const bool useGiven = scheduled && given && !opts.checkInputs;
  if (useGiven)
    checkScheduleFits(*given, "metadata.schedule", rows);
  // Large fp8 batches' tiles (wideFp8Tiles), with a schedule of the call's
  // own: a given one was made in the steps of the tiles its impl keeps
  // whatever the batch (a graph replays a captured call against schedules
  // made after the capture, for other batches).
  const bool wideFp8 =
      scheduled && !useGiven && wideFp8Tiles(rows, B, metadata.max_seq_len);
  const LaunchShape shape =
      launchShape(B, programs, scheduled, queryLen, wideFp8);
  const bool inStage1 = scheduled && !useGiven && opts.scheduleInStage1;
  // Prefetching before stage 1's wait reads seq_lens, the block table and
  // q: final only when this call's schedule kernel (which waited for the
  // kernels before it) runs right before.
  const bool prefetch = scheduled && !useGiven && !inStage1 &&
                        opts.prefetchWhileScheduling && tma &&
                        kvFormat == KvCacheFormat::Native && queryLen == 1;
  Kernels *kernels =
      &kernelsFor(pageSize, stage1Splits, dtype, lseType, kvScaleMode, tma,
                  !scheduled ? 0
                  : inStage1 ? 2
                  : prefetch ? 3
                             : 1,
                  shape);
  const char *qPeData =
      static_cast<const char *>(qPe.data) + call.qPeOffset * dtypeSize(dtype);
  char *wsO = static_cast<char *>(workspace->data());
  char *wsLse = wsO + wsLseOffset();
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
                    scheduled && !useGiven && !inStage1,
                    scheduled && !inStage1 && opts.mergeInStage1,
                    unsigned(programs),
                    {unsigned(B), unsigned(cdiv(rows, shape.stage2Heads)),
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
    launches.scheduleArgs = scheduleArgs(lensData, B, parts, *workSchedule);
  launches.stage1Args = {
      KernelArg::pointer(qNope.data), KernelArg::pointer(qPeData),
      KernelArg::pointer(kv.data),
      // The cache's rows for TMA; a kernel without TMA never reads it, and
      // gets a small valid tensor when the cache cannot be described.
      tma ? KernelArg::tensor(kv.data, numPages * pageSize, rank + rope,
                              kv.strides[1])
          : KernelArg::tensor(wsO, 1, 16, 16),
      KernelArg::pointer(bt.data), KernelArg::pointer(lensData),
      KernelArg::pointer(wsO), KernelArg::pointer(wsLse), outO, outLse,
      KernelArg::pointer(workList), maxBatchArg, KernelArg::i32(sqn.b),
      KernelArg::i32(sqn.h), KernelArg::i32(sqp.b), KernelArg::i32(sqp.h),
      KernelArg::i64(kv.strides[0]), KernelArg::i32(skvTok),
      KernelArg::i32(sbt), KernelArg::i32(so.b), KernelArg::i32(so.h),
      KernelArg::i32(sl.b), KernelArg::i32(sl.h), KernelArg::i32(sqn.s),
      KernelArg::i32(sqp.s), KernelArg::i32(so.s), KernelArg::i32(sl.s),
      KernelArg::f32(float(softmaxScale)),
      // Not specialized: one stage-1 compile serves every batch size and
      // split count (BatchInvariant: its most pieces, the row stride; a
      // schedule ignores it).
      KernelArg::i32(int32_t(B)).unspecialized(),
      KernelArg::i32(scheduled ? 1 : stage1Splits).unspecialized(),
      // Read once per program: no facts worth a specialization.
      KernelArg::f32(metadata.kv_scale.value_or(1.0f)).unspecialized(),
      KernelArg::pointer(metadata.kv_scale_tensor.data).unspecialized(),
      // fp8_ds_mla's scales and rope, read at the cache's own address
      // (other caches never read them).
      KernelArg::pointer(kv.data), KernelArg::pointer(kv.data),
      KernelArg::pointer(mergeCounts ? mergeCounts->data() : nullptr)};
  launches.stage2Args = {KernelArg::pointer(wsO),
                         KernelArg::pointer(wsLse),
                         KernelArg::pointer(lensData),
                         KernelArg::pointer(workList),
                         maxBatchArg,
                         outO,
                         outLse,
                         KernelArg::i32(so.b),
                         KernelArg::i32(so.h),
                         KernelArg::i32(sl.b),
                         KernelArg::i32(sl.h),
                         KernelArg::i32(so.s),
                         KernelArg::i32(sl.s)};
  return launches;
}

} // namespace tilemla::mla
