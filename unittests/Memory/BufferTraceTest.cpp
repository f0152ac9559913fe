//===- BufferTraceTest.cpp - The trace CSV reader -------------------------===//

#include "distc/Memory/BufferTrace.h"

#include <gtest/gtest.h>

using namespace distc::memory;

namespace {

std::string parseError(const std::string &text) {
  std::vector<BufferLifetime> buffers;
  std::string error;
  EXPECT_FALSE(parseBufferTrace(text, "t.csv", buffers, error));
  return error;
}

TEST(BufferTrace, ParsesATrace) {
  std::vector<BufferLifetime> buffers;
  std::string error;
  ASSERT_TRUE(parseBufferTrace("id,lower,upper,size\r\n0,45,247,589825\r\n\n 7 , 1, 2 ,3\n",
                               "t.csv", buffers, error))
      << error;
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0].id, 0);
  EXPECT_EQ(buffers[0].lower, 45);
  EXPECT_EQ(buffers[0].upper, 247);
  EXPECT_EQ(buffers[0].size, 589825);
  EXPECT_EQ(buffers[1].id, 7);
  EXPECT_TRUE(parseBufferTrace("id,lower,upper,size\n", "t.csv", buffers, error));
  EXPECT_TRUE(buffers.empty());
}

TEST(BufferTrace, RefusesBadLines) {
  EXPECT_EQ(parseError(""), "t.csv: empty trace; expected the header 'id,lower,upper,size'");
  EXPECT_EQ(parseError("0,1,2,3\n"), "t.csv:1: expected the header 'id,lower,upper,size'");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1,2\n"),
            "t.csv:2: expected 4 fields (id,lower,upper,size), found 3");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1,2,3\n1,1,2,x3\n"),
            "t.csv:3: size 'x3' is not a decimal integer that fits in 64 bits");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1.5,2,3\n"),
            "t.csv:2: lower '1.5' is not a decimal integer that fits in 64 bits");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1,9223372036854775808,3\n"),
            "t.csv:2: upper '9223372036854775808' is not a decimal integer that fits in 64 bits");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1,2,\n"),
            "t.csv:2: size '' is not a decimal integer that fits in 64 bits");
  EXPECT_EQ(parseError("id,lower,upper,size\n4,1,2,0\n"),
            "t.csv:2: buffer 4 has size 0; sizes must be positive");
  EXPECT_EQ(parseError("id,lower,upper,size\n4,1,2,-5\n"),
            "t.csv:2: buffer 4 has size -5; sizes must be positive");
  EXPECT_EQ(parseError("id,lower,upper,size\n4,2,2,5\n"),
            "t.csv:2: buffer 4 has upper 2 <= lower 2; a lifetime [lower, upper) must not be "
            "empty");
  EXPECT_EQ(parseError("id,lower,upper,size\n4,1,2,5\n\n4,3,4,5\n"),
            "t.csv:4: buffer id 4 repeats the id of line 2");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,0,1,4611686018427387904\n1,0,1,1\n"),
            "t.csv:3: the sizes add up to more than 2^62 bytes");
  EXPECT_EQ(parseError(std::string("id,lower,upper,size\n0,0,1,1\0\n", 30)),
            "t.csv:2: a NUL byte; this is not a text trace");
}

TEST(BufferTrace, ParsesExtremeIntegers) {
  std::vector<BufferLifetime> buffers;
  std::string error;
  ASSERT_TRUE(parseBufferTrace(
      "id,lower,upper,size\n-9223372036854775808,-9223372036854775808,9223372036854775807,1\n",
      "t.csv", buffers, error))
      << error;
  EXPECT_EQ(buffers[0].id, INT64_MIN);
  EXPECT_EQ(buffers[0].upper, INT64_MAX);
}

TEST(BufferTrace, FormatsOffsets) {
  EXPECT_EQ(formatOffsetsCsv({{5, 0, 1, 8}, {9, 0, 1, 8}}, {0, 8}), "id,offset\n5,0\n9,8\n");
}

} // namespace
