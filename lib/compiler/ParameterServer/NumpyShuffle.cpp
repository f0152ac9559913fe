//===- NumpyShuffle.cpp - numpy's legacy shuffle, reproduced --------------===//

#include "distc/ParameterServer/NumpyShuffle.h"

#include <numeric>
#include <random>
#include <utility>

namespace distc::ps {

/// numpy's legacy random_interval: a uniform integer in [0, max], by
/// drawing 32-bit outputs masked to max's bit width until one is <= max.
static uint32_t randomInterval(std::mt19937 &engine, uint32_t max) {
  if (max == 0)
    return 0;
  uint32_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  uint32_t value;
  do
    value = static_cast<uint32_t>(engine()) & mask;
  while (value > max);
  return value;
}

std::vector<size_t> numpyShuffleOrder(size_t n, uint32_t seed) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937 engine(seed);
  for (size_t i = n; i-- > 1;)
    std::swap(order[i], order[randomInterval(engine, static_cast<uint32_t>(i))]);
  return order;
}

} // namespace distc::ps
