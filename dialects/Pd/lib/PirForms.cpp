//===- PirForms.cpp - The Paddle 3 PIR form of each pd op -----------------===//
//
// The table is generated from PdOps.td (PdPirForms.inc); see PirForms.h.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/PirForms.h"

#include "llvm/ADT/StringMap.h"

namespace distc::pd {

const std::vector<PirForm> &pirForms() {
  static const std::vector<PirForm> forms = {
#include "distc/Dialect/Pd/PdPirForms.inc"
  };
  return forms;
}

const PirForm *lookupPirForm(std::string_view pirName) {
  static const llvm::StringMap<const PirForm *> byName = [] {
    llvm::StringMap<const PirForm *> map;
    for (const PirForm &form : pirForms())
      map[form.pirName] = &form;
    return map;
  }();
  auto it = byName.find(llvm::StringRef(pirName.data(), pirName.size()));
  return it == byName.end() ? nullptr : it->second;
}

} // namespace distc::pd
