//===- FailureTest.cpp - A rank that dies or hangs never hangs the rest ---===//
//
// Crashes are real processes that _exit without cleaning up; the other
// ranks must fail within seconds (not the collective timeout, which is set
// high here) with a message naming the rank.
//
//===----------------------------------------------------------------------===//

#include "CommTestUtil.h"
#include "FailureReport.h"

#include "distc/Comm/Rendezvous.h"

#include <gtest/gtest.h>

#include <thread>

using namespace distc::comm;
using namespace distc::comm::detail;
using namespace distc::comm::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

TEST(FailureReport, FirstDepartureIsTheCause) {
  FailureFacts f;
  f.what = "allreduce #7";
  f.rank = 1;
  f.peer.peer = 3;
  f.peer.what = "Connection closed by peer [127.0.0.1]:4000";
  f.log = {{2, true, ""}, {3, false, "something later"}};
  EXPECT_EQ(describeFailure(f).message,
            "allreduce #7 failed on rank 1: rank 2 exited or lost its connection");
  f.log = {{3, false, "timed out after 300 s waiting for rank 2"}};
  FailureReport r = describeFailure(f);
  EXPECT_EQ(r.message, "allreduce #7 failed on rank 1: timed out after 300 s waiting for rank 2 "
                       "(reported by rank 3)");
  EXPECT_EQ(r.cause, "timed out after 300 s waiting for rank 2");
  f.log = {{3, false, ""}};
  EXPECT_EQ(describeFailure(f).message, "allreduce #7 failed on rank 1: rank 3 closed its "
                                        "communicator while this rank was still in a collective");
}

TEST(FailureReport, WithoutALogThePeerIsTheEvidence) {
  FailureFacts f;
  f.what = "barrier #2";
  f.rank = 0;
  f.peer.peer = 3;
  f.peer.timedOut = true;
  f.timeout = 1500ms;
  EXPECT_EQ(describeFailure(f).message,
            "barrier #2 failed on rank 0: timed out after 1.5 s waiting for rank 3 (stuck, or "
            "calling a different collective, count or root)");
  f.peer.timedOut = false;
  f.peer.what = "Connection reset by peer";
  EXPECT_EQ(describeFailure(f).message, "barrier #2 failed on rank 0: lost the connection to "
                                        "rank 3 (Connection reset by peer)");
  f.rank = 2;
  f.storeGone = true;
  f.storeWhere = "10.0.0.1:29500";
  EXPECT_EQ(describeFailure(f).message,
            "barrier #2 failed on rank 2: rank 0 exited or lost its connection (the rendezvous "
            "store it served at 10.0.0.1:29500 is gone too)");
}

#if DISTC_HAVE_GLOO

/// Forks `n` ranks that rendezvous; `victim` exits abruptly right after,
/// the others run allreduces until one fails. Returns each survivor's
/// error and how long it took to see it.
std::vector<ChildResult> crashOneRank(int n, int victim) {
  int port = freePort();
  return runProcesses(n, [&](int r, std::string &out) {
    RendezvousOptions o;
    o.rank = r;
    o.worldSize = n;
    o.masterPort = port;
    o.connectTimeout = 5s;
    o.timeout = 60s; // failures must be detected, not timed out
    std::unique_ptr<Communicator> comm;
    if (!connect(o, comm, out))
      return 10;
    if (r == victim)
      std::_Exit(3); // a crash: no destructor, no goodbye
    auto start = Clock::now();
    for (int step = 0; step < 100000; ++step) {
      float x[64] = {};
      Status s = comm->allreduce(x, 64, DType::Float32, ReduceOp::Sum);
      if (!s.ok()) {
        out = s.message() + "\n" + std::to_string(secondsSince(start));
        return 0;
      }
      std::this_thread::sleep_for(1ms);
    }
    out = "no failure";
    return 1;
  });
}

void expectNamed(const std::vector<ChildResult> &results, int victim, const std::string &cause) {
  for (int r = 0; r < int(results.size()); ++r) {
    if (r == victim) {
      EXPECT_EQ(results[r].exitCode, 3);
      continue;
    }
    ASSERT_EQ(results[r].exitCode, 0) << "rank " << r << ": " << results[r].output;
    size_t nl = results[r].output.find('\n');
    std::string message = results[r].output.substr(0, nl);
    double seconds = std::stod(results[r].output.substr(nl + 1));
    EXPECT_NE(message.find("failed on rank " + std::to_string(r) + ": " + cause), std::string::npos)
        << "rank " << r << ": " << message;
    EXPECT_LT(seconds, 4.0) << "rank " << r << " took " << seconds << " s: " << message;
  }
}

TEST(RankFailure, ACrashedRankIsNamedWithinSeconds) {
  expectNamed(crashOneRank(4, 2), 2, "rank 2 exited or lost its connection");
}

