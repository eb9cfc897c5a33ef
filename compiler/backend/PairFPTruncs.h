//===- PairFPTruncs.h - paired float narrowing next to its use --*- C++ -*-===//
#ifndef TILEMLA_BACKEND_PAIRFPTRUNCS_H
#define TILEMLA_BACKEND_PAIRFPTRUNCS_H

#include "llvm/IR/PassManager.h"

namespace tilemla {
/// Rewrites a vector of 16-bit floats built element by element from scalar
/// truncations, `insertelement(...insertelement(poison, fptrunc a, 0)...,
/// fptrunc z, n - 1)` with n even, into one `fptrunc <n x float>` of
/// (a, ..., z) where the vector is built. The values are equal. NVPTX forms
/// the paired `cvt.rn.bf16x2.f32` / `cvt.rn.f16x2.f32` only when both
/// truncations of a pair sit in the block that pairs them; a tensor's
/// elements are truncated together, and a masked store's branches then
/// leave the vectors in later blocks, so the 16-bit halves are converted
/// one by one and moved into place. ptxas treats those conversions, when
/// they read a wgmma accumulator, as reads inside the wgmma pipeline
/// (C7514) and serializes every wgmma of the kernel.
struct PairFPTruncsPass : llvm::PassInfoMixin<PairFPTruncsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &);
};
} // namespace tilemla

#endif
