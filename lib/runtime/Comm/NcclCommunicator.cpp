//===- NcclCommunicator.cpp - Collectives between GPUs over NCCL ----------===//
//
// Store keys (under NcclOptions::prefix): id holds rank 0's ncclUniqueId
// (128 bytes); abort the message of the first rank that failed to form
// the communicator, so that ranks waiting for the id fail with it at once.
//
// The communicator is created non-blocking (ncclConfig_t::blocking = 0):
// no NCCL call waits for a peer, so every wait is ours and has a deadline.
// A wait polls ncclCommGetAsyncError (the enqueue or init state, and
// errors NCCL found, e.g. a peer lost over the network) and then
// cudaStreamQuery, and every kWatchInterval the store's departure log.
// Once another rank has left the store (died, failed, closed its
// communicator) or the store is gone with rank 0, the wait goes on for
// kDepartureGrace (a rank may leave right after completing the collective)
// and then fails, naming the rank from the log as GlooCommunicator does
// (FailureReport.h); NCCL itself would spin forever there, since ranks on
// one node wait on each other's memory. On any failure the communicator
// is aborted (ncclCommAbort stops its kernels).
//
// NCCL does not say which rank a timed-out collective waited for. So a
// rank whose collective is slow (kReachedAfter) records its number under
// reached/<rank>, once per collective: fast collectives cost no store
// round trip. At the timeout, the rank with the lowest record below this
// collective (no record: none reached) is the one the others wait for; it
// is named, and recorded for the launcher (waitedForKey, Rendezvous.h).
// When every rank reached the collective, NCCL itself did not complete it
// (a hung kernel, a network fault), and the message says so.
//
// A sub-group's communicator is the same class: formed by ncclCommSplit of
// its parent (or, with an NCCL before 2.18, an id its first member
// publishes under the group's keys), it knows the world rank of each of
// its ranks (worldRanks) for messages, the departure log and the records,
// which speak of world ranks.
//
//===----------------------------------------------------------------------===//

#include "distc/Comm/NcclCommunicator.h"

#include "CheckArgs.h"
#include "FailureReport.h"
#include "NcclDriver.h"
#include "RendezvousJoin.h"
#include "Socket.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

namespace distc::comm {

using namespace detail;
using std::chrono::milliseconds;

namespace {

/// How often a wait looks at the store's departure log.
constexpr milliseconds kWatchInterval{250};
/// How long a wait goes on after another rank left the store (or the
/// store went away with rank 0): a rank that finished the collective may
/// exit or close before this rank has seen its completion.
constexpr milliseconds kDepartureGrace{1000};
/// How long a failing rank waits for a dead peer's departure to be logged
/// when NCCL's error points at a peer.
constexpr milliseconds kDepartureWait{2000};
/// After this much of a collective's wait (at most a quarter of the
/// timeout), a rank records that it reached the collective.
constexpr milliseconds kReachedAfter{1000};

/// Sleeps a little longer each time: the first millisecond only yields, so
/// that small collectives return within microseconds of completing.
class Backoff {
public:
  void pause() {
    if (Clock::now() - start_ < milliseconds(1)) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(sleepUs_));
    sleepUs_ = std::min(sleepUs_ * 2, 500);
  }

private:
  Clock::time_point start_ = Clock::now();
  int sleepUs_ = 10;
};

} // namespace

