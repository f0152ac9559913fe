//===- RoleEnv.cpp - Reading the launcher's environment -------------------===//
//
// Paddle's rules (python/paddle/distributed/fleet/base/role_maker.py) in
// collective mode: PADDLE_TRAINER_ID defaults to 0, the worker count is the
// number of PADDLE_TRAINER_ENDPOINTS, and without endpoints the process is
// alone. paddle.distributed.launch also sets PADDLE_TRAINERS_NUM; when
// both are present they must agree. A variable that is set but empty
// counts as unset, as in Paddle's os.getenv(name, default) checks.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/RoleMaker.h"
#include "distc/Comm/Store.h"

#include "Socket.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>

namespace distc::comm {


const char *launchSourceName(LaunchSource source) {
  switch (source) {
  case LaunchSource::None:
    return "none";
  case LaunchSource::Paddle:
    return "paddle";
  case LaunchSource::Torchrun:
    return "torchrun";
  case LaunchSource::OpenMPI:
    return "openmpi";
  case LaunchSource::Slurm:
    return "slurm";
  }
  return "?";
}

std::optional<std::chrono::milliseconds> parseSeconds(const std::string &text) {
  double seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !(seconds > 0 && seconds <= 86400))
    return std::nullopt;
  return std::max(std::chrono::milliseconds(1),
                  std::chrono::milliseconds(int64_t(seconds * 1000 + 0.5)));
}

namespace {

using Getenv = std::function<const char *(const char *)>;

class EnvReader {
public:
  explicit EnvReader(const Getenv &getenv) : getenv_(getenv) {}

  /// The value, or null when unset or empty.
  const char *get(const char *name) const {
    const char *v = getenv_(name);
    return v && *v ? v : nullptr;
  }
  bool has(const char *name) const { return get(name) != nullptr; }

  /// Reads an integer in [lo, hi]; `what` describes the range for messages.
  Status integer(const char *name, int64_t lo, int64_t hi, const std::string &range,
                 int &out) const {
    const char *v = get(name);
    std::string s = v ? v : "";
    int64_t value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size())
      return Status::error(std::string(name) + "='" + s + "' is not an integer");
    if (value < lo || value > hi)
      return Status::error(std::string(name) + "=" + s + " is " + range);
    out = static_cast<int>(value);
    return Status::success();
  }

  /// Reads "host:port" (IPv6 hosts in brackets).
  Status endpoint(const std::string &where, const std::string &value, std::string &host,
                  int &port) const {
    size_t colon = value.rfind(':');
    std::string h = colon == std::string::npos ? "" : value.substr(0, colon);
    std::string p = colon == std::string::npos ? "" : value.substr(colon + 1);
    if (h.size() > 1 && h.front() == '[' && h.back() == ']')
      h = h.substr(1, h.size() - 2);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), n);
    if (h.empty() || ec != std::errc() || end != p.data() + p.size() || n < 1 || n > 65535)
      return Status::error(where + " '" + value + "' is not HOST:PORT");
    host = h;
    port = static_cast<int>(n);
    return Status::success();
  }

private:
  const Getenv &getenv_;
};

std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos)
      comma = s.size();
    std::string item = s.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty())
      out.push_back(item);
    start = comma + 1;
  }
  return out;
}

/// Reads a rank and size pair, e.g. RANK and WORLD_SIZE.
Status rankAndSize(const EnvReader &env, const char *rankName, const char *sizeName, RoleFacts &f) {
  if (!env.has(sizeName))
    return Status::error(std::string(rankName) + " is set but " + sizeName + " is not");
  if (!env.has(rankName))
    return Status::error(std::string(sizeName) + " is set but " + rankName + " is not");
  Status s = env.integer(sizeName, 1, 1 << 24, "not a positive integer", f.workerNum);
  if (s.ok())
    s = env.integer(rankName, 0, f.workerNum - 1,
                    "outside [0, " + std::to_string(f.workerNum) + ") (" + sizeName + "=" +
                        std::to_string(f.workerNum) + ")",
                    f.workerIndex);
  return s;
}

Status readLocalRank(const EnvReader &env, const char *name, RoleFacts &f) {
  if (!env.has(name))
    return Status::success();
  return env.integer(name, 0, 1 << 24, "not a non-negative integer", f.localRank);
}

