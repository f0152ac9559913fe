//===- Rendezvous.cpp - Forming the job's communicator --------------------===//
//
// Store keys (under the prefix): claim/<r> counts the processes that
// claimed rank r; info/<r> holds its world size, fingerprint and settings
// (each field "<length>:<bytes>", since values may hold any byte); abort holds
// the first mismatch found, so every rank reports the same line instead of
// some of them waiting for the timeout; waited-for/<r> what rank r waited
// for when a collective timed out (waitedForKey). The communicators' own
// keys are under gloo/ and nccl/.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/Rendezvous.h"
#include "distc/Comm/GlooCommunicator.h"
#include "distc/Comm/Store.h"

#include "FailureReport.h"
#include "RendezvousJoin.h"
#include "Socket.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace distc::comm {

using namespace detail;
using std::chrono::milliseconds;

namespace {

struct RankInfo {
  int64_t worldSize = 0;
  std::string fingerprint;
  std::vector<std::pair<std::string, std::string>> settings;
};

void putField(std::string &out, const std::string &field) {
  out += std::to_string(field.size()) + ":" + field;
}

/// The next "<length>:<bytes>" field of `s` from `at`; false at the end
/// or on a malformed field.
bool takeField(const std::string &s, size_t &at, std::string &field) {
  size_t colon = s.find(':', at);
  if (colon == std::string::npos)
    return false;
  size_t length = 0;
  auto [end, ec] = std::from_chars(s.data() + at, s.data() + colon, length);
  if (ec != std::errc() || end != s.data() + colon || length > s.size() - colon - 1)
    return false;
  field = s.substr(colon + 1, length);
  at = colon + 1 + length;
  return true;
}

std::string encode(const RankInfo &info) {
  std::string out;
  putField(out, std::to_string(info.worldSize));
  putField(out, info.fingerprint);
  for (const auto &[name, value] : info.settings) {
    putField(out, name);
    putField(out, value);
  }
  return out;
}

/// Null for a record this version cannot read (another distc's).
std::optional<RankInfo> decode(const std::string &s) {
  RankInfo info;
  size_t at = 0;
  std::string size;
  if (!takeField(s, at, size) || !takeField(s, at, info.fingerprint))
    return std::nullopt;
  auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), info.worldSize);
  if (ec != std::errc() || end != size.data() + size.size())
    return std::nullopt;
  std::string name, value;
  while (at < s.size()) {
    if (!takeField(s, at, name) || !takeField(s, at, value))
      return std::nullopt;
    info.settings.emplace_back(name, value);
  }
  return info;
}

/// Fingerprints in messages: short, but long enough to show where two differ.
std::string shorten(const std::string &s, const std::string &other) {
  if (s.empty())
    return "(none)";
  size_t common = 0;
  while (common < s.size() && common < other.size() && s[common] == other[common])
    ++common;
  size_t keep = std::max<size_t>(12, common + 4);
  return s.size() <= keep + 4 ? s : s.substr(0, keep) + "\u2026";
}

/// Empty when `info` (rank r's) agrees with `ref` (rank 0's).
std::string mismatch(const RendezvousOptions &o, int r, const std::optional<RankInfo> &record,
                     const RankInfo &ref) {
  if (!record)
    return "rank " + std::to_string(r) +
           " published a rendezvous record this distc cannot read (another distc version?)";
  const RankInfo &info = *record;
  if (info.worldSize != ref.worldSize)
    return "rank " + std::to_string(r) + " was started with world size " +
           std::to_string(info.worldSize) + ", rank 0 with " + std::to_string(ref.worldSize);
  if (info.fingerprint != ref.fingerprint)
    return "rank " + std::to_string(r) + " runs " + o.fingerprintKind + " " +
           shorten(info.fingerprint, ref.fingerprint) + ", rank 0 runs " +
           shorten(ref.fingerprint, info.fingerprint);
  const size_t n = std::max(info.settings.size(), ref.settings.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string none = "(none)";
    const std::string &name = i < ref.settings.size() ? ref.settings[i].first : info.settings[i].first;
    const std::string &mine = i < info.settings.size() ? info.settings[i].second : none;
    const std::string &theirs = i < ref.settings.size() ? ref.settings[i].second : none;
    if (i >= info.settings.size() || i >= ref.settings.size() ||
        info.settings[i].first != ref.settings[i].first)
      return "rank " + std::to_string(r) + " compares other settings than rank 0 (" + name +
             "; another distc version?)";
    if (mine != theirs)
      return name + " differs: rank 0 has " + theirs + ", rank " +
             std::to_string(r) + " has " + mine;
  }
  return "";
}

