//===- Parser.cpp - Recursive-descent parser for the tile language --------===//
//
// Every parse function returns null after reporting an error; statement-level
// callers then skip to the end of the statement (see skipToStatementEnd) so
// later statements still get checked.
//
//===----------------------------------------------------------------------===//

#include "tilemla/Frontend/Parser.h"

using namespace tilemla;

Parser::Parser(const SourceFile &file, DiagnosticEngine &diags)
    : diags(diags), lexer(file.getText(), diags) {}

const Token &Parser::tokAt(size_t i) {
  while (toks.size() <= i && (toks.empty() || !toks.back().is(Tok::Eof)))
    toks.push_back(lexer.next());
  return toks[std::min(i, toks.size() - 1)];
}

std::unique_ptr<ModuleAST> tilemla::parseSource(const SourceFile &file,
                                                DiagnosticEngine &diags) {
  return Parser(file, diags).parseModule();
}

Parser::DepthGuard::DepthGuard(Parser &p) : p(p) {
  okay = ++p.depth <= kMaxDepth;
  if (!okay && !p.depthReported) {
    p.depthReported = true;
    p.diags.error(p.cur().loc,
                  "nesting too deep (limit " + llvm::Twine(kMaxDepth) + ")");
  }
}

//===----------------------------------------------------------------------===//
// Token helpers and recovery
//===----------------------------------------------------------------------===//

Token Parser::consume() {
  Token t = cur();
  if (!t.is(Tok::Eof))
    ++idx;
  return t;
}

bool Parser::consumeIf(Tok k) {
  if (!is(k))
    return false;
  consume();
  return true;
}

SourceLoc Parser::endOfPrevToken() {
  if (idx == 0)
    return cur().loc;
  const Token &prev = toks[idx - 1];
  return SourceLoc(prev.loc.line, prev.loc.col + prev.text.size());
}

bool Parser::expect(Tok k, llvm::StringRef context) {
  if (consumeIf(k))
    return true;
  // A missing ';' is best reported right after the previous token (clang).
  SourceLoc loc = k == Tok::Semi ? endOfPrevToken() : cur().loc;
  diags.error(loc, "expected " + tokName(k) + (context.empty() ? "" : " ") +
                       context + ", found " + tokName(cur().kind));
  return false;
}

bool Parser::expectSemi(llvm::StringRef context) {
  if (expect(Tok::Semi, context))
    return true;
  return idx > 0 && cur().loc.line > toks[idx - 1].loc.line;
}

void Parser::skipToStatementEnd() {
  unsigned braces = 0;
  while (!is(Tok::Eof)) {
    switch (cur().kind) {
    case Tok::KwKernel:
    case Tok::KwFn:
      return; // a new declaration: the block was never closed
    case Tok::LBrace:
      ++braces;
      break;
    case Tok::RBrace:
      if (braces == 0)
        return;
      consume();
      if (--braces == 0)
        return; // skipped a whole `{...}` (e.g. a loop body)
      continue;
    case Tok::Semi:
      if (braces == 0) {
        consume();
        return;
      }
      break;
    default:
      break;
    }
    consume();
  }
}

