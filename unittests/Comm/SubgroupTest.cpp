//===- SubgroupTest.cpp - Reduce-scatter, all-to-all and sub-groups -------===//
//
// The collectives a sharded program adds to data parallelism, on the local
// communicator and on Gloo (ranks as threads on 127.0.0.1, or forked
// processes where one must die): reduce-scatter (checked bitwise against
// the rank-order fold), all-to-all, and the communicators of sub-groups of
// the ranks (the rings of a 2x2 process mesh), including a failure that
// must name the ring and the world ranks.
//
//===----------------------------------------------------------------------===//

#include "CommTestUtil.h"

#include "distc/Comm/GlooCommunicator.h"
#include "distc/Comm/Rendezvous.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <unistd.h>

using namespace distc::comm;
using namespace distc::comm::test;
using namespace std::chrono_literals;

namespace {

TEST(LocalCommunicator, ReduceScatterAndAlltoallCopy) {
  LocalCommunicator c;
  std::vector<float> x{1.5f, -2.f, 3.f}, out(3, 0.f);
  ASSERT_TRUE(c.reduceScatter(x.data(), out.data(), 3, DType::Float32, ReduceOp::Max).ok());
  EXPECT_EQ(out, x);
  std::vector<int16_t> h{1, 2}, hout(2);
  ASSERT_TRUE(c.alltoall(h.data(), hout.data(), 2, DType::Int16).ok());
  EXPECT_EQ(hout, h);
  EXPECT_EQ(c.reduceScatter(x.data(), x.data() + 1, 2, DType::Float32, ReduceOp::Sum).message(),
            "reducescatter: the input overlaps the output");
  EXPECT_EQ(c.reduceScatter(h.data(), hout.data(), 1, DType::Float16, ReduceOp::Sum).message(),
            "reducescatter of f16 is not supported; reductions support i8, u8, i16, i32, i64, "
            "f32 and f64");
  EXPECT_EQ(c.alltoall(nullptr, hout.data(), 2, DType::Int16).message(),
            "alltoall: null buffer for 2 elements");
  std::unique_ptr<Communicator> sub;
  ASSERT_TRUE(c.makeSubgroup({0}, 4, sub).ok());
  EXPECT_EQ(sub->size(), 1);
  EXPECT_EQ(c.makeSubgroup({0, 1}, 4, sub).message(),
            "forming the communicator of ring 4: rank 1 is outside [0, 1)");
}

#if DISTC_HAVE_GLOO

/// The seed of this file's data: other values than CommunicatorTest's.
constexpr unsigned kDataSeed = 977;

class GlooShards : public ::testing::TestWithParam<int> {};

TEST_P(GlooShards, ReduceScatterIsTheRankOrderFoldOfEachChunkBitwise) {
  const int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_EQ(comms.size(), size_t(n));
  for (size_t per : {size_t(1), size_t(333), size_t(40000)}) {
    std::vector<std::vector<float>> out(n);
    runThreads(n, [&](int r) {
      std::vector<float> in = rankData(r, per * n, kDataSeed);
      out[r].assign(per, -1.f);
      Status s =
          comms[r]->reduceScatter(in.data(), out[r].data(), per, DType::Float32, ReduceOp::Sum);
      EXPECT_TRUE(s.ok()) << s.message();
    });
    for (int r = 0; r < n; ++r) {
      std::vector<float> expected = rankData(0, per * n, kDataSeed);
      for (int q = 1; q < n; ++q) {
        std::vector<float> x = rankData(q, per * n, kDataSeed);
        for (size_t i = 0; i < per * n; ++i)
          expected[i] = expected[i] + x[i];
      }
      EXPECT_EQ(std::memcmp(out[r].data(), expected.data() + r * per, per * sizeof(float)), 0)
          << "rank " << r << ", " << per << " per rank";
    }
  }
  // Integer max, and a zero count.
  runThreads(n, [&](int r) {
    std::vector<int32_t> in(n);
    for (int q = 0; q < n; ++q)
      in[q] = (r * 7 + q * 3) % 5;
    int32_t out = -1;
    ASSERT_TRUE(comms[r]->reduceScatter(in.data(), &out, 1, DType::Int32, ReduceOp::Max).ok());
    int32_t expected = 0;
    for (int q = 0; q < n; ++q)
      expected = std::max(expected, (q * 7 + r * 3) % 5);
    EXPECT_EQ(out, expected);
    EXPECT_TRUE(comms[r]->reduceScatter(nullptr, nullptr, 0, DType::Int32, ReduceOp::Sum).ok());
  });
}

TEST_P(GlooShards, AlltoallSendsChunkKToRankK) {
  const int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_EQ(comms.size(), size_t(n));
  for (size_t per : {size_t(1), size_t(5), size_t(70000)}) {
    std::vector<std::vector<int64_t>> out(n);
    runThreads(n, [&](int r) {
      std::vector<int64_t> in(n * per);
      for (size_t i = 0; i < in.size(); ++i)
        in[i] = int64_t(r) * 1000000 + int64_t(i);
      out[r].assign(n * per, -1);
      Status s = comms[r]->alltoall(in.data(), out[r].data(), per, DType::Int64);
      EXPECT_TRUE(s.ok()) << s.message();
    });
    // Chunk q of rank r's result is chunk r of rank q's input.
    for (int r = 0; r < n; ++r)
      for (int q = 0; q < n; ++q)
        for (size_t j = 0; j < per; ++j)
          ASSERT_EQ(out[r][q * per + j], int64_t(q) * 1000000 + int64_t(r * per + j))
              << "rank " << r << " chunk " << q;
  }
}

TEST_P(GlooShards, BadArgumentsAreLocal) {
  const int n = GetParam();
  auto comms = makeGlooGroup(n);
  ASSERT_EQ(comms.size(), size_t(n));
  runThreads(n, [&](int r) {
    std::vector<float> buf(2 * n);
    EXPECT_EQ(comms[r]->alltoall(buf.data(), buf.data() + 1, 1, DType::Float32).message(),
              "alltoall: the input overlaps the output");
    EXPECT_EQ(comms[r]
                  ->reduceScatter(buf.data(), buf.data() + n - 1, 1, DType::Float32, ReduceOp::Sum)
                  .message(),
              "reducescatter: the input overlaps the output");
    std::unique_ptr<Communicator> sub;
    EXPECT_EQ(comms[r]->makeSubgroup({(r + 1) % n}, 1, sub).message(),
              "forming the communicator of ring 1: rank " + std::to_string(r) +
                  " is not in the group it was given");
    float x = 1;
    ASSERT_TRUE(comms[r]->allreduce(&x, 1, DType::Float32, ReduceOp::Sum).ok());
    EXPECT_EQ(x, float(n));
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooShards, ::testing::Values(3, 4),
                         [](const auto &info) { return std::to_string(info.param); });

/// The groups of this rank in the rings of a 2x2 mesh of ranks [0, 1, 2,
/// 3]: ring 1 (mesh axis 0) has groups [0, 2] and [1, 3], ring 2 (axis 1)
/// [0, 1] and [2, 3].
std::vector<int> axis0Group(int r) { return {r % 2, r % 2 + 2}; }
std::vector<int> axis1Group(int r) { return {r / 2 * 2, r / 2 * 2 + 1}; }

TEST(GlooSubgroups, TheRingsOfATwoByTwoMesh) {
  auto comms = makeGlooGroup(4);
  ASSERT_EQ(comms.size(), 4u);
  runThreads(4, [&](int r) {
    std::unique_ptr<Communicator> axis0, axis1, reversed;
    Status s = comms[r]->makeSubgroup(axis0Group(r), 1, axis0);
    ASSERT_TRUE(s.ok()) << s.message();
    s = comms[r]->makeSubgroup(axis1Group(r), 2, axis1);
    ASSERT_TRUE(s.ok()) << s.message();
    // Member order is the order given: ring 3's groups are [3, 1], [2, 0].
    s = comms[r]->makeSubgroup(r % 2 ? std::vector<int>{3, 1} : std::vector<int>{2, 0}, 3,
                               reversed);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(axis0->rank(), r / 2);
    EXPECT_EQ(axis0->size(), 2);
    EXPECT_EQ(axis1->rank(), r % 2);
    EXPECT_EQ(reversed->rank(), 1 - r / 2);

    int64_t v = r;
    ASSERT_TRUE(axis0->allreduce(&v, 1, DType::Int64, ReduceOp::Sum).ok());
    EXPECT_EQ(v, 2 * (r % 2) + 2);
    v = r;
    ASSERT_TRUE(axis1->allreduce(&v, 1, DType::Int64, ReduceOp::Sum).ok());
    EXPECT_EQ(v, 4 * (r / 2) + 1);
    // Interleaved with the world's collectives.
    v = 1;
    ASSERT_TRUE(comms[r]->allreduce(&v, 1, DType::Int64, ReduceOp::Sum).ok());
    EXPECT_EQ(v, 4);
    std::vector<int32_t> gathered(2, -1);
    int32_t mine = 10 * r;
    ASSERT_TRUE(axis0->allgather(&mine, gathered.data(), 1, DType::Int32).ok());
    EXPECT_EQ(gathered, (std::vector<int32_t>{10 * (r % 2), 10 * (r % 2 + 2)}));
    ASSERT_TRUE(reversed->allgather(&mine, gathered.data(), 1, DType::Int32).ok());
    EXPECT_EQ(gathered, r % 2 ? (std::vector<int32_t>{30, 10}) : (std::vector<int32_t>{20, 0}));
    std::vector<double> chunks = {double(r), double(r) + 0.5};
    double reduced = -1;
    ASSERT_TRUE(
        axis1->reduceScatter(chunks.data(), &reduced, 1, DType::Float64, ReduceOp::Max).ok());
    EXPECT_EQ(reduced, r / 2 * 2 + 1 + (r % 2 ? 0.5 : 0.0));
    std::vector<int32_t> send = {100 * r, 100 * r + 1}, recv(2, -1);
    ASSERT_TRUE(axis0->alltoall(send.data(), recv.data(), 1, DType::Int32).ok());
    EXPECT_EQ(recv, (std::vector<int32_t>{100 * (r % 2) + r / 2, 100 * (r % 2 + 2) + r / 2}));
    int16_t b = int16_t(r);
    ASSERT_TRUE(axis1->broadcast(&b, 1, DType::Int16, 1).ok());
    EXPECT_EQ(b, r / 2 * 2 + 1);
    float red = float(r + 1);
    ASSERT_TRUE(axis0->reduce(&red, 1, DType::Float32, ReduceOp::Prod, 0).ok());
    // The product lands on each group's first member, ranks 0 and 1.
    EXPECT_EQ(red, r < 2 ? float((r + 1) * (r + 3)) : float(r + 1));
    ASSERT_TRUE(axis1->barrier().ok());
  });
}

TEST(GlooSubgroups, AGroupOfOneIsLocal) {
  auto comms = makeGlooGroup(2);
  ASSERT_EQ(comms.size(), 2u);
  runThreads(2, [&](int r) {
    std::unique_ptr<Communicator> alone;
    ASSERT_TRUE(comms[r]->makeSubgroup({r}, 5, alone).ok());
    EXPECT_EQ(alone->rank(), 0);
    EXPECT_EQ(alone->size(), 1);
    float x = float(r);
    ASSERT_TRUE(alone->allreduce(&x, 1, DType::Float32, ReduceOp::Sum).ok());
    EXPECT_EQ(x, float(r));
  });
}

TEST(GlooSubgroups, AStuckMemberIsNamedWithTheRingAndItsWorldRank) {
  // Rank 2, rank 0's partner in ring 1, is alive but never calls the
  // collective.
  auto comms = makeGlooGroup(4, 500ms);
  ASSERT_EQ(comms.size(), 4u);
  std::vector<std::unique_ptr<Communicator>> rings(4);
  runThreads(4, [&](int r) {
    Status s = comms[r]->makeSubgroup(axis0Group(r), 1, rings[r]);
    EXPECT_TRUE(s.ok()) << s.message();
  });
  ASSERT_TRUE(rings[0] && rings[2]);
  std::vector<int32_t> out(2);
  int32_t x = 1;
  Status s = rings[0]->allgather(&x, out.data(), 1, DType::Int32);
  EXPECT_EQ(s.message(), "allgather #2 on ring 1 failed on rank 0: timed out after 0.5 s waiting "
                         "for rank 2 (stuck, or calling a different collective, count or root)");
  // Broken for good.
  EXPECT_EQ(rings[0]->barrier().message(), s.message());
}

TEST(GlooSubgroups, ADeadMemberIsNamedWithinSeconds) {
  // Four processes on a 2x2 mesh; rank 3 dies once the rings are formed,
  // while rank 1 waits for it.
  // Rank 1, its partner in ring 1, fails its collective there at once
  // (not after the long timeout), naming rank 3; ranks 0 and 2 finish
  // their ring's collective, then fail the world's, naming rank 3 too.
  int port = freePort();
  auto results = runProcesses(
      4,
      [&](int r, std::string &out) {
        RendezvousOptions o;
        o.rank = r;
        o.worldSize = 4;
        o.masterPort = port;
        o.connectTimeout = 10s;
        o.timeout = 60s;
        o.fingerprint = "subgroups";
        std::unique_ptr<Communicator> world, axis0;
        if (!connect(o, world, out))
          return 2;
        Status s = world->makeSubgroup(axis0Group(r), 1, axis0);
        if (!s.ok()) {
          out = s.message();
          return 3;
        }
        if (r == 3) {
          // While rank 1 waits for it in the ring's collective.
          std::this_thread::sleep_for(300ms);
          _exit(7);
        }
        auto start = std::chrono::steady_clock::now();
        float x = 1;
        s = axis0->allreduce(&x, 1, DType::Float32, ReduceOp::Sum);
        if (s.ok())
          s = world->barrier();
        out = s.message() + "\n" + std::to_string(secondsSince(start));
        return s.ok() ? 1 : 0;
      },
      25s);
  EXPECT_EQ(results[3].exitCode, 7) << results[3].output;
  for (int r = 0; r < 3; ++r) {
    const std::string &out = results[r].output;
    ASSERT_EQ(results[r].exitCode, 0) << "rank " << r << ": " << out;
    std::string message = out.substr(0, out.find('\n'));
    if (r == 1)
      EXPECT_EQ(message,
                "allreduce #2 on ring 1 failed on rank 1: rank 3 exited or lost its connection");
    else
      EXPECT_EQ(message, "barrier #2 failed on rank " + std::to_string(r) +
                             ": rank 3 exited or lost its connection");
    const double seconds = std::stod(out.substr(out.find('\n') + 1));
    std::printf("rank %d failed after %.2f s: %s\n", r, seconds, message.c_str());
    EXPECT_LT(seconds, 10.0) << "rank " << r;
  }
}

#endif

} // namespace
