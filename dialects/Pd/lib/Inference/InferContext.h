//===- InferContext.h - Shared state of inference rules -------*- C++ -*-===//
//
// What an inference rule sees: the catalog entry, operand types by slot,
// attribute accessors that fall back to catalog defaults, and helpers for
// diagnostics and results. Each rule family lives in its own file and is
// dispatched by ShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_LIB_INFERENCE_INFERCONTEXT_H
#define DISTC_DIALECT_PD_LIB_INFERENCE_INFERCONTEXT_H

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace distc::pd::infer {

using Dims = llvm::SmallVector<int64_t, 4>;
constexpr int64_t kDyn = mlir::ShapedType::kDynamic;

class InferContext {
public:
  InferContext(mlir::MLIRContext *ctx, mlir::Location loc, const OpSpec &spec,
               llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> operands,
               mlir::DictionaryAttr attrs,
               llvm::SmallVectorImpl<llvm::SmallVector<mlir::Type, 1>> &results,
               unsigned numVariadicResults,
               llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> declaredResults = {})
      : ctx(ctx), loc(loc), spec(spec), operands(operands), attrs(ctx, attrs, &spec),
        results(results), numVariadicResults(numVariadicResults),
        declaredResults_(declaredResults) {
    results.assign(spec.outputs.size(), {});
  }

  mlir::MLIRContext *getContext() const { return ctx; }
  const OpSpec &getSpec() const { return spec; }
  unsigned getNumVariadicResults() const { return numVariadicResults; }
  /// The types result slot `slot` already has when an existing op is
  /// verified; empty while an op is being built or imported.
  llvm::ArrayRef<mlir::Type> declaredResults(unsigned slot) const {
    if (slot >= declaredResults_.size())
      return {};
    return declaredResults_[slot];
  }

  /// An error at the op's location, prefixed with "pd.<type>: ". Rules add
  /// the slot(s), the offending shapes or attribute, and return failure.
  mlir::InFlightDiagnostic error() const;

  /// The (single) operand type of input slot `slot`; null for an absent
  /// optional slot. Operands were checked to be ranked tensors before any
  /// rule runs.
  mlir::RankedTensorType input(unsigned slot) const;
  /// All operand types of a variadic input slot.
  llvm::SmallVector<mlir::RankedTensorType> inputs(unsigned slot) const;

  /// Attribute values by Paddle name, falling back to the catalog default.
  int64_t getInt(llvm::StringRef name) const { return attrs.getInt(name); }
  bool getBool(llvm::StringRef name) const { return attrs.getBool(name); }
  double getFloat(llvm::StringRef name) const { return attrs.getFloat(name); }
  std::string getString(llvm::StringRef name) const { return attrs.getString(name); }
  std::vector<std::string> getStrings(llvm::StringRef name) const {
    return attrs.getStrings(name);
  }
  llvm::SmallVector<int64_t> getInts(llvm::StringRef name) const {
    std::vector<int64_t> values = attrs.getInts(name);
    return llvm::SmallVector<int64_t>(values.begin(), values.end());
  }
  std::vector<double> getFloats(llvm::StringRef name) const { return attrs.getFloats(name); }
  /// True when the attribute is given explicitly (not defaulted).
  bool hasAttr(llvm::StringRef name) const { return attrs.isGiven(name); }

  /// Sets result slot `slot` to a tensor of `dims` (kDyn for `?`).
  void setResult(unsigned slot, llvm::ArrayRef<int64_t> dims, mlir::Type elementType);
  void setResult(unsigned slot, mlir::Type type);
  /// Appends one more value to a variadic result slot.
  void addResult(unsigned slot, llvm::ArrayRef<int64_t> dims, mlir::Type elementType);
  void addResult(unsigned slot, mlir::Type type);

  /// The element type of Paddle dtype attribute `name`, or an error naming
  /// the attribute.
  mlir::FailureOr<mlir::Type> getDTypeAttr(llvm::StringRef name) const;

  /// Normalizes `axis` (negative counts from the end) into [0, rank), or
  /// emits an error naming attribute `attrName` and the input `type`.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, llvm::StringRef attrName,
                                         mlir::RankedTensorType type) const;

  /// Checks that input slots `a` and `b` have the same element type.
  mlir::LogicalResult requireSameElementType(unsigned a, unsigned b) const;

  /// Checks that String attribute `name` is one of `allowed`, naming them
  /// when it is not.
  mlir::LogicalResult requireStringIn(llvm::StringRef name,
                                      llvm::ArrayRef<llvm::StringRef> allowed) const;

private:
  mlir::MLIRContext *ctx;
  mlir::Location loc;
  const OpSpec &spec;
  llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> operands;
  OpAttributes attrs;
  llvm::SmallVectorImpl<llvm::SmallVector<mlir::Type, 1>> &results;
  unsigned numVariadicResults;
  llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> declaredResults_;
};

/// Whether `t` is an element type Paddle takes ids or indices in (i32, i64).
inline bool isIndexType(mlir::Type t) {
  return t.isSignlessInteger(32) || t.isSignlessInteger(64);
}

/// Prints dims as Paddle would: [2, -1, 3].
std::string formatDims(llvm::ArrayRef<int64_t> dims);

/// Product of `dims`, or kDyn when any is dynamic.
int64_t product(llvm::ArrayRef<int64_t> dims);

/// Merges two sizes of one dimension that must agree: ? vs n -> n, ? vs ? -> ?.
/// Returns std::nullopt when both are static and differ.
std::optional<int64_t> mergeEqualDim(int64_t a, int64_t b);

/// The rules the ops of PdOps.td name (`inferRule`), one family per
/// *Rules.cpp file; declared from the ops' definitions.
#define GET_PD_INFER_RULE_DECLS
#include "distc/Dialect/Pd/PdInferRules.inc"

} // namespace distc::pd::infer

#endif // DISTC_DIALECT_PD_LIB_INFERENCE_INFERCONTEXT_H