std::string rankList(const std::vector<int> &ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i == 8) {
      s += " and " + std::to_string(ranks.size() - i) + " more";
      break;
    }
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  }
  return s;
}

/// Steps 1 and 2 of the rendezvous (Rendezvous.h) on a connected store.
bool agree(const RendezvousOptions &o, Store &store, Clock::time_point deadline,
           std::string &error) {
  const std::string &p = o.prefix;
  auto infoKey = [&](int r) { return p + "/info/" + std::to_string(r); };
  auto abortWith = [&](const std::string &message) {
    (void)store.set(p + "/abort", message);
    error = message;
    return false;
  };
  int64_t claims = 0;
  Status s = store.add(p + "/claim/" + std::to_string(o.rank), 1, claims);
  if (s.ok() && claims > 1)
    return abortWith("rank " + std::to_string(o.rank) +
                     " was started twice: another process already joined as rank " +
                     std::to_string(o.rank));
  RankInfo mine{o.worldSize, o.fingerprint, o.settings};
  if (s.ok())
    s = store.set(infoKey(o.rank), encode(mine));
  RankInfo ref = mine;
  std::string value;
  if (s.ok() && o.rank != 0 && (s = store.get(infoKey(0), value, leftUntil(deadline))).ok()) {
    std::optional<RankInfo> rank0 = decode(value);
    if (!rank0)
      return abortWith("rank 0 published a rendezvous record this distc cannot read (another "
                       "distc version?)");
    ref = *rank0;
    std::string m = mismatch(o, o.rank, mine, ref);
    if (!m.empty())
      return abortWith(m);
  }
  std::vector<int> waiting;
  for (int r = 1; r < o.worldSize; ++r)
    if (r != o.rank)
      waiting.push_back(r);
  while (s.ok() && !waiting.empty()) {
    std::vector<std::string> keys{p + "/abort"}, present;
    for (int r : waiting)
      keys.push_back(infoKey(r));
    s = store.waitAny(keys, leftUntil(deadline), present);
    if (!s.ok())
      break;
    if (present.empty()) {
      error = rankList(waiting) + " did not join the rendezvous at " +
              hostPort(o.masterAddr, o.masterPort) + " within " + formatSeconds(o.connectTimeout) +
              " (world size " + std::to_string(o.worldSize) + ")";
      return false;
    }
    for (const std::string &key : present) {
      if (!(s = store.get(key, value)).ok())
        break;
      if (key == keys[0]) {
        error = value;
        return false;
      }
      int r = std::stoi(key.substr(key.rfind('/') + 1));
      std::string m = mismatch(o, r, decode(value), ref);
      if (!m.empty())
        return abortWith(m);
      waiting.erase(std::find(waiting.begin(), waiting.end(), r));
    }
  }
  if (!s.ok()) {
    error = s.message();
    return false;
  }
  return true;
}

/// Where the Gloo communicator of the rendezvous under `prefix` keeps its
/// keys.
std::string glooPrefix(const std::string &prefix) { return prefix + "/gloo"; }

} // namespace

std::string waitedForKey(const std::string &prefix, int rank) {
  return detail::waitedForRecordKey(prefix, rank);
}

