//===- PeerWatch.cpp - Abort transfers with ranks that have left ----------===//

#include "PeerWatch.h"

#include <gloo/transport/unbound_buffer.h>

namespace distc::comm::detail {

using std::chrono::milliseconds;

/// How long one Departures request may wait on the server; also the bound
/// on how long stopping the watch takes.
constexpr milliseconds kPollWait{100};
/// How long a wait must have been registered before it is aborted.
constexpr milliseconds kAbortGrace{1000};

std::unique_ptr<PeerWatch> PeerWatch::start(const Store &store, int selfRank, std::string &error) {
  return start(
      store, [selfRank](const Departure &d) { return d.rank != selfRank; }, 0, kAbortGrace, error);
}

std::unique_ptr<PeerWatch> PeerWatch::start(const Store &store, Filter matters, size_t skip,
                                            milliseconds grace, std::string &error) {
  std::unique_ptr<Store> own = store.connectAnother(error);
  if (!own)
    return nullptr;
  std::unique_ptr<PeerWatch> watch(new PeerWatch(std::move(own), std::move(matters), skip, grace));
  watch->thread_ = std::thread([w = watch.get()] { w->follow(); });
  return watch;
}

PeerWatch::PeerWatch(std::unique_ptr<Store> store, Filter matters, size_t skip, milliseconds grace)
    : store_(std::move(store)), matters_(std::move(matters)), skip_(skip), grace_(grace) {}

PeerWatch::~PeerWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stopped_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void PeerWatch::follow() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_)
        return;
    }
    std::vector<Departure> log;
    bool gone = !store_->departures(kPollWait, log).ok();
    for (size_t i = skip_; i < log.size() && !gone; ++i)
      gone = matters_(log[i]);
    if (gone)
      break;
    // A log with entries answers at once: wait before asking again.
    if (!log.empty()) {
      std::unique_lock<std::mutex> lock(mu_);
      stopped_.wait_for(lock, kPollWait, [&] { return stop_; });
    }
  }
  tripped_ = true;
  // Some rank is gone for good. A transfer that completed just before it
  // left may not have been waited for yet, and an aborted wait reports
  // failure even then: abort only waits registered for longer than a grace
  // period, which a completed transfer never needs.
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const Clock::time_point now = Clock::now();
    for (Watched &w : watched_)
      if (!w.aborted && now - w.since >= grace_) {
        if (w.send)
          w.buffer->abortWaitSend();
        else
          w.buffer->abortWaitRecv();
        w.aborted = true;
      }
    stopped_.wait_for(lock, kPollWait);
  }
}

void PeerWatch::watch(gloo::transport::UnboundBuffer *buffer, bool send) {
  std::lock_guard<std::mutex> lock(mu_);
  watched_.push_back({buffer, send, Clock::now(), false});
}

void PeerWatch::unwatchAll() {
  std::lock_guard<std::mutex> lock(mu_);
  watched_.clear();
}

} // namespace distc::comm::detail
