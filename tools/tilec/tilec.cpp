//===- tilec.cpp - compile a tile kernel and print any stage --------------===//
// The command line is parsed in libtilemla (runTilecMain), where LLVM's
// llvm::cl lives: the portable build hides LLVM from the tools.
#include "tilemla/Driver/Tilec.h"

int main(int argc, char **argv) { return tilemla::runTilecMain(argc, argv); }