void Parser::skipToTopLevelDecl() {
  consume();
  while (!is(Tok::Eof) && !is(Tok::KwKernel) && !is(Tok::KwFn))
    consume();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

std::unique_ptr<ModuleAST> Parser::parseModule() {
  auto module = std::make_unique<ModuleAST>();
  while (!is(Tok::Eof)) {
    if (!is(Tok::KwKernel) && !is(Tok::KwFn)) {
      diags.error(cur().loc, "expected 'kernel' or 'fn' declaration, found " +
                                 tokName(cur().kind));
      skipToTopLevelDecl();
      continue;
    }
    if (auto fn = parseFunction())
      module->functions.push_back(std::move(fn));
    else if (!is(Tok::KwKernel) && !is(Tok::KwFn))
      skipToTopLevelDecl();
  }
  return module;
}

std::unique_ptr<FunctionAST> Parser::parseFunction() {
  auto fn = std::make_unique<FunctionAST>();
  fn->isKernel = consume().is(Tok::KwKernel);
  const char *what = fn->isKernel ? "kernel" : "helper";
  if (!is(Tok::Identifier)) {
    diags.error(cur().loc, llvm::Twine("expected ") + what + " name, found " +
                               tokName(cur().kind));
    return nullptr;
  }
  fn->loc = cur().loc;
  fn->name = consume().text.str();
  if (!expect(Tok::LParen, "after the name"))
    return nullptr;

  while (!is(Tok::RParen) && !is(Tok::Eof)) {
    ParamAST param;
    if (parseParam(param, fn->isKernel)) {
      for (const ParamAST &other : fn->params)
        if (other.name == param.name) {
          diags.error(param.loc, "duplicate parameter '" + param.name + "'");
          diags.note(other.loc, "previous definition is here");
        }
      fn->params.push_back(std::move(param));
    } else {
      // Skip to the next parameter.
      unsigned parens = 0;
      while (!is(Tok::Eof) && !is(Tok::LBrace) &&
             !(parens == 0 && (is(Tok::Comma) || is(Tok::RParen)))) {
        if (is(Tok::LParen))
          ++parens;
        else if (is(Tok::RParen))
          --parens;
        consume();
      }
    }
    if (is(Tok::RParen) || is(Tok::LBrace))
      break;
    if (!expect(Tok::Comma, "between parameters"))
      return nullptr;
  }
  if (!expect(Tok::RParen, "after the parameters"))
    return nullptr;
  if (is(Tok::Identifier) && cur().text == "with" &&
      !parseKernelAttributes(*fn))
    return nullptr;
  if (!parseBlock(fn->body))
    return nullptr;
  return fn;
}

/// `with name = expr, ...` between a kernel's parameters and its body.
bool Parser::parseKernelAttributes(FunctionAST &fn) {
  SourceLoc withLoc = consume().loc;
  if (!fn.isKernel) {
    diags.error(withLoc, "only kernels take 'with' attributes");
    return false;
  }
  do {
    if (!is(Tok::Identifier)) {
      diags.error(cur().loc, "expected a kernel attribute name, found " +
                                 tokName(cur().kind));
      return false;
    }
    Token name = consume();
    ExprPtr *slot = name.text == "num_warps"         ? &fn.numWarps
                    : name.text == "warp_specialize" ? &fn.warpSpecialize
                    : name.text == "own_narrow_dots" ? &fn.ownNarrowDots
                    : name.text == "score_warpgroup" ? &fn.scoreWarpgroup
                    : name.text == "seesaw"          ? &fn.seesaw
                                                     : nullptr;
    if (!slot) {
      diags.error(name.loc, "unknown kernel attribute '" + name.text.str() +
                                "' (expected 'num_warps', "
                                "'warp_specialize', 'own_narrow_dots', "
                                "'score_warpgroup' or 'seesaw')");
      return false;
    }
    if (*slot) {
      diags.error(name.loc, "'" + name.text.str() + "' is given twice");
      return false;
    }
    if (!expect(Tok::Assign, "after the attribute name"))
      return false;
    *slot = parseExpr();
    if (!*slot)
      return false;
  } while (consumeIf(Tok::Comma));
  return true;
}

bool Parser::parseParam(ParamAST &param, bool isKernel) {
  if (!is(Tok::Identifier)) {
    diags.error(cur().loc,
                "expected a parameter name, found " + tokName(cur().kind));
    return false;
  }
  param.loc = cur().loc;
  param.name = consume().text.str();
  if (!is(Tok::Colon)) {
    if (isKernel) {
      diags.error(param.loc, "kernel parameter '" + param.name +
                                 "' needs a type (e.g. ': i32')");
      return false;
    }
    param.kind = ParamAST::Untyped;
    return true;
  }
  consume();
  param.typeLoc = cur().loc;
  if (!isKernel) {
    diags.error(param.typeLoc, "helper parameters take no type: their types "
                               "come from the call site");
    return false;
  }
  if (consumeIf(Tok::Star)) {
    if (!is(Tok::Identifier)) {
      diags.error(cur().loc, "expected an element type after '*', found " +
                                 tokName(cur().kind));
      return false;
    }
    param.kind = ParamAST::Pointer;
    param.typeName = consume().text.str();
  } else if (is(Tok::Identifier) && cur().text == "desc" &&
             peekTok().is(Tok::Lt)) {
    consume();
    consume();
    if (!is(Tok::Identifier)) {
      diags.error(cur().loc, "expected an element type after 'desc<', found " +
                                 tokName(cur().kind));
      return false;
    }
    param.kind = ParamAST::TensorDesc;
    param.typeName = consume().text.str();
    if (!expect(Tok::Gt, "after the descriptor's element type"))
      return false;
  } else if (consumeIf(Tok::KwConstexpr)) {
    param.kind = ParamAST::Constexpr;
  } else if (consumeIf(Tok::KwDtype)) {
    param.kind = ParamAST::DType;
  } else if (is(Tok::Identifier)) {
    param.kind = ParamAST::Scalar;
    param.typeName = consume().text.str();
  } else {
    diags.error(cur().loc,
                "expected a parameter type, found " + tokName(cur().kind));
    return false;
  }
  if (is(Tok::Assign)) {
    SourceLoc eqLoc = consume().loc;
    if (param.kind != ParamAST::Constexpr && param.kind != ParamAST::DType) {
      diags.error(eqLoc, "only constexpr and dtype parameters may have a "
                         "default value");
      return false;
    }
    param.defaultValue = parseExpr();
    if (!param.defaultValue)
      return false;
  }
  return true;
}

bool Parser::parseBlock(BlockAST &block) {
  DepthGuard guard(*this);
  if (!guard.ok())
    return false;
  block.loc = cur().loc;
  if (!expect(Tok::LBrace, "to open a block"))
    return false;
  while (!is(Tok::RBrace) && !is(Tok::Eof)) {
    if (is(Tok::KwKernel) || is(Tok::KwFn)) {
      diags.error(cur().loc, "expected '}' before " + tokName(cur().kind));
      diags.note(block.loc, "to match this '{'");
      return true;
    }
    if (consumeIf(Tok::Semi))
      continue;            // empty statement
    depthReported = false; // report over-deep nesting once per statement
    if (StmtPtr s = parseStatement())
      block.stmts.push_back(std::move(s));
    else
      skipToStatementEnd();
  }
  if (is(Tok::Eof)) {
    diags.error(cur().loc, "expected '}' at end of file");
    diags.note(block.loc, "to match this '{'");
    return true;
  }
  consume();
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

StmtPtr Parser::parseStatement() {
  switch (cur().kind) {
  case Tok::KwFor:
  case Tok::KwStaticFor:
    return parseFor();
  case Tok::KwIf:
    return parseIf();
  case Tok::KwReturn:
    return parseReturn();
  case Tok::KwStaticAssert:
    return parseStaticAssert();
  case Tok::KwElse:
    diags.error(cur().loc, "'else' without a matching 'if'");
    return nullptr;
  default:
    return parseSimpleStatement();
  }
}

StmtPtr Parser::parseFor() {
  Token kw = consume();
  bool isStatic = kw.is(Tok::KwStaticFor);
  if (!is(Tok::Identifier)) {
    diags.error(cur().loc, "expected a loop variable after " +
                               tokName(kw.kind) + ", found " +
                               tokName(cur().kind));
    return nullptr;
  }
  Token var = consume();
  if (!expect(Tok::KwIn, "after the loop variable") ||
      !expect(Tok::KwRange, "after 'in'"))
    return nullptr;
  SourceLoc rangeLoc = cur().loc;
  if (!expect(Tok::LParen, "after 'range'"))
    return nullptr;
  std::vector<ExprPtr> args;
  ExprPtr stages; // `stages=N`: software-pipeline the loop's dot operands
  while (!is(Tok::RParen)) {
    if (is(Tok::Identifier) && peekTok().is(Tok::Assign)) {
      Token name = consume();
      consume(); // '='
      if (name.text != "stages" || stages) {
        diags.error(name.loc, name.text == "stages"
                                  ? llvm::Twine("'stages' given more than once")
                                  : "range() has no keyword argument '" +
                                        name.text + "' (only 'stages')");
        return nullptr;
      }
      stages = parseExpr();
      if (!stages)
        return nullptr;
    } else {
      if (stages) {
        diags.error(cur().loc, "positional argument after a keyword argument");
        return nullptr;
      }
      ExprPtr e = parseExpr();
      if (!e)
        return nullptr;
      args.push_back(std::move(e));
    }
    if (!consumeIf(Tok::Comma))
      break;
  }
  if (!expect(Tok::RParen, "after the range bounds"))
    return nullptr;
  if (args.empty() || args.size() > 3) {
    diags.error(rangeLoc, "range() takes 1 to 3 arguments, got " +
                              llvm::Twine(args.size()));
    return nullptr;
  }
  ExprPtr start, end, step;
  if (args.size() == 1) {
    end = std::move(args[0]);
  } else {
    start = std::move(args[0]);
    end = std::move(args[1]);
    if (args.size() == 3)
      step = std::move(args[2]);
  }
  BlockAST body;
  if (!parseBlock(body))
    return nullptr;
  return std::make_unique<ForStmtAST>(
      kw.loc, isStatic, var.text.str(), var.loc, std::move(start),
      std::move(end), std::move(step), std::move(stages), std::move(body));
}

StmtPtr Parser::parseIf() {
  DepthGuard guard(*this); // `else if` chains recurse
  if (!guard.ok())
    return nullptr;
  SourceLoc loc = consume().loc;
  ExprPtr cond = parseExpr();
  if (!cond)
    return nullptr;
  BlockAST thenBlock;
  if (!parseBlock(thenBlock))
    return nullptr;
  std::unique_ptr<BlockAST> elseBlock;
  if (is(Tok::KwElse)) {
    consume();
    elseBlock = std::make_unique<BlockAST>();
    if (is(Tok::KwIf)) {
      elseBlock->loc = cur().loc;
      StmtPtr nested = parseIf();
      if (!nested)
        return nullptr;
      elseBlock->stmts.push_back(std::move(nested));
    } else if (!parseBlock(*elseBlock)) {
      return nullptr;
    }
  }
  return std::make_unique<IfStmtAST>(loc, std::move(cond), std::move(thenBlock),
                                     std::move(elseBlock));
}

StmtPtr Parser::parseReturn() {
  SourceLoc loc = consume().loc;
  ExprPtr value;
  if (!is(Tok::Semi) && !is(Tok::RBrace)) {
    value = parseExpr();
    if (!value)
      return nullptr;
  }
  if (!expectSemi("after return"))
    return nullptr;
  return std::make_unique<ReturnStmtAST>(loc, std::move(value));
}

StmtPtr Parser::parseStaticAssert() {
  SourceLoc loc = consume().loc;
  if (!expect(Tok::LParen, "after 'static_assert'"))
    return nullptr;
  ExprPtr cond = parseExpr();
  if (!cond)
    return nullptr;
  std::string message;
  if (consumeIf(Tok::Comma)) {
    if (!is(Tok::StringLit)) {
      diags.error(cur().loc,
                  "expected a message string, found " + tokName(cur().kind));
      return nullptr;
    }
    message = consume().strValue;
  }
  if (!expect(Tok::RParen, "after static_assert arguments") ||
      !expectSemi("after static_assert"))
    return nullptr;
  return std::make_unique<StaticAssertStmtAST>(loc, std::move(cond),
                                               std::move(message));
}

static bool isAssignOp(Tok k, BinaryOp &op) {
  switch (k) {
  case Tok::PlusAssign:
    op = BinaryOp::Add;
    return true;
  case Tok::MinusAssign:
    op = BinaryOp::Sub;
    return true;
  case Tok::StarAssign:
    op = BinaryOp::Mul;
    return true;
  case Tok::SlashAssign:
    op = BinaryOp::Div;
    return true;
  case Tok::Assign:
    op = BinaryOp::Add;
    return true;
  default:
    return false;
  }
}

StmtPtr Parser::parseSimpleStatement() {
  SourceLoc loc = cur().loc;
  ExprPtr e = parseExpr();
  if (!e)
    return nullptr;
  BinaryOp op;
  if (!isAssignOp(cur().kind, op)) {
    if (!expectSemi("after expression"))
      return nullptr;
    return std::make_unique<ExprStmtAST>(loc, std::move(e));
  }
  Token opTok = consume();
  auto *name = llvm::dyn_cast<NameExprAST>(e.get());
  if (!name) {
    diags.error(opTok.loc, "only a variable name can be assigned to");
    return nullptr;
  }
  ExprPtr value = parseExpr();
  if (!value)
    return nullptr;
  if (!expectSemi("after assignment"))
    return nullptr;
  return std::make_unique<AssignStmtAST>(name->loc(), name->getName().str(),
                                         !opTok.is(Tok::Assign), op,
                                         std::move(value));
}
