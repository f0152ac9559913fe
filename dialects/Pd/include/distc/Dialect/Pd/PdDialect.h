//===- PdDialect.h - PaddlePaddle program dialect -------------*- C++ -*-===//
//
// The `pd` dialect (class distc::pd::PdDialect). See PdOps.h for its ops and
// docs/dialect.md for the IR conventions.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDDIALECT_H
#define DISTC_DIALECT_PD_PDDIALECT_H

#include "distc/Sharding/DistAttr.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "distc/Dialect/Pd/PdDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "distc/Dialect/Pd/PdAttrs.h.inc"

namespace distc::pd {
/// Discardable attributes of the dialect's sharding annotations.
inline constexpr llvm::StringLiteral kShardingsAttr = "pd.shardings"; // one per result
inline constexpr llvm::StringLiteral kVarShardingAttr = "pd.sharding"; // on a pd.var
/// On a module whose programs distc-partition made local: its types are
/// each rank's, its shardings say how they relate to the global tensors.
inline constexpr llvm::StringLiteral kPartitionedAttr = "pd.partitioned";
} // namespace distc::pd

#endif // DISTC_DIALECT_PD_PDDIALECT_H
