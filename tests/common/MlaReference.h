//===- MlaReference.h - MLA decode problems and an fp64 reference ---------===//
//
// Shared by the interpreter tests (tests/unit/MlaInterpreterTest.cpp) and
// the GPU tests (tests/gpu/MlaGpuTest.cpp). A problem is B requests of H
// heads over a paged latent cache [num_pages, page, R + P] with padded page
// and token strides, a shuffled block table (pages of one request are
// neither contiguous nor ordered) whose unused entries point at a page of
// NaNs, and q either concatenated [B, H, R + P] or a pair (q_nope, q_pe)
// with padded head strides. With sq > 1 query tokens per request q is
// [B, sq, H, ...] (padded token strides), its rows are (token j, head h) =
// row j * H + h, and token j sees the request's first L - sq + j + 1 tokens
// (causal among the new ones). With kvScale > 0 the cache is fp8: e4m3
// codes of value / kvScale (kvCodes), and the reference reads the
// dequantized cache, code * kvScale. With dsMla it holds DeepSeek's
// fp8_ds_mla tokens (kvCodes again, with tokens dsTokStride bytes apart):
// each tile of 128 latent values, first scaled by a random power of two in
// [1/4, 4] of its own (so that a tile read with another's scale shows), as
// e4m3 codes of value / s, s = the tile's largest |value| / 448 (an f32
// after the codes), then the rope in bf16;
// the reference reads code * s and the bf16 rope. The reference is computed
// in fp64 from the rounded inputs, multithreaded over (b, row).
//
// Errors: o is compared per (b, row), relative to the row's largest
// |value| (the output is a convex combination of V rows, so elementwise
// relative errors near zero say nothing; fp8_ds_mla: per tile of 128); for a
// row that sees no token the row must be exactly 0 and lse exactly -inf. lse is
// compared in absolute terms.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TESTS_MLAREFERENCE_H
#define TILEMLA_TESTS_MLAREFERENCE_H

#include "HostNumerics.h"
#include "tilemla/Interpreter/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tilemla::test {

struct MlaCase {
  int H = 16, R = 512, P = 64, page = 64;
  int sq = 1;                ///< query tokens per request
  std::vector<int32_t> lens; ///< B = lens.size()
  DType type = DType::BF16;
  double scale = 0.0721687836; // 1/sqrt(192)
  bool pair = false;           ///< q as (q_nope, q_pe)
  /// Pages stored back to back (no padding between them): a cache TMA can
  /// describe as one [pages * page, row stride] tensor.
  bool contiguousPages = false;
  /// > 0: an fp8 (e4m3) cache with this scale, given to the call as a host
  /// number or (scaleOnDevice) as a device scalar.
  double kvScale = 0;
  bool scaleOnDevice = false;
  /// An fp8_ds_mla cache (R = 512).
  bool dsMla = false;
  /// q's values are uniform in [-qMagnitude, qMagnitude].
  double qMagnitude = 1;
  /// The block table as small as it can be: [B, the longest request's
  /// pages], unpadded, so that a kernel reading an entry past a request's
  /// pages reads past the table for the last one (compute-sanitizer's
  /// memcheck reports it).
  bool exactTable = false;

  int B() const { return int(lens.size()); }
  /// Query rows per request: token j's head h is row j * H + h.
  int rows() const { return sq * H; }
  /// The tokens query row `row` of request b attends to.
  int visible(int b, int row) const {
    return std::max(0, lens[size_t(b)] - sq + 1 + row / H);
  }
  std::string describe() const {
    std::ostringstream os;
    os << dtypeName(type) << " H=" << H;
    if (sq > 1)
      os << " s_q=" << sq;
    os << " R=" << R << " P=" << P << " page=" << page
       << (contiguousPages ? " contiguous" : "") << " scale=" << scale;
    if (kvScale > 0)
      os << " fp8 kv_scale=" << kvScale << (scaleOnDevice ? " (device)" : "");
    if (dsMla)
      os << " fp8_ds_mla";
    if (qMagnitude != 1)
      os << " |q|<=" << qMagnitude;
    if (exactTable)
      os << " exact table";
    os << (pair ? " pair" : " q") << " lens=[";
    for (size_t i = 0; i < lens.size(); ++i)
      os << (i ? "," : "") << lens[i];
    os << "]";
    return os.str();
  }
};