namespace detail {

Status ncclReductionType(const char *op, DType dtype, ncclDataType_t &type) {
  switch (dtype) {
  case DType::Int8:
    type = ncclInt8;
    return Status::success();
  case DType::UInt8:
    type = ncclUint8;
    return Status::success();
  case DType::Int32:
    type = ncclInt32;
    return Status::success();
  case DType::Int64:
    type = ncclInt64;
    return Status::success();
  case DType::Float16:
    type = ncclFloat16;
    return Status::success();
  case DType::BFloat16:
    type = ncclBfloat16;
    return Status::success();
  case DType::Float32:
    type = ncclFloat32;
    return Status::success();
  case DType::Float64:
    type = ncclFloat64;
    return Status::success();
  case DType::Bool:
  case DType::Int16:
    break;
  }
  Status s = checkElementType(op, dtype);
  if (!s.ok())
    return s;
  return Status::error(std::string(op) + " of " + runtime::dtypeName(dtype) +
                       " is not supported by NCCL; its reductions support i8, u8, i32, i64, f16, "
                       "bf16, f32 and f64");
}

Status ncclReduction(const char *op, ReduceOp reduceOp, ncclRedOp_t &nccl) {
  switch (reduceOp) {
  case ReduceOp::Sum:
    nccl = ncclSum;
    return Status::success();
  case ReduceOp::Max:
    nccl = ncclMax;
    return Status::success();
  case ReduceOp::Min:
    nccl = ncclMin;
    return Status::success();
  case ReduceOp::Prod:
    nccl = ncclProd;
    return Status::success();
  }
  return Status::error(std::string(op) + ": unknown reduction " +
                       std::to_string(static_cast<int>(reduceOp)));
}

std::string describeNccl(NcclDriver &driver, const char *call, ncclResult_t r, ncclComm_t comm) {
  const char *text = driver.getErrorString(r);
  std::string message = std::string(call) + ": " + (text ? text : "unknown NCCL error");
  const char *last = driver.getLastError(comm);
  if (last && *last && (!text || std::strcmp(last, text) != 0))
    message += " (" + std::string(last) + ")";
  return message;
}

std::string describeCuda(NcclDriver &driver, const std::string &call, cudaError_t e) {
  const char *text = driver.cudaErrorString(e);
  const char *name = driver.cudaErrorName(e);
  return call + ": " + (text ? text : "unknown CUDA error") + " (" +
         (name ? name : std::to_string(static_cast<int>(e))) + ")";
}

int cudaDeviceCount(NcclDriver &driver, std::string &why) {
  int count = 0;
  cudaError_t e = driver.getDeviceCount(&count);
  if (e != cudaSuccess) {
    why = "no CUDA device: " + describeCuda(driver, "cudaGetDeviceCount", e);
    int driverVersion = 0, runtimeVersion = 0;
    if (e == cudaErrorInsufficientDriver &&
        driver.driverGetVersion(&driverVersion) == cudaSuccess) {
      auto version = [](int v) {
        return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
      };
      if (driverVersion == 0)
        why.insert(why.size() - 1, "; no NVIDIA driver is loaded");
      else if (driver.runtimeGetVersion(&runtimeVersion) == cudaSuccess)
        why.insert(why.size() - 1, "; the driver supports CUDA " + version(driverVersion) +
                                       ", this build needs " + version(runtimeVersion));
    }
    return 0;
  }
  if (count <= 0) {
    why = "no CUDA device: cudaGetDeviceCount found none";
    if (const char *visible = std::getenv("CUDA_VISIBLE_DEVICES"))
      why += std::string(" (CUDA_VISIBLE_DEVICES='") + visible + "')";
    return 0;
  }
  why.clear();
  return count;
}

} // namespace detail

class NcclCommunicator::Impl {
public:
  Impl(int rank, int size, std::shared_ptr<Store> store, const NcclOptions &options,
       std::unique_ptr<NcclDriver> driver)
      : rank(rank), size(size), options(options), driver(std::move(driver)),
        store(std::move(store)) {}

  ~Impl() {
    // Leave the store first: a peer still in a collective then finds this
    // rank's departure instead of waiting for its timeout.
    if (store)
      store.reset();
    if (comm)
      closeComm();
    if (scratch)
      (void)driver->deviceFree(scratch);
    if (stream)
      (void)driver->streamDestroy(stream);
    if (server && !broken.empty())
      awaitOtherRanks(*server, rank, size, options.timeout);
    server.reset();
  }

  std::string key(const char *name) const { return options.prefix + "/" + name; }

  /// The world rank of rank `r` of this communicator (-1 stays -1).
  int worldRank(int r) const {
    return worldRanks.empty() || r < 0 || r >= int(worldRanks.size()) ? r : worldRanks[size_t(r)];
  }

