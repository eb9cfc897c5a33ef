//===- PipelineSlices.h - what tile-pipeline-loops streams and moves -*- C++
//-*-===//
//
// Internal to the transforms library: which loads a pipelined loop can
// stream through shared memory, the address computations it clones, and
// the motion of its prologue.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TRANSFORMS_PIPELINESLICES_H
#define TILEMLA_TRANSFORMS_PIPELINESLICES_H

#include "tilemla/Dialect/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mlir::tile {

/// Ops of `body` that `roots` are computed from, in block order. Fails when
/// one has regions or effects other than reads (only those can be
/// recomputed or moved freely in a body that writes nothing).
FailureOr<SmallVector<Operation *>> backwardSlice(Block &body,
                                                  ValueRange roots);

/// Indices of the loop-carried values `slice` or `roots` read.
void collectIterArgs(scf::ForOp loop, ArrayRef<Operation *> slice,
                     ValueRange roots, llvm::SetVector<unsigned> &indices);

/// Moves `group` (operations of one block, in block order) up their block,
/// past operations that at most read global memory (`tile.load`, or
/// regions of such loads and pure code) and whose results the group does
/// not use, together with the pure, region-free operations that compute
/// the group's operands (and the buffers it fills, when they hold nothing
/// yet). It stops at anything else: a store, a barrier, a
/// shared-memory access, a dependent wait. A pipelined loop's prologue
/// copies then leave as soon as their addresses are known, instead of
/// after the unrelated loads that precede the loop in the source (MLA
/// stage 1: q's rows, read while the first token block's page id and copy
/// are on their way).
void issueEarly(ArrayRef<Operation *> group);

} // namespace mlir::tile

#endif
