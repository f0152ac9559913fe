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
}

/// `pd.out_names` keeps the ProgramDesc variable name of every result, so it
/// must name each result exactly once ("" for an output slot the original
/// program left empty).
LogicalResult PdDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
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
