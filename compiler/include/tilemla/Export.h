//===- Export.h - Visibility of libtilemla's public API ---------*- C++ -*-===//
//
// The portable build compiles libtilemla with -fvisibility=hidden and links
// LLVM/MLIR into it statically with their symbols hidden, so only what is
// marked TILEMLA_API is exported from libtilemla.so. Tools and tests may call
// only those functions and classes (in the portable build; the dev build
// exports everything).
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_EXPORT_H
#define TILEMLA_EXPORT_H

#if defined(_WIN32)
#define TILEMLA_API
#else
#define TILEMLA_API __attribute__((visibility("default")))
#endif

#endif // TILEMLA_EXPORT_H
