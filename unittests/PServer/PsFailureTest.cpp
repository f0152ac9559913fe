//===- PsFailureTest.cpp - Trainers and servers that die ------------------===//
//
// Every trainer and server is a forked process, and one more serves the
// store, as a launcher would. A victim dies without cleaning up (killed,
// or _exit): the others must fail within seconds, not after their
// timeouts (set high here), with a message naming the victim.
//
//===----------------------------------------------------------------------===//

#include "PsTestUtil.h"

#include "CommTestUtil.h"

#include "distc/PServer/PsClient.h"
#include "distc/PServer/PsServer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <thread>
#include <unistd.h>

using namespace distc;
using namespace distc::pserver;
using namespace distc::pserver::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

#if DISTC_HAVE_GLOO

/// Runs `trainers` + `servers` processes with `body`, plus one that
/// serves the store until they have all gone.
std::vector<comm::test::ChildResult>
runJob(int trainers, int servers, const std::function<int(int, PsWorld &, std::string &)> &body) {
  const int n = trainers + servers;
  const int port = comm::test::freePort();
  return comm::test::runProcesses(n + 1, [&](int r, std::string &out) {
    if (r == n) {
      auto server = comm::StoreServer::start("127.0.0.1", port, kToken, out);
      if (!server)
        return 10;
      std::vector<int> ranks;
      for (int q = 0; q < n; ++q)
        ranks.push_back(q);
      server->waitForDepartures(ranks, 15s);
      return 0;
    }
    auto world = joinWorld(port, r, trainers, servers, out);
    if (!world)
      return 11;
    return body(r, *world, out);
  });
}

/// "<message>\n<seconds>" as the processes report it.
std::pair<std::string, double> split(const std::string &output) {
  size_t nl = output.find('\n');
  if (nl == std::string::npos)
    return {output, 1e9};
  return {output.substr(0, nl), std::stod(output.substr(nl + 1))};
}

std::string report(const Status &s, Clock::time_point since) {
  return s.message() + "\n" + std::to_string(comm::test::secondsSince(since));
}

TEST(PsFailure, ADeadTrainerIsNamedByTheServer) {
  constexpr int W = 2, S = 1;
  auto results = runJob(W, S, [](int rank, PsWorld &world, std::string &out) {
    if (world.role() == PsRole::Server) {
      float p[4] = {}, g[W][4];
      PsServer server(world, {true, 60s});
      (void)server.addServable("p", p, sizeof p);
      for (int t = 0; t < W; ++t)
        (void)server.addReceivable("g" + std::to_string(t), t, g[t], sizeof g[t]);
      auto start = Clock::now();
      Status s = server.serve();
      out = report(s, start);
      return s.ok() ? 1 : 0;
    }
    PsClient client(world, {60s});
    float p[4], g[4] = {1, 2, 3, 4};
    // Trainer 1 dies mid-round: its gradient is in, its send_barrier
    // never comes. Trainer 0 fails in whichever call is in progress when
    // the server gives up.
    auto start = Clock::now();
    Status s = client.get(0, "p", p, sizeof p);
    if (s.ok())
      s = client.fetchBarrier();
    if (s.ok())
      s = client.send(0, "g" + std::to_string(rank), g, sizeof g);
    if (rank == 1)
      std::_Exit(s.ok() ? 3 : 2);
    if (s.ok())
      s = client.sendBarrier();
    if (s.ok())
      s = client.get(0, "p", p, sizeof p);
    out = report(s, start);
    return s.ok() ? 1 : 0;
  });
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[1].exitCode, 3);
  auto [server, serverSeconds] = split(results[2].output);
  ASSERT_EQ(results[2].exitCode, 0) << results[2].output;
  // Usually while it waits for the send_barrier ("listen_and_serv (round
  // 1, send phase) failed on ..."), or while it receives trainer 0's data.
  EXPECT_NE(server.find(" failed on server 0 at 127.0.0.1 (pid "), std::string::npos) << server;
  EXPECT_NE(server.find("): trainer 1 at 127.0.0.1 (pid "), std::string::npos) << server;
  EXPECT_NE(server.find(") exited or lost its connection"), std::string::npos) << server;
  EXPECT_LT(serverSeconds, 5.0) << server;
  auto [trainer, trainerSeconds] = split(results[0].output);
  ASSERT_EQ(results[0].exitCode, 0) << results[0].output;
  EXPECT_NE(trainer.find("server 0 failed on trainer 0 at 127.0.0.1 (pid "), std::string::npos)
      << trainer;
  EXPECT_NE(trainer.find("exited or lost its connection (reported by server 0 at "),
            std::string::npos)
      << trainer;
  EXPECT_LT(trainerSeconds, 5.0) << trainer;
  EXPECT_EQ(results[3].exitCode, 0) << results[3].output;
}

