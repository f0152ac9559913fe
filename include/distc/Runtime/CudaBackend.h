//===- CudaBackend.h - Tensors and kernels on a CUDA device -----*- C++ -*-===//
//
// The CUDA backend runs a Session on one CUDA device:
//
//   std::string error;
//   std::unique_ptr<Backend> cuda = createCudaBackend(localRank, error);
//   if (!cuda) { ... error: "no CUDA device: ..." ... }
//   auto session = Session::create(std::move(artifact), std::move(cuda), error);
//
// Memory: every tensor is CUDA managed memory (cudaMallocManaged), which
// the device and the host both address. Kernels with a device
// implementation run on the device (see cudaDeviceKernels()); every other
// kernel of the CPU backend runs on the host over the same memory after the
// device has finished the work queued before it, so an artifact runs whole
// on this backend and computes what the CPU backend computes (up to the
// rounding of the device GEMMs). Device work is queued in program order on
// CUDA's legacy default stream; NCCL's collectives, on a blocking stream
// of their own, are ordered with it.
//
// Requirements: a device with concurrent managed access (Linux, Pascal or
// newer), for the host may touch managed memory while the device runs;
// cuBLAS (libcublas.so.13), loaded when the backend is created, so that
// dist-run starts without it on machines that only run the CPU backend.
//
// Built when a CUDA toolkit is found (DISTC_HAVE_CUDA_BACKEND is 1);
// otherwise createCudaBackend fails, saying so. Callers need no #if.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_CUDABACKEND_H
#define DISTC_RUNTIME_CUDABACKEND_H

#include "distc/Runtime/Backend.h"

#include <memory>
#include <string>
#include <vector>

namespace distc::runtime {

/// The CUDA backend on device `ordinal` (CUDA_VISIBLE_DEVICES applies), or
/// null with `error` naming the device and the cause: no device or driver,
/// an ordinal out of range, no concurrent managed access, no cuBLAS, or a
/// build without CUDA.
std::unique_ptr<Backend> createCudaBackend(int ordinal, std::string &error);

/// Whether this build has the CUDA backend.
bool cudaBackendBuilt();

/// The kernels the CUDA backend runs on the device; the others run on the
/// host through managed memory.
std::vector<std::string> cudaDeviceKernels();

} // namespace distc::runtime

#endif // DISTC_RUNTIME_CUDABACKEND_H
