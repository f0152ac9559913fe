//===- BlasInfo.cpp - Which BLAS and GEMM kernels run ---------------------===//

#include "distc/Runtime/BlasInfo.h"

#include <cstdlib>

// OpenBLAS's own queries, when the BLAS is OpenBLAS.
extern "C" char *openblas_get_corename(void) __attribute__((weak));
extern "C" char *openblas_get_config(void) __attribute__((weak));

namespace distc::runtime {

std::string blasDescription() {
  if (!openblas_get_corename || !openblas_get_config)
    return "a BLAS other than OpenBLAS";
  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64": keep the
  // name and version.
  std::string config = openblas_get_config();
  std::string text = config.substr(0, config.find(' ', config.find(' ') + 1)) + ", " +
                     openblas_get_corename() + " kernels";
  if (const char *chosen = std::getenv("OPENBLAS_CORETYPE"); chosen && *chosen)
    text += std::string(" (OPENBLAS_CORETYPE=") + chosen + ")";
  return text;
}

} // namespace distc::runtime
