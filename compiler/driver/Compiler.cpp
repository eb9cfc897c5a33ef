//===- Compiler.cpp - tile source -> PTX, stage by stage ------------------===//
#include "tilemla/Driver/Compiler.h"

#include "tilemla/Backend/PTXBackend.h"
#include "tilemla/Dialect/TileDialect.h"
#include "tilemla/Driver/Pipeline.h"
#include "tilemla/Frontend/AST.h"
#include "tilemla/Frontend/MLIRGen.h"
#include "tilemla/Frontend/Parser.h"
#include "tilemla/Support/WarnOnce.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <iterator>

using namespace mlir;

namespace tilemla {
// Names in enum order: each enum's last value is marked "keep last".
const char *kindName(KernelParam::Kind kind) {
  static const char *const kinds[] = {
      "pointer", "i32", "i64", "f32", "f16", "bf16", "i1", "tensor descriptor"};
  static_assert(std::size(kinds) == KernelParam::TensorDesc + 1);
  return unsigned(kind) < std::size(kinds) ? kinds[kind] : "?";
}

const char *elementTypeName(KernelParam::ElementType type) {
  static const char *const types[] = {"",     "i1",  "i32",     "i64",    "f16",
                                      "bf16", "f32", "fp8e4m3", "fp8e5m2"};
  static_assert(std::size(types) ==
                unsigned(KernelParam::ElementType::FP8E5M2) + 1);
  return unsigned(type) < std::size(types) ? types[unsigned(type)] : "?";
}

std::string toString(const KernelParam &param) {
  std::string element = elementTypeName(param.elementType);
  if (param.kind == KernelParam::Pointer)
    return "*" + element;
  if (param.kind == KernelParam::TensorDesc) {
    std::string s = "desc<" + element + ">";
    if (param.readWithTma())
      s += ":tma=" + std::to_string(param.tmaBoxRows) + "x" +
           std::to_string(param.tmaBoxCols) +
           ":swizzle=" + std::to_string(param.tmaSwizzle);
    return s;
  }
  return kindName(param.kind);
}

std::optional<KernelParam> describeKernelParam(Type type) {
  using ElementType = KernelParam::ElementType;
  auto elementOf = [](Type t) {
    if (t.isF16())
      return ElementType::F16;
    if (t.isBF16())
      return ElementType::BF16;
    if (t.isF32())
      return ElementType::F32;
    if (t.isInteger(32))
      return ElementType::I32;
    if (t.isInteger(64))
      return ElementType::I64;
    if (t.isInteger(1))
      return ElementType::I1;
    if (isa<Float8E4M3FNType>(t))
      return ElementType::FP8E4M3;
    if (isa<Float8E5M2Type>(t))
      return ElementType::FP8E5M2;
    return ElementType::None;
  };
  if (auto ptr = dyn_cast<tile::PointerType>(type))
    return KernelParam{KernelParam::Pointer, elementOf(ptr.getPointeeType())};
  if (auto desc = dyn_cast<tile::TensorDescType>(type))
    return KernelParam{KernelParam::TensorDesc,
                       elementOf(desc.getElementType())};
  if (type.isInteger(32))
    return KernelParam{KernelParam::Int32};
  if (type.isInteger(64))
    return KernelParam{KernelParam::Int64};
  if (type.isInteger(1))
    return KernelParam{KernelParam::Bool};
  if (type.isF32())
    return KernelParam{KernelParam::Float32};
  if (type.isF16())
    return KernelParam{KernelParam::Float16};
  if (type.isBF16())
    return KernelParam{KernelParam::BFloat16};
  return std::nullopt;
}

namespace {
/// The box and swizzle the host encodes into the tensor map of each
/// descriptor TMA copies read (tile-lower-descriptor-loads gives all copies
/// of one descriptor the same box).
void describeTmaBoxes(func::FuncOp func, std::vector<KernelParam> &params) {
  func.walk([&](tile::TmaCopyOp copy) {
    auto arg = dyn_cast<BlockArgument>(copy.getDesc());
    if (!arg || arg.getArgNumber() >= params.size())
      return;
    tile::SharedBufferType buffer = copy.getBuffer().getType();
    KernelParam &param = params[arg.getArgNumber()];
    param.tmaSwizzle = buffer.getSwizzle();
    param.tmaBoxRows = buffer.getRows();
    param.tmaBoxCols = buffer.getSwizzle() * 8 /
                       buffer.getElementType().getIntOrFloatBitWidth();
  });
}

/// Errors from passes point into the source with a caret, like the
/// frontend's.
class SourceDiagnostics {
public:
  SourceDiagnostics(const SourceFile &file, MLIRContext &context,
                    llvm::raw_ostream &errs) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(file.getText(), file.getPath()),
        llvm::SMLoc());
    handler =
        std::make_unique<SourceMgrDiagnosticHandler>(sourceMgr, &context, errs);
  }

private:
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<SourceMgrDiagnosticHandler> handler;
};