TEST(RankFailure, ACrashedStoreHostIsNamedWithinSeconds) {
  expectNamed(crashOneRank(3, 0), 0, "rank 0 exited or lost its connection");
}

TEST(RankFailure, ARankThatClosesItsCommunicatorIsNamed) {
  auto comms = makeGlooGroup(3);
  ASSERT_EQ(comms.size(), 3u);
  comms[2].reset();
  runThreads(2, [&](int r) {
    Status s = comms[r]->barrier();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.message(), "barrier #1 failed on rank " + std::to_string(r) +
                               ": rank 2 closed its communicator while this rank was still in "
                               "a collective");
    // Broken for good, with the same message.
    float x = 0;
    Status again = comms[r]->allreduce(&x, 1, DType::Float32, ReduceOp::Sum);
    EXPECT_EQ(again.message(), s.message());
  });
}

TEST(RankFailure, AHungRankTimesOutAndIsNamed) {
  auto comms = makeGlooGroup(3, /*timeout=*/500ms);
  ASSERT_EQ(comms.size(), 3u);
  std::vector<std::string> errors(3);
  std::vector<double> seconds(3);
  runThreads(3, [&](int r) {
    if (r == 1)
      std::this_thread::sleep_for(1500ms); // alive, but late
    auto start = Clock::now();
    float x[8] = {};
    Status s = comms[r]->allreduce(x, 8, DType::Float32, ReduceOp::Sum);
    errors[r] = s.message();
    seconds[r] = secondsSince(start);
  });
  for (int r : {0, 2}) {
    EXPECT_NE(errors[r].find("waiting for rank 1"), std::string::npos)
        << "rank " << r << ": " << errors[r];
    EXPECT_LT(seconds[r], 1.4) << errors[r];
  }
  // The late rank learns why the others gave up.
  EXPECT_NE(errors[1].find("failed on rank 1: timed out after 0.5 s waiting for rank 1 (stuck, "
                           "or calling a different collective, count or root) (reported by rank "),
            std::string::npos)
      << errors[1];
}

TEST(RankFailure, RanksThatTimeOutRecordTheRankTheyWaitedFor) {
  // As under a launcher: the store outlives the ranks, which record in it
  // whom they waited for, so that the launcher can name the stuck rank
  // rather than the first rank that gave up.
  std::string error;
  auto server = StoreServer::start("127.0.0.1", 0, error);
  ASSERT_TRUE(server) << error;
  runThreads(3, [&](int r) {
    RendezvousOptions o;
    o.rank = r;
    o.worldSize = 3;
    o.masterPort = server->port();
    o.serveStore = false;
    o.connectTimeout = 5s;
    o.timeout = 500ms;
    std::unique_ptr<Communicator> comm;
    std::string e;
    ASSERT_TRUE(connect(o, comm, e)) << e;
    if (r == 1)
      std::this_thread::sleep_for(1500ms); // alive, but late
    float x[8] = {};
    EXPECT_FALSE(comm->allreduce(x, 8, DType::Float32, ReduceOp::Sum).ok());
  });
  StoreOptions so;
  so.port = server->port();
  auto store = Store::connect(so, error);
  ASSERT_TRUE(store) << error;
  const std::string prefix = RendezvousOptions().prefix;
  // Rank 0 or 2 timed out first (the other may have read its departure
  // first and reported that instead); the late rank learnt why the others
  // gave up, and records nothing.
  std::vector<std::string> present;
  ASSERT_TRUE(
      store
          ->check({waitedForKey(prefix, 0), waitedForKey(prefix, 1), waitedForKey(prefix, 2)},
                  present)
          .ok());
  ASSERT_FALSE(present.empty());
  for (const std::string &key : present) {
    EXPECT_NE(key, waitedForKey(prefix, 1));
    std::string value;
    ASSERT_TRUE(store->get(key, value, 1000ms).ok()) << key;
    EXPECT_EQ(value, "1\n500\nallreduce #2") << key;
  }
}

TEST(RankFailure, MismatchedCountsTimeOutInsteadOfAborting) {
  // Transfers of different sizes would make Gloo abort the process; the
  // collective's signature keeps them apart.
  auto comms = makeGlooGroup(2, /*timeout=*/300ms);
  ASSERT_EQ(comms.size(), 2u);
  runThreads(2, [&](int r) {
    std::vector<float> x(r == 0 ? 10 : 12, 1.f);
    Status s = comms[r]->allreduce(x.data(), x.size(), DType::Float32, ReduceOp::Sum);
    EXPECT_NE(s.message().find("calling a different collective, count or root"), std::string::npos)
        << s.message();
  });
}

#endif

} // namespace
