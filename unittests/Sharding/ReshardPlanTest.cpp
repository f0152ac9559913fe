//===- ReshardPlanTest.cpp - Reshard steps between two layouts ------------===//
//
// Each of Paddle's one-axis transitions, and their composition on a 2-D
// mesh: the steps, their order, and that every intermediate layout is valid
// for the tensor.
//
//===----------------------------------------------------------------------===//

#include "../../lib/compiler/Sharding/ReshardPlan.h"

#include <gtest/gtest.h>

using namespace distc::sharding;
using Kind = ReshardStep::Kind;

namespace {

TensorDistAttr dist(std::vector<int64_t> mapping, std::map<int64_t, ReduceType> partial = {}) {
  TensorDistAttr d;
  d.dimsMapping = std::move(mapping);
  d.partial = std::move(partial);
  return d;
}

std::vector<std::string> describe(const std::vector<ReshardStep> &steps) {
  std::vector<std::string> out;
  for (const ReshardStep &s : steps)
    out.push_back(s.str());
  return out;
}

/// Plans from -> to, checks every step's layout on an 8x8 tensor and that
/// the last one is the target.
std::vector<std::string> plan(const TensorDistAttr &from, const TensorDistAttr &to,
                              std::vector<int64_t> mesh) {
  std::vector<ReshardStep> steps = planReshard(from, to, mesh);
  for (const ReshardStep &s : steps) {
    llvm::Error err = verifyDistAttr(s.after, {8, 8}, mesh);
    EXPECT_FALSE(static_cast<bool>(err)) << s.str() << ": " << llvm::toString(std::move(err));
  }
  if (!steps.empty())
    EXPECT_EQ(steps.back().after, to);
  return describe(steps);
}

TEST(ReshardPlan, EqualLayoutsNeedNothing) {
  EXPECT_TRUE(plan(dist({0, -1}), dist({0, -1}), {2}).empty());
}

TEST(ReshardPlan, OneAxisTransitions) {
  using V = std::vector<std::string>;
  EXPECT_EQ(plan(dist({-1, -1}), dist({0, -1}), {2}), V{"slice(axis 0) over mesh axis 0"});
  EXPECT_EQ(plan(dist({-1, 0}), dist({-1, -1}), {2}), V{"all-gather(axis 1) over mesh axis 0"});
  EXPECT_EQ(plan(dist({-1, -1}, {{0, ReduceType::Sum}}), dist({-1, -1}), {2}),
            V{"all-reduce(sum) over mesh axis 0"});
  EXPECT_EQ(plan(dist({-1, -1}, {{0, ReduceType::Sum}}), dist({-1, 0}), {2}),
            V{"reduce-scatter(axis 1) over mesh axis 0"});
  EXPECT_EQ(plan(dist({0, -1}), dist({-1, 0}), {2}), V{"all-to-all(axis 0 -> 1) over mesh axis 0"});
  EXPECT_EQ(plan(dist({-1, -1}), dist({-1, -1}, {{0, ReduceType::Sum}}), {2}),
            V{"partial(sum) over mesh axis 0"});
}

TEST(ReshardPlan, PartialAverageAndMaximumAreAllReduced) {
  using V = std::vector<std::string>;
  EXPECT_EQ(plan(dist({-1, -1}, {{0, ReduceType::Avg}}), dist({-1, 0}), {2}),
            (V{"all-reduce(avg) over mesh axis 0", "slice(axis 1) over mesh axis 0"}));
  EXPECT_EQ(plan(dist({-1, -1}, {{0, ReduceType::Max}}), dist({-1, -1}), {2}),
            V{"all-reduce(max) over mesh axis 0"});
}

TEST(ReshardPlan, ReplicatedIsAlreadyItsOwnMaximum) {
  // No communication: every rank's copy is the max (or mean) of the group.
  EXPECT_TRUE(plan(dist({-1, -1}), dist({-1, -1}, {{0, ReduceType::Max}}), {2}).empty());
}

TEST(ReshardPlan, TwoDimensionalMeshComposes) {
  using V = std::vector<std::string>;
  // [S(0), P] -> [S(0), R]: only mesh axis 1 changes.
  EXPECT_EQ(plan(dist({0, -1}, {{1, ReduceType::Sum}}), dist({0, -1}), {2, 2}),
            V{"all-reduce(sum) over mesh axis 1"});
  // [S(0), S(1)] -> [R, R]: gather both axes.
  EXPECT_EQ(plan(dist({0, 1}), dist({-1, -1}), {2, 2}),
            (V{"all-gather(axis 0) over mesh axis 0", "all-gather(axis 1) over mesh axis 1"}));
  // [S(0), S(1)] -> [S(1), S(0)]: tensor axis 1 is busy when mesh axis 0
  // moves, so it is gathered, and split again once mesh axis 1 let go.
  EXPECT_EQ(plan(dist({0, 1}), dist({1, 0}), {2, 2}),
            (V{"all-gather(axis 0) over mesh axis 0", "all-to-all(axis 1 -> 0) over mesh axis 1",
               "slice(axis 1) over mesh axis 0"}));
  // Partial on one axis, shard on the other, to the transposed layout.
  EXPECT_EQ(plan(dist({0, -1}, {{1, ReduceType::Sum}}), dist({-1, 1}), {2, 2}),
            (V{"reduce-scatter(axis 1) over mesh axis 1", "all-gather(axis 0) over mesh axis 0"}));
}

} // namespace
