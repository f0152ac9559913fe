//===- PsServerTest.cpp - Servers and trainers exchanging variables -------===//
//
// Trainers and servers are threads of this process, each with a world of
// its own over a fresh store on 127.0.0.1. Values are multiples of 1/8
// or simple integers, so every expected value is exact.
//
//===----------------------------------------------------------------------===//

#include "PsTestUtil.h"

#include "distc/PServer/PsClient.h"
#include "distc/PServer/PsServer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

using namespace distc::pserver;
using namespace distc::pserver::test;
using namespace std::chrono_literals;

namespace {

#if DISTC_HAVE_GLOO

/// Every case runs twice: with the server copying payloads from and into
/// its trainers' memory (threads of one process pass the trial copy as
/// processes of one host do), and with everything over TCP.
class PsServerTest : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override { useSameHostCopies(GetParam()); }
  void TearDown() override { useSameHostCopies(true); }
};

INSTANTIATE_TEST_SUITE_P(Transport, PsServerTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return std::string(info.param ? "copies" : "tcp");
                         });

constexpr size_t kBlock = 4; // floats per parameter block
constexpr size_t kWidth = 3; // floats per table row
constexpr float kLr = 0.5f;

std::string gradName(int server, int trainer) {
  return "w@GRAD.block" + std::to_string(server) + ".trainer_" + std::to_string(trainer);
}
std::string paramName(int server) { return "w.block" + std::to_string(server); }

