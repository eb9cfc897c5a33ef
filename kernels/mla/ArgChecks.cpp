//===- ArgChecks.cpp - forward_decode's argument checks -------------------===//
#include "ArgChecks.h"

#include <algorithm>
#include <array>
#include <climits>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numeric>

namespace tilemla::mla {
namespace {
bool isEmpty(const TensorView &view) {
  return std::find(view.shape.begin(), view.shape.end(), 0) != view.shape.end();
}

/// The largest element offset of `view`'s dimensions from `firstDim` on
/// (strides checked non-negative); saturates, as shapes and strides are the
/// caller's, possibly huge.
int64_t lastOffset(const TensorView &view, size_t firstDim = 0) {
  __int128 last = 0;
  for (size_t i = firstDim; i < view.shape.size(); ++i)
    if (view.shape[i] > 1)
      last += __int128(view.shape[i] - 1) * view.strides[i];
  return last > INT64_MAX ? INT64_MAX : int64_t(last);
}
} // namespace

std::string shapeString(const std::vector<int64_t> &shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

void checkView(const char *name, const TensorView &view,
               std::initializer_list<int64_t> shape,
               std::initializer_list<DType> dtypes, int device) {
  if (!std::equal(view.shape.begin(), view.shape.end(), shape.begin(),
                  shape.end()))
    throw Error(fmt::format("{}: expected shape {}, got {}", name,
                            shapeString(std::vector<int64_t>(shape)),
                            shapeString(view.shape)));
  if (view.strides.size() != view.shape.size())
    throw Error(fmt::format("{}: {} strides for a rank-{} shape", name,
                            view.strides.size(), view.shape.size()));
  if (std::find(dtypes.begin(), dtypes.end(), view.dtype) == dtypes.end()) {
    std::vector<std::string> names;
    for (DType d : dtypes)
      names.push_back(dtypeName(d));
    throw Error(fmt::format("{}: expected dtype {}, got {}", name,
                            fmt::join(names, " or "), dtypeName(view.dtype)));
  }
  if (view.device != device)
    throw Error(fmt::format("{}: expected device {}, got device {}", name,
                            device, view.device));
  for (size_t i = 0; i < view.strides.size(); ++i)
    if (view.strides[i] < 0)
      throw Error(fmt::format("{}: negative stride {} in dimension {}", name,
                              view.strides[i], i));
  // Counting the elements could overflow: a view is empty iff a dimension
  // is.
  bool empty = isEmpty(view);
  if (!empty && !view.data)
    throw Error(fmt::format("{}: null data pointer", name));
  if (!empty && reinterpret_cast<uintptr_t>(view.data) % dtypeSize(view.dtype))
    throw Error(fmt::format("{}: data pointer {} is not aligned to its "
                            "{}-byte elements",
                            name, view.data, dtypeSize(view.dtype)));
}

void checkUnitLastStride(const char *name, const TensorView &view) {
  // An empty view has no element to place (NumPy gives it zero strides).
  if (!view.shape.empty() && view.shape.back() > 1 &&
      view.strides.back() != 1 && !isEmpty(view))
    throw Error(fmt::format(
        "{}: last dimension must be contiguous (stride 1), got stride {}", name,
        view.strides.back()));
}

int32_t i32Stride(const char *name, int64_t stride) {
  if (stride > INT32_MAX)
    throw Error(
        fmt::format("{}: stride {} does not fit in 32 bits", name, stride));
  return int32_t(stride);
}

void checkI32Extent(const char *name, const TensorView &view, size_t firstDim) {
  if (lastOffset(view, firstDim) > INT32_MAX)
    throw Error(fmt::format("{}: shape {} with strides {} reaches past "
                            "element 2^31 - 1; the kernels index it in 32 "
                            "bits",
                            name, shapeString(view.shape),
                            shapeString(view.strides)));
}

void checkNoSelfOverlap(const char *name, const TensorView &view) {
  if (isEmpty(view))
    return;
  // Dimensions by increasing stride: each must step past everything the
  // smaller ones span.
  // (No allocation: this runs on every call; the views have rank <= 4.)
  std::array<size_t, 8> order;
  const size_t rank = std::min(view.shape.size(), order.size());
  std::iota(order.begin(), order.begin() + rank, 0);
  std::sort(order.begin(), order.begin() + rank, [&](size_t a, size_t b) {
    return view.strides[a] < view.strides[b];
  });
  int64_t span = 1; // elements the smaller dimensions reach, plus one
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = order[i];
    if (view.shape[d] <= 1)
      continue;
    if (view.strides[d] < span)
      throw Error(fmt::format("{}: strides {} for shape {} make elements "
                              "overlap (dimension {}); outputs need one "
                              "place each",
                              name, shapeString(view.strides),
                              shapeString(view.shape), d));
    span += (view.shape[d] - 1) * view.strides[d];
  }
}

void checkNoAlias(const char *name, const TensorView &out,
                  const char *otherName, const TensorView &other) {
  auto range = [](const TensorView &v) {
    auto begin = reinterpret_cast<uintptr_t>(v.data);
    unsigned __int128 end =
        begin + (unsigned __int128)(lastOffset(v)) * dtypeSize(v.dtype) +
        dtypeSize(v.dtype);
    return std::make_pair((unsigned __int128)begin, end);
  };
  if (!out.data || !other.data || isEmpty(out) || isEmpty(other))
    return;
  auto [a0, a1] = range(out);
  auto [b0, b1] = range(other);
  if (a0 < b1 && b0 < a1)
    throw Error(fmt::format("{}: overlaps {} in memory; outputs must not "
                            "alias the inputs or each other",
                            name, otherName));
}

} // namespace tilemla::mla
