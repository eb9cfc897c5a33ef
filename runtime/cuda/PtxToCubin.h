//===- PtxToCubin.h - assemble PTX with nvJitLink ---------------*- C++ -*-===//
#ifndef TILEMLA_RUNTIME_PTXTOCUBIN_H
#define TILEMLA_RUNTIME_PTXTOCUBIN_H

#include <optional>
#include <string>

namespace tilemla::cuda {
/// A cubin and what the assembler said about it (ptxas' remarks, e.g.
/// "Potential Performance Loss: wgmma.mma_async instructions are
/// serialized ..."; empty when it said nothing).
struct AssembledCubin {
  std::string cubin;
  std::string log;
};

/// Assembles `ptx` for `arch` into a cubin with nvJitLink (loaded with
/// dlopen). Returns nullopt when nvJitLink is not installed: the driver then
/// JIT-compiles the PTX itself. Throws tilemla::Error if nvJitLink rejects
/// the PTX, with its error log.
std::optional<AssembledCubin> assembleCubin(const std::string &ptx,
                                            const std::string &arch,
                                            const std::string &kernelName);
} // namespace tilemla::cuda

#endif
