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
#include "mlir/IR/BuiltinTypes.h"
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
/// On a partitioned module: the mesh axis whose coordinate is a rank's
/// data-parallel replica (its feeds hold that replica's share of the batch
/// rows). Absent: every rank reads the whole batch.
inline constexpr llvm::StringLiteral kDataAxisAttr = "pd.data_axis";
/// On a pd.fetch whose operand distc-partition resharded: the name of the
/// variable the program fetches, which the runtime's fetch keeps.
inline constexpr llvm::StringLiteral kFetchNameAttr = "pd.fetch_name";
/// On a module nested in a partitioned one: the serial predict program and
/// the variables it reads, as they were before partitioning, which
/// save_inference_model writes (the serial model, whatever the mesh).
inline constexpr llvm::StringLiteral kSerialInferenceAttr = "pd.serial_inference";

/// Whether `type` is a row-sparse tensor (`#pd.selected_rows` encoding).
inline bool isSelectedRows(mlir::Type type) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  return tensor && llvm::isa_and_nonnull<SelectedRowsAttr>(tensor.getEncoding());
}
/// `type` with the `#pd.selected_rows` encoding (row-sparse), or without
/// any encoding (dense).
inline mlir::RankedTensorType withSelectedRows(mlir::RankedTensorType type, bool sparse) {
  return mlir::RankedTensorType::get(
      type.getShape(), type.getElementType(),
      sparse ? SelectedRowsAttr::get(type.getContext()) : mlir::Attribute());
}
} // namespace distc::pd

#endif // DISTC_DIALECT_PD_PDDIALECT_H
