//===- InferContext.cpp - Shared state of inference rules -----------------===//

#include "Inference/InferContext.h"

#include "distc/Dialect/Pd/PdTypes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace distc::pd::infer {

std::string formatDims(ArrayRef<int64_t> dims) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(dims, os, [&](int64_t d) { os << (ShapedType::isDynamic(d) ? -1 : d); });
  os << ']';
  return text;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d))
      return kDyn;
    result *= d;
  }
  return result;
}

std::optional<int64_t> mergeEqualDim(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a))
    return b;
  if (ShapedType::isDynamic(b) || a == b)
    return a;
  return std::nullopt;
}

InFlightDiagnostic InferContext::error() const {
  return emitError(loc) << "pd." << spec.type << ": ";
}

RankedTensorType InferContext::input(unsigned slot) const {
  if (slot >= operands.size() || operands[slot].empty())
    return {};
  return dyn_cast<RankedTensorType>(operands[slot].front());
}

SmallVector<RankedTensorType> InferContext::inputs(unsigned slot) const {
  SmallVector<RankedTensorType> types;
  if (slot < operands.size())
    for (Type t : operands[slot])
      types.push_back(cast<RankedTensorType>(t));
  return types;
}

FailureOr<Type> InferContext::getDTypeAttr(StringRef name) const {
  int64_t dtype = getInt(name);
  FailureOr<Type> type = convertPaddleDType(ctx, dtype);
  if (failed(type))
    error() << "attribute '" << name << "' = " << dtype
            << " is not a supported Paddle data type (expected one of 0-6, 20-22)";
  return type;
}

FailureOr<int64_t> InferContext::normalizeAxis(int64_t axis, int64_t rank, StringRef attrName,
                                               RankedTensorType type) const {
  if (axis < -rank || axis >= rank) {
    error() << "attribute '" << attrName << "' = " << axis << " is out of range [" << -rank << ", "
            << rank << ") for input " << type;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

LogicalResult InferContext::requireSameElementType(unsigned a, unsigned b) const {
  RankedTensorType ta = input(a), tb = input(b);
  if (!ta || !tb || ta.getElementType() == tb.getElementType())
    return success();
  return error() << "input slots '" << spec.inputs[a].name << "' and '" << spec.inputs[b].name
                 << "' must have the same element type, got " << ta << " and " << tb;
}

LogicalResult InferContext::requireStringIn(StringRef name, ArrayRef<StringRef> allowed) const {
  std::string value = getString(name);
  if (llvm::is_contained(allowed, value))
    return success();
  InFlightDiagnostic diag = error() << "attribute '" << name << "' is '" << value << "', not ";
  for (auto [i, a] : llvm::enumerate(allowed))
    diag << (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") << a;
  return diag;
}

void InferContext::setResult(unsigned slot, ArrayRef<int64_t> dims, Type elementType) {
  setResult(slot, RankedTensorType::get(dims, elementType));
}

void InferContext::setResult(unsigned slot, Type type) { results[slot] = {type}; }

void InferContext::addResult(unsigned slot, ArrayRef<int64_t> dims, Type elementType) {
  results[slot].push_back(RankedTensorType::get(dims, elementType));
}

void InferContext::addResult(unsigned slot, Type type) { results[slot].push_back(type); }

} // namespace distc::pd::infer
