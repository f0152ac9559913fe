//===- CanonicalSearch.cpp - Exact search for a plan in a capacity --------===//

#include "CanonicalSearch.h"

#include <algorithm>
#include <limits>

namespace distc::memory::detail {
namespace {

/// The preorders tried in turn. Each lists sort keys, all descending:
/// 'T' the most bytes of any section the buffer covers (buffers at the
/// peak first), 'W' lifetime length in steps, 'A' size * length in steps,
/// 'C' lifetime length in sections, 'B' size * length in sections. The
/// first three are MiniMalloc's; counting sections instead of steps
/// suits traces whose steps are of very uneven length.
constexpr const char *kPreorders[] = {"WAT", "TAW", "TWA", "CBT", "TBC", "TCB"};
constexpr int kNumPreorders = sizeof(kPreorders) / sizeof(kPreorders[0]);

} // namespace

CanonicalSearch::CanonicalSearch(const PlanProblem &problem,
                                 const std::vector<std::vector<int32_t>> &conflicts)
    : problem(problem), conflicts(conflicts) {
  const size_t n = problem.numBuffers();
  const int32_t numSections = problem.numSections;
  initialTotals = sectionLiveBytes(problem);
  rank.assign(n, 0);
  lowestStart.assign(numSections, 0);
}

void CanonicalSearch::setRanks(int heuristic) {
  const size_t n = problem.numBuffers();
  std::vector<int64_t> peak(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (int32_t s = problem.firstSection[i]; s < problem.endSection[i]; ++s)
      peak[i] = std::max(peak[i], initialTotals[s]);
  auto key = [&](char c, int32_t i) -> int64_t {
    const int64_t sections = problem.endSection[i] - problem.firstSection[i];
    auto area = [&](int64_t length) {
      return problem.size[i] > std::numeric_limits<int64_t>::max() / length
                 ? std::numeric_limits<int64_t>::max()
                 : problem.size[i] * length;
    };
    switch (c) {
    case 'T':
      return peak[i];
    case 'W':
      return problem.length[i];
    case 'A':
      return area(problem.length[i]);
    case 'C':
      return sections;
    case 'B':
      return area(sections);
    default:
      return problem.size[i];
    }
  };
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = static_cast<int32_t>(i);
  const char *keys = kPreorders[heuristic];
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    for (const char *c = keys; *c; ++c) {
      const int64_t ka = key(*c, a), kb = key(*c, b);
      if (ka != kb)
        return ka > kb;
    }
    return a < b;
  });
  for (size_t r = 0; r < n; ++r)
    rank[order[r]] = static_cast<int32_t>(r);
}

SearchOutcome CanonicalSearch::fit(int64_t capacityBytes, int64_t workBudget,
                                   std::vector<int64_t> &offsets, int64_t &workUsed) {
  const size_t n = problem.numBuffers();
  capacity = capacityBytes;
  work = 0;
  offset.assign(n, -1);
  minOffset.assign(n, 0);
  floor.assign(problem.numSections, 0);
  solution.assign(n, -1);
  undoLog.clear();

  std::vector<int32_t> all(n);
  for (size_t i = 0; i < n; ++i)
    all[i] = static_cast<int32_t>(i);
  std::vector<int32_t> initialCuts(problem.numSections > 0 ? problem.numSections - 1 : 0, 0);
  for (size_t i = 0; i < n; ++i)
    for (int32_t s = problem.firstSection[i]; s + 1 < problem.endSection[i]; ++s)
      ++initialCuts[s];
  std::vector<int32_t> cutPoints;
  for (size_t s = 0; s < initialCuts.size(); ++s)
    if (initialCuts[s] == 0)
      cutPoints.push_back(static_cast<int32_t>(s + 1));

  // Round robin over the preorders with doubling work limits: an easy
  // instance is solved fast by whichever preorder suits it. The first
  // limit affords a few descents without backtracking.
  SearchOutcome outcome = SearchOutcome::OutOfBudget;
  int64_t limit = 4 * static_cast<int64_t>(n) * (static_cast<int64_t>(n) + problem.numSections);
  int64_t spent = 0;
  while (outcome == SearchOutcome::OutOfBudget && spent < workBudget) {
    for (int heuristic = 0; heuristic < kNumPreorders && spent < workBudget; ++heuristic) {
      setRanks(heuristic);
      total = initialTotals;
      cuts = initialCuts;
      work = 0;
      workLimit = std::min(limit, workBudget - spent);
      outcome = solveSplit(all, 0, problem.numSections, cutPoints);
      spent += std::min(work, workLimit);
      if (outcome != SearchOutcome::OutOfBudget)
        break;
    }
    limit *= 2;
  }
  workUsed = spent;
  if (outcome == SearchOutcome::Found)
    offsets = solution;
  return outcome;
}

