//===- StoreTest.cpp - The rendezvous store -------------------------------===//

#include "CommTestUtil.h"

#include "distc/Comm/Store.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <atomic>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace distc::comm;
using namespace distc::comm::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct StoreFixture : ::testing::Test {
  void SetUp() override {
    std::string error;
    server = StoreServer::start("127.0.0.1", 0, error);
    ASSERT_TRUE(server) << error;
    where = "127.0.0.1:" + std::to_string(server->port());
  }

  std::unique_ptr<Store> client(int rank = -1, std::chrono::milliseconds timeout = 2s) {
    StoreOptions o;
    o.port = server->port();
    o.rank = rank;
    o.timeout = timeout;
    std::string error;
    auto store = Store::connect(o, error);
    EXPECT_TRUE(store) << error;
    return store;
  }

  std::unique_ptr<StoreServer> server;
  std::string where;
};

TEST_F(StoreFixture, SetThenGetReturnsTheBytes) {
  auto a = client(), b = client();
  std::string bytes("a\0b\xff", 4);
  ASSERT_TRUE(a->set("k", bytes).ok());
  std::string value;
  Status s = b->get("k", value);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(value, bytes);
  ASSERT_TRUE(b->set("k", "second").ok());
  ASSERT_TRUE(a->get("k", value).ok());
  EXPECT_EQ(value, "second");
  ASSERT_TRUE(a->set("empty", "").ok());
  ASSERT_TRUE(a->get("empty", value).ok());
  EXPECT_EQ(value, "");
}

TEST_F(StoreFixture, GetBlocksUntilTheKeyIsSet) {
  auto a = client(), b = client();
  auto start = Clock::now();
  std::thread setter([&] {
    std::this_thread::sleep_for(150ms);
    EXPECT_TRUE(b->set("late", "v").ok());
  });
  std::string value;
  Status s = a->get("late", value, 5s);
  setter.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(value, "v");
  EXPECT_GE(secondsSince(start), 0.14);
}

TEST_F(StoreFixture, GetTimesOutNamingTheKeyAndTheStore) {
  auto a = client();
  std::string value;
  auto start = Clock::now();
  Status s = a->get("missing", value, 200ms);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "timed out after 0.2 s waiting for key 'missing' in the rendezvous "
                         "store at " +
                             where);
  EXPECT_LT(secondsSince(start), 1.5);
  // A timeout does not break the connection.
  ASSERT_TRUE(a->set("missing", "now").ok());
  EXPECT_TRUE(a->get("missing", value, 200ms).ok());
}

TEST_F(StoreFixture, WaitForAllAndForAny) {
  auto a = client(), b = client();
  ASSERT_TRUE(a->set("x", "1").ok());
  std::thread setter([&] {
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(b->set("y", "2").ok());
  });
  Status s = a->wait({"x", "y"}, 5s);
  setter.join();
  EXPECT_TRUE(s.ok()) << s.message();

  std::vector<std::string> present;
  ASSERT_TRUE(a->waitAny({"p", "y", "q"}, 1s, present).ok());
  EXPECT_EQ(present, std::vector<std::string>{"y"});
  ASSERT_TRUE(a->waitAny({"p", "q"}, 100ms, present).ok());
  EXPECT_TRUE(present.empty());
  ASSERT_TRUE(a->check({"x", "p", "y"}, present).ok());
  EXPECT_EQ(present, (std::vector<std::string>{"x", "y"}));

  s = a->wait({"x", "p", "q"}, 100ms);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "timed out after 0.1 s waiting for keys 'p', 'q' in the rendezvous store at " + where);
}

TEST_F(StoreFixture, AddCountsAcrossClients) {
  std::vector<std::unique_ptr<Store>> clients;
  for (int i = 0; i < 4; ++i)
    clients.push_back(client());
  runThreads(4, [&](int r) {
    int64_t v;
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE(clients[r]->add("n", 1, v).ok());
  });
  int64_t v = 0;
  ASSERT_TRUE(clients[0]->add("n", 0, v).ok());
  EXPECT_EQ(v, 200);
  std::string text;
  ASSERT_TRUE(clients[1]->get("n", text).ok());
  EXPECT_EQ(text, "200");
  ASSERT_TRUE(clients[1]->add("n", -205, v).ok());
  EXPECT_EQ(v, -5);

  ASSERT_TRUE(clients[0]->set("s", "abc").ok());
  Status s = clients[0]->add("s", 1, v);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "the rendezvous store at " + where + ": key 's' holds a value that is not a counter");
}

TEST_F(StoreFixture, PortInUse) {
  std::string error;
  auto second = StoreServer::start("127.0.0.1", server->port(), error);
  EXPECT_FALSE(second);
  EXPECT_EQ(error, "port " + std::to_string(server->port()) + " is already in use on 127.0.0.1");
}

TEST(Store, AnAddressOfAnotherMachine) {
  std::string error;
  // TEST-NET-1 (RFC 5737): never an address of this machine.
  EXPECT_FALSE(StoreServer::start("192.0.2.1", 0, error));
  EXPECT_EQ(error, "cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine");
}

