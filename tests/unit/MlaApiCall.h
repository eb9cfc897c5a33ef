//===- MlaApiCall.h - TritonMLAImpl built and called without a GPU --------===//
//
// The unit tests' impl (options.device = -1: no workspace; forward_decode
// validates every argument, then throws kValid) and a valid call's views.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TESTS_MLAAPICALL_H
#define TILEMLA_TESTS_MLAAPICALL_H

#include "tilemla/mla/TritonMLA.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilemla::mla::test {
struct Ctor {
  int64_t heads = 16, headSize = 576, kvHeads = 1;
  double scale = 0.1;
  std::optional<std::vector<float>> alibi;
  std::optional<int64_t> window;
  std::string kvDtype = "auto";
  std::optional<double> softCap;
  std::string attnType = "decoder";
  MLAArgs mla{512, 64, 128, 128};
  TritonMLAOptions options = [] {
    TritonMLAOptions o;
    o.device = -1;
    o.maxBatch = 8;
    return o;
  }();
  std::unique_ptr<TritonMLAImpl> make() const {
    return std::make_unique<TritonMLAImpl>(
        heads, headSize, scale, kvHeads, alibi, window, kvDtype, softCap,
        attnType, std::nullopt, mla, options);
  }
};

/// The message of the tilemla::Error `f` throws ("" if none).
template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

/// A valid decode call's views (pointers are never dereferenced: device -1).
struct Call {
  int64_t B = 8, H = 16, R = 512, P = 64, pages = 10, page = 16, maxPages = 4;
  TensorView q, qNope, qPe, kv, o, lse;
  DecodeMetadata md;
  /// Argument k's address: 2^40 bytes apart, never dereferenced.
  static void *at(int k) {
    return reinterpret_cast<void *>(uintptr_t(k + 1) << 40);
  }
  /// `queryLen` > 0: multi-token views, q [B, queryLen, H, R + P], o [B,
  /// queryLen, H, R], lse [B, queryLen, H].
  explicit Call(int64_t queryLen = 0) {
    auto rows = [&](std::vector<int64_t> shape) {
      if (queryLen > 0)
        shape.insert(shape.begin() + 1, queryLen);
      return shape;
    };
    q = contiguousView(at(0), DType::BF16, rows({B, H, R + P}), -1);
    qNope = contiguousView(at(1), DType::BF16, rows({B, H, R}), -1);
    qPe = contiguousView(at(2), DType::BF16, rows({B, H, P}), -1);
    kv = contiguousView(at(3), DType::BF16, {pages, page, R + P}, -1);
    o = contiguousView(at(4), DType::BF16, rows({B, H, R}), -1);
    lse = contiguousView(at(5), DType::F32, rows({B, H}), -1);
    md.block_table = contiguousView(at(6), DType::I32, {B, maxPages}, -1);
    md.seq_lens = contiguousView(at(7), DType::I32, {B}, -1);
    md.max_seq_len = 60;
  }
};

inline const char *kValid =
    "TritonMLAImpl: constructed with options.device = -1 (no device); "
    "forward_decode only validated its arguments";

/// The error of each forward_decode form (q, the pair, without lse) on
/// `k`'s views: kValid when every argument passes.
inline std::vector<std::string> formErrors(TritonMLAImpl &impl, const Call &k) {
  return {errorOf([&] { impl.forward_decode(k.q, k.kv, k.md, k.o, k.lse); }),
          errorOf([&] {
            impl.forward_decode(k.qNope, k.qPe, k.kv, k.md, k.o, k.lse);
          }),
          errorOf([&] { impl.forward_decode(k.q, k.kv, k.md, k.o); })};
}

} // namespace tilemla::mla::test

#endif
