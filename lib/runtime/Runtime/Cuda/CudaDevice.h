//===- CudaDevice.h - The device operations the CUDA backend uses -*- C++ -*-===//
//
// CudaBackend reaches CUDA and cuBLAS only through this interface, so that
// its own logic (the row-major to column-major GEMM mapping, batching,
// which kernels run where, when the host waits for the device) is tested
// on machines without a GPU against a host fake, and the real calls stay a
// thin layer (CudaDeviceCublas.cpp). No CUDA header is needed here.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_CUDA_CUDADEVICE_H
#define DISTC_LIB_RUNTIME_CUDA_CUDADEVICE_H

#include "distc/Runtime/Backend.h"

#include <cstdint>
#include <memory>
#include <string>

namespace distc::runtime::cuda {

/// One strided-batched GEMM in cuBLAS's column-major terms
/// (cublas<t>gemmStridedBatched with alpha 1, beta 0): for every
/// i < batch, C_i = op(A_i) op(B_i), where X_i starts strideX elements
/// after X_{i-1}, C_i is m x n with leading dimension ldc, op(A_i) is
/// m x k and op(B_i) k x n, op transposing when transX is set.
struct ColumnMajorGemm {
  DType dtype = DType::Float32; // Float32 or Float64
  bool transA = false, transB = false;
  int m = 0, n = 0, k = 0;
  const void *a = nullptr;
  int lda = 0;
  int64_t strideA = 0;
  const void *b = nullptr;
  int ldb = 0;
  int64_t strideB = 0;
  void *c = nullptr;
  int ldc = 0;
  int64_t strideC = 0;
  int batch = 1;
};

class CudaDevice {
public:
  virtual ~CudaDevice();
  /// "NVIDIA H100 80GB HBM3 (CUDA device 0, sm_90, 79.1 GiB)".
  virtual std::string describe() const = 0;
  /// `bytes` (> 0) of managed memory, zeroed, which the host may read and
  /// write at once; null when the device is out of memory.
  virtual void *allocateManaged(size_t bytes) = 0;
  virtual void release(void *p) = 0;
  /// Queued on the device's stream after the work queued before; `src` may
  /// be reused when copy returns. Failures surface at synchronize().
  virtual void copy(void *dst, const void *src, size_t bytes) = 0;
  virtual void zero(void *dst, size_t bytes) = 0;
  /// Queues `g`; an error when it cannot be queued.
  virtual Status gemm(const ColumnMajorGemm &g) = 0;
  /// Waits for the queued work; the first error since the last call.
  virtual Status synchronize() = 0;
};

/// CUDA device `ordinal` through the CUDA runtime and cuBLAS; null with
/// `error` when it cannot be used (CudaBackend.h lists the causes).
std::unique_ptr<CudaDevice> openCudaDevice(int ordinal, std::string &error);

/// The backend over `device` (tests pass fakes).
std::unique_ptr<Backend> createCudaBackendOn(std::shared_ptr<CudaDevice> device);

/// Whether openCudaDevice is the real one (a build with CUDA).
extern const bool kCudaDeviceBuilt;

} // namespace distc::runtime::cuda

#endif // DISTC_LIB_RUNTIME_CUDA_CUDADEVICE_H
