//===- Compiler.h - tile source -> PTX, stage by stage ----------*- C++ -*-===//
#ifndef TILEMLA_DRIVER_COMPILER_H
#define TILEMLA_DRIVER_COMPILER_H

#include "tilemla/Export.h"
#include "tilemla/Frontend/Diagnostics.h"
#include "tilemla/Support/TensorDescriptorABI.h"

#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class MLIRContext;
class ModuleOp;
class OpPassManager;
template <typename OpTy> class OwningOpRef;
} // namespace mlir

namespace tilemla {
/// Where `tilec --emit=` stops.
enum class EmitStage { AST, Tile, TileGPU, LLVMMLIR, LLVMIR, PTX };
TILEMLA_API std::optional<EmitStage> parseEmitStage(const std::string &name);

struct CompileOptions {
  std::string kernelName; ///< empty: the file's first kernel
  std::map<std::string, std::string> defines; ///< constexpr NAME -> VALUE
  std::string arch = "sm_90a";
  unsigned numWarps = 4;
  /// Per runtime argument, what its value is known to be divisible by (bytes
  /// for pointers, the value for integers); 0: the default (pointers 16-byte
  /// aligned, integers unknown). Enables vectorized, uniformly masked access.
  std::vector<unsigned> argDivisibility;
  /// Per runtime argument: an integer known to be 1 (the runtime specializes
  /// on it, as Triton does): every use sees the constant, so a unit stride
  /// makes its accesses contiguous. The argument stays in the signature.
  std::vector<bool> argIsOne;
};

/// A kernel parameter as the runtime passes it.
struct KernelParam {
  enum Kind {
    Pointer,
    Int32,
    Int64,
    Float32,
    Float16,
    BFloat16,
    Bool,
    /// A 2-D row-major tensor (`desc<T>` in the tile language), passed as
    /// the block Support/TensorDescriptorABI.h lays out.
    TensorDesc, ///< keep last: the disk cache reads kinds up to it
  } kind;
  /// What a pointer or tensor descriptor points at; None for scalars.
  enum class ElementType {
    None,
    I1,
    I32,
    I64,
    F16,
    BF16,
    F32,
    FP8E4M3, ///< keep last: the disk cache reads types up to it
  };
  ElementType elementType = ElementType::None;
  /// Tensor descriptors read with TMA (sm_90a): the box each copy moves
  /// (rows x cols elements) and the shared-memory swizzle in bytes (32, 64
  /// or 128) the host encodes into the tensor map; 0 when no TMA reads it.
  unsigned tmaBoxRows = 0, tmaBoxCols = 0, tmaSwizzle = 0;

  bool readWithTma() const { return tmaBoxRows || tmaBoxCols || tmaSwizzle; }

  bool operator==(const KernelParam &other) const {
    return kind == other.kind && elementType == other.elementType &&
           tmaBoxRows == other.tmaBoxRows && tmaBoxCols == other.tmaBoxCols &&
           tmaSwizzle == other.tmaSwizzle;
  }
  bool operator!=(const KernelParam &other) const { return !(*this == other); }
};

/// For messages and KernelInfo: "*bf16" for pointers, "desc<bf16>" or
/// "desc<bf16>:tma=64x64:swizzle=128" for tensor descriptors, else the
/// scalar type: "i32", "f32", ...
TILEMLA_API std::string toString(const KernelParam &param);
/// The scalar type of a parameter kind, "pointer" for pointers.
TILEMLA_API const char *kindName(KernelParam::Kind kind);
/// "bf16", "fp8e4m3", ...; "" for None.
TILEMLA_API const char *elementTypeName(KernelParam::ElementType type);

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
TILEMLA_API bool emitStage(const SourceFile &file,
                           const CompileOptions &options, EmitStage stage,
                           std::string &out, std::string &errs);

/// Compiles `file` to PTX. Diagnostics are appended to `errs`.
TILEMLA_API std::optional<CompiledKernel>
compileKernel(const SourceFile &file, const CompileOptions &options,
              std::string &errs);

/// Parses `file` and runs the tile pipeline (what `--emit=tile` prints) in
/// `context`, which must hold registerTileDialects' dialects and outlive the
/// module. Returns null, with diagnostics appended to `errs`, on errors.
/// (For in-process consumers of tile IR such as the interpreter.)
TILEMLA_API mlir::OwningOpRef<mlir::ModuleOp>
compileToTileIR(const SourceFile &file, const CompileOptions &options,
                mlir::MLIRContext &context, std::string &errs);

/// Dialects and passes, for tile-opt and tests.
TILEMLA_API void registerTileDialects(mlir::DialectRegistry &registry);
TILEMLA_API void registerTilePasses();

/// mlir-opt with the tile dialects and passes registered (tile-opt's main).
TILEMLA_API int runTileOptMain(int argc, char **argv);

/// The pipelines between stages.
TILEMLA_API void buildTilePipeline(mlir::OpPassManager &pm);
/// Layouts for `numWarps` warps; on sm_90a, wgmma where dots fit it.
TILEMLA_API void buildTileGPUPipeline(mlir::OpPassManager &pm,
                                      unsigned numWarps, llvm::StringRef arch);
TILEMLA_API void buildLLVMPipeline(mlir::OpPassManager &pm,
                                   llvm::StringRef arch);
} // namespace tilemla

#endif
