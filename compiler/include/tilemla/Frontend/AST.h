//===- AST.h - Abstract syntax tree of the tile language --------*- C++ -*-===//
//
// Plain node classes with LLVM-style RTTI (a kind enum + classof), owned
// through std::unique_ptr. Every node carries the SourceLoc of its first
// token (binary operators: the operator; calls: the callee).
//
//===----------------------------------------------------------------------===//

#ifndef TILEMLA_FRONTEND_AST_H
#define TILEMLA_FRONTEND_AST_H

#include "tilemla/Frontend/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace tilemla {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class ExprAST {
public:
  enum ExprKind {
    Expr_Int,
    Expr_Float,
    Expr_Bool,
    Expr_None,
    Expr_String,
    Expr_Name,
    Expr_Unary,
    Expr_Binary,
    Expr_Call,
    Expr_Attr,
    Expr_Index,
    Expr_Slice,
    Expr_Tuple,
  };

  ExprAST(ExprKind kind, SourceLoc loc) : kind(kind), location(loc) {}
  virtual ~ExprAST() = default;
  ExprAST(const ExprAST &) = delete;
  ExprAST &operator=(const ExprAST &) = delete;

  ExprKind getKind() const { return kind; }
  SourceLoc loc() const { return location; }
  /// The nodes on the longest path down from this one (1 for a leaf): how
  /// deep the recursive walks of the tree go (MLIRGen, the AST dump, the
  /// destructor). The parser caps it (Parser::kMaxExprHeight).
  unsigned height() const { return treeHeight; }

protected:
  /// Composite nodes' constructors: this node stands above `child`.
  void standAbove(const ExprAST *child) {
    if (child)
      treeHeight = std::max(treeHeight, child->treeHeight + 1);
  }

private:
  const ExprKind kind;
  SourceLoc location;
  unsigned treeHeight = 1;
};

using ExprPtr = std::unique_ptr<ExprAST>;

class IntExprAST : public ExprAST {
public:
  IntExprAST(SourceLoc loc, int64_t value)
      : ExprAST(Expr_Int, loc), value(value) {}
  int64_t getValue() const { return value; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Int; }

private:
  int64_t value;
};

class FloatExprAST : public ExprAST {
public:
  FloatExprAST(SourceLoc loc, double value)
      : ExprAST(Expr_Float, loc), value(value) {}
  double getValue() const { return value; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Float; }

private:
  double value;
};

class BoolExprAST : public ExprAST {
public:
  BoolExprAST(SourceLoc loc, bool value)
      : ExprAST(Expr_Bool, loc), value(value) {}
  bool getValue() const { return value; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Bool; }

private:
  bool value;
};

/// `None`: only meaningful as an index (`x[None, :]`).
class NoneExprAST : public ExprAST {
public:
  explicit NoneExprAST(SourceLoc loc) : ExprAST(Expr_None, loc) {}
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_None; }
};

/// A string literal: only meaningful as a static_assert message.
class StringExprAST : public ExprAST {
public:
  StringExprAST(SourceLoc loc, std::string value)
      : ExprAST(Expr_String, loc), value(std::move(value)) {}
  llvm::StringRef getValue() const { return value; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_String; }

private:
  std::string value;
};

class NameExprAST : public ExprAST {
public:
  NameExprAST(SourceLoc loc, std::string name)
      : ExprAST(Expr_Name, loc), name(std::move(name)) {}
  llvm::StringRef getName() const { return name; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Name; }

private:
  std::string name;
};

enum class UnaryOp { Neg, BitNot, Not };
enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or,
};
llvm::StringRef spell(UnaryOp op);
llvm::StringRef spell(BinaryOp op);

class UnaryExprAST : public ExprAST {
public:
  UnaryExprAST(SourceLoc loc, UnaryOp op, ExprPtr operand)
      : ExprAST(Expr_Unary, loc), op(op), operand(std::move(operand)) {
    standAbove(this->operand.get());
  }
  UnaryOp getOp() const { return op; }
  const ExprAST &getOperand() const { return *operand; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Unary; }

private:
  UnaryOp op;
  ExprPtr operand;
};

