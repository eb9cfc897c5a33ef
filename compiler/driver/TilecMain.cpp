//===- TilecMain.cpp - tilec's command line, on llvm::cl ------------------===//
#include "tilemla/Driver/Tilec.h"

#include "tilemla/Driver/Compiler.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <vector>

namespace cl = llvm::cl;

namespace tilemla {
namespace {
/// What --emit prints: a pipeline stage, or one line about the kernel.
enum class Emit {
  AST = int(EmitStage::AST),
  Tile = int(EmitStage::Tile),
  TileGPU = int(EmitStage::TileGPU),
  LLVMMLIR = int(EmitStage::LLVMMLIR),
  LLVMIR = int(EmitStage::LLVMIR),
  PTX = int(EmitStage::PTX),
  Summary,
};

/// Runtime arguments --assume-divisible and --assume-one can speak about.
constexpr unsigned kMaxArgs = 256;

int usageError(const llvm::Twine &message) {
  llvm::errs() << "tilec: error: " << message << "\n";
  return 1;
}

void printVersion(llvm::raw_ostream &os) {
  os << "tilec (tilemla)\n"
     << "  compiler build " << compilerBuildId() << "\n"
     << "  LLVM " << LLVM_VERSION_STRING << "\n"
     << "  default target " << CompileOptions().target.name() << "\n";
}

/// One line: kernel, arch, warps, parameters, shared memory, PTX size and
/// compile time.
bool summarize(const SourceFile &file, const CompileOptions &options,
               std::string &out, std::string &errs) {
  auto start = std::chrono::steady_clock::now();
  auto kernel = compileKernel(file, options, errs);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (!kernel)
    return false;
  size_t lines = std::count(kernel->ptx.begin(), kernel->ptx.end(), '\n');
  char line[512];
  std::snprintf(line, sizeof line,
                "%-16s arch=%s warps=%u params=%zu shared=%uB "
                "ptx=%zu lines compile=%.1f ms\n",
                kernel->name.c_str(), kernel->target.name().c_str(),
                kernel->numWarps, kernel->params.size(), kernel->sharedBytes,
                lines, ms);
  out = line;
  return true;
}
} // namespace

int runTilecMain(int argc, char **argv) {
  // Locals, not globals: tile-opt and every runtime user load this library,
  // and global options would appear (and clash) in their command lines.
  const CompileOptions defaults;
  cl::OptionCategory category("tilec options");
  cl::opt<std::string> input(cl::Positional, cl::desc("<input .tile file>"),
                             cl::cat(category));
  cl::list<std::string> defines(
      "D", cl::Prefix, cl::value_desc("NAME=VALUE"),
      cl::desc("Value of a constexpr or dtype parameter (-D NAME=VALUE or "
               "-DNAME=VALUE)"),
      cl::cat(category));
  cl::opt<std::string> kernel(
      "kernel", cl::value_desc("name"),
      cl::desc("Kernel to compile (default: the file's first)"),
      cl::cat(category));
  // cl::desc keeps a reference: the text must outlive the option.
  const std::string archHelp =
      "Target architecture (" + GpuTarget::knownNames() + ")";
  cl::opt<std::string> arch("arch", cl::init(defaults.target.name()),
                            cl::value_desc("sm_90a|sm_80"), cl::desc(archHelp),
                            cl::cat(category));
  cl::opt<unsigned> numWarps(
      "num-warps", cl::init(defaults.numWarps), cl::value_desc("N"),
      cl::desc("Warps per program: 1, 2, 4, ..., 32 (default: the kernel's "
               "'with num_warps = ...', else 4)"),
      cl::cat(category));
  cl::opt<unsigned> assumeDivisible(
      "assume-divisible", cl::value_desc("N"),
      cl::desc("Specialize as the runtime does for pointers aligned to, and "
               "integers divisible by, N (a power of two)"),
      cl::cat(category));
  cl::list<unsigned> assumeOne(
      "assume-one", cl::CommaSeparated, cl::value_desc("I,J,..."),
      cl::desc("Runtime integer arguments I, J (0-based, after constexprs) "
               "equal 1, as the runtime specializes them"),
      cl::cat(category));
  cl::opt<Emit> emit(
      "emit", cl::init(Emit::PTX),
      cl::desc("Stop after this stage and print it (default: ptx)"),
      cl::values(
          clEnumValN(Emit::AST, "ast", "the parsed syntax tree"),
          clEnumValN(Emit::Tile, "tile", "tile IR, constexprs folded"),
          clEnumValN(Emit::TileGPU, "tile-gpu", "tile IR with layouts"),
          clEnumValN(Emit::LLVMMLIR, "llvm-mlir", "LLVM + NVVM dialects"),
          clEnumValN(Emit::LLVMIR, "llvm", "LLVM IR after O3"),
          clEnumValN(Emit::PTX, "ptx", "PTX from the NVPTX backend"),
          clEnumValN(Emit::Summary, "summary",
                     "one line about the compiled kernel")),
      cl::cat(category));
  cl::opt<std::string> output("o", cl::init("-"), cl::value_desc("file"),
                              cl::desc("Output file (default: stdout)"),
                              cl::cat(category));
  cl::list<std::string> llvmOptions(
      "mllvm", cl::value_desc("option"),
      cl::desc("Pass an option to LLVM (e.g. -mllvm -print-after-all)"),
      cl::cat(category));
  cl::opt<bool> timing(
      "timing",
      cl::desc("Report on stderr the time of each part of the compile (parse, "
               "every MLIR pass, LLVM translation, optimization, PTX)"),
      cl::cat(category));
  cl::opt<bool> shortHelp("h", cl::desc("Alias for --help"), cl::cat(category));

  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter(printVersion);
  // Response files (@file) are expanded here. With an error stream the
  // parser reports and returns false instead of exiting.
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "tilec: compile a tile kernel and print one stage of the pipeline\n",
          &llvm::errs()))
    return 1;
  if (shortHelp) {
    cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
    return 0;
  }
  if (!llvmOptions.empty()) {
    // As clang does: -mllvm values form a second command line, for LLVM's
    // own options (the NVPTX backend's, -print-after-all, ...).
    std::vector<const char *> llvmArgv = {"tilec (LLVM option parsing)"};
    for (const std::string &option : llvmOptions)
      llvmArgv.push_back(option.c_str());
    if (!cl::ParseCommandLineOptions(int(llvmArgv.size()), llvmArgv.data(), "",
                                     &llvm::errs()))
      return 1;
  }

  CompileOptions options = defaults;
  for (const std::string &define : defines) {
    size_t eq = define.find('=');
    if (eq == std::string::npos || eq == 0)
      return usageError("expected -D NAME=VALUE, got '" + define + "'");
    options.defines[define.substr(0, eq)] = define.substr(eq + 1);
  }
  options.kernelName = kernel;
  if (timing)
    options.timingReport = &llvm::errs();
  std::optional<GpuTarget> target = GpuTarget::parse(arch);
  if (!target)
    return usageError("unknown target architecture '" + arch +
                      "' (known: " + GpuTarget::knownNames() + ")");
  options.target = *target;
  if (numWarps.getNumOccurrences() &&
      (numWarps > 32 || !llvm::isPowerOf2_32(numWarps)))
    return usageError("--num-warps must be a power of two in [1, 32]");
  options.numWarps = numWarps;
  if (assumeDivisible.getNumOccurrences()) {
    if (!llvm::isPowerOf2_32(assumeDivisible))
      return usageError("--assume-divisible must be a power of two");
    options.argFacts.resize(kMaxArgs);
    for (ArgFact &fact : options.argFacts)
      fact.divisibility = assumeDivisible;
  }
  for (unsigned index : assumeOne) {
    if (index >= kMaxArgs)
      return usageError("--assume-one takes argument indices 0.." +
                        llvm::Twine(kMaxArgs - 1) + ", got " +
                        llvm::Twine(index));
    if (options.argFacts.size() <= index)
      options.argFacts.resize(index + 1);
    options.argFacts[index].isOne = true;
  }
  if (input.empty())
    return usageError("no input file (see tilec --help)");

  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(input);
  if (!buffer)
    return usageError("cannot read '" + input +
                      "': " + buffer.getError().message());
  SourceFile file(input == "-" ? "<stdin>" : input.getValue(),
                  (*buffer)->getBuffer().str());

  std::string out, errs;
  bool ok = emit.getValue() == Emit::Summary
                ? summarize(file, options, out, errs)
                : emitStage(file, options, EmitStage(int(emit.getValue())), out,
                            errs);
  llvm::errs() << errs;
  if (!ok)
    return 1;

  // std streams, not raw_fd_ostream: that one ends the process when it is
  // destroyed with a write error pending.
  if (output == "-") {
    std::cout << out << std::flush;
    if (!std::cout)
      return usageError("cannot write to stdout");
  } else {
    std::ofstream stream(output, std::ios::binary);
    if (!(stream << out) || !stream.flush())
      return usageError("cannot write '" + output + "'");
  }
  return 0;
}
} // namespace tilemla
