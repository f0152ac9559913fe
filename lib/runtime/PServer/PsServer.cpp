//===- PsServer.cpp - A parameter server's message loop -------------------===//
//
// One thread: receive a header from any live trainer, handle it (or queue
// it until its phase), advance the phase when a barrier is complete. The
// answers a server sends (replies, GET's bytes, PREFETCH's rows) are
// posted and reaped later, so answers to several trainers are in flight
// together; they are all complete before anything may write the memory
// they read (a receive, a callback) and before serve() returns. With a
// trainer that this server copies for (same host, PsMessage.h), payloads
// and results are copied in the loop, before the reply.
//
//===----------------------------------------------------------------------===//

#include "distc/PServer/PsServer.h"
#include "distc/PServer/PsMessage.h"

#include "PsWorldImpl.h"

#include <array>
#include <cstring>
#include <deque>
#include <map>

namespace distc::pserver {

using detail::Clock;
using detail::PeerFailure;
using detail::Xfer;

namespace {

/// Answers in flight beyond this many are reaped before more are posted.
constexpr size_t kMaxOutgoing = 64;

/// Header receives kept posted. Gloo moves a transfer only once both sides
/// have posted it, a round trip through both processes' event loops: with
/// one receive posted, every request would wait that long before the
/// server sees it. Gloo fills receives from any trainer in the order they
/// were posted, so the server takes the headers in that order.
constexpr size_t kHeaderDepth = 32;

struct Dense {
  void *data;
  size_t bytes;
  int trainer;
};

struct Sparse {
  int64_t *rows;
  void *values;
  size_t rowBytes, maxRows;
  size_t *count;
  int trainer;
};

struct Servable {
  const void *data;
  size_t bytes;
};

struct State {
  void *data;
  size_t bytes;
};

struct Table {
  size_t rowBytes, maxIds;
  std::vector<int64_t> ids;
  std::vector<unsigned char> rows;
};

struct Queued {
  PsHeader header;
  int trainer;
};

/// An answer in flight: the buffer and, for a reply, its bytes.
struct Outgoing {
  std::unique_ptr<Xfer> xfer;
  std::unique_ptr<std::array<unsigned char, kPsReplyBytes>> reply;
  int trainer;
  std::string what;
};

std::string quote(const std::string &name) { return "'" + name + "'"; }

std::string bytesText(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

} // namespace

class PsServer::Impl {
public:
  Impl(PsWorld &world, const PsServerOptions &options) : w(world.impl()), options(options) {}

  Status serve();

  Status check() const {
    if (w.role != PsRole::Server)
      return Status::error("a parameter server needs a server's world; this is " +
                           w.describe(w.rank));
    if (served)
      return Status::error("serve() was already called on " + w.describe(w.rank));
    return Status::success();
  }

  Status checkNew(const std::string &name, int trainer) const {
    if (Status s = checkPsName(name); !s.ok())
      return s;
    if (dense.count(name) || sparse.count(name))
      return Status::error(quote(name) + " is registered twice on " + self());
    if (trainer < -1 || trainer >= w.numTrainers)
      return Status::error("trainer " + std::to_string(trainer) + " of " + quote(name) +
                           " is outside [-1, " + std::to_string(w.numTrainers) + ")");
    return Status::success();
  }

  std::string self() const { return "server " + std::to_string(w.index); }
  std::string trainerName(int t) const { return "trainer " + std::to_string(t); }

  // The loop.
  Status receiveHeader(PsHeader &header, int &trainer);
  Status dispatch(const PsHeader &h, int t);
  Status pump();
  Status advancePhase();
  Status handle(const PsHeader &h, int t);
  bool eligible(PsKind kind) const;
  std::string loopWhat() const;
  std::string waitingFor() const;

