//===- tile-opt.cpp - pass driver for lit tests ---------------------------===//
#include "tilemla/Driver/Compiler.h"

int main(int argc, char **argv) { return tilemla::runTileOptMain(argc, argv); }
