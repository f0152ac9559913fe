//===- Registration.h - Per-family kernel registration ----------*- C++ -*-===//
//
// Each kernel family file registers its kernels explicitly; static
// initializers would be dropped when linking the runtime as a static library.
// Which kernels a family file holds its header comment says; every kernel
// is declared in KernelSignatures.cpp, and a unit test checks that the
// registry holds exactly the declared kernels.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_REGISTRATION_H
#define DISTC_LIB_RUNTIME_KERNELS_REGISTRATION_H

#include "distc/Runtime/Kernel.h"

namespace distc::runtime::kernels {

void registerFillKernels(KernelRegistry &r);
void registerCastKernels(KernelRegistry &r);
void registerElementwiseKernels(KernelRegistry &r);
void registerMatmulKernels(KernelRegistry &r);
void registerReduceKernels(KernelRegistry &r);
void registerShapeKernels(KernelRegistry &r);
void registerNnKernels(KernelRegistry &r);
void registerRandomKernels(KernelRegistry &r);
void registerActivationGradKernels(KernelRegistry &r);
void registerNnGradKernels(KernelRegistry &r);
void registerShapeGradKernels(KernelRegistry &r);
void registerDropoutKernels(KernelRegistry &r);
void registerOptimizerKernels(KernelRegistry &r);
void registerCollectiveKernels(KernelRegistry &r);
void registerRingCollectiveKernels(KernelRegistry &r);
void registerParameterServerKernels(KernelRegistry &r);
void registerSelectedRowsKernels(KernelRegistry &r);
void registerPadKernels(KernelRegistry &r);
void registerInterpKernels(KernelRegistry &r);
void registerNormKernels(KernelRegistry &r);
void registerNormGradKernels(KernelRegistry &r);
void registerParamActivationKernels(KernelRegistry &r);
void registerConvKernels(KernelRegistry &r);
void registerPoolKernels(KernelRegistry &r);
void registerFusedElementwiseKernels(KernelRegistry &r);
void registerGemmEpilogueKernels(KernelRegistry &r);
void registerMergedOptimizerKernels(KernelRegistry &r);

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_REGISTRATION_H
