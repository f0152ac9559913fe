//===- ArenaLayout.h - What a program's arena holds -------------*- C++ -*-===//
//
// The facts about a program's temporaries that both the compiler, which
// plans the arena (PlanArenas.cpp), and the artifact validator, which
// checks a plan before the runtime trusts it, derive from the same call
// list (artifact.fbs, Arena):
//
//  * a temporary's lifetime: the calls from its first use to its last,
//    where a use of any view of it counts as a use of it;
//  * its footprint: bytes, when its dims are static; bytes per unit of one
//    symbol, when exactly one dim is symbolic (size binding[sym] * value,
//    div 1: a batch dim), so that a plan in those units holds for every
//    bound size; anything else is not planned and gets storage of its own.
//
// Neither depends on how the artifact is held (ArtifactDesc or the
// FlatBuffer): callers pass plain vectors.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_ARENALAYOUT_H
#define DISTC_ARTIFACT_ARENALAYOUT_H

#include <cstdint>
#include <vector>

namespace distc::fb {
struct Artifact;
struct Program;
struct Dim;
} // namespace distc::fb

namespace distc::artifact {

struct ArtifactDesc;
struct ProgramDesc;
struct BufferDesc;

/// Offsets and region starts in an arena are multiples of this: a cache
/// line, and enough for any vector load.
inline constexpr int64_t kArenaAlignment = 64;

/// One dim as the artifact stores it: static when sym < 0 (size value),
/// else size binding[sym] * value / div.
struct DimTerm {
  int32_t sym = -1;
  int64_t value = 0;
  int64_t div = 1;
};

struct ArenaFootprint {
  enum class Kind { Static, Scaled, Unplanned };
  Kind kind = Kind::Unplanned;
  /// Scaled: the symbol whose binding multiplies `bytes`.
  int32_t symbol = -1;
  /// Static: the buffer's bytes; scaled: its bytes per unit of `symbol`.
  int64_t bytes = 0;
};

/// The footprint of a buffer of `dims` with elements of `elementBytes`.
/// Sizes that overflow, or are zero, are Unplanned.
ArenaFootprint arenaFootprint(const std::vector<DimTerm> &dims, int64_t elementBytes);

/// A temporary's lifetime in calls: used by calls first .. last.
struct TempLifetime {
  int32_t buffer = -1;
  int64_t first = 0;
  int64_t last = 0;
};

/// The lifetimes of the temporaries a program uses, in buffer order.
/// `rootOf[b]` is the buffer whose storage b is (itself, or the end of
/// its alias_of chain), `isTemp[b]` whether buffer b is a Temp, and
/// `callBuffers[c]` the buffers call c reads or writes (-1 entries are
/// skipped), followed by one more entry with the program's fetches, which
/// are read after its last call. Every index must be in range (the validator checks them
/// first).
std::vector<TempLifetime> tempLifetimes(const std::vector<int32_t> &rootOf,
                                        const std::vector<char> &isTemp,
                                        const std::vector<std::vector<int32_t>> &callBuffers);

/// tempLifetimes of `program`, from a loaded artifact whose buffers the
/// validator has checked (in range, no cycle of views), or from the
/// ArtifactDesc the compiler is writing: the validator and the memory
/// report read the one, the arena planner (PlanArenas.h) the other.
std::vector<TempLifetime> tempLifetimesOf(const fb::Artifact &artifact,
                                          const fb::Program &program);
std::vector<TempLifetime> tempLifetimesOf(const ArtifactDesc &artifact,
                                          const ProgramDesc &program);

/// arenaFootprint of buffer `buffer` of a loaded artifact, or of `buffer`.
ArenaFootprint arenaFootprintOf(const fb::Artifact &artifact, uint32_t buffer);
ArenaFootprint arenaFootprintOf(const BufferDesc &buffer);

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_ARENALAYOUT_H
