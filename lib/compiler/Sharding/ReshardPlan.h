//===- ReshardPlan.h - From one layout to another, step by step -*- C++ -*-===//
//
// Paddle's reshard transitions on one mesh axis each, composed for n-D
// meshes (Paddle's nd_mesh reshard): partial values are completed first
// (P->R all-reduce, or P->S reduce-scatter where the target splits an axis
// no other mesh axis splits yet), then splits that must change are undone
// or moved (S->R all-gather, S(i)->S(j) all-to-all), then whole axes are
// split (R->S local slice, no communication), and last a replicated value
// becomes partial where the target asks (R->P: the value on one rank of the
// group, zeros on the others). Each step changes the placement on one mesh
// axis, so every step is a collective over the group of ranks along that
// axis, and the steps' order keeps every intermediate layout valid (no mesh
// axis splits two tensor axes, no tensor axis is split twice).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_SHARDING_RESHARDPLAN_H
#define DISTC_LIB_SHARDING_RESHARDPLAN_H

#include "distc/Sharding/DistAttr.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace distc::sharding {

struct ReshardStep {
  enum class Kind {
    AllReduce,     // P -> R over meshAxis, with `reduce`
    ReduceScatter, // P(sum) -> S(axis)
    AllGather,     // S(axis) -> R
    AllToAll,      // S(axis) -> S(toAxis)
    Slice,         // R -> S(axis), local
    RootOnly,      // R -> P(sum): the value on the group's first rank, zeros elsewhere
  };
  Kind kind;
  int64_t meshAxis = 0;
  /// The tensor axis the step gathers, scatters or slices (for AllToAll the
  /// axis split before, `toAxis` the one split after).
  int64_t axis = -1;
  int64_t toAxis = -1;
  ReduceType reduce = ReduceType::Sum;
  /// The layout after the step.
  TensorDistAttr after;

  /// "all-gather(axis 1) over mesh axis 0".
  std::string str() const;
};

/// The steps from `from` to `to` on a mesh of `meshShape`; empty when they
/// are equal. Both must be valid for the same tensor (verifyDistAttr).
std::vector<ReshardStep> planReshard(const TensorDistAttr &from, const TensorDistAttr &to,
                                     llvm::ArrayRef<int64_t> meshShape);

} // namespace distc::sharding

#endif // DISTC_LIB_SHARDING_RESHARDPLAN_H
