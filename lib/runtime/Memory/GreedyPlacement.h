//===- GreedyPlacement.h - Fast constructive plans --------------*- C++ -*-===//
//
// Two constructive placements, both valid by construction:
//
//  * placeInOrder: buffers one at a time in a given order, each into a gap
//    left by the already placed buffers it conflicts with (the smallest gap
//    that fits, or the lowest), or on top of them. Costs O(P log P) for P
//    conflicting pairs, so it needs the conflict lists.
//  * simulateAllocator: replays the lifetimes in step order like a
//    best-fit heap with coalescing free blocks; O(n log n) however many
//    buffers conflict, so it is the plan for inputs too dense to list their
//    conflicts.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_MEMORY_GREEDYPLACEMENT_H
#define DISTC_LIB_RUNTIME_MEMORY_GREEDYPLACEMENT_H

#include "PlanProblem.h"

namespace distc::memory::detail {

/// Orders in which placeInOrder may take the buffers. Ties are broken by
/// the next criteria and finally by input index, so orders are
/// deterministic.
enum class GreedyOrder {
  SizeDescending,   ///< size, then lifetime length
  LengthDescending, ///< lifetime length (in sections), then size
  AreaDescending,   ///< size * length
  PeakFirst,        ///< most bytes live in any covered section, then size
  StartAscending,   ///< time order, larger first at one step
};

enum class GapChoice {
  BestFit,  ///< the smallest gap that fits
  FirstFit, ///< the lowest gap that fits
};

std::vector<int32_t> greedyOrder(const PlanProblem &problem, GreedyOrder order);

/// Offsets for the buffers placed in `order` (a permutation of 0..n-1).
/// `conflicts` are the conflict lists of `problem`.
std::vector<int64_t> placeInOrder(const PlanProblem &problem,
                                  const std::vector<std::vector<int32_t>> &conflicts,
                                  const std::vector<int32_t> &order, GapChoice choice);

/// placeInOrder without conflict lists: every placed buffer is tested, so
/// O(n^2). Only for the best-fit baseline on inputs too dense to list.
std::vector<int64_t> placeInOrderByScan(const PlanProblem &problem,
                                        const std::vector<int32_t> &order);

/// Which of the buffers that start at one step the simulation allocates
/// first.
enum class StepOrder {
  LargestFirst, ///< by size
  LongestFirst, ///< by end step, so long-lived buffers sit below temporaries
};

/// Offsets from replaying the lifetimes through a best-fit heap.
std::vector<int64_t> simulateAllocator(const PlanProblem &problem, StepOrder stepOrder);

} // namespace distc::memory::detail

#endif // DISTC_LIB_RUNTIME_MEMORY_GREEDYPLACEMENT_H
