//===- NcclCommunicator.h - Collectives between GPUs over NCCL --*- C++ -*-===//
//
// One process per GPU: every rank forms an NCCL communicator on its CUDA
// device (its local rank) and runs the collectives data-parallel training
// needs on DEVICE buffers, as Paddle's c_gen_nccl_id + c_comm_init and its
// c_allreduce_* kernels do.
//
//   RendezvousOptions o = rendezvousOptionsFor(facts);   // RoleMaker.h
//   std::unique_ptr<NcclCommunicator> nccl;
//   std::string error;
//   if (!connectNccl(o, facts.localRank, nccl, error)) { ... }
//   Status s = nccl->allreduce(deviceGrad, n, DType::Float32, ReduceOp::Sum);
//
// Forming it: the rendezvous of connect() (Rendezvous.h: the store, rank
// claims, world size and fingerprint checks), then rank 0 calls
// ncclGetUniqueId and publishes the id in the store, the others read it,
// and every rank calls ncclCommInitRankConfig on its device.
// Sub-groups (makeSubgroup): ncclCommSplit of this communicator, colored
// by the group's first member (NCCL 2.18 and later); with an older NCCL,
// the group's first member makes an id and publishes it in the store under
// keys of the ring and group, as rank 0 does for the world.
//
// This header needs neither CUDA's nor NCCL's headers, and the library
// behind it (DistcCommNccl) exists in every build: built without NCCL
// (DISTC_HAVE_NCCL is 0), cudaDeviceCount() returns 0 and connectNccl()
// and create() fail, each with a message saying so. Callers therefore need
// no #if; they test DISTC_HAVE_NCCL only to leave out what cannot work.
//
// Not a Communicator (Communicator.h stays host-only; NcclCollectives in
// CommCollectives.h puts this class behind the runtime's Collectives):
// staging host buffers through device memory would give a CPU runtime two
// PCIe copies per collective and nothing Gloo does not, and NCCL cannot
// keep Communicator's promises: a rank-order fold whose result is
// independent of the element count, and reductions of i16. The runtime's
// CUDA backend (CudaBackend.h) calls this class on its managed-memory
// tensors.
//
// Contract:
//  * Buffers are device memory of this communicator's device (or memory
//    CUDA maps there: managed memory). Every call enqueues one NCCL
//    collective on the communicator's own stream (stream()) and returns
//    when it has completed on the device. The stream is an ordinary
//    (blocking) stream: work the caller queued on the legacy default
//    stream before the call is ordered before the collective; work on
//    other streams the caller must synchronize first.
//  * Reductions (allreduce, reduce, reduceScatter) take i8, u8, i32, i64,
//    f16, bf16, f32 and f64 (NCCL has no i16 or bool reductions);
//    broadcast, allgather and alltoall move bytes of any dtype. NCCL's
//    algorithms (ring, tree, in-switch) reduce each element once and pass
//    the result on, so ranks agree, and a run repeats for the same world
//    size, topology and count; but the summation order is NCCL's, not the
//    rank order of Communicator.h, and depends on the count.
//  * Every call is bounded by NcclOptions::timeout. NCCL's own errors (a
//    peer lost over the network: ncclRemoteError) end it earlier, and so
//    does another rank leaving the rendezvous store: a waiting call reads
//    the store's departure log every 0.25 s and fails 1 s after a
//    departure, so a dead rank is named within about 1.5 s even where
//    NCCL alone would spin forever. The communicator is then aborted
//    (ncclCommAbort), names the rank at fault as GlooCommunicator does,
//    and stays broken: every later call returns the same message.
//  * Calls come from one thread at a time, not necessarily the one that
//    formed the communicator (each call makes its device current); nothing
//    throws or aborts.
//
// No device, no driver: cudaDeviceCount() returns 0 and says why. It
// initializes CUDA in the calling process; a process that forks ranks
// afterwards cannot use CUDA in them (ask from a child process instead).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_NCCLCOMMUNICATOR_H
#define DISTC_COMM_NCCLCOMMUNICATOR_H

#include "distc/Comm/Communicator.h"
#include "distc/Comm/Rendezvous.h"
#include "distc/Comm/Store.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

/// cudaStream_t is `CUstream_st *`.
struct CUstream_st;