/// Trainer t's gradient in round `round` at parameters `w`.
std::vector<float> gradient(int t, int round, const std::vector<float> &w) {
  std::vector<float> g(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    g[i] = float(t + 1) * w[i] / 4 + float(round - int(i)) / 8;
  return g;
}

/// One server's update: w -= lr * mean of the trainers' gradients.
void update(float *w, const std::vector<const float *> &grads) {
  for (size_t i = 0; i < kBlock; ++i) {
    float sum = 0;
    for (const float *g : grads)
      sum += g[i];
    w[i] -= kLr * (sum / float(grads.size()));
  }
}

// 2 servers x 2 trainers, synchronous: startup fetch, then rounds of
// send, send_barrier, get, fetch_barrier; every trainer's parameters after
// every round equal a single-process computation, bit for bit.
TEST_P(PsServerTest, SyncRoundsAcrossTwoServersAndTwoTrainers) {
  constexpr int W = 2, S = 2, kRounds = 3;
  const std::vector<float> initial = exactData(kBlock * S, 1);
  // The reference.
  std::vector<std::vector<float>> expected;
  std::vector<float> ref = initial;
  for (int round = 1; round <= kRounds; ++round) {
    std::vector<float> g0 = gradient(0, round, ref), g1 = gradient(1, round, ref);
    for (int s = 0; s < S; ++s)
      update(ref.data() + s * kBlock, {g0.data() + s * kBlock, g1.data() + s * kBlock});
    expected.push_back(ref);
  }
  std::vector<std::vector<std::vector<float>>> seen(W);
  std::vector<PsServerStats> stats(S);
  runWorld(W, S, [&](int rank, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      int s = world.index();
      std::vector<float> param(initial.begin() + s * kBlock, initial.begin() + (s + 1) * kBlock);
      std::vector<std::vector<float>> grads(W, std::vector<float>(kBlock));
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addServable(paramName(s), param.data(), kBlock * 4).ok());
      for (int t = 0; t < W; ++t)
        ASSERT_TRUE(server.addReceivable(gradName(s, t), t, grads[t].data(), kBlock * 4).ok());
      server.setOptimize([&] {
        update(param.data(), {grads[0].data(), grads[1].data()});
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      stats[size_t(s)] = server.stats();
      return;
    }
    int t = rank;
    PsClient client(world, {5s});
    std::vector<float> w(kBlock * S, -1.f);
    auto fetch = [&] {
      std::vector<PsRequest> gets;
      for (int s = 0; s < S; ++s)
        gets.push_back(PsRequest::get(s, paramName(s), w.data() + s * kBlock, kBlock * 4));
      Status st = client.run(gets);
      ASSERT_TRUE(st.ok()) << st.message();
      st = client.fetchBarrier();
      ASSERT_TRUE(st.ok()) << st.message();
    };
    fetch();
    EXPECT_EQ(w, initial);
    for (int round = 1; round <= kRounds; ++round) {
      std::vector<float> g = gradient(t, round, w);
      std::vector<PsRequest> sends;
      for (int s = 0; s < S; ++s)
        sends.push_back(PsRequest::send(s, gradName(s, t), g.data() + s * kBlock, kBlock * 4));
      Status st = client.run(sends);
      ASSERT_TRUE(st.ok()) << st.message();
      st = client.sendBarrier();
      ASSERT_TRUE(st.ok()) << st.message();
      fetch();
      seen[size_t(t)].push_back(w);
    }
    Status st = client.complete();
    EXPECT_TRUE(st.ok()) << st.message();
  });
  for (int t = 0; t < W; ++t)
    EXPECT_EQ(seen[size_t(t)], expected) << "trainer " << t;
  for (int s = 0; s < S; ++s) {
    EXPECT_EQ(stats[size_t(s)].rounds, uint64_t(kRounds));
    EXPECT_EQ(stats[size_t(s)].refused, 0u);
  }
}

// Asynchronous: every SEND is followed by the arrival callback at once; a
// GET sees whatever has arrived so far. Barriers are refused.
TEST_P(PsServerTest, AsyncArrivalsUpdateAtOnce) {
  constexpr int W = 2, kSends = 20;
  std::vector<int> arrivals(W, 0);
  float finalParam[kBlock] = {};
  runWorld(W, 1, [&](int rank, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      float param[kBlock] = {}, grad[kBlock] = {};
      PsServer server(world, {false, 5s});
      ASSERT_TRUE(server.addServable("p", param, sizeof param).ok());
      ASSERT_TRUE(server.addReceivable("p@GRAD", -1, grad, sizeof grad).ok());
      server.setOnArrival([&](const std::string &name, int trainer) {
        EXPECT_EQ(name, "p@GRAD");
        ++arrivals[size_t(trainer)];
        for (size_t i = 0; i < kBlock; ++i)
          param[i] -= grad[i];
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      std::memcpy(finalParam, param, sizeof param);
      EXPECT_EQ(server.stats().rounds, 0u);
      return;
    }
    PsClient client(world, {5s});
    float grad[kBlock], param[kBlock];
    for (size_t i = 0; i < kBlock; ++i)
      grad[i] = float(rank + 1);
    float last = 1;
    for (int k = 0; k < kSends; ++k) {
      Status st = client.send(0, "p@GRAD", grad, sizeof grad);
      ASSERT_TRUE(st.ok()) << st.message();
      st = client.get(0, "p", param, sizeof param);
      ASSERT_TRUE(st.ok()) << st.message();
      // At least this trainer's own sends so far have been applied, and
      // parameters only ever go down.
      EXPECT_LE(param[0], -float((k + 1) * (rank + 1)));
      EXPECT_LT(param[0], last);
      last = param[0];
    }
    Status st = client.complete();
    EXPECT_TRUE(st.ok()) << st.message();
  });
  EXPECT_EQ(arrivals, std::vector<int>(W, kSends));
  for (size_t i = 0; i < kBlock; ++i)
    EXPECT_EQ(finalParam[i], -float(kSends * (1 + 2)));
}

// Sparse gradients: SEND_ROWS lands row ids and values in the registered
// memory; the count returns to 0 after each round.
TEST_P(PsServerTest, SparseRowsReachTheOptimizer) {
  constexpr size_t kHeight = 10, kMaxRows = 8;
  std::vector<size_t> countsSeen;
  runWorld(1, 1, [&](int, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      std::vector<float> table(kHeight * kWidth);
      for (size_t i = 0; i < table.size(); ++i)
        table[i] = float(i);
      std::vector<int64_t> rows(kMaxRows);
      std::vector<float> values(kMaxRows * kWidth);
      size_t count = 99;
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addServable("emb", table.data(), table.size() * 4).ok());
      ASSERT_TRUE(server
                      .addSparseReceivable("emb@GRAD", 0, rows.data(), values.data(), kWidth * 4,
                                           kMaxRows, &count)
                      .ok());
      EXPECT_EQ(count, 0u);
      server.setOptimize([&] {
        countsSeen.push_back(count);
        for (size_t k = 0; k < count; ++k)
          for (size_t c = 0; c < kWidth; ++c)
            table[size_t(rows[k]) * kWidth + c] -= values[k * kWidth + c];
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      return;
    }
    PsClient client(world, {5s});
    std::vector<float> table(kHeight * kWidth);
    ASSERT_TRUE(client.get(0, "emb", table.data(), table.size() * 4).ok());
    ASSERT_TRUE(client.fetchBarrier().ok());
    // Round 1: rows 1 and 4 (twice: the optimizer applies both).
    std::vector<int64_t> ids = {1, 4, 4};
    std::vector<float> values = {1, 1, 1, 2, 2, 2, 3, 3, 3};
    Status st =
        client.sendRows(0, "emb@GRAD", ids.data(), ids.size(), values.data(), values.size() * 4);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_TRUE(client.sendBarrier().ok());
    ASSERT_TRUE(client.get(0, "emb", table.data(), table.size() * 4).ok());
    ASSERT_TRUE(client.fetchBarrier().ok());
    for (size_t c = 0; c < kWidth; ++c) {
      EXPECT_EQ(table[1 * kWidth + c], float(1 * kWidth + c) - 1);
      EXPECT_EQ(table[4 * kWidth + c], float(4 * kWidth + c) - 5);
      EXPECT_EQ(table[2 * kWidth + c], float(2 * kWidth + c));
    }
    // Round 2: no rows; the optimizer sees none.
    ASSERT_TRUE(client.sendBarrier().ok());
    ASSERT_TRUE(client.fetchBarrier().ok());
    ASSERT_TRUE(client.complete().ok());
  });
  EXPECT_EQ(countsSeen, (std::vector<size_t>{3, 0}));
}

// PREFETCH: ids in, rows out through the server's callback; a callback
// error refuses the request with its message.
TEST_P(PsServerTest, PrefetchReturnsTheCallbacksRows) {
  runWorld(2, 1, [&](int rank, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addPrefetchTable("emb", kWidth * 4, 16).ok());
      server.setPrefetch([](const std::string &table, const int64_t *ids, size_t n, void *out) {
        EXPECT_EQ(table, "emb");
        float *rows = static_cast<float *>(out);
        for (size_t k = 0; k < n; ++k) {
          if (ids[k] < 0 || ids[k] >= 100)
            return Status::error("id " + std::to_string(ids[k]) + " is outside [0, 100)");
          for (size_t c = 0; c < kWidth; ++c)
            rows[k * kWidth + c] = float(ids[k] * 10 + int64_t(c));
        }
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      return;
    }
    PsClient client(world, {5s});
    // Prefetch needs no phase: no startup fetch here.
    std::vector<int64_t> ids = {3, 7, 3, 0, int64_t(rank) + 40};
    std::vector<float> rows(ids.size() * kWidth, -1);
    for (int repeat = 0; repeat < 3; ++repeat) {
      Status st = client.prefetch(0, "emb", ids.data(), ids.size(), rows.data(), rows.size() * 4);
      ASSERT_TRUE(st.ok()) << st.message();
      for (size_t k = 0; k < ids.size(); ++k)
        for (size_t c = 0; c < kWidth; ++c)
          EXPECT_EQ(rows[k * kWidth + c], float(ids[k] * 10 + int64_t(c)));
    }
    ASSERT_TRUE(client.complete().ok());
  });
}

// COMPLETE mid-training: the remaining trainer goes on alone, and the
// retired trainer's gradient no longer counts.
TEST_P(PsServerTest, CompleteRetiresATrainerMidTraining) {
  constexpr int kRounds = 3;
  std::vector<float> g1Seen;
  uint64_t rounds = 0;
  runWorld(2, 1, [&](int rank, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      float param[1] = {0}, g0[1], g1[1];
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addServable("p", param, 4).ok());
      ASSERT_TRUE(server.addReceivable("p@GRAD.trainer_0", 0, g0, 4).ok());
      ASSERT_TRUE(server.addReceivable("p@GRAD.trainer_1", 1, g1, 4).ok());
      server.setOptimize([&] {
        g1Seen.push_back(g1[0]);
        param[0] -= g0[0] + g1[0];
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      rounds = server.stats().rounds;
      return;
    }
    PsClient client(world, {5s});
    float p = -1, g = float(rank + 1);
    const std::string grad = "p@GRAD.trainer_" + std::to_string(rank);
    ASSERT_TRUE(client.get(0, "p", &p, 4).ok());
    ASSERT_TRUE(client.fetchBarrier().ok());
    int myRounds = rank == 0 ? kRounds : 1;
    for (int round = 1; round <= myRounds; ++round) {
      ASSERT_TRUE(client.send(0, grad, &g, 4).ok());
      ASSERT_TRUE(client.sendBarrier().ok());
      ASSERT_TRUE(client.get(0, "p", &p, 4).ok());
      ASSERT_TRUE(client.fetchBarrier().ok());
    }
    Status st = client.complete();
    ASSERT_TRUE(st.ok()) << st.message();
    if (rank == 0) {
      EXPECT_EQ(p, -3.f - 1.f - 1.f); // round 1: 1 + 2; rounds 2, 3: 1 alone
    } else {
      // Done with that server: a caller error, not a failure.
      st = client.send(0, grad, &g, 4);
      EXPECT_EQ(st.message(), "send of '" + grad +
                                  "' to server 0: trainer 1 has already sent COMPLETE to server 0");
      EXPECT_TRUE(client.failure().empty());
    }
  });
  EXPECT_EQ(g1Seen, (std::vector<float>{2, 0, 0}));
  EXPECT_EQ(rounds, uint64_t(kRounds));
}

// A GET that arrives in the send phase waits for the round's optimize
// instead of returning stale values or deadlocking.
TEST_P(PsServerTest, EarlyGetWaitsForTheRound) {
  float final0 = 0;
  runWorld(2, 1, [&](int rank, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      float param[1] = {10}, g[2];
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addServable("p", param, 4).ok());
      ASSERT_TRUE(server.addReceivable("g0", 0, &g[0], 4).ok());
      ASSERT_TRUE(server.addReceivable("g1", 1, &g[1], 4).ok());
      server.setOptimize([&] {
        param[0] -= g[0] + g[1];
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      return;
    }
    PsClient client(world, {5s});
    float p = 0, g = 1;
    ASSERT_TRUE(client.get(0, "p", &p, 4).ok());
    ASSERT_TRUE(client.fetchBarrier().ok());
    ASSERT_TRUE(client.send(0, rank == 0 ? "g0" : "g1", &g, 4).ok());
    if (rank == 1)
      std::this_thread::sleep_for(200ms); // trainer 0's GET comes first
    ASSERT_TRUE(client.sendBarrier().ok());
    ASSERT_TRUE(client.get(0, "p", &p, 4).ok());
    EXPECT_EQ(p, 8.f) << "trainer " << rank;
    ASSERT_TRUE(client.fetchBarrier().ok());
    if (rank == 0)
      final0 = p;
    ASSERT_TRUE(client.complete().ok());
  });
  EXPECT_EQ(final0, 8.f);
}

// The training state is read and written in either phase: a trainer
// that checkpoints after its fetch_barrier reads the round it received
// (the server is in the next send phase by then), and one that resumes
// overwrites the state before its first send_barrier. Sizes and names are
// checked like a SEND's.
TEST_P(PsServerTest, StateIsReadAndWrittenInEitherPhase) {
  runWorld(1, 1, [&](int, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      float param[2] = {10, 20}, moment[2] = {1, 2}, g[2];
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addServable("p", param, sizeof param).ok());
      ASSERT_TRUE(server.addState("p", param, sizeof param).ok());
      ASSERT_TRUE(server.addState("m", moment, sizeof moment).ok());
      ASSERT_FALSE(server.addState("m", moment, sizeof moment).ok());
      ASSERT_TRUE(server.addReceivable("g", 0, g, sizeof g).ok());
      server.setOptimize([&] {
        for (int i = 0; i < 2; ++i) {
          moment[i] += g[i];
          param[i] -= moment[i];
        }
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      return;
    }
    PsClient client(world, {5s});
    float p[2], m[2], g[2] = {1, 1};
    ASSERT_TRUE(client.get(0, "p", p, sizeof p).ok());
    ASSERT_TRUE(client.fetchBarrier().ok());
    // Send phase of round 1: the startup values, before the round.
    ASSERT_TRUE(client.run({PsRequest::getState(0, "p", p, sizeof p),
                            PsRequest::getState(0, "m", m, sizeof m)})
                    .ok());
    EXPECT_EQ(p[0], 10.f);
    EXPECT_EQ(m[1], 2.f);
    // A resumed state replaces them before the round's optimize.
    const float p2[2] = {100, 200}, m2[2] = {0, 0};
    ASSERT_TRUE(client.run({PsRequest::setState(0, "p", p2, sizeof p2),
                            PsRequest::setState(0, "m", m2, sizeof m2)})
                    .ok());
    ASSERT_TRUE(client.send(0, "g", g, sizeof g).ok());
    ASSERT_TRUE(client.sendBarrier().ok());
    ASSERT_TRUE(client.get(0, "p", p, sizeof p).ok());
    EXPECT_EQ(p[0], 99.f);
    EXPECT_EQ(p[1], 199.f);
    // Get phase: the round's state.
    ASSERT_TRUE(client.run({PsRequest::getState(0, "m", m, sizeof m)}).ok());
    EXPECT_EQ(m[0], 1.f);
    ASSERT_TRUE(client.fetchBarrier().ok());
    ASSERT_TRUE(client.complete().ok());
  });
}

/// Runs a 1 x 1 world whose server registers "w@GRAD" (16 bytes, trainer
/// 0), "other@GRAD" (trainer 1's, in a world of one trainer it is never
/// sent), "w" (16 bytes), sparse "emb@GRAD" (rows of 12 bytes, at most 8)
/// and table "t" (12-byte rows, at most 4 ids); the trainer runs the
/// startup fetch, then `request`. Returns the trainer's error and the
/// server's.
std::pair<std::string, std::string> refusal(const std::function<Status(PsClient &)> &request,
                                            bool sync = true) {
  std::string trainerError, serverError;
  runWorld(1, 1, [&](int, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      float w[4] = {}, g[4], other[4], values[24];
      int64_t rows[8];
      size_t count;
      PsServer server(world, {sync, 5s});
      ASSERT_TRUE(server.addReceivable("w@GRAD", 0, g, sizeof g).ok());
      ASSERT_TRUE(server.addServable("w", w, sizeof w).ok());
      ASSERT_TRUE(server.addSparseReceivable("emb@GRAD", 0, rows, values, 12, 8, &count).ok());
      ASSERT_TRUE(server.addPrefetchTable("t", 12, 4).ok());
      server.setPrefetch(
          [](const std::string &, const int64_t *, size_t, void *) { return Status::success(); });
      (void)other;
      Status st = server.serve();
      serverError = st.message();
      EXPECT_EQ(server.stats().refused, 1u);
      return;
    }
    PsClient client(world, {5s});
    float w[4];
    if (sync) {
      ASSERT_TRUE(client.get(0, "w", w, sizeof w).ok());
      ASSERT_TRUE(client.fetchBarrier().ok());
    }
    Status st = request(client);
    trainerError = st.message();
    // Broken for good, with the same message.
    EXPECT_EQ(client.get(0, "w", w, sizeof w).message(), trainerError);
  });
  return {trainerError, serverError};
}

void expectRefused(const std::pair<std::string, std::string> &errors, const std::string &what,
                   const std::string &why) {
  const std::string &trainer = errors.first, &server = errors.second;
  EXPECT_EQ(trainer.rfind(what + " failed on trainer 0 at 127.0.0.1 (pid ", 0), 0u) << trainer;
  EXPECT_NE(trainer.find("): " + why), std::string::npos) << trainer;
  // The server goes on until the trainer, broken, leaves with the cause.
  EXPECT_NE(server.find("failed on server 0 at 127.0.0.1 (pid "), std::string::npos) << server;
  EXPECT_NE(server.find(why + " (reported by trainer 0 at 127.0.0.1 (pid "), std::string::npos)
      << server;
}

TEST_P(PsServerTest, UnknownOrMisSizedStateIsRefused) {
  // The refusal world registers no state: any name is unknown.
  float w[4] = {};
  expectRefused(refusal([&](PsClient &c) { return c.run({PsRequest::getState(0, "w", w, 16)}); }),
                "get_state of 'w' from server 0",
                "server 0 has no state variable 'w' (trainer 0 asked for 16 bytes)");
}

TEST_P(PsServerTest, OversizePayloadIsRefused) {
  float big[8] = {};
  expectRefused(refusal([&](PsClient &c) { return c.send(0, "w@GRAD", big, sizeof big); }),
                "send of 'w@GRAD' to server 0",
                "trainer 0 sent 32 bytes for 'w@GRAD', which server 0 registered with 16 bytes");
}

TEST_P(PsServerTest, MismatchedRequestsAreRefused) {
  float buf[64] = {};
  int64_t ids[16] = {};
  expectRefused(refusal([&](PsClient &c) { return c.send(0, "nope", buf, 16); }),
                "send of 'nope' to server 0",
                "server 0 has no variable 'nope' to receive (trainer 0 sent 16 bytes)");
  // A GET is answered in the get phase, after this trainer's send_barrier.
  expectRefused(refusal([&](PsClient &c) {
                  Status s = c.sendBarrier();
                  return s.ok() ? c.get(0, "w", buf, 8) : s;
                }),
                "get of 'w' from server 0",
                "trainer 0 asked for 8 bytes of 'w', which server 0 serves with 16 bytes");
  expectRefused(refusal([&](PsClient &c) { return c.sendRows(0, "emb@GRAD", ids, 9, buf, 108); }),
                "send_rows of 'emb@GRAD' to server 0",
                "trainer 0 sent 9 rows of 'emb@GRAD', more than the 8 server 0 registered");
  expectRefused(refusal([&](PsClient &c) { return c.sendRows(0, "emb@GRAD", ids, 2, buf, 32); }),
                "send_rows of 'emb@GRAD' to server 0",
                "trainer 0 sent 32 bytes of values for 2 rows of 'emb@GRAD'; server 0 "
                "registered rows of 12 bytes");
  expectRefused(refusal([&](PsClient &c) { return c.prefetch(0, "t", ids, 5, buf, 60); }),
                "prefetch from 't' on server 0",
                "trainer 0 asked for 5 ids of 't', more than the 4 server 0 registered");
  expectRefused(refusal([&](PsClient &c) { return c.send(0, "w", buf, 16); }),
                "send of 'w' to server 0",
                "server 0 has no variable 'w' to receive (trainer 0 sent 16 bytes)");
  expectRefused(refusal([&](PsClient &c) { return c.sendBarrier(); }, /*sync=*/false),
                "send_barrier to server 0",
                "trainer 0 sent send_barrier to server 0, which runs in asynchronous mode");
}

// Memory the kernel will not let the server write (a read-only page given
// for a GET's answer): the request is refused, with the kernel's reason,
// and the server goes on until the trainer leaves with it.
TEST(PsServerCopies, MemoryTheServerCannotWriteIsRefused) {
  useSameHostCopies(true);
  const long pageBytes = sysconf(_SC_PAGESIZE);
  void *page = mmap(nullptr, size_t(pageBytes), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  expectRefused(refusal([&](PsClient &c) {
                  Status s = c.sendBarrier();
                  return s.ok() ? c.get(0, "w", page, 16) : s;
                }),
                "get of 'w' from server 0",
                "sending 'w' to trainer 0: copying 16 bytes into trainer 0 at 127.0.0.1 (pid " +
                    std::to_string(getpid()) + ") failed: Bad address");
  munmap(page, size_t(pageBytes));
}

// Each pair moves its payloads over the transport the world chose: the
// server copies them (and counts the bytes), or Gloo's pairs carry them.
TEST_P(PsServerTest, PayloadsMoveOverTheChosenTransport) {
  const bool copies = GetParam();
  uint64_t copied = 0;
  runWorld(1, 1, [&](int, PsWorld &world) {
    EXPECT_EQ(world.copiesWith(world.role() == PsRole::Server ? 0 : 1), copies);
    EXPECT_FALSE(world.copiesWith(world.rank()));
    if (world.role() == PsRole::Server) {
      float w[4] = {1, 2, 3, 4}, g[4] = {};
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addServable("w", w, sizeof w).ok());
      ASSERT_TRUE(server.addReceivable("w@GRAD", 0, g, sizeof g).ok());
      server.setOptimize([&] {
        for (int i = 0; i < 4; ++i)
          w[i] -= g[i];
        return Status::success();
      });
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      copied = server.stats().copiedBytes;
      return;
    }
    PsClient client(world, {5s});
    float w[4] = {}, g[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    ASSERT_TRUE(client.get(0, "w", w, sizeof w).ok());
    ASSERT_TRUE(client.fetchBarrier().ok());
    ASSERT_TRUE(client.send(0, "w@GRAD", g, sizeof g).ok());
    ASSERT_TRUE(client.sendBarrier().ok());
    ASSERT_TRUE(client.get(0, "w", w, sizeof w).ok());
    EXPECT_EQ(w[0], 0.5f);
    EXPECT_EQ(w[3], 3.5f);
    ASSERT_TRUE(client.fetchBarrier().ok());
    ASSERT_TRUE(client.complete().ok());
  });
  // Two GETs and one SEND of 16 bytes each.
  EXPECT_EQ(copied, copies ? 48u : 0u);
}

// Arguments that cannot be sent fail before anything goes out, and leave
// the client usable.
TEST_P(PsServerTest, UnsendableArgumentsLeaveTheClientUsable) {
  runWorld(1, 1, [&](int, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      float w[4] = {1, 2, 3, 4};
      PsServer server(world, {true, 5s});
      ASSERT_TRUE(server.addServable("w", w, sizeof w).ok());
      EXPECT_EQ(server.addServable("w", w, sizeof w).message(), "'w' is served twice by server 0");
      EXPECT_EQ(server.addReceivable("g", 3, w, 4).message(),
                "trainer 3 of 'g' is outside [-1, 1)");
      Status st = server.serve();
      EXPECT_TRUE(st.ok()) << st.message();
      return;
    }
    PsClient client(world, {5s});
    float w[4] = {};
    Status st = client.get(0, std::string(300, 'n'), w, sizeof w);
    EXPECT_EQ(st.message().rfind("variable name 'nnnn", 0), 0u) << st.message();
    EXPECT_NE(st.message().find("is 300 bytes; parameter-server messages carry names of at most "
                                "255"),
              std::string::npos);
    EXPECT_EQ(client.get(2, "w", w, sizeof w).message(), "get: server 2 is outside [0, 1)");
    EXPECT_TRUE(client.failure().empty());
    ASSERT_TRUE(client.get(0, "w", w, sizeof w).ok());
    EXPECT_EQ(w[3], 4.f);
    ASSERT_TRUE(client.fetchBarrier().ok());
    ASSERT_TRUE(client.complete().ok());
  });
}

// A trainer that is alive but never sends its barrier: the server gives
// up after its timeout, naming it; the other trainer quotes the server.
TEST_P(PsServerTest, AStuckTrainerIsNamedAfterTheTimeout) {
  std::string serverError, trainer0Error, trainer1Error;
  runWorld(2, 1, [&](int rank, PsWorld &world) {
    if (world.role() == PsRole::Server) {
      PsServer server(world, {true, 500ms});
      auto start = std::chrono::steady_clock::now();
      serverError = server.serve().message();
      EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
      return;
    }
    PsClient client(world, {5s});
    ASSERT_TRUE(client.fetchBarrier().ok());
    if (rank == 1) {
      std::this_thread::sleep_for(900ms); // stuck in its step
      trainer1Error = client.sendBarrier().message();
      return;
    }
    ASSERT_TRUE(client.sendBarrier().ok());
    trainer0Error = client.fetchBarrier().message();
  });
  EXPECT_NE(serverError.find("listen_and_serv (round 1, send phase) failed on server 0 at "),
            std::string::npos)
      << serverError;
  EXPECT_NE(serverError.find("timed out after 0.5 s waiting for trainer 1's send_barrier"),
            std::string::npos)
      << serverError;
  EXPECT_NE(trainer0Error.find("fetch_barrier to server 0 failed on trainer 0"), std::string::npos)
      << trainer0Error;
  EXPECT_NE(trainer0Error.find("timed out after 0.5 s waiting for trainer 1's send_barrier "
                               "(reported by server 0"),
            std::string::npos)
      << trainer0Error;
  EXPECT_FALSE(trainer1Error.empty());
}

#endif // DISTC_HAVE_GLOO

} // namespace
