//===- RankReduce.cpp - Host-side sums over the data-parallel ranks -------===//

#include "RankReduce.h"

#include <cstring>

namespace distc::training::detail {

using runtime::Collectives;
using runtime::Status;

int rankOf(const runtime::DistModel &model) {
  const Collectives *c = model.session().collectives();
  // Without collectives a process may still be one of several replicas: a
  // parameter-server trainer, whose replica index is its trainer id.
  return c ? c->rank() : model.session().dataReplica().index;
}

int worldSizeOf(const runtime::DistModel &model) {
  const Collectives *c = model.session().collectives();
  return c ? c->size() : 1;
}

int replicaOf(const runtime::DistModel &model) { return model.session().dataReplica().index; }

int replicasOf(const runtime::DistModel &model) { return model.session().dataReplica().size; }

bool onMesh(const runtime::DistModel &model) { return model.artifact()->data_ring() != 0; }

namespace {

Status reduceOverRanks(runtime::DistModel &model, std::vector<double> &values,
                       const std::string &op) {
  Collectives *c = model.session().collectives();
  // Replicas without collectives (parameter-server trainers) sum through
  // the session's ReplicaSum; min is not needed there.
  if (!c && op == "sum" && model.session().replicaSum() && !values.empty())
    return model.session().replicaSum()(values);
  if (!c || c->size() == 1 || values.empty())
    return Status::success();
  // In the backend's memory: a GPU communicator reduces device memory.
  runtime::Backend &backend = model.session().backend();
  runtime::Tensor t =
      backend.allocate(runtime::DType::Float64, {static_cast<int64_t>(values.size())});
  backend.copy(t.data(), values.data(), values.size() * sizeof(double));
  if (Status s = c->allreduce(t, op); !s.ok())
    return s;
  if (Status s = backend.synchronize(); !s.ok())
    return s;
  std::memcpy(values.data(), t.data(), values.size() * sizeof(double));
  return Status::success();
}

} // namespace

Status sumOverRanks(runtime::DistModel &model, std::vector<double> &values) {
  return reduceOverRanks(model, values, "sum");
}

Status minOverRanks(runtime::DistModel &model, std::vector<double> &values) {
  return reduceOverRanks(model, values, "min");
}

} // namespace distc::training::detail