class BinaryExprAST : public ExprAST {
public:
  BinaryExprAST(SourceLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : ExprAST(Expr_Binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {
    standAbove(this->lhs.get());
    standAbove(this->rhs.get());
  }
  BinaryOp getOp() const { return op; }
  const ExprAST &getLHS() const { return *lhs; }
  const ExprAST &getRHS() const { return *rhs; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Binary; }

private:
  BinaryOp op;
  ExprPtr lhs, rhs;
};

struct KeywordArg {
  SourceLoc loc;
  std::string name;
  ExprPtr value;
};

/// `callee(args..., name=value...)`. The callee is any postfix expression;
/// MLIRGen accepts names (builtins, helpers) and `x.to`.
class CallExprAST : public ExprAST {
public:
  CallExprAST(SourceLoc loc, ExprPtr callee, std::vector<ExprPtr> args,
              std::vector<KeywordArg> kwargs)
      : ExprAST(Expr_Call, loc), callee(std::move(callee)),
        args(std::move(args)), kwargs(std::move(kwargs)) {
    standAbove(this->callee.get());
    for (const ExprPtr &arg : this->args)
      standAbove(arg.get());
    for (const KeywordArg &kwarg : this->kwargs)
      standAbove(kwarg.value.get());
  }
  const ExprAST &getCallee() const { return *callee; }
  const std::vector<ExprPtr> &getArgs() const { return args; }
  const std::vector<KeywordArg> &getKwargs() const { return kwargs; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Call; }

private:
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> kwargs;
};

/// `base.name` (`x.shape`, the callee of `x.to(T)`). loc is the name's.
class AttrExprAST : public ExprAST {
public:
  AttrExprAST(SourceLoc loc, ExprPtr base, std::string name)
      : ExprAST(Expr_Attr, loc), base(std::move(base)), name(std::move(name)) {
    standAbove(this->base.get());
  }
  const ExprAST &getBase() const { return *base; }
  llvm::StringRef getName() const { return name; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Attr; }

private:
  ExprPtr base;
  std::string name;
};

/// `base[i, j, ...]`; items are SliceExprAST (`:`), NoneExprAST or others.
class IndexExprAST : public ExprAST {
public:
  IndexExprAST(SourceLoc loc, ExprPtr base, std::vector<ExprPtr> indices)
      : ExprAST(Expr_Index, loc), base(std::move(base)),
        indices(std::move(indices)) {
    standAbove(this->base.get());
    for (const ExprPtr &index : this->indices)
      standAbove(index.get());
  }
  const ExprAST &getBase() const { return *base; }
  const std::vector<ExprPtr> &getIndices() const { return indices; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Index; }

private:
  ExprPtr base;
  std::vector<ExprPtr> indices;
};

/// A bare `:` inside `[...]`.
class SliceExprAST : public ExprAST {
public:
  explicit SliceExprAST(SourceLoc loc) : ExprAST(Expr_Slice, loc) {}
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Slice; }
};

/// `(a, b, ...)`, e.g. a shape.
class TupleExprAST : public ExprAST {
public:
  TupleExprAST(SourceLoc loc, std::vector<ExprPtr> elems)
      : ExprAST(Expr_Tuple, loc), elems(std::move(elems)) {
    for (const ExprPtr &elem : this->elems)
      standAbove(elem.get());
  }
  const std::vector<ExprPtr> &getElements() const { return elems; }
  static bool classof(const ExprAST *e) { return e->getKind() == Expr_Tuple; }

private:
  std::vector<ExprPtr> elems;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class StmtAST;
using StmtPtr = std::unique_ptr<StmtAST>;

struct BlockAST {
  SourceLoc loc; // of the '{'
  std::vector<StmtPtr> stmts;
};

class StmtAST {
public:
  enum StmtKind {
    Stmt_Assign,
    Stmt_Expr,
    Stmt_For,
    Stmt_If,
    Stmt_Return,
    Stmt_StaticAssert,
  };

  StmtAST(StmtKind kind, SourceLoc loc) : kind(kind), location(loc) {}
  virtual ~StmtAST() = default;
  StmtAST(const StmtAST &) = delete;
  StmtAST &operator=(const StmtAST &) = delete;

