//===- PsWorld.cpp - The processes of a parameter-server job --------------===//
//
// Store keys, under the world's prefix:
//   claim/<rank>    how many processes claimed the rank (add)
//   member/<rank>   "<trainers> <servers> <pid> <fingerprint> <probe address>
//                   <probe value> <endpoint>" (a trainer's probe for
//                   same-host copies, 0 0 for none)
//   copies/<server> one character a trainer, '1' where the server copies
//                   that trainer's payloads, '0' where they go over TCP
// plus the transport's address exchange (gloo/...) and waited-for records.
//
//===----------------------------------------------------------------------===//

#include "distc/PServer/PsWorld.h"
#include "distc/PServer/PsMessage.h"

#include "FailureReport.h"
#include "PsWorldImpl.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace distc::pserver {

using comm::Departure;
using comm::Store;
using detail::Clock;
using detail::PeerFailure;
using std::chrono::milliseconds;

namespace detail {
Xfer::~Xfer() = default;
Transport::~Transport() = default;
} // namespace detail

const char *psRoleName(PsRole role) { return role == PsRole::Trainer ? "trainer" : "server"; }

namespace {

struct Member {
  int trainers = 0, servers = 0;
  long pid = 0;
  /// The artifact's checksum, "-" for none.
  std::string fingerprint = "-";
  /// A trainer's probe for same-host copies: where the value is.
  uint64_t probeAddress = 0, probeValue = 0;
  std::string endpoint;
};

std::string memberText(const Member &m) {
  return std::to_string(m.trainers) + " " + std::to_string(m.servers) + " " +
         std::to_string(m.pid) + " " + m.fingerprint + " " + std::to_string(m.probeAddress) + " " +
         std::to_string(m.probeValue) + " " + m.endpoint;
}

bool parseMember(const std::string &text, Member &m) {
  std::istringstream in(text);
  if (!(in >> m.trainers >> m.servers >> m.pid >> m.fingerprint >> m.probeAddress >>
        m.probeValue))
    return false;
  in.get();
  std::getline(in, m.endpoint);
  return true;
}

/// The first 12 characters of a checksum, enough to tell two apart.
std::string shortFingerprint(const std::string &f) { return f.substr(0, 12); }

/// "server 1", "trainer 0": rank `r` without its address.
std::string shortName(int r, int numTrainers) {
  return r < numTrainers ? "trainer " + std::to_string(r)
                         : "server " + std::to_string(r - numTrainers);
}

/// A random value no other process is likely to hold at that address.
uint64_t randomProbe() {
  std::random_device device;
  uint64_t v = 0;
  while (v == 0)
    v = (uint64_t(device()) << 32) ^ device() ^
        uint64_t(Clock::now().time_since_epoch().count());
  return v;
}

/// Same-host copies: each server tries every trainer's probe and
/// publishes what worked; each trainer reads what its servers decided.
Status agreeOnCopies(PsWorld::Impl &w, const std::vector<Member> &members,
                     Clock::time_point deadline) {
  const std::string prefix = w.options.prefix + "/copies/";
  w.copies.assign(size_t(w.size), 0);
  w.peers.resize(size_t(w.size));
  if (w.role == PsRole::Server) {
    std::string decided;
    for (int t = 0; t < w.numTrainers; ++t) {
      const Member &m = members[size_t(t)];
      bool ok = false;
      if (w.options.sameHostCopies && detail::peerCopySupported() && m.probeAddress) {
        auto peer = std::make_unique<detail::PeerProcess>(m.pid);
        uint64_t seen = 0;
        detail::PeerCopyError ignored;
        ok = peer->copyFrom(m.probeAddress, &seen, sizeof seen, ignored) && seen == m.probeValue;
        if (ok)
          w.peers[size_t(t)] = std::move(peer);
      }
      w.copies[size_t(t)] = ok;
      decided += ok ? '1' : '0';
    }
    return w.store->set(prefix + std::to_string(w.index), decided);
  }
  for (int s = 0; s < w.numServers; ++s) {
    std::string decided;
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    const std::string key = prefix + std::to_string(s);
    if (Status st = w.store->get(key, decided, std::max(left, milliseconds(1))); !st.ok())
      return Status::error(w.describe(w.numTrainers + s) +
                           " did not say whether it copies this trainer's payloads (" + key +
                           "): " + st.message());
    if (decided.size() != size_t(w.numTrainers))
      return Status::error("malformed store key " + key);
    w.copies[size_t(w.numTrainers + s)] = decided[size_t(w.index)] == '1';
  }
  return Status::success();
}

} // namespace

PsWorld::Impl::Impl(PsRole role, int index, int numTrainers, int numServers,
                    std::shared_ptr<Store> store, const PsWorldOptions &options)
    : role(role), index(index), numTrainers(numTrainers), numServers(numServers),
      rank(role == PsRole::Trainer ? index : numTrainers + index), size(numTrainers + numServers),
      store(std::move(store)), options(options),
      finished(new std::atomic<bool>[size_t(numTrainers + numServers)]) {
  for (int r = 0; r < size; ++r) {
    finished[size_t(r)] = false;
    names.push_back(shortName(r, numTrainers));
  }
}

