//===- Diagnostics.h - Source files and clang-style diagnostics -*- C++ -*-===//
//
// The frontend reports every error it can find in one run, so diagnostics are
// collected (not thrown) and printed at the end as
//   file:line:col: error: message
//   <source line>
//       ^
//
//===----------------------------------------------------------------------===//

#ifndef TILEMLA_FRONTEND_DIAGNOSTICS_H
#define TILEMLA_FRONTEND_DIAGNOSTICS_H

#include "tilemla/Export.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilemla {

/// A 1-based line/column position. Line 0 means "unknown".
struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;

  SourceLoc() = default;
  SourceLoc(uint32_t line, uint32_t col) : line(line), col(col) {}
  bool isValid() const { return line != 0; }
  bool operator==(const SourceLoc &o) const {
    return line == o.line && col == o.col;
  }
};

/// A source buffer with its path; owns the text the lexer and AST point into.
class TILEMLA_API SourceFile {
public:
  SourceFile(std::string path, std::string text);

  llvm::StringRef getPath() const { return path; }
  llvm::StringRef getText() const { return text; }
  unsigned getNumLines() const { return lineStarts.size(); }
  /// The text of 1-based line `line` without its newline ("" if out of range).
  llvm::StringRef getLine(unsigned line) const;

private:
  std::string path;
  std::string text;
  std::vector<size_t> lineStarts;
};

enum class DiagSeverity { Error, Warning, Note };

struct Diagnostic {
  DiagSeverity severity;
  SourceLoc loc;
  std::string message;
};

/// Collects diagnostics for one source file.
class TILEMLA_API DiagnosticEngine {
public:
  /// `file` may be null (e.g. diagnostics about -D values); then locations
  /// are printed as "<unknown>".
  explicit DiagnosticEngine(const SourceFile *file = nullptr) : file(file) {}

  void error(SourceLoc loc, const llvm::Twine &msg);
  void warning(SourceLoc loc, const llvm::Twine &msg);
  void note(SourceLoc loc, const llvm::Twine &msg);

  unsigned getNumErrors() const { return numErrors; }
  bool hasErrors() const { return numErrors != 0; }
  const std::vector<Diagnostic> &getDiagnostics() const { return diags; }
  const SourceFile *getFile() const { return file; }

  /// Stop recording after this many errors: garbage input can otherwise
  /// produce one error per token.
  void setErrorLimit(unsigned limit) { errorLimit = limit; }

  /// Print one diagnostic, or all of them, clang-style.
  void print(const Diagnostic &d, llvm::raw_ostream &os) const;
  void print(llvm::raw_ostream &os) const;
  /// All diagnostics as one string (handy in tests).
  std::string str() const;

private:
  void report(DiagSeverity sev, SourceLoc loc, const llvm::Twine &msg);

  const SourceFile *file;
  std::vector<Diagnostic> diags;
  unsigned numErrors = 0;
  unsigned errorLimit = 100;
  bool limitReported = false;
};

} // namespace tilemla

#endif // TILEMLA_FRONTEND_DIAGNOSTICS_H