  // Requests.
  Status handleSend(const PsHeader &h, int t);
  Status handleSendRows(const PsHeader &h, int t);
  Status handleGet(const PsHeader &h, int t);
  Status handlePrefetch(const PsHeader &h, int t);
  Status handleState(const PsHeader &h, int t);
  Status handleBarrier(const PsHeader &h, int t);
  Status handleComplete(const PsHeader &h, int t);
  void retire(int t);

  // Transfers.
  struct Part {
    void *local;
    size_t bytes;
    PsChannel channel;
    /// Same-host copies: where the trainer holds it.
    uint64_t address;
  };
  /// The payload of `h` into registered memory. A copy the kernel
  /// refuses (an address that is not the trainer's) refuses the request:
  /// `refused` is set and the reply has gone.
  Status receive(const PsHeader &h, int t, const std::vector<Part> &parts,
                 const std::string &what, bool &refused);
  Status answer(const PsHeader &h, int t, bool done, const std::string &message,
                uint64_t bytes = 0);
  /// Same-host copies: `bytes` bytes from `address` in trainer `t` into
  /// `local`, or (`toTrainer`) the other way.
  Status copy(const PsHeader &h, int t, bool toTrainer, void *local, uint64_t address,
              size_t bytes, const std::string &what, bool &refused);
  /// GET's, GET_STATE's or PREFETCH's bytes to trainer `t`; before its
  /// reply, which says they are there when the server copies.
  Status sendResult(const PsHeader &h, int t, const void *data, size_t bytes, bool &refused);
  Status refuse(const PsHeader &h, int t, const std::string &message) {
    ++stats.refused;
    return answer(h, t, false, message);
  }
  Status drain();
  Status transportFailure(const std::string &what, const PeerFailure &failure) {
    return w.fail(what, failure, options.timeout, true);
  }
  Status callbackFailure(const std::string &what, const Status &s) {
    PeerFailure failure;
    failure.what = s.message();
    return w.fail(what, failure, options.timeout, false);
  }

  PsWorld::Impl &w;
  const PsServerOptions options;
  std::map<std::string, Dense> dense;
  std::map<std::string, Sparse> sparse;
  std::map<std::string, Servable> servables;
  std::map<std::string, State> states;
  std::map<std::string, Table> tables;
  PrefetchFn prefetch;
  StateWrittenFn onStateWritten;
  OptimizeFn optimize;
  ArrivalFn onArrival;
  PsServerStats stats;
  bool served = false;

