//===- PsWorld.h - The processes of a parameter-server job ------*- C++ -*-===//
//
// Paddle's parameter-server mode (DistributeTranspiler, fleet's PS mode)
// runs W trainers and S servers. The "PS world" connects them: one Gloo
// context over all W + S processes (a TCP pair between every two), formed
// through the job's rendezvous store under a key prefix of its own. The
// store enforces the job token (Store.h): a process of another job, or
// one without the token, cannot join.
//
//   world rank = trainer id            for trainers (0 .. W-1)
//              = W + server index      for servers  (W .. W+S-1)
//
//   std::shared_ptr<comm::Store> store = comm::Store::connect(so, error);
//   auto world = PsWorld::connect(PsRole::Server, 1, 2, 2, store, {}, error);
//   PsServer server(*world, {...});                  // PsServer.h
//
// The store connection must speak for the process's world rank
// (StoreOptions::rank): a process that dies is noticed through the store's
// departure log, which names the rank (a failure is reported within about
// a second, whatever the timeouts). connect() checks it. The store must
// outlive the world: a process whose store goes away fails, so it is
// served by the launcher or a server, not by a trainer that may finish
// first.
//
// Every process calls connect() with the same counts and prefix; a rank
// claimed twice or counts that differ fail every process concerned:
//   two processes were started as server 1 (parameter-server world rank 3)
//   server 1 was started with 2 trainers and 2 servers, trainer 0 with 2 and 3
//   trainer 1 at 10.0.0.5 (pid 812) runs artifact 3f2a..., trainer 0 runs 9c41...;
//     every process of the job must run the one artifact
//
// Failures name processes by role, index, endpoint and pid:
//   fetch_barrier to server 1 failed on trainer 0 at 10.0.0.5 (pid 812):
//     server 1 at 10.0.0.7:6175 (pid 4242) exited or lost its connection
// After a failure the world is broken: the process has left the store with
// the cause (other processes quote it) and closed its connections.
//
// Same-host copies: while forming the world, each trainer publishes the
// address of a random value, and each server tries to read it from the
// trainer's memory. Where it reads the value (the two share a host and
// the kernel allows the copy), the server moves that trainer's payloads
// itself, with one copy (PsMessage.h); it tells each trainer through the
// store. copiesWith() says which pairs do.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PSERVER_PSWORLD_H
#define DISTC_PSERVER_PSWORLD_H

#include "distc/Comm/Store.h"
#include "distc/Runtime/Status.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace distc::pserver {

using runtime::Status;

enum class PsRole { Trainer, Server };
/// "trainer", "server".
const char *psRoleName(PsRole role);

struct PsWorldOptions {
  /// This process's name in others' messages, e.g. Paddle's endpoint
  /// "10.0.0.7:6175"; empty: the transport's address.
  std::string endpoint;
  /// The address the transport binds to; empty: `iface`, or else the
  /// address of this host that reaches the store (GlooOptions::host).
  std::string host;
  std::string iface;
  /// Bound on forming the world (every process joining and connecting).
  std::chrono::milliseconds connectTimeout{std::chrono::seconds(30)};
  /// Bound on barrier().
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  /// Store keys of this world live under this prefix.
  std::string prefix = "ps";
  /// What this process runs (the artifact's checksum): every process of
  /// the world must give the same, or none.
  std::string fingerprint;
  /// Whether payloads between this process and the trainers or servers
  /// on its host may move by same-host copies (PsMessage.h). A pair
  /// copies when both allow it and the server's trial copy works;
  /// otherwise its payloads go over TCP.
  bool sameHostCopies = true;
};

class PsWorld {
public:
  /// Joins the world as trainer `index` (of `numTrainers`) or server
  /// `index` (of `numServers`); returns once every process has. Null with
  /// `error` (one line) on failure.
  static std::unique_ptr<PsWorld> connect(PsRole role, int index, int numTrainers, int numServers,
                                          std::shared_ptr<comm::Store> store,
                                          const PsWorldOptions &options, std::string &error);
  ~PsWorld();

  PsRole role() const;
  /// Trainer id or server index.
  int index() const;
  int rank() const;
  int size() const;
  int numTrainers() const;
  int numServers() const;
  int serverRank(int server) const { return numTrainers() + server; }

  /// "server 1 at 10.0.0.7:6175 (pid 4242)": world rank `rank` in messages.
  std::string describe(int rank) const;
  /// Whether payloads between this process and world rank `rank` move by
  /// same-host copies.
  bool copiesWith(int rank) const;

  /// Returns once every trainer and server has called it (RoleMaker's
  /// barrier_all). Not while this process serves or has requests in
  /// flight.
  Status barrier();

  /// Trainers only: `values` becomes the element-wise sum of every
  /// trainer's, added in trainer order (the same bits on every trainer).
  /// Every trainer must call it with as many values; the servers take no
  /// part. How the trainers agree on the loss of a global batch.
  Status sumOverTrainers(std::vector<double> &values);

  /// The message of the failure that broke the world, or empty.
  const std::string &failure() const;

  class Impl;
  Impl &impl() { return *impl_; }

private:
  explicit PsWorld(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace distc::pserver

#endif // DISTC_PSERVER_PSWORLD_H
