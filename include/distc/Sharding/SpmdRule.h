//===- SpmdRule.h - Paddle's SPMD rules --------------------------*- C++ -*-===//
//
// An SPMD rule says, for one op, how the distributions of its operands and
// results constrain each other (Paddle's `phi::distributed::*InferSpmd`):
//
//  * forward (`infer_forward`): given the inputs' shapes and dist attrs,
//    the dist attrs the inputs must have for the op to run locally on every
//    rank, and the outputs' dist attrs that result (partial where a
//    contracted axis was split);
//  * reverse (`infer_backward`): given the outputs' dist attrs, those the
//    inputs and outputs must have. As in Paddle, the inputs' current dist
//    attrs are not consulted, only their shapes.
//
// Rules are registered under Paddle's rule names (`matmul`, `add`, `max`,
// `layer_norm`, ...). A program op reaches its rule through the op's
// declaration in PdOps.td (`spmdRule`, with `spmdAttrs` renaming the op's
// Paddle attributes to the rule's): see lookupOpSpmdBinding.
//
// The expectations of Paddle's own rule tests
// (test/auto_parallel/spmd_rules/ in PaddlePaddle/Paddle) are the reference;
// unittests/Sharding/cases/ holds them as JSON.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SHARDING_SPMDRULE_H
#define DISTC_SHARDING_SPMDRULE_H

#include "distc/Sharding/DistAttr.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace distc::sharding {

/// One operand or result as a rule sees it: its global shape (-1 for a
/// dynamic size) and its current dist attr.
struct DistTensorSpec {
  std::vector<int64_t> shape;
  TensorDistAttr dist;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

/// A rule's answer: the dist attr of every input and every output.
struct SpmdInfo {
  std::vector<TensorDistAttr> inputs;
  std::vector<TensorDistAttr> outputs;
};

/// An op's attributes by name, as a rule reads them. Values keep the type
/// they were given as; the getters convert where Paddle would (an int for
/// an int list, an int for a bool) and return the default when absent.
class SpmdAttrs {
public:
  using Value = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>,
                             std::vector<double>, std::vector<std::string>>;

  void set(std::string name, Value value) { values[std::move(name)] = std::move(value); }
  bool has(std::string_view name) const { return values.count(std::string(name)) != 0; }
  const std::map<std::string, Value> &all() const { return values; }

  bool getBool(std::string_view name, bool fallback) const;
  int64_t getInt(std::string_view name, int64_t fallback) const;
  double getFloat(std::string_view name, double fallback) const;
  std::string getString(std::string_view name, std::string fallback) const;
  std::vector<int64_t> getInts(std::string_view name, std::vector<int64_t> fallback) const;

private:
  std::map<std::string, Value> values;
};

/// Everything a rule is called with.
struct SpmdCall {
  std::vector<int64_t> meshShape;
  std::vector<DistTensorSpec> inputs;
  /// The outputs (reverse inference only; empty for forward).
  std::vector<DistTensorSpec> outputs;
  SpmdAttrs attrs;
  /// The name the rule was asked by (`add` or `elementwise_add`), for errors.
  std::string opName;

  int64_t meshRank() const { return static_cast<int64_t>(meshShape.size()); }
};

using SpmdRuleFn = llvm::Expected<SpmdInfo> (*)(const SpmdCall &call);

/// A rule under one of Paddle's rule names. `reverse` may be null for rules
/// Paddle defines forward only (grad and optimizer rules); asking for it is
/// then an error naming the rule.
struct SpmdRule {
  std::string_view name;
  SpmdRuleFn forward = nullptr;
  SpmdRuleFn reverse = nullptr;
  /// The number of outputs a reverse query must give (-1: any).
  int numOutputs = -1;
};

/// Every registered rule, sorted by name.
const std::vector<SpmdRule> &spmdRules();
/// The rule registered as `name`, or nullptr.
const SpmdRule *lookupSpmdRule(std::string_view name);

/// How a program op type reaches its rule (PdOps.td `spmdRule`/`spmdAttrs`).
struct OpSpmdBinding {
  std::string_view opType;
  std::string_view rule;
  /// {rule attribute, op attribute}: the rule reads the op's Paddle attribute
  /// under the rule's name.
  std::vector<std::pair<std::string_view, std::string_view>> attrRenames;
};
/// The binding of catalog op `opType`, or nullptr when it declares no rule.
const OpSpmdBinding *lookupOpSpmdBinding(std::string_view opType);
/// The bindings of every catalog op that declares a rule.
const std::vector<OpSpmdBinding> &opSpmdBindings();

/// The attributes `binding`'s rule sees for an op given `opAttrs` by Paddle
/// name: every attribute the catalog declares (given or defaulted) under its
/// Paddle name, then each rename's rule-side name bound to its value.
SpmdAttrs ruleAttrsForOp(const OpSpmdBinding &binding, const SpmdAttrs &opAttrs);

/// Runs `rule` in `direction` ("forward" or "reverse") after checking the
/// call: every spec's dims_mapping has one entry per axis and names mesh
/// axes that exist. Errors start with the op name.
llvm::Expected<SpmdInfo> runSpmdRule(const SpmdRule &rule, bool reverse, const SpmdCall &call);

/// An error of rule `call.opName`: "<op>: <message>".
llvm::Error spmdError(const SpmdCall &call, const llvm::Twine &message);

} // namespace distc::sharding

#endif // DISTC_SHARDING_SPMDRULE_H
