//===- Random.h - Portable seeded permutations ------------------*- C++ -*-===//
//
// Shuffles that give the same permutation on every machine, standard library
// and compiler, so that a run resumed elsewhere sees the batches an
// uninterrupted run would. std::shuffle and std::uniform_int_distribution are
// implementation-defined and therefore not used: only std::mt19937_64, whose
// output sequence the C++ standard fixes, plus the bounded draw and the
// Fisher-Yates loop below, whose results are specified here.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_RANDOM_H
#define DISTC_TRAINING_RANDOM_H

#include <cstdint>
#include <random>
#include <vector>

namespace distc::training {

/// SplitMix64's finalizer: a bijective 64-bit mix used to derive independent
/// seeds (e.g. one per epoch) from one user seed.
uint64_t mixSeed(uint64_t value);

/// A uniformly distributed integer in [0, bound) drawn from `engine`, for
/// bound >= 1. Rejection sampling: a draw x is accepted when
/// x >= (2^64 - bound) mod bound, and the result is x mod bound, so every
/// value has exactly the same number of accepted preimages (no modulo bias).
uint64_t drawBelow(std::mt19937_64 &engine, uint64_t bound);

/// Fisher-Yates: for i = n-1 down to 1, swap values[i] with
/// values[drawBelow(engine, i + 1)].
void shuffleInPlace(std::vector<int64_t> &values, std::mt19937_64 &engine);

/// 0..n-1 shuffled by an engine seeded with `seed` (identity when n < 2).
std::vector<int64_t> seededPermutation(int64_t n, uint64_t seed);

} // namespace distc::training

#endif // DISTC_TRAINING_RANDOM_H
