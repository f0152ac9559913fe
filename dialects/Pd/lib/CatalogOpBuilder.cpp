//===- CatalogOpBuilder.cpp - Creating catalogue ops from slots -----------===//

#include "distc/Dialect/Pd/CatalogOpBuilder.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/ShapeInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"

using namespace mlir;

namespace distc::pd {

FailureOr<Operation *> buildCatalogOp(OpBuilder &builder, Location loc, StringRef type,
                                      ArrayRef<SmallVector<Value, 1>> operandsBySlot,
                                      ArrayRef<NamedAttribute> attrs,
                                      ArrayRef<std::string> resultNames,
                                      unsigned numVariadicResults) {
  MLIRContext *ctx = builder.getContext();
  std::string opName = "pd." + type.str();
  std::optional<RegisteredOperationName> registered = RegisteredOperationName::lookup(opName, ctx);
  const OpSpec *spec = lookupOp(std::string_view(type.data(), type.size()));
  if (!registered || !spec)
    return emitError(loc) << "internal: '" << type << "' is not a catalogued pd op";
  if (operandsBySlot.size() != spec->inputs.size())
    return emitError(loc) << "internal: pd." << type << " takes " << spec->inputs.size()
                          << " input slots, given " << operandsBySlot.size();

  SmallVector<SmallVector<Type, 1>> operandTypes;
  SmallVector<Value> operands;
  SmallVector<int32_t> segments;
  for (const SmallVector<Value, 1> &slot : operandsBySlot) {
    SmallVector<Type, 1> types;
    for (Value v : slot) {
      types.push_back(v.getType());
      operands.push_back(v);
    }
    operandTypes.push_back(types);
    segments.push_back(static_cast<int32_t>(slot.size()));
  }

  DictionaryAttr dict = builder.getDictionaryAttr(attrs);
  SmallVector<SmallVector<Type, 1>> resultsBySlot;
  if (failed(inferResultTypes(ctx, loc, type, operandTypes, dict, resultsBySlot,
                              numVariadicResults)))
    return failure();

  SmallVector<Type> resultTypes;
  SmallVector<int32_t> resultSegments;
  for (const SmallVector<Type, 1> &slot : resultsBySlot) {
    llvm::append_range(resultTypes, slot);
    resultSegments.push_back(static_cast<int32_t>(slot.size()));
  }
  SmallVector<StringRef> names;
  for (size_t i = 0; i < resultTypes.size(); ++i)
    names.push_back(i < resultNames.size() ? StringRef(resultNames[i]) : StringRef());

  OperationState state(loc, *registered);
  state.addOperands(operands);
  state.addTypes(resultTypes);
  state.addAttributes(attrs);
  if (registered->hasTrait<OpTrait::AttrSizedOperandSegments>())
    state.addAttribute("operandSegmentSizes", builder.getDenseI32ArrayAttr(segments));
  if (registered->hasTrait<OpTrait::AttrSizedResultSegments>())
    state.addAttribute("resultSegmentSizes", builder.getDenseI32ArrayAttr(resultSegments));
  state.addAttribute("pd.out_names", builder.getStrArrayAttr(names));
  return builder.create(state);
}

} // namespace distc::pd
