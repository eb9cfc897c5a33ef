//===- PTXBackend.h - LLVM IR -> PTX ----------------------------*- C++ -*-===//
#ifndef TILEMLA_BACKEND_PTXBACKEND_H
#define TILEMLA_BACKEND_PTXBACKEND_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm
namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tilemla {
/// PTX ISA version the backend targets: PTX 8.0, the first with sm_90a,
/// accepted by every CUDA 12+ driver.
constexpr unsigned kPTXVersion = 80;

/// Translates a module in the LLVM dialect (+ NVVM) to LLVM IR for NVPTX.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  llvm::StringRef arch);

/// Runs LLVM's O3 pipeline for `arch` (sm_80, sm_90a, ...) on `module`.
llvm::Error optimizeLLVMIR(llvm::Module &module, llvm::StringRef arch);

/// Generates PTX assembly for `module` (already optimized).
llvm::Expected<std::string> emitPTX(llvm::Module &module, llvm::StringRef arch);
} // namespace tilemla

#endif
