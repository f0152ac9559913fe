//===- CpuBackend.cpp - Host memory and the CPU kernels -------------------===//

#include "Kernels/Registration.h"
#include "distc/Runtime/Backend.h"

namespace distc::runtime {

const KernelRegistry &cpuKernelRegistry() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    kernels::registerFillKernels(r);
    kernels::registerCastKernels(r);
    kernels::registerElementwiseKernels(r);
    kernels::registerMatmulKernels(r);
    kernels::registerReduceKernels(r);
    kernels::registerShapeKernels(r);
    kernels::registerPadKernels(r);
    kernels::registerInterpKernels(r);
    kernels::registerNnKernels(r);
    kernels::registerRandomKernels(r);
    kernels::registerActivationGradKernels(r);
    kernels::registerNnGradKernels(r);
    kernels::registerShapeGradKernels(r);
    kernels::registerDropoutKernels(r);
    kernels::registerOptimizerKernels(r);
    kernels::registerCollectiveKernels(r);
    kernels::registerParameterServerKernels(r);
    kernels::registerSelectedRowsKernels(r);
    kernels::registerRingCollectiveKernels(r);
    kernels::registerNormKernels(r);
    kernels::registerNormGradKernels(r);
    kernels::registerParamActivationKernels(r);
    kernels::registerConvKernels(r);
    kernels::registerPoolKernels(r);
    kernels::registerFusedElementwiseKernels(r);
    kernels::registerGemmEpilogueKernels(r);
    kernels::registerMergedOptimizerKernels(r);
    return r;
  }();
  return registry;
}

namespace {

class CpuBackend final : public Backend {
public:
  const char *name() const override { return "cpu"; }
  Tensor allocate(DType dtype, const Shape &shape) override { return Tensor(dtype, shape); }
  KernelFn findKernel(std::string_view kernel) const override {
    return cpuKernelRegistry().find(kernel);
  }
};

} // namespace

std::unique_ptr<Backend> createCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace distc::runtime
