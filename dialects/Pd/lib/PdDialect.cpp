//===- PdDialect.cpp - PaddlePaddle program dialect -----------------------===//

#include "distc/Dialect/Pd/PdDialect.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdOps.h"

using namespace mlir;
using namespace distc::pd;

#include "distc/Dialect/Pd/PdDialect.cpp.inc"

void PdDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "distc/Dialect/Pd/PdOps.cpp.inc"
      >();
  registerAttributes();
}

/// Checks that `attr` is a #pd.sharding whose placements fit a value of
/// `type` (the mesh is checked by the program verifier, which has the
/// module's meshes at hand).
static LogicalResult verifyShardingFits(Operation *op, Attribute attr, Type type,
                                        const llvm::Twine &what) {
  auto sharding = dyn_cast<ShardingAttr>(attr);
  if (!sharding)
    return op->emitOpError() << what << " must be a #pd.sharding, got " << attr;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return op->emitOpError() << what << " shards a value of type " << type
                             << ", which is not a ranked tensor";
  llvm::Expected<distc::sharding::TensorDistAttr> dist = sharding.toDistAttr(tensor.getRank());
  if (!dist)
    return op->emitOpError() << what << " " << sharding.placementsString() << " does not fit "
                             << tensor << ": " << llvm::toString(dist.takeError());
  return success();
}

/// `pd.out_names` keeps the ProgramDesc variable name of every result, so it
/// must name each result exactly once ("" for an output slot the original
/// program left empty).
LogicalResult PdDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kShardingsAttr) {
    auto shardings = dyn_cast<ArrayAttr>(attr.getValue());
    if (!shardings)
      return op->emitOpError() << "attribute '" << kShardingsAttr
                               << "' must be an array of #pd.sharding, got " << attr.getValue();
    if (shardings.size() != op->getNumResults())
      return op->emitOpError() << "attribute '" << kShardingsAttr << "' has " << shardings.size()
                               << " shardings for " << op->getNumResults() << " results";
    for (auto [i, sharding] : llvm::enumerate(shardings))
      if (failed(verifyShardingFits(op, sharding, op->getResult(i).getType(),
                                    "the sharding of result " + llvm::Twine(i))))
        return failure();
    return success();
  }
  if (attr.getName() == kVarShardingAttr) {
    auto var = dyn_cast<VarOp>(op);
    if (!var)
      return op->emitOpError() << "attribute '" << kVarShardingAttr
                               << "' belongs on a pd.var; values take '" << kShardingsAttr << "'";
    return verifyShardingFits(op, attr.getValue(), var.getType(), "the sharding");
  }
  if (attr.getName() != kOutNamesAttr)
    return success();
  auto names = dyn_cast<ArrayAttr>(attr.getValue());
  if (!names || !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }))
    return op->emitOpError() << "attribute '" << kOutNamesAttr
                             << "' must be an array of strings, got " << attr.getValue();
  if (names.size() != op->getNumResults())
    return op->emitOpError() << "attribute '" << kOutNamesAttr << "' has " << names.size()
                             << " names for " << op->getNumResults() << " results";
  return success();
}
