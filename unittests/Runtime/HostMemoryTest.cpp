//===- HostMemoryTest.cpp - Host memory for tensors -----------------------===//

#include "distc/Runtime/HostMemory.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace distc::runtime;

namespace {

bool allZero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i])
      return false;
  return true;
}

TEST(HostMemory, SmallAllocationsAreZeroedWholeCacheLines) {
  for (size_t bytes : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(1000)}) {
    std::shared_ptr<uint8_t> p = allocateHostStorage(bytes);
    ASSERT_TRUE(p);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % 64, 0u) << bytes;
    // A vector loop may finish its last 64-byte line.
    size_t lines = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
    EXPECT_TRUE(allZero(p.get(), lines)) << bytes;
  }
}

TEST(HostMemory, LargeAllocationsStartOnAHugePage) {
  // Not a multiple of the huge page: the tail is not rounded up.
  const size_t bytes = kHugePageBytes * 3 + 4096 + 8;
  std::shared_ptr<uint8_t> p = allocateHostStorage(bytes);
  ASSERT_TRUE(p);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % kHugePageBytes, 0u);
  EXPECT_TRUE(allZero(p.get(), bytes));
  p.get()[bytes - 1] = 7;
  EXPECT_EQ(p.get()[bytes - 1], 7);
}

} // namespace
