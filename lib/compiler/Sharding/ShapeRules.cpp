//===- ShapeRules.cpp - SPMD rules of shape-changing ops ------------------===//
//
// The views (reshape, flatten, squeeze, unsqueeze, transpose) are in
// ReshapeRules.cpp and registered from here.
//
//===----------------------------------------------------------------------===//

#include "RuleFamilies.h"

namespace distc::sharding::detail {

void appendShapeRules(std::vector<SpmdRule> &rules) { appendReshapeRules(rules); }

} // namespace distc::sharding::detail
