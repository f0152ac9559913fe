//===- FailureReport.h - Naming the rank that broke a collective -*- C++ -*-===//
//
// When a transfer fails, the peer it was with is not necessarily at fault:
// a rank that gave up on a dead peer closes its connections too. The
// store's departure log orders the events, so its first entry is the root
// cause: a rank that vanished ("lost") or one that left with a reason.
// Without a log entry the failed transfer itself is the best evidence.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_FAILUREREPORT_H
#define DISTC_LIB_COMM_FAILUREREPORT_H

#include "distc/Comm/Store.h"

#include "GlooExchange.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace distc::comm::detail {

struct FailureFacts {
  std::string what; // "allreduce #12", "connecting to the other ranks"
  int rank = 0;     // this rank
  PeerFailure peer; // the failed transfer (peer -1: none)
  std::chrono::milliseconds timeout{0};
  std::vector<Departure> log;
  /// Querying the store failed: its host (rank 0) is gone too.
  bool storeGone = false;
  std::string storeWhere;
  /// How ranks are named in the message ("trainer 1 at 10.0.0.2:6174");
  /// empty: "rank 1".
  std::function<std::string(int)> rankName;
  /// What a rank that left without a reason while this one still needed
  /// it did; empty: "closed its communicator while this rank was still in
  /// a collective".
  std::string leftEarly;
};

struct FailureReport {
  /// One line: "allreduce #12 failed on rank 1: rank 2 exited or lost its
  /// connection".
  std::string message;
  /// The cause alone, without who reported it: what this rank publishes
  /// when it leaves, so ranks failing after it report the same cause.
  std::string cause;
  /// The rank this one timed out waiting for, when that is the cause; -1
  /// otherwise.
  int waitedFor = -1;
};

FailureReport describeFailure(const FailureFacts &facts);

/// `<prefix>/waited-for/<rank>` (waitedForKey, Rendezvous.h).
std::string waitedForRecordKey(const std::string &prefix, int rank);

/// When `report` is a timeout waiting for a rank: records that rank, the
/// timeout and the collective (`facts.what`) under `prefix`, before this
/// rank leaves the store, so that a launcher that sees it end can follow
/// the records to the rank everyone waited for.
void recordWaitedFor(Store &store, const std::string &prefix, const FailureFacts &facts,
                     const FailureReport &report);

/// After a failure, ranks that are still computing fail at their next
/// collective and need the store's log to name the rank at fault: the host
/// of the store (rank `rank` of `size`) waits until the others have left,
/// at most min(timeout, 10 s), before the store goes.
void awaitOtherRanks(const StoreServer &server, int rank, int size,
                     std::chrono::milliseconds timeout);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_FAILUREREPORT_H
