//===- CudaBackend.cpp - Managed memory, device kernels, host fallback ----===//
//
// Which kernels run where:
//  * device kernels (CudaKernels.h): queued on the device, asynchronous;
//  * the collective kernels, which touch tensors only through the backend
//    (Kernels/Collective.cpp, Kernels/RingCollective.cpp) and the
//    communicator: as they are;
//  * every other CPU kernel: on the host, after synchronize(), over the
//    managed memory of its operands (runOnHost).
//
//===----------------------------------------------------------------------===//

#include "CudaKernels.h"
#include "Kernels/Registration.h"
#include "distc/Runtime/CudaBackend.h"

#include <new>

namespace distc::runtime::cuda {

CudaDevice::~CudaDevice() = default;

namespace {

/// The kernels that run on the device or are backend-neutral.
const KernelRegistry &deviceRegistry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    registerMatmulKernel(r);
    kernels::registerCollectiveKernels(r);
    kernels::registerRingCollectiveKernels(r);
    return r;
  }();
  return registry;
}

class CudaBackend final : public Backend {
public:
  explicit CudaBackend(std::shared_ptr<CudaDevice> device) : device_(std::move(device)) {}

  const char *name() const override { return "cuda"; }

  Tensor allocate(DType dtype, const Shape &shape) override {
    // One byte at least: a tensor with no elements still has storage.
    size_t bytes = std::max<size_t>(1, static_cast<size_t>(shapeNumel(shape)) * dtypeSize(dtype));
    void *p = device_->allocateManaged(bytes);
    if (!p)
      throw std::bad_alloc();
    // The deleter keeps the device alive as long as any tensor on it.
    std::shared_ptr<CudaDevice> device = device_;
    return Tensor::adopt(dtype, shape,
                         std::shared_ptr<uint8_t>(static_cast<uint8_t *>(p),
                                                  [device](uint8_t *q) { device->release(q); }));
  }

  KernelFn findKernel(std::string_view kernel) const override {
    if (KernelFn fn = deviceRegistry().find(kernel))
      return fn;
    return cpuKernelRegistry().find(kernel) ? runOnHost : nullptr;
  }

  void copy(void *dst, const void *src, size_t bytes) override {
    if (bytes)
      device_->copy(dst, src, bytes);
  }
  void zero(Tensor &dst) override {
    if (dst.byteSize())
      device_->zero(dst.data(), dst.byteSize());
  }
  Status synchronize() override { return device_->synchronize(); }

  std::string describe() const override {
    std::string names;
    for (const std::string &k : cudaDeviceKernels())
      names += (names.empty() ? "" : ", ") + k;
    return "cuda on " + device_->describe() + "; on the device: " + names +
           "; every other kernel on the host over managed memory";
  }

  CudaDevice &device() { return *device_; }

private:
  /// A CPU kernel over the managed memory of its operands, once the
  /// device has finished the work queued before it.
  static void runOnHost(KernelContext &ctx) {
    CudaDevice &device = deviceOf(ctx);
    if (Status s = device.synchronize(); !s.ok())
      ctx.fail("the CUDA device failed before this call: " + s.message());
    const auto *kernel = ctx.call().kernel();
    KernelFn host = cpuKernelRegistry().find(kernel ? kernel->string_view() : "");
    if (!host)
      ctx.fail("no kernel of this name");
    host(ctx);
  }

  std::shared_ptr<CudaDevice> device_;
};

} // namespace

CudaDevice &deviceOf(KernelContext &ctx) {
  auto *backend = dynamic_cast<CudaBackend *>(ctx.backend());
  if (!backend)
    ctx.fail("a CUDA kernel called outside the CUDA backend");
  return backend->device();
}

std::unique_ptr<Backend> createCudaBackendOn(std::shared_ptr<CudaDevice> device) {
  return std::make_unique<CudaBackend>(std::move(device));
}

} // namespace distc::runtime::cuda

namespace distc::runtime {

std::unique_ptr<Backend> createCudaBackend(int ordinal, std::string &error) {
  std::unique_ptr<cuda::CudaDevice> device = cuda::openCudaDevice(ordinal, error);
  if (!device)
    return nullptr;
  return cuda::createCudaBackendOn(std::move(device));
}

bool cudaBackendBuilt() { return cuda::kCudaDeviceBuilt; }

std::vector<std::string> cudaDeviceKernels() { return cuda::deviceRegistry().names(); }

} // namespace distc::runtime