/// Parses `file`; null (diagnostics printed) on error.
std::unique_ptr<ModuleAST> parseOrReport(const SourceFile &file,
                                         llvm::raw_ostream &errs) {
  DiagnosticEngine diags(&file);
  std::unique_ptr<ModuleAST> ast = parseSource(file, diags);
  if (!ast || diags.hasErrors()) {
    diags.print(errs);
    return nullptr;
  }
  return ast;
}

/// MLIRGen of a parsed file; null (diagnostics printed) on error.
OwningOpRef<ModuleOp> generateTileIR(const SourceFile &file,
                                     const ModuleAST &ast,
                                     const CompileOptions &options,
                                     MLIRContext &context,
                                     llvm::raw_ostream &errs) {
  DiagnosticEngine diags(&file);
  loadFrontendDialects(context);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module =
      mlirGen(context, ast, options.kernelName, options.defines, diags);
  if (!module || diags.hasErrors()) {
    diags.print(errs);
    return nullptr;
  }
  return module;
}

/// Where `options.dumpDirectory` asks for them, the files each stage of one
/// compile is written to; the MLIR stages are printed by the pass manager's
/// IR-printing instrumentation after each stage's last pass.
class StageDumps {
public:
  explicit StageDumps(const std::string &folder) : folder(folder) {
    if (folder.empty())
      return;
    if (std::error_code error = llvm::sys::fs::create_directories(folder))
      warnOnce(error);
  }
  /// Dumps are best effort: a failed write (a full disk) is dropped, as a
  /// raw_fd_ostream with a pending error would end the process.
  ~StageDumps() {
    for (auto &file : files)
      if (file) {
        file->close();
        file->clear_error();
      }
  }
  bool enabled() const { return !folder.empty(); }

  /// A stream for `stage`'s file, or null when not dumping (or unwritable).
  llvm::raw_ostream *stream(EmitStage stage) {
    if (!enabled())
      return nullptr;
    auto &file = files[unsigned(stage)];
    if (!file) {
      llvm::SmallString<256> path(folder);
      llvm::sys::path::append(path, kFileNames[unsigned(stage)]);
      std::error_code error;
      file = std::make_unique<llvm::raw_fd_ostream>(path, error);
      if (error) {
        file = nullptr;
        warnOnce(error);
      }
    }
    return file.get();
  }

private:
  /// Dumps are asked for by the user: say once per folder, on stderr, that
  /// they are not being written.
  void warnOnce(std::error_code error) {
    tilemla::warnOnce("dumps:" + folder, "cannot write stage dumps to '" +
                                             folder + "' (" + error.message() +
                                             "); they are skipped");
  }

  static constexpr const char *kFileNames[] = {
      "0-ast.txt",   "1-tile.mlir", "2-tile-gpu.mlir",
      "3-llvm.mlir", "4-llvm.ll",   "5-kernel.ptx"};
  std::string folder;
  std::unique_ptr<llvm::raw_fd_ostream> files[std::size(kFileNames)];
};

/// The last pass of each MLIR stage in one pass manager: where a stage's IR
/// is complete.
using StageEnds = llvm::SmallVector<std::pair<Pass *, EmitStage>>;

void markStageEnd(OpPassManager &pm, EmitStage stage, StageEnds &ends) {
  Pass *last = nullptr;
  for (Pass &pass : pm.getPasses())
    last = &pass;
  ends.push_back({last, stage});
}

std::optional<EmitStage> stageEndingAt(const StageEnds &ends, Pass *pass) {
  for (const auto &[last, stage] : ends)
    if (last == pass)
      return stage;
  return std::nullopt;
}

/// Prints the module into its stage's dump file after each stage's last pass.
class StageDumpConfig : public PassManager::IRPrinterConfig {
public:
  StageDumpConfig(const StageEnds &ends, StageDumps &dumps)
      : IRPrinterConfig(/*printModuleScope=*/true), ends(ends), dumps(dumps) {}

  void printAfterIfEnabled(Pass *pass, Operation *,
                           PrintCallbackFn print) override {
    if (std::optional<EmitStage> stage = stageEndingAt(ends, pass))
      if (llvm::raw_ostream *out = dumps.stream(*stage))
        print(*out);
  }

private:
  const StageEnds &ends;
  StageDumps &dumps;
};

