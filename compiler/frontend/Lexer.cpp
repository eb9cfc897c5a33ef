//===- Lexer.cpp - Tokenizer for the tile language ------------------------===//

#include "tilemla/Frontend/Lexer.h"

#include "llvm/ADT/StringSwitch.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

using namespace tilemla;

llvm::StringRef tilemla::tokName(Tok kind) {
  switch (kind) {
  case Tok::Eof:
    return "end of file";
  case Tok::Identifier:
    return "identifier";
  case Tok::IntLit:
    return "integer literal";
  case Tok::FloatLit:
    return "float literal";
  case Tok::StringLit:
    return "string literal";
  case Tok::KwKernel:
    return "'kernel'";
  case Tok::KwFn:
    return "'fn'";
  case Tok::KwFor:
    return "'for'";
  case Tok::KwIn:
    return "'in'";
  case Tok::KwRange:
    return "'range'";
  case Tok::KwStaticFor:
    return "'static_for'";
  case Tok::KwIf:
    return "'if'";
  case Tok::KwElse:
    return "'else'";
  case Tok::KwReturn:
    return "'return'";
  case Tok::KwAnd:
    return "'and'";
  case Tok::KwOr:
    return "'or'";
  case Tok::KwNot:
    return "'not'";
  case Tok::KwTrue:
    return "'True'";
  case Tok::KwFalse:
    return "'False'";
  case Tok::KwNone:
    return "'None'";
  case Tok::KwConstexpr:
    return "'constexpr'";
  case Tok::KwDtype:
    return "'dtype'";
  case Tok::KwStaticAssert:
    return "'static_assert'";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::LBracket:
    return "'['";
  case Tok::RBracket:
    return "']'";
  case Tok::Comma:
    return "','";
  case Tok::Semi:
    return "';'";
  case Tok::Colon:
    return "':'";
  case Tok::Dot:
    return "'.'";
  case Tok::Plus:
    return "'+'";
  case Tok::Minus:
    return "'-'";
  case Tok::Star:
    return "'*'";
  case Tok::Slash:
    return "'/'";
  case Tok::Percent:
    return "'%'";
  case Tok::Amp:
    return "'&'";
  case Tok::Pipe:
    return "'|'";
  case Tok::Caret:
    return "'^'";
  case Tok::Tilde:
    return "'~'";
  case Tok::Shl:
    return "'<<'";
  case Tok::Shr:
    return "'>>'";
  case Tok::Lt:
    return "'<'";
  case Tok::Le:
    return "'<='";
  case Tok::Gt:
    return "'>'";
  case Tok::Ge:
    return "'>='";
  case Tok::EqEq:
    return "'=='";
  case Tok::Ne:
    return "'!='";
  case Tok::Assign:
    return "'='";
  case Tok::PlusAssign:
    return "'+='";
  case Tok::MinusAssign:
    return "'-='";
  case Tok::StarAssign:
    return "'*='";
  case Tok::SlashAssign:
    return "'/='";
  }
  return "token";
}

void Lexer::advance() {
  if (pos >= text.size())
    return;
  if (text[pos] == '\n') {
    ++line;
    col = 1;
  } else {
    ++col;
  }
  ++pos;
}

void Lexer::skipSpaceAndComments() {
  while (pos < text.size()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
        c == '\v') {
      advance();
    } else if (c == '#' || (c == '/' && peek(1) == '/')) {
      while (pos < text.size() && peek() != '\n')
        advance();
    } else {
      return;
    }
  }
}

Token Lexer::make(Tok kind, size_t begin, SourceLoc loc) const {
  Token t;
  t.kind = kind;
  t.loc = loc;
  t.text = text.substr(begin, pos - begin);
  return t;
}

static bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
static bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }

