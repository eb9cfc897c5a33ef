//===- Pipeline.cpp - dialects, passes and the pipelines between stages ---===//
#include "tilemla/Driver/Pipeline.h"

#include "tilemla/Conversion/Passes.h"
#include "tilemla/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tilemla {
void registerTileDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect, ub::UBDialect>();
  func::registerInlinerExtension(registry);
}

void buildTilePipeline(OpPassManager &pm, ArrayRef<ArgFact> argFacts) {
  pm.addPass(tile::createTileSpecializeConstexprs());
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass()); // folds what CSE made identical
  tile::TileApplyArgFactsOptions facts;
  for (unsigned i = 0; i < argFacts.size(); ++i) {
    facts.divisibility.push_back(argFacts[i].divisibility);
    if (argFacts[i].isOne)
      facts.ones.push_back(i);
  }
  pm.addPass(tile::createTileApplyArgFacts(facts));
}

void buildTileGPUPipeline(OpPassManager &pm, unsigned numWarps,
                          const GpuTarget &target) {
  tile::TileLowerDescriptorLoadsOptions descriptors;
  descriptors.numWarps = numWarps;
  descriptors.tma = target.hasWgmma(); // TMA streams feed wgmma dots
  pm.addPass(tile::createTileLowerDescriptorLoads(descriptors));
  tile::TileAssignLayoutsOptions options;
  options.numWarps = numWarps;
  options.warpgroups = target.hasWgmma();
  options.ownNarrowDots = target.hasWgmma();
  options.fp8InPlace = target.hasFp8Conversions();
  options.fp8Dots = target.hasFp8Dots();
  pm.addPass(tile::createTileAssignLayouts(options));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  tile::TilePipelineLoopsOptions pipelining;
  pipelining.fp8InPlace = target.hasFp8Conversions();
  pm.addPass(tile::createTilePipelineLoops(pipelining));
  pm.addPass(tile::createTileWarpSpecialize());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tile::createTileSeesawPairs());
  pm.addPass(tile::createTilePredicateWarpgroups());
  pm.addPass(tile::createTileSeesawHandoffs());
  pm.addPass(tile::createTileSplitRoles());
  pm.addPass(createCanonicalizerPass());
}

void buildLLVMPipeline(OpPassManager &pm, const GpuTarget &target) {
  pm.addPass(tile::createTilePlaceDotWaits());
  tile::TileAllocateSharedOptions shared;
  shared.arch = target.name();
  pm.addPass(tile::createTileAllocateShared(shared));
  pm.addPass(tile::createTileElideScratchBarriers());
  pm.addPass(tile::createTileSplitWarpgroups());
  tile::ConvertTileToLLVMOptions options;
  options.arch = target.name();
  pm.addPass(tile::createConvertTileToLLVM(options));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildInterpreterPipeline(OpPassManager &pm, ArrayRef<ArgFact> argFacts) {
  buildTilePipeline(pm, argFacts);
  // The interpreter reads descriptors through their fields.
  pm.addPass(tile::createTileLowerDescriptorLoads());
}

namespace {
struct GPUPipelineOptions : PassPipelineOptions<GPUPipelineOptions> {
  Option<unsigned> numWarps{*this, "num-warps", llvm::cl::init(4)};
  Option<std::string> arch{*this, "arch", llvm::cl::init(GpuTarget().name())};
};
struct LLVMPipelineOptions : PassPipelineOptions<LLVMPipelineOptions> {
  Option<std::string> arch{*this, "arch", llvm::cl::init(GpuTarget().name())};
};

using ErrorHandler = function_ref<LogicalResult(const Twine &)>;

/// Registers a pipeline whose options name a target: an unknown one is an
/// error of the pipeline's parser, like any malformed option.
template <typename Options>
void registerTargetPipeline(
    StringRef name, StringRef description,
    std::function<void(OpPassManager &, const Options &, const GpuTarget &)>
        build) {
  registerPassPipeline(
      name, description,
      [build](OpPassManager &pm, StringRef text, ErrorHandler error) {
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::optional<GpuTarget> target = GpuTarget::parse(options.arch);
        if (!target)
          return error("unknown target architecture '" + options.arch +
                       "' (known: " + GpuTarget::knownNames() + ")");
        build(pm, options, *target);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> print) {
        print(Options());
      });
}
} // namespace

void registerTilePasses() {
  tile::registerTileTransformsPasses();
  tile::registerTileConversionPasses();
  PassPipelineRegistration<>("tile-pipeline",
                             "tile IR cleanup: specialize, inline, fold",
                             [](OpPassManager &pm) { buildTilePipeline(pm); });
  PassPipelineRegistration<>(
      "tile-interpreter-pipeline",
      "source IR -> the tile IR the interpreter runs",
      [](OpPassManager &pm) { buildInterpreterPipeline(pm, {}); });
  registerTargetPipeline<GPUPipelineOptions>(
      "tile-gpu-pipeline", "tile IR -> tile-gpu IR (layouts)",
      [](OpPassManager &pm, const GPUPipelineOptions &options,
         const GpuTarget &target) {
        buildTileGPUPipeline(pm, options.numWarps, target);
      });
  registerTargetPipeline<LLVMPipelineOptions>(
      "tile-llvm-pipeline", "tile-gpu IR -> LLVM dialect + NVVM",
      [](OpPassManager &pm, const LLVMPipelineOptions &,
         const GpuTarget &target) { buildLLVMPipeline(pm, target); });
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