Status readPaddleServer(const EnvReader &env, RoleFacts &f) {
  f.role = RoleFacts::Role::Server;
  const char *list = env.get("PADDLE_PSERVERS_IP_PORT_LIST");
  if (!list)
    return Status::error("TRAINING_ROLE=PSERVER but PADDLE_PSERVERS_IP_PORT_LIST is not set");
  f.serverEndpoints = splitList(list);
  const char *ip = env.get("POD_IP");
  const char *port = env.get("PADDLE_PORT");
  if (!ip || !port)
    return Status::error(std::string("TRAINING_ROLE=PSERVER but ") +
                         (!ip ? "POD_IP" : "PADDLE_PORT") + " is not set");
  f.currentEndpoint = std::string(ip) + ":" + port;
  auto it = std::find(f.serverEndpoints.begin(), f.serverEndpoints.end(), f.currentEndpoint);
  if (it == f.serverEndpoints.end())
    return Status::error("this server's endpoint POD_IP:PADDLE_PORT=" + f.currentEndpoint +
                         " is not in PADDLE_PSERVERS_IP_PORT_LIST=" + list);
  f.serverIndex = static_cast<int>(it - f.serverEndpoints.begin());
  return Status::success();
}

Status readPaddle(const EnvReader &env, RoleFacts &f) {
  f.source = LaunchSource::Paddle;
  const char *role = env.get("TRAINING_ROLE");
  if (!role)
    role = env.get("PADDLE_TRAINING_ROLE");
  if (role && std::string(role) != "TRAINER" && std::string(role) != "PSERVER")
    return Status::error(
        std::string(env.get("TRAINING_ROLE") ? "TRAINING_ROLE" : "PADDLE_TRAINING_ROLE") + "='" +
        role + "' is not TRAINER or PSERVER");
  if (const char *list = env.get("PADDLE_TRAINER_ENDPOINTS")) {
    f.workerEndpoints = splitList(list);
    for (size_t i = 0; i < f.workerEndpoints.size(); ++i) {
      std::string host;
      int port;
      Status s = env.endpoint("PADDLE_TRAINER_ENDPOINTS entry " + std::to_string(i),
                              f.workerEndpoints[i], host, port);
      if (!s.ok())
        return s;
    }
  }
  int listed = static_cast<int>(f.workerEndpoints.size());
  if (env.has("PADDLE_TRAINERS_NUM")) {
    Status s =
        env.integer("PADDLE_TRAINERS_NUM", 1, 1 << 24, "not a positive integer", f.workerNum);
    if (!s.ok())
      return s;
    if (listed > 0 && listed != f.workerNum)
      return Status::error("PADDLE_TRAINERS_NUM=" + std::to_string(f.workerNum) +
                           " but PADDLE_TRAINER_ENDPOINTS lists " + std::to_string(listed) +
                           " endpoint" + (listed == 1 ? "" : "s"));
  } else if (listed > 0) {
    f.workerNum = listed;
  }
  if (role && std::string(role) == "PSERVER")
    return readPaddleServer(env, f);
  // A trainer of a parameter-server job learns the servers too.
  if (const char *servers = env.get("PADDLE_PSERVERS_IP_PORT_LIST"))
    f.serverEndpoints = splitList(servers);
  if (env.has("PADDLE_TRAINER_ID")) {
    std::string why = env.has("PADDLE_TRAINERS_NUM")
                          ? "PADDLE_TRAINERS_NUM=" + std::to_string(f.workerNum)
                      : listed > 0 ? "PADDLE_TRAINER_ENDPOINTS lists " + std::to_string(listed)
                                   : "no PADDLE_TRAINER_ENDPOINTS: a single trainer";
    Status s = env.integer("PADDLE_TRAINER_ID", 0, f.workerNum - 1,
                           "outside [0, " + std::to_string(f.workerNum) + ") (" + why + ")",
                           f.workerIndex);
    if (!s.ok())
      return s;
  }
  if (const char *current = env.get("PADDLE_CURRENT_ENDPOINT")) {
    std::string host;
    int port;
    Status s = env.endpoint("PADDLE_CURRENT_ENDPOINT", current, host, port);
    if (!s.ok())
      return s;
    f.currentEndpoint = current;
  } else if (f.workerIndex < listed) {
    f.currentEndpoint = f.workerEndpoints[f.workerIndex];
  }
  Status s = readLocalRank(env, "PADDLE_RANK_IN_NODE", f);
  if (s.ok() && !env.has("PADDLE_RANK_IN_NODE"))
    s = readLocalRank(env, "PADDLE_LOCAL_RANK", f);
  if (!s.ok())
    return s;
  if (const char *master = env.get("PADDLE_MASTER"))
    return env.endpoint("PADDLE_MASTER", master, f.masterAddr, f.masterPort);
  if (listed > 0)
    return env.endpoint("PADDLE_TRAINER_ENDPOINTS entry 0", f.workerEndpoints[0], f.masterAddr,
                        f.masterPort);
  return Status::success();
}

} // namespace