  /// ncclCommFinalize (which waits for the other ranks on this node), then
  /// ncclCommDestroy; ncclCommAbort if finalizing fails or takes longer
  /// than the timeout (at most 10 s).
  void closeComm() {
    ncclComm_t c = comm;
    comm = nullptr;
    bool clean = broken.empty();
    if (clean) {
      Clock::time_point deadline =
          Clock::now() + std::min<milliseconds>(options.timeout, milliseconds(10000));
      ncclResult_t r = driver->commFinalize(c);
      Backoff backoff;
      while (r == ncclInProgress && Clock::now() < deadline) {
        backoff.pause();
        ncclResult_t state = ncclSuccess;
        r = driver->commGetAsyncError(c, &state);
        if (r == ncclSuccess)
          r = state;
      }
      clean = r == ncclSuccess;
    }
    if (clean)
      (void)driver->commDestroy(c);
    else
      (void)driver->commAbort(c);
  }

  /// Starts collective `name`: numbers it and fixes its deadline.
  Status begin(const char *name) {
    if (!broken.empty())
      return Status::error(broken);
    ++seq;
    what = std::string(name) + " #" + std::to_string(seq);
    Clock::time_point now = Clock::now();
    deadline = now + options.timeout;
    reachedAt = now + std::min(kReachedAfter, options.timeout / 4);
    // The current device is the calling thread's: a communication thread
    // other than the one that formed the communicator has device 0.
    if (cudaError_t e = driver->setDevice(options.device); e != cudaSuccess)
      return fail(what,
                  describeCuda(*driver, "cudaSetDevice(" + std::to_string(options.device) + ")", e),
                  false);
    return Status::success();
  }

  /// The departures of this communicator's ranks since it was formed
  /// (logBaseline), waiting up to `wait` for a first one. An error when
  /// the store is gone.
  Status departures(milliseconds wait, std::vector<Departure> &log) {
    Clock::time_point until = Clock::now() + wait;
    for (;;) {
      Status s = store->departures(milliseconds(0), log);
      if (!s.ok())
        return s;
      log.erase(log.begin(), log.begin() + std::min(logBaseline, log.size()));
      log.erase(
          std::remove_if(log.begin(), log.end(),
                         [&](const Departure &d) { return d.rank < 0 || d.rank >= worldSize; }),
          log.end());
      if (!log.empty() || Clock::now() >= until)
        return Status::success();
      std::this_thread::sleep_for(milliseconds(50));
    }
  }

  /// Whether another rank has left the store (died, failed or closed its
  /// communicator), or the store is gone (with rank 0).
  bool peerGone() {
    if (!store)
      return false;
    std::vector<Departure> log;
    if (!departures(milliseconds(0), log).ok())
      return true;
    for (const Departure &d : log)
      if (d.rank != worldRank(rank))
        return true;
    return false;
  }

