//===- ps_throughput.cpp - Parameter-server push+pull against memory ------===//
//
// How many bytes a second one parameter server moves for its trainers,
// against what one core of this machine can move through memory. In one
// run:
//
//   1. the STREAM triad a[i] = b[i] + s*c[i] on one thread, over three
//      arrays of doubles much larger than the caches (3 x 8 bytes counted
//      per element, as STREAM counts), best of several repetitions; and
//      STREAM's copy c[i] = a[i] (2 x 8 bytes), which is closer to what a
//      transfer does;
//   2. for each configuration, a parameter-server world on 127.0.0.1 made
//      of the runtime's own DistcPServer (PsWorld, PsServer, PsClient):
//      one server and W trainers, each a forked process, and one more
//      process that serves the rendezvous store, as a launcher does. The
//      server registers T bytes of dense parameters cut into blocks of B
//      bytes (servables) and, per trainer, a gradient block for each
//      (receivables). A round is Paddle's synchronous step without the
//      compute: every trainer sends every gradient block (push, one batch
//      of requests), send_barrier, the server's optimize callback (none,
//      or an SGD update over the blocks), every trainer gets every
//      parameter block (pull, one batch), fetch_barrier. After warm-up
//      rounds, the median round time t gives
//
//        push+pull GB/s per server core = 2 * W * T / t / 1e9 / 1
//
//      (one server, one core: the server's loop is one thread). Each
//      configuration runs over both transports: the server copying the
//      payloads from and into its trainers' memory (same-host copies,
//      the default between processes of one host), and Gloo's TCP pairs.
//
// It prints one line per configuration with the round's breakdown on
// trainer 0 (push, send_barrier, pull, fetch_barrier), the CPU the server
// and trainer 0 used during the timed rounds (cores busy, and the share in
// the kernel), and the other processes' load on the machine; then the
// ratio of the best configuration to the triad, against the target 0.5,
// and what bounds it.
//
// Every wait is bounded: the clients' and the server's own timeouts, and
// --timeout on each configuration, after which its processes are killed
// and the run fails. See docs/benchmarks.md, "Parameter servers".
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/Store.h"
#include "distc/PServer/PsClient.h"
#include "distc/PServer/PsServer.h"
#include "distc/PServer/PsWorld.h"
#include "distc/Runtime/HostMemory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/uio.h>
#endif

using namespace distc;
using namespace distc::pserver;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char *kToken = "distc-bench-ps-throughput";
constexpr double kMiB = 1024.0 * 1024.0;

struct Options {
  double totalMiB = 64;
  std::vector<double> blockMiB = {1, 4};
  std::vector<int> trainers = {1};
  /// Transports to time: same-host copies, TCP, or both.
  std::vector<bool> copies = {true, false};
  std::string optimize = "none";
  int warmup = 3;
  int rounds = 15;
  double triadMiB = 256;
  int triadReps = 5;
  int timeoutS = 120;
  bool triad = true;
  bool quickTcp = false;
};

void usage(FILE *out) {
  std::fprintf(out,
               "usage: distc-bench-ps-throughput [options]\n"
               "  Push+pull throughput of one parameter server (DistcPServer on 127.0.0.1)\n"
               "  against the STREAM triad bandwidth of one core.\n"
               "  --total-mib T        parameter bytes the server holds, in MiB (default 64)\n"
               "  --block-mib B[,B..]  block sizes to time, in MiB (default 1,4)\n"
               "  --trainers W[,W..]   trainer counts to time (default 1)\n"
               "  --transport T[,T..]  copies (the server copies payloads from and into its\n"
               "                       trainers' memory) and/or tcp (Gloo's pairs); default both\n"
               "  --optimize none|sgd  the server's optimize callback: nothing, or\n"
               "                       p -= 0.01 * mean of the trainers' gradients (default none)\n"
               "  --warmup N           rounds before timing (default 3)\n"
               "  --rounds N           timed rounds; their median counts (default 15)\n"
               "  --triad-mib M        size of each of the triad's 3 arrays (default 256)\n"
               "  --triad-reps N       triad repetitions, best counts (default 5)\n"
               "  --no-triad           skip the memory and loopback TCP bandwidths (no ratio)\n"
               "  --timeout S          bound on each configuration, in seconds (default 120)\n"
               "  --quick              --total-mib 16 --block-mib 1 --rounds 5 --triad-reps 3\n");
}

template <typename T> bool parseList(const char *text, std::vector<T> &out) {
  out.clear();
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::istringstream one(item);
    T v{};
    if (!(one >> v) || !one.eof() || !(v > T(0)))
      return false;
    out.push_back(v);
  }
  return !out.empty();
}

