//===- CommCollectives.h - Runtime collectives over a communicator -*- C++ -*-===//
//
// The runtime's collective kernels (c_allreduce, c_allgather, ...) reach
// the ranks through the runtime-owned interface runtime::Collectives;
// these are its implementations, installed with Session::setCollectives:
//
//  * CommCollectives over a comm::Communicator (local or Gloo): tensors in
//    host memory, the CPU backend's.
//  * NcclCollectives over an NcclCommunicator: tensors in device or managed
//    memory, the CUDA backend's (CudaBackend.h). Link DistcCommNccl.
//
// Kept out of DistcComm proper so that the communicators do not depend on
// the runtime's tensors.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_COMMCOLLECTIVES_H
#define DISTC_COMM_COMMCOLLECTIVES_H

#include "distc/Comm/Communicator.h"
#include "distc/Comm/NcclCommunicator.h"
#include "distc/Runtime/Collectives.h"

#include <memory>
#include <optional>

namespace distc::comm {

/// The reduction named `op` (sum, max, min, prod), or an error naming it.
runtime::Status parseReduction(const std::string &op, ReduceOp &reduceOp);

/// `in` and `out` of one dtype, `in` of inChunks and `out` of outChunks
/// chunks of one size (`what` names the collective in the error).
runtime::Status expectChunks(const char *what, const runtime::Tensor &in,
                             const runtime::Tensor &out, int inChunks, int outChunks);

/// runtime::Collectives over a communicator with Communicator's
/// collectives over (data, count, dtype, ...) and makeSubgroup.
template <typename Comm> class CollectivesOver : public runtime::Collectives {
public:
  explicit CollectivesOver(std::shared_ptr<Comm> comm) : comm_(std::move(comm)) {}

  int rank() const override { return comm_->rank(); }
  int size() const override { return comm_->size(); }

  runtime::Status allreduce(runtime::Tensor &tensor, const std::string &op) override {
    ReduceOp reduceOp;
    if (runtime::Status s = parseReduction(op, reduceOp); !s.ok())
      return s;
    return comm_->allreduce(tensor.data(), count(tensor), tensor.dtype(), reduceOp);
  }
  runtime::Status broadcast(runtime::Tensor &tensor, int root) override {
    return comm_->broadcast(tensor.data(), count(tensor), tensor.dtype(), root);
  }
  runtime::Status reduce(runtime::Tensor &tensor, const std::string &op, int root) override {
    ReduceOp reduceOp;
    if (runtime::Status s = parseReduction(op, reduceOp); !s.ok())
      return s;
    return comm_->reduce(tensor.data(), count(tensor), tensor.dtype(), reduceOp, root);
  }
  runtime::Status allgather(const runtime::Tensor &in, runtime::Tensor &out) override {
    if (runtime::Status s = expectChunks("allgather", in, out, 1, size()); !s.ok())
      return s;
    return comm_->allgather(in.data(), out.data(), count(in), in.dtype());
  }
  runtime::Status reduceScatter(const runtime::Tensor &in, runtime::Tensor &out,
                                const std::string &op) override {
    ReduceOp reduceOp;
    if (runtime::Status s = parseReduction(op, reduceOp); !s.ok())
      return s;
    if (runtime::Status s = expectChunks("reducescatter", in, out, size(), 1); !s.ok())
      return s;
    return comm_->reduceScatter(in.data(), out.data(), count(out), in.dtype(), reduceOp);
  }
  runtime::Status alltoall(const runtime::Tensor &in, runtime::Tensor &out) override {
    if (runtime::Status s = expectChunks("alltoall", in, out, size(), size()); !s.ok())
      return s;
    return comm_->alltoall(in.data(), out.data(), count(in) / size_t(size()), in.dtype());
  }
  runtime::Status subgroup(const std::vector<int> &ranks, int ringId,
                           std::shared_ptr<runtime::Collectives> &out) override {
    std::unique_ptr<Comm> group;
    if (runtime::Status s = comm_->makeSubgroup(ranks, ringId, group); !s.ok())
      return s;
    out = std::make_shared<CollectivesOver<Comm>>(std::shared_ptr<Comm>(std::move(group)));
    return runtime::Status::success();
  }

private:
  static size_t count(const runtime::Tensor &t) { return static_cast<size_t>(t.numel()); }

  std::shared_ptr<Comm> comm_;
};

using CommCollectives = CollectivesOver<Communicator>;
using NcclCollectives = CollectivesOver<NcclCommunicator>;

} // namespace distc::comm

#endif // DISTC_COMM_COMMCOLLECTIVES_H
