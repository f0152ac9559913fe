//===- Store.h - Key-value rendezvous store over TCP ------------*- C++ -*-===//
//
// The processes of a job find each other through a small key-value store
// served by rank 0 (the "master") on --master-addr:--master-port, as
// torchrun's TCPStore or Paddle's HTTP KV server do. Ranks publish their
// transport addresses and rendezvous facts under keys and wait for each
// other's; counters (add) build barriers.
//
//   std::string error;
//   auto server = StoreServer::start("127.0.0.1", 29500, token, error); // rank 0 only
//   auto store = Store::connect({"127.0.0.1", 29500, 30s, rank, token}, error);
//   store->set("k", "bytes");
//   std::string v;
//   Status s = store->get("k", v);        // blocks until set, or times out
//
// Values are arbitrary bytes (std::string as a byte container). The server
// keeps everything in memory and lives as long as its StoreServer object.
//
// Failures are one-line messages naming the store's address, e.g.
//   cannot reach the rendezvous store at 10.0.0.1:29500 after 30 s (Connection refused)
//   port 29500 is already in use on 127.0.0.1
//   timed out after 30 s waiting for key 'distc/info/3' in the rendezvous store at ...
//   the rendezvous store at 10.0.0.1:29500 closed the connection
// After a connection failure every later call fails with the same message.
//
// A server started with a job token admits only clients that present the
// same token, so a stray process, or one of another job that was given the
// same port, cannot join the job. It refuses the others at once:
//   the rendezvous store at 10.0.0.1:29500 refused this process: its job
//     token does not match (a process of another job, or a stale one?)
//   the rendezvous store at 10.0.0.1:29500 requires a job token and this
//     process has none (set DISTC_JOB_TOKEN)
// The token keeps processes apart; it is no defence against an attacker who
// can read the network or the processes' environment.
//
// The server also records, per rank, when a client that said which rank
// it is disconnects, and whether it said goodbye first ("left") or just
// vanished ("lost": the process died or the network failed). Communicators
// use this log to name the rank that brought a collective down.
//
// A Store client may be shared by threads; requests are serialized.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_STORE_H
#define DISTC_COMM_STORE_H

#include "distc/Runtime/Status.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace distc::comm {

using runtime::Status;

/// Listens on exactly `host:port` (loopback by default in the launcher;
/// "0.0.0.0" must be asked for) and serves the store from a background
/// thread until destroyed. Port 0 picks a free port (see port()).
class StoreServer {
public:
  /// Serves every client.
  static std::unique_ptr<StoreServer> start(const std::string &host, int port, std::string &error);
  /// Serves only clients whose StoreOptions::token equals `token`; an empty
  /// token serves every client.
  static std::unique_ptr<StoreServer> start(const std::string &host, int port,
                                            const std::string &token, std::string &error);
  /// Stops serving and closes every connection; clients then fail with
  /// "closed the connection".
  ~StoreServer();

  const std::string &host() const;
  int port() const;

  /// Blocks until each of `ranks` is in the departure log, or `bound` has
  /// passed. The host of a failed job lingers here so the other ranks,
  /// even late ones, can still read the rendezvous' verdict or the
  /// departure log before the store goes.
  void waitForDepartures(const std::vector<int> &ranks, std::chrono::milliseconds bound) const;

  class Impl;

private:
  explicit StoreServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct StoreOptions {
  std::string host = "127.0.0.1";
  int port = 29500;
  /// How long connect() keeps retrying an unreachable master, and the
  /// wait of get()/wait() calls that take no timeout.
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  /// The rank this client speaks for, or -1; a rank's disconnection is
  /// recorded in the departure log.
  int rank = -1;
  /// The job token presented to the server; empty: none. A server that
  /// requires another (or one) refuses the connection, and connect() fails
  /// at once.
  std::string token;
};

/// "host:port", with IPv6 literals in brackets: addresses in messages and
/// endpoints.
std::string hostPort(const std::string &host, int port);

/// "30 s", "0.25 s": durations in messages.
std::string formatSeconds(std::chrono::milliseconds d);

/// A duration as exact decimal seconds without a unit ("2", "0.5"), as the
/// environment variables that take seconds read them.
std::string secondsText(std::chrono::milliseconds d);

/// The environment variable through which a launcher hands the job token
/// to its ranks (readRoleFacts reads it).
inline constexpr const char *kJobTokenVariable = "DISTC_JOB_TOKEN";

/// A fresh job token: 32 hex digits (128 bits) from the kernel's random
/// source, for a launcher to serve the store with and pass to its ranks.
std::string generateJobToken();

/// One entry of the departure log, in the order the server saw them.
struct Departure {
  int rank = -1;
  /// True when the connection ended without a goodbye (process died,
  /// network failed); false when the client closed it deliberately.
  bool lost = false;
  /// The reason given with the goodbye (empty for a normal close).
  std::string reason;
};

class Store {
public:
  /// Connects to the server at options.host:options.port, retrying until
  /// options.timeout; null with `error` set on failure.
  static std::unique_ptr<Store> connect(const StoreOptions &options, std::string &error);
  /// Another connection to the same server with the same token, speaking
  /// for no rank (its end is not logged): for a thread that must block on
  /// the store without holding up this connection's users.
  std::unique_ptr<Store> connectAnother(std::string &error) const;
  /// Leaves (see leave()) if it has not already.
  ~Store();

  Status set(const std::string &key, const std::string &value);

  /// Blocks until `key` exists, then returns its value.
  Status get(const std::string &key, std::string &value);
  Status get(const std::string &key, std::string &value, std::chrono::milliseconds timeout);

  /// Blocks until every key exists.
  Status wait(const std::vector<std::string> &keys);
  Status wait(const std::vector<std::string> &keys, std::chrono::milliseconds timeout);

  /// Blocks until at least one of `keys` exists and returns those that do;
  /// on timeout returns success with `present` empty.
  Status waitAny(const std::vector<std::string> &keys, std::chrono::milliseconds timeout,
                 std::vector<std::string> &present);

  /// The subset of `keys` that exists now.
  Status check(const std::vector<std::string> &keys, std::vector<std::string> &present);

  /// Adds `delta` to the counter `key` (a missing key counts as 0) and
  /// returns the new value. Counters are stored as decimal text, so get()
  /// reads them too; add() on a key holding anything else is an error.
  Status add(const std::string &key, int64_t delta, int64_t &value);

  /// The departure log; when it is empty, waits up to `wait` for a first
  /// entry.
  Status departures(std::chrono::milliseconds wait, std::vector<Departure> &log);

  /// Says goodbye now and closes the connection; `reason` (e.g. the error
  /// that made this rank give up) goes into the departure log for the other
  /// ranks to report. Later calls fail. The destructor leaves without a
  /// reason.
  void leave(const std::string &reason);

  const std::string &host() const;
  int port() const;
  int rank() const;
  std::chrono::milliseconds timeout() const;
  /// The numeric local address of the connection: an address of this
  /// host on the network that reaches the master.
  std::string localAddress() const;

  class Impl;

private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace distc::comm

#endif // DISTC_COMM_STORE_H