bool PsWorld::Impl::matters(const Departure &d) const {
  if (d.rank < 0 || d.rank >= size || d.rank == rank)
    return false;
  // Trainers talk to servers only, and servers to trainers.
  bool peerIsServer = d.rank >= numTrainers;
  if (peerIsServer == (role == PsRole::Server))
    return false;
  return !finished[size_t(d.rank)].load();
}

void PsWorld::Impl::markFinished(int r) {
  if (r >= 0 && r < size)
    finished[size_t(r)] = true;
}

std::string PsWorld::Impl::describe(int r) const {
  if (r < 0 || r >= size)
    return "rank " + std::to_string(r);
  return names[size_t(r)];
}

Status PsWorld::Impl::fail(const std::string &what, const PeerFailure &failure,
                           milliseconds timeout, bool fromTransport) {
  if (!broken.empty())
    return Status::error(broken);
  comm::detail::FailureFacts facts;
  facts.what = what;
  facts.rank = rank;
  facts.peer = failure;
  facts.timeout = timeout;
  facts.storeWhere = comm::hostPort(store->host(), store->port());
  facts.rankName = [this](int r) { return describe(r); };
  facts.leftEarly = role == PsRole::Server ? "left without sending COMPLETE"
                                           : "left before this trainer sent it COMPLETE";
  // A dead peer's store connection ends when its transport connections
  // do; give the server a moment to log it. Only departures that matter
  // are causes: trainers that are done leave as a matter of course.
  const Clock::time_point deadline =
      Clock::now() + (fromTransport && !failure.timedOut ? milliseconds(2000) : milliseconds(0));
  for (;;) {
    std::vector<Departure> log;
    if (!store->departures(milliseconds(0), log).ok()) {
      // Whoever served it (a launcher, a server) is gone: the world is.
      facts.peer.peer = -1;
      facts.peer.what = "the rendezvous store at " + facts.storeWhere +
                        " is gone (the process that served it exited or lost its connection)";
      break;
    }
    facts.log.clear();
    for (size_t i = departuresBefore; i < log.size(); ++i)
      if (matters(log[i]))
        facts.log.push_back(log[i]);
    if (!facts.log.empty() || Clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  comm::detail::FailureReport report = comm::detail::describeFailure(facts);
  comm::detail::recordWaitedFor(*store, options.prefix, facts, report);
  store->leave(report.cause);
  if (transport)
    transport->closeConnections();
  broken = report.message;
  return Status::error(broken);
}

PsWorld::PsWorld(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PsWorld::~PsWorld() = default;

std::unique_ptr<PsWorld> PsWorld::connect(PsRole role, int index, int numTrainers, int numServers,
                                          std::shared_ptr<Store> store,
                                          const PsWorldOptions &options, std::string &error) {
  const char *roleName = psRoleName(role);
  if (numTrainers < 1 || numServers < 1) {
    error = "a parameter-server job needs at least one trainer and one server (" +
            std::to_string(numTrainers) + " trainers, " + std::to_string(numServers) +
            " servers given)";
    return nullptr;
  }
  int count = role == PsRole::Trainer ? numTrainers : numServers;
  if (index < 0 || index >= count) {
    error = std::string(roleName) + " index " + std::to_string(index) + " is outside [0, " +
            std::to_string(count) + ")";
    return nullptr;
  }
  if (!store) {
    error = "a parameter-server world needs a rendezvous store";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>(role, index, numTrainers, numServers, store, options);
  const std::string self = impl->describe(impl->rank);
  if (store->rank() != impl->rank) {
    error = "the store connection of " + self + " speaks for rank " +
            std::to_string(store->rank()) + ", not its parameter-server world rank " +
            std::to_string(impl->rank) +
            " (StoreOptions::rank): the departure log could not name it";
    return nullptr;
  }
  const std::string &p = options.prefix;
  std::vector<Departure> log;
  Status s = store->departures(milliseconds(0), log);
  impl->departuresBefore = log.size();
  int64_t claims = 0;
  if (s.ok())
    s = store->add(p + "/claim/" + std::to_string(impl->rank), 1, claims);
  if (s.ok() && claims > 1)
    s = Status::error("two processes were started as " + self + " (parameter-server world rank " +
                      std::to_string(impl->rank) + ")");
  Member mine;
  mine.trainers = numTrainers;
  mine.servers = numServers;
  mine.pid = long(::getpid());
  mine.fingerprint = options.fingerprint.empty() ? "-" : options.fingerprint;
  mine.endpoint = options.endpoint.empty()
                      ? (options.host.empty() ? store->localAddress() : options.host)
                      : options.endpoint;
  if (role == PsRole::Trainer && options.sameHostCopies && detail::peerCopySupported()) {
    detail::allowPeerCopies();
    impl->probe = randomProbe();
    mine.probeAddress = reinterpret_cast<uintptr_t>(&impl->probe);
    mine.probeValue = impl->probe;
  }
  if (s.ok())
    s = store->set(p + "/member/" + std::to_string(impl->rank), memberText(mine));
  // Every process's record, in rank order, before connecting: processes
  // that disagree on the world's size would wait for each other's
  // transport in vain, and the first record that disagrees says so.
  const Clock::time_point deadline = Clock::now() + options.connectTimeout;
  std::vector<std::string> keys, names;
  std::vector<Member> members;
  for (int r = 0; r < impl->size; ++r)
    keys.push_back(p + "/member/" + std::to_string(r));
  for (int r = 0; s.ok() && r < impl->size; ++r) {
    std::string text;
    Member m;
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (!store->get(keys[size_t(r)], text, std::max(left, milliseconds(1))).ok()) {
      std::vector<std::string> present;
      std::string missing;
      if (store->check(keys, present).ok())
        for (int q = 0; q < impl->size; ++q)
          if (std::find(present.begin(), present.end(), keys[size_t(q)]) == present.end())
            missing += (missing.empty() ? "" : ", ") + impl->describe(q);
      s = Status::error((missing.empty() ? impl->describe(r) : missing) +
                        " did not join the parameter-server world at " +
                        comm::hostPort(store->host(), store->port()) + " within " +
                        comm::formatSeconds(options.connectTimeout) + " (" +
                        std::to_string(numTrainers) + " trainers, " + std::to_string(numServers) +
                        " servers)");
      break;
    }
    if (!parseMember(text, m))
      s = Status::error("malformed store key " + keys[size_t(r)]);
    else if (m.trainers != numTrainers || m.servers != numServers)
      s = Status::error(self + " was started with " + std::to_string(numTrainers) +
                        " trainers and " + std::to_string(numServers) + " servers, " +
                        impl->describe(r) + " with " + std::to_string(m.trainers) + " and " +
                        std::to_string(m.servers));
    else if (m.fingerprint != mine.fingerprint)
      s = Status::error(shortName(r, numTrainers) + " at " + m.endpoint + " (pid " +
                        std::to_string(m.pid) + ") runs artifact " +
                        shortFingerprint(m.fingerprint) + ", " + self + " runs " +
                        shortFingerprint(mine.fingerprint) +
                        ": every process of a parameter-server job must run the one artifact");
    names.push_back(shortName(r, numTrainers) + " at " + m.endpoint + " (pid " +
                    std::to_string(m.pid) + ")");
    members.push_back(m);
  }
  if (s.ok()) {
    impl->names = std::move(names);
    s = agreeOnCopies(*impl, members, deadline);
  }
  if (!s.ok()) {
    error = s.message();
    store->leave(error);
    return nullptr;
  }
  impl->transport = detail::connectTransport(*impl, error);
  if (!impl->transport)
    return nullptr;
  return std::unique_ptr<PsWorld>(new PsWorld(std::move(impl)));
}

PsRole PsWorld::role() const { return impl_->role; }
int PsWorld::index() const { return impl_->index; }
int PsWorld::rank() const { return impl_->rank; }
int PsWorld::size() const { return impl_->size; }
int PsWorld::numTrainers() const { return impl_->numTrainers; }
int PsWorld::numServers() const { return impl_->numServers; }
std::string PsWorld::describe(int rank) const { return impl_->describe(rank); }
bool PsWorld::copiesWith(int rank) const {
  return rank >= 0 && rank < impl_->size && impl_->copies[size_t(rank)];
}
const std::string &PsWorld::failure() const { return impl_->broken; }

Status PsWorld::barrier() {
  Impl &w = *impl_;
  if (!w.broken.empty())
    return Status::error(w.broken);
  ++w.barriers;
  PeerFailure failure;
  if (w.transport->barrier(psSlot(PsChannel::Barrier, w.barriers), Clock::now() + w.options.timeout,
                           failure))
    return Status::success();
  return w.fail("barrier #" + std::to_string(w.barriers), failure, w.options.timeout, true);
}

Status PsWorld::sumOverTrainers(std::vector<double> &values) {
  Impl &w = *impl_;
  if (w.role != PsRole::Trainer)
    return Status::error("only trainers sum over the trainers; this is " + w.describe(w.rank));
  if (!w.broken.empty())
    return Status::error(w.broken);
  if (w.numTrainers == 1 || values.empty())
    return Status::success();
  ++w.trainerSums;
  std::vector<int> peers;
  std::vector<std::vector<double>> theirs(size_t(w.numTrainers), values);
  std::vector<void *> into;
  for (int t = 0; t < w.numTrainers; ++t) {
    peers.push_back(t); // trainer t is world rank t
    into.push_back(theirs[size_t(t)].data());
  }
  detail::PeerFailure failure;
  if (!w.transport->exchange(peers, psSlot(PsChannel::TrainerSum, w.trainerSums), values.data(),
                             into, values.size() * sizeof(double),
                             detail::Clock::now() + w.options.timeout, failure))
    return w.fail("sum over the trainers #" + std::to_string(w.trainerSums), failure,
                  w.options.timeout, true);
  for (size_t i = 0; i < values.size(); ++i) {
    double sum = 0;
    for (int t = 0; t < w.numTrainers; ++t)
      sum += t == w.index ? values[i] : theirs[size_t(t)][i];
    values[i] = sum;
  }
  return Status::success();
}

} // namespace distc::pserver
