//===- ShardingIR.h - Shardings as the pd dialect carries them --*- C++ -*-===//
//
// The passes of the sharding component read and write shardings in the IR
// through these helpers: the module's mesh, a value's sharding (the
// `pd.shardings` of its defining op, or the `pd.sharding` of the variable a
// `pd.read_var` reads), and an op's operand requirements
// (`pd.operand_shardings`, written by propagation and consumed by
// partitioning).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_SHARDING_SHARDINGIR_H
#define DISTC_LIB_SHARDING_SHARDINGIR_H

#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Sharding/DistAttr.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>
#include <vector>

namespace distc::sharding {

/// What each operand of an op must be laid out as: the discardable
/// attribute propagation writes (one #pd.sharding per operand).
inline constexpr llvm::StringLiteral kOperandShardingsAttr = "pd.operand_shardings";

/// The module's process mesh, as the passes use it.
struct MeshInfo {
  pd::MeshOp op;
  mlir::FlatSymbolRefAttr ref;
  ProcessMesh mesh;
  int64_t rank() const { return mesh.rank(); }
  const std::vector<int64_t> &shape() const { return mesh.shape; }
};

/// The module's mesh; nullopt when it has none. More than one mesh is an
/// error (emitted on the module): distc places a program on one mesh.
mlir::FailureOr<std::optional<MeshInfo>> findMesh(mlir::ModuleOp module);

/// `dist` as a #pd.sharding on `mesh`.
pd::ShardingAttr toShardingAttr(const MeshInfo &mesh, const TensorDistAttr &dist,
                                bool annotated = false);

/// `dist`'s placements on `mesh`: `[Shard(0), Replicate()]`.
std::string formatPlacements(const MeshInfo &mesh, const TensorDistAttr &dist);

/// The dist attr of a #pd.sharding for a tensor of `rank` axes (nullopt when
/// `attr` is not one or does not fit).
std::optional<TensorDistAttr> toDist(mlir::Attribute attr, int64_t rank);

/// The ranked tensor type of `value`, or null.
mlir::RankedTensorType tensorTypeOf(mlir::Value value);

/// The sharding IR holds for `value`: its defining op's `pd.shardings`
/// entry, or its variable's `pd.sharding` for a `pd.read_var`. Null when
/// there is none. `symbols` caches the module's symbol table: a pass keeps
/// one for all its lookups, which would otherwise each scan every variable.
pd::ShardingAttr shardingOf(mlir::Value value, mlir::SymbolTableCollection &symbols);

/// The variable `op` (a pd.read_var or pd.write_var) accesses.
pd::VarOp variableOf(mlir::Operation *op, mlir::SymbolTableCollection &symbols);

/// The ops of pd.program `program`, in order.
mlir::Block &programBody(mlir::Operation *program);

/// "op #N 'type'": an op by its position in its program and Paddle type.
std::string describeOp(mlir::Operation *op);

/// A value's name for messages: its Paddle variable name, or the op and
/// result that define it.
std::string describeValue(mlir::Value value);

} // namespace distc::sharding

#endif // DISTC_LIB_SHARDING_SHARDINGIR_H