bool parseArgs(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "distc-bench-ps-throughput: error: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto positive = [&](const char *text, double &out) {
      char *end = nullptr;
      out = std::strtod(text, &end);
      return end && *end == 0 && out > 0;
    };
    double d = 0;
    bool ok = true;
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--total-mib") {
      ok = positive(value(), o.totalMiB);
    } else if (a == "--block-mib") {
      ok = parseList(value(), o.blockMiB);
    } else if (a == "--trainers") {
      ok = parseList(value(), o.trainers);
    } else if (a == "--transport") {
      o.copies.clear();
      std::stringstream in(value());
      std::string item;
      while (ok && std::getline(in, item, ','))
        if (item == "copies" || item == "tcp")
          o.copies.push_back(item == "copies");
        else
          ok = false;
      ok = ok && !o.copies.empty();
    } else if (a == "--optimize") {
      o.optimize = value();
      ok = o.optimize == "none" || o.optimize == "sgd";
    } else if (a == "--warmup") {
      ok = positive(value(), d);
      o.warmup = int(d);
    } else if (a == "--rounds") {
      ok = positive(value(), d);
      o.rounds = int(d);
    } else if (a == "--triad-mib") {
      ok = positive(value(), o.triadMiB);
    } else if (a == "--triad-reps") {
      ok = positive(value(), d);
      o.triadReps = int(d);
    } else if (a == "--no-triad") {
      o.triad = false;
    } else if (a == "--timeout") {
      ok = positive(value(), d);
      o.timeoutS = int(d);
    } else if (a == "--quick") {
      o.totalMiB = 16;
      o.blockMiB = {1};
      o.rounds = 5;
      o.triadReps = 3;
      o.quickTcp = true;
    } else {
      std::fprintf(stderr, "distc-bench-ps-throughput: error: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "distc-bench-ps-throughput: error: bad value for %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

double secondsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// --- Memory bandwidth ---------------------------------------------------------

struct Bandwidth {
  double triadGBps = 0, copyGBps = 0;
};

Bandwidth streamBandwidth(const Options &o) {
  size_t n = size_t(o.triadMiB * kMiB / sizeof(double));
  // Not std::vector: its value-initialization is one more pass; the first
  // touch happens here, in the loop that initializes, as STREAM does.
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  const double s = 3.0;
  double bestTriad = 1e30, bestCopy = 1e30;
  for (int r = 0; r < o.triadReps; ++r) {
    double *__restrict pa = a.get();
    const double *__restrict pb = b.get();
    const double *__restrict pc = c.get();
    auto t0 = Clock::now();
    for (size_t i = 0; i < n; ++i)
      pa[i] = pb[i] + s * pc[i];
    auto t1 = Clock::now();
    double *__restrict qc = c.get();
    const double *__restrict qa = a.get();
    for (size_t i = 0; i < n; ++i)
      qc[i] = qa[i];
    auto t2 = Clock::now();
    bestTriad = std::min(bestTriad, secondsBetween(t0, t1));
    bestCopy = std::min(bestCopy, secondsBetween(t1, t2));
  }
  // Use the results, so that no loop is dropped.
  volatile double sink = a[n / 3] + c[n / 2];
  (void)sink;
  Bandwidth bw;
  bw.triadGBps = 3.0 * sizeof(double) * double(n) / bestTriad / 1e9;
  bw.copyGBps = 2.0 * sizeof(double) * double(n) / bestCopy / 1e9;
  return bw;
}

// --- Loopback TCP -----------------------------------------------------------------

/// One TCP stream on 127.0.0.1 between two processes, with nothing of
/// distc: a child writes `mib` MiB in 1 MiB writes, this process reads
/// them into a 1 MiB buffer; best of `reps` in GB/s, or 0. The ceiling the
/// transport puts under a server, which receives or sends every byte
/// through such a stream.
double tcpLoopbackGBps(double mib, int reps, int limitS) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    if (listener >= 0)
      close(listener);
    return 0;
  }
  const size_t chunk = size_t(kMiB), total = size_t(mib * kMiB) / chunk * chunk;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
#if defined(__linux__)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    alarm(unsigned(limitS));
    std::vector<char> buf(chunk, 1);
    for (int r = 0; r < reps; ++r) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      if (fd < 0 || connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
        std::_Exit(1);
      for (size_t sent = 0; sent < total;) {
        ssize_t n = write(fd, buf.data(), std::min(chunk, total - sent));
        if (n <= 0)
          std::_Exit(1);
        sent += size_t(n);
      }
      close(fd);
    }
    std::_Exit(0);
  }
  double best = 0;
  std::vector<char> buf(chunk);
  for (int r = 0; pid > 0 && r < reps; ++r) {
    pollfd one{listener, POLLIN, 0};
    if (poll(&one, 1, limitS * 1000) <= 0)
      break;
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0)
      break;
    size_t got = 0;
    Clock::time_point t0;
    while (got < total) {
      ssize_t n = read(fd, buf.data(), chunk);
      if (n <= 0)
        break;
      if (got == 0)
        t0 = Clock::now();
      got += size_t(n);
    }
    double t = secondsBetween(t0, Clock::now());
    close(fd);
    if (got == total && t > 0)
      best = std::max(best, double(total) / t / 1e9);
  }
  close(listener);
  if (pid > 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  return best;
}