  /// Polls until the state of the communicator is ncclSuccess and, if
  /// `onStream` (a collective), the stream has drained; fails at the
  /// deadline, on an error, or when a peer is gone. `call` names the NCCL
  /// call awaited; `onTimeout` is the message at the deadline, except for
  /// a collective, whose message names the rank behind.
  Status await(const std::string &name, const char *call, bool onStream, Clock::time_point until,
               const std::string &onTimeout) {
    Clock::time_point nextWatch = Clock::now() + kWatchInterval;
    std::optional<Clock::time_point> goneSince;
    Backoff backoff;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      ncclResult_t r = driver->commGetAsyncError(comm, &state);
      if (r != ncclSuccess)
        return fail(name, describeNccl(*driver, "ncclCommGetAsyncError", r, comm), false);
      if (state != ncclSuccess && state != ncclInProgress)
        return fail(name, describeNccl(*driver, call, state, comm),
                    state == ncclRemoteError || state == ncclSystemError);
      if (state == ncclSuccess) {
        if (!onStream)
          return Status::success();
        cudaError_t e = driver->streamQuery(stream);
        if (e == cudaSuccess)
          return Status::success();
        if (e != cudaErrorNotReady)
          return fail(name, describeCuda(*driver, std::string("cudaStreamQuery after ") + call, e),
                      false);
      }
      Clock::time_point now = Clock::now();
      if (onStream && now >= reachedAt && reachedRecorded != seq)
        recordReached();
      if (now >= until)
        return onStream ? failCollectiveTimeout(name) : fail(name, onTimeout, false);
      if (goneSince && now - *goneSince >= kDepartureGrace)
        return fail(name, "another rank is gone", false);
      if (!goneSince && now >= nextWatch) {
        nextWatch = now + kWatchInterval;
        if (peerGone())
          goneSince = now;
      }
      backoff.pause();
    }
  }

  /// After enqueueing `call` (result `r`): waits for it within the
  /// collective's deadline.
  Status finish(const char *call, ncclResult_t r) {
    if (r != ncclSuccess && r != ncclInProgress)
      return fail(what, describeNccl(*driver, call, r, comm), false);
    return await(what, call, true, deadline, "");
  }

  /// The key where `r` records the last slow collective it reached.
  std::string reachedKey(int r) const { return options.prefix + "/reached/" + std::to_string(r); }

  void recordReached() {
    reachedRecorded = seq;
    if (store)
      (void)store->set(reachedKey(rank), std::to_string(seq));
  }

  /// The rank with the lowest reached/ record below this collective (a
  /// rank with none reached none), or -1 when every rank reached it or
  /// the store does not answer.
  int rankBehind() {
    if (!store)
      return -1;
    std::vector<std::string> keys, present;
    for (int r = 0; r < size; ++r)
      keys.push_back(reachedKey(r));
    if (!store->check(keys, present).ok())
      return -1;
    int behind = -1;
    uint64_t lowest = seq;
    for (int r = 0; r < size; ++r) {
      if (r == rank)
        continue;
      uint64_t reached = 0;
      std::string value;
      if (std::find(present.begin(), present.end(), keys[size_t(r)]) != present.end() &&
          store->get(keys[size_t(r)], value).ok())
        reached = std::strtoull(value.c_str(), nullptr, 10);
      if (reached < lowest) {
        lowest = reached;
        behind = r;
      }
    }
    return behind;
  }

  /// A collective that timed out: names the rank that has not reached
  /// it, or says that every rank did.
  Status failCollectiveTimeout(const std::string &name) {
    int behind = rankBehind();
    if (behind >= 0)
      return fail(name, "", false, behind);
    return fail(name,
                "timed out after " + formatSeconds(options.timeout) + "; every rank reached " +
                    name +
                    ", but NCCL did not complete it (different collectives, counts or roots on "
                    "the ranks, a hung kernel, or a network fault)",
                false);
  }

  /// Breaks the communicator: names the cause (the store's departure log
  /// first, as GlooCommunicator does), aborts NCCL's communicator, records
  /// the cause in the store for the other ranks and leaves it.
  /// `waitedFor`: the rank this one timed out waiting for.
  Status fail(const std::string &name, const std::string &detail, bool peerSuspected,
              int waitedFor = -1) {
    FailureFacts facts;
    facts.what = name + label;
    facts.rank = worldRank(rank);
    facts.peer.what = detail;
    facts.peer.peer = worldRank(waitedFor);
    facts.peer.timedOut = waitedFor >= 0;
    facts.timeout = options.timeout;
    if (store) {
      facts.storeWhere = hostPort(store->host(), store->port());
      milliseconds wait = peerSuspected ? kDepartureWait : milliseconds(0);
      if (!departures(wait, facts.log).ok())
        facts.storeGone = true;
    }
    FailureReport report = describeFailure(facts);
    if (comm) {
      (void)driver->commAbort(comm);
      comm = nullptr;
    }
    if (store) {
      (void)store->set(key("abort"), report.message);
      recordWaitedFor(*store, options.recordsPrefix.empty() ? options.prefix : options.recordsPrefix,
                      facts, report);
      store->leave(report.cause);
    }
    broken = report.message;
    return Status::error(broken);
  }

  /// Creation: the device, the stream, then NCCL's communicator: split
  /// from `parent` (a sub-group's, with `color` naming the group) where
  /// NCCL can, else the id exchange and NCCL's init.
  Status form(Impl *parent = nullptr, int color = 0) {
    const std::string name = "forming the NCCL communicator";
    Clock::time_point until = Clock::now() + options.connectTimeout;
    std::string why;
    int devices = detail::cudaDeviceCount(*driver, why);
    if (devices == 0)
      return fail(name, "cannot use CUDA device " + std::to_string(options.device) + ": " + why,
                  false);
    if (options.device < 0 || options.device >= devices)
      return fail(name,
                  "CUDA device " + std::to_string(options.device) + " does not exist (" +
                      std::to_string(devices) + (devices == 1 ? " device" : " devices") +
                      " visible)",
                  false);
    cudaError_t e = driver->setDevice(options.device);
    if (e == cudaSuccess)
      e = driver->streamCreate(&stream);
    if (e == cudaSuccess)
      e = driver->deviceMalloc(&scratch, 8);
    if (e != cudaSuccess)
      return fail(
          name,
          describeCuda(*driver, "setting up CUDA device " + std::to_string(options.device), e),
          false);

    if (parent && driver->canSplit()) {
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 0;
      // The key orders the new ranks: this rank's member index.
      ncclResult_t r = driver->commSplit(parent->comm, color, rank, &comm, &config);
      if (r != ncclSuccess && r != ncclInProgress)
        return fail(name, describeNccl(*driver, "ncclCommSplit", r, comm), false);
      if (!comm)
        return fail(name, "ncclCommSplit returned no communicator", false);
      const std::string timedOut = "timed out after " + formatSeconds(options.connectTimeout) +
                                   " in ncclCommSplit (a rank did not call it, or is stuck in it)";
      if (Status s = await(name, "ncclCommSplit", false, until, timedOut); !s.ok())
        return s;
      // A non-blocking parent stays busy with the split until it is done;
      // its next call must find it idle.
      Backoff backoff;
      for (;;) {
        ncclResult_t state = ncclSuccess;
        ncclResult_t r = parent->driver->commGetAsyncError(parent->comm, &state);
        if (r == ncclSuccess)
          r = state;
        if (r == ncclSuccess)
          return Status::success();
        if (r != ncclInProgress)
          return fail(name, describeNccl(*parent->driver, "ncclCommSplit", r, parent->comm), false);
        if (Clock::now() >= until)
          return fail(name, timedOut, false);
        backoff.pause();
      }
    }

    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    Status s = exchangeId(id, until);
    if (!s.ok())
      return s;

    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t r = driver->commInitRankConfig(&comm, size, id, rank, &config);
    // A communicator that failed at once is null; fail() aborts one that
    // NCCL created before failing.
    if (r != ncclSuccess && r != ncclInProgress)
      return fail(name, describeNccl(*driver, "ncclCommInitRankConfig", r, comm), false);
    if (!comm)
      return fail(name, "ncclCommInitRankConfig returned no communicator", false);
    return await(name, "ncclCommInitRankConfig", false, until,
                 "timed out after " + formatSeconds(options.connectTimeout) +
                     " in NCCL's initialization (a rank did not start it, or is stuck in it)");
  }

  /// Rank 0 (of a sub-group: its first member) makes NCCL's id and
  /// publishes it; the others read it.
  Status exchangeId(ncclUniqueId &id, Clock::time_point until) {
    const std::string name = "forming the NCCL communicator";
    if (rank == 0) {
      ncclResult_t r = driver->getUniqueId(&id);
      if (r != ncclSuccess)
        return fail(name, describeNccl(*driver, "ncclGetUniqueId", r, nullptr), false);
      if (size > 1) {
        Status s = store->set(key("id"), std::string(id.internal, sizeof id.internal));
        if (!s.ok())
          return fail(name, s.message(), false);
      }
      return Status::success();
    }
    std::vector<std::string> present;
    Status s = store->waitAny({key("id"), key("abort")}, leftUntil(until), present);
    if (!s.ok())
      return fail(name, s.message(), false);
    if (present.empty())
      return fail(name,
                  "timed out after " + formatSeconds(options.connectTimeout) +
                      " waiting for rank " + std::to_string(worldRank(0)) + "'s NCCL id",
                  false);
    std::string value;
    if (std::find(present.begin(), present.end(), key("abort")) != present.end()) {
      s = store->get(key("abort"), value);
      broken = s.ok() ? value : s.message();
      store->leave(broken);
      return Status::error(broken);
    }
    s = store->get(key("id"), value);
    if (!s.ok())
      return fail(name, s.message(), false);
    if (value.size() != sizeof id.internal)
      return fail(name,
                  "rank " + std::to_string(worldRank(0)) + " published an NCCL id of " +
                      std::to_string(value.size()) + " bytes instead of " +
                      std::to_string(sizeof id.internal),
                  false);
    std::memcpy(id.internal, value.data(), sizeof id.internal);
    return Status::success();
  }

  const int rank, size;
  const NcclOptions options;
  /// A sub-group's: the world rank of each rank; empty for the world.
  std::vector<int> worldRanks;
  /// A sub-group's " on ring <id>", appended to what failed in messages.
  std::string label;
  /// Ranks of the world: the departure log's entries of ranks outside it
  /// are no rank's of this job.
  int worldSize = size;
  std::unique_ptr<NcclDriver> driver;
  std::shared_ptr<Store> store;
  std::unique_ptr<StoreServer> server;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  void *scratch = nullptr; // one element, for barrier()
  size_t logBaseline = 0;  // departure log entries from before this communicator
  uint64_t seq = 0;
  uint64_t reachedRecorded = 0; // the last collective recorded as reached
  std::string what;
  Clock::time_point deadline;
  Clock::time_point reachedAt; // when this collective records that it was reached
  std::string broken;
};

