//===- RendezvousTest.cpp - Forming the job's communicator ----------------===//

#include "CommTestUtil.h"

#include "distc/Comm/Rendezvous.h"
#include "distc/Comm/Store.h"

#include <gtest/gtest.h>

using namespace distc::comm;
using namespace distc::comm::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

RendezvousOptions optionsFor(int rank, int size, int port) {
  RendezvousOptions o;
  o.rank = rank;
  o.worldSize = size;
  o.masterPort = port;
  o.connectTimeout = 5s;
  o.timeout = 10s;
  o.fingerprint = "41aa07c9be12f00d5e2b8c3d";
  return o;
}

/// Runs connect() on `n` threads with per-rank options; returns the errors
/// (empty on success) and keeps the communicators in `comms`.
std::vector<std::string> connectAll(int n, const std::function<RendezvousOptions(int)> &options,
                                    std::vector<std::unique_ptr<Communicator>> &comms) {
  std::vector<std::string> errors(n);
  comms.clear();
  comms.resize(n);
  runThreads(n, [&](int r) {
    if (!connect(options(r), comms[r], errors[r]))
      EXPECT_FALSE(errors[r].empty());
  });
  return errors;
}

TEST(Rendezvous, WorldSizeOneIsLocal) {
  std::unique_ptr<Communicator> comm;
  std::string error;
  RendezvousOptions o;
  o.masterPort = 1; // never used
  ASSERT_TRUE(connect(o, comm, error)) << error;
  EXPECT_EQ(comm->size(), 1);
  EXPECT_TRUE(comm->barrier().ok());
}

TEST(Rendezvous, RankOutsideTheWorld) {
  std::unique_ptr<Communicator> comm;
  std::string error;
  EXPECT_FALSE(connect(optionsFor(4, 4, 1), comm, error));
  EXPECT_EQ(error, "rank 4 is outside [0, 4) (world size 4)");
}

#if DISTC_HAVE_GLOO

TEST(Rendezvous, FourRanksFormAWorld) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      4, [&](int r) { return optionsFor(r, 4, port); }, comms);
  for (int r = 0; r < 4; ++r)
    ASSERT_EQ(errors[r], "") << "rank " << r;
  runThreads(4, [&](int r) {
    EXPECT_EQ(comms[r]->rank(), r);
    EXPECT_EQ(comms[r]->size(), 4);
    int32_t v = r + 1;
    ASSERT_TRUE(comms[r]->allreduce(&v, 1, DType::Int32, ReduceOp::Sum).ok());
    EXPECT_EQ(v, 10);
  });
}

TEST(Rendezvous, FingerprintMismatchNamesTheRanksAndValues) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      3,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 3, port);
        if (r == 1)
          o.fingerprint = "9f3c2a71d0e4aa51b07e9c21";
        return o;
      },
      comms);
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(errors[r], "rank 1 runs artifact 9f3c2a71d0e4\u2026, rank 0 runs 41aa07c9be12\u2026")
        << "rank " << r;
}

TEST(Rendezvous, SettingsMismatchNamesTheSettingAndBothValues) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      3,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 3, port);
        // Values may hold any byte, the field separators among them.
        o.settings = {{"--data", "x=@a:b\n1:c"}, {"--steps", r == 2 ? "3" : "6"}};
        return o;
      },
      comms);
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(errors[r], "--steps differs: rank 0 has 6, rank 2 has 3") << "rank " << r;
}

TEST(Rendezvous, EqualSettingsJoin) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      2,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 2, port);
        o.settings = {{"--data", "x=@a:b\n1:c"}, {"--steps", ""}};
        return o;
      },
      comms);
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(errors[r], "") << "rank " << r;
}

TEST(Rendezvous, FingerprintsThatShareAPrefixShowWhereTheyDiffer) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      2,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 2, port);
        o.fingerprintKind = "program";
        if (r == 1)
          o.fingerprint = "41aa07c9be12f00d5e2b8c3e";
        return o;
      },
      comms);
  EXPECT_EQ(errors[0], "rank 1 runs program 41aa07c9be12f00d5e2b8c3e, rank 0 runs "
                       "41aa07c9be12f00d5e2b8c3d");
}

