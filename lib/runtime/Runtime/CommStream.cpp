//===- CommStream.cpp - Collectives that overlap computation --------------===//

#include "CommStream.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace distc::runtime {

/// The queued collectives of one or more CommStreams and the thread that
/// runs them in order.
class CommStream::Queue {
public:
  ~Queue() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }

  Status enqueue(std::function<Status()> task) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.ok())
      return failure_;
    if (!thread_.joinable())
      thread_ = std::thread([this] { run(); });
    queue_.push_back(std::move(task));
    changed_.notify_all();
    return Status::success();
  }

  Status wait() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return queue_.empty() && !busy_; });
    return failure_;
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping, nothing left
      std::function<Status()> task = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      const bool skip = !failure_.ok();
      lock.unlock();
      Status s = skip ? Status::success() : task();
      lock.lock();
      busy_ = false;
      if (!s.ok() && failure_.ok())
        failure_ = s;
      changed_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<Status()>> queue_;
  bool busy_ = false;
  bool stop_ = false;
  Status failure_ = Status::success();
  std::thread thread_;
};

CommStream::CommStream(std::shared_ptr<Collectives> inner)
    : inner_(std::move(inner)), queue_(std::make_shared<Queue>()) {}

CommStream::CommStream(std::shared_ptr<Collectives> inner, const CommStream &sharing)
    : inner_(std::move(inner)), queue_(sharing.queue_) {}

CommStream::~CommStream() = default;

Status CommStream::enqueue(std::function<Status()> task) {
  return queue_->enqueue(std::move(task));
}

Status CommStream::wait() { return queue_->wait(); }

Status CommStream::startAllreduce(Tensor &tensor, const std::string &op) {
  Tensor t = tensor; // shares the storage
  return enqueue([inner = inner_, t, op]() mutable { return inner->allreduce(t, op); });
}

Status CommStream::startReduce(Tensor &tensor, const std::string &op, int root) {
  Tensor t = tensor;
  return enqueue([inner = inner_, t, op, root]() mutable { return inner->reduce(t, op, root); });
}

Status CommStream::allreduce(Tensor &tensor, const std::string &op) {
  if (Status s = wait(); !s.ok())
    return s;
  return inner_->allreduce(tensor, op);
}

Status CommStream::broadcast(Tensor &tensor, int root) {
  if (Status s = wait(); !s.ok())
    return s;
  return inner_->broadcast(tensor, root);
}

Status CommStream::reduce(Tensor &tensor, const std::string &op, int root) {
  if (Status s = wait(); !s.ok())
    return s;
  return inner_->reduce(tensor, op, root);
}

Status CommStream::allgather(const Tensor &in, Tensor &out) {
  if (Status s = wait(); !s.ok())
    return s;
  return inner_->allgather(in, out);
}

Status CommStream::reduceScatter(const Tensor &in, Tensor &out, const std::string &op) {
  if (Status s = wait(); !s.ok())
    return s;
  return inner_->reduceScatter(in, out, op);
}

Status CommStream::alltoall(const Tensor &in, Tensor &out) {
  if (Status s = wait(); !s.ok())
    return s;
  return inner_->alltoall(in, out);
}

Status CommStream::subgroup(const std::vector<int> &ranks, int ringId,
                            std::shared_ptr<Collectives> &out) {
  if (Status s = wait(); !s.ok())
    return s;
  std::shared_ptr<Collectives> inner;
  if (Status s = inner_->subgroup(ranks, ringId, inner); !s.ok())
    return s;
  out = std::make_shared<CommStream>(std::move(inner), *this);
  return Status::success();
}

} // namespace distc::runtime
