//===- RuleFamilies.h - The SPMD rule families ------------------*- C++ -*-===//
//
// Each *Rules.cpp file holds one family of Paddle's SPMD rules and appends
// them to the registry (SpmdRule.cpp) under Paddle's rule names.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_SHARDING_RULEFAMILIES_H
#define DISTC_LIB_SHARDING_RULEFAMILIES_H

#include "distc/Sharding/SpmdRule.h"

#include <vector>

namespace distc::sharding::detail {

void appendMatmulRules(std::vector<SpmdRule> &rules);
void appendElementwiseRules(std::vector<SpmdRule> &rules);
void appendReductionRules(std::vector<SpmdRule> &rules);
void appendShapeRules(std::vector<SpmdRule> &rules);
/// Parts of the shape family (ReshapeRules.cpp, CreationRules.cpp), which
/// appendShapeRules appends.
void appendReshapeRules(std::vector<SpmdRule> &rules);
void appendCreationRules(std::vector<SpmdRule> &rules);
void appendNnRules(std::vector<SpmdRule> &rules);
void appendTrainingRules(std::vector<SpmdRule> &rules);

} // namespace distc::sharding::detail

#endif // DISTC_LIB_SHARDING_RULEFAMILIES_H
