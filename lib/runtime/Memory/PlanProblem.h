//===- PlanProblem.h - The planner's internal view of the buffers -*- C++ -*-===//
//
// The placement phases work on dense indices (0..n-1, the input order),
// sizes rounded up to the alignment (so that an offset right above a placed
// buffer is aligned too) and lifetimes compressed to "sections": the
// intervals between consecutive distinct lifetime ends. Two buffers
// conflict exactly when they share a section.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_MEMORY_PLANPROBLEM_H
#define DISTC_LIB_RUNTIME_MEMORY_PLANPROBLEM_H

#include "distc/Memory/ArenaPlanner.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace distc::memory::detail {

struct PlanProblem {
  /// Sizes rounded up to the alignment.
  std::vector<int64_t> size;
  /// Each buffer covers sections [firstSection, endSection).
  std::vector<int32_t> firstSection;
  std::vector<int32_t> endSection;
  /// upper - lower, in steps (sections differ in length).
  std::vector<int64_t> length;
  int32_t numSections = 0;
  int64_t alignment = 1;

  size_t numBuffers() const { return size.size(); }
  bool conflict(size_t a, size_t b) const {
    return firstSection[a] < endSection[b] && firstSection[b] < endSection[a];
  }
};

/// Builds the problem for `buffers` (whose preconditions planArena states).
PlanProblem makePlanProblem(const std::vector<BufferLifetime> &buffers, int64_t alignment);

/// The number of unordered pairs of conflicting buffers, in O(n log n)
/// without listing them: it decides which phases an input can afford.
int64_t countConflictingPairs(const PlanProblem &problem);

/// For every buffer, the buffers it conflicts with (ascending indices).
/// O(n log n + P) for P conflicting pairs.
std::vector<std::vector<int32_t>> conflictLists(const PlanProblem &problem);

/// The most (aligned) bytes live in each section.
std::vector<int64_t> sectionLiveBytes(const PlanProblem &problem);

/// max(offset + size) with the sizes of `problem` (aligned).
int64_t alignedArenaSize(const PlanProblem &problem, const std::vector<int64_t> &offsets);

} // namespace distc::memory::detail

#endif // DISTC_LIB_RUNTIME_MEMORY_PLANPROBLEM_H
