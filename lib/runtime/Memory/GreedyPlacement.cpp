//===- GreedyPlacement.cpp - Fast constructive plans ----------------------===//

#include "GreedyPlacement.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace distc::memory::detail {
namespace {

using ByteRange = std::pair<int64_t, int64_t>; // [begin, end)

/// The offset for `need` bytes among the `occupied` ranges (unsorted,
/// possibly overlapping each other): a gap between them, or the top.
int64_t chooseGap(std::vector<ByteRange> &occupied, int64_t need, GapChoice choice) {
  std::sort(occupied.begin(), occupied.end());
  int64_t cursor = 0;
  int64_t best = -1;
  int64_t bestGap = std::numeric_limits<int64_t>::max();
  for (const ByteRange &range : occupied) {
    if (range.first > cursor) {
      const int64_t gap = range.first - cursor;
      if (gap >= need) {
        if (choice == GapChoice::FirstFit)
          return cursor;
        if (gap < bestGap) {
          bestGap = gap;
          best = cursor;
        }
      }
    }
    cursor = std::max(cursor, range.second);
  }
  return best >= 0 ? best : cursor;
}

/// Range maxima over a fixed array in O(1) after O(n log n) preparation.
class RangeMax {
public:
  explicit RangeMax(std::vector<int64_t> values) {
    levels.push_back(std::move(values));
    for (size_t width = 1; 2 * width <= levels[0].size(); width *= 2) {
      const std::vector<int64_t> &prev = levels.back();
      std::vector<int64_t> next(prev.size() - width);
      for (size_t i = 0; i < next.size(); ++i)
        next[i] = std::max(prev[i], prev[i + width]);
      levels.push_back(std::move(next));
    }
  }
  /// max over [begin, end), begin < end.
  int64_t query(size_t begin, size_t end) const {
    size_t level = 0;
    while ((size_t(2) << level) <= end - begin)
      ++level;
    return std::max(levels[level][begin], levels[level][end - (size_t(1) << level)]);
  }

private:
  std::vector<std::vector<int64_t>> levels;
};

} // namespace

