//===- CommunicatorTest.cpp - Collectives: local and Gloo -----------------===//
//
// Gloo groups run as threads of this process on 127.0.0.1. Reductions are
// checked bitwise against a left fold over the ranks in rank order, which
// is what the communicator promises whatever the count or world size.
//
//===----------------------------------------------------------------------===//

#include "CommTestUtil.h"

#include "distc/Comm/Communicator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

using namespace distc::comm;
using namespace distc::comm::test;
using namespace std::chrono_literals;

namespace {

TEST(LocalCommunicator, EveryCollectiveIsTheIdentity) {
  LocalCommunicator c;
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.size(), 1);
  std::vector<float> x{1.5f, -2.f, 3.f};
  auto y = x;
  EXPECT_TRUE(c.allreduce(y.data(), y.size(), DType::Float32, ReduceOp::Sum).ok());
  EXPECT_TRUE(c.reduce(y.data(), y.size(), DType::Float32, ReduceOp::Max, 0).ok());
  EXPECT_TRUE(c.broadcast(y.data(), y.size(), DType::Float32, 0).ok());
  EXPECT_EQ(x, y);
  std::vector<float> out(3);
  EXPECT_TRUE(c.allgather(x.data(), out.data(), 3, DType::Float32).ok());
  EXPECT_EQ(out, x);
  EXPECT_TRUE(c.barrier().ok());
}

TEST(LocalCommunicator, ChecksArgumentsLikeTheOthers) {
  LocalCommunicator c;
  float x = 0;
  Status s = c.broadcast(&x, 1, DType::Float32, 1);
  EXPECT_EQ(s.message(), "broadcast: root 1 is outside [0, 1)");
  s = c.allreduce(&x, 1, DType::Float16, ReduceOp::Sum);
  EXPECT_EQ(s.message(), "allreduce of f16 is not supported; reductions support i8, u8, i16, "
                         "i32, i64, f32 and f64");
  s = c.allreduce(nullptr, 4, DType::Float32, ReduceOp::Sum);
  EXPECT_EQ(s.message(), "allreduce: null buffer for 4 elements");
  EXPECT_TRUE(c.allreduce(nullptr, 0, DType::Float32, ReduceOp::Sum).ok());
  float block[3] = {1, 2, 3};
  s = c.allgather(block + 1, block, 2, DType::Float32);
  EXPECT_EQ(s.message(),
            "allgather: the input overlaps the output other than at this rank's block (rank 0)");
}

TEST(ReduceOp, NamesRoundTrip) {
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod})
    EXPECT_EQ(reduceOpFromName(reduceOpName(op)), op);
  EXPECT_FALSE(reduceOpFromName("avg"));
}

#if DISTC_HAVE_GLOO


std::vector<float> foldInRankOrder(int n, size_t count) {
  std::vector<float> acc = rankData(0, count);
  for (int r = 1; r < n; ++r) {
    std::vector<float> x = rankData(r, count);
    for (size_t i = 0; i < count; ++i)
      acc[i] = acc[i] + x[i];
  }
  return acc;
}

class GlooGroup : public ::testing::TestWithParam<int> {};

TEST_P(GlooGroup, AllreduceSumIsTheRankOrderFoldBitwise) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_EQ(comms.size(), size_t(n));
  for (size_t count : {size_t(1), size_t(3), size_t(1001), size_t(300000)}) {
    std::vector<std::vector<float>> data(n);
    runThreads(n, [&](int r) {
      data[r] = rankData(r, count);
      Status s = comms[r]->allreduce(data[r].data(), count, DType::Float32, ReduceOp::Sum);
      EXPECT_TRUE(s.ok()) << s.message();
    });
    std::vector<float> expected = foldInRankOrder(n, count);
    for (int r = 0; r < n; ++r)
      EXPECT_EQ(std::memcmp(data[r].data(), expected.data(), count * sizeof(float)), 0)
          << "rank " << r << ", count " << count;
  }
}

