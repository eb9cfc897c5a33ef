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
    # Tools and tests in this tree call LLVM/MLIR themselves; an install's
    # users see only the public API, and libtilemla finds the shared
    # libraries through its RUNPATH (cmake/Package.cmake).
    target_link_libraries(${target} PUBLIC $<BUILD_INTERFACE:MLIR>
                                           $<BUILD_INTERFACE:LLVM>)
  endif()
endfunction()
