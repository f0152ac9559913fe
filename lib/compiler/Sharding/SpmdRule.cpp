//===- SpmdRule.cpp - The SPMD rule registry ------------------------------===//

#include "distc/Sharding/SpmdRule.h"

#include "RuleFamilies.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>

namespace distc::sharding {

//===----------------------------------------------------------------------===//
// SpmdAttrs
//===----------------------------------------------------------------------===//

namespace {

template <typename T>
const T *find(const std::map<std::string, SpmdAttrs::Value> &values, std::string_view name) {
  auto it = values.find(std::string(name));
  return it == values.end() ? nullptr : std::get_if<T>(&it->second);
}

} // namespace

bool SpmdAttrs::getBool(std::string_view name, bool fallback) const {
  if (const bool *b = find<bool>(values, name))
    return *b;
  if (const int64_t *i = find<int64_t>(values, name))
    return *i != 0;
  return fallback;
}

int64_t SpmdAttrs::getInt(std::string_view name, int64_t fallback) const {
  if (const int64_t *i = find<int64_t>(values, name))
    return *i;
  if (const bool *b = find<bool>(values, name))
    return *b ? 1 : 0;
  if (const double *d = find<double>(values, name))
    return static_cast<int64_t>(std::llround(*d));
  if (const auto *list = find<std::vector<int64_t>>(values, name); list && list->size() == 1)
    return list->front();
  return fallback;
}

double SpmdAttrs::getFloat(std::string_view name, double fallback) const {
  if (const double *d = find<double>(values, name))
    return *d;
  if (const int64_t *i = find<int64_t>(values, name))
    return static_cast<double>(*i);
  return fallback;
}

std::string SpmdAttrs::getString(std::string_view name, std::string fallback) const {
  if (const std::string *s = find<std::string>(values, name))
    return *s;
  return fallback;
}

std::vector<int64_t> SpmdAttrs::getInts(std::string_view name,
                                        std::vector<int64_t> fallback) const {
  if (const auto *list = find<std::vector<int64_t>>(values, name))
    return *list;
  if (const int64_t *i = find<int64_t>(values, name))
    return {*i};
  // An empty JSON list arrives as no particular element type.
  if (const auto *list = find<std::vector<double>>(values, name); list && list->empty())
    return {};
  if (const auto *list = find<std::vector<std::string>>(values, name); list && list->empty())
    return {};
  return fallback;
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

const std::vector<SpmdRule> &spmdRules() {
  static const std::vector<SpmdRule> rules = [] {
    std::vector<SpmdRule> all;
    detail::appendMatmulRules(all);
    detail::appendElementwiseRules(all);
    detail::appendReductionRules(all);
    detail::appendShapeRules(all);
    detail::appendNnRules(all);
    detail::appendTrainingRules(all);
    std::sort(all.begin(), all.end(),
              [](const SpmdRule &a, const SpmdRule &b) { return a.name < b.name; });
    for (size_t i = 1; i < all.size(); ++i)
      if (all[i].name == all[i - 1].name)
        llvm::report_fatal_error(llvm::Twine("SPMD rule '") +
                                 llvm::StringRef(all[i].name.data(), all[i].name.size()) +
                                 "' is registered twice");
    return all;
  }();
  return rules;
}

const SpmdRule *lookupSpmdRule(std::string_view name) {
  const std::vector<SpmdRule> &rules = spmdRules();
  auto it =
      std::lower_bound(rules.begin(), rules.end(), name,
                       [](const SpmdRule &rule, std::string_view n) { return rule.name < n; });
  return it != rules.end() && it->name == name ? &*it : nullptr;
}

llvm::Error spmdError(const SpmdCall &call, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::Twine(call.opName) + ": " + message);
}

namespace {

llvm::Error checkSpecs(const SpmdCall &call, llvm::ArrayRef<DistTensorSpec> specs,
                       llvm::StringRef role) {
  for (size_t i = 0; i < specs.size(); ++i) {
    const DistTensorSpec &spec = specs[i];
    if (spec.dist.dimsMapping.size() != spec.shape.size())
      return spmdError(call, role + " " + llvm::Twine(i) + ": dims_mapping has " +
                                 llvm::Twine(spec.dist.dimsMapping.size()) +
                                 " entries for a tensor of " + llvm::Twine(spec.shape.size()) +
                                 " axes");
    for (int64_t meshDim : spec.dist.dimsMapping)
      if (meshDim < kReplicated || meshDim >= call.meshRank())
        return spmdError(call, role + " " + llvm::Twine(i) + ": dims_mapping names mesh axis " +
                                   llvm::Twine(meshDim) + " of a mesh with " +
                                   llvm::Twine(call.meshRank()) + " axes");
    for (const auto &[meshDim, type] : spec.dist.partial)
      if (meshDim < 0 || meshDim >= call.meshRank())
        return spmdError(call, role + " " + llvm::Twine(i) + ": partial mesh axis " +
                                   llvm::Twine(meshDim) + " of a mesh with " +
                                   llvm::Twine(call.meshRank()) + " axes");
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<SpmdInfo> runSpmdRule(const SpmdRule &rule, bool reverse, const SpmdCall &call) {
  if (call.meshShape.empty())
    return spmdError(call, "the mesh has no axes");
  for (int64_t size : call.meshShape)
    if (size <= 0)
      return spmdError(call, "mesh axis sizes must be positive");
  if (llvm::Error err = checkSpecs(call, call.inputs, "input"))
    return std::move(err);
  if (llvm::Error err = checkSpecs(call, call.outputs, "output"))
    return std::move(err);
  SpmdRuleFn fn = reverse ? rule.reverse : rule.forward;
  if (!fn)
    return spmdError(call, llvm::Twine("rule '") +
                               llvm::StringRef(rule.name.data(), rule.name.size()) + "' has no " +
                               (reverse ? "reverse" : "forward") + " inference");
  if (reverse && rule.numOutputs >= 0 &&
      call.outputs.size() != static_cast<size_t>(rule.numOutputs))
    return spmdError(call, "reverse inference needs " + llvm::Twine(rule.numOutputs) +
                               " outputs, got " + llvm::Twine(call.outputs.size()));
  return fn(call);
}

} // namespace distc::sharding