NcclCommunicator::NcclCommunicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NcclCommunicator::~NcclCommunicator() = default;

int NcclCommunicator::rank() const { return impl_->rank; }
int NcclCommunicator::size() const { return impl_->size; }
int NcclCommunicator::device() const { return impl_->options.device; }
CUstream_st *NcclCommunicator::stream() const { return impl_->stream; }
const std::string &NcclCommunicator::failure() const { return impl_->broken; }
void NcclCommunicator::adoptServer(std::unique_ptr<StoreServer> server) {
  impl_->server = std::move(server);
}

Status NcclCommunicator::allreduce(void *data, size_t count, DType dtype, ReduceOp op) {
  ncclDataType_t type;
  ncclRedOp_t nccl;
  Status s = checkBuffer("allreduce", data, count);
  if (s.ok())
    s = ncclReductionType("allreduce", dtype, type);
  if (s.ok())
    s = ncclReduction("allreduce", op, nccl);
  if (s.ok())
    s = impl_->begin("allreduce");
  if (!s.ok() || count == 0)
    return s;
  Impl &m = *impl_;
  return m.finish("ncclAllReduce",
                  m.driver->allReduce(data, data, count, type, nccl, m.comm, m.stream));
}

Status NcclCommunicator::broadcast(void *data, size_t count, DType dtype, int root) {
  Status s = checkBuffer("broadcast", data, count);
  if (s.ok())
    s = checkElementType("broadcast", dtype);
  if (s.ok())
    s = checkRoot("broadcast", root, size());
  if (s.ok())
    s = impl_->begin("broadcast");
  if (!s.ok() || count == 0)
    return s;
  Impl &m = *impl_;
  size_t bytes = count * runtime::dtypeSize(dtype);
  return m.finish("ncclBroadcast",
                  m.driver->broadcast(data, data, bytes, ncclUint8, root, m.comm, m.stream));
}

