//===- RandomTraces.h - Deterministic inputs for planner tests --*- C++ -*-===//

#ifndef DISTC_UNITTESTS_MEMORY_RANDOMTRACES_H
#define DISTC_UNITTESTS_MEMORY_RANDOMTRACES_H

#include "distc/Memory/ArenaPlanner.h"

#include <cstdint>
#include <random>
#include <vector>

namespace distc::memory::testing {

/// `count` buffers with lifetimes in [0, steps) and sizes in [1, maxSize],
/// from a fixed-seed generator (raw mt19937 output, the same everywhere).
std::vector<BufferLifetime> randomBuffers(uint32_t seed, size_t count, int64_t steps,
                                          int64_t maxSize);

/// Buffers that tile the rectangle [0, steps) x [0, height) exactly, made
/// by cutting it at random, alternately in time and in bytes, `cuts` times.
/// Every step is fully live, so the lower bound is `height`, and the
/// tiling itself is a plan of that size: the optimum is known.
std::vector<BufferLifetime> tiledBuffers(uint32_t seed, int cuts, int64_t steps, int64_t height);

/// max(offset + size).
int64_t arenaOf(const std::vector<BufferLifetime> &buffers, const std::vector<int64_t> &offsets);

} // namespace distc::memory::testing

#endif // DISTC_UNITTESTS_MEMORY_RANDOMTRACES_H
