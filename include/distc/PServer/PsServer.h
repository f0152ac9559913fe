//===- PsServer.h - A parameter server's message loop -----------*- C++ -*-===//
//
// The runtime half of Paddle's listen_and_serv op: a server registers the
// memory its variables live in, then serve() answers the trainers'
// requests (PsMessage.h) until every trainer has sent COMPLETE.
//
//   PsServer server(*world, {/*sync=*/true, std::chrono::seconds(300)});
//   server.addReceivable("fc_w@GRAD.block0.trainer_0", 0, grad0, bytes);
//   server.addReceivable("fc_w@GRAD.block0.trainer_1", 1, grad1, bytes);
//   server.addServable("fc_w.block0", param, paramBytes);
//   server.setOptimize([&] { return runOptimizeBlocks(); });
//   Status s = server.serve();
//
// Synchronous mode (Paddle's sync loop) alternates two phases:
//   get   GET is answered; FETCH_BARRIER is counted. When every live
//         trainer's FETCH_BARRIER is in, the send phase begins. The first
//         get phase is the trainers' startup (they fetch the initial
//         parameters and send FETCH_BARRIER).
//   send  SEND and SEND_ROWS land in their registered memory;
//         BATCH_BARRIER is counted. When every live trainer's
//         BATCH_BARRIER is in, the optimize callback runs once, the row
//         counts of sparse receivables return to 0 (Paddle's
//         ResetReceivedVars), and the get phase begins: a round.
// A request of the other phase waits in a queue (its payload stays with
// the trainer, which waits for the answer) and is handled, in the order
// each trainer sent its requests, when its phase comes. PREFETCH,
// GET_STATE, SET_STATE and COMPLETE are handled in either phase.
//
// Training state: the variables registered with addState (the server's
// parameter blocks and optimizer state) can be read (GET_STATE) and
// overwritten (SET_STATE) in either phase, between rounds: a trainer that
// checkpoints after its fetch_barrier reads the state of the round it
// just received, since no round ends before its own next send_barrier,
// and a trainer resuming from a checkpoint writes it before its first
// send_barrier.
//
// Asynchronous mode has no phases: each SEND or SEND_ROWS is followed by
// the arrival callback (the optimize block of that gradient), GET is
// answered at once, and barriers are refused.
//
// COMPLETE retires a trainer: barriers no longer wait for it, and its own
// receivables (registered for that trainer) are zeroed, dense ones, or
// emptied, sparse ones, so it adds nothing to later rounds (Paddle zeroes
// them only after the next round, which counts the retired trainer's last
// gradient twice).
//
// Bounds: a request is refused, with a message naming the variable, the
// trainer and both sizes, when its variable was not registered here (or
// is another trainer's), its size differs from the registration, or its
// row or id count exceeds the registered maximum. The trainer's call then
// fails with that message; nothing of the payload is received, and the
// server goes on serving. Memory is only ever the registered memory, plus
// a prefetch table's buffers for its largest request.
//
// Failures: serve() returns an error naming the trainer when one dies
// (noticed within about a second), leaves without COMPLETE, or sends
// nothing for `timeout` while the server waits for it:
//   listen_and_serv (round 3, send phase) failed on server 0 at 10.0.0.7:6174
//     (pid 4242): trainer 1 at 10.0.0.5 (pid 812) exited or lost its connection
//   ...: timed out after 300 s waiting for trainer 1's send_barrier
// An optimize or arrival callback that fails ends serve() with its message.
//
// All calls come from one thread; callbacks run on it, between requests.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PSERVER_PSSERVER_H
#define DISTC_PSERVER_PSSERVER_H

#include "distc/PServer/PsWorld.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace distc::pserver {

struct PsServerOptions {
  /// Paddle's sync_mode.
  bool sync = true;
  /// How long the server waits for the next request, or for a payload.
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
};

/// Counts, for tests and logs.
struct PsServerStats {
  /// Optimize rounds run (synchronous mode).
  uint64_t rounds = 0;
  /// Requests handled, and those refused among them.
  uint64_t requests = 0;
  uint64_t refused = 0;
  /// Payload bytes this server copied from and into trainers on its host
  /// (PsMessage.h); the rest went over TCP.
  uint64_t copiedBytes = 0;
};

class PsServer {
public:
  /// Rows for `ids[0..n)` of `table`, written to `rowsOut` (n rows of the
  /// table's row size). An error refuses the request with its message.
  using PrefetchFn =
      std::function<Status(const std::string &table, const int64_t *ids, size_t n, void *rowsOut)>;
  using OptimizeFn = std::function<Status()>;
  using ArrivalFn = std::function<Status(const std::string &name, int trainer)>;

  /// `world` must be a server's and outlive this object.
  PsServer(PsWorld &world, const PsServerOptions &options);
  ~PsServer();

  /// Where SEND of `name` (exactly `bytes` bytes) lands. `trainer` is the
  /// only trainer that may send it (synchronous mode's per-trainer
  /// "<grad>.trainer_<k>" variables), or -1 for any.
  Status addReceivable(const std::string &name, int trainer, void *data, size_t bytes);
  /// Where SEND_ROWS of `name` lands: up to `maxRows` row ids in `rows`,
  /// their values (`rowBytes` each) in `values`; `*rowCount` is set to the
  /// number received.
  Status addSparseReceivable(const std::string &name, int trainer, int64_t *rows, void *values,
                             size_t rowBytes, size_t maxRows, size_t *rowCount);
  /// What GET of `name` returns; the memory is read at each GET.
  Status addServable(const std::string &name, const void *data, size_t bytes);
  /// A variable of the training state: GET_STATE reads and SET_STATE
  /// overwrites its `bytes` bytes, in either phase. A name may be both
  /// servable and state.
  Status addState(const std::string &name, void *data, size_t bytes);
  /// A table PREFETCH may read, `rowBytes` per row, at most `maxIds` ids
  /// per request; the rows come from the prefetch callback.
  Status addPrefetchTable(const std::string &table, size_t rowBytes, size_t maxIds);

  /// Runs after SET_STATE has written state variable `name`.
  using StateWrittenFn = std::function<Status(const std::string &name)>;
  void setOnStateWritten(StateWrittenFn fn);
  void setPrefetch(PrefetchFn fn);
  /// Synchronous mode: runs once per round, after every live trainer's
  /// BATCH_BARRIER.
  void setOptimize(OptimizeFn fn);
  /// Asynchronous mode: runs after each SEND or SEND_ROWS.
  void setOnArrival(ArrivalFn fn);

  /// Serves until every trainer has sent COMPLETE (success) or a failure
  /// (an error naming what and whom). Call once.
  Status serve();

  const PsServerStats &stats() const;

  class Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace distc::pserver

#endif // DISTC_PSERVER_PSSERVER_H
