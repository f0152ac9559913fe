//===- PsWorldTest.cpp - Forming the world of trainers and servers --------===//

#include "PsTestUtil.h"

#include "CommTestUtil.h"

#include "distc/PServer/PsRoleMaker.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <atomic>
#include <functional>

using namespace distc;
using namespace distc::pserver;
using namespace distc::pserver::test;
using namespace std::chrono_literals;

namespace {

// The job token is the store's: a process without it, or with another
// job's, is refused before it can join the world.
TEST(PsWorld, AProcessWithoutTheJobTokenIsRefused) {
  std::string error;
  auto server = comm::StoreServer::start("127.0.0.1", 0, kToken, error);
  ASSERT_TRUE(server) << error;
  const std::string where = "127.0.0.1:" + std::to_string(server->port());
  comm::StoreOptions so;
  so.port = server->port();
  so.rank = 0;
  so.timeout = 2s;
  so.token = "another-jobs-token";
  EXPECT_FALSE(comm::Store::connect(so, error));
  EXPECT_EQ(error, "the rendezvous store at " + where +
                       " refused this process: its job token does not match (a process of "
                       "another job, or a stale one?)");
  so.token.clear();
  EXPECT_FALSE(comm::Store::connect(so, error));
  EXPECT_EQ(error, "the rendezvous store at " + where +
                       " requires a job token and this process has none (set DISTC_JOB_TOKEN)");
}

TEST(PsWorld, ArgumentsAreChecked) {
  std::string error;
  EXPECT_FALSE(PsWorld::connect(PsRole::Server, 2, 2, 2, nullptr, {}, error));
  EXPECT_EQ(error, "server index 2 is outside [0, 2)");
  EXPECT_FALSE(PsWorld::connect(PsRole::Trainer, 0, 0, 2, nullptr, {}, error));
  EXPECT_EQ(error, "a parameter-server job needs at least one trainer and one server (0 "
                   "trainers, 2 servers given)");
  auto server = comm::StoreServer::start("127.0.0.1", 0, kToken, error);
  ASSERT_TRUE(server) << error;
  auto store = connectStore(server->port(), 1, error);
  ASSERT_TRUE(store) << error;
  EXPECT_FALSE(PsWorld::connect(PsRole::Server, 0, 2, 1, store, {}, error));
  EXPECT_EQ(error, "the store connection of server 0 speaks for rank 1, not its "
                   "parameter-server world rank 2 (StoreOptions::rank): the departure log could "
                   "not name it");
}

#if DISTC_HAVE_GLOO

/// Trainer 0 and server 0 join a world of one each through `join(rank,
/// port, error)`, which must fail; returns both errors.
std::array<std::string, 2>
failedJoins(const std::function<std::unique_ptr<PsWorld>(int, int, std::string &)> &join) {
  std::array<std::string, 2> errors;
  std::string error;
  auto server = comm::StoreServer::start("127.0.0.1", 0, kToken, error);
  EXPECT_TRUE(server) << error;
  if (!server)
    return errors;
  const int port = server->port();
  comm::test::runThreads(2, [&](int r) { EXPECT_FALSE(join(r, port, errors[size_t(r)])); });
  return errors;
}

TEST(PsWorld, CountsThatDifferFailEveryone) {
  // Trainer 0 thinks there is one server, server 0 that there are two.
  auto errors = failedJoins([](int r, int port, std::string &error) {
    return joinWorld(port, r, 1, r == 0 ? 1 : 2, error);
  });
  EXPECT_EQ(errors[0],
            "trainer 0 was started with 1 trainers and 1 servers, server 0 with 1 and 2");
  EXPECT_EQ(errors[1],
            "server 0 was started with 1 trainers and 2 servers, trainer 0 with 1 and 1");
}

TEST(PsWorld, ProcessesThatRunAnotherArtifactFailEveryone) {
  auto errors = failedJoins([](int r, int port, std::string &error) {
    return joinWorld(port, r, 1, 1, error, r == 0 ? "0123456789abcdef" : "fedcba9876543210");
  });
  const std::string pid = " (pid " + std::to_string(::getpid()) + ")";
  EXPECT_EQ(errors[0], "server 0 at 127.0.0.1" + pid +
                           " runs artifact fedcba987654, trainer 0 runs 0123456789ab: every "
                           "process of a parameter-server job must run the one artifact");
  EXPECT_EQ(errors[1], "trainer 0 at 127.0.0.1" + pid +
                           " runs artifact 0123456789ab, server 0 runs fedcba987654: every "
                           "process of a parameter-server job must run the one artifact");
}

// Paddle's role maker over the world: every trainer and server answers
// who it is, and barrier_all waits for all of them.
TEST(PsWorld, TheRoleMakerAnswersEveryRole) {
  std::atomic<int> arrived{0};
  runWorld(2, 2, [&](int rank, PsWorld &world) {
    comm::RoleFacts facts;
    facts.serverEndpoints = {"127.0.0.1:6174", "127.0.0.1:6175"};
    PsRoleMaker roles(facts, world);
    EXPECT_EQ(roles.isServer(), rank >= 2);
    EXPECT_EQ(roles.isWorker(), rank < 2);
    EXPECT_EQ(roles.isFirstWorker(), rank == 0);
    EXPECT_EQ(roles.serverIndex(), rank >= 2 ? rank - 2 : -1);
    EXPECT_EQ(roles.workerIndex(), rank < 2 ? rank : -1);
    EXPECT_EQ(roles.serverNum(), 2);
    EXPECT_EQ(roles.workerNum(), 2);
    EXPECT_EQ(roles.serverEndpoints().size(), 2u);
    ++arrived;
    Status s = roles.barrierAll();
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(arrived.load(), 4);
    if (roles.isWorker()) {
      s = roles.barrierWorker();
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      EXPECT_EQ(roles.barrierWorker().message(),
                "barrier_worker is the trainers' barrier; server " +
                    std::to_string(rank - 2) + " takes no part");
    }
  });
}

TEST(PsWorld, RanksAreNamedWithEndpointAndPid) {
  runWorld(2, 2, [&](int rank, PsWorld &world) {
    EXPECT_EQ(world.rank(), rank);
    EXPECT_EQ(world.size(), 4);
    EXPECT_EQ(world.serverRank(1), 3);
    const std::string pid = " (pid " + std::to_string(::getpid()) + ")";
    EXPECT_EQ(world.describe(0), "trainer 0 at 127.0.0.1" + pid);
    EXPECT_EQ(world.describe(3), "server 1 at 127.0.0.1" + pid);
    // RoleMaker's barrier_all, twice.
    Status s = world.barrier();
    EXPECT_TRUE(s.ok()) << s.message();
    s = world.barrier();
    EXPECT_TRUE(s.ok()) << s.message();
  });
}

#endif // DISTC_HAVE_GLOO

} // namespace
