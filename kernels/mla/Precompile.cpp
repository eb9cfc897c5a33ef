//===- Precompile.cpp - every kernel a configuration can choose ----------===//
//
// TritonMLAImpl::precompile: plans the calls of every batch size up to the
// given one, at one max_seq_len per split count the policy can pick, and
// compiles the distinct kernel sets together (Kernel::prepare).
//
//===----------------------------------------------------------------------===//
#include "tilemla/mla/TritonMLA.h"

#include <algorithm>
#include <map>

namespace tilemla::mla {
namespace {
TensorView firstRequests(TensorView view, int64_t batch) {
  view.shape[0] = batch;
  return view;
}
} // namespace

int TritonMLAImpl::precompile(const TensorView &q, const TensorView &kv_cache,
                              const DecodeMetadata &metadata,
                              const TensorView &o, const TensorView &lse) {
  return precompileCalls(
      {&q, &q, size_t(rank), false, &kv_cache, &metadata, &o, &lse});
}

int TritonMLAImpl::precompile(const TensorView &q_nope, const TensorView &q_pe,
                              const TensorView &kv_cache,
                              const DecodeMetadata &metadata,
                              const TensorView &o, const TensorView &lse) {
  return precompileCalls(
      {&q_nope, &q_pe, 0, true, &kv_cache, &metadata, &o, &lse});
}

int TritonMLAImpl::precompile(const TensorView &q, const TensorView &kv_cache,
                              const DecodeMetadata &metadata,
                              const TensorView &o) {
  return precompileCalls(
      {&q, &q, size_t(rank), false, &kv_cache, &metadata, &o, nullptr});
}

int TritonMLAImpl::precompile(const TensorView &q_nope, const TensorView &q_pe,
                              const TensorView &kv_cache,
                              const DecodeMetadata &metadata,
                              const TensorView &o) {
  return precompileCalls(
      {&q_nope, &q_pe, 0, true, &kv_cache, &metadata, &o, nullptr});
}

int TritonMLAImpl::precompileCalls(const DecodeCall &call) {
  std::lock_guard<std::mutex> oneCallAtATime(callMutex);
  // The whole call first: its argument errors are forward_decode's.
  DecodeMetadata longest = *call.metadata;
  const int64_t pageSize = call.kv->shape.size() >= 2 ? call.kv->shape[1] : 1;
  longest.max_seq_len = -1;
  if (call.metadata->block_table.shape.size() == 2)
    longest.max_seq_len = call.metadata->block_table.shape[1] * pageSize;
  DecodeCall whole = call;
  whole.metadata = &longest;
  if (!plan(whole))
    return 0; // no requests: nothing would launch

  // The split count grows with L (never shrinks), and only where
  // cdiv(L, 256 k) does, at L = 256 j + 1 (the policies' chunks and tails
  // are multiples of 256 tokens): one length per split count, up to the
  // count of the longest L. -1 (unknown) where the policy allows it.
  std::map<Kernels *, CallPlan> sets;
  const int64_t maxBatch = call.qNope->shape[0];
  const int64_t rows =
      heads * (call.qNope->shape.size() == 4 ? call.qNope->shape[1] : 1);
  for (int64_t batch = 1; batch <= maxBatch; ++batch) {
    std::vector<int64_t> lengths;
    std::vector<int> splitsSeen;
    auto consider = [&](int64_t len) {
      int splits = splitsFor(batch, len, rows);
      if (std::find(splitsSeen.begin(), splitsSeen.end(), splits) ==
          splitsSeen.end()) {
        splitsSeen.push_back(splits);
        lengths.push_back(len);
      }
    };
    if (opts.splitPolicy != SplitPolicy::Auto)
      consider(-1);
    consider(0);
    const int most = splitsFor(batch, longest.max_seq_len, rows);
    for (int64_t len = 1;
         len <= longest.max_seq_len && splitsSeen.back() != most; len += 256)
      consider(len);
    // Where the longest lengths take other tiles than the split count's
    // shortest (wideFp8Tiles), plan them as well.
    if (wideFp8Tiles(rows, batch, longest.max_seq_len) &&
        std::find(lengths.begin(), lengths.end(), longest.max_seq_len) ==
            lengths.end())
      lengths.push_back(longest.max_seq_len);

    TensorView qNope = firstRequests(*call.qNope, batch),
               qPe = firstRequests(*call.qPe, batch),
               o = firstRequests(*call.o, batch);
    std::optional<TensorView> lse;
    if (call.lse)
      lse = firstRequests(*call.lse, batch);
    DecodeMetadata metadata = *call.metadata;
    metadata.schedule = nullptr; // each batch plans its own (and its kernel)
    metadata.block_table = firstRequests(metadata.block_table, batch);
    metadata.seq_lens = firstRequests(metadata.seq_lens, batch);
    for (int64_t len : lengths) {
      metadata.max_seq_len = len;
      std::optional<CallPlan> planned =
          plan({&qNope, &qPe, call.qPeOffset, call.paired, call.kv, &metadata,
                &o, lse ? &*lse : nullptr});
      if (planned && !planned->kernels->prepared)
        sets.emplace(planned->kernels, std::move(*planned));
    }
  }

  std::vector<std::pair<Kernel, std::vector<KernelArg>>> launches;
  for (const auto &entry : sets) {
    auto planned = launchesOf(entry.second);
    launches.insert(launches.end(), planned.begin(), planned.end());
  }
  Kernel::prepare(launches);
  for (const auto &entry : sets)
    entry.first->prepared = true;
  return int(sets.size());
}
} // namespace tilemla::mla
