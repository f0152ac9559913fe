//===- OpCatalog.cpp - Paddle operator signatures -------------------------===//
//
// Slot names, attribute names, types and defaults follow Paddle's operator
// definitions (paddle/fluid/operators and paddle/phi/ops/yaml). The entries
// are generated from PdOps.td (PdOpCatalog.inc); see OpCatalog.h for how
// they are used.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/OpCatalog.h"

#include <unordered_map>

namespace distc::pd {
namespace {

std::vector<OpSpec> buildCatalog() {
  using K = AttrKind;
  return {
#include "distc/Dialect/Pd/PdOpCatalog.inc"
  };
}

} // namespace

const std::vector<OpSpec> &opCatalog() {
  static const std::vector<OpSpec> catalog = buildCatalog();
  return catalog;
}

const OpSpec *lookupOp(std::string_view type) {
  static const auto index = [] {
    std::unordered_map<std::string_view, const OpSpec *> map;
    for (const OpSpec &spec : opCatalog())
      map.emplace(spec.type, &spec);
    return map;
  }();
  auto it = index.find(type);
  return it == index.end() ? nullptr : it->second;
}

const std::vector<CommonAttr> &commonOpAttrs() {
  static const std::vector<CommonAttr> attrs = {
      {"op_role", AttrKind::Int},
      {"op_role_var", AttrKind::Strings},
      {"op_namescope", AttrKind::String},
      {"op_device", AttrKind::String},
      {"with_quant_attr", AttrKind::Boolean},
  };
  return attrs;
}

} // namespace distc::pd
