//===- tile-opt.cpp - pass driver for lit tests ---------------------------===//
#include "tilemla/Driver/Pipeline.h"

int main(int argc, char **argv) { return tilemla::runTileOptMain(argc, argv); }
