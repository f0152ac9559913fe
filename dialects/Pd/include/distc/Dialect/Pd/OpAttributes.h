//===- OpAttributes.h - pd op attributes with catalogue defaults -*- C++ -*-===//
//
// A `pd` op may omit an inherent attribute whose value is the catalogue's
// default (the printer elides defaults, hand-written IR leaves them out).
// Everything that reads attribute values -- shape inference, the exporter,
// the lowering to artifacts -- goes through this one reader, so "absent"
// always means the same default and the literal syntax of catalogue
// defaults is parsed in one place.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_OPATTRIBUTES_H
#define DISTC_DIALECT_PD_OPATTRIBUTES_H

#include "distc/Dialect/Pd/OpCatalog.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace distc::pd {

/// The catalogue default `spec.defaultValue` ("0", "1e-05", "true",
/// "[1,2]", "abc") as an MLIR attribute of `spec.kind`: i32/i64/f32/f64,
/// bool, string, dense arrays, an array of strings. Null when the literal is
/// malformed or the attribute has no default (required attributes).
mlir::Attribute catalogDefault(mlir::MLIRContext *ctx, const AttrSpec &spec);

/// Reads the attributes of one op by Paddle name: the op's own value when it
/// carries one, else the catalogue default. Numeric reads convert between
/// integer, float and bool forms; an attribute the op type does not have
/// reads as 0 / false / "" / {} (a caller bug, not an input error: the
/// verifier rejects unknown inherent attributes).
class OpAttributes {
public:
  /// For a `pd.<type>` op; ops outside the catalogue read only what they carry.
  explicit OpAttributes(mlir::Operation *op);
  /// For attributes not yet attached to an op (shape inference).
  OpAttributes(mlir::MLIRContext *ctx, mlir::DictionaryAttr attrs, const OpSpec *spec);

  /// The attribute's value, defaulted; null when it has neither.
  mlir::Attribute get(llvm::StringRef name) const;
  /// True when the op carries the attribute itself (not defaulted).
  bool isGiven(llvm::StringRef name) const;

  int64_t getInt(llvm::StringRef name) const;
  bool getBool(llvm::StringRef name) const { return getInt(name) != 0; }
  double getFloat(llvm::StringRef name) const;
  std::string getString(llvm::StringRef name) const;
  /// A STRINGS attribute's values; {} when it is none.
  std::vector<std::string> getStrings(llvm::StringRef name) const;
  std::vector<int64_t> getInts(llvm::StringRef name) const;
  /// A FLOATS or FLOAT64S attribute's values; {} when it is neither.
  std::vector<double> getFloats(llvm::StringRef name) const;

private:
  mlir::MLIRContext *ctx;
  mlir::DictionaryAttr attrs;
  const OpSpec *spec;
};

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_OPATTRIBUTES_H
