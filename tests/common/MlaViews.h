//===- MlaViews.h - forward_decode's views of an MlaProblem on the GPU ----===//
#ifndef TILEMLA_TESTS_MLAVIEWS_H
#define TILEMLA_TESTS_MLAVIEWS_H

#include "MlaReference.h"
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace tilemla::test {
/// The concatenated q [B, H, R + P] of `p` at device address `data`.
/// A device copy of `bytes` host bytes (at least 4 bytes are allocated, so an
/// empty table still has an address).
inline DeviceBuffer uploadBytes(const void *data, size_t bytes) {
  DeviceBuffer buffer(std::max<size_t>(bytes, 4));
  buffer.upload(data, bytes);
  return buffer;
}

/// With several query tokens, [B, s_q, H, R + P].
inline mla::TensorView queryView(const MlaProblem &p, void *data,
                                 mla::DType type) {
  const MlaCase &c = p.c;
  if (c.sq > 1)
    return {data,
            type,
            {c.B(), c.sq, c.H, c.R + c.P},
            {p.qnStrideB, p.qnStrideS, p.qnStrideH, 1},
            0};
  return {
      data, type, {c.B(), c.H, c.R + c.P}, {p.qnStrideB, p.qnStrideH, 1}, 0};
}

/// The pair's views of `p`'s q_nope and q_pe buffers (q_pe at its offset).
inline std::pair<mla::TensorView, mla::TensorView>
queryPairViews(const MlaProblem &p, void *qn, void *qp, mla::DType type) {
  const MlaCase &c = p.c;
  const int64_t B = c.B();
  if (c.sq > 1)
    return {{qn,
             type,
             {B, c.sq, c.H, c.R},
             {p.qnStrideB, p.qnStrideS, p.qnStrideH, 1},
             0},
            {qp,
             type,
             {B, c.sq, c.H, c.P},
             {p.qpStrideB, p.qpStrideS, p.qpStrideH, 1},
             0}};
  return {{qn, type, {B, c.H, c.R}, {p.qnStrideB, p.qnStrideH, 1}, 0},
          {qp, type, {B, c.H, c.P}, {p.qpStrideB, p.qpStrideH, 1}, 0}};
}

/// Contiguous outputs of `p` at `o` and `lse`: [B, H, R] and [B, H], or
/// [B, s_q, H, R] and [B, s_q, H].
inline std::pair<mla::TensorView, mla::TensorView>
outputViews(const MlaProblem &p, void *o, mla::DType oType, void *lse,
            mla::DType lseType) {
  const MlaCase &c = p.c;
  const int64_t B = c.B(), H = c.H, R = c.R;
  if (c.sq > 1)
    return {mla::contiguousView(o, oType, {B, c.sq, H, R}),
            mla::contiguousView(lse, lseType, {B, c.sq, H})};
  return {mla::contiguousView(o, oType, {B, H, R}),
          mla::contiguousView(lse, lseType, {B, H})};
}

/// The paged KV cache [num_pages, page, R + P] of `p` at `data`.
inline mla::TensorView kvCacheView(const MlaProblem &p, void *data,
                                   mla::DType type) {
  const MlaCase &c = p.c;
  if (c.dsMla) // the tokens' bytes, whatever `type`
    return {data,
            mla::DType::U8,
            {p.numPages, c.page, mla::dsMlaTokenBytes(c.R, c.P)},
            {p.dsPageStride, p.dsTokStride, 1},
            0};
  return {data,
          type,
          {p.numPages, c.page, c.R + c.P},
          {p.kvPageStride, p.kvTokStride, 1},
          0};
}

/// Block table and lengths of `p` at the given addresses; the host-side
/// max_seq_len is the batch's longest length.
inline mla::DecodeMetadata decodeMetadata(const MlaProblem &p, void *blockTable,
                                          void *seqLens) {
  const int64_t B = p.c.B();
  mla::DecodeMetadata md;
  md.block_table = {
      blockTable, mla::DType::I32, {B, p.maxPages}, {p.btStride, 1}, 0};
  md.seq_lens = mla::contiguousView(seqLens, mla::DType::I32, {B});
  md.max_seq_len = 0;
  for (int L : p.c.lens)
    md.max_seq_len = std::max<int64_t>(md.max_seq_len, L);
  return md;
}
/// `p` on the device, its outputs (o in `type`, lse in f32) poisoned with
/// NaN, and the views one forward_decode call of it takes.
struct MlaDeviceProblem {
  DeviceBuffer q, kvCache, blockTable, seqLens, o, lse;
  mla::TensorView qView, kvView, oView, lseView;
  mla::DecodeMetadata metadata;
};
inline MlaDeviceProblem uploadMlaProblem(const MlaProblem &p, mla::DType type) {
  const MlaCase &c = p.c;
  const int64_t B = c.B(), H = c.rows(), R = c.R;
  const size_t elem = type == mla::DType::F32 ? 4 : 2;
  MlaDeviceProblem d{
      uploadBytes(p.qn.bytes.data(), p.qn.bytes.size()),
      uploadBytes(p.kv.bytes.data(), p.kv.bytes.size()),
      uploadBytes(p.blockTable.data(), p.blockTable.size() * 4),
      uploadBytes(p.seqLens.data(), p.seqLens.size() * 4),
      DeviceBuffer(std::max<size_t>(1, size_t(B) * H * R * elem)),
      DeviceBuffer(std::max<size_t>(1, size_t(B) * H * 4)),
      {},
      {},
      {},
      {},
      {}};
  d.o.fill(0xff);
  d.lse.fill(0xff);
  d.qView = queryView(p, d.q.data(), type);
  d.kvView = kvCacheView(p, d.kvCache.data(), type);
  std::tie(d.oView, d.lseView) =
      outputViews(p, d.o.data(), type, d.lse.data(), mla::DType::F32);
  d.metadata = decodeMetadata(p, d.blockTable.data(), d.seqLens.data());
  return d;
}

/// The outputs a finished call left in `d` (bf16 o, f32 lse) against p's
/// fp64 reference.
inline MlaErrors downloadedMlaErrors(const MlaProblem &p,
                                     const MlaDeviceProblem &d) {
  const size_t B = p.c.B(), H = p.c.rows(), R = p.c.R;
  HostTensor got(DType::BF16, B * H * R), gotLse(DType::F32, B * H);
  d.o.download(got.bytes.data(), got.bytes.size());
  d.lse.download(gotLse.bytes.data(), gotLse.bytes.size());
  got.decode();
  gotLse.decode();
  return mlaErrors(p, mlaReference(p), got.values, gotLse.values);
}
} // namespace tilemla::test

#endif