struct MlaProblem {
  MlaCase c;
  int maxPages = 0, btStride = 0, numPages = 0, poisonPage = 0;
  int64_t kvPageStride = 0, kvTokStride = 0;
  int64_t qnStrideB = 0, qnStrideH = 0, qpStrideB = 0, qpStrideH = 0;
  int64_t qnStrideS = 0, qpStrideS = 0; ///< per query token
  int64_t qpOffset = 0; ///< q_pe's first element within qp's buffer
  HostTensor qn{DType::F32, 0}, qp{DType::F32, 0}, kv{DType::F32, 0};
  /// An fp8 cache's bytes (kv.values holds what they decode to).
  std::vector<uint8_t> kvCodes;
  /// fp8_ds_mla: bytes between tokens and pages of kvCodes.
  int64_t dsTokStride = 0, dsPageStride = 0;
  std::vector<int32_t> blockTable, seqLens;

  /// Element d of query row `row` (token row / H, head row % H).
  double qNope(int b, int row, int d) const {
    return qn.values[size_t(b * qnStrideB + row / c.H * qnStrideS +
                            row % c.H * qnStrideH + d)];
  }
  double qPe(int b, int row, int d) const {
    const HostTensor &t = c.pair ? qp : qn;
    return t.values[size_t(qpOffset + b * qpStrideB + row / c.H * qpStrideS +
                           row % c.H * qpStrideH + d)];
  }
  /// Element d (< R + P) of token t of request b.
  double kvAt(int b, int t, int d) const {
    int page = blockTable[size_t(b) * btStride + t / c.page];
    return kv
        .values[size_t(page * kvPageStride + (t % c.page) * kvTokStride + d)];
  }
};

/// p's cache as fp8_ds_mla tokens (see the file comment), padded by 16
/// bytes between tokens and pages unless its pages are back to back; p.kv
/// then holds what they decode to. A token with a NaN (the poisoned page
/// and slots) is all NaN: codes, scales and rope.
inline void encodeDsMla(MlaProblem &p, std::mt19937_64 &rng) {
  std::uniform_int_distribution<int> exponent(-2, 2);
  const MlaCase &c = p.c;
  const int tiles = c.R / 128;
  const int64_t pad = c.contiguousPages ? 0 : 16;
  p.dsTokStride = c.R + 4 * tiles + 2 * c.P + pad;
  p.dsPageStride = c.page * p.dsTokStride + pad;
  p.kvCodes.assign(size_t(p.numPages * p.dsPageStride), 0xa5);
  for (int64_t token = 0; token < int64_t(p.numPages) * c.page; ++token) {
    const size_t src = size_t(token / c.page * p.kvPageStride +
                              token % c.page * p.kvTokStride);
    uint8_t *dst = &p.kvCodes[size_t(token / c.page * p.dsPageStride +
                                     token % c.page * p.dsTokStride)];
    double *v = &p.kv.values[src];
    const bool poisoned =
        std::any_of(v, v + c.R + c.P, [](double x) { return std::isnan(x); });
    for (int g = 0; g < tiles; ++g) {
      const double spread = std::ldexp(1.0, exponent(rng));
      double peak = 0;
      for (int d = g * 128; d < (g + 1) * 128; ++d)
        peak = std::max(peak, std::fabs(v[d] *= spread));
      const float s = poisoned ? NAN : peak > 0 ? float(peak / 448) : 1.0f;
      std::memcpy(dst + c.R + 4 * g, &s, 4);
      for (int d = g * 128; d < (g + 1) * 128; ++d) {
        dst[d] = poisoned ? 0x7f : interp::floatToFP8E4M3(float(v[d] / s));
        v[d] = interp::fp8e4m3ToFloat(dst[d]) * double(s);
      }
    }
    for (int d = 0; d < c.P; ++d) {
      const uint16_t bits = toBF16(float(v[c.R + d]));
      std::memcpy(dst + c.R + 4 * tiles + 2 * d, &bits, 2);
      v[c.R + d] = fromBF16(bits);
    }
  }
}

