//===- AST.cpp - AST helpers and the --emit=ast printer -------------------===//

#include "tilemla/Frontend/AST.h"

#include "llvm/Support/Format.h"

using namespace tilemla;

llvm::StringRef tilemla::spell(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::BitNot:
    return "~";
  case UnaryOp::Not:
    return "not";
  }
  return "?";
}

llvm::StringRef tilemla::spell(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::And:
    return "and";
  case BinaryOp::Or:
    return "or";
  }
  return "?";
}

const FunctionAST *ModuleAST::lookup(llvm::StringRef name) const {
  for (const auto &f : functions)
    if (f->name == name)
      return f.get();
  return nullptr;
}

/// `%g`, plus ".0" when that would read as an integer.
static std::string formatFloat(const FloatExprAST &f) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%g", f.getValue());
  if (s.find_first_of(".eEni") == std::string::npos)
    s += ".0";
  return s;
}

namespace {
/// Indented printer: one node per line, "Kind details <line:col>".
class ASTDumper {
public:
  explicit ASTDumper(llvm::raw_ostream &os) : os(os) {}

  void dump(const ModuleAST &m) {
    os << "Module\n";
    for (const auto &f : m.functions)
      dump(*f, 1);
  }

  void dump(const FunctionAST &f, unsigned ind) {
    line(ind) << (f.isKernel ? "Kernel " : "Fn ") << f.name;
    loc(f.loc);
    for (const ParamAST &p : f.params) {
      line(ind + 1) << "Param " << p.name;
      switch (p.kind) {
      case ParamAST::Untyped:
        break;
      case ParamAST::Scalar:
        os << ": " << p.typeName;
        break;
      case ParamAST::Pointer:
        os << ": *" << p.typeName;
        break;
      case ParamAST::TensorDesc:
        os << ": desc<" << p.typeName << ">";
        break;
      case ParamAST::Constexpr:
        os << ": constexpr";
        break;
      case ParamAST::DType:
        os << ": dtype";
        break;
      }
      loc(p.loc);
      if (p.defaultValue) {
        line(ind + 2) << "Default\n";
        dump(*p.defaultValue, ind + 3);
      }
    }
    if (f.numWarps) {
      line(ind + 1) << "NumWarps\n";
      dump(*f.numWarps, ind + 2);
    }
    if (f.warpSpecialize) {
      line(ind + 1) << "WarpSpecialize\n";
      dump(*f.warpSpecialize, ind + 2);
    }
    if (f.ownNarrowDots) {
      line(ind + 1) << "OwnNarrowDots\n";
      dump(*f.ownNarrowDots, ind + 2);
    }
    if (f.scoreWarpgroup) {
      line(ind + 1) << "ScoreWarpgroup\n";
      dump(*f.scoreWarpgroup, ind + 2);
    }
    if (f.seesaw) {
      line(ind + 1) << "Seesaw\n";
      dump(*f.seesaw, ind + 2);
    }
    dump(f.body, ind + 1);
  }

  void dump(const BlockAST &b, unsigned ind) {
    line(ind) << "Block";
    loc(b.loc);
    for (const StmtPtr &s : b.stmts)
      dump(*s, ind + 1);
  }

  void dump(const StmtAST &s, unsigned ind) {
    if (auto *a = llvm::dyn_cast<AssignStmtAST>(&s)) {
      line(ind) << "Assign " << a->getTarget();
      if (a->isCompound())
        os << ' ' << spell(a->getOp()) << '=';
      loc(s.loc());
      dump(a->getValue(), ind + 1);
    } else if (auto *e = llvm::dyn_cast<ExprStmtAST>(&s)) {
      line(ind) << "ExprStmt";
      loc(s.loc());
      dump(e->getExpr(), ind + 1);
    } else if (auto *f = llvm::dyn_cast<ForStmtAST>(&s)) {
      line(ind) << (f->isStatic() ? "StaticFor " : "For ") << f->getVar();
      loc(s.loc());
      if (f->getStart()) {
        line(ind + 1) << "Start\n";
        dump(*f->getStart(), ind + 2);
      }
      line(ind + 1) << "End\n";
      dump(f->getEnd(), ind + 2);
      if (f->getStep()) {
        line(ind + 1) << "Step\n";
        dump(*f->getStep(), ind + 2);
      }
      if (f->getStages()) {
        line(ind + 1) << "Stages\n";
        dump(*f->getStages(), ind + 2);
      }
      dump(f->getBody(), ind + 1);
    } else if (auto *i = llvm::dyn_cast<IfStmtAST>(&s)) {
      line(ind) << "If";
      loc(s.loc());
      dump(i->getCond(), ind + 1);
      dump(i->getThen(), ind + 1);
      if (i->getElse()) {
        line(ind + 1) << "Else\n";
        dump(*i->getElse(), ind + 2);
      }
    } else if (auto *r = llvm::dyn_cast<ReturnStmtAST>(&s)) {
      line(ind) << "Return";
      loc(s.loc());
      if (r->getValue())
        dump(*r->getValue(), ind + 1);
    } else if (auto *sa = llvm::dyn_cast<StaticAssertStmtAST>(&s)) {
      line(ind) << "StaticAssert";
      printString(sa->getMessage());
      loc(s.loc());
      dump(sa->getCond(), ind + 1);
    }
  }

