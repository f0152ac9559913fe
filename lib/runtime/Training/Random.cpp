//===- Random.cpp - Portable seeded permutations --------------------------===//

#include "distc/Training/Random.h"

#include <numeric>
#include <utility>

namespace distc::training {

uint64_t mixSeed(uint64_t value) {
  uint64_t z = value + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t drawBelow(std::mt19937_64 &engine, uint64_t bound) {
  // (2^64 - bound) mod bound, computed in unsigned 64-bit arithmetic.
  const uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    uint64_t x = engine();
    if (x >= threshold)
      return x % bound;
  }
}

void shuffleInPlace(std::vector<int64_t> &values, std::mt19937_64 &engine) {
  for (size_t i = values.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(drawBelow(engine, i));
    std::swap(values[i - 1], values[j]);
  }
}

std::vector<int64_t> seededPermutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> values(static_cast<size_t>(n > 0 ? n : 0));
  std::iota(values.begin(), values.end(), int64_t{0});
  std::mt19937_64 engine(seed);
  shuffleInPlace(values, engine);
  return values;
}

} // namespace distc::training
