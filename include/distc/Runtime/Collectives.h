//===- Collectives.h - The runtime's view of a communicator -----*- C++ -*-===//
//
// What the collective kernels (c_allreduce, c_broadcast, c_reduce) need from a
// communicator, as an interface the runtime owns: the communication library
// (lib/runtime/Comm, which depends on the runtime) implements it, so the runtime
// never depends on Gloo or NCCL. A Session without one runs as the only
// rank, where every collective is the identity.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_COLLECTIVES_H
#define DISTC_RUNTIME_COLLECTIVES_H

#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <string>

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
};

} // namespace distc::runtime

#endif // DISTC_RUNTIME_COLLECTIVES_H
