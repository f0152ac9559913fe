//===- GlooCommunicator.h - Collectives between CPU processes ---*- C++ -*-===//
//
// A Communicator over Gloo's TCP transport (Debian's libgloo-dev). Ranks
// exchange their transport addresses through the rendezvous Store, then
// keep one TCP connection per pair of ranks.
//
//   auto comm = GlooCommunicator::create(rank, size, store, {}, error);
//
// The collectives are built on Gloo's point-to-point transfers rather than
// on its algorithms: every reduction combines each element in rank order,
// so results are bitwise identical across ranks, runs, element counts and
// bucketings (Gloo's ring allreduce is reproducible too, but its
// summation order depends on where an element falls among the chunks,
// which changes with the count and the world size). Data moves as
// all-to-all exchanges: allreduce is a reduce-scatter followed by an
// allgather, each rank sending (size-1)/size of the buffer per phase, like
// the ring algorithm, in one round instead of size-1.
//
// Sub-groups (makeSubgroup) share the world's store and transport device:
// each group connects a Gloo context of its own among its members, under
// store keys of its own (<prefix>/ring<id>/<first member>), and names
// world ranks in its messages.
//
// Failures: every collective is bounded by `timeout`; a peer that dies is
// noticed at once (its connections close). The communicator then names the
// rank at fault from the store's departure log (Store.h), records its own
// diagnosis there for the other ranks, closes its connections (so peers
// fail at once instead of waiting for the timeout) and stays broken.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_GLOOCOMMUNICATOR_H
#define DISTC_COMM_GLOOCOMMUNICATOR_H

#include "distc/Comm/Communicator.h"
#include "distc/Comm/Store.h"

#include <chrono>
#include <memory>
#include <string>

namespace distc::comm {

struct GlooOptions {
  /// The address Gloo's sockets bind to and peers connect to. Empty: the
  /// interface below, or else the local address of the store connection
  /// (the address of this host on the network that reaches the master).
  std::string host;
  /// A network interface name (e.g. "eth0"), used when `host` is empty.
  std::string iface;
  /// Bound on each collective, i.e. on how long a rank waits for a peer
  /// that is alive but does not take part (one that dies is noticed at
  /// once).
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  /// Bound on connecting to every peer at creation.
  std::chrono::milliseconds connectTimeout{std::chrono::seconds(30)};
  /// Bound on forming a sub-group's communicator (makeSubgroup); zero:
  /// connectTimeout. connect() (Rendezvous.h) gives its whole connect
  /// timeout here, while connectTimeout gets what the rendezvous left.
  std::chrono::milliseconds subgroupTimeout{0};
  /// Store keys for Gloo's address exchange live under this prefix.
  std::string prefix = "gloo";
  /// A collective that times out records the rank it waited for under
  /// this prefix (waitedForKey, Rendezvous.h), for a launcher that names
  /// the stuck rank; empty: under `prefix`.
  std::string recordsPrefix;
};

class GlooCommunicator final : public Communicator {
public:
  /// Connects `rank` to the other `size - 1` ranks through `store`; every
  /// rank must call it with the same size and prefix. Null with `error`.
  static std::unique_ptr<GlooCommunicator> create(int rank, int size, std::shared_ptr<Store> store,
                                                  const GlooOptions &options, std::string &error);
  ~GlooCommunicator() override;

  int rank() const override;
  int size() const override;
  Status allreduce(void *data, size_t count, DType dtype, ReduceOp op) override;
  Status broadcast(void *data, size_t count, DType dtype, int root) override;
  Status reduce(void *data, size_t count, DType dtype, ReduceOp op, int root) override;
  Status allgather(const void *in, void *out, size_t countPerRank, DType dtype) override;
  Status reduceScatter(const void *in, void *out, size_t countPerRank, DType dtype,
                       ReduceOp op) override;
  Status alltoall(const void *in, void *out, size_t countPerRank, DType dtype) override;
  Status barrier() override;
  /// Only the group's members connect (a rank's group is the only one it
  /// takes part in); a group of one is a LocalCommunicator.
  Status makeSubgroup(const std::vector<int> &groupRanks, int ringId,
                      std::unique_ptr<Communicator> &out) override;

  /// Keeps the store's server alive as long as this communicator (rank 0
  /// serves the store for the job).
  void adoptServer(std::unique_ptr<StoreServer> server);

  /// The message of the failure that broke this communicator, or empty.
  const std::string &failure() const;

  class Impl;

private:
  explicit GlooCommunicator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace distc::comm

#endif // DISTC_COMM_GLOOCOMMUNICATOR_H
