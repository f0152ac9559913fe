# MLIR 22 from Debian (/usr/lib/llvm-22). We link the shared libMLIR.so /
# libLLVM.so: links take about a second and binaries stay small; the price is
# ~20 ms of extra start-up per tool invocation, which lit tests can afford.

if(NOT MLIR_DIR AND EXISTS /usr/lib/llvm-22/lib/cmake/mlir)
  set(MLIR_DIR /usr/lib/llvm-22/lib/cmake/mlir)
endif()
find_package(MLIR REQUIRED CONFIG)
message(STATUS "distc: MLIR from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(DISTC_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${DISTC_LLVM_DEFINITIONS})

if(NOT LLVM_EXTERNAL_LIT)
  set(LLVM_EXTERNAL_LIT ${LLVM_TOOLS_BINARY_DIR}/lit)
endif()
set(DISTC_MLIR_LIBS MLIR LLVM)

# Adds a compiler-side static library linked against MLIR. Debian's LLVM has
# RTTI on and exceptions off; plain targets may still use exceptions (the
# JSON and protobuf layers do) and link MLIR.
function(distc_add_compiler_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK} ${DISTC_MLIR_LIBS})
endfunction()

# Runs TableGen into `out`, an absolute path in the build tree's include/
# (generated headers live there under their include spelling). LLVM's
# tablegen() takes the output relative to the current binary directory: an
# absolute one names an output that never exists, and ninja would run the
# generator again on every build.
function(distc_tablegen project out)
  file(RELATIVE_PATH rel ${CMAKE_CURRENT_BINARY_DIR} ${out})
  tablegen(${project} ${rel} ${ARGN})
  set(TABLEGEN_OUTPUT ${TABLEGEN_OUTPUT} PARENT_SCOPE)
endfunction()
