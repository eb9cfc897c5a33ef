//===- PreparedLaunch.h - one launch, checked and marshalled ----*- C++ -*-===//
//
// What Kernel::launch hands the driver, kept apart so that LaunchGraph can
// put the same launch into a CUDA graph node instead.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_RUNTIME_PREPAREDLAUNCH_H
#define TILEMLA_RUNTIME_PREPAREDLAUNCH_H

#include "../cuda/CudaDriver.h"
#include "TensorDescriptor.h"

#include <string>

namespace tilemla::launch {
/// A launch whose arguments were checked against the kernel's signature:
/// params point at the caller's KernelArgs and at descs (so it is not
/// copied once filled).
struct PreparedLaunch {
  static constexpr size_t kMaxParams = 64;
  const std::string *name = nullptr; ///< the kernel's, for errors
  cuda::CUfunction function = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned threads = 0, sharedBytes = 0;
  /// A programmatic dependent of the launch before it (sm_90+).
  bool dependent = false;
  void *params[kMaxParams]; // the first (argument count) are set
  TensorDescBlock descs[kMaxTensorParams];

  PreparedLaunch() = default;
  PreparedLaunch(const PreparedLaunch &) = delete;
  PreparedLaunch &operator=(const PreparedLaunch &) = delete;

  /// cuLaunchKernelEx (dependent) or cuLaunchKernel on `stream`.
  void issue(cuda::CUstream stream) const;
  /// The same launch as a graph kernel node's parameters.
  cuda::CUDA_KERNEL_NODE_PARAMS_v2 nodeParams() const;
};
} // namespace tilemla::launch

#endif // TILEMLA_RUNTIME_PREPAREDLAUNCH_H
