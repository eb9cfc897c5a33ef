//===- MLIRGenImpl.h - Internal state of the AST to MLIR lowering -*- C++
//-*-===//
//
// Private to compiler/frontend. Values are TValues: either runtime SSA values
// or compile-time (constexpr) ints/floats/bools, dtypes and tuples, so that
// shapes, arange bounds, static_for bounds and constexpr ifs can be evaluated
// while generating.
//
//===----------------------------------------------------------------------===//

#ifndef TILEMLA_FRONTEND_MLIRGENIMPL_H
#define TILEMLA_FRONTEND_MLIRGENIMPL_H

#include "tilemla/Dialect/TileDialect.h"
#include "tilemla/Frontend/AST.h"
#include "tilemla/Frontend/MLIRGen.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tilemla {

struct TValue {
  enum Kind {
    Poison,  // result of an already-reported error: fails silently
    Runtime, // an SSA value (scalar or tensor)
    Int,
    Float,
    Bool,
    DType,
    Tuple,
    None,   // `None`, or the result of a helper returning nothing
    String, // only as a static_assert message
  };
  Kind kind = Poison;
  mlir::Value value; // Runtime; for constexpr kernel params the block arg
  int64_t i = 0;
  double f = 0;
  bool b = false;
  mlir::Type type; // DType
  std::vector<TValue> elems;
  std::string str;

  static TValue runtime(mlir::Value v) {
    TValue t;
    t.kind = Runtime;
    t.value = v;
    return t;
  }
  static TValue ofInt(int64_t v) {
    TValue t;
    t.kind = Int;
    t.i = v;
    return t;
  }
  static TValue ofFloat(double v) {
    TValue t;
    t.kind = Float;
    t.f = v;
    return t;
  }
  static TValue ofBool(bool v) {
    TValue t;
    t.kind = Bool;
    t.b = v;
    return t;
  }
  static TValue ofType(mlir::Type ty) {
    TValue t;
    t.kind = DType;
    t.type = ty;
    return t;
  }
  static TValue none() {
    TValue t;
    t.kind = None;
    return t;
  }
  bool isConst() const { return kind == Int || kind == Float || kind == Bool; }
  bool isRuntime() const { return kind == Runtime; }
  bool sameAs(const TValue &o) const;
};

using Env = std::map<std::string, TValue>;

struct BuiltinSpec;
struct BuiltinCall;

/// The shape of a tensor type; empty for scalars.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Type t) {
  if (auto r = llvm::dyn_cast<mlir::RankedTensorType>(t))
    return r.getShape();
  return {};
}

class MLIRGenImpl {
public:
  /// The most dimensions a tensor may have (layouts and their lowering
  /// walk every dimension; kernels use up to 3).
  static constexpr size_t kMaxTensorRank = 8;
  /// The most static_for iterations one kernel may unroll in all, nested
  /// loops counting every inner iteration (each loop alone is also limited
  /// to 4096): 20 nested 2-trip loops would unroll a million bodies.
  static constexpr int64_t kMaxUnrolledIterations = 16384;

  MLIRGenImpl(mlir::MLIRContext &ctx, const ModuleAST &module,
              DiagnosticEngine &diags);

  mlir::OwningOpRef<mlir::ModuleOp> run(llvm::StringRef kernelName,
                                        const Specialization &values);

  // --- MLIRGen.cpp: functions --------------------------------------------
  mlir::Location loc(SourceLoc l);
  mlir::LogicalResult genKernel(const FunctionAST &fn,
                                const Specialization &values);
  mlir::FailureOr<TValue> callHelper(const FunctionAST &fn,
                                     std::vector<TValue> args,
                                     SourceLoc callLoc);
  mlir::LogicalResult verifyModule();

  // --- MLIRGenStmt.cpp: statements ---------------------------------------
  mlir::LogicalResult genBlock(const BlockAST &block);
  mlir::LogicalResult genStmt(const StmtAST &stmt);
  mlir::LogicalResult genAssign(const AssignStmtAST &s);
  mlir::LogicalResult genFor(const ForStmtAST &s);
  mlir::LogicalResult genStaticFor(const ForStmtAST &s);
  mlir::LogicalResult genIf(const IfStmtAST &s);
  mlir::LogicalResult genStaticAssert(const StaticAssertStmtAST &s);

