//===- CommStream.h - Collectives that overlap computation -------*- C++ -*-===//
//
// The CPU's counterpart of a CUDA communication stream. A Session with
// several ranks wraps its Collectives in a CommStream: startAllreduce and
// startReduce queue the collective for a thread of its own and return at
// once, so the gradient of one layer is communicated while the backward
// pass computes the next; wait() (the c_sync_comm_stream kernel, and the
// end of every program) blocks until the queue is empty. The blocking
// collectives first wait for the queue, then run on the caller's thread, so
// the wrapped communicator is only ever used by one thread at a time and in
// the order the program issues the collectives — the same on every rank.
//
// The communicators of the session's rings (sub-groups, subgroup()) are
// wrapped in CommStreams that share the world's queue: every collective of
// every ring runs in program order, one at a time, so no rank can start a
// ring's collective while another waits in a different one's (which NCCL
// turns into a deadlock), and a wait() waits for all of them.
//
// A failed collective fails every later one (the communicator is broken
// anyway) and is reported by the next wait.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_COMMSTREAM_H
#define DISTC_LIB_RUNTIME_COMMSTREAM_H

#include "distc/Runtime/Collectives.h"

#include <functional>
#include <memory>

namespace distc::runtime {

class CommStream : public Collectives {
public:
  /// `inner` on a queue (and thread) of its own.
  explicit CommStream(std::shared_ptr<Collectives> inner);
  /// `inner` on the queue of `sharing`.
  CommStream(std::shared_ptr<Collectives> inner, const CommStream &sharing);
  ~CommStream() override;

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  Status allreduce(Tensor &tensor, const std::string &op) override;
  Status broadcast(Tensor &tensor, int root) override;
  Status reduce(Tensor &tensor, const std::string &op, int root) override;
  Status startAllreduce(Tensor &tensor, const std::string &op) override;
  Status startReduce(Tensor &tensor, const std::string &op, int root) override;
  Status wait() override;
  Status allgather(const Tensor &in, Tensor &out) override;
  Status reduceScatter(const Tensor &in, Tensor &out, const std::string &op) override;
  Status alltoall(const Tensor &in, Tensor &out) override;
  /// The inner communicator's sub-group, on this stream's queue.
  Status subgroup(const std::vector<int> &ranks, int ringId,
                  std::shared_ptr<Collectives> &out) override;

private:
  class Queue;
  /// Queues `task`; the tensor it captures keeps the storage alive.
  Status enqueue(std::function<Status()> task);

  std::shared_ptr<Collectives> inner_;
  std::shared_ptr<Queue> queue_;
};

} // namespace distc::runtime

#endif // DISTC_LIB_RUNTIME_COMMSTREAM_H
