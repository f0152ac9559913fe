//===- SpmdRegistryTest.cpp - Every op reaches a registered rule ----------===//

#include "distc/Sharding/SpmdQuery.h"
#include "distc/Sharding/SpmdRule.h"

#include "distc/Dialect/Pd/OpCatalog.h"

#include <gtest/gtest.h>

using namespace distc::sharding;

namespace {

TEST(SpmdRegistry, EveryOpBindingNamesARegisteredRule) {
  for (const OpSpmdBinding &binding : opSpmdBindings())
    EXPECT_NE(lookupSpmdRule(binding.rule), nullptr)
        << binding.opType << " names SPMD rule '" << binding.rule << "'";
}

TEST(SpmdRegistry, EveryCatalogOpDeclaresARule) {
  for (const distc::pd::OpSpec &spec : distc::pd::opCatalog())
    EXPECT_NE(lookupOpSpmdBinding(spec.type), nullptr)
        << spec.type << " declares no spmdRule in PdOps.td";
}

TEST(SpmdRegistry, RulesAreSortedAndUnique) {
  const std::vector<SpmdRule> &rules = spmdRules();
  ASSERT_FALSE(rules.empty());
  for (size_t i = 1; i < rules.size(); ++i)
    EXPECT_LT(rules[i - 1].name, rules[i].name);
  for (const SpmdRule &rule : rules)
    EXPECT_NE(rule.forward, nullptr) << rule.name;
}

TEST(SpmdQuery, ErrorsNameTheProblem) {
  using nlohmann::json;
  auto error = [](const json &query) {
    json answer = answerSpmdQuery(query);
    return answer.value("error", std::string("(no error)"));
  };
  EXPECT_EQ(error(json::parse(R"({"op": "no_such_op", "mesh_shape": [2]})")),
            "unknown op 'no_such_op': neither a Paddle SPMD rule nor a program op with one");
  EXPECT_EQ(error(json::parse(R"({"mesh_shape": [2]})")), "the query has no \"op\" string");
  EXPECT_EQ(error(json::parse(R"({"op": "matmul"})")), "the query has no \"mesh_shape\"");
  EXPECT_EQ(error(json::parse(R"({"op": "matmul", "mesh_shape": [2], "inputs": [{"shape": [4, 4],
              "dims_mapping": [0]}, {"shape": [4, 4]}]})")),
            "matmul: input 0: dims_mapping has 1 entries for a tensor of 2 axes");
  EXPECT_EQ(error(json::parse(R"({"op": "matmul", "mesh_shape": [2], "inputs": [{"shape": [4, 4],
              "dims_mapping": [3, -1]}, {"shape": [4, 4]}]})")),
            "matmul: input 0: dims_mapping names mesh axis 3 of a mesh with 1 axes");
  EXPECT_EQ(
      error(json::parse(R"({"op": "matmul", "mesh_shape": [2], "inputs": [{"shape": [4, 4]}]})")),
      "matmul: takes 2 inputs, got 1");
  EXPECT_EQ(error(json::parse(R"({"op": "matmul", "mesh_shape": [2], "direction": "sideways"})")),
            "\"direction\" must be \"forward\" or \"reverse\", got \"sideways\"");
  EXPECT_EQ(error(json::parse(
                R"({"op": "matmul", "mesh_shape": [2], "inputs": [{"dims_mapping": []}]})")),
            "inputs[0] has no \"shape\"");
  EXPECT_EQ(error(json::parse(R"([1, 2])")), "a query must be an object, got [1,2]");
  EXPECT_EQ(error(json::parse(R"({"op": "matmul_grad", "mesh_shape": [2], "direction": "reverse",
              "inputs": [{"shape": [4, 4]}, {"shape": [4, 4]}, {"shape": [4, 4]}]})")),
            "matmul_grad: rule 'matmul_grad' has no reverse inference");
}

} // namespace
