# Third-party dependencies shared by the runtime and the compiler. All come
# from Debian packages installed by utils/setup-deps.sh.

find_package(FlatBuffers CONFIG REQUIRED)
find_program(DISTC_FLATC flatc REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()
find_package(Threads REQUIRED)

# BLAS for GEMM. OpenBLAS's pthread flavour is what Debian installs by default.
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
find_path(DISTC_CBLAS_INCLUDE_DIR cblas.h PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include REQUIRED)

if(DISTC_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# CUDA is optional: detected and reported, never required.
set(DISTC_HAVE_CUDA OFF)
if(DISTC_ENABLE_CUDA)
  if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    set(DISTC_HAVE_CUDA ON)
    find_path(DISTC_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${NCCL_ROOT}/include)
    # libnccl.so.2: NCCL's Python wheel (nvidia-nccl-cu13) ships no unversioned name.
    find_library(DISTC_NCCL_LIBRARY NAMES nccl libnccl.so.2
      HINTS ${CUDAToolkit_LIBRARY_DIR} ${NCCL_ROOT}/lib)
  endif()
endif()
if(DISTC_HAVE_CUDA)
  message(STATUS "distc: CUDA ${CUDAToolkit_VERSION} found (${CUDAToolkit_BIN_DIR}); NCCL: ${DISTC_NCCL_LIBRARY}")
else()
  message(STATUS "distc: CUDA not found; building the CPU backend only")
endif()

# Compiles a FlatBuffers schema into a header under the build tree.
function(distc_flatbuffers_header target schema)
  get_filename_component(name ${schema} NAME_WE)
  set(out_dir ${DISTC_BINARY_DIR}/include/distc/Artifact)
  set(header ${out_dir}/${name}_generated.h)
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${DISTC_FLATC} --cpp --scoped-enums -o ${out_dir} ${schema}
    DEPENDS ${schema}
    COMMENT "Generating ${name}_generated.h")
  add_custom_target(${target} DEPENDS ${header})
endfunction()
