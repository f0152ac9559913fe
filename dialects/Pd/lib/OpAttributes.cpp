//===- OpAttributes.cpp - pd op attributes with catalogue defaults --------===//

#include "distc/Dialect/Pd/OpAttributes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdlib>
#include <limits>
#include <optional>

using namespace mlir;

namespace distc::pd {
namespace {

bool fitsInt32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

/// Splits "[a, b, c]" into its trimmed items; nullopt when not bracketed.
std::optional<SmallVector<StringRef>> splitList(StringRef text) {
  text = text.trim();
  if (!text.consume_front("[") || !text.consume_back("]"))
    return std::nullopt;
  SmallVector<StringRef> items;
  text = text.trim();
  if (text.empty())
    return items;
  text.split(items, ',');
  for (StringRef &item : items)
    item = item.trim();
  return items;
}

std::optional<int64_t> parseInt(StringRef text) {
  int64_t v = 0;
  if (text.trim().getAsInteger(10, v))
    return std::nullopt;
  return v;
}

std::optional<double> parseDouble(StringRef text) {
  std::string s = text.trim().str();
  if (s.empty())
    return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (!end || *end != '\0')
    return std::nullopt;
  return v;
}

std::optional<bool> parseBool(StringRef text) {
  text = text.trim();
  if (text == "true" || text == "false")
    return text == "true";
  return std::nullopt;
}

Attribute scalarDefault(Builder &b, AttrKind kind, StringRef text) {
  switch (kind) {
  case AttrKind::Int: {
    auto v = parseInt(text);
    return v && fitsInt32(*v) ? b.getI32IntegerAttr(static_cast<int32_t>(*v)) : Attribute();
  }
  case AttrKind::Long: {
    auto v = parseInt(text);
    return v ? b.getI64IntegerAttr(*v) : Attribute();
  }
  case AttrKind::Float: {
    auto v = parseDouble(text);
    return v ? b.getF32FloatAttr(static_cast<float>(*v)) : Attribute();
  }
  case AttrKind::Float64: {
    auto v = parseDouble(text);
    return v ? b.getF64FloatAttr(*v) : Attribute();
  }
  case AttrKind::Boolean: {
    auto v = parseBool(text);
    return v ? b.getBoolAttr(*v) : Attribute();
  }
  case AttrKind::String:
    return b.getStringAttr(text);
  default:
    return {};
  }
}

Attribute listDefault(Builder &b, AttrKind kind, ArrayRef<StringRef> items) {
  switch (kind) {
  case AttrKind::Ints:
  case AttrKind::Longs: {
    SmallVector<int64_t> values;
    for (StringRef item : items) {
      auto v = parseInt(item);
      if (!v || (kind == AttrKind::Ints && !fitsInt32(*v)))
        return {};
      values.push_back(*v);
    }
    if (kind == AttrKind::Longs)
      return b.getDenseI64ArrayAttr(values);
    return b.getDenseI32ArrayAttr(llvm::to_vector(
        llvm::map_range(values, [](int64_t v) { return static_cast<int32_t>(v); })));
  }
  case AttrKind::Floats:
  case AttrKind::Float64s: {
    SmallVector<double> values;
    for (StringRef item : items) {
      auto v = parseDouble(item);
      if (!v)
        return {};
      values.push_back(*v);
    }
    if (kind == AttrKind::Float64s)
      return b.getDenseF64ArrayAttr(values);
    return b.getDenseF32ArrayAttr(
        llvm::to_vector(llvm::map_range(values, [](double v) { return static_cast<float>(v); })));
  }
  case AttrKind::Booleans: {
    SmallVector<bool> values;
    for (StringRef item : items) {
      auto v = parseBool(item);
      if (!v)
        return {};
      values.push_back(*v);
    }
    return b.getDenseBoolArrayAttr(values);
  }
  case AttrKind::Strings:
    return b.getArrayAttr(llvm::to_vector(
        llvm::map_range(items, [&](StringRef item) -> Attribute { return b.getStringAttr(item); })));
  default:
    return {};
  }
}

const AttrSpec *findAttrSpec(const OpSpec *spec, StringRef name) {
  if (spec)
    for (const AttrSpec &attr : spec->attrs)
      if (attr.name == std::string_view(name.data(), name.size()))
        return &attr;
  return nullptr;
}

const OpSpec *specOf(Operation *op) {
  StringRef type = op->getName().getStringRef();
  if (!type.consume_front("pd."))
    return nullptr;
  return lookupOp(std::string_view(type.data(), type.size()));
}

} // namespace

Attribute catalogDefault(MLIRContext *ctx, const AttrSpec &spec) {
  if (spec.required)
    return {};
  Builder b(ctx);
  StringRef text(spec.defaultValue.data(), spec.defaultValue.size());
  if (Attribute scalar = scalarDefault(b, spec.kind, text))
    return scalar;
  if (auto items = splitList(text))
    return listDefault(b, spec.kind, *items);
  return {};
}

OpAttributes::OpAttributes(Operation *op)
    : ctx(op->getContext()), attrs(op->getAttrDictionary()), spec(specOf(op)) {}

OpAttributes::OpAttributes(MLIRContext *ctx, DictionaryAttr attrs, const OpSpec *spec)
    : ctx(ctx), attrs(attrs), spec(spec) {}

bool OpAttributes::isGiven(StringRef name) const { return attrs && attrs.get(name); }

Attribute OpAttributes::get(StringRef name) const {
  if (Attribute given = attrs ? attrs.get(name) : Attribute())
    return given;
  if (const AttrSpec *attrSpec = findAttrSpec(spec, name))
    return catalogDefault(ctx, *attrSpec);
  return {};
}

int64_t OpAttributes::getInt(StringRef name) const {
  Attribute attr = get(name);
  if (auto b = dyn_cast_or_null<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return i.getValue().getSExtValue();
  if (auto f = dyn_cast_or_null<FloatAttr>(attr))
    return static_cast<int64_t>(f.getValueAsDouble());
  return 0;
}

std::vector<std::string> OpAttributes::getStrings(StringRef name) const {
  std::vector<std::string> values;
  if (auto list = dyn_cast_or_null<ArrayAttr>(get(name)))
    for (Attribute element : list)
      if (auto s = dyn_cast<StringAttr>(element))
        values.push_back(s.str());
  return values;
}

double OpAttributes::getFloat(StringRef name) const {
  Attribute attr = get(name);
  if (auto f = dyn_cast_or_null<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto b = dyn_cast_or_null<BoolAttr>(attr))
    return b.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return static_cast<double>(i.getValue().getSExtValue());
  return 0;
}

std::vector<double> OpAttributes::getFloats(StringRef name) const {
  Attribute attr = get(name);
  if (auto f = dyn_cast_or_null<DenseF32ArrayAttr>(attr))
    return std::vector<double>(f.asArrayRef().begin(), f.asArrayRef().end());
  if (auto d = dyn_cast_or_null<DenseF64ArrayAttr>(attr))
    return std::vector<double>(d.asArrayRef().begin(), d.asArrayRef().end());
  return {};
}

std::string OpAttributes::getString(StringRef name) const {
  if (auto s = dyn_cast_or_null<StringAttr>(get(name)))
    return s.getValue().str();
  return "";
}

std::vector<int64_t> OpAttributes::getInts(StringRef name) const {
  Attribute attr = get(name);
  if (auto a = dyn_cast_or_null<DenseI32ArrayAttr>(attr))
    return {a.asArrayRef().begin(), a.asArrayRef().end()};
  if (auto a = dyn_cast_or_null<DenseI64ArrayAttr>(attr))
    return {a.asArrayRef().begin(), a.asArrayRef().end()};
  std::vector<int64_t> values;
  if (auto a = dyn_cast_or_null<ArrayAttr>(attr))
    for (Attribute element : a)
      if (auto i = dyn_cast<IntegerAttr>(element))
        values.push_back(i.getValue().getSExtValue());
  return values;
}

} // namespace distc::pd