inline MlaProblem makeMlaProblem(const MlaCase &c, std::mt19937_64 &rng) {
  MlaProblem p;
  p.c = c;
  const int B = c.B(), D = c.R + c.P;
  int usedPages = 0, longest = 0;
  for (int L : c.lens) {
    usedPages += (L + c.page - 1) / c.page;
    longest = std::max(longest, L);
  }
  p.maxPages = std::max(1, (longest + c.page - 1) / c.page + !c.exactTable);
  p.btStride = p.maxPages + (c.exactTable ? 0 : 3); // padded rows
  p.numPages = usedPages + 3; // spare pages, one of them all NaN
  p.poisonPage = p.numPages - 1;
  // Padded rows; the back-to-back pages meant for TMA keep a row a multiple
  // of 16 bytes (the tensor map's stride), fp8 codes too.
  const bool fp8Codes = c.kvScale > 0 && !c.dsMla;
  p.kvTokStride = D + (fp8Codes && c.contiguousPages ? 16 : 8);
  p.kvPageStride = c.page * p.kvTokStride + (c.contiguousPages ? 0 : 16);
  p.kv = HostTensor(c.type, size_t(p.numPages) * p.kvPageStride);
  fillUniform(p.kv, rng, -1, 1);
  for (int64_t i = 0; i < p.kvPageStride; ++i)
    p.kv.set(size_t(p.poisonPage * p.kvPageStride + i), NAN);

  // Pages handed out in a shuffled order: a request's pages are scattered.
  std::vector<int32_t> order(usedPages);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  p.blockTable.assign(size_t(B) * p.btStride, p.poisonPage);
  int next = 0;
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < (c.lens[b] + c.page - 1) / c.page; ++i)
      p.blockTable[size_t(b) * p.btStride + i] = order[next++];
  p.seqLens = c.lens;
  // The unused slots of each request's last page hold NaN: no kernel may
  // read them into its result (a zero weight does not cancel a NaN).
  for (int b = 0; b < B; ++b)
    for (int t = c.lens[b]; t % c.page != 0; ++t)
      for (int d = 0; d < D; ++d)
        p.kv.set(size_t(p.blockTable[size_t(b) * p.btStride + t / c.page] *
                            p.kvPageStride +
                        (t % c.page) * p.kvTokStride + d),
                 NAN);
  if (c.dsMla)
    encodeDsMla(p, rng);
  if (c.kvScale > 0) {
    p.kvCodes.resize(p.kv.values.size());
    for (size_t i = 0; i < p.kvCodes.size(); ++i) {
      p.kvCodes[i] = interp::floatToFP8E4M3(float(p.kv.values[i] / c.kvScale));
      p.kv.values[i] =
          interp::fp8e4m3ToFloat(p.kvCodes[i]) * double(float(c.kvScale));
    }
  }

  // Several query tokens: tokens padded apart, requests back to back.
  const int tokenPad = c.sq > 1 ? 24 : 0;
  if (c.pair) {
    p.qnStrideH = c.R + 16, p.qnStrideS = c.H * p.qnStrideH + tokenPad;
    p.qnStrideB = c.sq * p.qnStrideS;
    p.qpStrideH = c.P + 8, p.qpStrideS = c.H * p.qpStrideH + tokenPad;
    p.qpStrideB = c.sq * p.qpStrideS + 4;
    p.qn = HostTensor(c.type, size_t(std::max(1, B)) * p.qnStrideB);
    p.qp = HostTensor(c.type, size_t(std::max(1, B)) * p.qpStrideB);
    fillUniform(p.qn, rng, -c.qMagnitude, c.qMagnitude);
    fillUniform(p.qp, rng, -c.qMagnitude, c.qMagnitude);
  } else {
    p.qnStrideH = D, p.qnStrideS = c.H * D + tokenPad;
    p.qnStrideB = c.sq * p.qnStrideS;
    p.qpStrideH = D, p.qpStrideS = p.qnStrideS, p.qpStrideB = p.qnStrideB;
    p.qpOffset = c.R;
    p.qn = HostTensor(c.type, size_t(std::max(1, B)) * p.qnStrideB);
    fillUniform(p.qn, rng, -c.qMagnitude, c.qMagnitude);
  }
  return p;
}