TEST(Rendezvous, WorldSizeMismatchNamesTheRanksAndSizes) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms(3);
  std::vector<std::string> errors(3);
  std::vector<double> seconds(3);
  runThreads(3, [&](int r) {
    RendezvousOptions o = optionsFor(r, r == 2 ? 3 : 4, port);
    o.connectTimeout = 2s;
    auto start = Clock::now();
    EXPECT_FALSE(connect(o, comms[r], errors[r]));
    seconds[r] = secondsSince(start);
  });
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(errors[r], "rank 2 was started with world size 3, rank 0 with 4") << "rank " << r;
  // Ranks 1 and 2 learn it at once; rank 0 keeps the store up for a rank 3
  // that may still come, until the rendezvous deadline.
  EXPECT_LT(seconds[1], 1.5);
  EXPECT_LT(seconds[2], 1.5);
}

TEST(Rendezvous, ARankStartedTwiceIsAnError) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      3,
      [&](int r) {
        RendezvousOptions o = optionsFor(r == 2 ? 1 : r, 3, port);
        o.connectTimeout = 1s; // rank 0 keeps the store up for the rank 2 that never comes
        return o;
      },
      comms);
  int twice = 0;
  for (int r = 0; r < 3; ++r)
    twice += errors[r] == "rank 1 was started twice: another process already joined as rank 1";
  EXPECT_GE(twice, 1);
  for (int r = 0; r < 3; ++r)
    EXPECT_NE(errors[r], "") << "rank " << r;
}

TEST(Rendezvous, MissingRanksAreNamedAfterTheTimeout) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      2,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 4, port);
        o.connectTimeout = 500ms;
        return o;
      },
      comms);
  EXPECT_EQ(errors[0], "ranks 2, 3 did not join the rendezvous at 127.0.0.1:" +
                           std::to_string(port) + " within 0.5 s (world size 4)");
}

TEST(Rendezvous, RanksWithTheJobTokenFormAWorld) {
  int port = freePort();
  std::string token = generateJobToken();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      2,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 2, port);
        o.jobToken = token;
        return o;
      },
      comms);
  ASSERT_EQ(errors[0], "");
  ASSERT_EQ(errors[1], "");
  runThreads(2, [&](int r) { EXPECT_TRUE(comms[r]->barrier().ok()); });
}

TEST(Rendezvous, ARankOfAnotherJobIsRefused) {
  int port = freePort();
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      2,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 2, port);
        o.connectTimeout = 1s;
        o.jobToken =
            r == 0 ? "0123456789abcdef0123456789abcdef" : "fedcba9876543210fedcba9876543210";
        return o;
      },
      comms);
  EXPECT_EQ(errors[1], "the rendezvous store at 127.0.0.1:" + std::to_string(port) +
                           " refused this process: its job token does not match (a process of "
                           "another job, or a stale one?)");
  EXPECT_EQ(errors[0], "rank 1 did not join the rendezvous at 127.0.0.1:" + std::to_string(port) +
                           " within 1 s (world size 2)");
}

TEST(Rendezvous, PortInUseOnTheMaster) {
  std::string error;
  auto other = StoreServer::start("127.0.0.1", 0, error);
  ASSERT_TRUE(other) << error;
  std::unique_ptr<Communicator> comm;
  EXPECT_FALSE(connect(optionsFor(0, 2, other->port()), comm, error));
  EXPECT_EQ(error, "port " + std::to_string(other->port()) + " is already in use on 127.0.0.1");
}

TEST(Rendezvous, UnreachableMaster) {
  int port = freePort();
  RendezvousOptions o = optionsFor(1, 2, port);
  o.connectTimeout = 300ms;
  std::unique_ptr<Communicator> comm;
  std::string error;
  EXPECT_FALSE(connect(o, comm, error));
  EXPECT_EQ(error, "cannot reach the rendezvous store at 127.0.0.1:" + std::to_string(port) +
                       " after 0.3 s (Connection refused)");
}

TEST(Rendezvous, AnExternallyServedStore) {
  std::string error;
  auto server = StoreServer::start("127.0.0.1", 0, error);
  ASSERT_TRUE(server) << error;
  std::vector<std::unique_ptr<Communicator>> comms;
  auto errors = connectAll(
      2,
      [&](int r) {
        RendezvousOptions o = optionsFor(r, 2, server->port());
        o.serveStore = false;
        return o;
      },
      comms);
  ASSERT_EQ(errors[0], "");
  ASSERT_EQ(errors[1], "");
  runThreads(2, [&](int r) { EXPECT_TRUE(comms[r]->barrier().ok()); });
}

#else

TEST(Rendezvous, WithoutGlooMoreThanOneRankIsAnError) {
  std::unique_ptr<Communicator> comm;
  std::string error;
  EXPECT_FALSE(connect(optionsFor(0, 2, 1), comm, error));
  EXPECT_EQ(error, "world size 2 needs Gloo, and this build of distc has none (install "
                   "libgloo-dev and rebuild)");
}

#endif

} // namespace
