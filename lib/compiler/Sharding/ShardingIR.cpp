//===- ShardingIR.cpp - Shardings as the pd dialect carries them ----------===//

#include "ShardingIR.h"

#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Transforms/ProgramUtils.h"

using namespace mlir;

namespace distc::sharding {

FailureOr<std::optional<MeshInfo>> findMesh(ModuleOp module) {
  std::optional<MeshInfo> found;
  for (pd::MeshOp mesh : module.getOps<pd::MeshOp>()) {
    if (found) {
      module.emitError() << "the program has several meshes (@" << found->op.getSymName()
                         << ", @" << mesh.getSymName()
                         << "): distc places a program on one mesh";
      return failure();
    }
    found = MeshInfo{mesh, FlatSymbolRefAttr::get(mesh.getSymNameAttr()), mesh.getProcessMesh()};
  }
  return found;
}

pd::ShardingAttr toShardingAttr(const MeshInfo &mesh, const TensorDistAttr &dist, bool annotated) {
  std::vector<Placement> placements = toPlacements(dist, mesh.rank());
  return pd::ShardingAttr::get(mesh.ref.getContext(), mesh.ref, placements, annotated);
}

std::string formatPlacements(const MeshInfo &mesh, const TensorDistAttr &dist) {
  return formatPlacements(toPlacements(dist, mesh.rank()));
}

std::optional<TensorDistAttr> toDist(Attribute attr, int64_t rank) {
  auto sharding = dyn_cast_or_null<pd::ShardingAttr>(attr);
  if (!sharding)
    return std::nullopt;
  llvm::Expected<TensorDistAttr> dist = sharding.toDistAttr(rank);
  if (!dist) {
    llvm::consumeError(dist.takeError());
    return std::nullopt;
  }
  return *dist;
}

RankedTensorType tensorTypeOf(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

pd::VarOp variableOf(Operation *op, SymbolTableCollection &symbols) {
  auto ref = op->getAttrOfType<FlatSymbolRefAttr>("var");
  if (!ref)
    return {};
  return symbols.lookupNearestSymbolFrom<pd::VarOp>(op, ref);
}

pd::ShardingAttr shardingOf(Value value, SymbolTableCollection &symbols) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return {};
  if (isa<pd::ReadVarOp>(def)) {
    pd::VarOp var = variableOf(def, symbols);
    return var ? var->getAttrOfType<pd::ShardingAttr>(pd::kVarShardingAttr) : pd::ShardingAttr();
  }
  auto all = def->getAttrOfType<ArrayAttr>(pd::kShardingsAttr);
  unsigned index = cast<OpResult>(value).getResultNumber();
  if (!all || index >= all.size())
    return {};
  return dyn_cast<pd::ShardingAttr>(all[index]);
}

Block &programBody(Operation *program) { return program->getRegion(0).front(); }

std::string describeOp(Operation *op) {
  unsigned index = 0;
  for (Operation &other : *op->getBlock()) {
    if (&other == op)
      break;
    ++index;
  }
  return "op #" + std::to_string(index) + " '" + op->getName().stripDialect().str() + "'";
}

std::string describeValue(Value value) {
  std::string name = variableName(value);
  if (!name.empty())
    return "'" + name + "'";
  if (auto result = dyn_cast<OpResult>(value))
    return "result " + std::to_string(result.getResultNumber()) + " of " +
           describeOp(result.getOwner());
  return "a block argument";
}

} // namespace distc::sharding
