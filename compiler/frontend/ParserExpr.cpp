//===- ParserExpr.cpp - Expression parsing --------------------------------===//
//
// One function per precedence level (LANGUAGE.md), lowest first. Binary
// levels loop (left associative) so only parentheses, prefix operators and
// calls recurse; those go through DepthGuard. The trees the loops build
// grow with the chain: capHeight bounds them for the walks after parsing.
//
//===----------------------------------------------------------------------===//

#include "tilemla/Frontend/Parser.h"

using namespace tilemla;

ExprPtr Parser::parseStandaloneExpr() {
  ExprPtr e = parseExpr();
  if (e && !is(Tok::Eof)) {
    diags.error(cur().loc,
                "unexpected " + tokName(cur().kind) + " after expression");
    return nullptr;
  }
  return e;
}

ExprPtr Parser::capHeight(ExprPtr e) {
  if (e && e->height() > kMaxExprHeight) {
    diags.error(e->loc(), "expression too deep: " + llvm::Twine(e->height()) +
                              " nested operations (limit " +
                              llvm::Twine(kMaxExprHeight) +
                              "); split it into several statements");
    return nullptr;
  }
  return e;
}

ExprPtr Parser::parseExpr() {
  DepthGuard guard(*this);
  if (!guard.ok())
    return nullptr;
  return parseOr();
}

// The left-associative binary levels share one shape.
#define TILE_BINARY_LEVEL(NAME, NEXT, MATCH)                                   \
  ExprPtr Parser::NAME() {                                                     \
    ExprPtr lhs = NEXT();                                                      \
    if (!lhs)                                                                  \
      return nullptr;                                                          \
    while (true) {                                                             \
      BinaryOp op;                                                             \
      if (!MATCH(cur().kind, op))                                              \
        return lhs;                                                            \
      SourceLoc loc = consume().loc;                                           \
      ExprPtr rhs = NEXT();                                                    \
      if (!rhs)                                                                \
        return nullptr;                                                        \
      lhs = capHeight(std::make_unique<BinaryExprAST>(loc, op, std::move(lhs), \
                                                      std::move(rhs)));        \
      if (!lhs)                                                                \
        return nullptr;                                                        \
    }                                                                          \
  }

static bool matchOr(Tok k, BinaryOp &op) {
  op = BinaryOp::Or;
  return k == Tok::KwOr;
}
static bool matchAnd(Tok k, BinaryOp &op) {
  op = BinaryOp::And;
  return k == Tok::KwAnd;
}
static bool matchBitOr(Tok k, BinaryOp &op) {
  op = BinaryOp::BitOr;
  return k == Tok::Pipe;
}
static bool matchBitXor(Tok k, BinaryOp &op) {
  op = BinaryOp::BitXor;
  return k == Tok::Caret;
}
static bool matchBitAnd(Tok k, BinaryOp &op) {
  op = BinaryOp::BitAnd;
  return k == Tok::Amp;
}
static bool matchShift(Tok k, BinaryOp &op) {
  op = k == Tok::Shl ? BinaryOp::Shl : BinaryOp::Shr;
  return k == Tok::Shl || k == Tok::Shr;
}
static bool matchAdditive(Tok k, BinaryOp &op) {
  op = k == Tok::Plus ? BinaryOp::Add : BinaryOp::Sub;
  return k == Tok::Plus || k == Tok::Minus;
}
static bool matchMultiplicative(Tok k, BinaryOp &op) {
  switch (k) {
  case Tok::Star:
    op = BinaryOp::Mul;
    return true;
  case Tok::Slash:
    op = BinaryOp::Div;
    return true;
  case Tok::Percent:
    op = BinaryOp::Mod;
    return true;
  default:
    return false;
  }
}
static bool matchComparison(Tok k, BinaryOp &op) {
  switch (k) {
  case Tok::Lt:
    op = BinaryOp::Lt;
    return true;
  case Tok::Le:
    op = BinaryOp::Le;
    return true;
  case Tok::Gt:
    op = BinaryOp::Gt;
    return true;
  case Tok::Ge:
    op = BinaryOp::Ge;
    return true;
  case Tok::EqEq:
    op = BinaryOp::Eq;
    return true;
  case Tok::Ne:
    op = BinaryOp::Ne;
    return true;
  default:
    return false;
  }
}