SearchOutcome CanonicalSearch::solveSplit(const std::vector<int32_t> &unplaced,
                                          int32_t sectionBegin, int32_t sectionEnd,
                                          const std::vector<int32_t> &cutPoints) {
  if (cutPoints.empty())
    return searchPartition(unplaced, sectionBegin, sectionEnd, -1, -1);
  // No unplaced buffer crosses a cut point, so every buffer lies in exactly
  // one part, and the parts share no section: solve them one by one.
  std::vector<int32_t> bounds;
  bounds.push_back(sectionBegin);
  bounds.insert(bounds.end(), cutPoints.begin(), cutPoints.end());
  bounds.push_back(sectionEnd);
  std::vector<std::vector<int32_t>> parts(bounds.size() - 1);
  for (int32_t buffer : unplaced) {
    const size_t part =
        std::upper_bound(bounds.begin(), bounds.end(), problem.firstSection[buffer]) -
        bounds.begin() - 1;
    parts[part].push_back(buffer);
  }
  for (size_t part = 0; part < parts.size(); ++part) {
    if (parts[part].empty())
      continue;
    SearchOutcome outcome = searchPartition(parts[part], bounds[part], bounds[part + 1], -1, -1);
    if (outcome != SearchOutcome::Found)
      return outcome;
  }
  return SearchOutcome::Found;
}

bool CanonicalSearch::sectionsFit(const std::vector<int32_t> &unplaced, int32_t sectionBegin,
                                  int32_t sectionEnd, int64_t lastOffset) {
  // The unplaced buffers of a section all conflict with each other, so they
  // stack above the section's floor, above the lowest of their minimum
  // offsets, and above the last offset placed (offsets never decrease).
  for (int32_t s = sectionBegin; s < sectionEnd; ++s)
    lowestStart[s] = std::numeric_limits<int64_t>::max();
  for (int32_t buffer : unplaced) {
    const int64_t at = minOffset[buffer];
    for (int32_t s = problem.firstSection[buffer]; s < problem.endSection[buffer]; ++s)
      lowestStart[s] = std::min(lowestStart[s], at);
    work += problem.endSection[buffer] - problem.firstSection[buffer];
  }
  for (int32_t s = sectionBegin; s < sectionEnd; ++s) {
    if (total[s] == 0)
      continue;
    const int64_t base = std::max(std::max(floor[s], lowestStart[s]), lastOffset);
    if (base + total[s] > capacity)
      return false;
  }
  return true;
}

void CanonicalSearch::undoTo(size_t mark) {
  while (undoLog.size() > mark) {
    const auto [index, old] = undoLog.back();
    undoLog.pop_back();
    if (index >= 0)
      minOffset[index] = old;
    else
      floor[-1 - index] = old;
  }
}

