//===- Interpreter.h - run kernels on the CPU -------------------*- C++ -*-===//
//
// Executes a kernel's specialized tile IR (`tilec --emit=tile`) on the host,
// program by program over the grid, with real loads and stores on host
// buffers. Every access is checked against the buffer its pointer was derived
// from; an out-of-bounds access throws OutOfBoundsError naming the kernel, the
// program id, the source location and the offending byte range.
//
//   interp::Kernel kernel(file, options);          // compile once
//   kernel.launch({gridX, 1, 1}, {interp::Arg::pointer(x.data(), bytes),
//                                 interp::Arg::i32(n)});
//
// Numerics follow the GPU code: f16/bf16/fp8e4m3 results are computed in f32
// and rounded to nearest-even (Numerics.h); tile.dot accumulates in f32 with
// fused multiply-adds in k order; tile.reduce sums floats in f32 (in index
// order, which differs from the GPU's tree order) and rounds once to the
// element type; max/min propagate NaN. Integer arithmetic wraps; division by
// zero throws InterpreterError. Programs run one after another, x fastest.
//
// The API holds no MLIR types (libtilemla hides MLIR); SourceFile comes from
// Frontend/Diagnostics.h through Driver/Compiler.h.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_INTERPRETER_INTERPRETER_H
#define TILEMLA_INTERPRETER_INTERPRETER_H

#include "tilemla/Driver/Compiler.h"
#include "tilemla/Export.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilemla::interp {
/// Any failure: compile errors, bad arguments, runtime errors in the kernel.
class TILEMLA_API InterpreterError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};
/// The kernel did not compile; what() holds the diagnostics.
class TILEMLA_API CompileError : public InterpreterError {
public:
  using InterpreterError::InterpreterError;
};
/// The launch's arguments do not match the kernel's parameters.
class TILEMLA_API ArgumentError : public InterpreterError {
public:
  using InterpreterError::InterpreterError;
};
/// A load or store touched bytes outside its argument's buffer.
class TILEMLA_API OutOfBoundsError : public InterpreterError {
public:
  using InterpreterError::InterpreterError;
};

/// A host buffer: `bytes` bytes at `data`.
struct Buffer {
  void *data = nullptr;
  size_t bytes = 0;
};

/// One kernel argument: a pointer parameter takes a Buffer, a scalar
/// parameter a value of exactly its type (f16/bf16 scalars as bit patterns).
struct TILEMLA_API Arg {
  KernelParam::Kind kind = KernelParam::Int32;
  Buffer buffer;     ///< Pointer
  int64_t i = 0;     ///< Int32, Int64, Bool (0/1)
  float f = 0;       ///< Float32
  uint16_t bits = 0; ///< Float16, BFloat16
  /// TensorDesc: the tensor's rows, columns and row stride (elements); its
  /// memory is `buffer`, starting at the tensor's first element.
  int64_t rows = 0, cols = 0, rowStride = 0;

  static Arg pointer(void *data, size_t bytes);
  template <typename T> static Arg pointer(std::vector<T> &v) {
    return pointer(v.data(), v.size() * sizeof(T));
  }
  static Arg i32(int32_t value);
  static Arg i64(int64_t value);
  static Arg f32(float value);
  static Arg f16Bits(uint16_t bits);
  static Arg bf16Bits(uint16_t bits);
  static Arg i1(bool value);
  static Arg tensorDesc(void *data, size_t bytes, int64_t rows, int64_t cols,
                        int64_t rowStride);
};

/// A kernel compiled to tile IR once, launched any number of times.
class TILEMLA_API Kernel {
public:
  /// Throws CompileError.
  Kernel(const SourceFile &file, const CompileOptions &options);
  ~Kernel();
  Kernel(Kernel &&) noexcept;
  Kernel &operator=(Kernel &&) noexcept;

  const std::string &getName() const;
  /// The runtime parameters (constexprs removed), in launch order.
  const std::vector<KernelParam> &getParams() const;
  /// The tile IR being interpreted.
  std::string getTileIR() const;

  /// Runs grid[0] * grid[1] * grid[2] programs. Throws ArgumentError,
  /// OutOfBoundsError or InterpreterError; stores done before an error stay.
  void launch(std::array<unsigned, 3> grid, const std::vector<Arg> &args) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Compiles `file` and launches it once.
TILEMLA_API void launch(const SourceFile &file, const CompileOptions &options,
                        std::array<unsigned, 3> grid,
                        const std::vector<Arg> &args);

/// Whether TILEMLA_INTERPRET is set to something other than "" or "0": the
/// runtime then launches kernels here instead of on the GPU.
TILEMLA_API bool interpretRequested();
} // namespace tilemla::interp

#endif
