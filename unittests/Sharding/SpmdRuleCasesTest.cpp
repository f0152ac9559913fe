//===- SpmdRuleCasesTest.cpp - SPMD rules against Paddle's expectations ---===//
//
// Every file in cases/ is a JSON array of rule queries (the distc-spmd
// format, include/distc/Sharding/SpmdQuery.h), each carrying what Paddle's
// own rule test asserts for it:
//
//   {"source": "test_matmul_rule.py: row parallel",
//    "op": "matmul", "mesh_shape": [2, 3], "inputs": [...], "attrs": {...},
//    "expect": {"inputs": [{"dims_mapping": [1, -1]}, ...],
//               "outputs": [{"dims_mapping": [1, -1], "partial_dims": []}]}}
//
// or "expect_error": "a substring of the message". Within "expect", each
// list has one entry per input/output, and only the fields an entry gives
// are compared (Paddle's tests often check dims_mapping alone).
//
//===----------------------------------------------------------------------===//

#include "distc/Sharding/SpmdQuery.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using nlohmann::json;

namespace {

std::vector<std::filesystem::path> caseFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(DISTC_SPMD_CASES_DIR))
    if (entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string describe(const json &query, size_t index) {
  std::string source = query.value("source", std::string());
  return "case " + std::to_string(index) + " (" + query.value("op", std::string("?")) +
         (source.empty() ? "" : ", " + source) + ")";
}

void compareList(const json &expected, const json &actual, const std::string &what,
                 const std::string &where) {
  ASSERT_TRUE(actual.is_array()) << where << ": no " << what << " in " << actual.dump();
  ASSERT_EQ(expected.size(), actual.size())
      << where << ": " << what << " count; got " << actual.dump();
  for (size_t i = 0; i < expected.size(); ++i)
    for (const auto &[field, value] : expected[i].items()) {
      json got = actual[i].contains(field) ? actual[i][field] : json();
      if (field == "partial_dims" && got.is_null())
        got = json::array();
      EXPECT_EQ(value, got) << where << ": " << what << "[" << i << "]." << field << " (got "
                            << actual[i].dump() << ")";
    }
}

class SpmdRuleCases : public testing::TestWithParam<std::filesystem::path> {};

TEST_P(SpmdRuleCases, MatchPaddle) {
  std::ifstream in(GetParam());
  ASSERT_TRUE(in) << GetParam();
  json cases = json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(cases.is_array()) << GetParam() << " is not a JSON array";
  ASSERT_FALSE(cases.empty());
  for (size_t i = 0; i < cases.size(); ++i) {
    const json &query = cases[i];
    std::string where = GetParam().filename().string() + " " + describe(query, i);
    json answer = distc::sharding::answerSpmdQuery(query);
    if (query.contains("expect_error")) {
      ASSERT_TRUE(answer.contains("error"))
          << where << ": expected an error, got " << answer.dump();
      EXPECT_NE(answer["error"].get<std::string>().find(query["expect_error"].get<std::string>()),
                std::string::npos)
          << where << ": error was: " << answer["error"];
      continue;
    }
    ASSERT_FALSE(answer.contains("error")) << where << ": " << answer["error"];
    ASSERT_TRUE(query.contains("expect")) << where << " has no \"expect\"";
    const json &expect = query["expect"];
    if (expect.contains("inputs"))
      compareList(expect["inputs"], answer["inputs"], "inputs", where);
    if (expect.contains("outputs"))
      compareList(expect["outputs"], answer["outputs"], "outputs", where);
  }
}

INSTANTIATE_TEST_SUITE_P(Paddle, SpmdRuleCases, testing::ValuesIn(caseFiles()),
                         [](const testing::TestParamInfo<std::filesystem::path> &info) {
                           std::string name = info.param.stem().string();
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
