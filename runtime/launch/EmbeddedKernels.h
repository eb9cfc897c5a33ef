//===- EmbeddedKernels.h - kernel sources compiled into the library -------===//
#ifndef TILEMLA_RUNTIME_EMBEDDEDKERNELS_H
#define TILEMLA_RUNTIME_EMBEDDEDKERNELS_H

#include <vector>

namespace tilemla {
struct EmbeddedKernel {
  const char *name;   ///< path under kernels/ without ".tile"
  const char *source; ///< the file's text
};
/// Generated at build time from kernels/**/*.tile.
const std::vector<EmbeddedKernel> &embeddedKernels();
} // namespace tilemla

#endif
