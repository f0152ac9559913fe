//===- RoleMaker.cpp - Paddle's role-maker collectives --------------------===//

#include "distc/Comm/RoleMaker.h"

namespace distc::comm {

Status RoleMaker::checkComm(const char *what) const {
  if (!facts_.isWorker())
    return Status::error(std::string(what) + ": this process is a parameter server, not a worker");
  if (comm_.size() != facts_.workerNum || comm_.rank() != facts_.workerIndex)
    return Status::error(std::string(what) + ": the communicator is rank " +
                         std::to_string(comm_.rank()) + " of " + std::to_string(comm_.size()) +
                         " but this process is worker " + std::to_string(facts_.workerIndex) +
                         " of " + std::to_string(facts_.workerNum));
  return Status::success();
}

Status RoleMaker::allGather(double input, std::vector<double> &out) {
  Status s = checkComm("all_gather");
  if (!s.ok())
    return s;
  out.assign(comm_.size(), 0.0);
  return comm_.allgather(&input, out.data(), 1, DType::Float64);
}

Status RoleMaker::allGather(int64_t input, std::vector<int64_t> &out) {
  Status s = checkComm("all_gather");
  if (!s.ok())
    return s;
  out.assign(comm_.size(), 0);
  return comm_.allgather(&input, out.data(), 1, DType::Int64);
}

template <typename T>
Status RoleMaker::allReduceTyped(const std::vector<T> &input, std::vector<T> &output,
                                 const std::string &mode, DType dtype) {
  Status s = checkComm("all_reduce_worker");
  if (!s.ok())
    return s;
  std::optional<ReduceOp> op = reduceOpFromName(mode);
  if (!op || *op == ReduceOp::Prod)
    return Status::error("all_reduce_worker: mode '" + mode + "' is not sum, min or max");
  // Unequal lengths would pair transfers of different sizes; agree on the
  // length first so the mismatch is an error that names the worker.
  std::vector<int64_t> lengths;
  s = allGather(static_cast<int64_t>(input.size()), lengths);
  if (!s.ok())
    return s;
  for (size_t r = 1; r < lengths.size(); ++r)
    if (lengths[r] != lengths[0])
      return Status::error("all_reduce_worker: worker " + std::to_string(r) + " passed " +
                           std::to_string(lengths[r]) + " values, worker 0 passed " +
                           std::to_string(lengths[0]));
  output = input;
  return comm_.allreduce(output.data(), output.size(), dtype, *op);
}

Status RoleMaker::allReduceWorker(const std::vector<double> &input, std::vector<double> &output,
                                  const std::string &mode) {
  return allReduceTyped(input, output, mode, DType::Float64);
}

Status RoleMaker::allReduceWorker(const std::vector<int64_t> &input, std::vector<int64_t> &output,
                                  const std::string &mode) {
  return allReduceTyped(input, output, mode, DType::Int64);
}

Status RoleMaker::barrierWorker() {
  Status s = checkComm("barrier_worker");
  return s.ok() ? comm_.barrier() : s;
}

Status RoleMaker::barrierAll() {
  Status s = checkComm("barrier_all");
  return s.ok() ? comm_.barrier() : s;
}

} // namespace distc::comm