// --- Cross-memory copies ---------------------------------------------------------

struct CrossCopy {
  double readGBps = 0, writeGBps = 0;
};

/// Linux's copies between two processes (process_vm_readv / writev), with
/// nothing of distc but its host memory (HostMemory.h: huge pages): a
/// child holds `mib` MiB of its own memory, this process copies it out and
/// back in 4 MiB calls, best of `reps`. The
/// ceiling same-host copies put under a server, which makes one such copy
/// of every byte (a push reads from the trainer, a pull writes into it).
CrossCopy crossCopyGBps(double mib, int reps, int limitS) {
  CrossCopy out;
#if defined(__linux__)
  const size_t total = size_t(mib * kMiB), chunk = size_t(4 * kMiB);
  int ready[2], done[2];
  if (pipe(ready) != 0)
    return out;
  if (pipe(done) != 0) {
    close(ready[0]);
    close(ready[1]);
    return out;
  }
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(unsigned(limitS));
    std::shared_ptr<uint8_t> theirs = runtime::allocateHostStorage(total);
    char *address = reinterpret_cast<char *>(theirs.get());
    if (write(ready[1], &address, sizeof address) != ssize_t(sizeof address))
      std::_Exit(1);
    char byte;
    (void)!read(done[0], &byte, 1);
    std::_Exit(0);
  }
  char *address = nullptr;
  if (pid > 0 && read(ready[0], &address, sizeof address) == ssize_t(sizeof address)) {
    std::shared_ptr<uint8_t> storage = runtime::allocateHostStorage(total);
    char *mine = reinterpret_cast<char *>(storage.get());
    for (int direction = 0; direction < 2; ++direction) {
      double best = 0;
      for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        size_t moved = 0;
        for (size_t off = 0; off < total; off += chunk) {
          size_t n = std::min(chunk, total - off);
          iovec local{mine + off, n}, remote{address + off, n};
          ssize_t got = direction == 0 ? process_vm_readv(pid, &local, 1, &remote, 1, 0)
                                       : process_vm_writev(pid, &local, 1, &remote, 1, 0);
          if (got != ssize_t(n))
            break;
          moved += n;
        }
        double t = secondsBetween(t0, Clock::now());
        if (moved == total && t > 0)
          best = std::max(best, double(total) / t / 1e9);
      }
      (direction == 0 ? out.readGBps : out.writeGBps) = best;
    }
  }
  if (pid > 0) {
    (void)!write(done[1], "x", 1);
    int status = 0;
    waitpid(pid, &status, 0);
  }
  for (int fd : {ready[0], ready[1], done[0], done[1]})
    close(fd);
#else
  (void)mib;
  (void)reps;
  (void)limitS;
#endif
  return out;
}

// --- Processes ------------------------------------------------------------------

/// CPU seconds of this process (every thread), user and kernel.
struct Cpu {
  double user = 0, sys = 0;
  static Cpu now() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    Cpu c;
    c.user = double(u.ru_utime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec);
    c.sys = double(u.ru_stime.tv_sec) + 1e-6 * double(u.ru_stime.tv_usec);
    return c;
  }
};

/// Busy seconds of the whole machine so far (/proc/stat), or -1.
double machineBusySeconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  std::vector<double> f(8, 0);
  if (!(in >> cpu) || cpu != "cpu")
    return -1;
  for (double &v : f)
    if (!(in >> v))
      return -1;
  double busy = 0;
  for (size_t i = 0; i < f.size(); ++i)
    if (i != 3 && i != 4) // idle, iowait
      busy += f[i];
  return busy / double(sysconf(_SC_CLK_TCK));
}

struct Child {
  pid_t pid = -1;
  int fd = -1; // the read end of its report pipe
  std::string report;
  int status = 0;
  bool done = false;
  double cpuSeconds = 0;
};

