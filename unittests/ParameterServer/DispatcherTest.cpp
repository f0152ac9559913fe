//===- DispatcherTest.cpp - RoundRobin and HashName -----------------------===//
//
// Paddle's test_ps_dispatcher.py (4 endpoints, 4 variables), plus what its
// transpiler relies on: RoundRobin keeps its place until reset(), so blocks
// listed again after a reset land where they did before.
//
//===----------------------------------------------------------------------===//

#include "distc/ParameterServer/Dispatcher.h"

#include <gtest/gtest.h>

using namespace distc::ps;

namespace {

const std::vector<std::string> kEndpoints = {"127.0.0.1:1001", "127.0.0.1:1002",
                                             "127.0.0.1:1003", "127.0.0.1:1004"};
const std::vector<std::string> kVars = {"var_0", "var_1", "var_2", "var_3"};

TEST(Dispatcher, RoundRobinHandsOutInTurnAcrossCalls) {
  RoundRobin rr(kEndpoints);
  EXPECT_EQ(rr.endpoints().size(), 4u);
  EXPECT_EQ(rr.dispatch(kVars), kEndpoints);
  rr.reset();
  EXPECT_EQ(rr.dispatch({"a", "b"}), (std::vector<std::string>{kEndpoints[0], kEndpoints[1]}));
  EXPECT_EQ(rr.dispatch({"c", "d", "e"}),
            (std::vector<std::string>{kEndpoints[2], kEndpoints[3], kEndpoints[0]}));
  rr.reset();
  EXPECT_EQ(rr.dispatch({"a"}), (std::vector<std::string>{kEndpoints[0]}));
}

TEST(Dispatcher, HashNameIsAFunctionOfTheName) {
  HashName hn(kEndpoints);
  std::vector<std::string> first = hn.dispatch(kVars);
  EXPECT_EQ(first.size(), 4u);
  // Deterministic: the same names land on the same servers in any order,
  // in any process.
  EXPECT_EQ(hn.dispatch({kVars[2]}), (std::vector<std::string>{first[2]}));
  EXPECT_EQ(HashName(kEndpoints).dispatch(kVars), first);
  // 64-bit FNV-1a of "var_0" modulo 4 (its offset basis and prime are
  // public constants; computed independently).
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : std::string("var_0"))
    h = (h ^ uint8_t(c)) * 0x100000001b3ull;
  EXPECT_EQ(first[0], kEndpoints[h % 4]);
}

TEST(Dispatcher, MakeDispatcherTakesPaddlesClassNames) {
  EXPECT_TRUE(dynamic_cast<RoundRobin *>(makeDispatcher("RoundRobin", kEndpoints).get()));
  EXPECT_TRUE(dynamic_cast<HashName *>(makeDispatcher("HashName", kEndpoints).get()));
  EXPECT_EQ(makeDispatcher("Random", kEndpoints), nullptr);
  EXPECT_EQ(makeDispatcher("RoundRobin", {}), nullptr);
}

} // namespace
