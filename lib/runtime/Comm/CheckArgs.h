//===- CheckArgs.h - Argument checks shared by communicators ----*- C++ -*-===//
//
// Every implementation checks arguments the same way, so a program that
// passes them on one rank (LocalCommunicator) passes them on many.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_CHECKARGS_H
#define DISTC_LIB_COMM_CHECKARGS_H

#include "distc/Comm/Communicator.h"

#include <string>
#include <vector>

namespace distc::comm::detail {

Status checkBuffer(const char *op, const void *data, size_t count);
Status checkReducible(const char *op, DType dtype);
Status checkRoot(const char *op, int root, int size);
Status checkElementType(const char *op, DType dtype);
/// allgather's arguments on rank `rank` of `size`: both buffers, the
/// element type, and `in` either this rank's block of `out` (in place) or
/// apart from `out` (Communicator.h).
Status checkAllgather(const void *in, const void *out, size_t countPerRank, DType dtype, int rank,
                      int size);
/// reduceScatter's and alltoall's buffers: `in` (`inCount` elements) and
/// `out` (`outCount`), of a known element type, apart from each other.
Status checkDisjoint(const char *op, const void *in, size_t inCount, const void *out,
                     size_t outCount, DType dtype);
/// makeSubgroup's arguments on rank `rank` of `size`: distinct ranks in
/// [0, size), `rank` among them, a positive ring id. `member` is the
/// position of `rank` in the group.
Status checkGroup(const std::vector<int> &groupRanks, int ringId, int rank, int size, int &member);
/// "ring 2"; " on ring 2" is appended to the names of a sub-group's
/// collectives in messages.
std::string ringLabel(int ringId);
/// A sub-group's options, from its world's (GlooOptions, NcclOptions): the
/// groups of a ring partition the ranks, so the ring and the group's first
/// world rank name the group's store keys; failure records stay under the
/// world's prefix, where the launcher looks for them.
template <typename Options>
Options subgroupOptions(const Options &world, int ringId, int firstWorldRank) {
  Options o = world;
  o.prefix = world.prefix + "/ring" + std::to_string(ringId) + "/" + std::to_string(firstWorldRank);
  o.recordsPrefix = world.recordsPrefix.empty() ? world.prefix : world.recordsPrefix;
  return o;
}

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_CHECKARGS_H
