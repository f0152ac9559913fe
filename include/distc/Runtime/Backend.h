//===- Backend.h - Where tensors live and kernels run -----------*- C++ -*-===//
//
// The seam between the executor and a device. The executor decides which
// buffers exist and in which order calls run; a Backend allocates tensor
// storage and supplies the kernels. Today there is the CPU backend (host
// memory, BLAS); a CUDA backend implements the same interface with device
// allocations and its own registry.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_BACKEND_H
#define DISTC_RUNTIME_BACKEND_H

#include "distc/Runtime/Kernel.h"
#include "distc/Runtime/Tensor.h"

#include <memory>
#include <string_view>

namespace distc::runtime {

class Backend {
public:
  virtual ~Backend() = default;
  /// "cpu", "cuda", ...
  virtual const char *name() const = 0;
  /// Zero-initialized storage for a tensor of `dtype` and `shape`.
  virtual Tensor allocate(DType dtype, const Shape &shape) = 0;
  /// The kernel for `kernel`, or null if this backend lacks it.
  virtual KernelFn findKernel(std::string_view kernel) const = 0;
};

std::unique_ptr<Backend> createCpuBackend();

} // namespace distc::runtime

#endif // DISTC_RUNTIME_BACKEND_H
