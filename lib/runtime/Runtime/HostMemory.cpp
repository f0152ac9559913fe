//===- HostMemory.cpp - Host memory for tensors ---------------------------===//

#include "distc/Runtime/HostMemory.h"

#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace distc::runtime {

std::shared_ptr<uint8_t> allocateHostStorage(size_t bytes) {
  constexpr size_t kAlign = 64;
  const bool huge = bytes >= kHugePageBytes;
  // Whole 64-byte lines, so that a vector loop may finish its last line;
  // posix_memalign, unlike aligned_alloc, takes any size, so a huge
  // allocation is not rounded to whole huge pages.
  const size_t size = bytes == 0 ? kAlign : (bytes + kAlign - 1) / kAlign * kAlign;
  void *p = nullptr;
  if (::posix_memalign(&p, huge ? kHugePageBytes : kAlign, size) != 0 || !p)
    throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Before the first touch, so that the zeroing below faults huge pages in.
  // A hint: where THP is off it fails, and small pages serve.
  if (huge)
    (void)::madvise(p, size / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, size);
  return std::shared_ptr<uint8_t>(static_cast<uint8_t *>(p), [](uint8_t *q) { std::free(q); });
}

} // namespace distc::runtime
