//===- MLIRGen.h - AST to tile IR -------------------------------*- C++ -*-===//
//
// Lowers one kernel of a parsed module, specialized with -D values, to the
// tile IR (tile dialect + arith/math/scf/func on unencoded ranked tensors).
//
//===----------------------------------------------------------------------===//

#ifndef TILEMLA_FRONTEND_MLIRGEN_H
#define TILEMLA_FRONTEND_MLIRGEN_H

#include "tilemla/Frontend/AST.h"
#include "tilemla/Frontend/Diagnostics.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>

namespace tilemla {

/// A parsed `-D NAME=VALUE` value.
struct SpecValue {
  enum Kind { Int, Float, Bool, DType } kind = Int;
  int64_t i = 0;
  double f = 0;
  std::string dtype; // DType: the spelling, e.g. "bf16"
};

/// `-D NAME=VALUE` strings as given on the command line (NAME -> VALUE).
using Specialization = std::map<std::string, std::string>;

/// Parses a constexpr value (`128`, `-1`, `0x10`, `0.5`, `1e-3`, `True`,
/// `false`) when `wantDType` is false, else a dtype name (`f16 bf16 f32 i1
/// i32 i64 fp8e4m3`). Returns false if the text is not such a value.
bool parseSpecValue(llvm::StringRef text, bool wantDType, SpecValue &out);

/// Registers/loads the dialects the generated IR uses.
void loadFrontendDialects(mlir::MLIRContext &ctx);

/// Generates `func.func @kernelName` (the first kernel when empty) plus the
/// helper instances it calls. Returns null, with diagnostics in `diags`, on
/// error. Locations are FileLineColLoc in diags.getFile()'s path.
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &ctx,
                                          const ModuleAST &module,
                                          llvm::StringRef kernelName,
                                          const Specialization &values,
                                          DiagnosticEngine &diags);

} // namespace tilemla

#endif // TILEMLA_FRONTEND_MLIRGEN_H
