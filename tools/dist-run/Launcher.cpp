//===- Launcher.cpp - dist-run as the launcher of a data-parallel job -----===//
//
// Store keys of the launchers' meeting (several nodes): launch/claim/<k>
// counts the launchers that claimed node rank k; launch/node/<k> is node
// k's JSON facts (address, ranks per node, node count); launch/seen/<k>
// says launcher k has read them all; launch/done/<k> says node k's ranks
// have ended.
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"
#include "OutputRelay.h"

#include "distc/Comm/Store.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace distc::launch {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// While the ranks' output is relayed, the relay is the terminal's only
/// writer and the launcher's own lines go through it.
OutputRelay *activeRelay = nullptr;

/// One line of the launcher's to stderr.
void say(const std::string &line) {
  std::fflush(stdout);
  if (activeRelay)
    activeRelay->message(line);
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

void note(const std::string &message) { say("dist-run: " + message); }

int failLaunch(const std::string &message) {
  say("dist-run: error: " + message);
  return 1;
}

using comm::formatSeconds;
using comm::hostPort;

std::string nodeList(const std::vector<int> &nodes) {
  std::string s = nodes.size() == 1 ? "node " : "nodes ";
  for (size_t i = 0; i < nodes.size(); ++i)
    s += (i ? ", " : "") + std::to_string(nodes[i]);
  return s;
}

// --- Signals ---------------------------------------------------------------

volatile std::sig_atomic_t interruptSignal = 0;

void onInterrupt(int signal) { interruptSignal = signal; }

/// Catches SIGINT and SIGTERM for the launcher's lifetime, to pass them on.
class InterruptHandlers {
public:
  InterruptHandlers() {
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &oldInt_);
    sigaction(SIGTERM, &sa, &oldTerm_);
  }
  ~InterruptHandlers() {
    sigaction(SIGINT, &oldInt_, nullptr);
    sigaction(SIGTERM, &oldTerm_, nullptr);
  }

private:
  struct sigaction oldInt_ {
  }, oldTerm_{};
};

// --- The ranks' environment --------------------------------------------------

/// Facts every rank's environment is made from.
struct JobLayout {
  int worldSize = 1;
  int nprocPerNode = 1;
  int nodeRank = 0;
  std::string masterAddr;
  int masterPort = 0;
  std::string jobToken;
  /// The ranks' output is relayed to a terminal (OutputRelay.h).
  bool liveProgress = false;
  /// "host:port" per rank (identifiers in Paddle's style: the transport
  /// chooses its own ports).
  std::vector<std::string> endpoints;
};

int usableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::map<std::string, std::string> rankVariables(const JobLayout &job, int localRank) {
  const int rank = job.nodeRank * job.nprocPerNode + localRank;
  std::string endpoints;
  for (const std::string &e : job.endpoints)
    endpoints += (endpoints.empty() ? "" : ",") + e;
  const std::string master = hostPort(job.masterAddr, job.masterPort);
  std::map<std::string, std::string> v = {
      {"PADDLE_TRAINER_ID", std::to_string(rank)},
      {"PADDLE_TRAINERS_NUM", std::to_string(job.worldSize)},
      {"PADDLE_TRAINER_ENDPOINTS", endpoints},
      {"PADDLE_CURRENT_ENDPOINT", job.endpoints[size_t(rank)]},
      {"PADDLE_RANK_IN_NODE", std::to_string(localRank)},
      {"PADDLE_LOCAL_RANK", std::to_string(localRank)},
      {"PADDLE_MASTER", master},
      {"PADDLE_GLOBAL_RANK", std::to_string(rank)},
      {"PADDLE_GLOBAL_SIZE", std::to_string(job.worldSize)},
      {"PADDLE_LOCAL_SIZE", std::to_string(job.nprocPerNode)},
      {"PADDLE_NNODES", std::to_string(job.worldSize / job.nprocPerNode)},
      {"PADDLE_TRAINING_ROLE", "TRAINER"},
      {"PADDLE_DISTRI_BACKEND", "gloo"},
      {"RANK", std::to_string(rank)},
      {"WORLD_SIZE", std::to_string(job.worldSize)},
      {"LOCAL_RANK", std::to_string(localRank)},
      {"LOCAL_WORLD_SIZE", std::to_string(job.nprocPerNode)},
      {"MASTER_ADDR", job.masterAddr},
      {"MASTER_PORT", std::to_string(job.masterPort)},
      {"DISTC_JOB_TOKEN", job.jobToken},
      {"DISTC_LAUNCHER", "dist-run"},
  };
  // The node's cores are shared by its ranks unless the user said otherwise.
  if (!std::getenv("DISTC_NUM_THREADS"))
    v["DISTC_NUM_THREADS"] = std::to_string(std::max(1, usableCores() / job.nprocPerNode));
  // The ranks' stderr is the relay's pipe; their progress is for a terminal.
  if (job.liveProgress && !std::getenv("DISTC_PROGRESS"))
    v["DISTC_PROGRESS"] = "terminal";
  return v;
}