TEST(Store, UnreachableMasterFailsAfterTheTimeout) {
  StoreOptions o;
  o.port = freePort();
  o.timeout = 300ms;
  std::string error;
  auto start = Clock::now();
  auto store = Store::connect(o, error);
  EXPECT_FALSE(store);
  EXPECT_EQ(error, "cannot reach the rendezvous store at 127.0.0.1:" + std::to_string(o.port) +
                       " after 0.3 s (Connection refused)");
  EXPECT_GE(secondsSince(start), 0.29);
  EXPECT_LT(secondsSince(start), 1.5);
}

TEST(Store, ClientWaitsForAMasterThatStartsLate) {
  int port = freePort();
  std::unique_ptr<StoreServer> server;
  std::thread starter([&] {
    std::this_thread::sleep_for(200ms);
    std::string error;
    server = StoreServer::start("127.0.0.1", port, error);
    EXPECT_TRUE(server) << error;
  });
  StoreOptions o;
  o.port = port;
  o.timeout = 5s;
  std::string error;
  auto store = Store::connect(o, error);
  starter.join();
  ASSERT_TRUE(store) << error;
  EXPECT_TRUE(store->set("k", "v").ok());
}

TEST(Store, ListensOnlyOnTheGivenAddress) {
  // 127.0.0.2 is loopback too on Linux, but a different address.
  std::string error;
  auto server = StoreServer::start("127.0.0.2", 0, error);
  ASSERT_TRUE(server) << error;
  StoreOptions o;
  o.port = server->port();
  o.timeout = 200ms;
  o.host = "127.0.0.1";
  EXPECT_FALSE(Store::connect(o, error));
  o.host = "127.0.0.2";
  auto store = Store::connect(o, error);
  ASSERT_TRUE(store) << error;
  EXPECT_EQ(store->localAddress(), "127.0.0.1");
}

TEST_F(StoreFixture, ServerGoneFailsEveryLaterCall) {
  auto a = client();
  server.reset();
  std::string value;
  Status s = a->get("k", value, 1s);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the rendezvous store at " + where + " closed the connection");
  s = a->set("k", "v");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the rendezvous store at " + where + " closed the connection");
}

TEST(Store, SomethingElseOnThePortIsNotAStore) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
  ::listen(fd, 4);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
  int port = ntohs(addr.sin_port);
  std::thread http([fd] {
    int c = ::accept(fd, nullptr, nullptr);
    const char reply[] = "HTTP/1.0 400 Bad Request\r\n\r\n";
    ssize_t n = ::write(c, reply, sizeof reply - 1);
    (void)n;
    ::close(c);
  });
  StoreOptions o;
  o.port = port;
  o.timeout = 1s;
  std::string error;
  EXPECT_FALSE(Store::connect(o, error));
  http.join();
  ::close(fd);
  EXPECT_EQ(error.rfind("the service at 127.0.0.1:" + std::to_string(port) +
                            " is not a distc rendezvous store",
                        0),
            0u)
      << error;
}

TEST_F(StoreFixture, DepartureLogRecordsLeftAndLostRanks) {
  auto watcher = client();
  {
    auto r1 = client(1);
    r1->leave("gave up: timed out");
    EXPECT_FALSE(r1->set("k", "v").ok());
  }
  { auto r2 = client(2); } // closes normally
  // Rank 3 vanishes without a goodbye, as a crashed process does.
  auto results = runProcesses(1, [&](int, std::string &) {
    auto r3 = client(3);
    std::_Exit(r3 ? 0 : 1);
    return 0;
  });
  EXPECT_EQ(results[0].exitCode, 0);
  std::vector<Departure> log;
  auto start = Clock::now();
  while (log.size() < 3 && secondsSince(start) < 3)
    ASSERT_TRUE(watcher->departures(500ms, log).ok());
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].rank, 1);
  EXPECT_FALSE(log[0].lost);
  EXPECT_EQ(log[0].reason, "gave up: timed out");
  EXPECT_EQ(log[1].rank, 2);
  EXPECT_FALSE(log[1].lost);
  EXPECT_EQ(log[1].reason, "");
  EXPECT_EQ(log[2].rank, 3);
  EXPECT_TRUE(log[2].lost);
  // Clients without a rank are not logged.
  { auto anonymous = client(); }
  ASSERT_TRUE(watcher->departures(100ms, log).ok());
  EXPECT_EQ(log.size(), 3u);
}

TEST_F(StoreFixture, DeparturesWaitsForAFirstEntry) {
  auto watcher = client();
  std::vector<Departure> log;
  auto start = Clock::now();
  ASSERT_TRUE(watcher->departures(150ms, log).ok());
  EXPECT_TRUE(log.empty());
  EXPECT_GE(secondsSince(start), 0.14);
  std::thread leaver([&] {
    std::this_thread::sleep_for(100ms);
    client(5)->leave("bye");
  });
  ASSERT_TRUE(watcher->departures(5s, log).ok());
  leaver.join();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].rank, 5);
}

} // namespace