/// Forks a child that runs body(writeFd) and exits with its result; it
/// dies with the parent and, at the latest, after `limitS` seconds.
Child spawn(int limitS, const std::function<int(int)> &body) {
  int p[2];
  Child c;
  if (pipe(p) != 0)
    return c;
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
#if defined(__linux__)
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    alarm(unsigned(limitS) + 5);
    int rc = body(p[1]);
    close(p[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(rc);
  }
  close(p[1]);
  c.pid = pid;
  c.fd = pid > 0 ? p[0] : -1;
  if (pid < 0)
    close(p[0]);
  return c;
}

void writeAll(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    off += size_t(n);
  }
}

/// Reads whatever the children report and reaps them, until all have
/// exited or `deadline`; then kills those left. False on the deadline.
bool collect(std::vector<Child> &children, Clock::time_point deadline) {
  for (;;) {
    std::vector<pollfd> fds;
    for (Child &c : children)
      if (c.fd >= 0)
        fds.push_back({c.fd, POLLIN, 0});
    if (!fds.empty())
      poll(fds.data(), fds.size(), 20);
    else
      usleep(20000);
    for (Child &c : children) {
      if (c.fd < 0)
        continue;
      pollfd one{c.fd, POLLIN, 0};
      if (poll(&one, 1, 0) > 0) {
        char buf[4096];
        ssize_t n = read(c.fd, buf, sizeof buf);
        if (n > 0) {
          c.report.append(buf, size_t(n));
        } else if (n == 0 || errno != EINTR) {
          close(c.fd);
          c.fd = -1;
        }
      }
    }
    bool all = true;
    for (Child &c : children) {
      if (c.done)
        continue;
      rusage u{};
      pid_t r = wait4(c.pid, &c.status, WNOHANG, &u);
      if (r == c.pid) {
        c.done = true;
        c.cpuSeconds = double(u.ru_utime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec) +
                       double(u.ru_stime.tv_sec) + 1e-6 * double(u.ru_stime.tv_usec);
      } else {
        all = false;
      }
    }
    bool drained = true;
    for (Child &c : children)
      drained = drained && c.fd < 0;
    if (all && drained)
      return true;
    if (Clock::now() > deadline) {
      for (Child &c : children)
        if (!c.done) {
          kill(c.pid, SIGKILL);
          waitpid(c.pid, &c.status, 0);
          c.done = true;
        }
      for (Child &c : children)
        if (c.fd >= 0) {
          close(c.fd);
          c.fd = -1;
        }
      return false;
    }
  }
}

std::string exitText(int status) {
  if (WIFEXITED(status))
    return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status));
  return "stopped";
}

/// "key=value key=value" into a map.
std::map<std::string, double> fields(const std::string &line) {
  std::map<std::string, double> out;
  std::istringstream in(line);
  std::string kv;
  while (in >> kv) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos)
      out[kv.substr(0, eq)] = std::atof(kv.c_str() + eq + 1);
  }
  return out;
}

// --- One configuration ------------------------------------------------------------

/// `n` floats of `value` in the memory the runtime gives its tensors
/// (HostMemory.h: huge pages for large buffers), as a job's variables are.
class Floats {
public:
  Floats(size_t n, float value) : storage_(runtime::allocateHostStorage(n * sizeof(float))) {
    std::fill(data(), data() + n, value);
  }
  float *data() { return reinterpret_cast<float *>(storage_.get()); }

private:
  std::shared_ptr<uint8_t> storage_;
};

struct Config {
  int trainers = 1;
  bool copies = true;
  size_t totalBytes = 0;
  size_t blockBytes = 0;
};

/// The blocks' sizes: total cut into blockBytes, the last holds the rest.
std::vector<size_t> blocksOf(const Config &c) {
  std::vector<size_t> sizes;
  for (size_t off = 0; off < c.totalBytes; off += c.blockBytes)
    sizes.push_back(std::min(c.blockBytes, c.totalBytes - off));
  return sizes;
}

std::unique_ptr<PsWorld> join(int port, PsRole role, int index, const Config &c,
                              std::chrono::milliseconds timeout, std::string &error) {
  comm::StoreOptions so;
  so.host = "127.0.0.1";
  so.port = port;
  so.rank = role == PsRole::Trainer ? index : c.trainers + index;
  so.timeout = timeout;
  so.token = kToken;
  std::shared_ptr<comm::Store> store = comm::Store::connect(so, error);
  if (!store)
    return nullptr;
  PsWorldOptions wo;
  wo.host = "127.0.0.1";
  wo.connectTimeout = timeout;
  wo.timeout = timeout;
  wo.sameHostCopies = c.copies;
  return PsWorld::connect(role, index, c.trainers, 1, std::move(store), wo, error);
}

