//===- tilec.cpp - compile a tile kernel and print any stage --------------===//
#include "tilemla/Driver/Compiler.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {
const char *kUsage =
    "usage: tilec FILE.tile [-D NAME=VALUE]... [--kernel=NAME]\n"
    "             [--arch=sm_90a|sm_80] [--num-warps=N]\n"
    "             [--assume-divisible=N] [--assume-one=I,J,...]\n"
    "             [--emit=ast|tile|tile-gpu|llvm-mlir|llvm|ptx|summary]"
    " [-o OUT]\n"
    "  -D NAME=VALUE   value of a constexpr or dtype parameter\n"
    "  --assume-divisible=N  specialize as the runtime does for pointers\n"
    "                  aligned to, and integers divisible by, N\n"
    "  --assume-one=I,J,...  runtime integer arguments I, J (0-based, after\n"
    "                  constexprs) equal 1, as the runtime specializes them\n"
    "  --emit=STAGE    stop after STAGE and print it (default: ptx);\n"
    "                  summary prints one line about the compiled kernel\n";

int fail(const std::string &message) {
  std::cerr << "tilec: error: " << message << "\n" << kUsage;
  return 1;
}

/// Facts for every argument index the flags can name (0..255).
std::vector<tilemla::ArgFact> &facts(tilemla::CompileOptions &options) {
  options.argFacts.resize(256);
  return options.argFacts;
}

bool parseDefine(const std::string &text,
                 std::map<std::string, std::string> &defines) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return false;
  defines[text.substr(0, eq)] = text.substr(eq + 1);
  return true;
}
} // namespace

int main(int argc, char **argv) {
  tilemla::CompileOptions options;
  std::string input, output, emit = "ptx";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string &prefix) {
      return arg.substr(prefix.size());
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "-D" && i + 1 < argc) {
      if (!parseDefine(argv[++i], options.defines))
        return fail("expected -D NAME=VALUE, got '" + std::string(argv[i]) +
                    "'");
    } else if (arg.rfind("-D", 0) == 0 && arg.size() > 2) {
      if (!parseDefine(value("-D"), options.defines))
        return fail("expected -D NAME=VALUE, got '" + arg + "'");
    } else if (arg.rfind("--arch=", 0) == 0) {
      std::optional<tilemla::GpuTarget> target =
          tilemla::GpuTarget::parse(value("--arch="));
      if (!target)
        return fail("unknown target architecture '" + value("--arch=") +
                    "' (known: " + tilemla::GpuTarget::knownNames() + ")");
      options.target = *target;
    } else if (arg.rfind("--kernel=", 0) == 0) {
      options.kernelName = value("--kernel=");
    } else if (arg.rfind("--num-warps=", 0) == 0) {
      std::string text = value("--num-warps=");
      char *end = nullptr;
      long warps = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end || warps < 1 || warps > 32 ||
          (warps & (warps - 1)))
        return fail("--num-warps must be a power of two in [1, 32]");
      options.numWarps = warps;
    } else if (arg.rfind("--assume-divisible=", 0) == 0) {
      // What the runtime specializes on: pointers aligned to, and integers
      // divisible by, N (16 in practice).
      std::string text = value("--assume-divisible=");
      char *end = nullptr;
      long divisor = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end || divisor < 1 || (divisor & (divisor - 1)))
        return fail("--assume-divisible must be a power of two");
      for (tilemla::ArgFact &fact : facts(options))
        fact.divisibility = unsigned(divisor);
    } else if (arg.rfind("--assume-one=", 0) == 0) {
      std::string text = value("--assume-one=");
      for (size_t start = 0; start <= text.size();) {
        size_t comma = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, comma - start);
        char *end = nullptr;
        long index = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end || index < 0 || index > 255)
          return fail("--assume-one takes argument indices 0..255, got '" +
                      text + "'");
        facts(options)[index].isOne = true;
        start = comma + 1;
      }
    } else if (arg.rfind("--emit=", 0) == 0) {
      emit = value("--emit=");
    } else if (arg == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      return fail("unknown option '" + arg + "'");
    } else if (input.empty()) {
      input = arg;
    } else {
      return fail("more than one input file");
    }
  }
  if (input.empty())
    return fail("no input file");
  std::ifstream stream(input, std::ios::binary);
  if (!stream)
    return fail("cannot read '" + input + "'");
  std::stringstream text;
  text << stream.rdbuf();
  tilemla::SourceFile file(input, text.str());

  std::string out, errs;
  bool ok;
  if (emit == "summary") {
    auto start = std::chrono::steady_clock::now();
    auto kernel = tilemla::compileKernel(file, options, errs);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    ok = kernel.has_value();
    if (ok) {
      size_t lines = std::count(kernel->ptx.begin(), kernel->ptx.end(), '\n');
      char line[512];
      std::snprintf(line, sizeof line,
                    "%-16s arch=%s warps=%u params=%zu shared=%uB "
                    "ptx=%zu lines compile=%.1f ms\n",
                    kernel->name.c_str(), kernel->target.name().c_str(),
                    kernel->numWarps, kernel->params.size(),
                    kernel->sharedBytes, lines, ms);
      out = line;
    }
  } else {
    auto stage = tilemla::parseEmitStage(emit);
    if (!stage)
      return fail("unknown --emit stage '" + emit + "'");
    ok = tilemla::emitStage(file, options, *stage, out, errs);
  }
  std::cerr << errs;
  if (!ok)
    return 1;
  if (output.empty() || output == "-") {
    std::cout << out;
  } else {
    std::ofstream file(output, std::ios::binary);
    if (!(file << out))
      return fail("cannot write '" + output + "'");
  }
  return 0;
}
