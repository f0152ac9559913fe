//===- OpBindings.cpp - Which SPMD rule each program op uses --------------===//
//
// The table is generated from the ops' declarations in PdOps.td
// (`spmdRule`, `spmdAttrs`); this file adds the attribute translation: an op
// carries Paddle's attributes under its own names, with catalog defaults for
// those it leaves out, and its rule reads them under the rule's names.
//
//===----------------------------------------------------------------------===//

#include "distc/Sharding/OpAttrs.h"
#include "distc/Sharding/SpmdRule.h"

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <mutex>

namespace distc::sharding {

const std::vector<OpSpmdBinding> &opSpmdBindings() {
  static const std::vector<OpSpmdBinding> bindings = [] {
    std::vector<OpSpmdBinding> table = {
#include "distc/Dialect/Pd/PdSpmdRules.inc"
    };
    std::sort(table.begin(), table.end(),
              [](const OpSpmdBinding &a, const OpSpmdBinding &b) { return a.opType < b.opType; });
    return table;
  }();
  return bindings;
}

const OpSpmdBinding *lookupOpSpmdBinding(std::string_view opType) {
  const std::vector<OpSpmdBinding> &table = opSpmdBindings();
  auto it = std::lower_bound(
      table.begin(), table.end(), opType,
      [](const OpSpmdBinding &binding, std::string_view type) { return binding.opType < type; });
  return it != table.end() && it->opType == opType ? &*it : nullptr;
}

std::optional<SpmdAttrs::Value> spmdAttrValue(mlir::Attribute attr) {
  if (!attr)
    return std::nullopt;
  if (auto b = llvm::dyn_cast<mlir::BoolAttr>(attr))
    return SpmdAttrs::Value(b.getValue());
  if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(attr))
    return SpmdAttrs::Value(i.getValue().getSExtValue());
  if (auto f = llvm::dyn_cast<mlir::FloatAttr>(attr))
    return SpmdAttrs::Value(f.getValueAsDouble());
  if (auto s = llvm::dyn_cast<mlir::StringAttr>(attr))
    return SpmdAttrs::Value(s.getValue().str());
  if (auto a = llvm::dyn_cast<mlir::DenseI32ArrayAttr>(attr))
    return SpmdAttrs::Value(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::DenseI64ArrayAttr>(attr))
    return SpmdAttrs::Value(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::DenseBoolArrayAttr>(attr))
    return SpmdAttrs::Value(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::DenseF32ArrayAttr>(attr))
    return SpmdAttrs::Value(std::vector<double>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::DenseF64ArrayAttr>(attr))
    return SpmdAttrs::Value(std::vector<double>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::ArrayAttr>(attr)) {
    std::vector<std::string> strings;
    for (mlir::Attribute element : a) {
      auto s = llvm::dyn_cast<mlir::StringAttr>(element);
      if (!s)
        return std::nullopt;
      strings.push_back(s.getValue().str());
    }
    return SpmdAttrs::Value(std::move(strings));
  }
  return std::nullopt;
}

SpmdAttrs spmdAttrsOf(mlir::Operation *op) {
  SpmdAttrs attrs;
  llvm::StringRef name = op->getName().stripDialect();
  pd::OpAttributes reader(op);
  if (const pd::OpSpec *spec = pd::lookupOp(std::string_view(name.data(), name.size()))) {
    for (const pd::AttrSpec &attr : spec->attrs)
      if (auto value =
              spmdAttrValue(reader.get(llvm::StringRef(attr.name.data(), attr.name.size()))))
        attrs.set(std::string(attr.name), std::move(*value));
  }
  return attrs;
}

namespace {

/// The catalog defaults of `spec`, parsed once per op type.
const SpmdAttrs &catalogDefaults(const pd::OpSpec &spec) {
  static std::mutex mutex;
  static std::map<std::string_view, SpmdAttrs> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = cache.try_emplace(spec.type);
  if (inserted) {
    static mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
    for (const pd::AttrSpec &attr : spec.attrs)
      if (auto value = spmdAttrValue(pd::catalogDefault(&context, attr)))
        it->second.set(std::string(attr.name), std::move(*value));
  }
  return it->second;
}

} // namespace

SpmdAttrs ruleAttrsForOp(const OpSpmdBinding &binding, const SpmdAttrs &opAttrs) {
  SpmdAttrs attrs;
  if (const pd::OpSpec *spec = pd::lookupOp(binding.opType))
    for (const auto &[name, value] : catalogDefaults(*spec).all())
      attrs.set(name, value);
  for (const auto &[name, value] : opAttrs.all())
    attrs.set(name, value);
  for (const auto &[ruleName, opName] : binding.attrRenames) {
    auto it = attrs.all().find(std::string(opName));
    if (it != attrs.all().end()) {
      SpmdAttrs::Value value = it->second;
      attrs.set(std::string(ruleName), std::move(value));
    }
  }
  return attrs;
}

} // namespace distc::sharding
