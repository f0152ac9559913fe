//===- Launcher.cpp - dist-run as the launcher of a data-parallel job -----===//
//
// Store keys of the launchers' meeting (several nodes): launch/claim/<k>
// counts the launchers that claimed node rank k; launch/node/<k> is node
// k's JSON facts (address, ranks per node, node count, agreed settings);
// launch/abort holds the first disagreement found; launch/seen/<k> says
// launcher k has reached its verdict; launch/done/<k> says node k's ranks
// have ended. After a failure the launcher reads the ranks' waited-for keys
// (Rendezvous.h).
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"
#include "OutputRelay.h"

#include "distc/Comm/Rendezvous.h"
#include "distc/Comm/RoleMaker.h"
#include "distc/Comm/Store.h"
#include "distc/Support/ToolOutput.h"

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
#include <sstream>
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
  /// 0: the ranks inherit the launcher's DISTC_COLLECTIVE_TIMEOUT, if any.
  milliseconds collectiveTimeout{0};
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
  if (job.collectiveTimeout.count() > 0)
    v[comm::kCollectiveTimeoutVariable] = comm::secondsText(job.collectiveTimeout);
  // The node's cores are shared by its ranks unless the user said otherwise.
  if (!std::getenv("DISTC_NUM_THREADS"))
    v["DISTC_NUM_THREADS"] = std::to_string(std::max(1, usableCores() / job.nprocPerNode));
  // The ranks' stderr is the relay's pipe; their progress is for a terminal.
  if (job.liveProgress && !std::getenv("DISTC_PROGRESS"))
    v["DISTC_PROGRESS"] = "terminal";
  // ... and as wide as the launcher's, which they cannot ask.
  if (job.liveProgress)
    if (const int width = terminalWidth(STDERR_FILENO); width > 0)
      v["COLUMNS"] = std::to_string(width);
  return v;
}

/// One process of a parameter-server job: trainer or server `index`.
struct PsProcess {
  bool server = false;
  int index = 0;
};

/// The host of `endpoint` ("host:port"), `localhost` as 127.0.0.1.
std::string endpointHost(const std::string &endpoint) {
  std::string host = endpoint.substr(0, endpoint.rfind(':'));
  return host == "localhost" ? "127.0.0.1" : host;
}

/// The parameter-server processes node `o.nodeRank` runs, given every
/// node's address: its share of the trainers, then the servers whose
/// endpoint's host is its address (a server goes to the first node with
/// that address). On one node, all of them. Fails naming a server that is
/// on no node.
std::vector<PsProcess> psProcessesOfNode(const LaunchOptions &o,
                                         const std::vector<std::string> &addresses,
                                         std::string &error) {
  std::vector<PsProcess> mine;
  const int perNode = o.workerNum / o.nnodes;
  for (int t = o.nodeRank * perNode; t < (o.nodeRank + 1) * perNode; ++t)
    mine.push_back({false, t});
  for (int s = 0; s < o.serverNum; ++s) {
    const std::string host = endpointHost(o.serverEndpoints[size_t(s)]);
    int node = o.nnodes == 1 ? 0 : -1;
    for (int k = 0; k < o.nnodes && node < 0; ++k)
      if (endpointHost(addresses[size_t(k)] + ":0") == host)
        node = k;
    if (node < 0) {
      std::string list;
      for (const std::string &a : addresses)
        list += (list.empty() ? "" : ", ") + a;
      error = "server " + std::to_string(s) + " at " + o.serverEndpoints[size_t(s)] +
              " is on none of the nodes (their addresses: " + list +
              "): each server runs on the node whose address is its endpoint's host";
      return {};
    }
    if (node == o.nodeRank)
      mine.push_back({true, s});
  }
  return mine;
}

