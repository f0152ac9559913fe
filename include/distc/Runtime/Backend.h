//===- Backend.h - Where tensors live and kernels run -----------*- C++ -*-===//
//
// The seam between the executor and a device. The executor decides which
// buffers exist and in which order calls run; a Backend allocates tensor
// storage, supplies the kernels and moves bytes in and out of its storage.
//
// Backends:
//  * CPU (createCpuBackend): host memory, BLAS; every call completes before
//    it returns.
//  * CUDA (CudaBackend.h): CUDA managed memory on one device. Kernels may
//    complete asynchronously: the host reads or writes a tensor's bytes
//    only through copy() and zero(), or after synchronize().
//
// The executor's contract with a backend:
//  * Feeds are written with copy() and scratch buffers cleared with
//    zero(), both ordered after the work queued before them.
//  * synchronize() runs before fetches are copied out and at the end of
//    every program, so between programs (checkpoints, state_dict, feeds of
//    the next step) every tensor is host-readable.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_BACKEND_H
#define DISTC_RUNTIME_BACKEND_H

#include "distc/Runtime/Kernel.h"
#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace distc::runtime {

class Backend {
public:
  virtual ~Backend() = default;
  /// "cpu", "cuda", ...
  virtual const char *name() const = 0;
  /// Zero-initialized storage for a tensor of `dtype` and `shape`, ready
  /// for the host to write. Throws std::bad_alloc when out of memory.
  virtual Tensor allocate(DType dtype, const Shape &shape) = 0;
  /// The kernel for `kernel`, or null if this backend lacks it.
  virtual KernelFn findKernel(std::string_view kernel) const = 0;

  /// Copies `bytes` bytes from src to dst, each host memory or this
  /// backend's storage, ordered after the work queued so far. The ranges
  /// do not overlap.
  virtual void copy(void *dst, const void *src, size_t bytes) {
    if (bytes)
      std::memcpy(dst, src, bytes);
  }
  /// dst's bytes = 0, ordered after the work queued so far.
  virtual void zero(Tensor &dst) {
    if (dst.byteSize())
      std::memset(dst.data(), 0, dst.byteSize());
  }
  /// Waits for all queued work; the first error a kernel reported
  /// asynchronously since the last call.
  virtual Status synchronize() { return Status::success(); }
  /// One line on where this backend runs and what runs where, for logs.
  virtual std::string describe() const { return name(); }
};

std::unique_ptr<Backend> createCpuBackend();

} // namespace distc::runtime

#endif // DISTC_RUNTIME_BACKEND_H
