//===- TileToLLVMPass.cpp - tile-gpu IR -> LLVM + NVVM --------------------===//
//
// Three steps: (1) tile ops and tensor-typed ops become per-thread code on
// LLVM structs, loops and branches keep their structure with struct types;
// (2) scf becomes cf; (3) the remaining scalar arith/math/cf/func ops become
// LLVM with the standard patterns plus NVVM special functions.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Conversion/AccessWidth.h"
#include "tilemla/Conversion/Passes.h"
#include "tilemla/Conversion/Utility.h"
#include "tilemla/Support/TensorDescriptorABI.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "tilemla/Conversion/Passes.h.inc"

namespace {
struct ConvertTileToLLVMPass
    : impl::ConvertTileToLLVMBase<ConvertTileToLLVMPass> {
  using ConvertTileToLLVMBase::ConvertTileToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<tilemla::GpuTarget> gpu = parseTargetOption(module, arch);
    if (!gpu)
      return signalPassFailure();
    TargetInfo target(*gpu);
    annotateAccessWidths(module);
    SmallVector<KernelShape> kernels;
    module.walk([&](func::FuncOp func) {
      if (func->hasAttr(TileDialect::KernelAttrHelper::getNameStr()))
        kernels.push_back(
            {func.getName().str(), programThreads(func), setsRegisters(func)});
      passDescriptorsByValue(func);
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        func.removeArgAttr(i,
                           TileDialect::DivisibilityAttrHelper::getNameStr());
    });
    if (failed(lowerTensors(target)) || failed(lowerStructuredControlFlow()) ||
        failed(lowerToLLVM()) || failed(lowerPtxOnlyOps()))
      return signalPassFailure();
    markKernels(kernels);
  }

private:
  LogicalResult lowerTensors(const TargetInfo &target) {
    MLIRContext *context = &getContext();
    TileLLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    populateProgramIdOpToLLVMPatterns(converter, target, patterns);
    populateMakeRangeOpToLLVMPatterns(converter, patterns);
    populateViewOpToLLVMPatterns(converter, patterns);
    populateLoadStoreOpToLLVMPatterns(converter, patterns);
    populateAtomicOpToLLVMPatterns(converter, target, patterns);
    populateElementwiseOpToLLVMPatterns(converter, patterns);
    populateFp8ConvertOpToLLVMPatterns(converter, target, patterns);
    populateReduceOpToLLVMPatterns(converter, target, patterns);
    populateScanOpToLLVMPatterns(converter, target, patterns);
    populateConvertLayoutOpToLLVMPatterns(converter, target, patterns);
    populateDotOpToLLVMPatterns(converter, target, patterns);
    populateMmaDotOpToLLVMPatterns(converter, target, patterns);
    populateWgmmaDotOpToLLVMPatterns(converter, target, patterns);
    populateSharedMemoryOpToLLVMPatterns(converter, target, patterns);
    populateTmaOpToLLVMPatterns(converter, target, patterns);
    populateWarpgroupOpToLLVMPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    ConversionTarget legality(*context);
    legality.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    legality.addIllegalDialect<TileDialect, ub::UBDialect>();
    // Its regions' ops are lowered in place (their barriers and TMA issuers
    // depend on the side they run on); the op goes with structured control,
    // and so do the warp roles' register counts.
    legality.addLegalOp<WarpSpecializeOp, SetMaxRegistersOp>();
    legality.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect,
                                        func::FuncDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    legality.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType());
    });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         legality);
    return applyPartialConversion(getOperation(), legality,
                                  std::move(patterns));
  }

  LogicalResult lowerStructuredControlFlow() {
    // Warp splits first, each a plain rewrite (no folding, nothing else
    // touched): the branch they become is then lowered with the rest.
    RewritePatternSet splits(&getContext());
    populateWarpSpecializeOpToLLVMPatterns(splits);
    walkAndApplyPatterns(getOperation(), std::move(splits));
    RewritePatternSet patterns(&getContext());
    populateSCFToControlFlowConversionPatterns(patterns);
    ConversionTarget legality(getContext());
    legality.addIllegalDialect<scf::SCFDialect>();
    legality.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    return applyPartialConversion(getOperation(), legality,
                                  std::move(patterns));
  }

  LogicalResult lowerToLLVM() {
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    converter.addConversion([context](Float8E4M3FNType type) {
      return IntegerType::get(context, 8);
    });
    converter.addConversion([context](Float8E5M2Type type) {
      return IntegerType::get(context, 8);
    });
    RewritePatternSet patterns(context);
    populateMathToNVVMPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget legality(*context);
    legality.addLegalDialect<NVVM::NVVMDialect>();
    legality.addLegalOp<UnrealizedConversionCastOp>();
    return applyPartialConversion(getOperation(), legality,
                                  std::move(patterns));
  }

  /// NVVM ops without an LLVM intrinsic (wgmma.mma_async) become the
  /// inline PTX the NVVM dialect defines for them.
  LogicalResult lowerPtxOnlyOps() {
    RewritePatternSet patterns(&getContext());
    populateNVVMToLLVMConversionPatterns(patterns);
    ConversionTarget legality(getContext());
    legality.addLegalDialect<LLVM::LLVMDialect>();
    legality.addDynamicallyLegalDialect<NVVM::NVVMDialect>([](Operation *op) {
      auto ptx = dyn_cast<NVVM::BasicPtxBuilderInterface>(op);
      return !ptx || ptx.hasIntrinsic();
    });
    return applyPartialConversion(getOperation(), legality,
                                  std::move(patterns));
  }

  /// A tensor-descriptor parameter is a by-value block in the parameter
  /// space; `nvvm.grid_constant` lets its address (which TMA reads the
  /// tensor map from) be taken without a copy to local memory.
  void passDescriptorsByValue(func::FuncOp func) {
    Builder b(&getContext());
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      if (!isa<TensorDescType>(func.getArgument(i).getType()))
        continue;
      func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          b.getI8Type(), tilemla::kTensorDescBytes)));
      func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(tilemla::kTensorDescAlign));
      func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
    }
  }

  /// What markKernels needs of a kernel once its function is lowered.
  struct KernelShape {
    std::string name;
    int32_t threads;
    bool setsRegisters; // setmaxnreg: a producer warpgroup, or warp roles
  };

  static bool setsRegisters(func::FuncOp func) {
    bool sets = false;
    func.walk([&](WarpSpecializeOp op) { sets |= op.getProducerWarps() > 0; });
    func.walk([&](SetMaxRegistersOp) { sets = true; });
    return sets;
  }

  /// The program's warps, and the score and producer warps of a warp split.
  static int32_t programThreads(func::FuncOp func) {
    int32_t threads = getProgramWarps(func) * kWarpSize;
    func.walk([&](WarpSpecializeOp split) {
      WarpPartition producers = getPartitionThreads(split, /*producer=*/true);
      threads = producers.first + producers.threads;
    });
    return threads;
  }

  /// Kernels become PTX entry points sized for their threads.
  void markKernels(ArrayRef<KernelShape> kernels) {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    for (const auto &[name, threads, setsRegisters] : kernels) {
      auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!func)
        continue;
      func->removeAttr(TileDialect::KernelAttrHelper::getNameStr());
      func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                    builder.getUnitAttr());
      func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                    builder.getDenseI32ArrayAttr({threads, 1, 1}));
      // ptxas honors setmaxnreg only when it knows the registers a thread
      // has at entry, i.e. with both launch bounds; without the minimum it
      // drops the instructions and sizes every warp for maxntid alone.
      if (setsRegisters)
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      builder.getI32IntegerAttr(1));
    }
  }
};
} // namespace
} // namespace mlir::tile