/// A parameter-server job's process `p`, one of `localCount` on this node,
/// with Paddle's role variables (and the rendezvous's).
std::map<std::string, std::string> parameterServerVariables(const JobLayout &job,
                                                            const LaunchOptions &o, PsProcess p,
                                                            int localCount) {
  std::map<std::string, std::string> v = rankVariables(job, 0);
  for (const char *name : {"PADDLE_TRAINER_ENDPOINTS", "PADDLE_CURRENT_ENDPOINT", "PADDLE_MASTER",
                           "PADDLE_GLOBAL_RANK", "PADDLE_GLOBAL_SIZE", "PADDLE_LOCAL_SIZE",
                           "PADDLE_NNODES", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                           "LOCAL_WORLD_SIZE", "PADDLE_RANK_IN_NODE", "PADDLE_LOCAL_RANK"})
    v.erase(name);
  std::string servers;
  for (const std::string &e : o.serverEndpoints)
    servers += (servers.empty() ? "" : ",") + e;
  v["PADDLE_PSERVERS_IP_PORT_LIST"] = servers;
  v["PADDLE_TRAINERS_NUM"] = std::to_string(o.workerNum);
  const bool server = p.server;
  v["TRAINING_ROLE"] = server ? "PSERVER" : "TRAINER";
  v["PADDLE_TRAINING_ROLE"] = v["TRAINING_ROLE"];
  if (server) {
    const std::string &endpoint = o.serverEndpoints[size_t(p.index)];
    const size_t colon = endpoint.rfind(':');
    v["POD_IP"] = endpoint.substr(0, colon);
    v["PADDLE_PORT"] = endpoint.substr(colon + 1);
    v.erase("PADDLE_TRAINER_ID");
  } else {
    v["PADDLE_TRAINER_ID"] = std::to_string(p.index);
    v["POD_IP"] = job.masterAddr;
  }
  // The node's cores are shared by its processes unless the user said otherwise.
  if (!std::getenv("DISTC_NUM_THREADS"))
    v["DISTC_NUM_THREADS"] = std::to_string(std::max(1, usableCores() / std::max(1, localCount)));
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
  /// "rank 1", or in a parameter-server job "trainer 1" / "server 0".
  std::string name;
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
  std::vector<std::pair<std::string, std::string>> settings;
};

nlohmann::json encodeFacts(const NodeFacts &n) {
  nlohmann::json settings = nlohmann::json::array();
  for (const auto &[flag, value] : n.settings)
    settings.push_back({flag, value});
  return {{"address", n.address},
          {"nproc_per_node", n.nprocPerNode},
          {"nnodes", n.nnodes},
          {"settings", settings}};
}

bool decodeFacts(const std::string &text, NodeFacts &n) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("address") || !j["address"].is_string() ||
      !j.value("nproc_per_node", nlohmann::json()).is_number_integer() ||
      !j.value("nnodes", nlohmann::json()).is_number_integer() ||
      !j.value("settings", nlohmann::json()).is_array())
    return false;
  n = {j["address"].get<std::string>(), j["nproc_per_node"].get<int>(), j["nnodes"].get<int>(), {}};
  for (const nlohmann::json &e : j["settings"]) {
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string())
      return false;
    n.settings.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
  }
  return true;
}

/// Empty when node k's facts agree with node 0's (`ref`), else the first
/// difference.
std::string disagreement(int k, const NodeFacts &n, const NodeFacts &ref) {
  const std::string node = "node " + std::to_string(k);
  if (n.nnodes != ref.nnodes)
    return node + " was started with --nnodes " + std::to_string(n.nnodes) + ", node 0 with " +
           std::to_string(ref.nnodes);
  if (n.nprocPerNode != ref.nprocPerNode)
    return node + " was started with --nproc-per-node " + std::to_string(n.nprocPerNode) +
           ", node 0 with " + std::to_string(ref.nprocPerNode);
  auto valueOf = [](const NodeFacts &f, const std::string &flag) -> std::string {
    for (const auto &[name, value] : f.settings)
      if (name == flag)
        return value;
    return "(not given)";
  };
  std::vector<std::string> flags;
  for (const NodeFacts *f : {&ref, &n})
    for (const auto &setting : f->settings)
      if (std::find(flags.begin(), flags.end(), setting.first) == flags.end())
        flags.push_back(setting.first);
  for (const std::string &flag : flags)
    if (valueOf(n, flag) != valueOf(ref, flag))
      return flag + " differs: node 0 has " + valueOf(ref, flag) + ", " + node + " has " +
             valueOf(n, flag);
  return "";
}

