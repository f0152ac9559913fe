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
// A failed collective fails every later one (the communicator is broken
// anyway) and is reported by the next wait.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_COMMSTREAM_H
#define DISTC_LIB_RUNTIME_COMMSTREAM_H

#include "distc/Runtime/Collectives.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace distc::runtime {

class CommStream : public Collectives {
public:
  explicit CommStream(std::shared_ptr<Collectives> inner);
  ~CommStream() override;

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  Status allreduce(Tensor &tensor, const std::string &op) override;
  Status broadcast(Tensor &tensor, int root) override;
  Status reduce(Tensor &tensor, const std::string &op, int root) override;
  Status startAllreduce(Tensor &tensor, const std::string &op) override;
  Status startReduce(Tensor &tensor, const std::string &op, int root) override;
  Status wait() override;

private:
  /// Queues `task`; the tensor it captures keeps the storage alive.
  Status enqueue(std::function<Status()> task);
  void run();

  std::shared_ptr<Collectives> inner_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<Status()>> queue_;
  bool busy_ = false;
  bool stop_ = false;
  Status failure_ = Status::success();
  std::thread thread_;
};

} // namespace distc::runtime

#endif // DISTC_LIB_RUNTIME_COMMSTREAM_H
