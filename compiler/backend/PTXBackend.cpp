//===- PTXBackend.cpp - LLVM IR -> PTX through the NVPTX backend ----------===//
#include "tilemla/Backend/PTXBackend.h"

#include "PairFPTruncs.h"
#include "SplitGEPOffsets.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace llvm;

namespace tilemla {
namespace {
constexpr const char *kTriple = "nvptx64-nvidia-cuda";

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared-memory pointers (shared memory is below 4 GiB): half
    // the registers for every address a kernel keeps into shared memory.
    // The NVPTX target reads this flag when it makes a target machine.
    auto &options = cl::getRegisteredOptions();
    auto found = options.find("nvptx-short-ptr");
    if (found != options.end())
      static_cast<cl::opt<bool> *>(found->second)->setValue(true);
  });
}

/// The PTX version `module` is emitted at: the target's, or 8.4 where it
/// calls mma.sync's fp8 forms (the first version that describes them).
unsigned ptxVersionFor(const Module *module, const GpuTarget &gpu) {
  if (module)
    for (const Function &function : *module) {
      StringRef name = function.getName();
      if (function.isIntrinsic() && name.starts_with("llvm.nvvm.mma.") &&
          (name.contains("e4m3") || name.contains("e5m2")))
        return std::max(gpu.ptxVersion(), 84u);
    }
  return gpu.ptxVersion();
}

Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(const GpuTarget &gpu, const Module *module = nullptr) {
  initializeNVPTX();
  Triple triple(kTriple);
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError(inconvertibleErrorCode(),
                             "NVPTX target unavailable: " + error);
  std::string features = "+ptx" + std::to_string(ptxVersionFor(module, gpu));
  TargetOptions options;
  // Default, not Aggressive: Aggressive only swaps NVPTX's two EarlyCSE runs
  // for GVN after the O3 pipeline has run; measured on 15 kernels (MLA,
  // matmul, softmax), the PTX is byte-identical and the backend takes half
  // the time (H=16 MLA stage 1: 454 -> 214 ms).
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, gpu.name(), features, options, Reloc::PIC_, std::nullopt,
      CodeGenOptLevel::Default));
  if (!machine)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create an NVPTX target machine for " +
                                 gpu.name());
  return std::move(machine);
}
} // namespace

Expected<std::unique_ptr<Module>> translateToLLVMIR(mlir::ModuleOp module,
                                                    LLVMContext &context,
                                                    const GpuTarget &target) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, "tilemla");
  if (!llvmModule)
    return createStringError(inconvertibleErrorCode(),
                             "translation to LLVM IR failed");
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  llvmModule->setTargetTriple(Triple(kTriple));
  llvmModule->setDataLayout((*machine)->createDataLayout());
  return std::move(llvmModule);
}

Error optimizeLLVMIR(Module &module, const GpuTarget &target) {
  auto machine = createTargetMachine(target, &module);
  if (!machine)
    return machine.takeError();
  LoopAnalysisManager loops;
  FunctionAnalysisManager functions;
  CGSCCAnalysisManager cgscc;
  ModuleAnalysisManager modules;
  // LLVM's own instrumentation, so that -mllvm options such as
  // -time-passes and -print-after-all reach these passes too.
  PassInstrumentationCallbacks callbacks;
  StandardInstrumentations instrumentation(module.getContext(),
                                           /*DebugLogging=*/false);
  instrumentation.registerCallbacks(callbacks, &modules);
  PassBuilder builder(machine->get(), PipelineTuningOptions(), std::nullopt,
                      &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  pipeline.addPass(createModuleToFunctionPassAdaptor(SplitGEPOffsetsPass()));
  pipeline.addPass(createModuleToFunctionPassAdaptor(PairFPTruncsPass()));
  pipeline.run(module, modules);
  return Error::success();
}

Expected<std::string> emitPTX(Module &module, const GpuTarget &target) {
  auto machine = createTargetMachine(target, &module);
  if (!machine)
    return machine.takeError();
  std::string ptx;
  {
    raw_string_ostream stream(ptx);
    buffer_ostream output(stream);
    legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, output, nullptr,
                                        CodeGenFileType::AssemblyFile))
      return createStringError(inconvertibleErrorCode(),
                               "NVPTX cannot emit assembly");
    codegen.run(module);
  }
  return ptx;
}
} // namespace tilemla