TILE_BINARY_LEVEL(parseOr, parseAnd, matchOr)
TILE_BINARY_LEVEL(parseAnd, parseNot, matchAnd)
TILE_BINARY_LEVEL(parseBitOr, parseBitXor, matchBitOr)
TILE_BINARY_LEVEL(parseBitXor, parseBitAnd, matchBitXor)
TILE_BINARY_LEVEL(parseBitAnd, parseShift, matchBitAnd)
TILE_BINARY_LEVEL(parseShift, parseAdditive, matchShift)
TILE_BINARY_LEVEL(parseAdditive, parseMultiplicative, matchAdditive)
TILE_BINARY_LEVEL(parseMultiplicative, parseUnary, matchMultiplicative)
#undef TILE_BINARY_LEVEL

ExprPtr Parser::parseNot() {
  if (!is(Tok::KwNot))
    return parseComparison();
  DepthGuard guard(*this);
  if (!guard.ok())
    return nullptr;
  SourceLoc loc = consume().loc;
  ExprPtr operand = parseNot();
  if (!operand)
    return nullptr;
  return capHeight(
      std::make_unique<UnaryExprAST>(loc, UnaryOp::Not, std::move(operand)));
}

/// Comparisons do not chain: `a < b < c` is almost always a mistake in a
/// language where it would compare an i1 with c.
ExprPtr Parser::parseComparison() {
  ExprPtr lhs = parseBitOr();
  if (!lhs)
    return nullptr;
  BinaryOp op;
  if (!matchComparison(cur().kind, op))
    return lhs;
  SourceLoc loc = consume().loc;
  ExprPtr rhs = parseBitOr();
  if (!rhs)
    return nullptr;
  BinaryOp op2;
  if (matchComparison(cur().kind, op2)) {
    diags.error(cur().loc, "comparisons cannot be chained; combine them "
                           "with 'and'");
    return nullptr;
  }
  return capHeight(
      std::make_unique<BinaryExprAST>(loc, op, std::move(lhs), std::move(rhs)));
}

ExprPtr Parser::parseUnary() {
  UnaryOp op;
  switch (cur().kind) {
  case Tok::Minus:
    op = UnaryOp::Neg;
    break;
  case Tok::Tilde:
    op = UnaryOp::BitNot;
    break;
  case Tok::KwNot:
    op = UnaryOp::Not;
    break;
  case Tok::Plus: { // unary plus: a no-op
    DepthGuard guard(*this);
    if (!guard.ok())
      return nullptr;
    consume();
    return parseUnary();
  }
  default:
    return parsePostfix();
  }
  DepthGuard guard(*this);
  if (!guard.ok())
    return nullptr;
  SourceLoc loc = consume().loc;
  ExprPtr operand = parseUnary();
  if (!operand)
    return nullptr;
  return capHeight(std::make_unique<UnaryExprAST>(loc, op, std::move(operand)));
}

ExprPtr Parser::parsePostfix() {
  ExprPtr e = parsePrimary();
  while (e) {
    if (is(Tok::LParen)) {
      SourceLoc loc = e->loc();
      e = parseCallArgs(std::move(e), loc);
    } else if (is(Tok::LBracket)) {
      SourceLoc loc = cur().loc;
      e = parseIndex(std::move(e), loc);
    } else if (is(Tok::Dot)) {
      consume();
      if (!is(Tok::Identifier)) {
        diags.error(cur().loc, "expected an attribute name after '.', found " +
                                   tokName(cur().kind));
        return nullptr;
      }
      Token name = consume();
      e = std::make_unique<AttrExprAST>(name.loc, std::move(e),
                                        name.text.str());
    } else {
      break;
    }
    e = capHeight(std::move(e));
  }
  return e;
}

