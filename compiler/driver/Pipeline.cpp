//===- Pipeline.cpp - dialects, passes and the pipelines between stages ---===//
#include "tilemla/Conversion/Passes.h"
#include "tilemla/Driver/Compiler.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tilemla {
void registerTileDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect>();
  func::registerInlinerExtension(registry);
}

void buildTilePipeline(OpPassManager &pm) {
  pm.addPass(tile::createTileSpecializeConstexprs());
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass()); // folds what CSE made identical
}

void buildTileGPUPipeline(OpPassManager &pm, unsigned numWarps,
                          StringRef arch) {
  bool hopper = arch == "sm_90a"; // wgmma and TMA
  tile::TileLowerDescriptorLoadsOptions descriptors;
  descriptors.numWarps = numWarps;
  descriptors.tma = hopper;
  pm.addPass(tile::createTileLowerDescriptorLoads(descriptors));
  tile::TileAssignLayoutsOptions options;
  options.numWarps = numWarps;
  options.warpgroups = hopper;
  pm.addPass(tile::createTileAssignLayouts(options));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tile::createTilePipelineLoops());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildLLVMPipeline(OpPassManager &pm, StringRef arch) {
  pm.addPass(tile::createTileAllocateShared());
  tile::ConvertTileToLLVMOptions options;
  options.arch = arch.str();
  pm.addPass(tile::createConvertTileToLLVM(options));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
struct GPUPipelineOptions : PassPipelineOptions<GPUPipelineOptions> {
  Option<unsigned> numWarps{*this, "num-warps", llvm::cl::init(4)};
  Option<std::string> arch{*this, "arch", llvm::cl::init("sm_90a")};
};
struct LLVMPipelineOptions : PassPipelineOptions<LLVMPipelineOptions> {
  Option<std::string> arch{*this, "arch", llvm::cl::init("sm_90a")};
};
} // namespace

void registerTilePasses() {
  tile::registerTileTransformsPasses();
  tile::registerTileConversionPasses();
  PassPipelineRegistration<>("tile-pipeline",
                             "tile IR cleanup: specialize, inline, fold",
                             buildTilePipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "tile-gpu-pipeline", "tile IR -> tile-gpu IR (layouts)",
      [](OpPassManager &pm, const GPUPipelineOptions &options) {
        buildTileGPUPipeline(pm, options.numWarps, options.arch);
      });
  PassPipelineRegistration<LLVMPipelineOptions>(
      "tile-llvm-pipeline", "tile-gpu IR -> LLVM dialect + NVVM",
      [](OpPassManager &pm, const LLVMPipelineOptions &options) {
        buildLLVMPipeline(pm, options.arch);
      });
}
} // namespace tilemla

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int tilemla::runTileOptMain(int argc, char **argv) {
  DialectRegistry registry;
  registerTileDialects(registry);
  registerTransformsPasses();
  registerTilePasses();
  return asMainReturnCode(MlirOptMain(
      argc, argv, "tile-opt: the tile dialect pass driver\n", registry));
}
