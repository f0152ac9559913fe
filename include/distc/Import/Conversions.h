//===- Conversions.h - Paddle attributes and types <-> MLIR -----*- C++ -*-===//
//
// The value mappings shared by the importer and the exporter:
//  * OpDesc attributes <-> MLIR attributes, by catalog AttrKind (inherent
//    attributes; compatible Paddle types are coerced, e.g. INTS given where
//    LONGS is expected) or by the Paddle attribute's own type (everything
//    else, so that it survives a round trip);
//  * VarDesc tensor types <-> RankedTensorType (-1 <-> `?`).
//
// Failures return a null/failed value and set a one-line `error` without
// location; callers add the op or variable they were working on.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_IMPORT_CONVERSIONS_H
#define DISTC_IMPORT_CONVERSIONS_H

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/ProgramDesc/ProgramDesc.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <optional>
#include <string>
#include <string_view>

namespace distc::importer {

namespace proto = ::paddle::framework::proto;

/// Paddle's name of an attribute type ("INTS", "LONG", ...).
std::string attrTypeName(int type);

/// The MLIR attribute of catalog kind `kind` holding `attr`'s value, coercing
/// compatible Paddle types (INT/LONG, INTS/LONGS, FLOAT/FLOAT64 and their
/// lists, SCALAR numbers). Null with `error` set when the value cannot be
/// represented (wrong type, out of range).
mlir::Attribute importAttrAsKind(mlir::MLIRContext *ctx, const proto::OpDesc::Attr &attr,
                                 pd::AttrKind kind, std::string &error);

/// The MLIR attribute for `attr` by its own Paddle type (the mapping of
/// attributes that are not in the catalog). BLOCK(S), VAR(S), SCALARS and
/// complex scalars have no mapping and fail.
mlir::Attribute importAttrGeneric(mlir::MLIRContext *ctx, const proto::OpDesc::Attr &attr,
                                  std::string &error);

/// The Paddle attribute kind an MLIR attribute maps to in the generic
/// mapping (i32 -> INT, i64 -> LONG, f32 -> FLOAT, dense i32 array -> INTS,
/// ...), if any.
std::optional<pd::AttrKind> genericKindOf(mlir::Attribute value);

/// Fills `out` (name already set by the caller) with `value` as a Paddle
/// attribute of `kind`. False with `error` when `value` is not of that kind.
bool exportAttr(mlir::Attribute value, pd::AttrKind kind, proto::OpDesc::Attr &out,
                std::string &error);

/// The tensor type of a variable: LOD_TENSOR (DENSE_TENSOR) variables only,
/// with a data type the dialect models. Null with `error` otherwise.
mlir::RankedTensorType importVarType(mlir::MLIRContext *ctx, const proto::VarDesc &var,
                                     std::string &error);

/// `type` as a LOD_TENSOR VarType. False with `error` for element types
/// Paddle has no data type for.
bool exportVarType(mlir::Type type, proto::VarType &out, std::string &error);

/// Paddle-style description of a tensor type for diagnostics:
/// "[-1, 64] float32".
std::string describeTensorType(mlir::Type type);

} // namespace distc::importer

#endif // DISTC_IMPORT_CONVERSIONS_H
