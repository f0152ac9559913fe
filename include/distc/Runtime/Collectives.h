//===- Collectives.h - The runtime's view of a communicator -----*- C++ -*-===//
//
// What the collective kernels (c_allreduce, c_allgather, ...) need from a
// communicator, as an interface the runtime owns: the communication library
// (lib/runtime/Comm, which depends on the runtime) implements it, so the runtime
// never depends on Gloo or NCCL. A Session without one runs as the only
// rank, where every collective is the identity.
//
// A sharded program also communicates within groups of the ranks (the
// artifact's rings): subgroup() forms the Collectives of one group, whose
// rank() is this rank's member index in it.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_COLLECTIVES_H
#define DISTC_RUNTIME_COLLECTIVES_H

#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace distc::runtime {

class Collectives {
public:
  virtual ~Collectives() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Reduces `tensor` in place over every rank; `op` is sum, max, min or prod.
  virtual Status allreduce(Tensor &tensor, const std::string &op) = 0;
  /// Replaces `tensor` on every rank by rank `root`'s.
  virtual Status broadcast(Tensor &tensor, int root) = 0;
  /// Reduces `tensor` over every rank into rank `root`'s; the other ranks'
  /// tensors are left as they were.
  virtual Status reduce(Tensor &tensor, const std::string &op, int root) = 0;

  /// Starting a gradient's communication and waiting for it apart lets it
  /// overlap the rest of the backward pass (c_allreduce / c_reduce start,
  /// c_sync_comm_stream waits). A started collective completes by the next
  /// wait(); its tensor must not be read or written before. These defaults
  /// run it at once.
  virtual Status startAllreduce(Tensor &tensor, const std::string &op) {
    return allreduce(tensor, op);
  }
  virtual Status startReduce(Tensor &tensor, const std::string &op, int root) {
    return reduce(tensor, op, root);
  }
  /// Waits for every started collective; the first failure among them.
  virtual Status wait() { return Status::success(); }

  /// Blocking collectives over tensors of any shape, taken as flat
  /// element sequences (the kernels pack their operands so that the
  /// chunks below are contiguous). Their defaults fail: a communicator
  /// must implement them to run a sharded program.
  ///
  /// `out` (size() * in.numel() elements) = every rank's `in`, in rank
  /// order.
  virtual Status allgather(const Tensor &in, Tensor &out);
  /// `in` holds size() equal chunks; `out` (one chunk) = chunk rank() of
  /// their reduction over the ranks (`op` as in allreduce).
  virtual Status reduceScatter(const Tensor &in, Tensor &out, const std::string &op);
  /// `in` and `out` hold size() equal chunks: chunk k of `in` goes to rank
  /// k; chunk j of `out` is what rank j sent.
  virtual Status alltoall(const Tensor &in, Tensor &out);

  /// The Collectives of the group `ranks` (ranks of this one, this rank
  /// among them) of ring `ringId`; see Communicator::makeSubgroup. Every
  /// rank calls it for its own group, the rings in the same order.
  virtual Status subgroup(const std::vector<int> &ranks, int ringId,
                          std::shared_ptr<Collectives> &out);
};

} // namespace distc::runtime

#endif // DISTC_RUNTIME_COLLECTIVES_H
