# The MLIR/LLVM libraries libtilemla needs. In the dev build they resolve to
# Debian's libMLIR.so/libLLVM.so; the portable build swaps them for archives.
set(TILEMLA_MLIR_LIBS
  MLIRIR MLIRParser MLIRPass MLIRSupport MLIRTransforms MLIRTransformUtils
  MLIRFuncDialect MLIRArithDialect MLIRMathDialect MLIRSCFDialect
  MLIRControlFlowDialect MLIRLLVMDialect MLIRNVVMDialect MLIRGPUDialect
  MLIRFuncToLLVM MLIRArithToLLVM MLIRMathToLLVM MLIRSCFToControlFlow
  MLIRControlFlowToLLVM MLIRIndexToLLVM MLIRNVVMToLLVM
  MLIRReconcileUnrealizedCasts MLIRUBDialect
  MLIRFuncInlinerExtension MLIRFuncTransforms MLIRSCFTransforms
  MLIRTargetLLVMIRExport MLIRLLVMToLLVMIRTranslation
  MLIRNVVMToLLVMIRTranslation MLIRBuiltinToLLVMIRTranslation
  MLIROptLib)
set(TILEMLA_LLVM_COMPONENTS
  Core Support Passes Target NVPTXCodeGen NVPTXDesc NVPTXInfo MC IRReader)

function(tilemla_link_llvm target)
  if(TILEMLA_PORTABLE)
    tilemla_link_llvm_static(${target})
  else()
    target_link_libraries(${target} PUBLIC MLIR LLVM)
  endif()
endfunction()
