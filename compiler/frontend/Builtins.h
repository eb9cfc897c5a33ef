//===- Builtins.h - The builtin registry ------------------------*- C++ -*-===//
//
// Private to compiler/frontend. Every builtin is one BuiltinSpec: its name,
// its parameters (bound Python-style: positional, then keywords by name), how
// many of them are required, and the MLIRGenImpl member that generates it.
// Name resolution, argument binding and generation all read this one table.
//
//===----------------------------------------------------------------------===//

#ifndef TILEMLA_FRONTEND_BUILTINS_H
#define TILEMLA_FRONTEND_BUILTINS_H

#include "MLIRGenImpl.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace tilemla {

using BuiltinHandler =
    mlir::FailureOr<TValue> (MLIRGenImpl::*)(const BuiltinCall &);

struct BuiltinSpec {
  llvm::StringLiteral name;
  std::vector<llvm::StringLiteral> params;
  /// The first `required` parameters must be given.
  unsigned required;
  /// Null only for methods (`.to()`), which bind through the same rules but
  /// are dispatched by genCall.
  BuiltinHandler handler;
};

/// A builtin call whose arguments are bound to its spec's parameters.
struct BuiltinCall {
  const BuiltinSpec &spec;
  /// One entry per parameter; null where an optional argument is omitted.
  std::vector<const ExprAST *> args;
  SourceLoc loc;

  llvm::StringRef name() const { return spec.name; }
};

/// The builtin called `name`, or null.
const BuiltinSpec *lookupBuiltin(llvm::StringRef name);

} // namespace tilemla

#endif // TILEMLA_FRONTEND_BUILTINS_H