  // --- MLIRGenExpr.cpp: expressions, types, conversions ------------------
  mlir::FailureOr<TValue> genExpr(const ExprAST &e);
  mlir::FailureOr<TValue> genName(const NameExprAST &e);
  mlir::FailureOr<TValue> genUnary(const UnaryExprAST &e);
  mlir::FailureOr<TValue> genBinary(const BinaryExprAST &e);
  mlir::FailureOr<TValue> genIndex(const IndexExprAST &e);
  mlir::FailureOr<TValue> genAttr(const AttrExprAST &e);
  mlir::FailureOr<TValue> binaryOp(BinaryOp op, const TValue &lhs,
                                   const TValue &rhs, SourceLoc l);
  mlir::FailureOr<TValue> foldConst(BinaryOp op, const TValue &lhs,
                                    const TValue &rhs, SourceLoc l);
  mlir::FailureOr<TValue> pointerArith(BinaryOp op, const TValue &lhs,
                                       const TValue &rhs, SourceLoc l);

  /// Evaluate `e` and require a compile-time value.
  mlir::FailureOr<TValue> genConst(const ExprAST &e, llvm::StringRef what);
  mlir::FailureOr<int64_t> genConstInt(const ExprAST &e, llvm::StringRef what);
  mlir::FailureOr<mlir::Type> genDType(const ExprAST &e, llvm::StringRef what);
  mlir::FailureOr<llvm::SmallVector<int64_t>> genShape(const ExprAST &e,
                                                       llvm::StringRef what);