/// The launcher's environment with `overrides` applied, as "NAME=value".
std::vector<std::string> composeEnvironment(const std::map<std::string, std::string> &overrides) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (!overrides.count(name))
      env.push_back(std::move(entry));
  }
  for (const auto &[name, value] : overrides)
    env.push_back(name + "=" + value);
  return env;
}

// --- Starting and watching the ranks ----------------------------------------

struct RankProcess {
  int rank = 0;
  pid_t pid = -1;
  std::string logPath;
  bool running = false;
  int status = 0;
};

/// `name` when it holds a '/', else the first executable `name` in PATH.
std::string findProgram(const std::string &name, std::string &error) {
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) != 0) {
      error = name + ": cannot execute: " + std::strerror(errno);
      return "";
    }
    return name;
  }
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  error = name + ": not found in PATH";
  return "";
}

} // namespace

std::string selfExecutable(std::string &error) {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) {
    error = std::string("cannot find this executable (/proc/self/exe): ") + std::strerror(errno);
    return "";
  }
  return std::string(buffer, size_t(n));
}

namespace {

/// Forks and executes `exe` with `args` and `env`; output to `logPath`
/// when not empty, else to `outFd` and `errFd` when not -1 (the relay's
/// pipes). Only async-signal-safe calls happen after fork().
bool spawnRank(const std::string &exe, const std::vector<std::string> &args,
               const std::vector<std::string> &env, const std::string &logPath, int outFd,
               int errFd, pid_t &pid, std::string &error) {
  std::vector<char *> argv, envp;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string &e : env)
    envp.push_back(const_cast<char *>(e.c_str()));
  envp.push_back(nullptr);
  int logFd = -1;
  if (!logPath.empty()) {
    logFd = open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logFd < 0) {
      error = logPath + ": cannot create: " + std::strerror(errno);
      return false;
    }
  }
  const pid_t parent = getpid();
  std::fflush(nullptr);
  pid = fork();
  if (pid < 0) {
    error = std::string("cannot start a rank: fork: ") + std::strerror(errno);
    if (logFd >= 0)
      close(logFd);
    return false;
  }
  if (pid == 0) {
    // The rank dies with the launcher, even if the launcher is SIGKILLed.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      _exit(127);
    // Reset the signal dispositions the launcher changed.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    int devNull = open("/dev/null", O_RDONLY);
    if (devNull >= 0)
      dup2(devNull, STDIN_FILENO);
    if (logFd >= 0) {
      dup2(logFd, STDOUT_FILENO);
      dup2(logFd, STDERR_FILENO);
    } else if (outFd >= 0 && errFd >= 0) {
      dup2(outFd, STDOUT_FILENO);
      dup2(errFd, STDERR_FILENO);
    }
    execve(exe.c_str(), argv.data(), envp.data());
    const char message[] = "dist-run: error: cannot execute this rank's program\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    _exit(127);
  }
  if (logFd >= 0)
    close(logFd);
  return true;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char *name = sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) +
           (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

bool succeeded(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

/// The last `count` non-empty lines of a log, for the failure report.
std::vector<std::string> lastLines(const std::string &path, size_t count) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    lines.push_back(line);
    if (lines.size() > count)
      lines.erase(lines.begin());
  }
  return lines;
}

/// Collects every rank that has ended; true when one did.
bool reap(std::vector<RankProcess> &ranks, std::vector<size_t> &endedInOrder) {
  bool any = false;
  for (size_t i = 0; i < ranks.size(); ++i) {
    RankProcess &r = ranks[i];
    if (!r.running)
      continue;
    int status = 0;
    pid_t got = waitpid(r.pid, &status, WNOHANG);
    if (got == r.pid) {
      r.running = false;
      r.status = status;
      endedInOrder.push_back(i);
      any = true;
    }
  }
  return any;
}

