//===- PsClient.h - A trainer's requests to parameter servers ---*- C++ -*-===//
//
// What a trainer's send, recv, prefetch, send_barrier, fetch_barrier ops
// and its COMPLETE at the end (Executor.close) do, as calls on one client
// per trainer process that talks to every server of its PsWorld:
//
//   PsClient client(*world, {});
//   client.get(0, "fc_w.block0", w0, bytes);            // startup: recv
//   client.fetchBarrier();                              //   and fetch_barrier
//   for (each step) {
//     client.send(0, "fc_w@GRAD.block0.trainer_1", g0, bytes);
//     client.sendBarrier();
//     client.get(0, "fc_w.block0", w0, bytes);
//     client.fetchBarrier();
//   }
//   client.complete();
//
// Data moves between the caller's memory and the server's registered
// memory with no copy but the transport's: Gloo's over TCP, or the
// server's own single copy when it shares this trainer's host
// (PsMessage.h). run() posts several requests at once
// (to several servers, or several variables of one) and waits for them
// all: the servers work on them in parallel and one server's requests
// are pipelined. In synchronous mode a batch must not mix requests of the
// two phases for one server (a GET waits for this trainer's own
// send_barrier, which would come after the batch).
//
// Every call waits at most `timeout` for each answer. A call fails with
// one line naming the request, this trainer and the cause:
//   send of 'fc_w@GRAD' to server 0 failed on trainer 1 at 10.0.0.5 (pid 812):
//     trainer 1 sent 4096 bytes for 'fc_w@GRAD', which server 0 registered
//     with 2048 bytes
//   fetch_barrier to server 1 failed on trainer 0 at ...: server 1 at
//     10.0.0.7:6175 (pid 4242) exited or lost its connection
// A server that dies fails the next call (or the one in progress) within
// about a second. Arguments that cannot be sent (a name over 255 bytes, a
// server index out of range) fail before anything is sent and leave the
// client usable; any other failure breaks it for good (later calls return
// the same error), and the trainer has left the job with that cause, which
// the servers report.
//
// Calls come from one thread at a time.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PSERVER_PSCLIENT_H
#define DISTC_PSERVER_PSCLIENT_H

#include "distc/PServer/PsMessage.h"
#include "distc/PServer/PsWorld.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace distc::pserver {

struct PsClientOptions {
  /// How long a request waits for its answer. In synchronous mode a GET
  /// or FETCH_BARRIER is answered once every trainer's send_barrier is in.
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
};

/// One request of a batch (PsClient::run). The memory must stay valid
/// until run() returns.
struct PsRequest {
  PsKind kind = PsKind::Send;
  int server = 0;
  std::string name;
  /// SEND and SET_STATE: the payload; SEND_ROWS: the rows' values.
  const void *data = nullptr;
  size_t bytes = 0;
  /// SEND_ROWS: the row ids; PREFETCH: the ids looked up.
  const int64_t *ids = nullptr;
  size_t numIds = 0;
  /// GET and GET_STATE: the variable's bytes; PREFETCH: the rows.
  void *out = nullptr;
  size_t outBytes = 0;

  static PsRequest send(int server, std::string name, const void *data, size_t bytes);
  static PsRequest sendRows(int server, std::string name, const int64_t *rows, size_t numRows,
                            const void *values, size_t valueBytes);
  static PsRequest get(int server, std::string name, void *out, size_t bytes);
  /// GET_STATE / SET_STATE: a variable of the server's training state
  /// (PsServer::addState), read or written in either phase.
  static PsRequest getState(int server, std::string name, void *out, size_t bytes);
  static PsRequest setState(int server, std::string name, const void *data, size_t bytes);
  static PsRequest prefetch(int server, std::string table, const int64_t *ids, size_t numIds,
                            void *rowsOut, size_t rowsBytes);
  static PsRequest barrier(PsKind kind, int server);
};

class PsClient {
public:
  /// `world` must be a trainer's and outlive this object.
  PsClient(PsWorld &world, const PsClientOptions &options);
  ~PsClient();

  /// SEND: `bytes` bytes to the variable `name` registered on `server`.
  Status send(int server, const std::string &name, const void *data, size_t bytes);
  /// SEND_ROWS: `numRows` row ids and their values (`valueBytes` in all).
  Status sendRows(int server, const std::string &name, const int64_t *rows, size_t numRows,
                  const void *values, size_t valueBytes);
  /// GET: the `bytes` bytes `server` serves as `name`, into `out`.
  Status get(int server, const std::string &name, void *out, size_t bytes);
  /// PREFETCH: rows of `table` for `ids`, into `rowsOut` (`rowsBytes`).
  Status prefetch(int server, const std::string &table, const int64_t *ids, size_t numIds,
                  void *rowsOut, size_t rowsBytes);
  /// BATCH_BARRIER to every server; returns when each has counted it.
  Status sendBarrier();
  /// FETCH_BARRIER to every server; returns when each has counted it.
  Status fetchBarrier();
  /// COMPLETE to every server this trainer has not sent it to yet.
  Status complete();

  /// Posts every request, then waits for every answer; the first failure
  /// in `requests` order is returned.
  Status run(const std::vector<PsRequest> &requests);

  /// The failure that broke this client, or empty.
  const std::string &failure() const;

  class Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace distc::pserver

#endif // DISTC_PSERVER_PSCLIENT_H
