//===- Placements.h - User sharding annotations (--placements) -*- C++ -*-===//
//
// The `shard_tensor` calls of a Paddle script as a file:
//
//   {"mesh": {"shape": [2, 2], "dim_names": ["dp", "mp"]},
//    "tensors": {"x": ["Shard(0)", "Replicate()"],
//                "fc_0.w_0": ["Replicate()", "Shard(1)"]}}
//
// `mesh` may also give `process_ids`. Each tensor is a parameter or other
// persistable variable (by name) or a value of the main program (by its
// Paddle variable name: a feed, an activation), with one placement per mesh
// axis. Annotating puts the mesh in the module (`pd.mesh @mesh`) and marks
// each named tensor with an annotated `#pd.sharding`; tensors not named are
// left for propagation (parameters start replicated).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SHARDING_PLACEMENTS_H
#define DISTC_SHARDING_PLACEMENTS_H

#include "distc/Sharding/DistAttr.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace distc::sharding {

struct PlacementsSpec {
  ProcessMesh mesh;
  /// Tensor name and its placements, in the file's order.
  std::vector<std::pair<std::string, std::vector<Placement>>> tensors;
};

/// Parses a placements file's text; `source` names it in errors. Checks the
/// mesh and that each tensor lists one valid placement per mesh axis.
llvm::Expected<PlacementsSpec> parsePlacements(llvm::StringRef text, llvm::StringRef source);

/// Reads and parses the file at `path`.
llvm::Expected<PlacementsSpec> readPlacementsFile(llvm::StringRef path);

/// The symbol of the mesh annotate() creates.
inline constexpr llvm::StringLiteral kDefaultMeshName = "mesh";

/// Adds `spec`'s mesh to `module` and annotates each named tensor of the
/// module's variables and its `@main` program. Fails, with an error that
/// names the tensor and the placements, on an unknown name, a placement
/// that does not fit the tensor (an axis out of range, one tensor axis split
/// twice) or a split size the mesh axis does not divide. The module is left
/// unchanged on failure.
llvm::Error annotate(mlir::ModuleOp module, const PlacementsSpec &spec);

} // namespace distc::sharding

#endif // DISTC_SHARDING_PLACEMENTS_H
