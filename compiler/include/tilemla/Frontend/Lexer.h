//===- Lexer.h - Tokenizer for the tile language ----------------*- C++ -*-===//

#ifndef TILEMLA_FRONTEND_LEXER_H
#define TILEMLA_FRONTEND_LEXER_H

#include "tilemla/Frontend/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilemla {

enum class Tok {
  Eof,
  Identifier,
  IntLit,
  FloatLit,
  StringLit,
  // Keywords.
  KwKernel,
  KwFn,
  KwFor,
  KwIn,
  KwRange,
  KwStaticFor,
  KwIf,
  KwElse,
  KwReturn,
  KwAnd,
  KwOr,
  KwNot,
  KwTrue,
  KwFalse,
  KwNone,
  KwConstexpr,
  KwDtype,
  KwStaticAssert,
  // Punctuation.
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Comma,
  Semi,
  Colon,
  Dot,
  // Operators.
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
};

/// Spelling of a token kind for diagnostics, e.g. "';'" or "identifier".
llvm::StringRef tokName(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  SourceLoc loc;
  llvm::StringRef text;  // spelling in the source buffer
  uint64_t intValue = 0; // IntLit
  double floatValue = 0; // FloatLit
  std::string strValue;  // StringLit, escapes resolved

  bool is(Tok k) const { return kind == k; }
};

/// Turns a buffer into tokens. Bad characters and malformed literals are
/// reported and skipped, so lexing always reaches Eof.
class Lexer {
public:
  Lexer(llvm::StringRef text, DiagnosticEngine &diags)
      : text(text), diags(diags) {}

  Token next();
  /// Lex everything; the last token is Eof.
  std::vector<Token> lexAll();

private:
  char peek(size_t ahead = 0) const {
    return pos + ahead < text.size() ? text[pos + ahead] : '\0';
  }
  void advance();
  void skipSpaceAndComments();
  Token lexNumber();
  Token lexString();
  Token make(Tok kind, size_t begin, SourceLoc loc) const;

  llvm::StringRef text;
  DiagnosticEngine &diags;
  size_t pos = 0;
  uint32_t line = 1, col = 1;
};

} // namespace tilemla

#endif // TILEMLA_FRONTEND_LEXER_H