std::vector<int32_t> greedyOrder(const PlanProblem &problem, GreedyOrder order) {
  const size_t n = problem.numBuffers();
  std::vector<int64_t> primary(n), secondary(n);
  std::vector<int64_t> peak;
  if (order == GreedyOrder::PeakFirst) {
    RangeMax live(sectionLiveBytes(problem));
    peak.resize(n);
    for (size_t i = 0; i < n; ++i)
      peak[i] = live.query(problem.firstSection[i], problem.endSection[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = problem.size[i];
    const int64_t length = problem.length[i];
    switch (order) {
    case GreedyOrder::SizeDescending:
      primary[i] = size;
      secondary[i] = length;
      break;
    case GreedyOrder::LengthDescending:
      primary[i] = length;
      secondary[i] = size;
      break;
    case GreedyOrder::AreaDescending:
      // Sizes fit in int64_t with room to spare for realistic inputs; the
      // product is only a sort key, so saturate instead of overflowing.
      primary[i] = size > std::numeric_limits<int64_t>::max() / length
                       ? std::numeric_limits<int64_t>::max()
                       : size * length;
      secondary[i] = size;
      break;
    case GreedyOrder::PeakFirst:
      primary[i] = peak[i];
      secondary[i] = size;
      break;
    case GreedyOrder::StartAscending:
      primary[i] = -static_cast<int64_t>(problem.firstSection[i]);
      secondary[i] = size;
      break;
    }
  }
  std::vector<int32_t> indices(n);
  for (size_t i = 0; i < n; ++i)
    indices[i] = static_cast<int32_t>(i);
  std::sort(indices.begin(), indices.end(), [&](int32_t a, int32_t b) {
    if (primary[a] != primary[b])
      return primary[a] > primary[b];
    if (secondary[a] != secondary[b])
      return secondary[a] > secondary[b];
    return a < b;
  });
  return indices;
}

std::vector<int64_t> placeInOrder(const PlanProblem &problem,
                                  const std::vector<std::vector<int32_t>> &conflicts,
                                  const std::vector<int32_t> &order, GapChoice choice) {
  std::vector<int64_t> offsets(problem.numBuffers(), -1);
  std::vector<ByteRange> occupied;
  for (int32_t buffer : order) {
    occupied.clear();
    for (int32_t other : conflicts[buffer])
      if (offsets[other] >= 0)
        occupied.emplace_back(offsets[other], offsets[other] + problem.size[other]);
    offsets[buffer] = chooseGap(occupied, problem.size[buffer], choice);
  }
  return offsets;
}

std::vector<int64_t> placeInOrderByScan(const PlanProblem &problem,
                                        const std::vector<int32_t> &order) {
  std::vector<int64_t> offsets(problem.numBuffers(), -1);
  std::vector<int32_t> placed;
  std::vector<ByteRange> occupied;
  for (int32_t buffer : order) {
    occupied.clear();
    for (int32_t other : placed)
      if (problem.conflict(buffer, other))
        occupied.emplace_back(offsets[other], offsets[other] + problem.size[other]);
    offsets[buffer] = chooseGap(occupied, problem.size[buffer], GapChoice::BestFit);
    placed.push_back(buffer);
  }
  return offsets;
}

std::vector<int64_t> simulateAllocator(const PlanProblem &problem, StepOrder stepOrder) {
  const size_t n = problem.numBuffers();
  // Buffers by start section, then in `stepOrder` within a step; and by
  // end.
  std::vector<int32_t> starting(n), ending(n);
  for (size_t i = 0; i < n; ++i)
    starting[i] = ending[i] = static_cast<int32_t>(i);
  std::sort(starting.begin(), starting.end(), [&](int32_t a, int32_t b) {
    if (problem.firstSection[a] != problem.firstSection[b])
      return problem.firstSection[a] < problem.firstSection[b];
    if (stepOrder == StepOrder::LongestFirst && problem.endSection[a] != problem.endSection[b])
      return problem.endSection[a] > problem.endSection[b];
    if (problem.size[a] != problem.size[b])
      return problem.size[a] > problem.size[b];
    return a < b;
  });
  std::sort(ending.begin(), ending.end(), [&](int32_t a, int32_t b) {
    if (problem.endSection[a] != problem.endSection[b])
      return problem.endSection[a] < problem.endSection[b];
    return a < b;
  });

  std::map<int64_t, int64_t> freeByOffset;          // offset -> length
  std::set<std::pair<int64_t, int64_t>> freeBySize; // (length, offset)
  int64_t top = 0;                                  // everything at or above is free
  std::vector<int64_t> offsets(n, -1);

  auto removeBlock = [&](std::map<int64_t, int64_t>::iterator block) {
    freeBySize.erase({block->second, block->first});
    return freeByOffset.erase(block);
  };
  auto addBlock = [&](int64_t offset, int64_t length) {
    freeByOffset.emplace(offset, length);
    freeBySize.emplace(length, offset);
  };
  auto release = [&](int64_t offset, int64_t length) {
    auto next = freeByOffset.lower_bound(offset);
    if (next != freeByOffset.end() && next->first == offset + length) {
      length += next->second;
      next = removeBlock(next);
    }
    if (next != freeByOffset.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        length += prev->second;
        removeBlock(prev);
      }
    }
    if (offset + length == top)
      top = offset;
    else
      addBlock(offset, length);
  };
  auto allocate = [&](int64_t length) {
    auto fit = freeBySize.lower_bound({length, std::numeric_limits<int64_t>::min()});
    if (fit != freeBySize.end()) {
      const auto [blockLength, blockOffset] = *fit;
      freeBySize.erase(fit);
      freeByOffset.erase(blockOffset);
      if (blockLength > length)
        addBlock(blockOffset + length, blockLength - length);
      return blockOffset;
    }
    const int64_t offset = top;
    top += length;
    return offset;
  };

  size_t nextStart = 0, nextEnd = 0;
  while (nextStart < n) {
    const int32_t step = problem.firstSection[starting[nextStart]];
    for (; nextEnd < n && problem.endSection[ending[nextEnd]] <= step; ++nextEnd) {
      const int32_t buffer = ending[nextEnd];
      release(offsets[buffer], problem.size[buffer]);
    }
    for (; nextStart < n && problem.firstSection[starting[nextStart]] == step; ++nextStart) {
      const int32_t buffer = starting[nextStart];
      offsets[buffer] = allocate(problem.size[buffer]);
    }
  }
  return offsets;
}

} // namespace distc::memory::detail
