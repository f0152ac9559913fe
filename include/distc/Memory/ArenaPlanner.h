//===- ArenaPlanner.h - Static offsets for temporary buffers ----*- C++ -*-===//
//
// Assigns every temporary buffer of a program an offset in one arena, so
// that a step allocates nothing: the program holds one block of
// `arenaSize` bytes and each buffer lives at `arena + offset`.
//
// The problem. A buffer is live on the half-open step interval
// [lower, upper) and needs `size` bytes. Two buffers conflict when their
// lifetimes intersect; conflicting buffers must get disjoint byte ranges
// [offset, offset + size). Buffers that never live at the same time may
// share bytes. The arena is max(offset + size). No plan can be smaller
// than the liveness lower bound, the most bytes live at any one step; the
// quality of a plan is arenaSize / lowerBound (1.0 is optimal).
//
// Finding the smallest arena is NP-hard (it is dynamic storage allocation),
// so the planner is a heuristic with an exact search on top:
//
//   1. greedy placement under several buffer orders (best fit into the gaps
//      left by already placed conflicting buffers), keeping the smallest
//      arena; for inputs with very many conflicting pairs a time-ordered
//      allocator simulation instead (O(n log n));
//   2. for inputs of up to a few thousand buffers, a branch-and-bound
//      search over canonical solutions (the approach of MiniMalloc, Moffitt,
//      ASPLOS 2023) that tries to fit the buffers into a smaller capacity,
//      starting at the lower bound, bounded by a count of work steps.
//
// Guarantees:
//   * validity: the returned plan never places two conflicting buffers on
//     overlapping bytes, and every offset is a multiple of `alignment`;
//   * determinism: the result depends only on the buffers (in their given
//     order) and the options; searches are bounded by counts of work steps,
//     never by wall-clock time;
//   * complexity: the greedy phase is O(n log n + P log P) for P
//     conflicting pairs (the simulation alone past a bound on P), the search
//     O(searchWorkBudget) (a step is one buffer or section visited).
//
// This library depends on the C++ standard library only: the runtime may
// plan at load time, and the runtime never links MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_MEMORY_ARENAPLANNER_H
#define DISTC_MEMORY_ARENAPLANNER_H

#include <cstdint>
#include <vector>

namespace distc::memory {

/// One buffer to place: live on [lower, upper), `size` bytes. Ids are the
/// caller's names for buffers (they appear in messages); the planner does
/// not require them to be dense or sorted.
struct BufferLifetime {
  int64_t id = 0;
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t size = 0;
};

/// How to plan.
enum class PlanAlgorithm {
  /// Greedy orders plus the bounded exact search: the best plan.
  Best,
  /// Buffers by decreasing size, each at the best-fitting gap: the classic
  /// baseline (TFLite's and XLA's heap planners), kept for comparison.
  BestFit,
};

struct PlanOptions {
  /// Every offset is a multiple of this (> 0). 1 packs bytes exactly; the
  /// compiler uses 64 (a cache line, and enough for any vector load).
  int64_t alignment = 1;
  PlanAlgorithm algorithm = PlanAlgorithm::Best;
  /// Work steps (buffers and sections visited) the exact search may spend
  /// over all its attempts; 0 turns the search off. Bounds the time (about
  /// a nanosecond a step) without making the result depend on the machine.
  int64_t searchWorkBudget = 4'000'000'000;
};

/// A plan: offsets[i] is the offset of buffers[i].
struct ArenaPlan {
  std::vector<int64_t> offsets;
  /// max(offset + size) over all buffers, 0 for none.
  int64_t arenaSize = 0;
  /// The most bytes live at any one step (sizes as given, unaligned).
  int64_t lowerBound = 0;
};

/// Plans `buffers`. Preconditions (checked by readers of untrusted input,
/// such as readBufferTrace, before calling): lower < upper, size > 0,
/// options.alignment > 0, and every sum of sizes fits in int64_t.
ArenaPlan planArena(const std::vector<BufferLifetime> &buffers,
                    const PlanOptions &options = PlanOptions());

/// The most bytes live at any one step, by a sweep over lifetime ends:
/// O(n log n). A buffer stops being live at its `upper` step, so one that
/// ends at step t and one that starts at t never count together.
int64_t livenessLowerBound(const std::vector<BufferLifetime> &buffers);

} // namespace distc::memory

#endif // DISTC_MEMORY_ARENAPLANNER_H
