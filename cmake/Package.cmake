# What `cmake --install` gives a C++ user of libtilemla (lib/ stands for
# CMAKE_INSTALL_LIBDIR, GNUInstallDirs' choice for the prefix):
#
#   lib/libtilemla.so.0.1.0        soname libtilemla.so.0.1, and the links
#   lib/libtilemla.so.0.1,         a loader and a linker look for
#   lib/libtilemla.so
#   include/tilemla/...            the public headers (below)
#   lib/cmake/tilemla/             find_package(tilemla CONFIG) -> tilemla::tilemla
#   lib/pkgconfig/tilemla.pc       pkg-config --cflags --libs tilemla
#
# A consumer needs neither LLVM/MLIR nor fmt to build: the public headers are
# standard C++ and the exported target links libtilemla.so alone (the dev
# build's libtilemla finds Debian's libLLVM/libMLIR through its RUNPATH, the
# portable one carries them inside). tests/install builds and runs a consumer
# of both files against an install (scripts/test-install.sh).
include(CMakePackageConfigHelpers)

set(TILEMLA_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
set(TILEMLA_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(TILEMLA_INSTALL_CMAKEDIR ${TILEMLA_INSTALL_LIBDIR}/cmake/tilemla)
set(TILEMLA_INSTALL_PKGCONFIGDIR ${TILEMLA_INSTALL_LIBDIR}/pkgconfig)

# The public API: Runtime.h and the MLA API, and what they include from the
# project (Export.h, Support/GpuTarget.h). None of them includes LLVM, MLIR or
# fmt; a header added to this closure must be added here too (the consumer
# test fails otherwise).
install(FILES ${PROJECT_SOURCE_DIR}/compiler/include/tilemla/Export.h
              ${PROJECT_SOURCE_DIR}/runtime/include/tilemla/Runtime.h
        DESTINATION ${TILEMLA_INSTALL_INCLUDEDIR}/tilemla)
# The C ABI: C, over DLPack's dlpack.h (Debian's libdlpack-dev; a C user
# brings their own copy of that header, as every DLPack user does).
install(FILES ${PROJECT_SOURCE_DIR}/runtime/capi/include/tilemla/tilemla_c.h
        DESTINATION ${TILEMLA_INSTALL_INCLUDEDIR}/tilemla)
install(FILES ${PROJECT_SOURCE_DIR}/compiler/include/tilemla/Support/GpuTarget.h
        DESTINATION ${TILEMLA_INSTALL_INCLUDEDIR}/tilemla/Support)
install(FILES ${PROJECT_SOURCE_DIR}/kernels/mla/include/tilemla/mla/TritonMLA.h
              ${PROJECT_SOURCE_DIR}/kernels/mla/include/tilemla/mla/TritonMLAOptions.h
              ${PROJECT_SOURCE_DIR}/kernels/mla/include/tilemla/mla/DecodeSchedule.h
              ${PROJECT_SOURCE_DIR}/kernels/mla/include/tilemla/mla/SplitPolicy.h
        DESTINATION ${TILEMLA_INSTALL_INCLUDEDIR}/tilemla/mla)

# The public headers need C++17 (std::optional, nested namespaces).
target_compile_features(tilemla PUBLIC cxx_std_17)
target_include_directories(tilemla INTERFACE
  $<INSTALL_INTERFACE:${TILEMLA_INSTALL_INCLUDEDIR}>)
if(NOT TILEMLA_PORTABLE)
  # The installed library keeps the path to Debian's libLLVM/libMLIR (not in
  # the loader's default folders), which also lets a consumer's link
  # resolve them.
  set_target_properties(tilemla PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
endif()

if(NOT TILEMLA_PYTHON)
  # 0.x: a new minor version may break the ABI, so the soname carries it.
  # The Python build keeps the plain name: a wheel holds no symbolic links,
  # and the extension loads the library beside it.
  set_target_properties(tilemla PROPERTIES
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
endif()

install(TARGETS tilemla EXPORT tilemlaTargets
        LIBRARY DESTINATION ${TILEMLA_INSTALL_LIBDIR})
install(EXPORT tilemlaTargets NAMESPACE tilemla::
        DESTINATION ${TILEMLA_INSTALL_CMAKEDIR})

set(package_dir ${PROJECT_BINARY_DIR}/package)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilemlaConfig.cmake.in
  ${package_dir}/tilemlaConfig.cmake
  INSTALL_DESTINATION ${TILEMLA_INSTALL_CMAKEDIR})
# 0.x: a new minor version may break the API.
write_basic_package_version_file(${package_dir}/tilemlaConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${package_dir}/tilemlaConfig.cmake
              ${package_dir}/tilemlaConfigVersion.cmake
        DESTINATION ${TILEMLA_INSTALL_CMAKEDIR})

# tilemla.pc finds the prefix from its own folder, so the install can move.
file(RELATIVE_PATH TILEMLA_PC_TO_PREFIX
     /prefix/${TILEMLA_INSTALL_PKGCONFIGDIR} /prefix)
string(REGEX REPLACE "/$" "" TILEMLA_PC_TO_PREFIX "${TILEMLA_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/tilemla.pc.in
               ${package_dir}/tilemla.pc @ONLY)
install(FILES ${package_dir}/tilemla.pc
        DESTINATION ${TILEMLA_INSTALL_PKGCONFIGDIR})