int runServer(int port, const Config &c, const Options &o, int fd) {
  const std::chrono::milliseconds timeout = std::chrono::seconds(o.timeoutS);
  std::string error;
  auto world = join(port, PsRole::Server, 0, c, timeout, error);
  if (!world) {
    writeAll(fd, "error " + error + "\n");
    return 1;
  }
  std::vector<size_t> sizes = blocksOf(c);
  const size_t n = c.totalBytes / sizeof(float);
  Floats params(n, 0.5f);
  std::vector<Floats> grads;
  for (int t = 0; t < c.trainers; ++t)
    grads.emplace_back(n, 0.0f);
  PsServer server(*world, {true, timeout});
  size_t off = 0;
  for (size_t b = 0; b < sizes.size(); ++b) {
    std::string name = "w.block" + std::to_string(b);
    char *p = reinterpret_cast<char *>(params.data()) + off;
    Status s = server.addServable(name, p, sizes[b]);
    for (int t = 0; s.ok() && t < c.trainers; ++t)
      s = server.addReceivable("w@GRAD.block" + std::to_string(b) + ".trainer_" +
                                   std::to_string(t),
                               t, reinterpret_cast<char *>(grads[size_t(t)].data()) + off,
                               sizes[b]);
    if (!s.ok()) {
      writeAll(fd, "error " + s.message() + "\n");
      return 1;
    }
    off += sizes[b];
  }
  // Optimize call k ends the send phase of round k (round 0: the startup's
  // get phase has none). The timed rounds are warmup+1 .. warmup+rounds:
  // from call `warmup` to call `warmup + rounds` is `rounds` rounds.
  int calls = 0;
  Cpu cpu0;
  Clock::time_point t0;
  double cpuUser = 0, cpuSys = 0, wall = 0, optimizeSeconds = 0;
  const bool sgd = o.optimize == "sgd";
  const float scale = 0.01f / float(c.trainers);
  server.setOptimize([&]() -> Status {
    ++calls;
    auto start = Clock::now();
    if (calls == o.warmup) {
      cpu0 = Cpu::now();
      t0 = start;
    } else if (calls == o.warmup + o.rounds) {
      Cpu cpu1 = Cpu::now();
      cpuUser = cpu1.user - cpu0.user;
      cpuSys = cpu1.sys - cpu0.sys;
      wall = secondsBetween(t0, start);
    }
    if (sgd) {
      float *__restrict p = params.data();
      for (int t = 0; t < c.trainers; ++t) {
        const float *__restrict g = grads[size_t(t)].data();
        for (size_t i = 0; i < n; ++i)
          p[i] -= scale * g[i];
      }
    }
    if (calls > o.warmup && calls <= o.warmup + o.rounds)
      optimizeSeconds += secondsBetween(start, Clock::now());
    return Status::success();
  });
  Status s = server.serve();
  if (!s.ok()) {
    writeAll(fd, "error " + s.message() + "\n");
    return 1;
  }
  std::ostringstream out;
  out << "server user=" << cpuUser << " sys=" << cpuSys << " wall=" << wall
      << " optimize=" << optimizeSeconds / o.rounds << " rounds=" << server.stats().rounds
      << " copied=" << double(server.stats().copiedBytes) << "\n";
  writeAll(fd, out.str());
  return 0;
}

