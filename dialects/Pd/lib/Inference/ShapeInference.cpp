//===- ShapeInference.cpp - Paddle shape and dtype inference --------------===//
//
// Checks operand groups against the catalog entry, then dispatches to the
// rule the op declares in PdOps.td. Rules may assume: every present operand is a
// ranked tensor, required slots have one operand, optional slots zero or
// one, variadic slots at least one.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/ShapeInference.h"

#include "Inference/InferContext.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace distc::pd {

using infer::InferContext;
using RuleFn = LogicalResult (*)(InferContext &);

/// The op's inference rule, as PdOps.td declares it (`inferRule`).
static RuleFn lookupRule(StringRef type) {
  static const llvm::StringMap<RuleFn> rules = [] {
    llvm::StringMap<RuleFn> map;
    for (auto [name, rule] : std::initializer_list<std::pair<StringRef, RuleFn>>{
#define GET_PD_INFER_RULE_TABLE
#include "distc/Dialect/Pd/PdInferRules.inc"
         })
      map[name] = rule;
    return map;
  }();
  return rules.lookup(type);
}

/// Checks that the operand groups fit the catalog's input slots.
static LogicalResult checkOperands(InferContext &c, ArrayRef<SmallVector<Type, 1>> operandsBySlot) {
  const OpSpec &spec = c.getSpec();
  if (operandsBySlot.size() != spec.inputs.size())
    return c.error() << "expected " << spec.inputs.size() << " input slots, got "
                     << operandsBySlot.size();
  for (auto [slot, types] : llvm::zip(spec.inputs, operandsBySlot)) {
    StringRef name(slot.name.data(), slot.name.size());
    if (!slot.variadic && types.size() > 1)
      return c.error() << "input slot '" << name << "' takes one tensor, got " << types.size();
    if (types.empty() && !slot.optional)
      return c.error() << "input slot '" << name << "' is required but empty";
    for (Type t : types)
      if (!isa<RankedTensorType>(t))
        return c.error() << "input slot '" << name << "' must be a ranked tensor, got " << t;
  }
  return success();
}

LogicalResult inferResultTypes(MLIRContext *ctx, Location loc, StringRef opType,
                               ArrayRef<SmallVector<Type, 1>> operandsBySlot, DictionaryAttr attrs,
                               SmallVectorImpl<SmallVector<Type, 1>> &resultsBySlot,
                               unsigned numVariadicResults,
                               ArrayRef<SmallVector<Type, 1>> declaredResults) {
  const OpSpec *spec = lookupOp(std::string_view(opType.data(), opType.size()));
  RuleFn rule = lookupRule(opType);
  if (!spec || !rule)
    return emitError(loc) << "pd." << opType << ": no Paddle shape inference for this op type";
  InferContext c(ctx, loc, *spec, operandsBySlot, attrs, resultsBySlot, numVariadicResults,
                 declaredResults);
  if (failed(checkOperands(c, operandsBySlot)) || failed(rule(c)))
    return failure();
  return success();
}

/// Static [1] and 0-D both spell a Paddle scalar: programs saved before
/// Paddle 2.5 declare [1] where newer ones use 0-D.
static bool isScalarSpelling(RankedTensorType a, RankedTensorType b) {
  auto isOne = [](RankedTensorType t) { return t.getRank() == 1 && t.getDimSize(0) == 1; };
  return (a.getRank() == 0 && isOne(b)) || (isOne(a) && b.getRank() == 0);
}

bool isCompatibleWithInferred(Type actual, Type inferred) {
  auto a = dyn_cast<RankedTensorType>(actual);
  auto b = dyn_cast<RankedTensorType>(inferred);
  if (!a || !b)
    return actual == inferred;
  if (a.getElementType() != b.getElementType())
    return false;
  return succeeded(verifyCompatibleShape(a, b)) || isScalarSpelling(a, b);
}

} // namespace distc::pd
