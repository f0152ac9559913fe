//===- PsWorldImpl.h - Inside a parameter-server world ----------*- C++ -*-===//
//
// What PsServer and PsClient use of a world: transfer buffers, the failure
// report, and which peers are done. The transport itself is behind
// Transport/Xfer so that this library builds without Gloo (the build
// without it has PsTransportNone.cpp, whose connect says so); with Gloo it
// is PsTransportGloo.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_PSERVER_PSWORLDIMPL_H
#define DISTC_LIB_PSERVER_PSWORLDIMPL_H

#include "distc/PServer/PsWorld.h"

#include "GlooExchange.h"
#include "PsPeerCopy.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace distc::pserver {

namespace detail {

using comm::detail::PeerFailure;
using Clock = std::chrono::steady_clock;

/// A buffer for transfers with other processes of the world (a Gloo
/// unbound buffer over caller-owned memory): at most one transfer pending
/// at a time. Destroying it cancels what is pending; Gloo never writes to
/// its memory afterwards. None of it throws.
class Xfer {
public:
  virtual ~Xfer();
  /// Posts a send of the first `bytes` bytes to world rank `peer`; false
  /// with `failure` when the pair is already broken.
  virtual bool send(int peer, uint64_t slot, size_t bytes, PeerFailure &failure) = 0;
  virtual bool recv(int peer, uint64_t slot, size_t bytes, PeerFailure &failure) = 0;
  /// A receive from whichever of `peers` sends first.
  virtual bool recvAny(const std::vector<int> &peers, uint64_t slot, size_t bytes,
                       PeerFailure &failure) = 0;
  /// Waits until `deadline` for the pending transfer; `peer` (if given)
  /// receives the rank it was with. False with `failure` on a broken
  /// pair, a timeout (failure.timedOut) or an abort: the watch saw a
  /// process that mattered leave (PeerWatch.h).
  virtual bool wait(Clock::time_point deadline, int *peer, PeerFailure &failure) = 0;
};

class Transport {
public:
  virtual ~Transport();
  virtual std::unique_ptr<Xfer> buffer(void *ptr, size_t bytes) = 0;
  /// Whether a process that mattered has left (PsWorld::Impl::matters).
  virtual bool tripped() const = 0;
  /// Closes every connection, so that peers fail at once.
  virtual void closeConnections() = 0;
  /// One byte to and from every other process on `slot`.
  virtual bool barrier(uint64_t slot, Clock::time_point deadline, PeerFailure &failure) = 0;
  /// Sends `bytes` bytes of `mine` to every rank of `peers` (this process
  /// excluded) and receives each one's into `theirs[i]`, on `slot`.
  virtual bool exchange(const std::vector<int> &peers, uint64_t slot, const void *mine,
                        const std::vector<void *> &theirs, size_t bytes,
                        Clock::time_point deadline, PeerFailure &failure) = 0;
};

/// Connects `world`'s transport: the device, the context over every
/// process, the departure watch.
std::unique_ptr<Transport> connectTransport(PsWorld::Impl &world, std::string &error);

} // namespace detail

class PsWorld::Impl {
public:
  Impl(PsRole role, int index, int numTrainers, int numServers, std::shared_ptr<comm::Store> store,
       const PsWorldOptions &options);

  /// Whether `d` leaves work of this process undone: a process it talks to
  /// (a trainer for a server, a server for a trainer) that has not
  /// finished with it. Called from the watch's thread.
  bool matters(const comm::Departure &d) const;
  /// Process `rank` is done with this one: a trainer whose COMPLETE this
  /// server handled, a server this trainer sent COMPLETE to. Its leaving
  /// is no longer a failure.
  void markFinished(int rank);
  std::string describe(int rank) const;

  /// Breaks the world: `what` failed with `failure` (peer: a world rank or
  /// -1). Names the cause from the departure log (waiting a moment for
  /// it when `fromTransport`, as a dead peer's store connection ends with
  /// its pairs), leaves the store with it, closes every connection.
  Status fail(const std::string &what, const detail::PeerFailure &failure,
              std::chrono::milliseconds timeout, bool fromTransport);

  const PsRole role;
  const int index, numTrainers, numServers, rank, size;
  std::shared_ptr<comm::Store> store;
  const PsWorldOptions options;
  /// Per rank: "server 1 at 10.0.0.7:6175 (pid 4242)".
  std::vector<std::string> names;
  /// Departure log entries before this world formed (a launcher's store
  /// may have outlived other jobs).
  size_t departuresBefore = 0;
  std::unique_ptr<std::atomic<bool>[]> finished;
  std::unique_ptr<detail::Transport> transport;
  /// Per world rank: whether this process and that one move payloads by
  /// same-host copies (PsMessage.h).
  std::vector<char> copies;
  /// A server's handle on each trainer it copies with (null otherwise).
  std::vector<std::unique_ptr<detail::PeerProcess>> peers;
  /// A trainer's probe: the random value its servers try to read.
  uint64_t probe = 0;
  std::string broken;
  uint32_t barriers = 0;
  uint32_t trainerSums = 0;
};

} // namespace distc::pserver

#endif // DISTC_LIB_PSERVER_PSWORLDIMPL_H
