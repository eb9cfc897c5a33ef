//===- SplitGEPOffsets.h - constant offsets out of GEP indices --*- C++ -*-===//
#ifndef TILEMLA_BACKEND_SPLITGEPOFFSETS_H
#define TILEMLA_BACKEND_SPLITGEPOFFSETS_H

#include "llvm/IR/PassManager.h"

namespace tilemla {
/// Rewrites `gep T, P, sext(X | C)` (a disjoint or: an add that cannot
/// carry), `gep T, P, sext(X +nsw C)` and `gep T, P, zext(X +nuw C)` into
/// `gep T, (gep T, P, ext X), C`, one base per (P, X, extension) and block.
/// The addresses are equal. A tensor's per-thread
/// elements are addressed so (the thread's first index, or'ed with each
/// element's constant offset), and NVPTX's straight-line strength reduction,
/// which cannot see through the sext, compares every such GEP with every
/// earlier one: quadratic (vector_add with 512 elements per thread spent 96 %
/// of a 13 s compile there). With the split the PTX is the same, or differs
/// in how one address is formed (a mul.wide for a shl and a cvt).
struct SplitGEPOffsetsPass : llvm::PassInfoMixin<SplitGEPOffsetsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &);
};
} // namespace tilemla

#endif
