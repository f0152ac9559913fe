//===- PlanValidatorTest.cpp - The plan validator -------------------------===//

#include "distc/Memory/PlanValidator.h"

#include <gtest/gtest.h>

using namespace distc::memory;

namespace {

TEST(PlanValidator, AcceptsAValidPlan) {
  std::vector<BufferLifetime> buffers{{3, 0, 4, 64}, {7, 2, 5, 64}, {8, 4, 6, 64}};
  // 8 starts when 3 ends, so they may share bytes.
  EXPECT_EQ(findPlanViolation(buffers, {0, 64, 0}, 128), "");
}

TEST(PlanValidator, NamesBothOverlappingBuffers) {
  std::vector<BufferLifetime> buffers{{3, 0, 4, 64}, {7, 2, 5, 64}};
  EXPECT_EQ(findPlanViolation(buffers, {0, 32}, 128),
            "buffers 3 (steps [0, 4), bytes [0, 64)) and 7 (steps [2, 5), bytes [32, 96)) are "
            "live together and overlap");
}

TEST(PlanValidator, FindsAnOverlapHiddenBehindOtherBuffers) {
  // The big buffer spans several live ones in memory; only one overlaps
  // it in time.
  std::vector<BufferLifetime> buffers{
      {1, 0, 10, 10}, {2, 0, 10, 10}, {3, 0, 10, 10}, {4, 5, 6, 10}, {5, 8, 9, 100}};
  EXPECT_EQ(findPlanViolation(buffers, {0, 20, 40, 60, 0}, 200).substr(0, 39),
            "buffers 1 (steps [0, 10), bytes [0, 10)");
  EXPECT_EQ(findPlanViolation(buffers, {0, 20, 40, 60, 70}, 200), "");
}

TEST(PlanValidator, SameOffsetTwice) {
  std::vector<BufferLifetime> buffers{{1, 0, 2, 8}, {2, 1, 3, 8}};
  EXPECT_NE(findPlanViolation(buffers, {16, 16}, 64).find("buffers 1 ("), std::string::npos);
}

TEST(PlanValidator, BufferPastTheArena) {
  std::vector<BufferLifetime> buffers{{9, 1, 2, 128}};
  EXPECT_EQ(findPlanViolation(buffers, {960}, 1024),
            "buffer 9 (steps [1, 2), bytes [960, 1088)) ends past the arena of 1024 bytes");
  EXPECT_EQ(findPlanViolation(buffers, {INT64_MAX - 10}, 1024),
            "buffer 9 (steps [1, 2), bytes [9223372036854775797, 9223372036854775925)) ends past "
            "the arena of 1024 bytes");
}

TEST(PlanValidator, MalformedPlans) {
  std::vector<BufferLifetime> buffers{{1, 0, 2, 8}};
  EXPECT_EQ(findPlanViolation(buffers, {}, 8), "the plan has 0 offsets for 1 buffers");
  EXPECT_EQ(findPlanViolation(buffers, {-8}, 8), "buffer 1 has a negative offset -8");
  EXPECT_EQ(findPlanViolation({{1, 0, 2, 0}}, {0}, 8), "buffer 1 has size 0");
  EXPECT_EQ(findPlanViolation({{1, 2, 2, 8}}, {0}, 8), "buffer 1 has an empty lifetime [2, 2)");
}

} // namespace