size_t countRunning(const std::vector<RankProcess> &ranks) {
  return size_t(
      std::count_if(ranks.begin(), ranks.end(), [](const RankProcess &r) { return r.running; }));
}

void signalRunning(const std::vector<RankProcess> &ranks, int signal) {
  for (const RankProcess &r : ranks)
    if (r.running)
      kill(r.pid, signal);
}

/// Waits until every rank has ended or `bound` has passed.
void waitForRanks(std::vector<RankProcess> &ranks, std::vector<size_t> &ended, milliseconds bound) {
  const Clock::time_point deadline = Clock::now() + bound;
  while (countRunning(ranks) > 0 && Clock::now() < deadline) {
    reap(ranks, ended);
    if (countRunning(ranks) > 0)
      std::this_thread::sleep_for(milliseconds(10));
  }
}

/// After a failure or an interrupt: the grace period, SIGTERM, SIGKILL.
void stopRanks(std::vector<RankProcess> &ranks, std::vector<size_t> &ended, milliseconds grace) {
  waitForRanks(ranks, ended, grace);
  if (countRunning(ranks) == 0)
    return;
  signalRunning(ranks, SIGTERM);
  waitForRanks(ranks, ended, milliseconds(3000));
  if (countRunning(ranks) == 0)
    return;
  signalRunning(ranks, SIGKILL);
  waitForRanks(ranks, ended, milliseconds(60000));
}

// --- Several nodes: the launchers' meeting -----------------------------------

struct NodeFacts {
  std::string address;
  int nprocPerNode = 0;
  int nnodes = 0;
};

/// Every node's facts, in node order, once all launchers have come; the
/// same verdict on every node when they disagree.
bool meetNodes(comm::Store &store, const LaunchOptions &o, std::vector<NodeFacts> &nodes,
               std::string &error) {
  const std::string where = hostPort(o.masterAddr, o.masterPort);
  int64_t claims = 0;
  if (auto s = store.add("launch/claim/" + std::to_string(o.nodeRank), 1, claims); !s.ok()) {
    error = s.message();
    return false;
  }
  if (claims > 1) {
    error = "node rank " + std::to_string(o.nodeRank) +
            " was started twice: another launcher already joined as --node-rank " +
            std::to_string(o.nodeRank);
    return false;
  }
  nlohmann::json mine = {
      {"address", store.localAddress()}, {"nproc_per_node", o.nprocPerNode}, {"nnodes", o.nnodes}};
  if (auto s = store.set("launch/node/" + std::to_string(o.nodeRank), mine.dump()); !s.ok()) {
    error = s.message();
    return false;
  }
  std::vector<std::string> keys;
  for (int k = 0; k < o.nnodes; ++k)
    keys.push_back("launch/node/" + std::to_string(k));
  if (auto s = store.wait(keys, o.connectTimeout); !s.ok()) {
    std::vector<std::string> present;
    std::vector<int> missing;
    if (store.check(keys, present).ok())
      for (int k = 0; k < o.nnodes; ++k)
        if (std::find(present.begin(), present.end(), keys[size_t(k)]) == present.end())
          missing.push_back(k);
    error = missing.empty() ? s.message()
                            : nodeList(missing) + " did not join the launch at " + where +
                                  " within " + formatSeconds(o.connectTimeout) + " (--nnodes " +
                                  std::to_string(o.nnodes) + ")";
    return false;
  }
  nodes.assign(size_t(o.nnodes), NodeFacts());
  for (int k = 0; k < o.nnodes; ++k) {
    std::string text;
    if (auto s = store.get(keys[size_t(k)], text); !s.ok()) {
      error = s.message();
      return false;
    }
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("address") || !j["address"].is_string() ||
        !j.value("nproc_per_node", nlohmann::json()).is_number_integer() ||
        !j.value("nnodes", nlohmann::json()).is_number_integer()) {
      error = "node " + std::to_string(k) + " published unreadable launch facts";
      return false;
    }
    nodes[size_t(k)] = {j["address"].get<std::string>(), j["nproc_per_node"].get<int>(),
                        j["nnodes"].get<int>()};
  }
  (void)store.set("launch/seen/" + std::to_string(o.nodeRank), "1");
  for (int k = 1; k < o.nnodes; ++k) {
    const NodeFacts &n = nodes[size_t(k)], &ref = nodes[0];
    if (n.nnodes != ref.nnodes) {
      error = "node " + std::to_string(k) + " was started with --nnodes " +
              std::to_string(n.nnodes) + ", node 0 with " + std::to_string(ref.nnodes);
      break;
    }
    if (n.nprocPerNode != ref.nprocPerNode) {
      error = "node " + std::to_string(k) + " was started with --nproc-per-node " +
              std::to_string(n.nprocPerNode) + ", node 0 with " + std::to_string(ref.nprocPerNode);
      break;
    }
  }
  // Node 0 serves the store: it stays until every launcher has read the
  // facts, so all reach the same verdict.
  if (o.nodeRank == 0) {
    std::vector<std::string> seen;
    for (int k = 1; k < o.nnodes; ++k)
      seen.push_back("launch/seen/" + std::to_string(k));
    (void)store.wait(seen, o.connectTimeout);
  }
  return error.empty();
}

