//===- BlasInfo.h - Which BLAS and GEMM kernels run -------------*- C++ -*-===//
//
// OpenBLAS picks its kernel set for the CPU when it loads, unless the
// environment variable OPENBLAS_CORETYPE names one. The set decides GEMM
// speed (on an AVX-512 CPU, the Haswell set runs about 1.5x as long as
// SkylakeX or Cooperlake), so `dist-run --version` and the benchmarks say
// which one runs.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_BLASINFO_H
#define DISTC_RUNTIME_BLASINFO_H

#include <string>

namespace distc::runtime {

/// One line on the BLAS, e.g. "OpenBLAS 0.3.21, Cooperlake kernels" or
/// "OpenBLAS 0.3.21, Haswell kernels (OPENBLAS_CORETYPE=Haswell)".
std::string blasDescription();

} // namespace distc::runtime

#endif // DISTC_RUNTIME_BLASINFO_H