ExprPtr Parser::parseCallArgs(ExprPtr callee, SourceLoc loc) {
  consume(); // '('
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> kwargs;
  while (!is(Tok::RParen)) {
    if (is(Tok::Identifier) && peekTok().is(Tok::Assign)) {
      KeywordArg kw;
      kw.loc = cur().loc;
      kw.name = consume().text.str();
      consume(); // '='
      for (const KeywordArg &other : kwargs)
        if (other.name == kw.name) {
          diags.error(kw.loc, "keyword argument '" + kw.name +
                                  "' given more than once");
          return nullptr;
        }
      kw.value = parseExpr();
      if (!kw.value)
        return nullptr;
      kwargs.push_back(std::move(kw));
    } else {
      if (!kwargs.empty()) {
        diags.error(cur().loc, "positional argument after a keyword argument");
        return nullptr;
      }
      ExprPtr a = parseExpr();
      if (!a)
        return nullptr;
      args.push_back(std::move(a));
    }
    if (!consumeIf(Tok::Comma))
      break;
  }
  if (!expect(Tok::RParen, "to close the argument list"))
    return nullptr;
  return std::make_unique<CallExprAST>(loc, std::move(callee), std::move(args),
                                       std::move(kwargs));
}

ExprPtr Parser::parseIndex(ExprPtr base, SourceLoc loc) {
  consume(); // '['
  std::vector<ExprPtr> indices;
  while (!is(Tok::RBracket)) {
    if (is(Tok::Colon)) {
      indices.push_back(std::make_unique<SliceExprAST>(consume().loc));
    } else {
      ExprPtr i = parseExpr();
      if (!i)
        return nullptr;
      indices.push_back(std::move(i));
    }
    if (!consumeIf(Tok::Comma))
      break;
  }
  if (!expect(Tok::RBracket, "to close the index"))
    return nullptr;
  if (indices.empty()) {
    diags.error(loc, "empty index");
    return nullptr;
  }
  return std::make_unique<IndexExprAST>(loc, std::move(base),
                                        std::move(indices));
}

ExprPtr Parser::parseParenOrTuple() {
  SourceLoc loc = consume().loc; // '('
  std::vector<ExprPtr> elems;
  bool sawComma = false;
  while (!is(Tok::RParen)) {
    ExprPtr e = parseExpr();
    if (!e)
      return nullptr;
    elems.push_back(std::move(e));
    if (!consumeIf(Tok::Comma))
      break;
    sawComma = true;
  }
  if (!expect(Tok::RParen, "to close the parenthesis"))
    return nullptr;
  if (elems.size() == 1 && !sawComma)
    return std::move(elems[0]);
  return std::make_unique<TupleExprAST>(loc, std::move(elems));
}

ExprPtr Parser::parsePrimary() {
  const Token &t = cur();
  switch (t.kind) {
  case Tok::IntLit: {
    Token tok = consume();
    return std::make_unique<IntExprAST>(tok.loc, (int64_t)tok.intValue);
  }
  case Tok::FloatLit: {
    Token tok = consume();
    return std::make_unique<FloatExprAST>(tok.loc, tok.floatValue);
  }
  case Tok::KwTrue:
  case Tok::KwFalse: {
    Token tok = consume();
    return std::make_unique<BoolExprAST>(tok.loc, tok.is(Tok::KwTrue));
  }
  case Tok::KwNone:
    return std::make_unique<NoneExprAST>(consume().loc);
  case Tok::StringLit: {
    Token tok = consume();
    return std::make_unique<StringExprAST>(tok.loc, tok.strValue);
  }
  case Tok::Identifier: {
    Token tok = consume();
    return std::make_unique<NameExprAST>(tok.loc, tok.text.str());
  }
  case Tok::LParen:
    return parseParenOrTuple();
  default:
    diags.error(t.loc, "expected an expression, found " + tokName(t.kind));
    return nullptr;
  }
}