Status readRoleFacts(const Getenv &getenv, RoleFacts &out) {
  EnvReader env(getenv);
  RoleFacts f;
  Status s = Status::success();
  if (env.has("PADDLE_TRAINER_ENDPOINTS") || env.has("PADDLE_TRAINERS_NUM") ||
      env.has("PADDLE_TRAINER_ID") || env.has("TRAINING_ROLE")) {
    s = readPaddle(env, f);
  } else if (env.has("RANK") || env.has("WORLD_SIZE")) {
    f.source = LaunchSource::Torchrun;
    s = rankAndSize(env, "RANK", "WORLD_SIZE", f);
    if (s.ok())
      s = readLocalRank(env, "LOCAL_RANK", f);
  } else if (env.has("OMPI_COMM_WORLD_RANK") || env.has("OMPI_COMM_WORLD_SIZE")) {
    f.source = LaunchSource::OpenMPI;
    s = rankAndSize(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", f);
    if (s.ok())
      s = readLocalRank(env, "OMPI_COMM_WORLD_LOCAL_RANK", f);
  } else if (env.has("SLURM_PROCID")) {
    // srun sets SLURM_STEP_NUM_TASKS for its job step; SLURM_NTASKS is the
    // allocation's, which also reaches a batch script's single process.
    f.source = LaunchSource::Slurm;
    s = rankAndSize(env, "SLURM_PROCID",
                    env.has("SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS", f);
    if (s.ok())
      s = readLocalRank(env, "SLURM_LOCALID", f);
  }
  if (!s.ok())
    return s;
  // An explicit master wins over what the launcher's own variables imply.
  if (env.has("MASTER_ADDR"))
    f.masterAddr = env.get("MASTER_ADDR");
  if (env.has("MASTER_PORT")) {
    s = env.integer("MASTER_PORT", 1, 65535, "not a port (1-65535)", f.masterPort);
    if (!s.ok())
      return s;
  }
  // Whoever launched the ranks, a distc launcher may have added a token.
  if (const char *token = env.get(kJobTokenVariable))
    f.jobToken = token;
  if (const char *v = env.get(kCollectiveTimeoutVariable)) {
    std::optional<std::chrono::milliseconds> t = parseSeconds(v);
    if (!t)
      return Status::error(std::string(kCollectiveTimeoutVariable) + "='" + v +
                           "' is not a number of seconds in (0, 86400]");
    f.collectiveTimeout = *t;
  }
  if (const char *v = env.get(kPsSameHostCopiesVariable)) {
    std::string text = v;
    if (text != "0" && text != "1")
      return Status::error(std::string(kPsSameHostCopiesVariable) + "='" + text +
                           "' is neither 1 (copy between processes of one host) nor 0 (TCP)");
    f.psSameHostCopies = text == "1";
  }
  out = std::move(f);
  return Status::success();
}

Status readRoleFacts(RoleFacts &facts) {
  return readRoleFacts([](const char *name) -> const char * { return std::getenv(name); }, facts);
}

std::string RoleFacts::toString() const {
  std::string s = std::string(launchSourceName(source)) + " ";
  if (isServer())
    s += "server " + std::to_string(serverIndex) + " of " + std::to_string(serverEndpoints.size());
  else
    s += "worker " + std::to_string(workerIndex) + " of " + std::to_string(workerNum) + " (local " +
         std::to_string(localRank) + ")";
  if (!workerEndpoints.empty()) {
    s += ", endpoints ";
    for (size_t i = 0; i < workerEndpoints.size(); ++i)
      s += (i ? "," : "") + workerEndpoints[i];
  }
  if (!currentEndpoint.empty())
    s += ", current " + currentEndpoint;
  if (!masterAddr.empty() || masterPort)
    s += ", master " + hostPort(masterAddr.empty() ? "?" : masterAddr, masterPort);
  return s;
}

RendezvousOptions rendezvousOptionsFor(const RoleFacts &facts) {
  RendezvousOptions o;
  o.rank = facts.workerIndex;
  o.worldSize = facts.workerNum;
  if (!facts.masterAddr.empty())
    o.masterAddr = facts.masterAddr;
  if (facts.masterPort > 0)
    o.masterPort = facts.masterPort;
  o.jobToken = facts.jobToken;
  if (facts.collectiveTimeout.count() > 0)
    o.timeout = facts.collectiveTimeout;
  return o;
}

} // namespace distc::comm