Token Lexer::lexNumber() {
  size_t begin = pos;
  SourceLoc loc(line, col);
  // Hex / binary integers.
  if (peek() == '0' &&
      (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'b' || peek(1) == 'B')) {
    unsigned radix = (peek(1) == 'x' || peek(1) == 'X') ? 16 : 2;
    advance();
    advance();
    size_t digitsBegin = pos;
    while (isIdentChar(peek()))
      advance();
    Token t = make(Tok::IntLit, begin, loc);
    llvm::StringRef digits = text.substr(digitsBegin, pos - digitsBegin);
    unsigned long long v = 0;
    if (digits.empty() || digits.getAsInteger(radix, v)) {
      diags.error(loc, "invalid integer literal '" + t.text + "'");
      v = 0;
    } else if (v > (unsigned long long)INT64_MAX) {
      diags.error(loc, "integer literal '" + t.text + "' is too large");
      v = 0;
    }
    t.intValue = v;
    return t;
  }
  bool isFloat = false;
  while (isDigit(peek()))
    advance();
  // A '.' belongs to the number only when followed by a digit, an exponent
  // or a non-identifier: `1.5`, `1.`, `1.e3`; not `x.shape`-style access.
  if (peek() == '.' && (isDigit(peek(1)) || !isIdentStart(peek(1)) ||
                        peek(1) == 'e' || peek(1) == 'E')) {
    isFloat = true;
    advance();
    while (isDigit(peek()))
      advance();
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (isDigit(peek(1)) ||
       ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
    isFloat = true;
    advance();
    if (peek() == '+' || peek() == '-')
      advance();
    while (isDigit(peek()))
      advance();
  }
  // Trailing identifier characters (e.g. `12abc`) make the literal invalid.
  bool bad = false;
  while (isIdentChar(peek())) {
    bad = true;
    advance();
  }
  Token t = make(isFloat ? Tok::FloatLit : Tok::IntLit, begin, loc);
  if (bad) {
    diags.error(loc, "invalid numeric literal '" + t.text + "'");
    return t;
  }
  if (isFloat) {
    std::string s = t.text.str();
    t.floatValue = std::strtod(s.c_str(), nullptr);
  } else {
    unsigned long long v = 0;
    if (t.text.getAsInteger(10, v) || v > (unsigned long long)INT64_MAX) {
      diags.error(loc, "integer literal '" + t.text + "' is too large");
      v = 0;
    }
    t.intValue = v;
  }
  return t;
}

Token Lexer::lexString() {
  size_t begin = pos;
  SourceLoc loc(line, col);
  char quote = peek();
  advance();
  std::string value;
  while (true) {
    char c = peek();
    if (pos >= text.size() || c == '\n') {
      diags.error(loc, "unterminated string literal");
      break;
    }
    advance();
    if (c == quote)
      break;
    if (c == '\\' && pos < text.size()) {
      char e = peek();
      advance();
      switch (e) {
      case 'n':
        value += '\n';
        break;
      case 't':
        value += '\t';
        break;
      case '\\':
        value += '\\';
        break;
      case '"':
        value += '"';
        break;
      case '\'':
        value += '\'';
        break;
      default:
        value += '\\';
        value += e;
      }
      continue;
    }
    value += c;
  }
  Token t = make(Tok::StringLit, begin, loc);
  t.strValue = std::move(value);
  return t;
}

Token Lexer::next() {
  while (true) {
    skipSpaceAndComments();
    size_t begin = pos;
    SourceLoc loc(line, col);
    if (pos >= text.size())
      return make(Tok::Eof, begin, loc);
    char c = peek();

    if (isIdentStart(c)) {
      while (isIdentChar(peek()))
        advance();
      Token t = make(Tok::Identifier, begin, loc);
      t.kind = llvm::StringSwitch<Tok>(t.text)
                   .Case("kernel", Tok::KwKernel)
                   .Case("fn", Tok::KwFn)
                   .Case("for", Tok::KwFor)
                   .Case("in", Tok::KwIn)
                   .Case("range", Tok::KwRange)
                   .Case("static_for", Tok::KwStaticFor)
                   .Case("if", Tok::KwIf)
                   .Case("else", Tok::KwElse)
                   .Case("return", Tok::KwReturn)
                   .Case("and", Tok::KwAnd)
                   .Case("or", Tok::KwOr)
                   .Case("not", Tok::KwNot)
                   .Case("True", Tok::KwTrue)
                   .Case("False", Tok::KwFalse)
                   .Case("None", Tok::KwNone)
                   .Case("constexpr", Tok::KwConstexpr)
                   .Case("dtype", Tok::KwDtype)
                   .Case("static_assert", Tok::KwStaticAssert)
                   .Default(Tok::Identifier);
      return t;
    }
    if (isDigit(c) || (c == '.' && isDigit(peek(1))))
      return lexNumber();
    if (c == '"' || c == '\'')
      return lexString();

    // Operators: longest match first.
    auto two = [&](char second) { return peek(1) == second; };
    Tok kind;
    unsigned len = 1;
    switch (c) {
    case '(':
      kind = Tok::LParen;
      break;
    case ')':
      kind = Tok::RParen;
      break;
    case '{':
      kind = Tok::LBrace;
      break;
    case '}':
      kind = Tok::RBrace;
      break;
    case '[':
      kind = Tok::LBracket;
      break;
    case ']':
      kind = Tok::RBracket;
      break;
    case ',':
      kind = Tok::Comma;
      break;
    case ';':
      kind = Tok::Semi;
      break;
    case ':':
      kind = Tok::Colon;
      break;
    case '.':
      kind = Tok::Dot;
      break;
    case '%':
      kind = Tok::Percent;
      break;
    case '&':
      kind = Tok::Amp;
      break;
    case '|':
      kind = Tok::Pipe;
      break;
    case '^':
      kind = Tok::Caret;
      break;
    case '~':
      kind = Tok::Tilde;
      break;
    case '+':
      kind = two('=') ? (len = 2, Tok::PlusAssign) : Tok::Plus;
      break;
    case '-':
      kind = two('=') ? (len = 2, Tok::MinusAssign) : Tok::Minus;
      break;
    case '*':
      kind = two('=') ? (len = 2, Tok::StarAssign) : Tok::Star;
      break;
    case '/':
      kind = two('=') ? (len = 2, Tok::SlashAssign) : Tok::Slash;
      break;
    case '<':
      kind = two('<')   ? (len = 2, Tok::Shl)
             : two('=') ? (len = 2, Tok::Le)
                        : Tok::Lt;
      break;
    case '>':
      kind = two('>')   ? (len = 2, Tok::Shr)
             : two('=') ? (len = 2, Tok::Ge)
                        : Tok::Gt;
      break;
    case '=':
      kind = two('=') ? (len = 2, Tok::EqEq) : Tok::Assign;
      break;
    case '!':
      if (two('=')) {
        kind = Tok::Ne;
        len = 2;
        break;
      }
      [[fallthrough]];
    default: {
      advance();
      unsigned char uc = static_cast<unsigned char>(c);
      if (std::isprint(uc))
        diags.error(loc, "unexpected character '" + llvm::Twine(c) + "'");
      else
        diags.error(loc, "unexpected character (byte 0x" +
                             llvm::Twine::utohexstr(uc) + ")");
      continue; // skip it and keep lexing
    }
    }
    for (unsigned i = 0; i < len; ++i)
      advance();
    return make(kind, begin, loc);
  }
}

std::vector<Token> Lexer::lexAll() {
  std::vector<Token> toks;
  while (true) {
    toks.push_back(next());
    if (toks.back().is(Tok::Eof))
      return toks;
  }
}
