//===- CudaDeviceCublas.cpp - CudaDevice over the CUDA runtime and cuBLAS -===//
//
// A thin layer: each method is one or two CUDA calls. cuBLAS is loaded
// with dlopen when a device is opened, so that dist-run and the libraries
// start on machines without it (the CPU backend needs none of CUDA), and
// only the CUDA runtime (libcudart, which itself loads the driver) is
// linked. Work goes to the legacy default stream, so it is ordered with
// the blocking stream NCCL's collectives use.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace distc::runtime::cuda {

const bool kCudaDeviceBuilt = true;

namespace {

std::string describeCuda(const std::string &call, cudaError_t e) {
  return call + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
}

/// The cuBLAS entry points the backend calls, from libcublas.so.13.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) setStream = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm = nullptr;
  decltype(&cublasDgemmStridedBatched) dgemm = nullptr;
  decltype(&cublasGetStatusString) statusString = nullptr;

  bool load(std::string &error) {
    // The soname of the toolkit this was built with, then the plain name.
    const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    void *lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    const std::string firstError = lib ? "" : dlerror();
    // cuBLAS ships beside the CUDA runtime this binary loaded, in a
    // directory the loader need not search (e.g. /usr/local/cuda/lib64).
    Dl_info cudart;
    if (!lib && dladdr(reinterpret_cast<void *>(&cudaGetDeviceCount), &cudart) &&
        cudart.dli_fname) {
      std::string dir = cudart.dli_fname;
      dir.erase(dir.find_last_of('/') + 1);
      lib = dlopen((dir + soname).c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    if (!lib)
      lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = "cannot load cuBLAS: " + firstError;
      return false;
    }
    bool ok = true;
    auto bind = [&](auto &fn, const char *symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol));
      if (!fn && ok) {
        error = soname + " lacks " + symbol;
        ok = false;
      }
    };
    bind(create, "cublasCreate_v2");
    bind(destroy, "cublasDestroy_v2");
    bind(setStream, "cublasSetStream_v2");
    bind(sgemm, "cublasSgemmStridedBatched");
    bind(dgemm, "cublasDgemmStridedBatched");
    bind(statusString, "cublasGetStatusString");
    return ok;
  }
};

std::string formatGiB(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
  return text;
}

class CublasDevice final : public CudaDevice {
public:
  CublasDevice(int ordinal, Cublas api, cublasHandle_t handle, std::string description)
      : ordinal_(ordinal), api_(api), handle_(handle), description_(std::move(description)) {}
  ~CublasDevice() override {
    (void)cudaSetDevice(ordinal_);
    (void)api_.destroy(handle_);
  }

  std::string describe() const override { return description_; }

  void *allocateManaged(size_t bytes) override {
    (void)cudaSetDevice(ordinal_);
    void *p = nullptr;
    cudaError_t e = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
    if (e != cudaSuccess) {
      (void)cudaGetLastError(); // not sticky: later calls may succeed
      if (e != cudaErrorMemoryAllocation)
        record(describeCuda("cudaMallocManaged(" + std::to_string(bytes) + " bytes)", e));
      return nullptr;
    }
    // Concurrent managed access (checked at open) lets the host write it
    // while the device runs other work.
    std::memset(p, 0, bytes);
    return p;
  }

  void release(void *p) override { (void)cudaFree(p); }

