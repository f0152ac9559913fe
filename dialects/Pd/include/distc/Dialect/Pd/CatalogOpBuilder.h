//===- CatalogOpBuilder.h - Creating catalogue ops from slots ---*- C++ -*-===//
//
// Passes that write new Paddle ops (autodiff, optimizers, clipping) build
// them the way the importer does: operands grouped by the catalogue's input
// slots, result types from Paddle's shape inference, segment sizes where the
// op has optional groups, and Paddle variable names in `pd.out_names`.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_CATALOGOPBUILDER_H
#define DISTC_DIALECT_PD_CATALOGOPBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace distc::pd {

/// Creates `pd.<type>` at the builder's insertion point. `operandsBySlot`
/// has one entry per catalogue input slot (empty for an absent optional
/// slot); `attrs` are inherent or discardable attributes (omitted inherent
/// ones keep their catalogue defaults); `resultNames` name the results in
/// order (missing trailing names are left empty). Shape inference failures
/// are reported at `loc` and return failure.
mlir::FailureOr<mlir::Operation *>
buildCatalogOp(mlir::OpBuilder &builder, mlir::Location loc, llvm::StringRef type,
               llvm::ArrayRef<llvm::SmallVector<mlir::Value, 1>> operandsBySlot,
               llvm::ArrayRef<mlir::NamedAttribute> attrs,
               llvm::ArrayRef<std::string> resultNames, unsigned numVariadicResults = 0);

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_CATALOGOPBUILDER_H
