//===- Diagnostics.cpp - Source files and clang-style diagnostics ---------===//

#include "tilemla/Frontend/Diagnostics.h"

using namespace tilemla;

SourceFile::SourceFile(std::string path, std::string text)
    : path(std::move(path)), text(std::move(text)) {
  lineStarts.push_back(0);
  for (size_t i = 0, e = this->text.size(); i != e; ++i)
    if (this->text[i] == '\n')
      lineStarts.push_back(i + 1);
}

llvm::StringRef SourceFile::getLine(unsigned line) const {
  if (line == 0 || line > lineStarts.size())
    return "";
  size_t begin = lineStarts[line - 1];
  size_t end = line < lineStarts.size() ? lineStarts[line] - 1 : text.size();
  llvm::StringRef l(text.data() + begin, end - begin);
  return l.rtrim("\r");
}

void DiagnosticEngine::report(DiagSeverity sev, SourceLoc loc,
                              const llvm::Twine &msg) {
  if (sev == DiagSeverity::Error) {
    if (numErrors >= errorLimit) {
      ++numErrors;
      if (!limitReported) {
        limitReported = true;
        diags.push_back({DiagSeverity::Error, SourceLoc(),
                         "too many errors emitted, stopping now"});
      }
      return;
    }
    ++numErrors;
  } else if (numErrors > errorLimit) {
    return; // notes attached to suppressed errors
  }
  diags.push_back({sev, loc, msg.str()});
}

void DiagnosticEngine::error(SourceLoc loc, const llvm::Twine &msg) {
  report(DiagSeverity::Error, loc, msg);
}
void DiagnosticEngine::warning(SourceLoc loc, const llvm::Twine &msg) {
  report(DiagSeverity::Warning, loc, msg);
}
void DiagnosticEngine::note(SourceLoc loc, const llvm::Twine &msg) {
  report(DiagSeverity::Note, loc, msg);
}

void DiagnosticEngine::print(const Diagnostic &d, llvm::raw_ostream &os) const {
  llvm::StringRef path = file ? file->getPath() : "<unknown>";
  os << path;
  if (d.loc.isValid())
    os << ':' << d.loc.line << ':' << d.loc.col;
  switch (d.severity) {
  case DiagSeverity::Error:
    os << ": error: ";
    break;
  case DiagSeverity::Warning:
    os << ": warning: ";
    break;
  case DiagSeverity::Note:
    os << ": note: ";
    break;
  }
  os << d.message << '\n';
  if (!file || !d.loc.isValid() || d.loc.line > file->getNumLines())
    return;
  llvm::StringRef line = file->getLine(d.loc.line);
  os << line << '\n';
  // Keep tabs in the caret line so the caret lines up with the source.
  std::string caret;
  for (uint32_t i = 1; i < d.loc.col; ++i)
    caret += (i - 1 < line.size() && line[i - 1] == '\t') ? '\t' : ' ';
  os << caret << "^\n";
}

void DiagnosticEngine::print(llvm::raw_ostream &os) const {
  for (const Diagnostic &d : diags)
    print(d, os);
}

std::string DiagnosticEngine::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}
