//===- GlooCommunicator.cpp - Collectives between CPU processes -----------===//
//
// Each collective is one or two exchanges (GlooExchange.h) on slots of its
// own: the sequence number of the collective and the phase, under a prefix
// Gloo's own algorithms never use. The buffer is split into `size` chunks
// of near-equal element counts; rank j owns chunk j.
//
// A sub-group's communicator is the same class over a context of its own;
// it knows the world rank of each of its ranks (worldRanks) for messages,
// the departure log and the waited-for records, which speak of world ranks.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/GlooCommunicator.h"

#include "CheckArgs.h"
#include "FailureReport.h"
#include "GlooContext.h"
#include "GlooExchange.h"
#include "PeerWatch.h"
#include "ReduceKernels.h"
#include "SigpipeGuard.h"
#include "Socket.h"

#include <gloo/rendezvous/context.h>

#include <algorithm>
#include <cstring>

namespace distc::comm {

using namespace detail;
using std::chrono::milliseconds;

namespace {

/// Element ranges of the per-rank chunks of `count` elements.
struct Chunks {
  Chunks(size_t count, int parts) : base(count / parts), rem(count % parts) {}
  size_t offset(int i) const { return base * i + (size_t(i) < rem ? i : rem); }
  size_t count(int i) const { return base + (size_t(i) < rem ? 1 : 0); }
  size_t base, rem;
};

/// Broadcasts at most this many bytes straight from the root; larger ones
/// scatter chunks and allgather them so the root's link is not the bottleneck.
constexpr size_t kDirectBroadcastBytes = 64 << 10;

/// All-reduces of at most this many bytes exchange whole buffers in one
/// round instead of a reduce-scatter and an allgather: latency, not
/// bandwidth, decides their cost (each Gloo transfer is a handshake).
constexpr size_t kDirectAllreduceBytes = 64 << 10;

/// Slots: 0xD1 in the top byte (Gloo's algorithms use 0x01-0x08 there,
/// its context slots small numbers), then 16 bits of the collective's
/// signature, 32 of its sequence number and 8 of the phase. Ranks that
/// disagree on a collective's kind, count, dtype, op or root thus post to
/// different slots and time out, instead of pairing transfers of different
/// sizes, which makes Gloo abort the process.
constexpr uint64_t kSlotPrefix = uint64_t(0xD1) << 56;

uint16_t signature(const char *name, size_t count, DType dtype, int op, int root) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  for (const char *p = name; *p; ++p)
    mix(uint8_t(*p));
  mix(count);
  mix(uint64_t(dtype));
  mix(uint64_t(int64_t(op)));
  mix(uint64_t(int64_t(root)));
  return uint16_t(h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48));
}

} // namespace

class GlooCommunicator::Impl {
public:
  Impl(int rank, int size, std::shared_ptr<Store> store, const GlooOptions &options)
      : rank(rank), size(size), options(options), store(std::move(store)) {}

  ~Impl() {
    SigpipeGuard guard;
    watch.reset();
    // Leave the store first: a peer that sees our connections close then
    // finds our departure in the log instead of guessing.
    store.reset();
    context.reset();
    device.reset();
    if (server && !broken.empty())
      awaitOtherRanks(*server, rank, size, options.timeout);
    server.reset();
  }

  /// The world rank of rank `r` of this communicator (-1 stays -1).
  int worldRank(int r) const {
    return worldRanks.empty() || r < 0 || r >= int(worldRanks.size()) ? r : worldRanks[size_t(r)];
  }

  /// Connects this rank's context to the other ranks' over `device`,
  /// exchanging addresses under options.prefix within `bound`, and starts
  /// watching the departure log. False with `error` (the failure report).
  bool connect(milliseconds bound, std::string &error) {
    SigpipeGuard guard;
    try {
      context =
          connectGlooContext(rank, size, *store, options.prefix, device, bound, options.timeout);
      watch = PeerWatch::start(*store, worldRank(rank), error);
      return watch != nullptr;
    } catch (const std::exception &e) {
      PeerFailure failure;
      failure.what = stripGlooLocation(e.what());
      error = fail("connecting to the other ranks", failure).message();
      return false;
    }
  }