SearchOutcome CanonicalSearch::searchPartition(const std::vector<int32_t> &unplaced,
                                               int32_t sectionBegin, int32_t sectionEnd,
                                               int64_t lastOffset, int32_t lastRank) {
  if (unplaced.empty())
    return SearchOutcome::Found;
  // A node costs about one step per unplaced buffer, per section of the
  // partition and per section an unplaced buffer covers (sectionsFit).
  work += static_cast<int64_t>(unplaced.size()) + (sectionEnd - sectionBegin);
  if (work > workLimit)
    return SearchOutcome::OutOfBudget;
  if (!sectionsFit(unplaced, sectionBegin, sectionEnd, lastOffset))
    return SearchOutcome::Infeasible;

  // No buffer may start at or above the lowest top an unplaced buffer can
  // reach: that buffer would fit below it.
  int64_t lowestTop = std::numeric_limits<int64_t>::max();
  for (int32_t buffer : unplaced)
    lowestTop = std::min(lowestTop, minOffset[buffer] + problem.size[buffer]);
  std::vector<int32_t> candidates;
  for (int32_t buffer : unplaced) {
    const int64_t at = minOffset[buffer];
    if (at >= lowestTop)
      continue;
    if (at < lastOffset || (at == lastOffset && rank[buffer] < lastRank))
      continue; // reached in another order already
    candidates.push_back(buffer);
  }
  if (candidates.empty())
    return SearchOutcome::Infeasible;
  std::sort(candidates.begin(), candidates.end(), [&](int32_t a, int32_t b) {
    if (minOffset[a] != minOffset[b])
      return minOffset[a] < minOffset[b];
    return rank[a] < rank[b];
  });

  // Unplaced bytes of the sections left and right of each section, to
  // check a candidate's offset against the sections it does not cover in
  // O(1): everything placed later starts at or above it.
  const size_t width = static_cast<size_t>(sectionEnd - sectionBegin);
  std::vector<int64_t> mostLeft(width + 1, 0), mostRight(width + 1, 0);
  for (size_t i = 0; i < width; ++i)
    mostLeft[i + 1] = std::max(mostLeft[i], total[sectionBegin + i]);
  for (size_t i = width; i > 0; --i)
    mostRight[i - 1] = std::max(mostRight[i], total[sectionBegin + i - 1]);

  std::vector<int32_t> rest, cutPoints;
  for (int32_t buffer : candidates) {
    const int64_t at = minOffset[buffer];
    const int64_t top = at + problem.size[buffer];
    const int32_t first = problem.firstSection[buffer], end = problem.endSection[buffer];
    if (top > capacity)
      continue;
    const int64_t mostOutside =
        std::max(mostLeft[first - sectionBegin], mostRight[end - sectionBegin]);
    if (at + mostOutside > capacity)
      continue;
    bool fits = true;
    for (int32_t s = first; s < end && fits; ++s)
      fits = top + total[s] - problem.size[buffer] <= capacity;
    if (!fits)
      continue;

    work += static_cast<int64_t>(conflicts[buffer].size()) + 2 * (end - first);
    const size_t mark = undoLog.size();
    offset[buffer] = at;
    solution[buffer] = at;
    bool hatless = true;
    for (int32_t other : conflicts[buffer]) {
      if (offset[other] >= 0)
        continue;
      hatless = false;
      if (minOffset[other] >= top)
        continue;
      undoLog.emplace_back(other, minOffset[other]);
      minOffset[other] = top;
    }
    for (int32_t s = first; s < end; ++s) {
      undoLog.emplace_back(-1 - s, floor[s]);
      floor[s] = top;
      total[s] -= problem.size[buffer];
    }
    cutPoints.clear();
    for (int32_t s = first; s + 1 < end; ++s)
      if (--cuts[s] == 0)
        cutPoints.push_back(s + 1);
    rest.clear();
    for (int32_t other : unplaced)
      if (other != buffer)
        rest.push_back(other);
    const SearchOutcome outcome =
        cutPoints.empty() ? searchPartition(rest, sectionBegin, sectionEnd, at, rank[buffer])
                          : solveSplit(rest, sectionBegin, sectionEnd, cutPoints);
    for (int32_t s = first; s + 1 < end; ++s)
      ++cuts[s];
    for (int32_t s = first; s < end; ++s)
      total[s] += problem.size[buffer];
    undoTo(mark);
    offset[buffer] = -1;
    if (outcome != SearchOutcome::Infeasible)
      return outcome;
    // Nothing unplaced conflicts with this buffer: it is in nobody's way at
    // its lowest offset, so no other choice here can succeed where this
    // one failed.
    if (hatless)
      break;
  }
  return SearchOutcome::Infeasible;
}

} // namespace distc::memory::detail
