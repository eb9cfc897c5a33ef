//===- PTXBackend.h - LLVM IR -> PTX ----------------------------*- C++ -*-===//
#ifndef TILEMLA_BACKEND_PTXBACKEND_H
#define TILEMLA_BACKEND_PTXBACKEND_H

#include "tilemla/Support/GpuTarget.h"

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
/// Translates a module in the LLVM dialect (+ NVVM) to LLVM IR for NVPTX.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  const GpuTarget &target);

/// Runs LLVM's O3 pipeline for `target` on `module`.
llvm::Error optimizeLLVMIR(llvm::Module &module, const GpuTarget &target);

/// Generates PTX assembly (of the target's PTX version) for `module`
/// (already optimized).
llvm::Expected<std::string> emitPTX(llvm::Module &module,
                                    const GpuTarget &target);
} // namespace tilemla

#endif
