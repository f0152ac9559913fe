//===- HostMemory.h - Host memory for tensors -------------------*- C++ -*-===//
//
// Where every host tensor's bytes come from (Tensor.h), and what other host
// buffers that kernels or transfers stream through should use.
//
// The memory is zeroed and 64-byte aligned (AVX-512 loads, cache lines).
// An allocation of kHugePageBytes or more starts on a huge-page boundary
// and is offered to Linux's transparent huge pages (MADV_HUGEPAGE, which
// takes effect where THP is "madvise" or "always"): kernels streaming
// through large tensors miss the TLB less, and the copies between
// processes of a parameter server (PsPeerCopy.h) pin 512 times fewer
// pages, which on this kind of machine doubles their rate
// (docs/benchmarks.md, "Parameter servers"). Nothing is rounded up: the
// tail of an allocation past its last whole huge page keeps small pages.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_HOSTMEMORY_H
#define DISTC_RUNTIME_HOSTMEMORY_H

#include <cstddef>
#include <cstdint>
#include <memory>

namespace distc::runtime {

inline constexpr size_t kHugePageBytes = size_t(2) << 20;

/// `bytes` zeroed bytes (at least one), freed with the last reference.
/// Throws std::bad_alloc when the system has no memory for them.
std::shared_ptr<uint8_t> allocateHostStorage(size_t bytes);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_HOSTMEMORY_H
