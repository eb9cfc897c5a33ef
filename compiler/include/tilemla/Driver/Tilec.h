//===- Tilec.h - tilec's command line ---------------------------*- C++ -*-===//
#ifndef TILEMLA_DRIVER_TILEC_H
#define TILEMLA_DRIVER_TILEC_H

#include "tilemla/Export.h"

namespace tilemla {
/// tilec's main: parses `argv` with llvm::cl and compiles one tile file to
/// the stage --emit names. It lives in libtilemla because the portable build
/// hides LLVM inside the library, out of the tools' reach.
///
/// A tool's main, not a library call: it registers its options in LLVM's
/// process-wide option registry for the duration of the call, hides every
/// other option from --help, applies -mllvm flags to LLVM for the rest of
/// the process, and exits the process after --help or --version. Returns
/// the exit status (0, or 1 after a usage or compile error).
TILEMLA_API int runTilecMain(int argc, char **argv);
} // namespace tilemla

#endif
