//===- IssueEarly.h - move a loop's prologue up its block -------*- C++ -*-===//
//
// Internal to the transforms library.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TRANSFORMS_ISSUEEARLY_H
#define TILEMLA_TRANSFORMS_ISSUEEARLY_H

#include "mlir/IR/Operation.h"

namespace mlir::tile {

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
