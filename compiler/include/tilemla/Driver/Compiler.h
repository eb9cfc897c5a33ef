//===- Compiler.h - tile source -> PTX, stage by stage ----------*- C++ -*-===//
//
// The compiler's public entry points, free of MLIR types (libtilemla hides
// MLIR; SourceFile, from Frontend/Diagnostics.h, still hands out
// llvm::StringRef). Driver/Pipeline.h has the MLIR-facing side: the
// dialects, passes and pipelines, for tile-opt and the interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_DRIVER_COMPILER_H
#define TILEMLA_DRIVER_COMPILER_H

#include "tilemla/Export.h"
#include "tilemla/Frontend/Diagnostics.h"
#include "tilemla/Support/GpuTarget.h"
#include "tilemla/Support/TensorDescriptorABI.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tilemla {
/// Where `tilec --emit=` stops.
enum class EmitStage { AST, Tile, TileGPU, LLVMMLIR, LLVMIR, PTX };
/// A stage by its `tilec --emit=` name: "ast", "tile", "tile-gpu",
/// "llvm-mlir", "llvm" or "ptx"; none for another name.
TILEMLA_API std::optional<EmitStage> parseEmitStage(const std::string &name);

/// What one runtime argument of a launch is known to satisfy; the runtime
/// compiles a specialization per combination, as Triton does.
struct ArgFact {
  /// What the value is known to be divisible by (bytes of alignment for
  /// pointers, the value for integers); 0: the default (pointers 16-byte
  /// aligned, integers unknown). Enables vectorized, uniformly masked access.
  unsigned divisibility = 0;
  /// An integer known to be 1: every use sees the constant, so a unit stride
  /// makes its accesses contiguous. The argument stays in the signature.
  bool isOne = false;

  bool operator==(const ArgFact &other) const {
    return divisibility == other.divisibility && isOne == other.isOne;
  }
};

struct CompileOptions {
  std::string kernelName; ///< empty: the file's first kernel
  std::map<std::string, std::string> defines; ///< constexpr NAME -> VALUE
  GpuTarget target;
  /// Warps per program; 0: the kernel's `with num_warps = ...`, else 4.
  unsigned numWarps = 0;
  /// Per runtime argument (after constexprs); missing entries: nothing known.
  std::vector<ArgFact> argFacts;
  /// When not empty, every stage of the compile (0-ast.txt, 1-tile.mlir ...
  /// 5-kernel.ptx) is also written to this folder, from the same run.
  std::string dumpDirectory;
  /// When set, where the time of each part of the compile is reported
  /// (parse, every MLIR pass, LLVM translation, optimization, PTX emission).
  llvm::raw_ostream *timingReport = nullptr;
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
    FP8E4M3,
    FP8E5M2, ///< keep last: the disk cache reads types up to it
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
  GpuTarget target;
  std::string ptx;
  unsigned numWarps = 4;
  /// Warps added to the kernel's own: a producer warpgroup for TMA copies
  /// (tile-warp-specialize) and a score warpgroup (tile-split-roles); a
  /// launch runs (numWarps + producerWarps) * 32 threads per program.
  unsigned producerWarps = 0;
  unsigned sharedBytes = 0; ///< dynamic shared memory a launch must request
  std::vector<KernelParam> params;
};

/// Compiles `file` up to `stage`, appending that stage's text to `out`.
/// Diagnostics are appended to `errs`; returns false if there were errors.
TILEMLA_API bool emitStage(const SourceFile &file,
                           const CompileOptions &options, EmitStage stage,
                           std::string &out, std::string &errs);

/// The compiler's build id: a hash of its sources, fixed at build time (the
/// disk cache keys on it; tilec --version prints it).
TILEMLA_API const char *compilerBuildId();

/// Compiles `file` to PTX. Diagnostics are appended to `errs`.
TILEMLA_API std::optional<CompiledKernel>
compileKernel(const SourceFile &file, const CompileOptions &options,
              std::string &errs);
} // namespace tilemla

#endif
