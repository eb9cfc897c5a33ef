//===- FuzzCompile.cpp - libFuzzer target: source text in, PTX or errors --===//
//
// Each input is a tile source file. Leading comment lines of the form
//   #-D NAME=VALUE     a constexpr or dtype value (as tilec -D)
//   #-arch=sm_80       the target (default sm_90a)
//   #-kernel=NAME      the kernel (default: the file's first)
//   #-num-warps=N      warps per program
// are read first (to the language they are comments, so corpus files stay
// valid .tile files). The input goes through the whole pipeline to PTX; it
// must end in PTX or in diagnostics, never in a crash, an abort, an LLVM
// fatal error or undefined behaviour (built with ASan and UBSan).
//
//===----------------------------------------------------------------------===//
#include "tilemla/Driver/Compiler.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
/// Applies the `#-...` lines at the start of `text` to `options`.
void readHeader(const std::string &text, tilemla::CompileOptions &options) {
  size_t at = 0;
  while (at < text.size() && text.compare(at, 2, "#-") == 0) {
    size_t end = text.find('\n', at);
    std::string line =
        text.substr(at + 2, end == std::string::npos ? end : end - at - 2);
    at = end == std::string::npos ? text.size() : end + 1;
    auto value = [&](const char *prefix) -> const char * {
      size_t n = std::char_traits<char>::length(prefix);
      return line.compare(0, n, prefix) == 0 ? line.c_str() + n : nullptr;
    };
    if (const char *define = value("D ")) {
      std::string d = define;
      size_t eq = d.find('=');
      if (eq != std::string::npos && eq > 0)
        options.defines[d.substr(0, eq)] = d.substr(eq + 1);
    } else if (const char *arch = value("arch=")) {
      if (auto target = tilemla::GpuTarget::parse(arch))
        options.target = *target;
    } else if (const char *kernel = value("kernel=")) {
      options.kernelName = kernel;
    } else if (const char *warps = value("num-warps=")) {
      unsigned n = unsigned(std::strtoul(warps, nullptr, 10));
      if (n >= 1 && n <= 32 && (n & (n - 1)) == 0)
        options.numWarps = n;
    }
  }
}
} // namespace

// LLVM's allocators poison and unpoison their slabs in inline header code;
// compiled with ASan in this target but without it in Debian's libLLVM and
// libMLIR, the two halves disagree (memory poisoned by one, handed out by
// the other). Manual poisoning is ignored; ASan's own checks all stay.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  tilemla::CompileOptions options;
  options.target = *tilemla::GpuTarget::parse("sm_90a");
  readHeader(text, options);
  tilemla::SourceFile file("fuzz.tile", text);
  std::string out, errs;
  tilemla::emitStage(file, options, tilemla::EmitStage::PTX, out, errs);
  return 0;
}
