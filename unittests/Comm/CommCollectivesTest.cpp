//===- CommCollectivesTest.cpp - Runtime collectives over Gloo ------------===//
//
// The adapter the Session's collective kernels use, on two ranks over Gloo
// (threads on 127.0.0.1): in-place allreduce and broadcast of tensors, and
// its errors.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/CommCollectives.h"

#include "CommTestUtil.h"

#include <gtest/gtest.h>

using namespace distc;
using namespace distc::comm;
using runtime::Tensor;

#if DISTC_HAVE_GLOO
TEST(CommCollectives, AllreduceAndBroadcastTensors) {
  auto group = test::makeGlooGroup(2);
  ASSERT_EQ(group.size(), 2u);
  std::vector<std::shared_ptr<Communicator>> comms(group.size());
  for (size_t i = 0; i < group.size(); ++i)
    comms[i] = std::move(group[i]);
  std::vector<std::vector<float>> sums(2), broadcasts(2);
  test::runThreads(2, [&](int rank) {
    CommCollectives c(comms[static_cast<size_t>(rank)]);
    EXPECT_EQ(c.rank(), rank);
    EXPECT_EQ(c.size(), 2);
    Tensor t(runtime::DType::Float32, {3});
    for (int i = 0; i < 3; ++i)
      t.data<float>()[i] = static_cast<float>(rank * 10 + i);
    runtime::Status st = c.allreduce(t, "sum");
    EXPECT_TRUE(st.ok()) << st.message();
    sums[static_cast<size_t>(rank)].assign(t.data<float>(), t.data<float>() + 3);
    for (int i = 0; i < 3; ++i)
      t.data<float>()[i] = static_cast<float>(rank + 1);
    st = c.broadcast(t, 1);
    EXPECT_TRUE(st.ok()) << st.message();
    broadcasts[static_cast<size_t>(rank)].assign(t.data<float>(), t.data<float>() + 3);
  });
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(sums[static_cast<size_t>(rank)], (std::vector<float>{10, 12, 14}));
    EXPECT_EQ(broadcasts[static_cast<size_t>(rank)], (std::vector<float>{2, 2, 2}));
  }
}
#endif

TEST(CommCollectives, UnknownReductionIsAnError) {
  CommCollectives c(std::make_shared<LocalCommunicator>());
  Tensor t(runtime::DType::Float32, {2});
  runtime::Status st = c.allreduce(t, "mean");
  EXPECT_EQ(st.message(), "unknown reduction 'mean'");
  EXPECT_TRUE(c.allreduce(t, "max").ok());
}
