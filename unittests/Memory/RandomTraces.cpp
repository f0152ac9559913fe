//===- RandomTraces.cpp - Deterministic inputs for planner tests ----------===//

#include "RandomTraces.h"

#include <algorithm>

namespace distc::memory::testing {
namespace {

/// A value in [lo, hi] from raw generator output.
int64_t uniform(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

struct Rect {
  int64_t lower, upper, bottom, top;
};

} // namespace

std::vector<BufferLifetime> randomBuffers(uint32_t seed, size_t count, int64_t steps,
                                          int64_t maxSize) {
  std::mt19937 rng(seed);
  std::vector<BufferLifetime> buffers;
  for (size_t i = 0; i < count; ++i) {
    const int64_t lower = uniform(rng, 0, steps - 1);
    // Mostly short lifetimes, some long ones, like temporaries and
    // activations.
    const int64_t longest = uniform(rng, 0, 3) == 0 ? steps : std::max<int64_t>(steps / 8, 1);
    const int64_t upper = std::min(steps, lower + uniform(rng, 1, longest));
    buffers.push_back({static_cast<int64_t>(i) * 3 + 1, lower, upper, uniform(rng, 1, maxSize)});
  }
  return buffers;
}

std::vector<BufferLifetime> tiledBuffers(uint32_t seed, int cuts, int64_t steps, int64_t height) {
  std::mt19937 rng(seed);
  std::vector<Rect> rects{{0, steps, 0, height}};
  for (int c = 0; c < cuts; ++c) {
    // Cut the piece with the largest area that can still be cut.
    size_t pick = rects.size();
    for (size_t i = 0; i < rects.size(); ++i) {
      const Rect &r = rects[i];
      if (r.upper - r.lower < 2 && r.top - r.bottom < 2)
        continue;
      if (pick == rects.size() ||
          (r.upper - r.lower) * (r.top - r.bottom) >
              (rects[pick].upper - rects[pick].lower) * (rects[pick].top - rects[pick].bottom))
        pick = i;
    }
    if (pick == rects.size())
      break;
    Rect r = rects[pick];
    const bool inTime = r.top - r.bottom < 2 || (r.upper - r.lower >= 2 && rng() % 2 == 0);
    Rect other = r;
    if (inTime) {
      const int64_t at = uniform(rng, r.lower + 1, r.upper - 1);
      r.upper = other.lower = at;
    } else {
      const int64_t at = uniform(rng, r.bottom + 1, r.top - 1);
      r.top = other.bottom = at;
    }
    rects[pick] = r;
    rects.push_back(other);
  }
  std::vector<BufferLifetime> buffers;
  for (size_t i = 0; i < rects.size(); ++i)
    buffers.push_back(
        {static_cast<int64_t>(i), rects[i].lower, rects[i].upper, rects[i].top - rects[i].bottom});
  return buffers;
}

int64_t arenaOf(const std::vector<BufferLifetime> &buffers, const std::vector<int64_t> &offsets) {
  int64_t arena = 0;
  for (size_t i = 0; i < buffers.size(); ++i)
    arena = std::max(arena, offsets[i] + buffers[i].size);
  return arena;
}

} // namespace distc::memory::testing
