//===- PeerWatch.h - Abort transfers with ranks that have left --*- C++ -*-===//
//
// A rank that dies closes its connections, and Gloo fails the transfers
// that were reading from it at once. Not all of them: a send that waits for
// the dead peer to post its receive is never told, and would wait for the
// collective's timeout (minutes). The rendezvous store, however, logs the
// end of every rank's store connection the moment it happens.
//
// PeerWatch follows that log from a thread of its own, on a second store
// connection (a blocking Departures request must not hold up the
// communicator's). While a rank is in an exchange, the exchange's buffers
// are registered here; once any other rank has departed (or the store
// itself is gone, i.e. its host died), every wait registered for more than
// a second is aborted (a second lets transfers that completed before the
// departure be waited for normally). The exchange then fails, and the
// communicator's failure report names the departed rank.
//
// A watch may be told which departures matter (a filter) and from which
// entry of the log on: the parameter-server world, where trainers that are
// done leave as a matter of course, aborts only for a departure that
// leaves work undone. Departures that do not matter are polled past, so
// the log is asked for at most once per poll interval.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_PEERWATCH_H
#define DISTC_LIB_COMM_PEERWATCH_H

#include "distc/Comm/Store.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gloo::transport {
class UnboundBuffer;
}

namespace distc::comm::detail {

class PeerWatch {
public:
  /// Says whether a departure dooms the transfers in flight.
  using Filter = std::function<bool(const Departure &)>;

  /// Starts following the departure log of `store`'s server on a connection
  /// of its own; null (with `error`) if that connection fails. Any rank
  /// but `selfRank` that departs matters.
  static std::unique_ptr<PeerWatch> start(const Store &store, int selfRank, std::string &error);
  /// The same, where only the departures `matters` selects count, among
  /// the log's entries from index `skip` on (earlier ones predate this
  /// watch's group), and waits are aborted once registered for `grace`
  /// (zero: at once, for a caller that fails after any such departure
  /// anyway). `matters` is called from the watch's thread.
  static std::unique_ptr<PeerWatch> start(const Store &store, Filter matters, size_t skip,
                                          std::chrono::milliseconds grace, std::string &error);
  ~PeerWatch();

  /// Whether a departure that matters (or the store's end) has been seen.
  bool tripped() const { return tripped_.load(); }

  /// Registers a posted transfer.
  void watch(gloo::transport::UnboundBuffer *buffer, bool send);
  /// Forgets every registered transfer (before the buffers go away).
  void unwatchAll();

private:
  PeerWatch(std::unique_ptr<Store> store, Filter matters, size_t skip,
            std::chrono::milliseconds grace);
  void follow();

  using Clock = std::chrono::steady_clock;
  struct Watched {
    gloo::transport::UnboundBuffer *buffer;
    bool send;
    Clock::time_point since;
    bool aborted;
  };

  std::unique_ptr<Store> store_;
  const Filter matters_;
  const size_t skip_;
  const std::chrono::milliseconds grace_;
  std::atomic<bool> tripped_{false};
  std::mutex mu_;
  std::condition_variable stopped_;
  bool stop_ = false;
  std::vector<Watched> watched_;
  std::thread thread_;
};

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_PEERWATCH_H