/// Describes the kernel's signature for the runtime when the tile-gpu stage
/// ends: constexprs are gone, TMA boxes are chosen, types are still tile's.
class SignatureInstrumentation : public PassInstrumentation {
public:
  SignatureInstrumentation(const StageEnds &ends, CompiledKernel &kernel)
      : ends(ends), kernel(kernel) {}

  void runAfterPass(Pass *pass, Operation *op) override {
    if (stageEndingAt(ends, pass) != EmitStage::TileGPU)
      return;
    cast<ModuleOp>(op).walk([&](func::FuncOp func) {
      if (!func->hasAttr(tile::TileDialect::KernelAttrHelper::getNameStr()))
        return;
      kernel.name = func.getName().str();
      for (Type type : func.getArgumentTypes())
        if (auto param = describeKernelParam(type))
          kernel.params.push_back(*param);
      describeTmaBoxes(func, kernel.params);
    });
  }

private:
  const StageEnds &ends;
  CompiledKernel &kernel;
};

/// The caller's warp count, else the kernel's declared one, else 4.
unsigned resolveNumWarps(const CompileOptions &options, ModuleOp module) {
  if (options.numWarps)
    return options.numWarps;
  if (auto declared = module->getAttrOfType<IntegerAttr>(
          tile::TileDialect::NumWarpsAttrHelper::getNameStr()))
    return unsigned(declared.getInt());
  return 4;
}

/// Times the parts of one compile when CompileOptions::timingReport asks:
/// a tree (parse, frontend, every MLIR pass, LLVM translation, optimization,
/// PTX emission) written to the report when the compile ends.
class CompileTiming {
public:
  explicit CompileTiming(llvm::raw_ostream *report) : report(report) {
    if (!report)
      return;
    manager.setEnabled(true);
    manager.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
    // The tree goes to the manager's output, not to dumpAsTree's stream.
    manager.setOutput(createOutputStrategy(
        DefaultTimingManager::OutputFormat::Text, *report));
    root = manager.getRootScope();
  }
  ~CompileTiming() {
    if (!report)
      return;
    root = TimingScope(); // no timer may be held while printing
    manager.dumpAsTree(*report);
    manager.clear();
    manager.setEnabled(false);
    // LLVM's own passes, one by one, with -mllvm -time-passes.
    if (llvm::TimePassesIsEnabled)
      llvm::reportAndResetTimings(report);
  }
  /// A timed part; a no-op scope when nothing is timed.
  TimingScope nest(llvm::StringRef name) { return root.nest(name); }

private:
  llvm::raw_ostream *report;
  DefaultTimingManager manager;
  TimingScope root;
};

