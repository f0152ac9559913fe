//===- PsTestUtil.cpp - Parameter-server worlds in tests ------------------===//

#include "PsTestUtil.h"

#include "CommTestUtil.h"

#include <gtest/gtest.h>

namespace distc::pserver::test {

using namespace std::chrono_literals;

namespace {
bool sameHostCopies = true;
} // namespace

void useSameHostCopies(bool on) { sameHostCopies = on; }

std::shared_ptr<comm::Store> connectStore(int port, int rank, std::string &error) {
  comm::StoreOptions so;
  so.port = port;
  so.rank = rank;
  so.timeout = 5s;
  so.token = kToken;
  return comm::Store::connect(so, error);
}

std::unique_ptr<PsWorld> joinWorld(int port, int rank, int trainers, int servers,
                                   std::string &error, const std::string &fingerprint) {
  std::shared_ptr<comm::Store> store = connectStore(port, rank, error);
  if (!store)
    return nullptr;
  PsWorldOptions o;
  o.connectTimeout = 5s;
  o.timeout = 5s;
  o.fingerprint = fingerprint;
  o.sameHostCopies = sameHostCopies;
  PsRole role = rank < trainers ? PsRole::Trainer : PsRole::Server;
  int index = rank < trainers ? rank : rank - trainers;
  return PsWorld::connect(role, index, trainers, servers, std::move(store), o, error);
}

void runWorld(int trainers, int servers, const std::function<void(int, PsWorld &)> &body,
              std::chrono::milliseconds limit) {
  std::string error;
  auto server = comm::StoreServer::start("127.0.0.1", 0, kToken, error);
  ASSERT_TRUE(server) << error;
  int port = server->port();
  comm::test::runThreads(
      trainers + servers,
      [&](int r) {
        std::string e;
        auto world = joinWorld(port, r, trainers, servers, e);
        ASSERT_TRUE(world) << "rank " << r << ": " << e;
        body(r, *world);
      },
      limit);
}

std::vector<float> exactData(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = float(int((i * 7 + size_t(seed) * 13) % 33) - 16) / 8.0f;
  return v;
}

} // namespace distc::pserver::test
