//===- Parser.h - Recursive-descent parser for the tile language -*- C++
//-*-===//

#ifndef TILEMLA_FRONTEND_PARSER_H
#define TILEMLA_FRONTEND_PARSER_H

#include "tilemla/Frontend/AST.h"
#include "tilemla/Frontend/Diagnostics.h"
#include "tilemla/Frontend/Lexer.h"

#include <deque>
#include <memory>
#include <vector>

namespace tilemla {

/// Parses a whole file. On a syntax error it reports, skips to the next `;`
/// or `}` and continues, so one run reports several errors. Never asserts on
/// user input; nesting is capped at kMaxDepth, and an expression's height
/// (operator chains, which the parser loops over, nest in the tree) at
/// kMaxExprHeight.
class Parser {
public:
  static constexpr unsigned kMaxDepth = 256;
  static constexpr unsigned kMaxExprHeight = 1024;

  Parser(const SourceFile &file, DiagnosticEngine &diags);

  /// Always returns a module holding whatever parsed; check
  /// diags.hasErrors() to know whether it is complete.
  std::unique_ptr<ModuleAST> parseModule();

  /// Parses a single expression (for tests and -D values).
  ExprPtr parseStandaloneExpr();

private:
  // Token access.
  // Tokens are lexed on demand so lexer and parser diagnostics come out in
  // source order.
  const Token &cur() { return tokAt(idx); }
  const Token &peekTok(unsigned n = 1) { return tokAt(idx + n); }
  const Token &tokAt(size_t i);
  bool is(Tok k) { return cur().kind == k; }
  Token consume();
  bool consumeIf(Tok k);
  /// Expect `k`; otherwise report "expected K <context>" and return false.
  bool expect(Tok k, llvm::StringRef context);
  /// Expect ';'. When it is missing but the next token starts a new line,
  /// report and carry on as if it were there (returns true).
  bool expectSemi(llvm::StringRef context);
  SourceLoc endOfPrevToken();

  // Recovery.
  void skipToStatementEnd();
  void skipToTopLevelDecl();

  // Declarations.
  std::unique_ptr<FunctionAST> parseFunction();
  bool parseParam(ParamAST &param, bool isKernel);
  bool parseKernelAttributes(FunctionAST &fn);
  bool parseBlock(BlockAST &block);

  // Statements.
  StmtPtr parseStatement();
  StmtPtr parseFor();
  StmtPtr parseIf();
  StmtPtr parseReturn();
  StmtPtr parseStaticAssert();
  StmtPtr parseSimpleStatement();

  // Expressions, lowest to highest precedence.
  ExprPtr parseExpr();
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseBitOr();
  ExprPtr parseBitXor();
  ExprPtr parseBitAnd();
  ExprPtr parseShift();
  ExprPtr parseAdditive();
  ExprPtr parseMultiplicative();
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  ExprPtr parseParenOrTuple();
  ExprPtr parseCallArgs(ExprPtr callee, SourceLoc loc);
  ExprPtr parseIndex(ExprPtr base, SourceLoc loc);
  /// `e`, or null with an error when it is higher than kMaxExprHeight.
  ExprPtr capHeight(ExprPtr e);

  /// RAII nesting counter; `ok()` is false (and an error was reported) once
  /// the nesting exceeds kMaxDepth.
  class DepthGuard {
  public:
    DepthGuard(Parser &p);
    ~DepthGuard() { --p.depth; }
    bool ok() const { return okay; }

  private:
    Parser &p;
    bool okay;
  };

  DiagnosticEngine &diags;
  Lexer lexer;
  std::deque<Token> toks; // deque: references stay valid while lexing
  size_t idx = 0;
  unsigned depth = 0;
  bool depthReported = false;
};

/// Convenience: lex + parse a file.
std::unique_ptr<ModuleAST> parseSource(const SourceFile &file,
                                       DiagnosticEngine &diags);

} // namespace tilemla

#endif // TILEMLA_FRONTEND_PARSER_H
