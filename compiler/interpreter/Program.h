//===- Program.h - executes one program of a launch -------------*- C++ -*-===//
//
// ProgramInterpreter walks a kernel's tile IR for one program id, keeping a
// runtime value per SSA value. Control flow (scf.for, scf.if, returns) is
// here; the op families live in ArithOps.cpp and TileOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_INTERPRETER_PROGRAM_H
#define TILEMLA_INTERPRETER_PROGRAM_H

#include "Memory.h"
#include "Values.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/Twine.h"

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

namespace tilemla::interp {
/// What every program of a launch shares.
struct LaunchState {
  std::string kernelName;
  std::array<unsigned, 3> grid;
  Memory memory;
};

class ProgramInterpreter {
public:
  ProgramInterpreter(const LaunchState &launch, std::array<unsigned, 3> pid)
      : launch(launch), pid(pid) {}

  /// Runs the kernel body with `args` bound to its arguments.
  void run(mlir::func::FuncOp func, std::vector<RtValue> args);

  const RtValue &get(mlir::Value value) const;
  void set(mlir::Value value, RtValue result);

  /// Throws InterpreterError (or OutOfBoundsError when `outOfBounds`) with
  /// the kernel, program id and `op`'s source location.
  [[noreturn]] void fail(mlir::Operation *op, const llvm::Twine &message,
                         bool outOfBounds = false) const;

  const LaunchState &launch;
  const std::array<unsigned, 3> pid;

private:
  /// Runs `block` (its arguments already bound); returns the operands of its
  /// terminator.
  std::vector<RtValue> runBlock(mlir::Block &block);
  void runOp(mlir::Operation &op);

  std::unordered_map<const void *, RtValue> values;
};

/// Executes an arith or math op; false if `op` is not one.
bool runArithOp(ProgramInterpreter &interp, mlir::Operation &op);
/// Executes a tile dialect op; false if `op` is not one.
bool runTileOp(ProgramInterpreter &interp, mlir::Operation &op);

/// `file:line:col` of a location (callee first for inlined code).
std::string formatLocation(mlir::Location loc);
} // namespace tilemla::interp

#endif