/// Runs the pipeline until `stop`, printing that stage to `out` when given.
/// Fills `kernel` when the pipeline reaches PTX. Each pass runs once; the
/// dumps `options.dumpDirectory` asks for come from the same run.
bool runPipeline(const SourceFile &file, const CompileOptions &options,
                 EmitStage stop, llvm::raw_ostream *out,
                 llvm::raw_ostream &errs, CompiledKernel *kernel) {
  StageDumps dumps(options.dumpDirectory);
  CompileTiming timing(options.timingReport);
  TimingScope parseTime = timing.nest("parse");
  std::unique_ptr<ModuleAST> ast = parseOrReport(file, errs);
  parseTime.stop();
  if (!ast)
    return false;
  if (llvm::raw_ostream *dump = dumps.stream(EmitStage::AST))
    dumpAST(*ast, *dump);
  if (stop == EmitStage::AST) {
    if (out)
      dumpAST(*ast, *out);
    return true;
  }

  DialectRegistry registry;
  registerTileDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  TimingScope genTime = timing.nest("tile IR generation");
  OwningOpRef<ModuleOp> module =
      generateTileIR(file, *ast, options, context, errs);
  genTime.stop();
  if (!module)
    return false;
  SourceDiagnostics handler(file, context, errs);
  unsigned numWarps = resolveNumWarps(options, *module);

  PassManager pm(&context);
  TimingScope passTime = timing.nest("MLIR passes");
  if (options.timingReport)
    pm.enableTiming(passTime);
  StageEnds ends;
  buildTilePipeline(pm, options.argFacts);
  markStageEnd(pm, EmitStage::Tile, ends);
  if (stop >= EmitStage::TileGPU) {
    buildTileGPUPipeline(pm, numWarps, options.target);
    markStageEnd(pm, EmitStage::TileGPU, ends);
  }
  if (stop >= EmitStage::LLVMMLIR) {
    buildLLVMPipeline(pm, options.target);
    markStageEnd(pm, EmitStage::LLVMMLIR, ends);
  }
  if (dumps.enabled())
    pm.enableIRPrinting(std::make_unique<StageDumpConfig>(ends, dumps));
  if (kernel)
    pm.addInstrumentation(
        std::make_unique<SignatureInstrumentation>(ends, *kernel));
  if (failed(pm.run(*module)))
    return false;
  passTime.stop();
  if (stop <= EmitStage::LLVMMLIR) {
    if (out)
      module->print(*out);
    return true;
  }

  llvm::LLVMContext llvmContext;
  TimingScope translateTime = timing.nest("LLVM IR translation");
  auto llvmModule = translateToLLVMIR(*module, llvmContext, options.target);
  translateTime.stop();
  if (!llvmModule) {
    errs << "error: " << llvm::toString(llvmModule.takeError()) << "\n";
    return false;
  }
  TimingScope optimizeTime = timing.nest("LLVM IR optimization");
  if (llvm::Error error = optimizeLLVMIR(**llvmModule, options.target)) {
    errs << "error: " << llvm::toString(std::move(error)) << "\n";
    return false;
  }
  optimizeTime.stop();
  if (llvm::raw_ostream *dump = dumps.stream(EmitStage::LLVMIR))
    (*llvmModule)->print(*dump, nullptr);
  if (stop == EmitStage::LLVMIR) {
    if (out)
      (*llvmModule)->print(*out, nullptr);
    return true;
  }
  TimingScope ptxTime = timing.nest("PTX emission (NVPTX backend)");
  auto ptx = emitPTX(**llvmModule, options.target);
  ptxTime.stop();
  if (!ptx) {
    errs << "error: " << llvm::toString(ptx.takeError()) << "\n";
    return false;
  }
  if (llvm::raw_ostream *dump = dumps.stream(EmitStage::PTX))
    *dump << *ptx;
  if (out)
    *out << *ptx;
  if (kernel) {
    kernel->ptx = std::move(*ptx);
    kernel->target = options.target;
    kernel->numWarps = numWarps;
    if (auto producers = (*module)->getAttrOfType<IntegerAttr>(
            tile::TileDialect::ProducerWarpsAttrHelper::getNameStr()))
      kernel->producerWarps = unsigned(producers.getInt());
    if (auto shared = (*module)->getAttrOfType<IntegerAttr>(
            tile::TileDialect::SharedAttrHelper::getNameStr()))
      kernel->sharedBytes = shared.getInt();
  }
  return true;
}
} // namespace

std::optional<EmitStage> parseEmitStage(const std::string &name) {
  static const std::pair<const char *, EmitStage> stages[] = {
      {"ast", EmitStage::AST},
      {"tile", EmitStage::Tile},
      {"tile-gpu", EmitStage::TileGPU},
      {"llvm-mlir", EmitStage::LLVMMLIR},
      {"llvm", EmitStage::LLVMIR},
      {"ptx", EmitStage::PTX}};
  for (auto [stageName, stage] : stages)
    if (name == stageName)
      return stage;
  return std::nullopt;
}

bool emitStage(const SourceFile &file, const CompileOptions &options,
               EmitStage stage, std::string &out, std::string &errs) {
  llvm::raw_string_ostream outStream(out), errStream(errs);
  return runPipeline(file, options, stage, &outStream, errStream, nullptr);
}

std::optional<CompiledKernel> compileKernel(const SourceFile &file,
                                            const CompileOptions &options,
                                            std::string &errs) {
  llvm::raw_string_ostream errStream(errs);
  CompiledKernel kernel;
  if (!runPipeline(file, options, EmitStage::PTX, nullptr, errStream, &kernel))
    return std::nullopt;
  return kernel;
}

OwningOpRef<ModuleOp> compileToTileIR(const SourceFile &file,
                                      const CompileOptions &options,
                                      MLIRContext &context, std::string &errs) {
  llvm::raw_string_ostream errStream(errs);
  std::unique_ptr<ModuleAST> ast = parseOrReport(file, errStream);
  if (!ast)
    return nullptr;
  OwningOpRef<ModuleOp> module =
      generateTileIR(file, *ast, options, context, errStream);
  if (!module)
    return nullptr;
  SourceDiagnostics handler(file, context, errStream);
  PassManager pm(&context);
  buildInterpreterPipeline(pm, options.argFacts);
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}
} // namespace tilemla