int runTrainer(int port, int index, const Config &c, const Options &o, int fd) {
  const std::chrono::milliseconds timeout = std::chrono::seconds(o.timeoutS);
  std::string error;
  auto world = join(port, PsRole::Trainer, index, c, timeout, error);
  if (!world) {
    writeAll(fd, "error " + error + "\n");
    return 1;
  }
  std::vector<size_t> sizes = blocksOf(c);
  const size_t n = c.totalBytes / sizeof(float);
  Floats params(n, 0.0f), grads(n, 1.0f / float(index + 1));
  std::vector<PsRequest> push, pull;
  size_t off = 0;
  for (size_t b = 0; b < sizes.size(); ++b) {
    push.push_back(PsRequest::send(0,
                                   "w@GRAD.block" + std::to_string(b) + ".trainer_" +
                                       std::to_string(index),
                                   reinterpret_cast<char *>(grads.data()) + off, sizes[b]));
    pull.push_back(PsRequest::get(0, "w.block" + std::to_string(b),
                                  reinterpret_cast<char *>(params.data()) + off, sizes[b]));
    off += sizes[b];
  }
  PsClient client(*world, {timeout});
  auto fail = [&](const Status &s) {
    writeAll(fd, "error " + s.message() + "\n");
    (void)client.complete();
    return 1;
  };
  // Startup: the initial parameters.
  if (Status s = client.run(pull); !s.ok())
    return fail(s);
  if (Status s = client.fetchBarrier(); !s.ok())
    return fail(s);
  std::vector<double> round, tPush, tSendBarrier, tPull, tFetchBarrier;
  Cpu cpu0, cpu1;
  for (int r = 1; r <= o.warmup + o.rounds; ++r) {
    if (r == o.warmup + 1)
      cpu0 = Cpu::now();
    auto t0 = Clock::now();
    if (Status s = client.run(push); !s.ok())
      return fail(s);
    auto t1 = Clock::now();
    if (Status s = client.sendBarrier(); !s.ok())
      return fail(s);
    auto t2 = Clock::now();
    if (Status s = client.run(pull); !s.ok())
      return fail(s);
    auto t3 = Clock::now();
    if (Status s = client.fetchBarrier(); !s.ok())
      return fail(s);
    auto t4 = Clock::now();
    if (r > o.warmup) {
      round.push_back(secondsBetween(t0, t4));
      tPush.push_back(secondsBetween(t0, t1));
      tSendBarrier.push_back(secondsBetween(t1, t2));
      tPull.push_back(secondsBetween(t2, t3));
      tFetchBarrier.push_back(secondsBetween(t3, t4));
    }
  }
  cpu1 = Cpu::now();
  double wall = 0;
  for (double t : round)
    wall += t;
  if (Status s = client.complete(); !s.ok())
    return fail(s);
  // The server's updates reached us: with SGD the parameters moved.
  std::ostringstream out;
  out << "trainer" << index << " round=" << median(round) << " push=" << median(tPush)
      << " send_barrier=" << median(tSendBarrier) << " pull=" << median(tPull)
      << " fetch_barrier=" << median(tFetchBarrier) << " min=" << *std::min_element(round.begin(), round.end())
      << " max=" << *std::max_element(round.begin(), round.end()) << " user=" << cpu1.user - cpu0.user
      << " sys=" << cpu1.sys - cpu0.sys << " wall=" << wall << " p0=" << params.data()[0] << "\n";
  writeAll(fd, out.str());
  return 0;
}

int runStore(int trainers, int limitS, int fd) {
  std::string error;
  auto server = comm::StoreServer::start("127.0.0.1", 0, kToken, error);
  if (!server) {
    writeAll(fd, "error " + error + "\n");
    return 1;
  }
  writeAll(fd, "port=" + std::to_string(server->port()) + "\n");
  std::vector<int> ranks;
  for (int r = 0; r < trainers + 1; ++r)
    ranks.push_back(r);
  server->waitForDepartures(ranks, std::chrono::seconds(limitS));
  return 0;
}

struct Result {
  bool ok = false;
  std::string error;
  double gbps = 0;
  std::map<std::string, double> server, trainer0;
  double otherLoad = -1;
};

