//===- OpAttrs.h - pd op attributes as SPMD rule attributes ----*- C++ -*-===//
//
// The bridge between the `pd` dialect's attributes (MLIR attributes, catalog
// defaults) and the plain values SPMD rules read.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SHARDING_OPATTRS_H
#define DISTC_SHARDING_OPATTRS_H

#include "distc/Sharding/SpmdRule.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace distc::sharding {

/// A Paddle attribute's value (bool, integer, float, string, or a list of
/// them); nullopt for attribute kinds no rule reads.
std::optional<SpmdAttrs::Value> spmdAttrValue(mlir::Attribute attr);

/// Every catalog attribute of `op` by Paddle name, defaults included.
SpmdAttrs spmdAttrsOf(mlir::Operation *op);

} // namespace distc::sharding

#endif // DISTC_SHARDING_OPATTRS_H