Status NcclCommunicator::reduce(void *data, size_t count, DType dtype, ReduceOp op, int root) {
  ncclDataType_t type;
  ncclRedOp_t nccl;
  Status s = checkBuffer("reduce", data, count);
  if (s.ok())
    s = ncclReductionType("reduce", dtype, type);
  if (s.ok())
    s = ncclReduction("reduce", op, nccl);
  if (s.ok())
    s = checkRoot("reduce", root, size());
  if (s.ok())
    s = impl_->begin("reduce");
  if (!s.ok() || count == 0)
    return s;
  Impl &m = *impl_;
  return m.finish("ncclReduce",
                  m.driver->reduce(data, data, count, type, nccl, root, m.comm, m.stream));
}

Status NcclCommunicator::allgather(const void *in, void *out, size_t countPerRank, DType dtype) {
  Status s = checkAllgather(in, out, countPerRank, dtype, rank(), size());
  const size_t bytes = countPerRank * (s.ok() ? runtime::dtypeSize(dtype) : 0);
  if (s.ok())
    s = impl_->begin("allgather");
  if (!s.ok() || bytes == 0)
    return s;
  Impl &m = *impl_;
  return m.finish("ncclAllGather",
                  m.driver->allGather(in, out, bytes, ncclUint8, m.comm, m.stream));
}

