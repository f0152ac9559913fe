//===- Parallel.cpp - Splitting a kernel's loop over threads --------------===//

#include "Parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <pthread.h>

namespace distc::runtime::kernels {
namespace {

int threadsFromEnvironment() {
  for (const char *var : {"DISTC_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const char *v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n >= 1)
        return std::min(n, 256);
    }
  return std::max(1u, std::thread::hardware_concurrency());
}

std::atomic<int> threadOverride{0};

/// One loop split into pieces of `piece` indices.
struct Job {
  RangeFn fn = nullptr;
  const void *context = nullptr;
  int64_t n = 0, piece = 0;
};

/// How long an idle worker keeps polling for the next loop (yielding its
/// core to any other runnable thread) before it sleeps. Kernel loops come
/// every few hundred microseconds during a training step. A sleeping worker
/// is slow to start when OpenBLAS's idle threads spin on the other cores:
/// with no idle core the scheduler tends to wake it on the caller's core,
/// where it only competes with the caller.
constexpr auto kSpinBeforeSleep = std::chrono::milliseconds(20);

/// Workers that poll for the next loop for a while, then sleep on a
/// condition variable. A worker that finds a loop joins it, if it is still
/// running, by taking pieces from the shared counter; the caller takes
/// pieces too and then waits only for the workers that joined.
class Pool {
public:
  /// Runs `job` on the caller and the workers; false if the pool is busy
  /// (the caller then runs the loop itself).
  bool run(const Job &job, int threads) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock())
      return false;
    while (int(workers_.size()) < threads - 1)
      workers_.emplace_back([this] { work(); });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = job;
      next_.store(0, std::memory_order_relaxed);
      active_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    takePieces(job);
    std::unique_lock<std::mutex> lock(mutex_);
    active_ = false;
    // The workers' writes happen before their unlock of mutex_ below.
    left_.wait(lock, [this] { return inside_ == 0; });
    if (error_) // a piece threw (out of memory): rethrown once all are done
      std::rethrow_exception(std::exchange(error_, nullptr));
    return true;
  }

private:
  void takePieces(const Job &job) {
    for (;;) {
      const int64_t begin = next_.fetch_add(1, std::memory_order_relaxed) * job.piece;
      if (begin >= job.n)
        return;
      try {
        job.fn(job.context, begin, std::min(job.n, begin + job.piece));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_)
          error_ = std::current_exception();
      }
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      const auto sleepAt = std::chrono::steady_clock::now() + kSpinBeforeSleep;
      while (generation_.load(std::memory_order_acquire) == seen &&
             std::chrono::steady_clock::now() < sleepAt)
        std::this_thread::yield();
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      seen = generation_.load(std::memory_order_relaxed);
      if (!active_) // that loop is over already
        continue;
      const Job job = job_;
      ++inside_;
      lock.unlock();
      takePieces(job);
      lock.lock();
      if (--inside_ == 0)
        left_.notify_all();
    }
  }

  std::mutex busy_; // held by the thread running a loop
  std::mutex mutex_;
  std::condition_variable start_, left_;
  Job job_;
  bool active_ = false;
  std::atomic<uint64_t> generation_{0}; // advances when a loop starts
  int inside_ = 0; // workers working on the current loop
  std::exception_ptr error_;
  std::atomic<int64_t> next_{0};
  std::vector<std::thread> workers_;
};

// The pool lives as long as the process (its workers sleep in work()). A
// forked child has none of the parent's threads, so it starts a new pool.
std::atomic<Pool *> pool{nullptr};
std::once_flag atforkOnce;

Pool &processPool() {
  std::call_once(atforkOnce, [] {
    pthread_atfork(nullptr, nullptr, [] { pool.store(nullptr); });
  });
  Pool *p = pool.load();
  if (!p) {
    Pool *fresh = new Pool();
    if (pool.compare_exchange_strong(p, fresh))
      p = fresh;
    else
      delete fresh;
  }
  return *p;
}

} // namespace

int kernelThreads() {
  static const int fromEnvironment = threadsFromEnvironment();
  const int n = threadOverride.load(std::memory_order_relaxed);
  return n > 0 ? n : fromEnvironment;
}

void setKernelThreads(int threads) { threadOverride.store(std::max(0, threads)); }

int64_t pieceSize(int64_t n, int64_t grain, int threads) {
  // A few pieces per thread, so that a late or slow worker evens out;
  // multiples of 16 elements keep pieces of an element loop on separate
  // cache lines. A coarse loop (a few images, planes or GEMM blocks, fewer
  // than 16 per piece) keeps its pieces as they are: rounding them up to 16
  // would hand the whole loop to one thread.
  int64_t piece = std::max(grain, (n + 4 * int64_t(threads) - 1) / (4 * int64_t(threads)));
  if (piece >= 16)
    piece = (piece + 15) / 16 * 16;
  return piece;
}

void parallelForRanges(int64_t n, int64_t grain, RangeFn fn, const void *context) {
  const int threads = kernelThreads();
  const int64_t piece = pieceSize(n, grain, threads);
  if (!processPool().run(Job{fn, context, n, piece}, threads))
    fn(context, 0, n);
}

} // namespace distc::runtime::kernels
