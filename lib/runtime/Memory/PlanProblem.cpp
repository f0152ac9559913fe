//===- PlanProblem.cpp - The planner's internal view of the buffers -------===//

#include "PlanProblem.h"

#include <algorithm>

namespace distc::memory::detail {

PlanProblem makePlanProblem(const std::vector<BufferLifetime> &buffers, int64_t alignment) {
  PlanProblem problem;
  problem.alignment = alignment;
  std::vector<int64_t> steps;
  steps.reserve(2 * buffers.size());
  for (const BufferLifetime &buffer : buffers) {
    steps.push_back(buffer.lower);
    steps.push_back(buffer.upper);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  auto sectionOf = [&](int64_t step) {
    return static_cast<int32_t>(std::lower_bound(steps.begin(), steps.end(), step) - steps.begin());
  };
  problem.numSections = steps.empty() ? 0 : static_cast<int32_t>(steps.size() - 1);
  problem.size.reserve(buffers.size());
  problem.firstSection.reserve(buffers.size());
  problem.endSection.reserve(buffers.size());
  problem.length.reserve(buffers.size());
  for (const BufferLifetime &buffer : buffers) {
    problem.size.push_back((buffer.size + alignment - 1) / alignment * alignment);
    problem.firstSection.push_back(sectionOf(buffer.lower));
    problem.endSection.push_back(sectionOf(buffer.upper));
    problem.length.push_back(buffer.upper - buffer.lower);
  }
  return problem;
}

int64_t countConflictingPairs(const PlanProblem &problem) {
  // Pairs that do not conflict: a ends at or before b starts. Every other
  // pair conflicts.
  const int64_t n = static_cast<int64_t>(problem.numBuffers());
  std::vector<int32_t> ends(problem.endSection);
  std::sort(ends.begin(), ends.end());
  int64_t disjoint = 0;
  for (int32_t first : problem.firstSection)
    disjoint += std::upper_bound(ends.begin(), ends.end(), first) - ends.begin();
  return n * (n - 1) / 2 - disjoint;
}

std::vector<std::vector<int32_t>> conflictLists(const PlanProblem &problem) {
  const size_t n = problem.numBuffers();
  std::vector<int32_t> byStart(n);
  for (size_t i = 0; i < n; ++i)
    byStart[i] = static_cast<int32_t>(i);
  std::sort(byStart.begin(), byStart.end(), [&](int32_t a, int32_t b) {
    if (problem.firstSection[a] != problem.firstSection[b])
      return problem.firstSection[a] < problem.firstSection[b];
    return a < b;
  });
  // Sweep in start order: a buffer conflicts with every earlier-started
  // buffer that is still live when it starts.
  std::vector<std::vector<int32_t>> lists(n);
  std::vector<int32_t> live;
  for (int32_t buffer : byStart) {
    const int32_t start = problem.firstSection[buffer];
    size_t kept = 0;
    for (int32_t other : live) {
      if (problem.endSection[other] <= start)
        continue;
      live[kept++] = other;
      lists[buffer].push_back(other);
      lists[other].push_back(buffer);
    }
    live.resize(kept);
    live.push_back(buffer);
  }
  for (std::vector<int32_t> &list : lists)
    std::sort(list.begin(), list.end());
  return lists;
}

std::vector<int64_t> sectionLiveBytes(const PlanProblem &problem) {
  std::vector<int64_t> delta(problem.numSections + 1, 0);
  for (size_t i = 0; i < problem.numBuffers(); ++i) {
    delta[problem.firstSection[i]] += problem.size[i];
    delta[problem.endSection[i]] -= problem.size[i];
  }
  std::vector<int64_t> live(problem.numSections, 0);
  int64_t running = 0;
  for (int32_t s = 0; s < problem.numSections; ++s)
    live[s] = running += delta[s];
  return live;
}

int64_t alignedArenaSize(const PlanProblem &problem, const std::vector<int64_t> &offsets) {
  int64_t arena = 0;
  for (size_t i = 0; i < problem.numBuffers(); ++i)
    arena = std::max(arena, offsets[i] + problem.size[i]);
  return arena;
}

} // namespace distc::memory::detail
