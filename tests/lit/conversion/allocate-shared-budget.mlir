// -tile-allocate-shared refuses a kernel that needs more shared memory than
// its target allows one program (227 KB on sm_90a, 163 KB on sm_80), naming
// the kernel and the bytes; an unknown target is an error too.
// RUN: tile-opt %s -tile-allocate-shared | FileCheck %s --check-prefix=HOPPER
// RUN: not tile-opt %s -tile-allocate-shared=arch=sm_80 2>&1 | FileCheck %s --check-prefix=AMPERE
// RUN: not tile-opt %s -tile-allocate-shared=arch=sm_99 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s -tile-llvm-pipeline=arch=sm_99 2>&1 | FileCheck %s --check-prefix=PIPELINE

// Two stages of 256 rows of 192 bf16 (rows padded to 200 for ldmatrix).
// HOPPER: module attributes {tile.shared = 204800 : i32}
// AMPERE: error: kernel 'stages' needs 204800 bytes of shared memory; sm_80 allows 166912 per program (use smaller tiles or fewer pipeline stages)
// UNKNOWN: error: unknown target architecture 'sm_99' (known: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_103, sm_110, sm_120, sm_121)
// PIPELINE: unknown target architecture 'sm_99' (known: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_103, sm_110, sm_120, sm_121)
func.func @stages() attributes {tile.kernel} {
  %buffer = tile.local_alloc -> <2 x 256 x 192 x bf16>
  return
}
