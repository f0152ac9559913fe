//===- NnRules.cpp - SPMD rules -----------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"

namespace distc::sharding::detail {

void appendNnRules(std::vector<SpmdRule> &rules) { (void)rules; }

} // namespace distc::sharding::detail
