//===- FailureReport.cpp - Naming the rank that broke a collective --------===//

#include "FailureReport.h"

#include "Socket.h"

#include <algorithm>

namespace distc::comm::detail {

FailureReport describeFailure(const FailureFacts &f) {
  auto name = [&](int rank) {
    return f.rankName ? f.rankName(rank) : "rank " + std::to_string(rank);
  };
  FailureReport r;
  std::string reporter;
  const Departure *first = nullptr;
  for (const Departure &d : f.log)
    if (d.rank != f.rank) {
      first = &d;
      break;
    }
  if (first && first->lost) {
    r.cause = name(first->rank) + " exited or lost its connection";
  } else if (first && !first->reason.empty()) {
    r.cause = first->reason;
    reporter = " (reported by " + name(first->rank) + ")";
  } else if (first) {
    r.cause =
        name(first->rank) + " " +
        (f.leftEarly.empty() ? "closed its communicator while this rank was still in a collective"
                             : f.leftEarly);
  } else if (f.storeGone && f.rank != 0) {
    r.cause = name(0) + " exited or lost its connection (the rendezvous store it served at " +
              f.storeWhere + " is gone too)";
  } else if (f.peer.peer >= 0 && f.peer.timedOut) {
    r.cause = "timed out after " + formatSeconds(f.timeout) + " waiting for " + name(f.peer.peer) +
              " (stuck, or calling a different collective, count or root)";
    r.waitedFor = f.peer.peer;
  } else if (f.peer.peer >= 0) {
    r.cause = "lost the connection to " + name(f.peer.peer) + " (" + f.peer.what + ")";
  } else {
    r.cause = f.peer.what.empty() ? "unknown error" : f.peer.what;
  }
  r.message = f.what + " failed on " + name(f.rank) + ": " + r.cause + reporter;
  return r;
}

std::string waitedForRecordKey(const std::string &prefix, int rank) {
  return prefix + "/waited-for/" + std::to_string(rank);
}

void recordWaitedFor(Store &store, const std::string &prefix, const FailureFacts &facts,
                     const FailureReport &report) {
  if (report.waitedFor < 0)
    return;
  (void)store.set(waitedForRecordKey(prefix, facts.rank),
                  std::to_string(report.waitedFor) + "\n" +
                      std::to_string(facts.timeout.count()) + "\n" + facts.what);
}

void awaitOtherRanks(const StoreServer &server, int rank, int size,
                     std::chrono::milliseconds timeout) {
  std::vector<int> others;
  for (int r = 0; r < size; ++r)
    if (r != rank)
      others.push_back(r);
  server.waitForDepartures(others, std::min(timeout, std::chrono::milliseconds(10000)));
}

} // namespace distc::comm::detail