/// Every node's facts, in node order, once all launchers have come. Each
/// node is compared with node 0 as soon as both are there, and the first
/// disagreement goes to launch/abort, so every node fails at once with the
/// same line instead of waiting for nodes that will never come.
bool meetNodes(comm::Store &store, const LaunchOptions &o, std::vector<NodeFacts> &nodes,
               std::string &error) {
  const std::string where = hostPort(o.masterAddr, o.masterPort);
  const Clock::time_point deadline = Clock::now() + o.connectTimeout;
  auto left = [&] {
    return std::max(milliseconds(1),
                    std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
  };
  auto nodeKey = [](int k) { return "launch/node/" + std::to_string(k); };
  const std::string abortKey = "launch/abort";
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
  NodeFacts mine{store.localAddress(), o.nprocPerNode, o.nnodes, o.agreedSettings};
  if (auto s = store.set(nodeKey(o.nodeRank), encodeFacts(mine).dump()); !s.ok()) {
    error = s.message();
    return false;
  }
  nodes.assign(size_t(o.nnodes), NodeFacts());
  std::vector<bool> known(size_t(o.nnodes), false);
  // Node 0's facts first: a node whose own facts disagree learns it as soon
  // as node 0 is there, whatever the other nodes do.
  nodes[size_t(o.nodeRank)] = mine;
  known[size_t(o.nodeRank)] = true;
  std::vector<int> waiting;
  for (int k = 0; k < o.nnodes; ++k)
    if (k != o.nodeRank)
      waiting.push_back(k);
  std::vector<int> joined;
  while (error.empty() && !waiting.empty()) {
    std::vector<std::string> keys{abortKey}, present;
    for (int k : (known[0] || o.nodeRank == 0 ? waiting : std::vector<int>{0}))
      keys.push_back(nodeKey(k));
    if (auto s = store.waitAny(keys, left(), present); !s.ok()) {
      error = s.message();
      break;
    }
    if (present.empty()) {
      error = nodeList(waiting) + " did not join the launch at " + where + " within " +
              formatSeconds(o.connectTimeout) + " (--nnodes " + std::to_string(o.nnodes) + ")";
      break;
    }
    if (std::find(present.begin(), present.end(), abortKey) != present.end()) {
      if (auto s = store.get(abortKey, error); !s.ok())
        error = s.message();
      break;
    }
    for (int k = 0; k < o.nnodes && error.empty(); ++k) {
      if (std::find(present.begin(), present.end(), nodeKey(k)) == present.end())
        continue;
      std::string text;
      if (auto s = store.get(nodeKey(k), text); !s.ok())
        error = s.message();
      else if (!decodeFacts(text, nodes[size_t(k)]))
        error = "node " + std::to_string(k) + " published unreadable launch facts";
      known[size_t(k)] = true;
      joined.push_back(k);
      waiting.erase(std::find(waiting.begin(), waiting.end(), k));
    }
    if (error.empty() && known[0])
      for (int k = 1; k < o.nnodes && error.empty(); ++k)
        if (known[size_t(k)])
          error = disagreement(k, nodes[size_t(k)], nodes[0]);
    if (!error.empty())
      (void)store.set(abortKey, error);
  }
  (void)store.set("launch/seen/" + std::to_string(o.nodeRank), "1");
  // Node 0 serves the store: it stays until every launcher that came has
  // read the verdict, so all report the same.
  if (o.nodeRank == 0) {
    std::vector<std::string> seen;
    for (int k : joined)
      if (k != 0)
        seen.push_back("launch/seen/" + std::to_string(k));
    (void)store.wait(seen, error.empty() ? o.connectTimeout : std::min(left(), milliseconds(5000)));
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

// --- A stuck rank ------------------------------------------------------------

/// A rank the others timed out waiting for, and did not time out itself.
struct StuckRank {
  int rank = -1;
  /// One rank that waited for it, how long, and in which collective.
  int waiter = -1;
  int64_t timeoutMs = 0;
  std::string collective;
  /// False when the records pointed elsewhere and a stopped process here
  /// was named instead.
  bool waitedForIt = true;
};

/// Follows the ranks' waited-for records (waitedForKey) from rank `start`,
/// or from any rank that left one, to a rank that left none: the rank the
/// others were waiting for.
std::optional<StuckRank> findStuckRank(comm::Store &store, int worldSize, int start) {
  const std::string prefix = comm::RendezvousOptions().prefix;
  std::vector<std::string> keys, present;
  for (int r = 0; r < worldSize; ++r)
    keys.push_back(comm::waitedForKey(prefix, r));
  if (!store.check(keys, present).ok() || present.empty())
    return std::nullopt;
  std::map<int, StuckRank> waited; // waiter -> what it waited for
  for (int r = 0; r < worldSize; ++r) {
    std::string value;
    if (std::find(present.begin(), present.end(), keys[size_t(r)]) == present.end() ||
        !store.get(keys[size_t(r)], value).ok())
      continue;
    std::istringstream in(value);
    StuckRank s;
    s.waiter = r;
    in >> s.rank >> s.timeoutMs;
    std::getline(in >> std::ws, s.collective);
    if (in.fail() || s.rank < 0 || s.rank >= worldSize)
      continue;
    waited[r] = s;
  }
  if (waited.empty())
    return std::nullopt;
  int at = waited.count(start) ? start : waited.begin()->first;
  StuckRank found = waited[at];
  for (int hops = 0; hops < worldSize && waited.count(found.rank); ++hops)
    found = waited[found.rank];
  return waited.count(found.rank) ? std::nullopt : std::optional<StuckRank>(found);
}

/// The process state letter of /proc/PID/stat ('T': stopped), or 0.
char processState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() ? text[paren + 2] : 0;
}

bool isStopped(const RankProcess &r) {
  const char state = r.running ? processState(r.pid) : 0;
  return state == 'T' || state == 't';
}

/// The rank the others are stuck on, if the ranks' records name one;
/// `here` is its process when it runs on this node. A rank that runs here
/// and is stopped is the cause whatever the records say. A rank the
/// records name that runs here and is not stopped may itself be waiting
/// for another, one collective behind: it gets a second to record that.
std::optional<StuckRank> identifyStuckRank(comm::Store &store, int worldSize, int start,
                                           std::vector<RankProcess> &ranks, RankProcess *&here) {
  here = nullptr;
  const Clock::time_point deadline = Clock::now() + milliseconds(1000);
  std::optional<StuckRank> stuck;
  for (;;) {
    stuck = findStuckRank(store, worldSize, start);
    if (!stuck)
      return std::nullopt;
    for (RankProcess &r : ranks)
      if (isStopped(r) && r.rank != stuck->rank) {
        stuck->rank = r.rank;
        stuck->waitedForIt = false;
        break;
      }
    for (RankProcess &r : ranks)
      if (r.rank == stuck->rank)
        here = &r;
    if (!here || !here->running || isStopped(*here) || Clock::now() >= deadline)
      return stuck;
    std::this_thread::sleep_for(milliseconds(50));
  }
}

/// "rank 1 (pid 42) is stuck: rank 0 timed out after 2 s waiting for it in
/// allreduce #5; the process is stopped (SIGSTOP?)".
std::string describeStuck(const StuckRank &s, const RankProcess *here, int nprocPerNode) {
  std::string who = "rank " + std::to_string(s.rank);
  std::string state;
  if (here) {
    who += " (pid " + std::to_string(here->pid) + ")";
    if (isStopped(*here))
      state = "; the process is stopped (SIGSTOP, or a debugger)";
    else if (here->running)
      state = "; killing it";
  } else {
    who += " (on node " + std::to_string(s.rank / nprocPerNode) + ")";
  }
  return who + " is stuck: rank " + std::to_string(s.waiter) + " timed out after " +
         formatSeconds(milliseconds(s.timeoutMs)) + (s.waitedForIt ? " waiting for it" : "") +
         " in " + s.collective + " (--collective-timeout)" + state;
}

/// Empty when the artifact (if any) is compiled for the job's ranks.
std::string checkArtifactRanks(const LaunchOptions &o) {
  const int ranks = o.artifactRanks;
  if (ranks == 0 || ranks == o.worldSize())
    return "";
  return o.artifactName + " is compiled for " + std::to_string(ranks) +
         (ranks == 1 ? " rank" : " ranks") + " but --nproc-per-node " +
         std::to_string(o.nprocPerNode) + " --nnodes " + std::to_string(o.nnodes) + " starts " +
         std::to_string(o.worldSize()) + "; recompile it with distc " +
         (o.artifactOnMesh ? "--placements and a mesh of " : "--nranks ") +
         std::to_string(o.worldSize()) + (o.artifactOnMesh ? " ranks" : "") +
         (ranks % o.nnodes == 0
              ? " or start " + std::to_string(ranks / o.nnodes) + " per node (--nproc-per-node " +
                    std::to_string(ranks / o.nnodes) + ")"
              : "");
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

  // One node checks the artifact at once; several do once they agree on
  // the layout, so that the node that differs is named on every node.
  if (o.nnodes == 1)
    if (std::string problem = checkArtifactRanks(o); !problem.empty())
      return failLaunch(problem);

  // Node 0 serves the rendezvous store for the launchers and the ranks.
  std::unique_ptr<comm::StoreServer> server;
  if (o.nodeRank == 0) {
    server = comm::StoreServer::start(o.masterAddr, o.masterPort, o.jobToken, error);
    if (!server)
      return failLaunch("--master-addr " + o.masterAddr + " --master-port " +
                        std::to_string(o.masterPort) + ": " + error);
    o.masterPort = server->port();
  }

  JobLayout job;
  job.worldSize = o.worldSize();
  job.nprocPerNode = o.nprocPerNode;
  job.nodeRank = o.nodeRank;
  job.masterAddr = o.masterAddr;
  job.masterPort = o.masterPort;
  job.jobToken = o.jobToken;
  job.collectiveTimeout = o.collectiveTimeout;
  // The launcher's own connection: the nodes meet through it, and after a
  // failure it reads what the ranks recorded there.
  comm::StoreOptions so;
  so.host = o.masterAddr;
  so.port = o.masterPort;
  so.timeout = o.connectTimeout;
  so.token = o.jobToken;
  std::unique_ptr<comm::Store> store = comm::Store::connect(so, error);
  if (!store)
    return failLaunch(error);
  std::vector<NodeFacts> nodes(1, NodeFacts{o.masterAddr, o.nprocPerNode, 1, {}});
  if (o.nnodes > 1 && !meetNodes(*store, o, nodes, error))
    return failLaunch(error);
  if (o.nnodes > 1 && o.serverNum == 0)
    if (std::string problem = checkArtifactRanks(o); !problem.empty())
      return failLaunch(problem);
  for (int k = 0; k < o.nnodes; ++k)
    for (int i = 0; i < o.nprocPerNode; ++i)
      job.endpoints.push_back(hostPort(nodes[size_t(k)].address, o.masterPort + 1 + i));
  // A parameter-server job: which of its processes this node runs.
  std::vector<PsProcess> psProcesses;
  if (o.serverNum > 0) {
    std::vector<std::string> addresses;
    for (const NodeFacts &n : nodes)
      addresses.push_back(n.address);
    psProcesses = psProcessesOfNode(o, addresses, error);
    if (!error.empty())
      return failLaunch(error);
  }
  const int localCount = o.serverNum > 0 ? int(psProcesses.size()) : o.nprocPerNode;

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
  for (int local = 0; local < localCount; ++local) {
    RankProcess r;
    // A parameter-server job's world ranks: trainers, then servers.
    const PsProcess ps = o.serverNum > 0 ? psProcesses[size_t(local)] : PsProcess();
    r.rank = o.serverNum == 0 ? o.nodeRank * o.nprocPerNode + local
             : ps.server      ? o.workerNum + ps.index
                              : ps.index;
    const bool psServer = o.serverNum > 0 && ps.server;
    r.name = psServer           ? "server " + std::to_string(ps.index)
             : o.serverNum > 0 ? "trainer " + std::to_string(ps.index)
                               : "rank " + std::to_string(r.rank);
    if (!o.logDir.empty())
      r.logPath = (std::filesystem::path(o.logDir) /
                   (psServer ? "serverlog." + std::to_string(ps.index)
                             : "workerlog." + std::to_string(r.rank)))
                      .string();
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
    const bool spawned =
        spawnRank(exe, args,
                  composeEnvironment(o.serverNum > 0
                                         ? parameterServerVariables(job, o, ps, localCount)
                                         : rankVariables(job, local)),
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
      note(r.name + ": pid " + std::to_string(r.pid) + ", log " +
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
    // Of ranks that failed between two looks, one killed by a signal is
    // the cause: the others exit when they notice its death.
    for (size_t i : ended)
      if (!succeeded(ranks[i].status) &&
          (!failed || (WIFSIGNALED(ranks[i].status) && !WIFSIGNALED(ranks[*failed].status))))
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
    // The first rank to fail may only have given up waiting for a stuck
    // one; that one is the cause, and it will not exit by itself.
    RankProcess *stuckHere = nullptr;
    std::optional<StuckRank> stuck =
        identifyStuckRank(*store, o.serverNum > 0 ? o.workerNum + o.serverNum : o.worldSize(),
                          f.rank, ranks, stuckHere);
    if (stuck) {
      say("dist-run: error: " + describeStuck(*stuck, stuckHere, o.nprocPerNode));
      if (stuckHere && stuckHere->running)
        kill(stuckHere->pid, SIGKILL);
    } else {
      say("dist-run: error: " + f.name + " (pid " + std::to_string(f.pid) + ") " +
          describeStatus(f.status));
    }
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
      if ((i != *failed || stuck) && &ranks[i] != stuckHere && !succeeded(ranks[i].status))
        note(ranks[i].name + " " + describeStatus(ranks[i].status));
    exitStatus = 1;
  }

  if (o.nnodes > 1) {
    if (o.nodeRank == 0)
      awaitOtherNodes(*store, o);
    else
      (void)store->set("launch/done/" + std::to_string(o.nodeRank), "1");
  }
  return exitStatus;
}

} // namespace distc::launch