Status NcclCommunicator::reduceScatter(const void *in, void *out, size_t countPerRank, DType dtype,
                                       ReduceOp op) {
  ncclDataType_t type;
  ncclRedOp_t nccl;
  Status s =
      checkDisjoint("reducescatter", in, countPerRank * size_t(size()), out, countPerRank, dtype);
  if (s.ok())
    s = ncclReductionType("reducescatter", dtype, type);
  if (s.ok())
    s = ncclReduction("reducescatter", op, nccl);
  if (s.ok())
    s = impl_->begin("reducescatter");
  if (!s.ok() || countPerRank == 0)
    return s;
  Impl &m = *impl_;
  return m.finish("ncclReduceScatter",
                  m.driver->reduceScatter(in, out, countPerRank, type, nccl, m.comm, m.stream));
}

Status NcclCommunicator::alltoall(const void *in, void *out, size_t countPerRank, DType dtype) {
  const size_t total = countPerRank * size_t(size());
  Status s = checkDisjoint("alltoall", in, total, out, total, dtype);
  const size_t bytes = countPerRank * (s.ok() ? runtime::dtypeSize(dtype) : 0);
  if (s.ok())
    s = impl_->begin("alltoall");
  if (!s.ok() || bytes == 0)
    return s;
  Impl &m = *impl_;
  return m.finish("ncclAlltoAll",
                  m.driver->allToAll(in, out, bytes, ncclUint8, m.size, m.comm, m.stream));
}

Status NcclCommunicator::makeSubgroup(const std::vector<int> &groupRanks, int ringId,
                                      std::unique_ptr<NcclCommunicator> &out) {
  Impl &m = *impl_;
  int member = 0;
  if (Status s = checkGroup(groupRanks, ringId, m.rank, m.size, member); !s.ok())
    return s;
  if (!m.broken.empty())
    return Status::error(m.broken);
  std::vector<int> worldRanks;
  for (int r : groupRanks)
    worldRanks.push_back(m.worldRank(r));
  // The group's first world rank also gives its split color.
  NcclOptions o = subgroupOptions(m.options, ringId, worldRanks[0]);
  if (o.subgroupTimeout.count() > 0)
    o.connectTimeout = o.subgroupTimeout;
  auto impl =
      std::make_unique<Impl>(member, int(groupRanks.size()), m.store, o, m.driver->another());
  impl->worldRanks = worldRanks;
  impl->label = " on " + ringLabel(ringId);
  impl->worldSize = m.worldSize;
  impl->logBaseline = m.logBaseline;
  if (Status s = impl->form(&m, worldRanks[0]); !s.ok())
    return s;
  auto comm = std::make_unique<NcclCommunicator>(std::move(impl));
  // As connectNccl does: return once every member's communicator runs
  // collectives.
  if (Status s = comm->barrier(); !s.ok())
    return s;
  out = std::move(comm);
  return Status::success();
}

Status NcclCommunicator::barrier() {
  Status s = impl_->begin("barrier");
  if (!s.ok())
    return s;
  Impl &m = *impl_;
  return m.finish("ncclAllReduce", m.driver->allReduce(m.scratch, m.scratch, 1, ncclUint8, ncclMax,
                                                       m.comm, m.stream));
}

