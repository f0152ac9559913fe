//===- ArenaPlanner.cpp - Static offsets for temporary buffers ------------===//
//
// The driver: a greedy plan first (always valid), then, where the input is
// small enough to afford it, the exact search tries smaller capacities: the
// lower bound first (an optimal plan ends the planning), then a bisection
// between the largest capacity that failed and the smallest plan found.
//
//===----------------------------------------------------------------------===//

#include "distc/Memory/ArenaPlanner.h"

#include "CanonicalSearch.h"
#include "GreedyPlacement.h"
#include "PlanProblem.h"

#include <algorithm>

namespace distc::memory {
namespace {

using namespace detail;

/// Past this many conflicting pairs the conflict lists (8 bytes a pair)
/// and the gap scans cost more than a plan is worth: the allocator
/// simulation plans alone.
constexpr int64_t kMaxListedPairs = 4'000'000;
/// Past this many pairs only the two strongest greedy orders run.
constexpr int64_t kAllOrdersPairs = 1'000'000;
/// The search only runs on inputs this small; its section bookkeeping is
/// quadratic in the worst case.
constexpr size_t kMaxSearchBuffers = 5000;
constexpr int64_t kMaxSearchSectionEntries = 20'000'000;
/// The bisection stops once the gap between a capacity that failed and the
/// best plan is below this fraction of the plan.
constexpr double kBisectionTolerance = 0.002;

int64_t rawArenaSize(const std::vector<BufferLifetime> &buffers,
                     const std::vector<int64_t> &offsets) {
  int64_t arena = 0;
  for (size_t i = 0; i < buffers.size(); ++i)
    arena = std::max(arena, offsets[i] + buffers[i].size);
  return arena;
}

int64_t alignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// The better plan of the two allocator simulations.
std::vector<int64_t> bestSimulatedPlan(const PlanProblem &problem) {
  std::vector<int64_t> largestFirst = simulateAllocator(problem, StepOrder::LargestFirst);
  std::vector<int64_t> longestFirst = simulateAllocator(problem, StepOrder::LongestFirst);
  return alignedArenaSize(problem, longestFirst) < alignedArenaSize(problem, largestFirst)
             ? longestFirst
             : largestFirst;
}

/// The best plan of the greedy orders and the simulations.
std::vector<int64_t> bestGreedyPlan(const PlanProblem &problem,
                                    const std::vector<std::vector<int32_t>> &conflicts,
                                    int64_t pairs) {
  static constexpr GreedyOrder kAllOrders[] = {
      GreedyOrder::SizeDescending, GreedyOrder::PeakFirst, GreedyOrder::AreaDescending,
      GreedyOrder::LengthDescending, GreedyOrder::StartAscending};
  const size_t numOrders = pairs > kAllOrdersPairs ? 2 : std::size(kAllOrders);
  std::vector<int64_t> best;
  int64_t bestArena = 0;
  auto keepIfBetter = [&](std::vector<int64_t> offsets) {
    const int64_t arena = alignedArenaSize(problem, offsets);
    if (best.empty() || arena < bestArena) {
      best = std::move(offsets);
      bestArena = arena;
    }
  };
  for (size_t o = 0; o < numOrders; ++o) {
    const std::vector<int32_t> order = greedyOrder(problem, kAllOrders[o]);
    for (GapChoice choice : {GapChoice::BestFit, GapChoice::FirstFit})
      keepIfBetter(placeInOrder(problem, conflicts, order, choice));
  }
  keepIfBetter(bestSimulatedPlan(problem));
  return best;
}

/// Improves `offsets` (aligned arena `arena`) by searching smaller
/// capacities within `workBudget` search steps.
void searchSmallerArena(const PlanProblem &problem,
                        const std::vector<std::vector<int32_t>> &conflicts, int64_t lowerBound,
                        int64_t workBudget, std::vector<int64_t> &offsets, int64_t arena) {
  CanonicalSearch search(problem, conflicts);
  const int64_t alignment = problem.alignment;
  int64_t failed = alignUp(lowerBound, alignment) - alignment; // known or assumed too small
  int64_t remaining = workBudget;
  // The lower bound gets half the budget: reaching it ends the planning.
  bool first = true;
  while (remaining > 0 && arena - failed > alignment) {
    int64_t capacity;
    if (first) {
      capacity = failed + alignment;
    } else {
      if (static_cast<double>(arena - failed) < kBisectionTolerance * static_cast<double>(arena))
        break;
      capacity = alignUp(failed + (arena - failed) / 2, alignment);
      if (capacity >= arena)
        capacity = arena - alignment;
    }
    const int64_t budget = first ? remaining / 2 : std::max<int64_t>(remaining / 4, 1);
    first = false;
    std::vector<int64_t> found;
    int64_t used = 0;
    if (search.fit(capacity, budget, found, used) == SearchOutcome::Found) {
      offsets = std::move(found);
      arena = alignedArenaSize(problem, offsets);
    } else {
      failed = capacity;
    }
    remaining -= std::max<int64_t>(used, 1);
  }
}

} // namespace

ArenaPlan planArena(const std::vector<BufferLifetime> &buffers, const PlanOptions &options) {
  ArenaPlan plan;
  plan.lowerBound = livenessLowerBound(buffers);
  if (buffers.empty())
    return plan;
  const PlanProblem problem = makePlanProblem(buffers, options.alignment);
  const int64_t pairs = countConflictingPairs(problem);

  if (options.algorithm == PlanAlgorithm::BestFit) {
    const std::vector<int32_t> order = greedyOrder(problem, GreedyOrder::SizeDescending);
    plan.offsets = pairs <= kMaxListedPairs
                       ? placeInOrder(problem, conflictLists(problem), order, GapChoice::BestFit)
                       : placeInOrderByScan(problem, order);
    plan.arenaSize = rawArenaSize(buffers, plan.offsets);
    return plan;
  }

  if (pairs > kMaxListedPairs) {
    plan.offsets = bestSimulatedPlan(problem);
    plan.arenaSize = rawArenaSize(buffers, plan.offsets);
    return plan;
  }
  const std::vector<std::vector<int32_t>> conflicts = conflictLists(problem);
  plan.offsets = bestGreedyPlan(problem, conflicts, pairs);
  const int64_t arena = alignedArenaSize(problem, plan.offsets);

  int64_t sectionEntries = 0;
  for (size_t i = 0; i < problem.numBuffers(); ++i)
    sectionEntries += problem.endSection[i] - problem.firstSection[i];
  if (options.searchWorkBudget > 0 && problem.numBuffers() <= kMaxSearchBuffers &&
      sectionEntries <= kMaxSearchSectionEntries &&
      arena > alignUp(plan.lowerBound, options.alignment))
    searchSmallerArena(problem, conflicts, plan.lowerBound, options.searchWorkBudget, plan.offsets,
                       arena);
  plan.arenaSize = rawArenaSize(buffers, plan.offsets);
  return plan;
}

} // namespace distc::memory
