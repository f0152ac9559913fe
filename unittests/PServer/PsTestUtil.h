//===- PsTestUtil.h - Parameter-server worlds in tests ----------*- C++ -*-===//

#ifndef DISTC_UNITTESTS_PSERVER_PSTESTUTIL_H
#define DISTC_UNITTESTS_PSERVER_PSTESTUTIL_H

#include "distc/Comm/Store.h"
#include "distc/PServer/PsWorld.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace distc::pserver::test {

/// The job token every test store requires.
inline constexpr const char *kToken = "ps-test-token";

/// A store connection on 127.0.0.1:`port` speaking for world rank `rank`.
std::shared_ptr<comm::Store> connectStore(int port, int rank, std::string &error);

/// Whether worlds joined from now on allow same-host copies
/// (PsWorldOptions::sameHostCopies); true unless a test says otherwise.
void useSameHostCopies(bool on);

/// Joins the world on 127.0.0.1:`port` as world rank `rank` of
/// `trainers` + `servers` processes; null with `error`.
std::unique_ptr<PsWorld> joinWorld(int port, int rank, int trainers, int servers,
                                   std::string &error, const std::string &fingerprint = "");

/// Runs body(rank, world) for every world rank in a thread of its own,
/// over a fresh store; a rank that cannot join fails the test.
void runWorld(int trainers, int servers, const std::function<void(int rank, PsWorld &)> &body,
              std::chrono::milliseconds limit = std::chrono::seconds(15));

/// `n` floats that are exact in any order of summation (small multiples of
/// 1/8), a function of (seed, i).
std::vector<float> exactData(size_t n, int seed);

} // namespace distc::pserver::test

#endif // DISTC_UNITTESTS_PSERVER_PSTESTUTIL_H
