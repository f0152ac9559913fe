//===- Rendezvous.h - Forming the job's communicator ------------*- C++ -*-===//
//
// Every rank calls connect() with the same master address, world size and
// fingerprint (e.g. the artifact's checksum). Rank 0 serves the rendezvous
// store on --master-addr:--master-port; every rank then
//  1. claims its rank (two processes started as the same rank is an error),
//  2. publishes its world size, fingerprint and settings and compares
//     everyone's with rank 0's; a mismatch fails every rank with the same
//     message:
//       rank 1 runs artifact 9f3c2a71d0e4…, rank 0 runs 41aa07c9be12…
//       rank 2 was started with world size 3, rank 0 with 4
//       --steps differs: rank 0 has 6, rank 3 has 3
//  3. connects the Gloo transport (GlooCommunicator.h).
// Ranks that never show up fail it after `connectTimeout`:
//       ranks 2, 3 did not join the rendezvous at 10.0.0.1:29500 within 30 s (world size 4)
//
//   RendezvousOptions o;
//   o.rank = 1; o.worldSize = 4; o.masterAddr = "10.0.0.1"; o.fingerprint = checksum;
//   std::unique_ptr<Communicator> comm;
//   std::string error;
//   if (!connect(o, comm, error)) { ... }
//
// World size 1 needs no rendezvous: connect() returns a LocalCommunicator.
// connectNccl() (NcclCommunicator.h) runs the same rendezvous and then
// forms an NCCL communicator on a GPU instead of Gloo's transport.
// The communicator owns the store connection (and, on rank 0, the store).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_RENDEZVOUS_H
#define DISTC_COMM_RENDEZVOUS_H

#include "distc/Comm/Communicator.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace distc::comm {

struct RendezvousOptions {
  int rank = 0;
  int worldSize = 1;
  /// Where rank 0 serves the store; it listens on this address only.
  std::string masterAddr = "127.0.0.1";
  int masterPort = 29500;
  /// False: a store is already served at masterAddr:masterPort (by a
  /// launcher), so rank 0 does not start one.
  bool serveStore = true;
  /// The address this rank's transport binds to (GlooOptions::host);
  /// empty: `iface`, or else the address that reaches the master.
  std::string host;
  std::string iface;
  /// Presented to the store (StoreOptions::token); rank 0 requires it of
  /// every client when it serves the store. Empty: none.
  std::string jobToken;
  /// Compared across ranks; a mismatch is an error naming both values.
  std::string fingerprint;
  /// What the fingerprint identifies, for messages ("rank 1 runs artifact ...").
  std::string fingerprintKind = "artifact";
  /// (name, value) of settings every rank must share, compared in order
  /// after the fingerprint: a difference is named with both values
  /// ("--steps differs: rank 0 has 6, rank 3 has 3"). Ranks started by
  /// a launcher other than dist-run's have no other place to compare them.
  std::vector<std::pair<std::string, std::string>> settings;
  /// Bound on the whole rendezvous: reaching the master, every rank
  /// joining, connecting the transport.
  std::chrono::milliseconds connectTimeout{std::chrono::seconds(30)};
  /// Bound on each collective afterwards (GlooOptions::timeout).
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  /// Store keys of this rendezvous live under this prefix; one rendezvous
  /// per prefix and store.
  std::string prefix = "distc";
};

/// The store key where rank `rank` of the rendezvous under `prefix` records,
/// when one of its collectives times out, the rank it was waiting for:
/// "<peer>\n<timeout in ms>\n<collective>" (e.g. "2\n300000\nallreduce #12"),
/// with either transport (GlooOptions/NcclOptions::recordsPrefix).
/// The rank that times out first is rarely the one at fault, so a launcher
/// follows these keys to the rank everyone waited for and names it.
std::string waitedForKey(const std::string &prefix, int rank);

/// Forms the communicator of `options.rank`; false with `error` set (one
/// line) on failure.
bool connect(const RendezvousOptions &options, std::unique_ptr<Communicator> &comm,
             std::string &error);

} // namespace distc::comm

#endif // DISTC_COMM_RENDEZVOUS_H
