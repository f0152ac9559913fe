//===- PlanValidator.cpp - Checks an arena plan ---------------------------===//

#include "distc/Memory/PlanValidator.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <tuple>

namespace distc::memory {
namespace {

std::string describe(const BufferLifetime &buffer, int64_t offset) {
  // Both are non-negative here, so the end fits in 64 unsigned bits even
  // where a corrupted offset would overflow int64_t.
  const uint64_t end = static_cast<uint64_t>(offset) + static_cast<uint64_t>(buffer.size);
  return std::to_string(buffer.id) + " (steps [" + std::to_string(buffer.lower) + ", " +
         std::to_string(buffer.upper) + "), bytes [" + std::to_string(offset) + ", " +
         std::to_string(end) + "))";
}

} // namespace

std::string findPlanViolation(const std::vector<BufferLifetime> &buffers,
                              const std::vector<int64_t> &offsets, int64_t arenaSize) {
  if (offsets.size() != buffers.size())
    return "the plan has " + std::to_string(offsets.size()) + " offsets for " +
           std::to_string(buffers.size()) + " buffers";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferLifetime &buffer = buffers[i];
    if (buffer.size <= 0)
      return "buffer " + std::to_string(buffer.id) + " has size " + std::to_string(buffer.size);
    if (buffer.lower >= buffer.upper)
      return "buffer " + std::to_string(buffer.id) + " has an empty lifetime [" +
             std::to_string(buffer.lower) + ", " + std::to_string(buffer.upper) + ")";
    if (offsets[i] < 0)
      return "buffer " + std::to_string(buffer.id) + " has a negative offset " +
             std::to_string(offsets[i]);
    if (offsets[i] > arenaSize || buffer.size > arenaSize - offsets[i])
      return "buffer " + describe(buffer, offsets[i]) + " ends past the arena of " +
             std::to_string(arenaSize) + " bytes";
  }

  // Events in step order; at one step, ends before starts (half-open
  // lifetimes), then by input index so the report is deterministic.
  std::vector<std::tuple<int64_t, int, size_t>> events;
  events.reserve(2 * buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    events.emplace_back(buffers[i].lower, 1, i);
    events.emplace_back(buffers[i].upper, 0, i);
  }
  std::sort(events.begin(), events.end());
  std::set<std::pair<int64_t, size_t>> live; // (offset, index), pairwise disjoint
  for (const auto &[step, isStart, index] : events) {
    (void)step;
    const std::pair<int64_t, size_t> key(offsets[index], index);
    if (!isStart) {
      live.erase(key);
      continue;
    }
    auto next = live.lower_bound(key);
    // Every buffer lies in [0, arenaSize) by now: no sum overflows.
    auto overlapping = [&](size_t a, size_t b) {
      return offsets[a] < offsets[b] + buffers[b].size && offsets[b] < offsets[a] + buffers[a].size;
    };
    std::optional<size_t> clash;
    if (next != live.begin() && overlapping(std::prev(next)->second, index))
      clash = std::prev(next)->second;
    else if (next != live.end() && overlapping(next->second, index))
      clash = next->second;
    if (clash) {
      size_t a = std::min(*clash, index), b = std::max(*clash, index);
      return "buffers " + describe(buffers[a], offsets[a]) + " and " +
             describe(buffers[b], offsets[b]) + " are live together and overlap";
    }
    live.insert(next, key);
  }
  return "";
}

} // namespace distc::memory
