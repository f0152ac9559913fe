//===- CatalogSlots.cpp - Which operands of a catalog op are which slot ---===//

#include "distc/Dialect/Pd/CatalogSlots.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace distc::pd {

/// Start and size of each catalog slot among `count` operands or results,
/// or failure with `why`. Optional slots may be absent unless
/// `optionalAlwaysPresent` (every output slot exists as a result, so only
/// variadic outputs vary in size).
static FailureOr<SlotGroups> slotGroups(Operation *op, const std::vector<SlotSpec> &slots,
                                        unsigned count, StringRef segmentsAttr, StringRef what,
                                        bool optionalAlwaysPresent, std::string &why) {
  auto flexibleSlot = [&](const SlotSpec &slot) {
    return slot.variadic || (slot.optional && !optionalAlwaysPresent);
  };
  SlotGroups groups;
  if (auto segments = op->getAttrOfType<DenseI32ArrayAttr>(segmentsAttr)) {
    if (segments.size() != static_cast<int64_t>(slots.size())) {
      why = "has " + std::to_string(segments.size()) + " " + what.str() + " segments for " +
            std::to_string(slots.size()) + " catalog slots";
      return failure();
    }
    unsigned start = 0;
    for (int32_t size : segments.asArrayRef()) {
      groups.emplace_back(start, static_cast<unsigned>(size));
      start += static_cast<unsigned>(size);
    }
    return groups;
  }
  unsigned flexible = 0, fixed = 0;
  for (const SlotSpec &slot : slots)
    flexibleSlot(slot) ? ++flexible : ++fixed;
  // Every slot variadic, one tensor per parameter (the merged optimizers,
  // SameVariadicOperandSize).
  bool oneSize = flexible > 1 && fixed == 0 && count % flexible == 0 &&
                 llvm::all_of(slots, [](const SlotSpec &slot) { return slot.variadic; });
  if (oneSize) {
    for (unsigned i = 0; i < flexible; ++i)
      groups.emplace_back(i * (count / flexible), count / flexible);
    return groups;
  }
  if (flexible > 1 || count < fixed || (flexible == 0 && count != fixed)) {
    why = "has " + std::to_string(count) + " " + what.str() + "s, which do not match its " +
          std::to_string(slots.size()) + " catalog slots";
    return failure();
  }
  unsigned start = 0;
  for (const SlotSpec &slot : slots) {
    unsigned size = flexibleSlot(slot) ? count - fixed : 1;
    if (!slot.variadic && size > 1) {
      why = "has " + std::to_string(size) + " " + what.str() + "s for optional slot '" +
            std::string(slot.name) + "'";
      return failure();
    }
    groups.emplace_back(start, size);
    start += size;
  }
  return groups;
}

FailureOr<SlotGroups> operandGroups(Operation *op, const OpSpec &spec, std::string &why) {
  return slotGroups(op, spec.inputs, op->getNumOperands(), "operandSegmentSizes", "operand",
                    /*optionalAlwaysPresent=*/false, why);
}

FailureOr<SlotGroups> resultGroups(Operation *op, const OpSpec &spec, std::string &why) {
  return slotGroups(op, spec.outputs, op->getNumResults(), "resultSegmentSizes", "result",
                    /*optionalAlwaysPresent=*/true, why);
}

} // namespace distc::pd