  void copy(void *dst, const void *src, size_t bytes) override {
    (void)cudaSetDevice(ordinal_);
    // On the legacy stream, after the work queued before it; returns once
    // `src` may be reused.
    if (cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault); e != cudaSuccess)
      record(describeCuda("cudaMemcpy(" + std::to_string(bytes) + " bytes)", e));
  }

  void zero(void *dst, size_t bytes) override {
    (void)cudaSetDevice(ordinal_);
    if (cudaError_t e = cudaMemsetAsync(dst, 0, bytes, cudaStreamLegacy); e != cudaSuccess)
      record(describeCuda("cudaMemsetAsync(" + std::to_string(bytes) + " bytes)", e));
  }

  Status gemm(const ColumnMajorGemm &g) override {
    (void)cudaSetDevice(ordinal_);
    const cublasOperation_t ta = g.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t s;
    const char *call;
    if (g.dtype == DType::Float64) {
      const double one = 1, zero = 0;
      call = "cublasDgemmStridedBatched";
      s = api_.dgemm(handle_, ta, tb, g.m, g.n, g.k, &one, static_cast<const double *>(g.a), g.lda,
                     g.strideA, static_cast<const double *>(g.b), g.ldb, g.strideB, &zero,
                     static_cast<double *>(g.c), g.ldc, g.strideC, g.batch);
    } else {
      const float one = 1, zero = 0;
      call = "cublasSgemmStridedBatched";
      s = api_.sgemm(handle_, ta, tb, g.m, g.n, g.k, &one, static_cast<const float *>(g.a), g.lda,
                     g.strideA, static_cast<const float *>(g.b), g.ldb, g.strideB, &zero,
                     static_cast<float *>(g.c), g.ldc, g.strideC, g.batch);
    }
    if (s != CUBLAS_STATUS_SUCCESS)
      return Status::error(std::string(call) + ": " + api_.statusString(s));
    return Status::success();
  }

  Status synchronize() override {
    (void)cudaSetDevice(ordinal_);
    cudaError_t e = cudaStreamSynchronize(cudaStreamLegacy);
    if (!pending_.empty()) {
      std::string message = std::move(pending_);
      pending_.clear();
      return Status::error(message);
    }
    if (e != cudaSuccess)
      return Status::error(describeCuda("cudaStreamSynchronize", e));
    return Status::success();
  }

private:
  void record(std::string message) {
    if (pending_.empty())
      pending_ = std::move(message);
  }

  int ordinal_;
  Cublas api_;
  cublasHandle_t handle_;
  std::string description_;
  std::string pending_;
};

} // namespace

std::unique_ptr<CudaDevice> openCudaDevice(int ordinal, std::string &error) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    error = "no CUDA device: " + describeCuda("cudaGetDeviceCount", e);
    int driver = 0;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
        driver == 0)
      error += "; no NVIDIA driver is loaded";
    return nullptr;
  }
  if (count <= 0) {
    error = "no CUDA device: cudaGetDeviceCount found none";
    if (const char *visible = std::getenv("CUDA_VISIBLE_DEVICES"))
      error += std::string(" (CUDA_VISIBLE_DEVICES='") + visible + "')";
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= count) {
    error = "CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) +
            (count == 1 ? " device" : " devices") + " visible)";
    return nullptr;
  }
  const std::string which = "CUDA device " + std::to_string(ordinal);
  if (cudaError_t e = cudaSetDevice(ordinal); e != cudaSuccess) {
    error = describeCuda("cudaSetDevice(" + std::to_string(ordinal) + ")", e);
    return nullptr;
  }
  int concurrent = 0;
  (void)cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, ordinal);
  if (!concurrent) {
    error = which + " lacks concurrent managed access, which the CUDA backend needs (a Pascal "
                    "or newer GPU on Linux)";
    return nullptr;
  }
  cudaDeviceProp props;
  std::memset(&props, 0, sizeof props);
  if (cudaError_t e = cudaGetDeviceProperties(&props, ordinal); e != cudaSuccess) {
    error = describeCuda("cudaGetDeviceProperties(" + std::to_string(ordinal) + ")", e);
    return nullptr;
  }
  Cublas api;
  if (!api.load(error))
    return nullptr;
  cublasHandle_t handle = nullptr;
  if (cublasStatus_t s = api.create(&handle); s != CUBLAS_STATUS_SUCCESS) {
    error = which + ": cublasCreate: " + api.statusString(s);
    return nullptr;
  }
  if (cublasStatus_t s = api.setStream(handle, cudaStreamLegacy); s != CUBLAS_STATUS_SUCCESS) {
    error = which + ": cublasSetStream: " + api.statusString(s);
    (void)api.destroy(handle);
    return nullptr;
  }
  std::string description = std::string(props.name) + " (" + which + ", sm_" +
                            std::to_string(props.major) + std::to_string(props.minor) + ", " +
                            formatGiB(props.totalGlobalMem) + ")";
  return std::make_unique<CublasDevice>(ordinal, api, handle, std::move(description));
}

} // namespace distc::runtime::cuda