/// Node 0 keeps the store up until the other nodes' ranks have ended
/// (bounded), so their failure reports can still read the departure log.
void awaitOtherNodes(comm::Store &store, const LaunchOptions &o) {
  std::vector<std::string> keys;
  for (int k = 1; k < o.nnodes; ++k)
    keys.push_back("launch/done/" + std::to_string(k));
  if (!store.wait(keys, o.connectTimeout).ok())
    note("not every node reported the end of its ranks within " + formatSeconds(o.connectTimeout) +
         "; closing the rendezvous store");
}

} // namespace

std::string checkLaunchOptions(const LaunchOptions &o) {
  if (o.nprocPerNode < 1)
    return "--nproc-per-node must be at least 1, not " + std::to_string(o.nprocPerNode);
  if (o.nnodes < 1)
    return "--nnodes must be at least 1, not " + std::to_string(o.nnodes);
  if (o.nodeRank < 0 || o.nodeRank >= o.nnodes)
    return "--node-rank " + std::to_string(o.nodeRank) + " is outside [0, " +
           std::to_string(o.nnodes) + ") (--nnodes " + std::to_string(o.nnodes) + ")";
  if (o.masterPort < 0 || o.masterPort > 65535)
    return "--master-port " + std::to_string(o.masterPort) + " is not a port (0-65535)";
  if (o.masterPort == 0 && o.nnodes > 1)
    return "--master-port 0 (any free port) works on one node only; give the port every node "
           "uses";
  if (o.nnodes > 1 && o.jobToken.empty())
    return "--nnodes " + std::to_string(o.nnodes) +
           " needs a job token shared by every node: --job-token TOKEN or DISTC_JOB_TOKEN";
  if (o.masterAddr.empty())
    return "--master-addr must not be empty";
  return "";
}