template <typename T>
void allreduceCase(std::vector<std::unique_ptr<Communicator>> &comms, DType dtype, ReduceOp op,
                   std::function<T(int rank, size_t i)> value, std::function<T(T, T)> combine) {
  int n = static_cast<int>(comms.size());
  const size_t count = 37;
  std::vector<std::vector<T>> data(n);
  runThreads(n, [&](int r) {
    data[r].resize(count);
    for (size_t i = 0; i < count; ++i)
      data[r][i] = value(r, i);
    Status s = comms[r]->allreduce(data[r].data(), count, dtype, op);
    EXPECT_TRUE(s.ok()) << s.message();
  });
  for (size_t i = 0; i < count; ++i) {
    T acc = value(0, i);
    for (int r = 1; r < n; ++r)
      acc = combine(acc, value(r, i));
    for (int r = 0; r < n; ++r)
      EXPECT_EQ(data[r][i], acc) << reduceOpName(op) << " " << distc::runtime::dtypeName(dtype) << " rank "
                                 << r << " element " << i;
  }
}

TEST_P(GlooGroup, AllreduceOpsAndElementTypes) {
  auto comms = makeGlooGroup(GetParam());
  ASSERT_FALSE(comms.empty());
  allreduceCase<int32_t>(
      comms, DType::Int32, ReduceOp::Max,
      [](int r, size_t i) { return int32_t((r * 7 + i * 13) % 11) - 5; },
      [](int32_t a, int32_t b) { return std::max(a, b); });
  allreduceCase<int64_t>(
      comms, DType::Int64, ReduceOp::Min,
      [](int r, size_t i) { return int64_t(r) * 1000000000000 - int64_t(i); },
      [](int64_t a, int64_t b) { return std::min(a, b); });
  allreduceCase<double>(
      comms, DType::Float64, ReduceOp::Prod,
      [](int r, size_t i) { return 1.0 + 0.1 * r + 0.01 * double(i); },
      [](double a, double b) { return a * b; });
  allreduceCase<double>(
      comms, DType::Float64, ReduceOp::Sum,
      [](int r, size_t i) { return std::ldexp(1.0 + r, int(i % 60) - 30); },
      [](double a, double b) { return a + b; });
  // Integer sums wrap around.
  allreduceCase<int8_t>(
      comms, DType::Int8, ReduceOp::Sum, [](int r, size_t i) { return int8_t(100 + r + int(i)); },
      [](int8_t a, int8_t b) { return int8_t(uint8_t(a) + uint8_t(b)); });
  allreduceCase<uint8_t>(
      comms, DType::UInt8, ReduceOp::Max, [](int r, size_t i) { return uint8_t(200 + r * 13 + i); },
      [](uint8_t a, uint8_t b) { return std::max(a, b); });
  allreduceCase<int16_t>(
      comms, DType::Int16, ReduceOp::Prod,
      [](int r, size_t i) { return int16_t(300 + r + int(i)); },
      [](int16_t a, int16_t b) {
        return int16_t(uint16_t(unsigned(uint16_t(a)) * unsigned(uint16_t(b))));
      });
}

TEST_P(GlooGroup, MaxAndMinPropagateNaN) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_FALSE(comms.empty());
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
    std::vector<std::vector<float>> data(n);
    runThreads(n, [&](int r) {
      data[r] = {float(r), r == n - 1 ? NAN : 1.f, r == 0 ? NAN : -1.f};
      EXPECT_TRUE(comms[r]->allreduce(data[r].data(), 3, DType::Float32, op).ok());
    });
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(data[r][0], op == ReduceOp::Max ? float(n - 1) : 0.f);
      EXPECT_TRUE(std::isnan(data[r][1]));
      EXPECT_TRUE(std::isnan(data[r][2]));
    }
  }
}

TEST_P(GlooGroup, BroadcastFromEveryRootSmallAndLarge) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_FALSE(comms.empty());
  for (size_t count : {size_t(5), size_t(100003)}) {
    for (int root = 0; root < n; ++root) {
      std::vector<std::vector<int32_t>> data(n);
      runThreads(n, [&](int r) {
        data[r].assign(count, -1);
        if (r == root)
          for (size_t i = 0; i < count; ++i)
            data[r][i] = int32_t(i * 31 + root);
        Status s = comms[r]->broadcast(data[r].data(), count, DType::Int32, root);
        EXPECT_TRUE(s.ok()) << s.message();
      });
      for (int r = 0; r < n; ++r)
        EXPECT_EQ(data[r], data[root]) << "root " << root << " rank " << r << " count " << count;
    }
  }
}

