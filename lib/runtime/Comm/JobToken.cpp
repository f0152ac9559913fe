//===- JobToken.cpp - Tokens that keep jobs apart -------------------------===//
//
// A token only has to be unguessable by processes that were not given it,
// so 128 bits from the kernel's random source are plenty. getrandom()
// cannot run out of file descriptors or find /dev missing in a container;
// std::random_device covers kernels without it.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/Store.h"

#include <cerrno>
#include <random>
#include <sys/random.h>

namespace distc::comm {

namespace {

constexpr size_t kTokenBytes = 16;

/// Fills `bytes` from getrandom(); false if the kernel has none.
bool kernelRandom(unsigned char *bytes, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::getrandom(bytes + got, size - got, 0);
    if (n > 0)
      got += static_cast<size_t>(n);
    else if (n < 0 && errno != EINTR)
      return false;
  }
  return true;
}

} // namespace

std::string generateJobToken() {
  unsigned char bytes[kTokenBytes];
  if (!kernelRandom(bytes, sizeof bytes)) {
    std::random_device device;
    for (unsigned char &b : bytes)
      b = static_cast<unsigned char>(device());
  }
  static const char digits[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += digits[b >> 4];
    token += digits[b & 0xf];
  }
  return token;
}

} // namespace distc::comm
