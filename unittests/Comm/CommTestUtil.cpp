//===- CommTestUtil.cpp - Running ranks in tests --------------------------===//

#include "CommTestUtil.h"

#if DISTC_HAVE_GLOO
#include "distc/Comm/GlooCommunicator.h"
#endif
#include "distc/Comm/Store.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <netinet/in.h>
#include <random>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace distc::comm::test {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

void runThreads(int n, const std::function<void(int rank)> &body, std::chrono::milliseconds limit) {
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      body(r);
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      cv.notify_all();
    });
  std::unique_lock<std::mutex> lock(mu);
  if (!cv.wait_for(lock, limit, [&] { return done == n; })) {
    std::fprintf(stderr, "FATAL: %d of %d ranks still running after %lld ms\n", n - done, n,
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  lock.unlock();
  for (std::thread &t : threads)
    t.join();
}

std::vector<ChildResult> runProcesses(int n,
                                      const std::function<int(int rank, std::string &out)> &body,
                                      std::chrono::milliseconds limit) {
  std::vector<pid_t> pids(n);
  std::vector<int> pipes(n);
  for (int r = 0; r < n; ++r) {
    int fds[2];
    if (::pipe(fds) != 0)
      std::abort();
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      std::string out;
      int code = body(r, out);
      // The output is small; a pipe holds 64 KiB without a reader.
      ssize_t written = ::write(fds[1], out.data(), out.size());
      (void)written;
      std::_Exit(code);
    }
    ::close(fds[1]);
    pids[r] = pid;
    pipes[r] = fds[0];
  }
  std::vector<ChildResult> results(n);
  Clock::time_point deadline = Clock::now() + limit;
  for (int r = 0; r < n; ++r) {
    int status = 0;
    while (::waitpid(pids[r], &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        ::kill(pids[r], SIGKILL);
        ::waitpid(pids[r], &status, 0);
        ADD_FAILURE() << "rank " << r << " was still running after " << limit.count() << " ms";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (WIFEXITED(status))
      results[r].exitCode = WEXITSTATUS(status);
    char buf[4096];
    ssize_t got;
    while ((got = ::read(pipes[r], buf, sizeof buf)) > 0)
      results[r].output.append(buf, static_cast<size_t>(got));
    ::close(pipes[r]);
  }
  return results;
}

#if DISTC_HAVE_GLOO
std::vector<std::unique_ptr<Communicator>> makeGlooGroup(int n, std::chrono::milliseconds timeout) {
  std::string error;
  auto server = StoreServer::start("127.0.0.1", 0, error);
  EXPECT_TRUE(server) << error;
  if (!server)
    return {};
  int port = server->port();
  std::vector<std::unique_ptr<GlooCommunicator>> comms(n);
  std::vector<std::string> errors(n);
  runThreads(n, [&](int r) {
    StoreOptions so;
    so.port = port;
    so.rank = r;
    so.timeout = std::chrono::seconds(5);
    std::shared_ptr<Store> store = Store::connect(so, errors[r]);
    if (!store)
      return;
    GlooOptions go;
    go.timeout = timeout;
    go.connectTimeout = std::chrono::seconds(5);
    comms[r] = GlooCommunicator::create(r, n, std::move(store), go, errors[r]);
  });
  std::vector<std::unique_ptr<Communicator>> out;
  for (int r = 0; r < n; ++r) {
    EXPECT_TRUE(comms[r]) << "rank " << r << ": " << errors[r];
    if (!comms[r])
      return {};
  }
  comms[0]->adoptServer(std::move(server));
  for (auto &c : comms)
    out.push_back(std::move(c));
  return out;
}
#endif

std::vector<float> rankData(int rank, size_t count, unsigned seed) {
  std::mt19937 gen(seed + unsigned(rank));
  std::uniform_real_distribution<float> mant(-1.f, 1.f);
  std::uniform_int_distribution<int> exp(-20, 20);
  std::vector<float> v(count);
  for (float &x : v)
    x = std::ldexp(mant(gen), exp(gen));
  return v;
}

} // namespace distc::comm::test
