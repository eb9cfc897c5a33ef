//===- CublasLt.cpp - the cuBLASLt reference matmul -----------------------===//
#include "CublasLt.h"

#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <stdexcept>

namespace tilemla::bench {
namespace {
// The part of cuBLASLt's C API used here, declared from its documented ABI:
// handles are pointers, enums are ints, status 0 is success.
using Status = int;
constexpr Status kSuccess = 0;
constexpr int kDataBF16 = 14;        // cudaDataType CUDA_R_16BF
constexpr int kDataF32 = 0;          // cudaDataType CUDA_R_32F
constexpr int kComputeF32 = 68;      // cublasComputeType_t CUBLAS_COMPUTE_32F
constexpr int kPrefMaxWorkspace = 1; // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES

/// cublasLtMatmulHeuristicResult_t: the algorithm, its workspace, a status.
struct HeuristicResult {
  uint64_t algo[8];
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};
} // namespace

struct CublasLtMatmul::Api {
  void *library = nullptr;
  Status (*create)(void **handle);
  Status (*destroy)(void *handle);
  const char *(*statusName)(Status);
  size_t (*getVersion)();
  Status (*descCreate)(void **desc, int computeType, int scaleType);
  Status (*descDestroy)(void *desc);
  Status (*layoutCreate)(void **layout, int type, uint64_t rows, uint64_t cols,
                         int64_t ld);
  Status (*layoutDestroy)(void *layout);
  Status (*prefCreate)(void **pref);
  Status (*prefDestroy)(void *pref);
  Status (*prefSetAttribute)(void *pref, int attr, const void *value,
                             size_t bytes);
  Status (*heuristic)(void *handle, void *desc, void *a, void *b, void *c,
                      void *d, void *pref, int wanted, HeuristicResult *results,
                      int *found);
  Status (*matmul)(void *handle, void *desc, const void *alpha, const void *a,
                   void *layoutA, const void *b, void *layoutB,
                   const void *beta, const void *c, void *layoutC, void *d,
                   void *layoutD, const void *algo, void *workspace,
                   size_t workspaceBytes, void *stream);

  template <typename Fn> void bind(Fn &slot, const char *name) {
    slot = reinterpret_cast<Fn>(dlsym(library, name));
    if (!slot)
      throw std::runtime_error(std::string("libcublasLt has no ") + name);
  }
  void check(Status s, const char *what) const {
    if (s != kSuccess)
      throw std::runtime_error(std::string(what) +
                               " failed: " + (statusName ? statusName(s) : "") +
                               " (" + std::to_string(s) + ")");
  }
};

CublasLtMatmul::CublasLtMatmul() : api(std::make_unique<Api>()) {
  std::string errors;
  for (const char *name : {"libcublasLt.so.13", "libcublasLt.so.12"}) {
    if ((api->library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
      break;
    const char *why = dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(why ? why : name);
  }
  if (!api->library)
    throw std::runtime_error(errors);
  api->bind(api->create, "cublasLtCreate");
  api->bind(api->destroy, "cublasLtDestroy");
  api->bind(api->statusName, "cublasLtGetStatusName");
  api->bind(api->getVersion, "cublasLtGetVersion");
  api->bind(api->descCreate, "cublasLtMatmulDescCreate");
  api->bind(api->descDestroy, "cublasLtMatmulDescDestroy");
  api->bind(api->layoutCreate, "cublasLtMatrixLayoutCreate");
  api->bind(api->layoutDestroy, "cublasLtMatrixLayoutDestroy");
  api->bind(api->prefCreate, "cublasLtMatmulPreferenceCreate");
  api->bind(api->prefDestroy, "cublasLtMatmulPreferenceDestroy");
  api->bind(api->prefSetAttribute, "cublasLtMatmulPreferenceSetAttribute");
  api->bind(api->heuristic, "cublasLtMatmulAlgoGetHeuristic");
  api->bind(api->matmul, "cublasLtMatmul");
  api->check(api->create(&handle), "cublasLtCreate");
}

CublasLtMatmul::~CublasLtMatmul() {
  releasePlan();
  if (handle)
    api->destroy(handle);
  // The library stays loaded: the CUDA runtime inside it may still hold
  // state that outlives this object.
}

void CublasLtMatmul::releasePlan() {
  for (void **layout : {&layoutA, &layoutB, &layoutC})
    if (*layout)
      api->layoutDestroy(*layout), *layout = nullptr;
  if (desc)
    api->descDestroy(desc), desc = nullptr;
}

void CublasLtMatmul::plan(int M, int N, int K, size_t maxWorkspace) {
  releasePlan();
  // cuBLASLt is column-major: a row-major [R, C] matrix is its column-major
  // [C, R]. So C^T [N, M] = B^T [N, K] @ A^T [K, M], with no transposes:
  // cuBLAS's A is our B and its B is our A.
  api->check(api->descCreate(&desc, kComputeF32, kDataF32),
             "cublasLtMatmulDescCreate");
  api->check(api->layoutCreate(&layoutA, kDataBF16, N, K, N),
             "cublasLtMatrixLayoutCreate");
  api->check(api->layoutCreate(&layoutB, kDataBF16, K, M, K),
             "cublasLtMatrixLayoutCreate");
  api->check(api->layoutCreate(&layoutC, kDataBF16, N, M, N),
             "cublasLtMatrixLayoutCreate");
  void *pref = nullptr;
  api->check(api->prefCreate(&pref), "cublasLtMatmulPreferenceCreate");
  uint64_t bytes = maxWorkspace;
  Status s =
      api->prefSetAttribute(pref, kPrefMaxWorkspace, &bytes, sizeof bytes);
  HeuristicResult result{};
  int found = 0;
  if (s == kSuccess)
    s = api->heuristic(handle, desc, layoutA, layoutB, layoutC, layoutC, pref,
                       1, &result, &found);
  api->prefDestroy(pref);
  api->check(s, "cublasLtMatmulAlgoGetHeuristic");
  if (found < 1 || result.state != kSuccess)
    throw std::runtime_error("cuBLASLt has no algorithm for this shape");
  std::memcpy(algo, result.algo, sizeof algo);
  workspaceBytes = result.workspaceSize;
}

void CublasLtMatmul::run(const void *a, const void *b, void *c,
                         void *workspace) const {
  const float alpha = 1, beta = 0;
  api->check(api->matmul(handle, desc, &alpha, b, layoutA, a, layoutB, &beta, c,
                         layoutC, c, layoutC, algo, workspace, workspaceBytes,
                         /*stream=*/nullptr),
             "cublasLtMatmul");
}

std::string CublasLtMatmul::version() const {
  return std::to_string(api->getVersion());
}
} // namespace tilemla::bench
