# The portable build (TILEMLA_PORTABLE=ON, preset `portable`).
#
# libtilemla.so links the static MLIR/LLVM archives, static zlib/zstd and
# libstdc++ statically; everything but tilemla's public API (TILEMLA_API,
# compiler/include/tilemla/Export.h) is hidden. The result depends only on
# glibc (>= 2.36) and libgcc_s.so.1, so the install folder runs on machines
# without LLVM:
#   install/bin/tilec   install/lib/libtilemla.so*  (RPATH $ORIGIN/../lib)
#
# Traps (see shared/design/ARCHITECTURE.md, "Two builds of the same code"):
# - Debian's static MLIR targets list the *shared* `LLVM` target as a
#   dependency: it is swapped here for the static component archives. The
#   shared `MLIR` target must never appear next to libMLIR*.a.
# - LLVMSupport wants zstd::libzstd_shared, ZLIB::ZLIB (libz.so) and
#   libz3.so: swapped for libzstd.a and libz.a; Z3 is dropped (only
#   llvm::CreateZ3Solver uses it, which nothing here calls).
# - add_llvm_executable would re-add libLLVM.so: tools are plain
#   add_executable targets.

# Compile every target in this build (libtilemla's components and the tools)
# with hidden visibility. LLVM_BUILD_STATIC turns LLVM's LLVM_ABI export
# annotations off, so LLVM templates instantiated in our objects stay hidden
# too; tools that include LLVM headers must not reference the ABI-check
# symbol inside libtilemla (it is hidden there).
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
add_compile_definitions(LLVM_BUILD_STATIC
                        LLVM_DISABLE_ABI_BREAKING_CHECKS_ENFORCING=1)
add_compile_options(-ffunction-sections -fdata-sections)

# Executables and the library each carry their own (hidden) copy of
# libstdc++. The unwinder must NOT be duplicated: libtilemla's API throws
# (tilemla::Error), and an exception raised by one static copy of libgcc_eh
# and caught through another aborts in _Unwind_SetGR. So libgcc stays shared:
# libgcc_s.so.1 (GCC_3.x symbol versions) is part of every glibc system --
# glibc itself loads it for pthread_cancel -- and manylinux allows it.
add_link_options(-static-libstdc++)

# bin/ finds the library folder through CMAKE_INSTALL_RPATH ($ORIGIN/../lib
# with the default prefix; both builds).
set(CMAKE_BUILD_WITH_INSTALL_RPATH OFF)
# `cmake --install build-portable` strips what it installs (as --strip does):
# the install folder is what travels to the GPU machine. This rule comes
# before every other install rule (CMP0082), so it applies to all of them.
install(CODE "set(CMAKE_INSTALL_DO_STRIP TRUE)")
set(LLVM_LINK_LLVM_DYLIB OFF)

# LLVM components the MLIR archives need. Debian's export collapses each MLIR
# library's LLVM_LINK_COMPONENTS into the shared `LLVM` target, so the list
# is restated here (found with -Wl,--no-undefined).
set(TILEMLA_MLIR_LLVM_COMPONENTS
  Core Support Demangle TargetParser BinaryFormat AsmParser BitReader
  BitWriter IRReader TransformUtils Analysis FrontendOpenMP FrontendOffloading
  Passes MC Target)

find_library(TILEMLA_ZSTD_STATIC NAMES libzstd.a REQUIRED)
find_library(TILEMLA_ZLIB_STATIC NAMES libz.a REQUIRED)

# Rewrites the INTERFACE_LINK_LIBRARIES of the imported static MLIR/LLVM
# targets reachable from ${ARGN}: `LLVM` -> static component archives,
# shared zstd/zlib -> static archives, Z3 dropped, `MLIR` refused.
function(_tilemla_make_static llvm_libs)
  set(todo ${ARGN})
  set(seen)
  while(todo)
    list(POP_FRONT todo lib)
    if(lib IN_LIST seen OR NOT TARGET ${lib})
      continue()
    endif()
    list(APPEND seen ${lib})
    get_target_property(type ${lib} TYPE)
    if(type STREQUAL "SHARED_LIBRARY" AND lib MATCHES "^(LLVM|MLIR)$")
      message(FATAL_ERROR "portable: ${lib} (shared) reached the link")
    endif()
    get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
    if(NOT deps)
      continue()
    endif()
    set(new_deps)
    foreach(dep IN LISTS deps)
      # Exported deps are either NAME or $<LINK_ONLY:NAME>.
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" name "${dep}")
      if(name STREQUAL "LLVM")
        list(APPEND new_deps ${llvm_libs})
      elseif(name STREQUAL "MLIR")
        message(FATAL_ERROR "portable: ${lib} depends on libMLIR.so")
      elseif(name STREQUAL "zstd::libzstd_shared")
        list(APPEND new_deps ${TILEMLA_ZSTD_STATIC})
      elseif(name STREQUAL "ZLIB::ZLIB")
        list(APPEND new_deps ${TILEMLA_ZLIB_STATIC})
      elseif(name MATCHES "libz3")
        # dropped
      else()
        list(APPEND new_deps ${dep})
        list(APPEND todo ${name})
      endif()
    endforeach()
    set_property(TARGET ${lib} PROPERTY INTERFACE_LINK_LIBRARIES "${new_deps}")
  endwhile()
endfunction()

function(tilemla_link_llvm_static target)
  llvm_map_components_to_libnames(llvm_libs
    ${TILEMLA_LLVM_COMPONENTS} ${TILEMLA_MLIR_LLVM_COMPONENTS})
  list(REMOVE_DUPLICATES llvm_libs)
  _tilemla_make_static("${llvm_libs}" ${TILEMLA_MLIR_LIBS} ${llvm_libs})
  target_link_libraries(${target} PRIVATE ${TILEMLA_MLIR_LIBS} ${llvm_libs})

  # Only TILEMLA_API symbols leave the library: the archives' symbols are
  # hidden by --exclude-libs, our own objects by -fvisibility=hidden.
  # --no-undefined turns a missing LLVM component into a link error instead
  # of a failure at load time on the GPU machine; --gc-sections drops the
  # parts of the archives nothing reaches.
  # The version script is the last word: only tilemla's namespace (and a
  # future C ABI, tilemla_*) is exported, not even the std:: templates our
  # objects instantiate (each binary keeps its own static libstdc++).
  set(script ${CMAKE_BINARY_DIR}/tilemla.map)
  file(WRITE ${script} [=[
{
  global:
    extern "C++" {
      tilemla::*;
      typeinfo?for?tilemla::*;
      typeinfo?name?for?tilemla::*;
      vtable?for?tilemla::*;
    };
    tilemla_*;
  local: *;
};
]=])
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${script})
  target_link_options(${target} PRIVATE
    -Wl,--version-script=${script}
    -Wl,--exclude-libs,ALL
    -Wl,--no-undefined
    -Wl,--gc-sections
    -Wl,--as-needed)
  # The library needs nothing but glibc: no RPATH.
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "")
endfunction()