TEST_P(GlooGroup, ReduceLeavesTheResultOnRootOnly) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_FALSE(comms.empty());
  const size_t count = 1001;
  int root = n - 1;
  std::vector<std::vector<float>> data(n);
  runThreads(n, [&](int r) {
    data[r] = rankData(r, count);
    Status s = comms[r]->reduce(data[r].data(), count, DType::Float32, ReduceOp::Sum, root);
    EXPECT_TRUE(s.ok()) << s.message();
  });
  std::vector<float> expected = foldInRankOrder(n, count);
  EXPECT_EQ(std::memcmp(data[root].data(), expected.data(), count * sizeof(float)), 0);
  for (int r = 0; r < n; ++r)
    if (r != root)
      EXPECT_EQ(data[r], rankData(r, count)) << "rank " << r;
}

TEST_P(GlooGroup, AllgatherInRankOrderAlsoInPlace) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_FALSE(comms.empty());
  const size_t per = 3;
  std::vector<std::vector<int64_t>> out(n), inPlace(n);
  runThreads(n, [&](int r) {
    std::vector<int64_t> in{r * 10, r * 10 + 1, r * 10 + 2};
    out[r].assign(n * per, -1);
    Status s = comms[r]->allgather(in.data(), out[r].data(), per, DType::Int64);
    EXPECT_TRUE(s.ok()) << s.message();
    inPlace[r].assign(n * per, -1);
    std::copy(in.begin(), in.end(), inPlace[r].begin() + r * per);
    s = comms[r]->allgather(inPlace[r].data() + r * per, inPlace[r].data(), per, DType::Int64);
    EXPECT_TRUE(s.ok()) << s.message();
  });
  std::vector<int64_t> expected;
  for (int r = 0; r < n; ++r)
    for (int64_t k = 0; k < 3; ++k)
      expected.push_back(r * 10 + k);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(out[r], expected) << "rank " << r;
    EXPECT_EQ(inPlace[r], expected) << "rank " << r;
  }
}

TEST_P(GlooGroup, BarrierWaitsForEveryRank) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_FALSE(comms.empty());
  std::atomic<int> arrived{0};
  runThreads(n, [&](int r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30 * r));
    ++arrived;
    EXPECT_TRUE(comms[r]->barrier().ok());
    EXPECT_EQ(arrived.load(), n) << "rank " << r << " left the barrier early";
  });
}

TEST_P(GlooGroup, ManySmallCollectivesInSequence) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_FALSE(comms.empty());
  runThreads(n, [&](int r) {
    for (int step = 0; step < 200; ++step) {
      int64_t v = r + step;
      ASSERT_TRUE(comms[r]->allreduce(&v, 1, DType::Int64, ReduceOp::Sum).ok());
      ASSERT_EQ(v, int64_t(n) * (n - 1) / 2 + int64_t(n) * step);
      if (step % 50 == 0)
        ASSERT_TRUE(comms[r]->barrier().ok());
    }
  });
}

TEST_P(GlooGroup, ZeroCountsAndBadArgumentsAreConsistent) {
  int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_FALSE(comms.empty());
  runThreads(n, [&](int r) {
    EXPECT_TRUE(comms[r]->allreduce(nullptr, 0, DType::Float32, ReduceOp::Sum).ok());
    float x = 1;
    Status s = comms[r]->broadcast(&x, 1, DType::Float32, n);
    EXPECT_EQ(s.message(), "broadcast: root " + std::to_string(n) + " is outside [0, " +
                               std::to_string(n) + ")");
    // The input may be this rank's block of the output, and nothing else.
    std::vector<float> out(n + 1);
    const int other = (r + 1) % n;
    s = comms[r]->allgather(out.data() + other, out.data(), 1, DType::Float32);
    EXPECT_EQ(s.message(), "allgather: the input overlaps the output other than at this rank's "
                           "block (rank " + std::to_string(r) + ")");
    // A bad argument is local: the communicator still works.
    EXPECT_TRUE(comms[r]->allreduce(&x, 1, DType::Float32, ReduceOp::Sum).ok());
    EXPECT_EQ(x, float(n));
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooGroup, ::testing::Values(2, 4),
                         [](const auto &info) { return std::to_string(info.param); });

#endif

} // namespace