  enum class Phase { Get, Send };
  Phase phase = Phase::Get;
  /// Rounds begun (a round is a send phase and the get phase after it).
  uint64_t round = 0;
  std::vector<char> live, arrived;
  std::vector<int> queuedFrom;
  int liveCount = 0;
  std::deque<Queued> queue;
  std::vector<Outgoing> outgoing;
  /// kHeaderDepth posted header receives; the next to complete is at
  /// `nextHeader`.
  std::vector<std::array<unsigned char, kPsHeaderBytes>> headerBytes;
  std::vector<std::unique_ptr<Xfer>> headerXfers;
  size_t nextHeader = 0;
  Status postHeaderReceive(size_t i);
};

std::string PsServer::Impl::loopWhat() const {
  if (!options.sync)
    return "listen_and_serv (asynchronous)";
  if (round == 0)
    return "listen_and_serv (startup, get phase)";
  return "listen_and_serv (round " + std::to_string(round) + ", " +
         (phase == Phase::Send ? "send" : "get") + " phase)";
}

std::string PsServer::Impl::waitingFor() const {
  std::vector<int> missing;
  for (int t = 0; t < w.numTrainers; ++t)
    if (live[size_t(t)] && (!options.sync || !arrived[size_t(t)]))
      missing.push_back(t);
  std::string list;
  for (size_t i = 0; i < missing.size(); ++i)
    list += (i ? ", " : "") + std::to_string(missing[i]);
  const char *barrier = phase == Phase::Send ? "send_barrier" : "fetch_barrier";
  if (!options.sync)
    return std::string("a request from trainer") + (missing.size() > 1 ? "s " : " ") + list;
  if (missing.size() == 1)
    return "trainer " + list + "'s " + barrier;
  return std::string("the ") + barrier + " of trainers " + list;
}

Status PsServer::Impl::postHeaderReceive(size_t i) {
  // A trainer retired later stays among the senders of receives already
  // posted; it sends nothing more.
  std::vector<int> peers;
  for (int t = 0; t < w.numTrainers; ++t)
    if (live[size_t(t)])
      peers.push_back(t);
  PeerFailure failure;
  if (peers.empty() ||
      headerXfers[i]->recvAny(peers, psSlot(PsChannel::Header, 0), kPsHeaderBytes, failure))
    return Status::success();
  return transportFailure(loopWhat(), failure);
}

Status PsServer::Impl::receiveHeader(PsHeader &header, int &trainer) {
  Xfer &xfer = *headerXfers[nextHeader];
  PeerFailure failure;
  int from = -1;
  if (!xfer.wait(Clock::now() + options.timeout, &from, failure)) {
    if (failure.timedOut) {
      failure.peer = -1;
      failure.what = "timed out after " + comm::formatSeconds(options.timeout) + " waiting for " +
                     waitingFor();
    }
    return transportFailure(loopWhat(), failure);
  }
  std::string error;
  const bool decoded = decodePsHeader(headerBytes[nextHeader].data(), header, error);
  // Its bytes are read: the buffer takes a later header.
  if (Status s = postHeaderReceive(nextHeader); !s.ok())
    return s;
  nextHeader = (nextHeader + 1) % kHeaderDepth;
  if (from < 0 || from >= w.numTrainers || !decoded || header.trainer != from) {
    PeerFailure bad;
    if (error.empty())
      error = "a request signed as trainer " + std::to_string(header.trainer);
    bad.what = w.describe(from) + " sent " + error;
    return w.fail(loopWhat(), bad, options.timeout, false);
  }
  trainer = from;
  return Status::success();
}

bool PsServer::Impl::eligible(PsKind kind) const {
  if (!options.sync)
    return true;
  switch (kind) {
  case PsKind::Send:
  case PsKind::SendRows:
  case PsKind::BatchBarrier:
    return phase == Phase::Send;
  case PsKind::Get:
  case PsKind::FetchBarrier:
    return phase == Phase::Get;
  case PsKind::Prefetch:
  case PsKind::GetState:
  case PsKind::SetState:
  case PsKind::Complete:
    return true;
  }
  return true;
}

Status PsServer::Impl::dispatch(const PsHeader &h, int t) {
  if (queuedFrom[size_t(t)] > 0 || !eligible(h.kind)) {
    queue.push_back({h, t});
    ++queuedFrom[size_t(t)];
    return Status::success();
  }
  if (Status s = handle(h, t); !s.ok())
    return s;
  return pump();
}

Status PsServer::Impl::pump() {
  for (;;) {
    if (options.sync && liveCount > 0) {
      bool all = true;
      for (int t = 0; t < w.numTrainers; ++t)
        all = all && (!live[size_t(t)] || arrived[size_t(t)]);
      if (all) {
        if (Status s = advancePhase(); !s.ok())
          return s;
        continue;
      }
    }
    // The oldest queued request of each trainer is its next; the first of
    // those whose phase has come goes.
    std::vector<char> seen(size_t(w.numTrainers), 0);
    auto next = queue.end();
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      if (seen[size_t(it->trainer)])
        continue;
      seen[size_t(it->trainer)] = 1;
      if (eligible(it->header.kind)) {
        next = it;
        break;
      }
    }
    if (next == queue.end())
      return Status::success();
    Queued q = std::move(*next);
    queue.erase(next);
    --queuedFrom[size_t(q.trainer)];
    if (Status s = handle(q.header, q.trainer); !s.ok())
      return s;
  }
}

Status PsServer::Impl::advancePhase() {
  arrived.assign(size_t(w.numTrainers), 0);
  if (phase == Phase::Get) {
    phase = Phase::Send;
    ++round;
    return Status::success();
  }
  // The get phase's answers read the parameters the optimizer writes.
  if (Status s = drain(); !s.ok())
    return s;
  if (optimize) {
    Status s = optimize();
    if (!s.ok())
      return callbackFailure("the optimize blocks of round " + std::to_string(round), s);
  }
  for (auto &entry : sparse)
    *entry.second.count = 0;
  ++stats.rounds;
  phase = Phase::Get;
  return Status::success();
}

Status PsServer::Impl::handle(const PsHeader &h, int t) {
  ++stats.requests;
  switch (h.kind) {
  case PsKind::Send:
    return handleSend(h, t);
  case PsKind::SendRows:
    return handleSendRows(h, t);
  case PsKind::Get:
    return handleGet(h, t);
  case PsKind::Prefetch:
    return handlePrefetch(h, t);
  case PsKind::BatchBarrier:
  case PsKind::FetchBarrier:
    return handleBarrier(h, t);
  case PsKind::Complete:
    return handleComplete(h, t);
  case PsKind::GetState:
  case PsKind::SetState:
    return handleState(h, t);
  }
  return refuse(h, t, "unknown request");
}

Status PsServer::Impl::handleSend(const PsHeader &h, int t) {
  auto it = dense.find(h.name);
  if (it == dense.end()) {
    if (sparse.count(h.name))
      return refuse(h, t,
                    trainerName(t) + " sent " + quote(h.name) + " dense; " + self() +
                        " registered it as sparse rows");
    return refuse(h, t,
                  self() + " has no variable " + quote(h.name) + " to receive (" + trainerName(t) +
                      " sent " + bytesText(h.bytes) + ")");
  }
  const Dense &d = it->second;
  if (d.trainer >= 0 && d.trainer != t)
    return refuse(h, t,
                  quote(h.name) + " on " + self() + " is " + trainerName(d.trainer) + "'s; " +
                      trainerName(t) + " sent it");
  if (h.bytes != d.bytes)
    return refuse(h, t,
                  trainerName(t) + " sent " + bytesText(h.bytes) + " for " + quote(h.name) +
                      ", which " + self() + " registered with " + bytesText(d.bytes));
  const std::string what = "receiving " + quote(h.name) + " from " + trainerName(t);
  bool refused = false;
  if (Status s = receive(h, t, {{d.data, d.bytes, PsChannel::Data, h.dataAddress}}, what, refused);
      !s.ok() || refused)
    return s;
  if (!options.sync && onArrival) {
    if (Status s = onArrival(h.name, t); !s.ok())
      return callbackFailure("the block run on arrival of " + quote(h.name), s);
  }
  return answer(h, t, true, "");
}

Status PsServer::Impl::handleSendRows(const PsHeader &h, int t) {
  auto it = sparse.find(h.name);
  if (it == sparse.end()) {
    if (dense.count(h.name))
      return refuse(h, t,
                    trainerName(t) + " sent rows of " + quote(h.name) + "; " + self() +
                        " registered it as dense");
    return refuse(h, t,
                  self() + " has no sparse variable " + quote(h.name) + " to receive (" +
                      trainerName(t) + " sent " + std::to_string(h.rows) + " rows)");
  }
  const Sparse &v = it->second;
  if (v.trainer >= 0 && v.trainer != t)
    return refuse(h, t,
                  quote(h.name) + " on " + self() + " is " + trainerName(v.trainer) + "'s; " +
                      trainerName(t) + " sent it");
  if (h.rows > v.maxRows)
    return refuse(h, t,
                  trainerName(t) + " sent " + std::to_string(h.rows) + " rows of " + quote(h.name) +
                      ", more than the " + std::to_string(v.maxRows) + " " + self() +
                      " registered");
  if (h.bytes != h.rows * v.rowBytes)
    return refuse(h, t,
                  trainerName(t) + " sent " + bytesText(h.bytes) + " of values for " +
                      std::to_string(h.rows) + " rows of " + quote(h.name) + "; " + self() +
                      " registered rows of " + bytesText(v.rowBytes));
  const std::string what = "receiving rows of " + quote(h.name) + " from " + trainerName(t);
  size_t n = size_t(h.rows);
  bool refused = false;
  if (Status s = receive(h, t,
                         {{v.rows, n * sizeof(int64_t), PsChannel::Data, h.dataAddress},
                          {v.values, n * v.rowBytes, PsChannel::Values, h.valuesAddress}},
                         what, refused);
      !s.ok() || refused)
    return s;
  *v.count = n;
  if (!options.sync && onArrival) {
    if (Status s = onArrival(h.name, t); !s.ok())
      return callbackFailure("the block run on arrival of " + quote(h.name), s);
  }
  return answer(h, t, true, "");
}

Status PsServer::Impl::handleGet(const PsHeader &h, int t) {
  auto it = servables.find(h.name);
  if (it == servables.end())
    return refuse(h, t,
                  self() + " has no variable " + quote(h.name) + " to serve (" + trainerName(t) +
                      " asked for it)");
  const Servable &v = it->second;
  if (h.bytes != v.bytes)
    return refuse(h, t,
                  trainerName(t) + " asked for " + bytesText(h.bytes) + " of " + quote(h.name) +
                      ", which " + self() + " serves with " + bytesText(v.bytes));
  bool refused = false;
  if (Status s = sendResult(h, t, v.data, v.bytes, refused); !s.ok() || refused)
    return s;
  return answer(h, t, true, "", v.bytes);
}

Status PsServer::Impl::handlePrefetch(const PsHeader &h, int t) {
  auto it = tables.find(h.name);
  if (it == tables.end())
    return refuse(h, t,
                  self() + " has no table " + quote(h.name) + " to prefetch from (" +
                      trainerName(t) + " asked for " + std::to_string(h.rows) + " ids)");
  Table &table = it->second;
  if (!prefetch)
    return refuse(h, t, self() + " has no prefetch handler for " + quote(h.name));
  if (h.rows > table.maxIds)
    return refuse(h, t,
                  trainerName(t) + " asked for " + std::to_string(h.rows) + " ids of " +
                      quote(h.name) + ", more than the " + std::to_string(table.maxIds) + " " +
                      self() + " registered");
  if (h.bytes != h.rows * table.rowBytes)
    return refuse(h, t,
                  trainerName(t) + " expects " + bytesText(h.bytes) + " for " +
                      std::to_string(h.rows) + " rows of " + quote(h.name) + "; " + self() +
                      " has rows of " + bytesText(table.rowBytes));
  size_t n = size_t(h.rows);
  const std::string what = "receiving ids for " + quote(h.name) + " from " + trainerName(t);
  // The table's buffers may still be on their way to the previous caller.
  bool refused = false;
  if (Status s = receive(h, t,
                         {{table.ids.data(), n * sizeof(int64_t), PsChannel::Data, h.dataAddress}},
                         what, refused);
      !s.ok() || refused)
    return s;
  if (Status s = prefetch(h.name, table.ids.data(), n, table.rows.data()); !s.ok())
    return refuse(h, t, "prefetch from " + quote(h.name) + " on " + self() + ": " + s.message());
  if (Status s = sendResult(h, t, table.rows.data(), size_t(h.bytes), refused);
      !s.ok() || refused)
    return s;
  return answer(h, t, true, "", h.bytes);
}

Status PsServer::Impl::handleState(const PsHeader &h, int t) {
  const bool set = h.kind == PsKind::SetState;
  auto it = states.find(h.name);
  if (it == states.end())
    return refuse(h, t,
                  self() + " has no state variable " + quote(h.name) + " (" + trainerName(t) +
                      (set ? " sent " : " asked for ") + bytesText(h.bytes) + ")");
  const State &v = it->second;
  if (h.bytes != v.bytes)
    return refuse(h, t,
                  trainerName(t) + (set ? " sent " : " asked for ") + bytesText(h.bytes) +
                      " of state " + quote(h.name) + ", which " + self() + " holds with " +
                      bytesText(v.bytes));
  bool refused = false;
  if (!set) {
    if (Status s = sendResult(h, t, v.data, v.bytes, refused); !s.ok() || refused)
      return s;
    return answer(h, t, true, "", v.bytes);
  }
  const std::string what = "receiving state " + quote(h.name) + " from " + trainerName(t);
  if (Status s = receive(h, t, {{v.data, v.bytes, PsChannel::Data, h.dataAddress}}, what, refused);
      !s.ok() || refused)
    return s;
  if (onStateWritten)
    if (Status s = onStateWritten(h.name); !s.ok())
      return callbackFailure(what, s);
  return answer(h, t, true, "");
}

Status PsServer::Impl::handleBarrier(const PsHeader &h, int t) {
  if (!options.sync)
    return refuse(h, t,
                  trainerName(t) + " sent " + psKindName(h.kind) + " to " + self() +
                      ", which runs in asynchronous mode");
  arrived[size_t(t)] = 1;
  return answer(h, t, true, "");
}

void PsServer::Impl::retire(int t) {
  live[size_t(t)] = 0;
  arrived[size_t(t)] = 0;
  --liveCount;
  for (auto &entry : dense)
    if (entry.second.trainer == t && entry.second.bytes)
      std::memset(entry.second.data, 0, entry.second.bytes);
  for (auto &entry : sparse)
    if (entry.second.trainer == t)
      *entry.second.count = 0;
}

Status PsServer::Impl::handleComplete(const PsHeader &h, int t) {
  // Its memory is zeroed below: nothing may still be reading it.
  if (Status s = drain(); !s.ok())
    return s;
  retire(t);
  // Before the answer: once it has it, the trainer may leave.
  w.markFinished(t);
  return answer(h, t, true, "");
}

Status PsServer::Impl::receive(const PsHeader &h, int t, const std::vector<Part> &parts,
                               const std::string &what, bool &refused) {
  // Registered memory is about to be written: answers reading it first.
  if (Status s = drain(); !s.ok())
    return s;
  if (w.copies[size_t(t)]) {
    for (const Part &part : parts) {
      if (part.bytes == 0)
        continue;
      if (Status s = copy(h, t, false, part.local, part.address, part.bytes, what, refused);
          !s.ok() || refused)
        return s;
    }
    return Status::success();
  }
  std::vector<std::unique_ptr<Xfer>> xfers;
  PeerFailure failure;
  for (const Part &part : parts) {
    if (part.bytes == 0)
      continue;
    xfers.push_back(w.transport->buffer(part.local, part.bytes));
    if (!xfers.back()->recv(t, psSlot(part.channel, h.seq), part.bytes, failure))
      return transportFailure(what, failure);
  }
  const Clock::time_point deadline = Clock::now() + options.timeout;
  for (auto &x : xfers)
    if (!x->wait(deadline, nullptr, failure)) {
      if (failure.timedOut)
        failure.what = "timed out after " + comm::formatSeconds(options.timeout) +
                       " waiting for the data (" + w.describe(t) + " announced it)";
      return transportFailure(what, failure);
    }
  return Status::success();
}

Status PsServer::Impl::copy(const PsHeader &h, int t, bool toTrainer, void *local,
                            uint64_t address, size_t bytes, const std::string &what,
                            bool &refused) {
  refused = false;
  if (address == 0) {
    refused = true;
    return refuse(h, t,
                  trainerName(t) + " gave no address for the " + bytesText(bytes) + " of " +
                      quote(h.name) + " that " + self() + " copies");
  }
  detail::PeerCopyError error;
  const detail::PeerProcess &peer = *w.peers[size_t(t)];
  bool ok = toTrainer ? peer.copyTo(local, address, bytes, error)
                      : peer.copyFrom(address, local, bytes, error);
  if (ok) {
    stats.copiedBytes += bytes;
    return Status::success();
  }
  if (error.peerGone) {
    PeerFailure failure;
    failure.peer = t;
    failure.send = toTrainer;
    failure.what = w.describe(t) + " exited";
    return transportFailure(what, failure);
  }
  refused = true;
  return refuse(h, t,
                what + ": copying " + bytesText(bytes) + (toTrainer ? " into " : " out of ") +
                    w.describe(t) + " failed: " + error.what);
}

Status PsServer::Impl::answer(const PsHeader &h, int t, bool done, const std::string &message,
                              uint64_t bytes) {
  if (outgoing.size() >= kMaxOutgoing)
    if (Status s = drain(); !s.ok())
      return s;
  PsReply reply;
  reply.kind = h.kind;
  reply.done = done;
  reply.bytes = bytes;
  reply.message = message;
  Outgoing out;
  out.reply = std::make_unique<std::array<unsigned char, kPsReplyBytes>>();
  encodePsReply(reply, out.reply->data());
  out.xfer = w.transport->buffer(out.reply->data(), kPsReplyBytes);
  out.trainer = t;
  out.what = "answering " + trainerName(t) + "'s " + psKindName(h.kind) +
             (h.name.empty() ? "" : " of " + quote(h.name));
  PeerFailure failure;
  if (!out.xfer->send(t, psSlot(PsChannel::Reply, h.seq), kPsReplyBytes, failure))
    return transportFailure(out.what, failure);
  outgoing.push_back(std::move(out));
  return Status::success();
}

Status PsServer::Impl::sendResult(const PsHeader &h, int t, const void *data, size_t bytes,
                                  bool &refused) {
  refused = false;
  if (bytes == 0)
    return Status::success();
  const std::string what = "sending " + quote(h.name) + " to " + trainerName(t);
  if (w.copies[size_t(t)])
    return copy(h, t, true, const_cast<void *>(data), h.resultAddress, bytes, what, refused);
  Outgoing out;
  out.xfer = w.transport->buffer(const_cast<void *>(data), bytes);
  out.trainer = t;
  out.what = what;
  PeerFailure failure;
  if (!out.xfer->send(t, psSlot(PsChannel::Result, h.seq), bytes, failure))
    return transportFailure(out.what, failure);
  outgoing.push_back(std::move(out));
  return Status::success();
}

Status PsServer::Impl::drain() {
  const Clock::time_point deadline = Clock::now() + options.timeout;
  PeerFailure failure;
  for (Outgoing &out : outgoing)
    if (!out.xfer->wait(deadline, nullptr, failure)) {
      if (failure.timedOut)
        failure.what = "timed out after " + comm::formatSeconds(options.timeout) + " waiting for " +
                       w.describe(out.trainer) + " to take the answer";
      return transportFailure(out.what, failure);
    }
  outgoing.clear();
  return Status::success();
}

Status PsServer::Impl::serve() {
  if (Status s = check(); !s.ok())
    return s;
  served = true;
  if (!w.broken.empty())
    return Status::error(w.broken);
  for (auto &entry : tables) {
    entry.second.ids.resize(entry.second.maxIds);
    entry.second.rows.resize(entry.second.maxIds * entry.second.rowBytes);
  }
  const size_t n = size_t(w.numTrainers);
  live.assign(n, 1);
  arrived.assign(n, 0);
  queuedFrom.assign(n, 0);
  liveCount = w.numTrainers;
  phase = Phase::Get;
  headerBytes.resize(kHeaderDepth);
  for (size_t i = 0; i < kHeaderDepth; ++i) {
    headerXfers.push_back(w.transport->buffer(headerBytes[i].data(), kPsHeaderBytes));
    if (Status s = postHeaderReceive(i); !s.ok())
      return s;
  }
  while (liveCount > 0) {
    PsHeader header;
    int trainer = -1;
    if (Status s = receiveHeader(header, trainer); !s.ok())
      return s;
    if (Status s = dispatch(header, trainer); !s.ok())
      return s;
  }
  return drain();
}

PsServer::PsServer(PsWorld &world, const PsServerOptions &options)
    : impl_(std::make_unique<Impl>(world, options)) {}
PsServer::~PsServer() = default;

Status PsServer::addReceivable(const std::string &name, int trainer, void *data, size_t bytes) {
  Impl &m = *impl_;
  if (Status s = m.check(); !s.ok())
    return s;
  if (Status s = m.checkNew(name, trainer); !s.ok())
    return s;
  if (!data && bytes)
    return Status::error("no memory given for " + quote(name));
  m.dense[name] = {data, bytes, trainer};
  return Status::success();
}

Status PsServer::addSparseReceivable(const std::string &name, int trainer, int64_t *rows,
                                     void *values, size_t rowBytes, size_t maxRows,
                                     size_t *rowCount) {
  Impl &m = *impl_;
  if (Status s = m.check(); !s.ok())
    return s;
  if (Status s = m.checkNew(name, trainer); !s.ok())
    return s;
  if (!rowCount || (maxRows && (!rows || (!values && rowBytes))))
    return Status::error("no memory given for the rows of " + quote(name));
  if (rowBytes && maxRows > SIZE_MAX / rowBytes)
    return Status::error(quote(name) + ": " + std::to_string(maxRows) + " rows of " +
                         bytesText(rowBytes) + " do not fit in memory");
  m.sparse[name] = {rows, values, rowBytes, maxRows, rowCount, trainer};
  *rowCount = 0;
  return Status::success();
}

Status PsServer::addServable(const std::string &name, const void *data, size_t bytes) {
  Impl &m = *impl_;
  if (Status s = m.check(); !s.ok())
    return s;
  if (Status s = checkPsName(name); !s.ok())
    return s;
  if (m.servables.count(name))
    return Status::error(quote(name) + " is served twice by " + m.self());
  if (!data && bytes)
    return Status::error("no memory given for " + quote(name));
  m.servables[name] = {data, bytes};
  return Status::success();
}

Status PsServer::addState(const std::string &name, void *data, size_t bytes) {
  Impl &m = *impl_;
  if (Status s = m.check(); !s.ok())
    return s;
  if (Status s = checkPsName(name); !s.ok())
    return s;
  if (m.states.count(name))
    return Status::error("state " + quote(name) + " is registered twice on " + m.self());
  if (!data && bytes)
    return Status::error("no memory given for " + quote(name));
  m.states[name] = {data, bytes};
  return Status::success();
}

Status PsServer::addPrefetchTable(const std::string &table, size_t rowBytes, size_t maxIds) {
  Impl &m = *impl_;
  if (Status s = m.check(); !s.ok())
    return s;
  if (Status s = checkPsName(table); !s.ok())
    return s;
  if (m.tables.count(table))
    return Status::error("prefetch table " + quote(table) + " is registered twice on " + m.self());
  if (rowBytes && maxIds > SIZE_MAX / rowBytes / 2)
    return Status::error("prefetch table " + quote(table) + ": " + std::to_string(maxIds) +
                         " rows of " + bytesText(rowBytes) + " do not fit in memory");
  m.tables[table] = {rowBytes, maxIds, {}, {}};
  return Status::success();
}

void PsServer::setPrefetch(PrefetchFn fn) { impl_->prefetch = std::move(fn); }
void PsServer::setOnStateWritten(StateWrittenFn fn) { impl_->onStateWritten = std::move(fn); }
void PsServer::setOptimize(OptimizeFn fn) { impl_->optimize = std::move(fn); }
void PsServer::setOnArrival(ArrivalFn fn) { impl_->onArrival = std::move(fn); }
Status PsServer::serve() { return impl_->serve(); }
const PsServerStats &PsServer::stats() const { return impl_->stats; }

} // namespace distc::pserver