  /// The type a constexpr takes next to an operand of element type `other`
  /// (null: none), following "a literal takes the type of the other operand".
  mlir::Type constType(const TValue &c, mlir::Type other);
  mlir::Type promote(mlir::Type a, mlir::Type b);
  /// A runtime value of element type `elem` and shape `shape` (scalar if
  /// empty): casts, splats, broadcasts; constexprs become constants.
  mlir::FailureOr<mlir::Value> toValue(const TValue &v, mlir::Type elem,
                                       llvm::ArrayRef<int64_t> shape,
                                       SourceLoc l);
  /// Any runtime value (constexprs at their natural type).
  mlir::FailureOr<mlir::Value> materialize(const TValue &v, SourceLoc l);
  mlir::Value constant(const TValue &c, mlir::Type type, SourceLoc l);
  mlir::FailureOr<mlir::Value> castTo(mlir::Value v, mlir::Type elem,
                                      SourceLoc l);
  mlir::FailureOr<mlir::Value>
  broadcastTo(mlir::Value v, llvm::ArrayRef<int64_t> shape, SourceLoc l);
  bool broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                       llvm::SmallVectorImpl<int64_t> &out);
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  commonShape(llvm::ArrayRef<const TValue *> vals, SourceLoc l);
  mlir::Type tensorOf(llvm::ArrayRef<int64_t> shape, mlir::Type elem);
  mlir::Type parseTypeName(llvm::StringRef name);
  std::string typeStr(mlir::Type t);
  std::string describe(const TValue &v);
  /// Reports "expected a value" for non-value TValues (dtype, tuple...).
  mlir::LogicalResult requireValue(const TValue &v, SourceLoc l);

  // --- Builtins.cpp: calls and the builtin registry ----------------------
  mlir::FailureOr<TValue> genCall(const CallExprAST &e);
  mlir::FailureOr<TValue> genBuiltin(const BuiltinSpec &spec,
                                     const CallExprAST &e);
  mlir::FailureOr<TValue> genConversion(const CallExprAST &e,
                                        const AttrExprAST &callee);
  /// Evaluates an optional builtin argument as a value: None when omitted.
  mlir::FailureOr<TValue> genOptionalValue(const ExprAST *e);

  // Builtin handlers, one per row (or group of rows) of the registry.
  // --- BuiltinTensors.cpp ---
  /// `program_id(axis)`, `num_programs(axis)`.
  mlir::FailureOr<TValue> genProgramIndex(const BuiltinCall &call);
  mlir::FailureOr<TValue> genArange(const BuiltinCall &call);
  /// `zeros(shape, dtype=f32)`, `full(shape, value, dtype=None)`.
  mlir::FailureOr<TValue> genFill(const BuiltinCall &call);
  /// `load(ptrs, mask=None, other=None)`, `store(ptrs, value, mask=None)`.
  mlir::FailureOr<TValue> genLoadStore(const BuiltinCall &call);
  mlir::FailureOr<TValue> genDot(const BuiltinCall &call);
  mlir::FailureOr<TValue> genBroadcastTo(const BuiltinCall &call);
  /// `grid_dependency_wait()`, `launch_dependents()`.
  mlir::FailureOr<TValue> genGridDependency(const BuiltinCall &call);
  /// `atomic_add(ptr, value)`: once per program, on an i32; the old value.
  mlir::FailureOr<TValue> genAtomicAdd(const BuiltinCall &call);
  /// `wait_flag(ptr, value)`: every thread waits until the i32 at ptr is at
  /// least value (acquire reads).
  mlir::FailureOr<TValue> genWaitFlag(const BuiltinCall &call);
  /// `prefetch_l2(ptr, bytes)`: a hint, once per program, that the bytes
  /// at a scalar pointer will be read soon.
  mlir::FailureOr<TValue> genPrefetchL2(const BuiltinCall &call);
  /// The operands of atomic_add and wait_flag: a scalar *i32 and an i32
  /// (`what` the call does with it, for the error).
  mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
  genI32CellOperands(const BuiltinCall &call, llvm::StringRef what);
  // --- MLIRGenOps.cpp ---
  /// `desc_load(desc, (row, col), (ROWS, COLS), row_end=None)`.
  mlir::FailureOr<TValue> genDescLoad(const BuiltinCall &call);
  // --- BuiltinMath.cpp ---
  /// exp, log, exp2, log2, sqrt, abs.
  mlir::FailureOr<TValue> genMath(const BuiltinCall &call);
  /// `minimum(x, y)`, `maximum(x, y)`.
  mlir::FailureOr<TValue> genMinMax(const BuiltinCall &call);
  mlir::FailureOr<TValue> genCdiv(const BuiltinCall &call);
  mlir::FailureOr<TValue> genWhere(const BuiltinCall &call);
  /// `sum`, `max`, `min` of `x` along `axis` (optional for rank 1).
  mlir::FailureOr<TValue> genReduce(const BuiltinCall &call);

  // State.
  mlir::MLIRContext &ctx;
  const ModuleAST &astModule;
  DiagnosticEngine &diags;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  std::string fileName;
  Env env;
  /// Innermost enclosing runtime loop depth (type changes are checked by
  /// the loop-carried logic; this only affects messages).
  unsigned loopDepth = 0;
  /// static_for iterations unrolled so far in this kernel.
  int64_t unrolledIterations = 0;
  /// Helper instances: mangled key -> function (null if generation failed)
  /// and whether it returns a value.
  struct Instance {
    mlir::func::FuncOp func;
    bool failed = false;
  };
  std::map<std::string, Instance> instances;
  std::set<std::string> usedSymbols;
  std::vector<std::string> helperStack;
  /// Set while generating a helper: its return value.
  struct ReturnSlot {
    bool seen = false;
    TValue value;
  };
  ReturnSlot *currentReturn = nullptr;
  /// The only statement allowed to be a `return`: the function's last.
  const StmtAST *finalStmt = nullptr;
  bool inKernel = false;
};

/// Names assigned anywhere in a block (recursively), with the location of
/// their first assignment, in first-seen order.
void collectAssigned(const BlockAST &block,
                     std::vector<std::pair<std::string, SourceLoc>> &out);

} // namespace tilemla

#endif // TILEMLA_FRONTEND_MLIRGENIMPL_H