  void dump(const ExprAST &e, unsigned ind) {
    switch (e.getKind()) {
    case ExprAST::Expr_Int:
      line(ind) << "Int " << llvm::cast<IntExprAST>(e).getValue();
      break;
    case ExprAST::Expr_Float:
      line(ind) << "Float " << formatFloat(llvm::cast<FloatExprAST>(e));
      break;
    case ExprAST::Expr_Bool:
      line(ind) << "Bool "
                << (llvm::cast<BoolExprAST>(e).getValue() ? "True" : "False");
      break;
    case ExprAST::Expr_None:
      line(ind) << "None";
      break;
    case ExprAST::Expr_String:
      line(ind) << "String";
      printString(llvm::cast<StringExprAST>(e).getValue());
      break;
    case ExprAST::Expr_Name:
      line(ind) << "Name " << llvm::cast<NameExprAST>(e).getName();
      break;
    case ExprAST::Expr_Slice:
      line(ind) << "Slice";
      break;
    case ExprAST::Expr_Unary: {
      auto &u = llvm::cast<UnaryExprAST>(e);
      line(ind) << "Unary " << spell(u.getOp());
      loc(e.loc());
      dump(u.getOperand(), ind + 1);
      return;
    }
    case ExprAST::Expr_Binary: {
      auto &b = llvm::cast<BinaryExprAST>(e);
      line(ind) << "Binary " << spell(b.getOp());
      loc(e.loc());
      dump(b.getLHS(), ind + 1);
      dump(b.getRHS(), ind + 1);
      return;
    }
    case ExprAST::Expr_Call: {
      auto &c = llvm::cast<CallExprAST>(e);
      line(ind) << "Call";
      loc(e.loc());
      dump(c.getCallee(), ind + 1);
      for (const ExprPtr &a : c.getArgs())
        dump(*a, ind + 1);
      for (const KeywordArg &k : c.getKwargs()) {
        line(ind + 1) << "Keyword " << k.name;
        loc(k.loc);
        dump(*k.value, ind + 2);
      }
      return;
    }
    case ExprAST::Expr_Attr: {
      auto &a = llvm::cast<AttrExprAST>(e);
      line(ind) << "Attr " << a.getName();
      loc(e.loc());
      dump(a.getBase(), ind + 1);
      return;
    }
    case ExprAST::Expr_Index: {
      auto &x = llvm::cast<IndexExprAST>(e);
      line(ind) << "Index";
      loc(e.loc());
      dump(x.getBase(), ind + 1);
      for (const ExprPtr &i : x.getIndices())
        dump(*i, ind + 1);
      return;
    }
    case ExprAST::Expr_Tuple: {
      line(ind) << "Tuple";
      loc(e.loc());
      for (const ExprPtr &i : llvm::cast<TupleExprAST>(e).getElements())
        dump(*i, ind + 1);
      return;
    }
    }
    loc(e.loc());
  }

private:
  llvm::raw_ostream &line(unsigned ind) {
    os.indent(2 * ind);
    return os;
  }
  void loc(SourceLoc l) { os << " <" << l.line << ':' << l.col << ">\n"; }
  void printString(llvm::StringRef s) {
    os << " \"";
    os.write_escaped(s);
    os << '"';
  }

  llvm::raw_ostream &os;
};
} // namespace

void tilemla::dumpAST(const ModuleAST &module, llvm::raw_ostream &os) {
  ASTDumper(os).dump(module);
}

void tilemla::dumpExpr(const ExprAST &expr, llvm::raw_ostream &os,
                       unsigned indent) {
  ASTDumper(os).dump(expr, indent);
}