namespace distc::comm {

/// The CUDA devices this process can use (CUDA_VISIBLE_DEVICES applies).
/// 0 with `why` set when there are none, e.g. "no CUDA device:
/// cudaGetDeviceCount: CUDA driver version is insufficient for CUDA
/// runtime version (cudaErrorInsufficientDriver; no NVIDIA driver is
/// loaded)", or when this build has no NCCL.
int cudaDeviceCount(std::string &why);

/// The NCCL library in use, "2.28.9"; empty in a build without NCCL.
std::string ncclVersionString();

/// Whether NcclCommunicator's reductions support `dtype`: i8, u8, i32,
/// i64, f16, bf16, f32, f64.
bool isNcclReducible(DType dtype);

struct NcclOptions {
  /// The CUDA device of this rank: its local rank on the node.
  int device = 0;
  /// Bound on each collective.
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  /// Bound on forming the communicator: the id exchange and NCCL's init.
  std::chrono::milliseconds connectTimeout{std::chrono::seconds(30)};
  /// Bound on forming a sub-group's communicator (makeSubgroup); zero:
  /// connectTimeout. connectNccl gives its whole connect timeout here,
  /// while connectTimeout gets what the rendezvous left.
  std::chrono::milliseconds subgroupTimeout{0};
  /// Store keys of this communicator (the id, a failure) live under this
  /// prefix; one communicator per prefix and store.
  std::string prefix = "nccl";
  /// A collective that times out records the rank it waited for under
  /// this prefix (waitedForKey, Rendezvous.h), for a launcher that names
  /// the stuck rank; empty: under `prefix`.
  std::string recordsPrefix;
};

class NcclCommunicator {
public:
  /// Forms the NCCL communicator of `rank` of `size` on options.device,
  /// exchanging NCCL's id through `store` (which the communicator keeps:
  /// it watches the departure log and reports failures there). Every rank
  /// calls it with the same size and prefix. `store` may be null only for
  /// size 1. Null with `error` (one line naming the rank) on failure.
  /// Departures logged before the call are taken for other communicators'
  /// (connectNccl counts from before its rendezvous instead, so it also
  /// sees a rank that fails before this one gets here).
  static std::unique_ptr<NcclCommunicator> create(int rank, int size, std::shared_ptr<Store> store,
                                                  const NcclOptions &options, std::string &error);
  ~NcclCommunicator();

  int rank() const;
  int size() const;
  int device() const;
  /// The stream the collectives run on (a cudaStream_t).
  CUstream_st *stream() const;

  /// In place: on return every rank's `data` holds the reduction.
  Status allreduce(void *data, size_t count, DType dtype, ReduceOp op);
  /// In place: on return every rank's `data` holds root's.
  Status broadcast(void *data, size_t count, DType dtype, int root);
  /// In place on root; other ranks' buffers are left unchanged.
  Status reduce(void *data, size_t count, DType dtype, ReduceOp op, int root);
  /// `out` (size() * countPerRank elements) receives every rank's `in` in
  /// rank order; `in` may be `out + rank() * countPerRank` (in place) and
  /// must not otherwise overlap `out`.
  Status allgather(const void *in, void *out, size_t countPerRank, DType dtype);
  /// `in` holds size() chunks of `countPerRank` elements; `out` receives
  /// chunk rank() of their reduction (ncclReduceScatter). No overlap.
  Status reduceScatter(const void *in, void *out, size_t countPerRank, DType dtype, ReduceOp op);
  /// Chunk k of `in` (size() chunks of `countPerRank` elements) goes to
  /// rank k; chunk j of `out` receives rank j's. No overlap.
  Status alltoall(const void *in, void *out, size_t countPerRank, DType dtype);
  /// Returns once every rank has entered it: an allreduce of one element.
  Status barrier();

  /// Forms the communicator of the group `groupRanks` (ranks of this
  /// communicator, distinct, this rank among them) of ring `ringId` (> 0),
  /// on this communicator's device; its rank r is groupRanks[r]. Every
  /// rank of this communicator calls it, for its own group, the rings in
  /// the same order on every rank (ncclCommSplit is a collective of this
  /// communicator). Messages of the new communicator say "on ring <ringId>"
  /// and name ranks of this one. Returns once every member's works.
  Status makeSubgroup(const std::vector<int> &groupRanks, int ringId,
                      std::unique_ptr<NcclCommunicator> &out);

  /// Keeps the store's server alive as long as this communicator (rank 0
  /// serves the store for the job).
  void adoptServer(std::unique_ptr<StoreServer> server);

  /// The message of the failure that broke this communicator, or empty.
  const std::string &failure() const;

  class Impl;
  explicit NcclCommunicator(std::unique_ptr<Impl> impl);

private:
  std::unique_ptr<Impl> impl_;
};

/// connect() (Rendezvous.h) for GPUs: the same rendezvous, then an NCCL
/// communicator on CUDA device `device` (usually RoleFacts::localRank)
/// under the store keys `<prefix>/nccl/`, bounded by connectTimeout;
/// collectives are bounded by options.timeout. World size 1 needs no
/// store. Returns once every rank's communicator works (a barrier); false
/// with `error` (one line) otherwise.
bool connectNccl(const RendezvousOptions &options, int device,
                 std::unique_ptr<NcclCommunicator> &comm, std::string &error);

} // namespace distc::comm

#endif // DISTC_COMM_NCCLCOMMUNICATOR_H