  /// Starts collective `name`: numbers it, fixes its deadline and the
  /// signature its slots carry.
  Status begin(const char *name, size_t count = 0, DType dtype = DType::UInt8, int op = -1,
               int root = -1) {
    if (!broken.empty())
      return Status::error(broken);
    ++seq;
    sig = signature(name, count, dtype, op, root);
    what = std::string(name) + " #" + std::to_string(seq);
    deadline = Clock::now() + options.timeout;
    return Status::success();
  }

  /// One exchange of the current collective; on failure, breaks the
  /// communicator and returns the report.
  Status run(int phase, const std::vector<Transfer> &sends, const std::vector<Transfer> &recvs) {
    uint64_t slot =
        kSlotPrefix | (uint64_t(sig) << 40) | ((seq & 0xFFFFFFFFull) << 8) | uint64_t(phase);
    PeerFailure failure;
    SigpipeGuard guard;
    if (exchange(*context, slot, sends, recvs, deadline, watch.get(), failure))
      return Status::success();
    return fail(what, failure);
  }

  /// Breaks the communicator: `name` (the collective, without the ring)
  /// failed with `peer` (a rank of this communicator).
  Status fail(const std::string &name, const PeerFailure &peer) {
    FailureFacts facts;
    facts.what = name + label;
    facts.rank = worldRank(rank);
    facts.peer = peer;
    facts.peer.peer = worldRank(peer.peer);
    facts.timeout = options.timeout;
    facts.storeWhere = hostPort(store->host(), store->port());
    // A dead peer's store connection ends when its transport connections
    // do; give the server a moment to log it. After a timeout the log is
    // whatever it is now.
    milliseconds wait = peer.timedOut ? milliseconds(0) : milliseconds(2000);
    if (!store->departures(wait, facts.log).ok())
      facts.storeGone = true;
    FailureReport report = describeFailure(facts);
    recordWaitedFor(*store, options.recordsPrefix.empty() ? options.prefix : options.recordsPrefix,
                    facts, report);
    store->leave(report.cause);
    if (context) {
      try {
        context->closeConnections();
      } catch (const std::exception &) {
      }
    }
    broken = report.message;
    return Status::error(broken);
  }

  char *scratchFor(size_t bytes) {
    if (scratch.size() < bytes)
      scratch.resize(bytes);
    return scratch.data();
  }

  /// Reduce-scatter: afterwards `acc` holds this rank's chunk of the
  /// reduction, combined in rank order.
  Status reduceScatter(const char *data, const Chunks &chunks, DType dtype, ReduceOp op,
                       char *&acc) {
    size_t es = runtime::dtypeSize(dtype);
    size_t mine = chunks.count(rank) * es;
    char *pieces = scratchFor(mine * size); // piece r: rank r's copy of our chunk
    std::vector<Transfer> sends, recvs;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank)
        continue;
      sends.push_back(
          {peer, const_cast<char *>(data) + chunks.offset(peer) * es, chunks.count(peer) * es});
      recvs.push_back({peer, pieces + peer * mine, mine});
    }
    Status s = run(1, sends, recvs);
    if (!s.ok())
      return s;
    // Our own slot is unused by the transfers: accumulate there.
    const char *own = data + chunks.offset(rank) * es;
    acc = pieces + rank * mine;
    if (mine)
      std::memcpy(acc, rank == 0 ? own : pieces, mine);
    for (int r = 1; r < size; ++r)
      combine(acc, r == rank ? own : pieces + r * mine, chunks.count(rank), dtype, op);
    return Status::success();
  }

  const int rank, size;
  const GlooOptions options;
  /// A sub-group's: the world rank of each rank; empty for the world.
  std::vector<int> worldRanks;
  /// A sub-group's " on ring <id>", appended to collectives in messages.
  std::string label;
  std::shared_ptr<Store> store;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::unique_ptr<StoreServer> server;
  std::unique_ptr<PeerWatch> watch;
  uint64_t seq = 0;
  uint16_t sig = 0;
  std::string what;
  Clock::time_point deadline;
  std::string broken;
  std::vector<char> scratch;
};

