//===- PlanValidator.h - Checks an arena plan -------------------*- C++ -*-===//
//
// A plan read from an artifact may be corrupted, and a planner may have a
// bug; either would make two live tensors share bytes and silently corrupt
// training. The loader checks a plan with findPlanViolation before it
// trusts it, and the planner's tests check every plan they make.
//
// The check sweeps the lifetimes in step order and keeps the live buffers
// ordered by offset. As long as the live buffers are pairwise disjoint, a
// buffer that becomes live can only overlap its neighbours in that order,
// so the whole check is O(n log n), however many buffers conflict.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_MEMORY_PLANVALIDATOR_H
#define DISTC_MEMORY_PLANVALIDATOR_H

#include "distc/Memory/ArenaPlanner.h"

#include <string>
#include <vector>

namespace distc::memory {

/// Returns "" when `offsets` (one per buffer) is a valid plan in an arena
/// of `arenaSize` bytes: every buffer lies in [0, arenaSize) and no two
/// buffers with intersecting lifetimes have intersecting byte ranges.
/// Otherwise one line describing the first problem found, naming the
/// buffers by id with their lifetimes and byte ranges, e.g.
///
///   buffers 3 (steps [0, 4), bytes [0, 64)) and 7 (steps [2, 5), bytes
///   [32, 96)) are live together and overlap
///   buffer 9 (steps [1, 2), bytes [960, 1088)) ends past the arena of 1024
///   bytes
///
/// A count mismatch, a negative offset or a non-positive size is reported
/// too. Buffers must have lower < upper.
std::string findPlanViolation(const std::vector<BufferLifetime> &buffers,
                              const std::vector<int64_t> &offsets, int64_t arenaSize);

} // namespace distc::memory

#endif // DISTC_MEMORY_PLANVALIDATOR_H
