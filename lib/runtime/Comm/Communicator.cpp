//===- Communicator.cpp - Names, argument checks, the local communicator --===//

#include "distc/Comm/Communicator.h"

#include "CheckArgs.h"

#include <cstring>
#include <string>

namespace distc::comm {

Communicator::~Communicator() = default;

const char *reduceOpName(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return "sum";
  case ReduceOp::Max:
    return "max";
  case ReduceOp::Min:
    return "min";
  case ReduceOp::Prod:
    return "prod";
  }
  return "?";
}

std::optional<ReduceOp> reduceOpFromName(std::string_view name) {
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod})
    if (name == reduceOpName(op))
      return op;
  return std::nullopt;
}

bool isReducible(DType d) {
  return d == DType::Int8 || d == DType::UInt8 || d == DType::Int16 || d == DType::Int32 ||
         d == DType::Int64 || d == DType::Float32 || d == DType::Float64;
}

namespace detail {

Status checkBuffer(const char *op, const void *data, size_t count) {
  if (!data && count > 0)
    return Status::error(std::string(op) + ": null buffer for " + std::to_string(count) +
                         " elements");
  return Status::success();
}

Status checkElementType(const char *op, DType dtype) {
  if (!runtime::isKnownDType(dtype))
    return Status::error(std::string(op) + ": unknown element type " +
                         std::to_string(static_cast<int>(dtype)));
  return Status::success();
}

Status checkReducible(const char *op, DType dtype) {
  if (!isReducible(dtype))
    return Status::error(std::string(op) + " of " + runtime::dtypeName(dtype) +
                         " is not supported; reductions support i8, u8, i16, i32, i64, f32 "
                         "and f64");
  return Status::success();
}

Status checkRoot(const char *op, int root, int size) {
  if (root < 0 || root >= size)
    return Status::error(std::string(op) + ": root " + std::to_string(root) + " is outside [0, " +
                         std::to_string(size) + ")");
  return Status::success();
}

Status checkAllgather(const void *in, const void *out, size_t countPerRank, DType dtype, int rank,
                      int size) {
  Status s = checkBuffer("allgather", in, countPerRank);
  if (s.ok())
    s = checkBuffer("allgather", out, countPerRank);
  if (s.ok())
    s = checkElementType("allgather", dtype);
  if (!s.ok() || countPerRank == 0)
    return s;
  const size_t bytes = countPerRank * runtime::dtypeSize(dtype);
  const auto inAt = reinterpret_cast<uintptr_t>(in);
  const auto outAt = reinterpret_cast<uintptr_t>(out);
  const bool inPlace = inAt == outAt + size_t(rank) * bytes;
  if (!inPlace && inAt < outAt + size_t(size) * bytes && outAt < inAt + bytes)
    return Status::error("allgather: the input overlaps the output other than at this rank's "
                         "block (rank " +
                         std::to_string(rank) + ")");
  return Status::success();
}

Status checkDisjoint(const char *op, const void *in, size_t inCount, const void *out,
                     size_t outCount, DType dtype) {
  Status s = checkBuffer(op, in, inCount);
  if (s.ok())
    s = checkBuffer(op, out, outCount);
  if (s.ok())
    s = checkElementType(op, dtype);
  if (!s.ok() || inCount == 0 || outCount == 0)
    return s;
  const size_t es = runtime::dtypeSize(dtype);
  const auto inAt = reinterpret_cast<uintptr_t>(in);
  const auto outAt = reinterpret_cast<uintptr_t>(out);
  if (inAt < outAt + outCount * es && outAt < inAt + inCount * es)
    return Status::error(std::string(op) + ": the input overlaps the output");
  return Status::success();
}

Status checkGroup(const std::vector<int> &groupRanks, int ringId, int rank, int size, int &member) {
  const std::string where = "forming the communicator of " + ringLabel(ringId);
  if (ringId <= 0)
    return Status::error(where + ": ring ids are positive (ring 0 is the world)");
  member = -1;
  for (size_t k = 0; k < groupRanks.size(); ++k) {
    int r = groupRanks[k];
    if (r < 0 || r >= size)
      return Status::error(where + ": rank " + std::to_string(r) + " is outside [0, " +
                           std::to_string(size) + ")");
    for (size_t j = 0; j < k; ++j)
      if (groupRanks[j] == r)
        return Status::error(where + ": rank " + std::to_string(r) + " appears twice in the group");
    if (r == rank)
      member = int(k);
  }
  if (member < 0)
    return Status::error(where + ": rank " + std::to_string(rank) +
                         " is not in the group it was given");
  return Status::success();
}

std::string ringLabel(int ringId) { return "ring " + std::to_string(ringId); }

} // namespace detail

using namespace detail;

Status LocalCommunicator::allreduce(void *data, size_t count, DType dtype, ReduceOp) {
  Status s = checkBuffer("allreduce", data, count);
  return s.ok() ? checkReducible("allreduce", dtype) : s;
}

Status LocalCommunicator::broadcast(void *data, size_t count, DType dtype, int root) {
  Status s = checkBuffer("broadcast", data, count);
  if (s.ok())
    s = checkElementType("broadcast", dtype);
  return s.ok() ? checkRoot("broadcast", root, 1) : s;
}

Status LocalCommunicator::reduce(void *data, size_t count, DType dtype, ReduceOp, int root) {
  Status s = checkBuffer("reduce", data, count);
  if (s.ok())
    s = checkReducible("reduce", dtype);
  return s.ok() ? checkRoot("reduce", root, 1) : s;
}

Status LocalCommunicator::allgather(const void *in, void *out, size_t countPerRank, DType dtype) {
  if (Status s = checkAllgather(in, out, countPerRank, dtype, 0, 1); !s.ok())
    return s;
  if (in != out && countPerRank > 0)
    std::memmove(out, in, countPerRank * runtime::dtypeSize(dtype));
  return Status::success();
}

Status LocalCommunicator::reduceScatter(const void *in, void *out, size_t countPerRank, DType dtype,
                                        ReduceOp) {
  Status s = checkDisjoint("reducescatter", in, countPerRank, out, countPerRank, dtype);
  if (s.ok())
    s = checkReducible("reducescatter", dtype);
  if (!s.ok())
    return s;
  if (countPerRank > 0)
    std::memcpy(out, in, countPerRank * runtime::dtypeSize(dtype));
  return Status::success();
}

Status LocalCommunicator::alltoall(const void *in, void *out, size_t countPerRank, DType dtype) {
  if (Status s = checkDisjoint("alltoall", in, countPerRank, out, countPerRank, dtype); !s.ok())
    return s;
  if (countPerRank > 0)
    std::memcpy(out, in, countPerRank * runtime::dtypeSize(dtype));
  return Status::success();
}

Status LocalCommunicator::barrier() { return Status::success(); }

Status LocalCommunicator::makeSubgroup(const std::vector<int> &groupRanks, int ringId,
                                       std::unique_ptr<Communicator> &out) {
  int member = 0;
  if (Status s = checkGroup(groupRanks, ringId, 0, 1, member); !s.ok())
    return s;
  out = std::make_unique<LocalCommunicator>();
  return Status::success();
}

} // namespace distc::comm
