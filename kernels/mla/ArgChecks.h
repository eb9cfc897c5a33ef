//===- ArgChecks.h - forward_decode's argument checks -----------*- C++ -*-===//
//
// Each throws tilemla::Error naming the argument and what was expected.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_MLA_ARGCHECKS_H
#define TILEMLA_MLA_ARGCHECKS_H

#include "tilemla/mla/TritonMLA.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace tilemla::mla {
/// "[8, 16, 576]".
std::string shapeString(const std::vector<int64_t> &shape);
/// What every argument shares: rank, shape, dtype, device, non-negative
/// strides, data present and aligned to its elements. (Braced lists at the
/// call: nothing is allocated on this path, which every call takes.)
void checkView(const char *name, const TensorView &view,
               std::initializer_list<int64_t> shape,
               std::initializer_list<DType> dtypes, int device);
void checkUnitLastStride(const char *name, const TensorView &view);
/// A stride the kernels take as i32.
int32_t i32Stride(const char *name, int64_t stride);
/// Views the kernels index in 32 bits (index times stride, summed over the
/// dimensions from `firstDim` on): every element's offset must fit.
void checkI32Extent(const char *name, const TensorView &view,
                    size_t firstDim = 0);
/// Outputs: no two elements in one place (a stride of 0, rows narrower
/// than R, ...).
void checkNoSelfOverlap(const char *name, const TensorView &view);
/// Output `out` and another argument do not share memory (their address
/// ranges, from the first to the last element, are disjoint).
void checkNoAlias(const char *name, const TensorView &out,
                  const char *otherName, const TensorView &other);
} // namespace tilemla::mla

#endif
