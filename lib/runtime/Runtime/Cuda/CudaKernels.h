//===- CudaKernels.h - The CUDA backend's device kernels --------*- C++ -*-===//

#ifndef DISTC_LIB_RUNTIME_CUDA_CUDAKERNELS_H
#define DISTC_LIB_RUNTIME_CUDA_CUDAKERNELS_H

#include "CudaDevice.h"
#include "distc/Runtime/Kernel.h"

namespace distc::runtime::cuda {

/// The device of the CUDA backend the call runs on; fails the call when it
/// runs on another backend.
CudaDevice &deviceOf(KernelContext &ctx);

/// matmul through cuBLAS (CudaMatmul.cpp).
void registerMatmulKernel(KernelRegistry &r);

} // namespace distc::runtime::cuda

#endif // DISTC_LIB_RUNTIME_CUDA_CUDAKERNELS_H
