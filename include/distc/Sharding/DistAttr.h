//===- DistAttr.h - Process meshes and tensor distributions ---*- C++ -*-===//
//
// The vocabulary of auto-parallel programs, with Paddle's semantics:
//
//  * a ProcessMesh is an n-D array of ranks with a name per axis
//    (`ProcessMesh([[0, 1], [2, 3]], dim_names=["dp", "mp"])`);
//  * a TensorDistAttr says how one tensor is laid out on a mesh, as Paddle's
//    `dims_mapping` (per tensor axis, the mesh axis that splits it, or -1)
//    plus its partial status (mesh axes over which each rank holds a partial
//    value, with the reduction that completes it);
//  * a Placement is the same per mesh axis, as the user writes it:
//    `Shard(d)`, `Replicate()`, `Partial(sum|avg|max|min)`.
//
// A mesh axis splits at most one tensor axis and a tensor axis is split by at
// most one mesh axis (Paddle's rules forbid both; "co-sharding" one tensor
// axis over several mesh axes is not modelled). A mesh axis that is partial
// splits no tensor axis. verifyDistAttr checks these against a shape.
//
// Nothing here depends on MLIR: the `pd` dialect's sharding attribute, the
// SPMD rules and the query tool share these types (the implementation is
// built into the dialect library, which every user of them links).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SHARDING_DISTATTR_H
#define DISTC_SHARDING_DISTATTR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distc::sharding {

/// The dims_mapping entry of a tensor axis no mesh axis splits.
inline constexpr int64_t kReplicated = -1;

/// How the partial values of a tensor combine (Paddle's ReduceType).
enum class ReduceType : uint8_t { Sum, Avg, Max, Min, Prod, Any, All };

/// "sum", "avg", "max", "min", "prod", "any", "all".
std::string_view reduceTypeName(ReduceType type);
/// The inverse of reduceTypeName; also takes Paddle's enum spellings
/// ("kRedSum", "ReduceType.kRedMax").
std::optional<ReduceType> parseReduceType(std::string_view name);

/// An n-D array of ranks. Ranks are numbered row-major over `shape`
/// (`processIds` lists them when they are not 0..size-1).
struct ProcessMesh {
  std::vector<int64_t> shape;
  std::vector<std::string> dimNames;
  std::vector<int64_t> processIds;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t size() const;
  /// The index of axis `name`, or -1.
  int64_t axisNamed(std::string_view name) const;
  /// The row-major coordinates of process `rank` in the mesh; nullopt when
  /// the mesh does not hold it.
  std::optional<std::vector<int64_t>> coordinatesOf(int64_t rank) const;
  /// The processes along axis `axis`: one group per position on the other
  /// axes (row-major), each ordered by its coordinate on `axis` -- the
  /// ranks that communicate over that axis.
  std::vector<std::vector<int64_t>> groupsAlong(int64_t axis) const;
  /// Default names "d0", "d1", ... where none were given, ids 0..size-1.
  void fillDefaults();
  /// Checks the shape (positive sizes), the names (as many as axes,
  /// distinct) and the ids (a permutation of distinct non-negative ranks).
  llvm::Error verify() const;
  std::string str() const;
  bool operator==(const ProcessMesh &other) const {
    return shape == other.shape && dimNames == other.dimNames && processIds == other.processIds;
  }
  bool operator!=(const ProcessMesh &other) const { return !(*this == other); }
};

/// One tensor's layout on a mesh.
struct TensorDistAttr {
  /// Per tensor axis: the mesh axis splitting it, or kReplicated.
  std::vector<int64_t> dimsMapping;
  /// Mesh axes over which the tensor is partial, and how it combines.
  std::map<int64_t, ReduceType> partial;

  /// A tensor of `rank` axes, whole on every rank.
  static TensorDistAttr replicated(size_t rank);

  size_t tensorRank() const { return dimsMapping.size(); }
  bool isSharded(size_t axis) const { return dimsMapping[axis] != kReplicated; }
  bool isPartial() const { return !partial.empty(); }
  /// The partial mesh axes, ascending.
  std::vector<int64_t> partialDims() const;
  /// The tensor axis mesh axis `meshDim` splits, or -1.
  int64_t tensorAxisOf(int64_t meshDim) const;
  /// `[1, -1] partial(0:sum)`.
  std::string str() const;
  bool operator==(const TensorDistAttr &other) const {
    return dimsMapping == other.dimsMapping && partial == other.partial;
  }
  bool operator!=(const TensorDistAttr &other) const { return !(*this == other); }
};

/// What one mesh axis does to a tensor.
struct Placement {
  enum class Kind : uint8_t { Replicate, Shard, Partial };
  Kind kind = Kind::Replicate;
  int64_t dim = 0;                     // the tensor axis, for Shard
  ReduceType reduce = ReduceType::Sum; // for Partial

  static Placement replicate() { return {}; }
  static Placement shard(int64_t dim) { return {Kind::Shard, dim, ReduceType::Sum}; }
  static Placement partialOf(ReduceType type) { return {Kind::Partial, 0, type}; }

  /// `Shard(1)`, `Replicate()`, `Partial(sum)`.
  std::string str() const;
  /// Parses the spellings str() prints; also `Partial()` (sum), Paddle's
  /// `Partial(ReduceType.kRedMax)`, and `S(1)`, `R`, `P` shorthands.
  static llvm::Expected<Placement> parse(std::string_view text);
  bool operator==(const Placement &other) const {
    return kind == other.kind && (kind != Kind::Shard || dim == other.dim) &&
           (kind != Kind::Partial || reduce == other.reduce);
  }
  bool operator!=(const Placement &other) const { return !(*this == other); }
};

/// For MLIR attribute storage (`#pd.sharding` keeps its placements).
inline llvm::hash_code hash_value(const Placement &p) {
  return llvm::hash_combine(static_cast<int>(p.kind),
                            p.kind == Placement::Kind::Shard ? p.dim : 0,
                            p.kind == Placement::Kind::Partial ? static_cast<int>(p.reduce) : 0);
}

/// The placement of `attr` on each of `meshRank` mesh axes.
std::vector<Placement> toPlacements(const TensorDistAttr &attr, int64_t meshRank);
/// The dist attr of a tensor of `tensorRank` axes placed by `placements`
/// (one per mesh axis). Fails when a Shard names an axis the tensor lacks or
/// two mesh axes split one tensor axis.
llvm::Expected<TensorDistAttr> fromPlacements(llvm::ArrayRef<Placement> placements,
                                              int64_t tensorRank);
/// `[Shard(0), Replicate()]`.
std::string formatPlacements(llvm::ArrayRef<Placement> placements);

/// Checks `attr` for a tensor of `shape` on a mesh of `meshShape`: one entry
/// per tensor axis; mesh axes in range; a mesh axis splits at most one tensor
/// axis and is not also partial; a split axis of static size is divided by
/// its mesh axis (distc does not pad uneven shards; a dynamic size, such as
/// the batch, is checked when it is bound). The message names the offending
/// axis; callers prefix the tensor's name.
llvm::Error verifyDistAttr(const TensorDistAttr &attr, llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<int64_t> meshShape);

/// The local shape of a tensor of global `shape` on one rank (every split
/// axis divided by its mesh axis; dynamic sizes stay dynamic).
std::vector<int64_t> localShape(llvm::ArrayRef<int64_t> shape, const TensorDistAttr &attr,
                                llvm::ArrayRef<int64_t> meshShape);

} // namespace distc::sharding

#endif // DISTC_SHARDING_DISTATTR_H
