//===- CommStream.cpp - Collectives that overlap computation --------------===//

#include "CommStream.h"

namespace distc::runtime {

CommStream::CommStream(std::shared_ptr<Collectives> inner) : inner_(std::move(inner)) {}

CommStream::~CommStream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

Status CommStream::enqueue(std::function<Status()> task) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failure_.ok())
    return failure_;
  if (!thread_.joinable())
    thread_ = std::thread([this] { run(); });
  queue_.push_back(std::move(task));
  changed_.notify_all();
  return Status::success();
}

void CommStream::run() {
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

Status CommStream::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return queue_.empty() && !busy_; });
  return failure_;
}

Status CommStream::startAllreduce(Tensor &tensor, const std::string &op) {
  Tensor t = tensor; // shares the storage
  return enqueue([this, t, op]() mutable { return inner_->allreduce(t, op); });
}

Status CommStream::startReduce(Tensor &tensor, const std::string &op, int root) {
  Tensor t = tensor;
  return enqueue([this, t, op, root]() mutable { return inner_->reduce(t, op, root); });
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

} // namespace distc::runtime
