//===- VarSlicingTest.cpp - slice_variable against Paddle's tests ---------===//
//
// The block sizes Paddle's test_slice_var.py asserts (10 servers, minimum
// blocks of 1024 and 8192 elements) and the blocks test_dist_transpiler.py
// expects of its network's parameters on 2 servers.
//
//===----------------------------------------------------------------------===//

#include "distc/ParameterServer/VarSlicing.h"

#include <gtest/gtest.h>

using namespace distc::ps;

namespace {

std::vector<int64_t> sizes(const std::vector<VarBlock> &blocks) {
  std::vector<int64_t> out;
  for (const VarBlock &b : blocks)
    out.push_back(b.size);
  return out;
}

std::vector<int64_t> repeat(int64_t value, size_t times) {
  return std::vector<int64_t>(times, value);
}

std::vector<int64_t> cat(std::vector<int64_t> a, const std::vector<int64_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(VarSlicing, PaddleSliceVarTestWith1kBlocks) {
  EXPECT_EQ(sizes(sliceVariable("a", {3, 5}, 10, 1024)), (std::vector<int64_t>{15}));
  EXPECT_EQ(sizes(sliceVariable("b", {1024}, 10, 1024)), (std::vector<int64_t>{1024}));
  EXPECT_EQ(sizes(sliceVariable("c", {28, 784}, 10, 1024)), cat(repeat(2352, 9), {784}));
  EXPECT_EQ(sizes(sliceVariable("d", {8, 1020}, 10, 1024)), repeat(2040, 4));
  EXPECT_EQ(sizes(sliceVariable("e", {800, 10}, 10, 1024)), cat(repeat(1150, 6), {1100}));
}

TEST(VarSlicing, PaddleSliceVarTestWith8kBlocks) {
  EXPECT_EQ(sizes(sliceVariable("a", {3, 5}, 10, 8192)), (std::vector<int64_t>{15}));
  EXPECT_EQ(sizes(sliceVariable("b", {1024}, 10, 8192)), (std::vector<int64_t>{1024}));
  EXPECT_EQ(sizes(sliceVariable("c", {28, 784}, 10, 8192)), repeat(10976, 2));
  EXPECT_EQ(sizes(sliceVariable("d", {8, 1020}, 10, 8192)), (std::vector<int64_t>{8160}));
  EXPECT_EQ(sizes(sliceVariable("e", {800, 10}, 10, 8192)), (std::vector<int64_t>{8000}));
  EXPECT_EQ(sizes(sliceVariable("f", {6, 33, 33, 33}, 10, 8192)), repeat(35937, 6));
}

TEST(VarSlicing, BlocksAreWholeRowsWithOffsetsAndShapes) {
  // test_dist_transpiler.py's fc_w on 2 servers: two blocks of 500 rows.
  std::vector<VarBlock> w = sliceVariable("fc_w", {1000, 1000}, 2, kMinBlockSize);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].str(), "fc_w:0:500000");
  EXPECT_EQ(w[1].str(), "fc_w:1:500000");
  EXPECT_EQ(w[1].offset, 500000);
  EXPECT_EQ(w[1].shape, (std::vector<int64_t>{500, 1000}));
  // Its bias is below one minimum block: one block, the whole variable.
  std::vector<VarBlock> b = sliceVariable("fc_b", {1000}, 2, kMinBlockSize);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].shape, (std::vector<int64_t>{1000}));
  // TestBasicModelWithLargeBlockSize: min_block_size 1048576 keeps fc_w whole.
  EXPECT_EQ(sliceVariable("fc_w", {1000, 1000}, 2, 1048576).size(), 1u);
  // An embedding table [1000, 64] on 2 servers: (500, 64) each.
  std::vector<VarBlock> table = sliceVariable("emb", {1000, 64}, 2, kMinBlockSize);
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].shape, (std::vector<int64_t>{500, 64}));
  // 3 servers round the block up to whole rows: 334, 334 and 332 rows.
  std::vector<VarBlock> three = sliceVariable("fc_w", {1000, 1000}, 3, kMinBlockSize);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[2].shape, (std::vector<int64_t>{332, 1000}));
  EXPECT_EQ(three[2].offset, 668000);
  // slice_var_up = false slices over one server: one block each.
  EXPECT_EQ(sliceVariable("fc_w", {1000, 1000}, 1, kMinBlockSize).size(), 1u);
}

TEST(VarSlicing, Names) {
  EXPECT_EQ(blockVarName("fc_w", 1, 2), "fc_w.block1");
  EXPECT_EQ(blockVarName("fc_b", 0, 1), "fc_b");
  EXPECT_EQ(trainerVarName(blockVarName("fc_w@GRAD", 1, 2), 0), "fc_w@GRAD.block1.trainer_0");
  EXPECT_EQ(trainerVarName("fc_b@GRAD", 0), "fc_b@GRAD.trainer_0");
  EXPECT_TRUE(isVarOrBlockOf("fc_w.block0", "fc_w"));
  EXPECT_TRUE(isVarOrBlockOf("fc_w", "fc_w"));
  EXPECT_FALSE(isVarOrBlockOf("fc_w_moment", "fc_w"));
}

} // namespace
