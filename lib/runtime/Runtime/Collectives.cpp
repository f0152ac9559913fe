//===- Collectives.cpp - Defaults of the runtime's communicator interface -===//
//
// The collectives a sharded program adds (allgather, reduceScatter,
// alltoall, sub-groups) fail by default, naming what is missing, so that a
// Collectives written for data parallelism alone still works there.
//
//===----------------------------------------------------------------------===//

#include "distc/Runtime/Collectives.h"

namespace distc::runtime {

namespace {

Status unsupported(const char *what) {
  return Status::error(std::string("this communicator has no ") + what);
}

} // namespace

Status Collectives::allgather(const Tensor &, Tensor &) { return unsupported("allgather"); }

Status Collectives::reduceScatter(const Tensor &, Tensor &, const std::string &) {
  return unsupported("reduce-scatter");
}

Status Collectives::alltoall(const Tensor &, Tensor &) { return unsupported("all-to-all"); }

Status Collectives::subgroup(const std::vector<int> &, int ringId, std::shared_ptr<Collectives> &) {
  return unsupported(("sub-groups (ring " + std::to_string(ringId) + ")").c_str());
}

} // namespace distc::runtime
