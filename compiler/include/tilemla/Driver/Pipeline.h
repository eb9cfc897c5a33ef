//===- Pipeline.h - the compiler's dialects, passes and pipelines -*- C++
//-*-===//
//
// The MLIR-facing side of the driver: what tile-opt registers, the pipelines
// between the stages `tilec --emit=` prints, and tile IR for in-process
// consumers such as the interpreter. Compiler.h is the std-only entry point.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_DRIVER_PIPELINE_H
#define TILEMLA_DRIVER_PIPELINE_H

#include "tilemla/Driver/Compiler.h"

#include "llvm/ADT/ArrayRef.h"

namespace mlir {
class DialectRegistry;
class Type;
class MLIRContext;
class ModuleOp;
class OpPassManager;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace tilemla {
/// Dialects and passes (with the pipelines below, registered as
/// -tile-pipeline, -tile-gpu-pipeline, -tile-llvm-pipeline and
/// -tile-interpreter-pipeline), for tile-opt and tests.
TILEMLA_API void registerTileDialects(mlir::DialectRegistry &registry);
TILEMLA_API void registerTilePasses();

/// mlir-opt with the tile dialects and passes registered (tile-opt's main).
TILEMLA_API int runTileOptMain(int argc, char **argv);

/// source IR -> tile IR: constexprs folded, helpers inlined, then the
/// specialization on the launch's argument facts.
TILEMLA_API void buildTilePipeline(mlir::OpPassManager &pm,
                                   llvm::ArrayRef<ArgFact> argFacts = {});
/// tile IR -> tile-gpu IR: layouts for `numWarps` warps; where the target
/// has them, wgmma dots and TMA streams.
TILEMLA_API void buildTileGPUPipeline(mlir::OpPassManager &pm,
                                      unsigned numWarps,
                                      const GpuTarget &target);
/// tile-gpu IR -> LLVM dialect + NVVM.
TILEMLA_API void buildLLVMPipeline(mlir::OpPassManager &pm,
                                   const GpuTarget &target);
/// source IR -> the tile IR the interpreter runs: the tile pipeline, then
/// every descriptor load as a pointer load.
TILEMLA_API void buildInterpreterPipeline(mlir::OpPassManager &pm,
                                          llvm::ArrayRef<ArgFact> argFacts);

/// How the runtime passes a kernel argument of tile-IR type `type`; nullopt
/// for types no launch can pass. The compiled kernel's signature and the
/// interpreter's both come from it.
TILEMLA_API std::optional<KernelParam> describeKernelParam(mlir::Type type);

/// Parses `file` and runs the interpreter pipeline in `context`, which must
/// hold registerTileDialects' dialects and outlive the module. Returns null,
/// with diagnostics appended to `errs`, on errors.
TILEMLA_API mlir::OwningOpRef<mlir::ModuleOp>
compileToTileIR(const SourceFile &file, const CompileOptions &options,
                mlir::MLIRContext &context, std::string &errs);
} // namespace tilemla

#endif