  StmtKind getKind() const { return kind; }
  SourceLoc loc() const { return location; }

private:
  const StmtKind kind;
  SourceLoc location;
};

/// `name = value;` or a compound form; op is the BinaryOp of `+=` etc.
class AssignStmtAST : public StmtAST {
public:
  AssignStmtAST(SourceLoc loc, std::string target, bool isCompound, BinaryOp op,
                ExprPtr value)
      : StmtAST(Stmt_Assign, loc), target(std::move(target)),
        compound(isCompound), op(op), value(std::move(value)) {}
  llvm::StringRef getTarget() const { return target; }
  bool isCompound() const { return compound; }
  BinaryOp getOp() const { return op; }
  const ExprAST &getValue() const { return *value; }
  static bool classof(const StmtAST *s) { return s->getKind() == Stmt_Assign; }

private:
  std::string target;
  bool compound;
  BinaryOp op;
  ExprPtr value;
};

class ExprStmtAST : public StmtAST {
public:
  ExprStmtAST(SourceLoc loc, ExprPtr expr)
      : StmtAST(Stmt_Expr, loc), expr(std::move(expr)) {}
  const ExprAST &getExpr() const { return *expr; }
  static bool classof(const StmtAST *s) { return s->getKind() == Stmt_Expr; }

private:
  ExprPtr expr;
};

/// `for`/`static_for VAR in range(start, end, step, stages=S) { body }`;
/// start, step and stages are null when omitted.
class ForStmtAST : public StmtAST {
public:
  ForStmtAST(SourceLoc loc, bool isStatic, std::string var, SourceLoc varLoc,
             ExprPtr start, ExprPtr end, ExprPtr step, ExprPtr stages,
             BlockAST body)
      : StmtAST(Stmt_For, loc), staticFor(isStatic), var(std::move(var)),
        varLoc(varLoc), start(std::move(start)), end(std::move(end)),
        step(std::move(step)), stages(std::move(stages)),
        body(std::move(body)) {}
  bool isStatic() const { return staticFor; }
  llvm::StringRef getVar() const { return var; }
  SourceLoc getVarLoc() const { return varLoc; }
  const ExprAST *getStart() const { return start.get(); }
  const ExprAST &getEnd() const { return *end; }
  const ExprAST *getStep() const { return step.get(); }
  const ExprAST *getStages() const { return stages.get(); }
  const BlockAST &getBody() const { return body; }
  static bool classof(const StmtAST *s) { return s->getKind() == Stmt_For; }

private:
  bool staticFor;
  std::string var;
  SourceLoc varLoc;
  ExprPtr start, end, step, stages;
  BlockAST body;
};

/// `if cond { } else { }`; `else if` is an else block holding one IfStmtAST.
class IfStmtAST : public StmtAST {
public:
  IfStmtAST(SourceLoc loc, ExprPtr cond, BlockAST thenBlock,
            std::unique_ptr<BlockAST> elseBlock)
      : StmtAST(Stmt_If, loc), cond(std::move(cond)),
        thenBlock(std::move(thenBlock)), elseBlock(std::move(elseBlock)) {}
  const ExprAST &getCond() const { return *cond; }
  const BlockAST &getThen() const { return thenBlock; }
  const BlockAST *getElse() const { return elseBlock.get(); }
  static bool classof(const StmtAST *s) { return s->getKind() == Stmt_If; }

private:
  ExprPtr cond;
  BlockAST thenBlock;
  std::unique_ptr<BlockAST> elseBlock;
};

class ReturnStmtAST : public StmtAST {
public:
  ReturnStmtAST(SourceLoc loc, ExprPtr value)
      : StmtAST(Stmt_Return, loc), value(std::move(value)) {}
  const ExprAST *getValue() const { return value.get(); }
  static bool classof(const StmtAST *s) { return s->getKind() == Stmt_Return; }

private:
  ExprPtr value;
};

class StaticAssertStmtAST : public StmtAST {
public:
  StaticAssertStmtAST(SourceLoc loc, ExprPtr cond, std::string message)
      : StmtAST(Stmt_StaticAssert, loc), cond(std::move(cond)),
        message(std::move(message)) {}
  const ExprAST &getCond() const { return *cond; }
  llvm::StringRef getMessage() const { return message; }
  static bool classof(const StmtAST *s) {
    return s->getKind() == Stmt_StaticAssert;
  }

private:
  ExprPtr cond;
  std::string message;
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

struct ParamAST {
  enum Kind {
    Untyped,    // helper parameter: generic
    Scalar,     // `x: f32`
    Pointer,    // `p: *f32` / `p: *T`
    TensorDesc, // `a: desc<bf16>` / `a: desc<T>`: a 2-D tensor in memory
    Constexpr,  // `N: constexpr [= default]`
    DType,      // `T: dtype [= f32]`
  };
  SourceLoc loc;
  std::string name;
  Kind kind = Untyped;
  std::string typeName; // Scalar / Pointer / TensorDesc: the (element) type
  SourceLoc typeLoc;
  ExprPtr defaultValue; // Constexpr / DType, may be null
};

struct FunctionAST {
  SourceLoc loc; // of the name
  bool isKernel = false;
  std::string name;
  std::vector<ParamAST> params;
  /// Kernels: `with num_warps = EXPR` after the parameters, the warps per
  /// program when the caller does not choose (EXPR may use constexprs).
  ExprPtr numWarps;
  /// Kernels: `with warp_specialize = EXPR` (a constexpr bool): TMA loops
  /// get a producer warpgroup.
  ExprPtr warpSpecialize;
  /// Kernels: `with own_narrow_dots = EXPR` (a constexpr bool): whether a
  /// wgmma dot too narrow to split over warpgroups runs on one of them.
  ExprPtr ownNarrowDots;
  /// Kernels: `with score_warpgroup = EXPR` (a constexpr bool): an owned
  /// narrow dot and what follows from it run on an extra warpgroup.
  ExprPtr scoreWarpgroup;
  /// Kernels: `with seesaw = EXPR` (a constexpr bool): a loop computing
  /// owned values runs its trips in pairs, the second's on warpgroup 1.
  ExprPtr seesaw;
  BlockAST body;
};

struct ModuleAST {
  std::vector<std::unique_ptr<FunctionAST>> functions;

  const FunctionAST *lookup(llvm::StringRef name) const;
};

/// Print an indented tree (`tilec --emit=ast`). Stable: used by lit tests.
void dumpAST(const ModuleAST &module, llvm::raw_ostream &os);
void dumpExpr(const ExprAST &expr, llvm::raw_ostream &os, unsigned indent = 0);

} // namespace tilemla

#endif // TILEMLA_FRONTEND_AST_H
