//===- SplitRoles.h - tile-split-roles' two files ---------------*- C++ -*-===//
//
// What the pass (SplitRoles.cpp: the roles' copies of the consumer region)
// and its crossings (SplitRolesCrossings.cpp: what one role hands the other
// through shared memory) share. Internal to the transforms library.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TRANSFORMS_SPLITROLES_H
#define TILEMLA_TRANSFORMS_SPLITROLES_H

#include "TransformUtils.h"
#include "tilemla/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::tile::split_roles {

enum class Role { Both, Score, Accumulate };

/// Marks an op of one role while the pass runs (removed at its end).
constexpr llvm::StringLiteral kRoleAttr = "tile.split_role";
inline void tag(Operation *op, Role role) {
  op->setAttr(
      kRoleAttr,
      IntegerAttr::get(IntegerType::get(op->getContext(), 32), int64_t(role)));
}

inline Role roleTag(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>(kRoleAttr);
  return attr ? Role(attr.getInt()) : Role::Both;
}

/// The kernel's warps (the accumulate role) and the warpgroup past them that
/// owns the narrow dots (the score role).
struct RoleOwners {
  int64_t numWarps = 4, scoreOwner = 0;

  bool isScoreValue(Value value) const {
    return getOwningWarpgroup(value.getType()) == scoreOwner;
  }
  bool isScoreBranch(Operation *op) const {
    return getRunOwner(op) == scoreOwner;
  }
};

/// Turns each value that crosses from one role to the other inside `body`
/// (a consumer region, before the roles' copies are made) into shared
/// memory traffic with its barriers, tagging each new op with the role that
/// runs it; buffers and barriers are made at `above`.
LogicalResult addCrossings(Block &body, OpBuilder &above,
                           const RoleOwners &owners);

} // namespace mlir::tile::split_roles

#endif // TILEMLA_TRANSFORMS_SPLITROLES_H
