//===- CatalogSlots.h - Which operands of a catalog op are which slot -*- C++ -*-===//
//
// A catalog op's operands (results) are its Paddle input (output) slots in
// order, each slot one value, none (an absent optional slot) or several
// (a variadic slot). These say where each slot's values are, for the
// passes that read an op by slot and for the exporter that writes it back
// out as a Paddle OpDesc.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_CATALOGSLOTS_H
#define DISTC_DIALECT_PD_CATALOGSLOTS_H

#include "distc/Dialect/Pd/OpCatalog.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <utility>

namespace distc::pd {

/// Start and size of each slot.
using SlotGroups = llvm::SmallVector<std::pair<unsigned, unsigned>>;

/// The slots of `op`'s catalog entry `spec` among its operands (results):
/// from the segment sizes when it has them, else one value per fixed slot
/// and the rest for its one variadic or absent optional slot, or one size
/// for every slot when all are variadic (the merged optimizers). Every
/// output slot exists as a result, so only variadic outputs vary. Failure,
/// with `why`, when they do not fit.
mlir::FailureOr<SlotGroups> operandGroups(mlir::Operation *op, const OpSpec &spec,
                                          std::string &why);
mlir::FailureOr<SlotGroups> resultGroups(mlir::Operation *op, const OpSpec &spec, std::string &why);

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_CATALOGSLOTS_H