TEST(PsFailure, AKilledServerIsNamedByEveryTrainer) {
  constexpr int W = 2, S = 2;
  auto results = runJob(W, S, [](int rank, PsWorld &world, std::string &out) {
    if (world.role() == PsRole::Server) {
      float p[4] = {}, g[W][4];
      PsServer server(world, {true, 60s});
      (void)server.addServable("p", p, sizeof p);
      for (int t = 0; t < W; ++t)
        (void)server.addReceivable("g" + std::to_string(t), t, g[t], sizeof g[t]);
      int rounds = 0;
      server.setOptimize([&] {
        if (world.index() == 1 && ++rounds == 2)
          ::kill(::getpid(), SIGKILL);
        return Status::success();
      });
      auto start = Clock::now();
      Status s = server.serve();
      out = report(s, start);
      return s.ok() ? 1 : 0;
    }
    PsClient client(world, {60s});
    float p[S][4], g[4] = {1, 2, 3, 4};
    auto gets = [&] {
      std::vector<PsRequest> r;
      for (int s = 0; s < S; ++s)
        r.push_back(PsRequest::get(s, "p", p[s], sizeof p[s]));
      return r;
    };
    if (!client.run(gets()).ok() || !client.fetchBarrier().ok())
      return 2;
    for (int round = 1; round <= 5; ++round) {
      std::vector<PsRequest> sends;
      for (int s = 0; s < S; ++s)
        sends.push_back(PsRequest::send(s, "g" + std::to_string(rank), g, sizeof g));
      auto start = Clock::now();
      Status s = client.run(sends);
      if (s.ok())
        s = client.sendBarrier();
      if (s.ok()) {
        start = Clock::now();
        s = client.run(gets());
      }
      if (s.ok())
        s = client.fetchBarrier();
      if (!s.ok()) {
        out = report(s, start);
        return 0;
      }
    }
    return 1;
  });
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[3].exitCode, -1); // killed
  for (int t = 0; t < W; ++t) {
    ASSERT_EQ(results[size_t(t)].exitCode, 0) << "trainer " << t << ": " << results[t].output;
    auto [message, seconds] = split(results[size_t(t)].output);
    EXPECT_NE(message.find(" failed on trainer " + std::to_string(t) + " at 127.0.0.1 (pid "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("): server 1 at 127.0.0.1 (pid "), std::string::npos) << message;
    EXPECT_NE(message.find(") exited or lost its connection"), std::string::npos) << message;
    EXPECT_LT(seconds, 5.0) << message;
  }
  // Server 0 hears of it from the trainers that gave up.
  auto [server0, seconds0] = split(results[2].output);
  ASSERT_EQ(results[2].exitCode, 0) << results[2].output;
  EXPECT_NE(server0.find("failed on server 0 at 127.0.0.1 (pid "), std::string::npos) << server0;
  EXPECT_NE(server0.find("): server 1 at 127.0.0.1 (pid "), std::string::npos) << server0;
  EXPECT_NE(server0.find("(reported by trainer "), std::string::npos) << server0;
  EXPECT_EQ(results[4].exitCode, 0) << results[4].output;
}

// The launcher that served the store dies: every process fails, saying
// so, instead of waiting for peers that can no longer be accounted for.
TEST(PsFailure, TheStoresEndEndsTheWorld) {
  std::string error;
  auto store = comm::StoreServer::start("127.0.0.1", 0, kToken, error);
  ASSERT_TRUE(store) << error;
  const int port = store->port();
  std::string errors[3];
  std::atomic<int> joined{0};
  std::atomic<bool> serverGaveUp{false};
  std::thread launcher([&] {
    while (joined.load() < 3)
      std::this_thread::sleep_for(5ms);
    std::this_thread::sleep_for(100ms);
    store.reset();
  });
  comm::test::runThreads(3, [&](int r) {
    auto world = joinWorld(port, r, 2, 1, errors[r]);
    ++joined;
    if (!world)
      return;
    if (world->role() == PsRole::Server) {
      PsServer server(*world, {true, 60s});
      errors[r] = server.serve().message();
      serverGaveUp = true;
      return;
    }
    PsClient client(*world, {60s});
    if (r == 1) {
      // Busy in its startup until the server has seen the store go. The
      // peers notice the loss by polling the store; a request that came
      // sooner would still be served, so waiting for the server's verdict
      // is what keeps the server in its startup round.
      while (!serverGaveUp.load())
        std::this_thread::sleep_for(5ms);
      errors[r] = client.fetchBarrier().message();
      return;
    }
    // In the startup round, its send_barrier waits for trainer 1's
    // fetch_barrier.
    Status s = client.fetchBarrier();
    errors[r] = s.ok() ? client.sendBarrier().message() : s.message();
  });
  launcher.join();
  const std::string cause = "the rendezvous store at 127.0.0.1:" + std::to_string(port) +
                            " is gone (the process that served it exited or lost its connection)";
  EXPECT_NE(errors[2].find("listen_and_serv (startup, get phase) failed on server 0 at "),
            std::string::npos)
      << errors[2];
  for (int r = 0; r < 3; ++r)
    EXPECT_NE(errors[r].find(cause), std::string::npos) << errors[r];
  EXPECT_NE(errors[0].find("send_barrier to server 0 failed on trainer 0 at "), std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("fetch_barrier to server 0 failed on trainer 1 at "), std::string::npos)
      << errors[1];
}

#endif // DISTC_HAVE_GLOO

} // namespace
