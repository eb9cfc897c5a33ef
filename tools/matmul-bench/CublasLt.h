//===- CublasLt.h - the cuBLASLt reference matmul, loaded at run time -*- C++
//-*-//
//
// matmul-bench compares tilemla with cuBLASLt on the same device buffers.
// The library is dlopen'ed (libcublasLt.so.13, else .so.12) so that building
// the tool needs no CUDA toolkit; CublasLt.cpp declares the few functions,
// handle types and enum values used.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TOOLS_MATMULBENCH_CUBLASLT_H
#define TILEMLA_TOOLS_MATMULBENCH_CUBLASLT_H

#include <cstddef>
#include <memory>
#include <string>

namespace tilemla::bench {
/// C[M, N] = A[M, K] @ B[K, N] with cuBLASLt: row-major bf16 matrices, f32
/// accumulation and scaling, on the legacy default stream.
class CublasLtMatmul {
public:
  /// Loads the library and creates a handle; throws std::runtime_error
  /// saying why not.
  CublasLtMatmul();
  ~CublasLtMatmul();
  CublasLtMatmul(const CublasLtMatmul &) = delete;
  CublasLtMatmul &operator=(const CublasLtMatmul &) = delete;

  /// Describes the shape and asks the heuristic for its best algorithm
  /// within `workspaceBytes`; throws if there is none.
  void plan(int M, int N, int K, size_t workspaceBytes);
  /// Queues the planned matmul; `workspace` holds the planned bytes.
  void run(const void *a, const void *b, void *c, void *workspace) const;
  /// The library's version, e.g. "130100".
  std::string version() const;

  struct Api;

private:
  void releasePlan();
  std::unique_ptr<Api> api;
  void *handle = nullptr;
  void *desc = nullptr, *layoutA = nullptr, *layoutB = nullptr,
       *layoutC = nullptr;
  alignas(8) unsigned char algo[64] = {};
  size_t workspaceBytes = 0;
};
} // namespace tilemla::bench

#endif
