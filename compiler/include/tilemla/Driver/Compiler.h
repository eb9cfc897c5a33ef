//===- Compiler.h - tile source -> PTX, stage by stage ----------*- C++ -*-===//
#ifndef TILEMLA_DRIVER_COMPILER_H
#define TILEMLA_DRIVER_COMPILER_H

#include "tilemla/Frontend/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace tilemla {
/// Where `tilec --emit=` stops.
enum class EmitStage { AST, Tile, TileGPU, LLVMMLIR, LLVMIR, PTX };
std::optional<EmitStage> parseEmitStage(const std::string &name);

struct CompileOptions {
  std::string kernelName;                     ///< empty: the file's first kernel
  std::map<std::string, std::string> defines; ///< constexpr NAME -> VALUE
  std::string arch = "sm_90a";
  unsigned numWarps = 4;
};

/// A kernel parameter as the runtime passes it.
struct KernelParam {
  enum Kind { Pointer, Int32, Int64, Float32, Float16, BFloat16, Bool } kind;
  std::string elementType; ///< for pointers: f16, bf16, f32, i32, i64, fp8e4m3
};

struct CompiledKernel {
  std::string name;
  std::string arch;
  std::string ptx;
  unsigned numWarps = 4;
  unsigned sharedBytes = 0; ///< dynamic shared memory a launch must request
  std::vector<KernelParam> params;
};

/// Compiles `file` up to `stage`, appending that stage's text to `out`.
/// Diagnostics are appended to `errs`; returns false if there were errors.
/// (The public API speaks std types only: libtilemla hides LLVM.)
bool emitStage(const SourceFile &file, const CompileOptions &options,
               EmitStage stage, std::string &out, std::string &errs);

/// Compiles `file` to PTX. Diagnostics are appended to `errs`.
std::optional<CompiledKernel> compileKernel(const SourceFile &file,
                                            const CompileOptions &options,
                                            std::string &errs);

/// Dialects and passes, for tile-opt and tests.
void registerTileDialects(mlir::DialectRegistry &registry);
void registerTilePasses();

/// mlir-opt with the tile dialects and passes registered (tile-opt's main).
int runTileOptMain(int argc, char **argv);

/// The pipelines between stages.
void buildTilePipeline(mlir::OpPassManager &pm);
void buildTileGPUPipeline(mlir::OpPassManager &pm, unsigned numWarps);
void buildLLVMPipeline(mlir::OpPassManager &pm, llvm::StringRef arch);
} // namespace tilemla

#endif