Result runConfig(const Config &c, const Options &o) {
  Result res;
  const auto deadline = Clock::now() + std::chrono::seconds(o.timeoutS);
  double busy0 = machineBusySeconds();
  auto wall0 = Clock::now();

  std::vector<Child> store = {spawn(o.timeoutS, [&](int fd) {
    return runStore(c.trainers, o.timeoutS, fd);
  })};
  if (store[0].pid < 0) {
    res.error = "cannot fork";
    return res;
  }
  // The store's port, from its first line.
  int port = 0;
  while (port == 0 && Clock::now() < deadline) {
    pollfd one{store[0].fd, POLLIN, 0};
    if (poll(&one, 1, 100) > 0) {
      char buf[256];
      ssize_t n = read(store[0].fd, buf, sizeof buf);
      if (n <= 0)
        break;
      store[0].report.append(buf, size_t(n));
      size_t nl = store[0].report.find('\n');
      if (nl != std::string::npos) {
        auto f = fields(store[0].report.substr(0, nl));
        port = int(f["port"]);
        if (port == 0)
          break;
      }
    }
  }
  if (port == 0) {
    collect(store, Clock::now());
    res.error = "the rendezvous store did not start: " + store[0].report;
    return res;
  }

  std::vector<Child> world;
  world.push_back(spawn(o.timeoutS, [&](int fd) { return runServer(port, c, o, fd); }));
  for (int t = 0; t < c.trainers; ++t)
    world.push_back(spawn(o.timeoutS, [&, t](int fd) { return runTrainer(port, t, c, o, fd); }));
  bool inTime = collect(world, deadline);
  collect(store, inTime ? Clock::now() + std::chrono::seconds(10) : Clock::now());
  double busy1 = machineBusySeconds();
  double wallS = secondsBetween(wall0, Clock::now());

  for (size_t i = 0; i < world.size(); ++i) {
    Child &ch = world[i];
    std::string who = i == 0 ? "server 0" : "trainer " + std::to_string(i - 1);
    size_t e = ch.report.find("error ");
    if (e != std::string::npos) {
      res.error = who + ": " + ch.report.substr(e + 6);
      while (!res.error.empty() && res.error.back() == '\n')
        res.error.pop_back();
      return res;
    }
    if (!WIFEXITED(ch.status) || WEXITSTATUS(ch.status) != 0) {
      res.error = who + " ended with " + exitText(ch.status) +
                  (inTime ? "" : " (killed after --timeout " + std::to_string(o.timeoutS) + " s)");
      return res;
    }
  }
  res.server = fields(world[0].report);
  res.trainer0 = fields(world[1].report);
  double own = 0;
  for (Child &ch : world)
    own += ch.cpuSeconds;
  own += store[0].cpuSeconds;
  if (busy0 >= 0 && busy1 >= 0 && wallS > 0)
    res.otherLoad = std::max(0.0, (busy1 - busy0 - own) / wallS);
  double t = res.trainer0["round"];
  if (t <= 0) {
    res.error = "trainer 0 reported no round time";
    return res;
  }
  res.gbps = 2.0 * c.trainers * double(c.totalBytes) / t / 1e9;
  res.ok = true;
  return res;
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string m = line.substr(colon + 1);
        m.erase(0, m.find_first_not_of(" \t"));
        return m;
      }
    }
  return "unknown";
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parseArgs(argc, argv, o))
    return 2;
  std::signal(SIGPIPE, SIG_IGN);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  std::printf("machine: %ld cores, %s\n", cores, cpuModel().c_str());
  Bandwidth bw;
  double tcpGBps = 0;
  CrossCopy cross;
  if (o.triad) {
    bw = streamBandwidth(o);
    std::printf("memory, 1 thread: STREAM triad %.2f GB/s (3 x %.0f MiB of double, 24 bytes "
                "an element, best of %d); copy %.2f GB/s (16 bytes an element)\n",
                bw.triadGBps, o.triadMiB, o.triadReps, bw.copyGBps);
    tcpGBps = tcpLoopbackGBps(o.quickTcp ? 64 : 256, 3, o.timeoutS);
    std::printf("loopback TCP, one stream between two processes, no distc: %.2f GB/s one way "
                "(1 MiB writes and reads, best of 3)\n",
                tcpGBps);
    cross = crossCopyGBps(o.quickTcp ? 64 : 256, 3, o.timeoutS);
    std::printf("cross-memory copies between two processes, no distc: read %.2f GB/s, write "
                "%.2f GB/s (process_vm_readv / writev in 4 MiB calls, best of 3)\n",
                cross.readGBps, cross.writeGBps);
  }
  std::printf("parameter server on 127.0.0.1: 1 server, %.0f MiB of parameters, optimize %s, "
              "%d warm-up + %d timed rounds (median)\n",
              o.totalMiB, o.optimize.c_str(), o.warmup, o.rounds);
  std::fflush(stdout);

  int failures = 0;
  double best = 0, bestTcp = 0, bestCopies = 0;
  Result bestResult;
  int bestTrainers = 0;
  bool bestIsCopies = false;
  for (bool copies : o.copies)
  for (int w : o.trainers) {
    for (double b : o.blockMiB) {
      Config c;
      c.copies = copies;
      c.trainers = w;
      c.totalBytes = size_t(o.totalMiB * kMiB) / 4 * 4;
      c.blockBytes = std::max<size_t>(4, size_t(b * kMiB) / 4 * 4);
      size_t blocks = blocksOf(c).size();
      const char *transport = copies ? "copies" : "tcp";
      Result r = runConfig(c, o);
      if (!r.ok) {
        std::printf("ps 1 server x %d trainer(s), %zu blocks of %g MiB, %s: FAILED: %s\n", w,
                    blocks, b, transport, r.error.c_str());
        ++failures;
        continue;
      }
      auto &s = r.server;
      auto &t = r.trainer0;
      double sWall = s["wall"] > 0 ? s["wall"] : 1;
      double tWall = t["wall"] > 0 ? t["wall"] : 1;
      double sCores = (s["user"] + s["sys"]) / sWall;
      double tCores = (t["user"] + t["sys"]) / tWall;
      double sSys = s["user"] + s["sys"] > 0 ? s["sys"] / (s["user"] + s["sys"]) : 0;
      double tSys = t["user"] + t["sys"] > 0 ? t["sys"] / (t["user"] + t["sys"]) : 0;
      // Every timed and untimed byte the server moved, against what went
      // through copies: says whether the pairs agreed to copy.
      double moved = 2.0 * w * double(c.totalBytes) * (o.warmup + o.rounds) +
                     double(w) * double(c.totalBytes);
      std::printf("ps 1 server x %d trainer(s), %zu blocks of %g MiB, %s (%.0f%% of the bytes "
                  "copied): push+pull %.2f GB/s per "
                  "server core (round %.2f ms, range %.2f-%.2f; trainer 0: push %.2f, "
                  "send_barrier %.2f, pull %.2f, fetch_barrier %.2f ms; optimize %.2f ms)\n",
                  w, blocks, b, transport, 100 * s["copied"] / moved, r.gbps, 1e3 * t["round"], 1e3 * t["min"], 1e3 * t["max"],
                  1e3 * t["push"], 1e3 * t["send_barrier"], 1e3 * t["pull"],
                  1e3 * t["fetch_barrier"], 1e3 * s["optimize"]);
      std::printf("  cpu during the timed rounds: server %.2f cores (%.0f%% in the kernel), "
                  "trainer 0 %.2f cores (%.0f%% in the kernel); other processes %s cores\n",
                  sCores, 100 * sSys, tCores, 100 * tSys,
                  r.otherLoad < 0 ? "?" : std::to_string(r.otherLoad).substr(0, 4).c_str());
      if (o.triad)
        std::printf("  ratio push_pull_GBps / triad_GBps = %.3f\n", r.gbps / bw.triadGBps);
      std::fflush(stdout);
      (copies ? bestCopies : bestTcp) = std::max(copies ? bestCopies : bestTcp, r.gbps);
      if (r.gbps > best) {
        best = r.gbps;
        bestResult = r;
        bestTrainers = w;
        bestIsCopies = copies;
      }
    }
  }
  if (best > 0 && o.triad) {
    auto &s = bestResult.server;
    auto &t = bestResult.trainer0;
    double sCores = s["wall"] > 0 ? (s["user"] + s["sys"]) / s["wall"] : 0;
    double tCores = t["wall"] > 0 ? (t["user"] + t["sys"]) / t["wall"] : 0;
    double ratio = best / bw.triadGBps;
    std::string bound;
    if (bestResult.otherLoad > 0.5)
      bound = "other processes took " + std::to_string(bestResult.otherLoad).substr(0, 4) +
              " cores: the numbers understate an idle machine; ";
    if (sCores >= 0.85 && sCores >= tCores)
      bound += "the server's core (busy " + std::to_string(sCores).substr(0, 4) +
               " cores, mostly " +
               (s["sys"] > s["user"] ? (bestIsCopies ? "kernel: the copies between processes"
                                                   : "kernel: loopback TCP copies")
                                     : "user") +
               ")";
    else if (tCores >= 0.85)
      bound += "the trainer's core (busy " + std::to_string(tCores).substr(0, 4) +
               " cores; the server waits for it)";
    else if (long(bestTrainers) + 1 > cores)
      bound += "the cores: " + std::to_string(bestTrainers + 1) + " processes on " +
               std::to_string(cores) + " cores";
    else
      bound += "waiting, not a core (server " + std::to_string(sCores).substr(0, 4) +
               " cores, trainer " + std::to_string(tCores).substr(0, 4) +
               "): round trips between requests";
    std::printf("push_pull_GBps / triad_GBps = %.2f / %.2f = %.3f (target >= 0.5: %s), over "
                "%s; bound by %s\n",
                best, bw.triadGBps, ratio, ratio >= 0.5 ? "met" : "NOT met",
                bestIsCopies ? "same-host copies" : "TCP", bound.c_str());
    // A push copies out of the trainer, a pull into it: the server's
    // ceiling is the harmonic mean of the two rates.
    if (bestCopies > 0 && cross.readGBps > 0 && cross.writeGBps > 0) {
      double ceiling = 2.0 / (1.0 / cross.readGBps + 1.0 / cross.writeGBps);
      std::printf("over same-host copies: the copies' ceiling (one read and one write of every "
                  "byte) is %.2f GB/s = %.3f of the triad; the server reached %.3f of it\n",
                  ceiling, ceiling / bw.triadGBps, bestCopies / ceiling);
    }
    if (bestTcp > 0)
      std::printf("over TCP: push_pull_GBps / triad_GBps = %.2f / %.2f = %.3f; / loopback TCP "
                  "GBps = %.2f / %.2f = %.3f (the transport's ceiling: the server receives the "
                  "pushes and sends the pulls one after the other, each through such streams)\n",
                  bestTcp, bw.triadGBps, bestTcp / bw.triadGBps, bestTcp, tcpGBps,
                  tcpGBps > 0 ? bestTcp / tcpGBps : 0.0);
  }
  return failures ? 1 : 0;
}