GlooCommunicator::GlooCommunicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GlooCommunicator::~GlooCommunicator() = default;

std::unique_ptr<GlooCommunicator> GlooCommunicator::create(int rank, int size,
                                                           std::shared_ptr<Store> store,
                                                           const GlooOptions &options,
                                                           std::string &error) {
  if (size < 1 || rank < 0 || rank >= size) {
    error = "rank " + std::to_string(rank) + " is outside [0, " + std::to_string(size) + ")";
    return nullptr;
  }
  if (!store) {
    error = "a Gloo communicator needs a rendezvous store";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>(rank, size, store, options);
  {
    // The guard also covers the device's event-loop thread, which inherits
    // the blocked SIGPIPE from this thread.
    SigpipeGuard guard;
    try {
      impl->device = createGlooDevice(options.host, options.iface, *store);
    } catch (const std::exception &e) {
      PeerFailure failure;
      failure.what = stripGlooLocation(e.what());
      error = impl->fail("connecting to the other ranks", failure).message();
      return nullptr;
    }
  }
  if (!impl->connect(options.connectTimeout, error))
    return nullptr;
  return std::unique_ptr<GlooCommunicator>(new GlooCommunicator(std::move(impl)));
}

int GlooCommunicator::rank() const { return impl_->rank; }
int GlooCommunicator::size() const { return impl_->size; }
const std::string &GlooCommunicator::failure() const { return impl_->broken; }

void GlooCommunicator::adoptServer(std::unique_ptr<StoreServer> server) {
  impl_->server = std::move(server);
}

Status GlooCommunicator::allreduce(void *data, size_t count, DType dtype, ReduceOp op) {
  Status s = checkBuffer("allreduce", data, count);
  if (s.ok())
    s = checkReducible("allreduce", dtype);
  if (s.ok())
    s = impl_->begin("allreduce", count, dtype, int(op));
  if (!s.ok() || count == 0)
    return s;
  Impl &m = *impl_;
  size_t es = runtime::dtypeSize(dtype);
  char *bytes = static_cast<char *>(data);
  if (count * es <= kDirectAllreduceBytes) {
    // Every rank sends its buffer to every other and folds the copies in
    // rank order: the same result, bit for bit, as the chunked path.
    const size_t n = count * es;
    char *copies = m.scratchFor(n * size_t(m.size)); // copy r: rank r's buffer
    std::vector<Transfer> sends, recvs;
    for (int peer = 0; peer < m.size; ++peer) {
      if (peer == m.rank)
        continue;
      sends.push_back({peer, bytes, n});
      recvs.push_back({peer, copies + size_t(peer) * n, n});
    }
    s = m.run(1, sends, recvs);
    if (!s.ok())
      return s;
    std::memcpy(copies + size_t(m.rank) * n, bytes, n);
    for (int r = 1; r < m.size; ++r)
      combine(copies, copies + size_t(r) * n, count, dtype, op);
    std::memcpy(bytes, copies, n);
    return Status::success();
  }
  Chunks chunks(count, m.size);
  char *acc = nullptr;
  s = m.reduceScatter(bytes, chunks, dtype, op, acc);
  if (!s.ok())
    return s;
  char *mine = bytes + chunks.offset(m.rank) * es;
  if (chunks.count(m.rank))
    std::memcpy(mine, acc, chunks.count(m.rank) * es);
  // Allgather of the reduced chunks.
  std::vector<Transfer> sends, recvs;
  for (int peer = 0; peer < m.size; ++peer) {
    if (peer == m.rank)
      continue;
    sends.push_back({peer, mine, chunks.count(m.rank) * es});
    recvs.push_back({peer, bytes + chunks.offset(peer) * es, chunks.count(peer) * es});
  }
  return m.run(2, sends, recvs);
}

Status GlooCommunicator::reduce(void *data, size_t count, DType dtype, ReduceOp op, int root) {
  Status s = checkBuffer("reduce", data, count);
  if (s.ok())
    s = checkReducible("reduce", dtype);
  if (s.ok())
    s = checkRoot("reduce", root, impl_->size);
  if (s.ok())
    s = impl_->begin("reduce", count, dtype, int(op), root);
  if (!s.ok() || count == 0)
    return s;
  Impl &m = *impl_;
  Chunks chunks(count, m.size);
  size_t es = runtime::dtypeSize(dtype);
  char *bytes = static_cast<char *>(data);
  char *acc = nullptr;
  s = m.reduceScatter(bytes, chunks, dtype, op, acc);
  if (!s.ok())
    return s;
  // Gather the reduced chunks on root; other ranks' buffers stay as given.
  std::vector<Transfer> sends, recvs;
  if (m.rank == root) {
    for (int peer = 0; peer < m.size; ++peer)
      if (peer != root)
        recvs.push_back({peer, bytes + chunks.offset(peer) * es, chunks.count(peer) * es});
  } else {
    sends.push_back({root, acc, chunks.count(m.rank) * es});
  }
  s = m.run(2, sends, recvs);
  if (s.ok() && m.rank == root && chunks.count(root))
    std::memcpy(bytes + chunks.offset(root) * es, acc, chunks.count(root) * es);
  return s;
}

Status GlooCommunicator::broadcast(void *data, size_t count, DType dtype, int root) {
  Status s = checkBuffer("broadcast", data, count);
  if (s.ok())
    s = checkElementType("broadcast", dtype);
  if (s.ok())
    s = checkRoot("broadcast", root, impl_->size);
  if (s.ok())
    s = impl_->begin("broadcast", count, dtype, -1, root);
  if (!s.ok() || count == 0)
    return s;
  Impl &m = *impl_;
  size_t es = runtime::dtypeSize(dtype);
  char *bytes = static_cast<char *>(data);
  std::vector<Transfer> sends, recvs;
  if (count * es <= kDirectBroadcastBytes || m.size == 2) {
    if (m.rank == root) {
      for (int peer = 0; peer < m.size; ++peer)
        if (peer != root)
          sends.push_back({peer, bytes, count * es});
    } else {
      recvs.push_back({root, bytes, count * es});
    }
    return m.run(1, sends, recvs);
  }
  // Scatter chunk k to rank k, then every rank passes its chunk on.
  Chunks chunks(count, m.size);
  auto chunk = [&](int k) {
    return Transfer{-1, bytes + chunks.offset(k) * es, chunks.count(k) * es};
  };
  if (m.rank == root) {
    for (int peer = 0; peer < m.size; ++peer)
      if (peer != root)
        sends.push_back({peer, chunk(peer).ptr, chunk(peer).bytes});
  } else {
    recvs.push_back({root, chunk(m.rank).ptr, chunk(m.rank).bytes});
  }
  s = m.run(1, sends, recvs);
  if (!s.ok())
    return s;
  sends.clear();
  recvs.clear();
  for (int peer = 0; peer < m.size; ++peer) {
    if (peer == m.rank)
      continue;
    if (peer != root)
      sends.push_back({peer, chunk(m.rank).ptr, chunk(m.rank).bytes});
    if (m.rank != root)
      recvs.push_back({peer, chunk(peer).ptr, chunk(peer).bytes});
  }
  return m.run(2, sends, recvs);
}

Status GlooCommunicator::allgather(const void *in, void *out, size_t countPerRank, DType dtype) {
  Status s = checkAllgather(in, out, countPerRank, dtype, rank(), size());
  if (s.ok())
    s = impl_->begin("allgather", countPerRank, dtype);
  if (!s.ok() || countPerRank == 0)
    return s;
  Impl &m = *impl_;
  size_t block = countPerRank * runtime::dtypeSize(dtype);
  char *bytes = static_cast<char *>(out);
  char *mine = bytes + m.rank * block;
  if (in != mine)
    std::memcpy(mine, in, block);
  std::vector<Transfer> sends, recvs;
  for (int peer = 0; peer < m.size; ++peer) {
    if (peer == m.rank)
      continue;
    sends.push_back({peer, mine, block});
    recvs.push_back({peer, bytes + peer * block, block});
  }
  return m.run(1, sends, recvs);
}

Status GlooCommunicator::reduceScatter(const void *in, void *out, size_t countPerRank, DType dtype,
                                       ReduceOp op) {
  const size_t total = countPerRank * size_t(size());
  Status s = checkDisjoint("reducescatter", in, total, out, countPerRank, dtype);
  if (s.ok())
    s = checkReducible("reducescatter", dtype);
  if (s.ok())
    s = impl_->begin("reducescatter", countPerRank, dtype, int(op));
  if (!s.ok() || countPerRank == 0)
    return s;
  Impl &m = *impl_;
  char *acc = nullptr;
  s = m.reduceScatter(static_cast<const char *>(in), Chunks(countPerRank * size_t(m.size), m.size),
                      dtype, op, acc);
  if (s.ok())
    std::memcpy(out, acc, countPerRank * runtime::dtypeSize(dtype));
  return s;
}

Status GlooCommunicator::alltoall(const void *in, void *out, size_t countPerRank, DType dtype) {
  const size_t total = countPerRank * size_t(size());
  Status s = checkDisjoint("alltoall", in, total, out, total, dtype);
  if (s.ok())
    s = impl_->begin("alltoall", countPerRank, dtype);
  if (!s.ok() || countPerRank == 0)
    return s;
  Impl &m = *impl_;
  const size_t block = countPerRank * runtime::dtypeSize(dtype);
  const char *from = static_cast<const char *>(in);
  char *to = static_cast<char *>(out);
  std::memcpy(to + size_t(m.rank) * block, from + size_t(m.rank) * block, block);
  std::vector<Transfer> sends, recvs;
  for (int peer = 0; peer < m.size; ++peer) {
    if (peer == m.rank)
      continue;
    sends.push_back({peer, const_cast<char *>(from) + size_t(peer) * block, block});
    recvs.push_back({peer, to + size_t(peer) * block, block});
  }
  return m.run(1, sends, recvs);
}

Status GlooCommunicator::makeSubgroup(const std::vector<int> &groupRanks, int ringId,
                                      std::unique_ptr<Communicator> &out) {
  Impl &m = *impl_;
  int member = 0;
  if (Status s = checkGroup(groupRanks, ringId, m.rank, m.size, member); !s.ok())
    return s;
  if (!m.broken.empty())
    return Status::error(m.broken);
  if (groupRanks.size() == 1) {
    out = std::make_unique<LocalCommunicator>();
    return Status::success();
  }
  std::vector<int> worldRanks;
  for (int r : groupRanks)
    worldRanks.push_back(m.worldRank(r));
  GlooOptions o = subgroupOptions(m.options, ringId, worldRanks[0]);
  auto impl = std::make_unique<Impl>(member, int(groupRanks.size()), m.store, o);
  impl->worldRanks = std::move(worldRanks);
  impl->label = " on " + ringLabel(ringId);
  impl->device = m.device;
  std::string error;
  const milliseconds bound = o.subgroupTimeout.count() > 0 ? o.subgroupTimeout : o.connectTimeout;
  if (!impl->connect(bound, error))
    return Status::error(error);
  std::unique_ptr<GlooCommunicator> comm(new GlooCommunicator(std::move(impl)));
  // As connect() does for the world: return once every member's pairs are up.
  if (Status s = comm->barrier(); !s.ok())
    return s;
  out = std::move(comm);
  return Status::success();
}

Status GlooCommunicator::barrier() {
  Status s = impl_->begin("barrier");
  if (!s.ok())
    return s;
  Impl &m = *impl_;
  // A one-byte allgather: having every rank's byte means every rank came.
  char token = 1;
  std::vector<char> tokens(m.size);
  std::vector<Transfer> sends, recvs;
  for (int peer = 0; peer < m.size; ++peer) {
    if (peer == m.rank)
      continue;
    sends.push_back({peer, &token, 1});
    recvs.push_back({peer, &tokens[peer], 1});
  }
  return m.run(1, sends, recvs);
}

} // namespace distc::comm