struct MlaReference {
  std::vector<double> o;   ///< [B, rows, R]
  std::vector<double> lse; ///< [B, rows]
};

inline MlaReference mlaReference(const MlaProblem &p) {
  const MlaCase &c = p.c;
  const int B = c.B(), rows = c.rows();
  MlaReference ref;
  ref.o.assign(size_t(B) * rows * c.R, 0.0);
  ref.lse.assign(size_t(B) * rows, -INFINITY);
  auto one = [&](int b, int h) {
    int L = c.visible(b, h);
    if (L == 0)
      return;
    std::vector<double> s(L);
    double peak = -INFINITY;
    for (int t = 0; t < L; ++t) {
      double dot = 0;
      for (int d = 0; d < c.R; ++d)
        dot += p.qNope(b, h, d) * p.kvAt(b, t, d);
      for (int d = 0; d < c.P; ++d)
        dot += p.qPe(b, h, d) * p.kvAt(b, t, c.R + d);
      s[t] = dot * c.scale;
      peak = std::max(peak, s[t]);
    }
    double total = 0;
    for (int t = 0; t < L; ++t)
      total += (s[t] = std::exp(s[t] - peak));
    double *o = &ref.o[(size_t(b) * rows + h) * c.R];
    for (int t = 0; t < L; ++t)
      for (int d = 0; d < c.R; ++d)
        o[d] += s[t] / total * p.kvAt(b, t, d);
    ref.lse[size_t(b) * rows + h] = peak + std::log(total);
  };
  int work = B * rows;
  int threads =
      std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
  threads = std::min(threads, std::max(1, work));
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (int i = w; i < work; i += threads)
        one(i / rows, i % rows);
    });
  for (std::thread &t : pool)
    t.join();
  return ref;
}

struct MlaErrors {
  double o = 0;   ///< worst row-relative error of o
  double lse = 0; ///< worst absolute error of lse
  std::string where;
};

/// `o` [B, rows, R] and `lse` [B, rows] as decoded from the outputs
/// (contiguous).
inline MlaErrors mlaErrors(const MlaProblem &p, const MlaReference &ref,
                           const std::vector<double> &o,
                           const std::vector<double> &lse) {
  const MlaCase &c = p.c;
  MlaErrors e;
  double worstO = -1;
  for (int b = 0; b < c.B(); ++b)
    for (int h = 0; h < c.rows(); ++h) {
      size_t row = size_t(b) * c.rows() + h;
      // fp8_ds_mla: relative to each tile of 128 (tiles of one row differ
      // in scale by up to 16x; a wrong tile must not hide behind another).
      const int segment = c.dsMla ? 128 : c.R;
      double err = 0;
      for (int d0 = 0; d0 < c.R; d0 += segment) {
        double scaleRow = 0;
        for (int d = d0; d < d0 + segment; ++d)
          scaleRow = std::max(scaleRow, std::fabs(ref.o[row * c.R + d]));
        for (int d = d0; d < d0 + segment; ++d) {
          double got = o[row * c.R + d], want = ref.o[row * c.R + d];
          double diff = std::isnan(got) ? INFINITY : std::fabs(got - want);
          err = std::max(err, c.visible(b, h) == 0 ? diff : diff / scaleRow);
        }
      }
      double lseErr;
      if (std::isinf(ref.lse[row]))
        lseErr = lse[row] == ref.lse[row] ? 0 : INFINITY;
      else
        lseErr = std::isnan(lse[row]) ? INFINITY
                                      : std::fabs(lse[row] - ref.lse[row]);
      if (err > worstO) {
        worstO = err;
        e.where = "b=" + std::to_string(b) + " row=" + std::to_string(h) +
                  " L=" + std::to_string(c.lens[b]);
      }
      e.o = std::max(e.o, err);
      e.lse = std::max(e.lse, lseErr);
    }
  return e;
}

} // namespace tilemla::test

#endif
