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

const AttrSpec *InferContext::findAttrSpec(StringRef name) const {
  for (const AttrSpec &a : spec.attrs)
    if (a.name == std::string_view(name.data(), name.size()))
      return &a;
  return nullptr;
}

Attribute InferContext::lookup(StringRef name) const {
  return attrs ? attrs.get(name) : Attribute();
}

bool InferContext::hasAttr(StringRef name) const { return static_cast<bool>(lookup(name)); }

/// The catalog default of `name` as text ("" when the op has no such
/// attribute, which only a rule bug can cause).
static StringRef defaultText(const AttrSpec *spec) {
  return spec ? StringRef(spec->defaultValue.data(), spec->defaultValue.size()) : StringRef();
}

int64_t InferContext::getInt(StringRef name) const {
  Attribute attr = lookup(name);
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return i.getValue().getSExtValue();
  if (auto b = dyn_cast_or_null<BoolAttr>(attr))
    return b.getValue();
  int64_t value = 0;
  (void)defaultText(findAttrSpec(name)).trim().getAsInteger(10, value);
  return value;
}

bool InferContext::getBool(StringRef name) const {
  Attribute attr = lookup(name);
  if (auto b = dyn_cast_or_null<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return i.getValue().getBoolValue();
  return defaultText(findAttrSpec(name)).trim() == "true";
}

double InferContext::getFloat(StringRef name) const {
  Attribute attr = lookup(name);
  if (auto f = dyn_cast_or_null<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return static_cast<double>(i.getValue().getSExtValue());
  double value = 0;
  (void)defaultText(findAttrSpec(name)).trim().getAsDouble(value);
  return value;
}

SmallVector<int64_t> InferContext::getInts(StringRef name) const {
  SmallVector<int64_t> values;
  Attribute attr = lookup(name);
  if (auto a = dyn_cast_or_null<DenseI32ArrayAttr>(attr)) {
    llvm::append_range(values, a.asArrayRef());
    return values;
  }
  if (auto a = dyn_cast_or_null<DenseI64ArrayAttr>(attr)) {
    llvm::append_range(values, a.asArrayRef());
    return values;
  }
  if (auto a = dyn_cast_or_null<ArrayAttr>(attr)) {
    for (Attribute e : a)
      if (auto i = dyn_cast<IntegerAttr>(e))
        values.push_back(i.getValue().getSExtValue());
    return values;
  }
  // Catalog list defaults look like "[1,2]".
  StringRef text = defaultText(findAttrSpec(name)).trim();
  text.consume_front("[");
  text.consume_back("]");
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    int64_t v = 0;
    if (!part.trim().getAsInteger(10, v))
      values.push_back(v);
  }
  return values;
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

void InferContext::setResult(unsigned slot, ArrayRef<int64_t> dims, Type elementType) {
  setResult(slot, RankedTensorType::get(dims, elementType));
}

void InferContext::setResult(unsigned slot, Type type) { results[slot] = {type}; }

void InferContext::addResult(unsigned slot, ArrayRef<int64_t> dims, Type elementType) {
  results[slot].push_back(RankedTensorType::get(dims, elementType));
}

} // namespace distc::pd::infer
