//===- LivenessBound.cpp - The most bytes live at one step ----------------===//

#include "distc/Memory/ArenaPlanner.h"

#include <algorithm>
#include <utility>

namespace distc::memory {

int64_t livenessLowerBound(const std::vector<BufferLifetime> &buffers) {
  // (step, change in live bytes); at equal steps the ends sort first
  // (negative changes), because lifetimes are half-open.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * buffers.size());
  for (const BufferLifetime &buffer : buffers) {
    events.emplace_back(buffer.lower, buffer.size);
    events.emplace_back(buffer.upper, -buffer.size);
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, most = 0;
  for (const auto &event : events) {
    live += event.second;
    most = std::max(most, live);
  }
  return most;
}

} // namespace distc::memory