std::unique_ptr<NcclCommunicator> NcclCommunicator::create(int rank, int size,
                                                           std::shared_ptr<Store> store,
                                                           const NcclOptions &options,
                                                           std::string &error) {
  return createNcclCommunicator(rank, size, std::move(store), options, cudaNcclDriver(), error);
}

namespace detail {

std::unique_ptr<NcclCommunicator>
createNcclCommunicator(int rank, int size, std::shared_ptr<Store> store, const NcclOptions &options,
                       std::unique_ptr<NcclDriver> driver, std::string &error,
                       std::optional<size_t> departuresBefore) {
  if (size < 1 || rank < 0 || rank >= size) {
    error = "rank " + std::to_string(rank) + " is outside [0, " + std::to_string(size) + ")";
    return nullptr;
  }
  if (!store && size > 1) {
    error = "an NCCL communicator of " + std::to_string(size) + " ranks needs a rendezvous store";
    return nullptr;
  }
  auto impl = std::make_unique<NcclCommunicator::Impl>(rank, size, std::move(store), options,
                                                       std::move(driver));
  if (impl->store) {
    std::vector<Departure> log;
    if (!departuresBefore && impl->store->departures(milliseconds(0), log).ok())
      departuresBefore = log.size();
    impl->logBaseline = departuresBefore.value_or(0);
  }
  Status s = impl->form();
  if (!s.ok()) {
    error = s.message();
    return nullptr;
  }
  return std::make_unique<NcclCommunicator>(std::move(impl));
}

bool connectNccl(const RendezvousOptions &o, int device, const NcclDriverFactory &factory,
                 std::unique_ptr<NcclCommunicator> &comm, std::string &error) {
  if (!checkWorld(o, error))
    return false;
  NcclOptions no;
  no.device = device;
  no.timeout = o.timeout;
  no.prefix = o.prefix + "/nccl";
  no.recordsPrefix = o.prefix;
  no.subgroupTimeout = o.connectTimeout;
  if (o.worldSize == 1) {
    no.connectTimeout = o.connectTimeout;
    comm = createNcclCommunicator(0, 1, nullptr, no, factory(), error);
    return comm != nullptr;
  }
  Clock::time_point deadline = Clock::now() + o.connectTimeout;
  std::unique_ptr<StoreServer> server;
  std::shared_ptr<Store> store;
  size_t departuresBefore = 0;
  if (!joinRendezvous(o, deadline, server, store, error, &departuresBefore))
    return false;
  no.connectTimeout = leftUntil(deadline);
  auto nccl =
      createNcclCommunicator(o.rank, o.worldSize, store, no, factory(), error, departuresBefore);
  if (!nccl) {
    abandonRendezvous(o, deadline, server, store);
    return false;
  }
  store.reset();
  // Init returns on a rank once NCCL's bootstrap has every rank; a barrier
  // makes connectNccl return only when every rank's communicator runs
  // collectives (NCCL connects peers at the first one).
  Status s = nccl->barrier();
  nccl->adoptServer(std::move(server));
  if (!s.ok()) {
    error = s.message();
    return false;
  }
  comm = std::move(nccl);
  return true;
}

} // namespace detail

bool connectNccl(const RendezvousOptions &options, int device,
                 std::unique_ptr<NcclCommunicator> &comm, std::string &error) {
  return detail::connectNccl(options, device, cudaNcclDriver, comm, error);
}

int cudaDeviceCount(std::string &why) {
  std::unique_ptr<NcclDriver> driver = cudaNcclDriver();
  return detail::cudaDeviceCount(*driver, why);
}

std::string ncclVersionString() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess)
    return "";
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z before.
  int major = v >= 10000 ? v / 10000 : v / 1000;
  int minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
  int patch = v % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

bool isNcclReducible(DType dtype) {
  ncclDataType_t type;
  return ncclReductionType("", dtype, type).ok();
}

} // namespace distc::comm
