//===- distc-spmd.cpp - Ask distc's SPMD rules --------------------------===//
//
// distc-spmd [FILE]            (a JSON array of queries; default stdin)
// distc-spmd --list            (every rule, and the program ops using each)
//
// Answers each query with the rule's inferred dist attrs, in order, as one
// JSON array on standard output (the query and answer formats are in
// include/distc/Sharding/SpmdQuery.h and docs/sharding.md). A query that
// cannot be answered -- unknown op, malformed field, shardings the rule
// rejects -- gets an error object in its place and the others go on.
//
// Exit status: 0 when every query was answered, 1 when any got an error
// object or the input is not a JSON array (one line on stderr).
//
//===----------------------------------------------------------------------===//

#include "distc/Sharding/SpmdQuery.h"
#include "distc/Sharding/SpmdRule.h"
#include "distc/Support/ToolOutput.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

using nlohmann::json;

static int fail(const std::string &message) {
  std::fprintf(stderr, "distc-spmd: error: %s\n", distc::printableLine(message).c_str());
  return 1;
}

static void listRules() {
  std::map<std::string_view, std::vector<std::string_view>> opsByRule;
  for (const distc::sharding::OpSpmdBinding &binding : distc::sharding::opSpmdBindings())
    opsByRule[binding.rule].push_back(binding.opType);
  for (const distc::sharding::SpmdRule &rule : distc::sharding::spmdRules()) {
    std::cout << rule.name << (rule.reverse ? "" : " (forward only)");
    auto it = opsByRule.find(rule.name);
    if (it != opsByRule.end()) {
      std::cout << ":";
      for (std::string_view op : it->second)
        std::cout << " " << op;
    }
    std::cout << "\n";
  }
}

int main(int argc, char **argv) {
  CLI::App app{"Answers SPMD sharding-rule queries (a JSON array) with Paddle's rules."};
  std::string path;
  bool list = false;
  app.add_option("queries", path, "JSON file of queries (default: standard input)");
  app.add_flag("--list", list, "List every rule and the program ops that use it");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return fail(e.what());
  }
  if (list) {
    listRules();
    std::string problem = distc::standardOutputError();
    return problem.empty() ? 0 : fail("cannot write to standard output: " + problem);
  }

  json queries;
  try {
    if (path.empty() || path == "-") {
      queries = json::parse(std::cin);
    } else {
      std::ifstream in(path);
      if (!in)
        return fail("cannot open '" + path + "'");
      queries = json::parse(in);
    }
  } catch (const json::exception &e) {
    return fail(std::string(path.empty() ? "standard input" : path) + " is not JSON: " + e.what());
  }
  if (!queries.is_array())
    return fail("expected a JSON array of queries, got " + std::string(queries.type_name()));

  json answers = json::array();
  bool anyError = false;
  for (size_t i = 0; i < queries.size(); ++i) {
    json result = distc::sharding::answerSpmdQuery(queries[i]);
    if (result.contains("error")) {
      anyError = true;
      result["case"] = i;
    }
    answers.push_back(std::move(result));
  }
  // One answer per line: readable, and still one JSON array.
  std::cout << "[";
  for (size_t i = 0; i < answers.size(); ++i)
    std::cout << (i ? ",\n " : "\n ") << answers[i].dump();
  std::cout << "\n]\n";
  std::string problem = distc::standardOutputError();
  if (!problem.empty())
    return fail("cannot write to standard output: " + problem);
  return anyError ? 1 : 0;
}