namespace detail {

bool checkWorld(const RendezvousOptions &o, std::string &error) {
  if (o.worldSize < 1) {
    error = "world size " + std::to_string(o.worldSize) + " is not positive";
    return false;
  }
  if (o.rank < 0 || o.rank >= o.worldSize) {
    error = "rank " + std::to_string(o.rank) + " is outside [0, " + std::to_string(o.worldSize) +
            ") (world size " + std::to_string(o.worldSize) + ")";
    return false;
  }
  return true;
}

bool joinRendezvous(const RendezvousOptions &o, Clock::time_point deadline,
                    std::unique_ptr<StoreServer> &server, std::shared_ptr<Store> &store,
                    std::string &error, size_t *departuresBefore) {
  if (o.rank == 0 && o.serveStore) {
    server = StoreServer::start(o.masterAddr, o.masterPort, o.jobToken, error);
    if (!server)
      return false;
  }
  StoreOptions so;
  so.host = o.masterAddr;
  so.port = o.masterPort;
  so.timeout = o.connectTimeout;
  so.rank = o.rank;
  so.token = o.jobToken;
  store = Store::connect(so, error);
  // Before this rank publishes its info (agree), which every other rank
  // waits for before it can get anywhere, let alone fail and leave.
  if (store && departuresBefore) {
    std::vector<Departure> log;
    *departuresBefore = store->departures(milliseconds(0), log).ok() ? log.size() : 0;
  }
  if (!store || !agree(o, *store, deadline, error)) {
    abandonRendezvous(o, deadline, server, store);
    return false;
  }
  return true;
}

void abandonRendezvous(const RendezvousOptions &o, Clock::time_point deadline,
                       std::unique_ptr<StoreServer> &server, std::shared_ptr<Store> &store) {
  store.reset();
  if (server) {
    std::vector<int> others;
    for (int r = 1; r < o.worldSize; ++r)
      others.push_back(r);
    server->waitForDepartures(others, leftUntil(deadline));
  }
  server.reset();
}

milliseconds leftUntil(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return ms.count() < 1 ? milliseconds(1) : ms;
}

} // namespace detail

bool connect(const RendezvousOptions &o, std::unique_ptr<Communicator> &comm, std::string &error) {
  if (!checkWorld(o, error))
    return false;
  if (o.worldSize == 1) {
    comm = std::make_unique<LocalCommunicator>();
    return true;
  }
#if !DISTC_HAVE_GLOO
  error = "world size " + std::to_string(o.worldSize) +
          " needs Gloo, and this build of distc has none (install libgloo-dev and rebuild)";
  return false;
#else
  Clock::time_point deadline = Clock::now() + o.connectTimeout;
  std::unique_ptr<StoreServer> server;
  std::shared_ptr<Store> store;
  // On failure rank 0 keeps the store up until every other rank has come
  // and gone (bounded by the rendezvous deadline), so that they read the
  // verdict from it rather than "cannot reach" or "closed the connection".
  if (!joinRendezvous(o, deadline, server, store, error))
    return false;
  GlooOptions go;
  go.host = o.host;
  go.iface = o.iface;
  go.timeout = o.timeout;
  go.connectTimeout = leftUntil(deadline);
  go.subgroupTimeout = o.connectTimeout;
  go.prefix = glooPrefix(o.prefix);
  go.recordsPrefix = o.prefix;
  auto gloo = GlooCommunicator::create(o.rank, o.worldSize, std::move(store), go, error);
  if (!gloo) {
    abandonRendezvous(o, deadline, server, store);
    return false;
  }
  // Gloo's connect returns on a rank once its own pairs are up; a barrier
  // makes connect() return only when every rank's are, so a rank that
  // exits right after connecting cannot break another's rendezvous.
  Status s = gloo->barrier();
  gloo->adoptServer(std::move(server));
  if (!s.ok()) {
    error = s.message();
    return false;
  }
  comm = std::move(gloo);
  return true;
#endif
}

} // namespace distc::comm
