//===- CanonicalSearch.h - Exact search for a plan in a capacity -*- C++ -*-===//
//
// Decides whether the buffers fit in `capacity` bytes by a depth-first
// branch and bound over canonical solutions, the method of MiniMalloc
// (Moffitt, "MiniMalloc: A Lightweight Memory Allocator for
// Hardware-Accelerated Machine Learning", ASPLOS 2023):
//
//  * every unplaced buffer has a minimum offset, the highest top of the
//    placed buffers it conflicts with; a buffer is only ever placed at its
//    minimum offset, and buffers are placed in non-decreasing offset order
//    (ties in a fixed preorder), so each arrangement is reached once;
//  * dominance: a buffer whose minimum offset is at or above the lowest top
//    any unplaced buffer could reach would leave a gap that buffer could
//    fill, so it is not tried;
//  * inference: in every section, the unplaced buffers must stack above the
//    section's floor (its highest placed top, and no lower than the lowest
//    minimum offset of its unplaced buffers, and no lower than the current
//    offset), so floor + their sizes must fit in the capacity;
//  * decomposition: once no unplaced buffer crosses a section boundary, the
//    two sides are independent and are solved one after the other.
//
// The search runs under several preorders in turn with doubling work
// limits, and stops when its work budget (a count of buffers and sections
// visited, so the same on every machine) is spent: the answer is then
// "unknown", never a wrong plan.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_MEMORY_CANONICALSEARCH_H
#define DISTC_LIB_RUNTIME_MEMORY_CANONICALSEARCH_H

#include "PlanProblem.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace distc::memory::detail {

enum class SearchOutcome {
  Found,       ///< offsets hold a plan within the capacity
  Infeasible,  ///< proven: no plan fits in the capacity
  OutOfBudget, ///< the work budget ran out first
};

class CanonicalSearch {
public:
  CanonicalSearch(const PlanProblem &problem, const std::vector<std::vector<int32_t>> &conflicts);

  /// Looks for offsets with every (aligned) top at most `capacity`,
  /// spending at most `workBudget` steps (a step is one buffer or section
  /// visited). `workUsed` receives the steps spent.
  SearchOutcome fit(int64_t capacity, int64_t workBudget, std::vector<int64_t> &offsets,
                    int64_t &workUsed);

private:
  SearchOutcome searchPartition(const std::vector<int32_t> &unplaced, int32_t sectionBegin,
                                int32_t sectionEnd, int64_t lastOffset, int32_t lastRank);
  SearchOutcome solveSplit(const std::vector<int32_t> &unplaced, int32_t sectionBegin,
                           int32_t sectionEnd, const std::vector<int32_t> &cutPoints);
  bool sectionsFit(const std::vector<int32_t> &unplaced, int32_t sectionBegin, int32_t sectionEnd,
                   int64_t lastOffset);
  void undoTo(size_t mark);
  void setRanks(int heuristic);

  const PlanProblem &problem;
  const std::vector<std::vector<int32_t>> &conflicts;
  std::vector<int64_t> initialTotals;

  // Search state.
  int64_t capacity = 0;
  int64_t work = 0;
  int64_t workLimit = 0;
  std::vector<int32_t> rank;
  std::vector<int64_t> offset;    // -1 while unplaced
  std::vector<int64_t> minOffset; // per buffer
  std::vector<int64_t> floor;     // per section
  std::vector<int64_t> total;     // unplaced bytes per section
  std::vector<int32_t> cuts;      // unplaced buffers crossing boundary s|s+1
  std::vector<int64_t> solution;
  std::vector<int64_t> lowestStart; // scratch for sectionsFit

  /// Undo log: (minOffset index, old) for index >= 0, (floor index, old)
  /// encoded as -1 - index.
  std::vector<std::pair<int32_t, int64_t>> undoLog;
};

} // namespace distc::memory::detail

#endif // DISTC_LIB_RUNTIME_MEMORY_CANONICALSEARCH_H