int runLauncher(const LaunchOptions &options, const std::vector<std::string> &command) {
  if (std::string problem = checkLaunchOptions(options); !problem.empty())
    return failLaunch(problem);
  LaunchOptions o = options;
  if (o.jobToken.empty())
    o.jobToken = comm::generateJobToken();
  std::string error;
  if (command.empty())
    return failLaunch("nothing to launch");
  const std::string exe = findProgram(command[0], error);
  if (exe.empty())
    return failLaunch(error);
  if (!o.logDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.logDir, ec);
    if (ec)
      return failLaunch(o.logDir + ": cannot create: " + ec.message());
  }

  // Node 0 serves the rendezvous store for the launchers and the ranks.
  std::unique_ptr<comm::StoreServer> server;
  if (o.nodeRank == 0) {
    server = comm::StoreServer::start(o.masterAddr, o.masterPort, o.jobToken, error);
    if (!server)
      return failLaunch(error);
    o.masterPort = server->port();
  }

  JobLayout job;
  job.worldSize = o.worldSize();
  job.nprocPerNode = o.nprocPerNode;
  job.nodeRank = o.nodeRank;
  job.masterAddr = o.masterAddr;
  job.masterPort = o.masterPort;
  job.jobToken = o.jobToken;
  std::unique_ptr<comm::Store> store;
  std::vector<NodeFacts> nodes(1, NodeFacts{o.masterAddr, o.nprocPerNode, 1});
  if (o.nnodes > 1) {
    comm::StoreOptions so;
    so.host = o.masterAddr;
    so.port = o.masterPort;
    so.timeout = o.connectTimeout;
    so.token = o.jobToken;
    store = comm::Store::connect(so, error);
    if (!store || !meetNodes(*store, o, nodes, error))
      return failLaunch(error);
  }
  for (int k = 0; k < o.nnodes; ++k)
    for (int i = 0; i < o.nprocPerNode; ++i)
      job.endpoints.push_back(hostPort(nodes[size_t(k)].address, o.masterPort + 1 + i));

  InterruptHandlers handlers;
  const std::vector<std::string> &args = command;
  std::vector<RankProcess> ranks;
  std::vector<size_t> ended;
  // Rank 0's live progress line on our terminal: the ranks write to pipes
  // we relay (OutputRelay.h) until they have all ended.
  job.liveProgress = o.liveProgress && o.logDir.empty() && isatty(STDERR_FILENO);
  std::unique_ptr<OutputRelay> relay;
  if (job.liveProgress)
    relay = std::make_unique<OutputRelay>(isatty(STDOUT_FILENO) == 1);
  struct StopRelay {
    std::unique_ptr<OutputRelay> &relay;
    ~StopRelay() {
      if (relay)
        relay->stop();
      activeRelay = nullptr;
    }
  } stopRelay{relay};
  for (int local = 0; local < o.nprocPerNode; ++local) {
    RankProcess r;
    r.rank = o.nodeRank * o.nprocPerNode + local;
    if (!o.logDir.empty())
      r.logPath =
          (std::filesystem::path(o.logDir) / ("workerlog." + std::to_string(r.rank))).string();
    // stderr first: of what a rank writes to both at once, the relay takes
    // stderr's first, so the final progress line comes before the summary.
    int outFd = -1, errFd = -1;
    if (relay && ((errFd = relay->addPipe(STDERR_FILENO, r.rank == 0, error)) < 0 ||
                  (outFd = relay->addPipe(STDOUT_FILENO, false, error)) < 0)) {
      if (errFd >= 0)
        close(errFd);
      stopRanks(ranks, ended, milliseconds(0));
      return failLaunch(error);
    }
    const bool spawned = spawnRank(exe, args, composeEnvironment(rankVariables(job, local)),
                                   r.logPath, outFd, errFd, r.pid, error);
    for (int fd : {outFd, errFd})
      if (fd >= 0)
        close(fd);
    if (!spawned) {
      stopRanks(ranks, ended, milliseconds(0));
      return failLaunch(error);
    }
    r.running = true;
    ranks.push_back(r);
    if (!o.logDir.empty())
      note("rank " + std::to_string(r.rank) + ": pid " + std::to_string(r.pid) + ", log " +
           r.logPath);
  }

  if (relay) {
    relay->start();
    activeRelay = relay.get();
  }

  // Watch until every rank has ended, one has failed, or we are interrupted.
  std::optional<size_t> failed;
  while (countRunning(ranks) > 0 && !failed && !interruptSignal) {
    if (!reap(ranks, ended))
      std::this_thread::sleep_for(milliseconds(10));
    for (size_t i : ended)
      if (!succeeded(ranks[i].status) && !failed)
        failed = i;
  }

  int exitStatus = 0;
  if (interruptSignal) {
    const int sig = interruptSignal;
    signalRunning(ranks, sig);
    stopRanks(ranks, ended, o.failureGrace);
    note(std::string("interrupted by SIG") + sigabbrev_np(sig) + "; stopped " +
         std::to_string(ranks.size()) + (ranks.size() == 1 ? " rank" : " ranks"));
    exitStatus = 128 + sig;
  } else if (failed) {
    const RankProcess &f = ranks[*failed];
    say("dist-run: error: rank " + std::to_string(f.rank) + " (pid " + std::to_string(f.pid) +
        ") " + describeStatus(f.status));
    if (!f.logPath.empty()) {
      std::vector<std::string> tail = lastLines(f.logPath, 5);
      if (!tail.empty()) {
        say("dist-run: last lines of " + f.logPath + ":");
        for (const std::string &line : tail)
          say("    " + line);
      }
    }
    stopRanks(ranks, ended, o.failureGrace);
    // The others, in the order they ended.
    for (size_t i : ended)
      if (i != *failed && !succeeded(ranks[i].status))
        note("rank " + std::to_string(ranks[i].rank) + " " + describeStatus(ranks[i].status));
    exitStatus = 1;
  }

  if (store) {
    if (o.nodeRank == 0)
      awaitOtherNodes(*store, o);
    else
      (void)store->set("launch/done/" + std::to_string(o.nodeRank), "1");
  }
  return exitStatus;
}

} // namespace distc::launch
