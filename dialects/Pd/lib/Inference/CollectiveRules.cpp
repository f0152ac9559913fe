//===- CollectiveRules.cpp - Communicator setup inference -----------------===//
//
// c_gen_nccl_id writes the communicator id, Paddle's RAW variable (an
// ncclUniqueId); in the IR it is an empty uint8 tensor (communicatorIdType)
// that only c_comm_init reads. c_comm_init has no outputs.
//
// The reshard collectives of sharded programs change one axis of X by the
// size of their ring's group (`nranks`): c_allgather multiplies it,
// c_reducescatter and c_split divide it (which must be exact: distc does not
// pad shards), alltoall does both on its two axes.
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"

#include "distc/Dialect/Pd/PdTypes.h"

using namespace mlir;

namespace distc::pd::infer {

/// A rank attribute: a rank, or -1 for "bound at run time".
static LogicalResult checkRank(InferContext &c, int64_t nranks) {
  int64_t rank = c.getInt("rank");
  if (rank < -1 || (nranks > 0 && rank >= nranks))
    return c.error() << "attribute 'rank' = " << rank << " is not a rank"
                     << (nranks > 0 ? " of " + std::to_string(nranks) : std::string())
                     << " (-1: the rank the runtime binds)";
  return success();
}

LogicalResult inferCGenNcclId(InferContext &c) {
  if (failed(checkRank(c, 0)))
    return failure();
  c.setResult(0, communicatorIdType(c.getContext()));
  return success();
}

LogicalResult inferCCommInit(InferContext &c) {
  RankedTensorType x = c.input(0);
  if (x != communicatorIdType(c.getContext()))
    return c.error() << "input slot 'X' must be the communicator id a c_gen_nccl_id writes ("
                     << communicatorIdType(c.getContext()) << "), got " << x;
  int64_t nranks = c.getInt("nranks");
  if (nranks < 1)
    return c.error() << "attribute 'nranks' = " << nranks << " must be at least 1";
  return checkRank(c, nranks);
}

/// The group size of a reshard collective, at least 1.
static FailureOr<int64_t> groupSize(InferContext &c) {
  int64_t nranks = c.getInt("nranks");
  if (nranks < 1) {
    c.error() << "attribute 'nranks' = " << nranks << " must be at least 1";
    return failure();
  }
  return nranks;
}

/// X's dims with axis `attr` multiplied (grow) or divided by the group size.
static LogicalResult resizeAxis(InferContext &c, SmallVectorImpl<int64_t> &dims,
                                StringRef attr, bool grow) {
  RankedTensorType x = c.input(0);
  FailureOr<int64_t> n = groupSize(c);
  if (failed(n))
    return failure();
  FailureOr<int64_t> axis = c.normalizeAxis(c.getInt(attr), x.getRank(), attr, x);
  if (failed(axis))
    return failure();
  int64_t &dim = dims[*axis];
  if (ShapedType::isDynamic(dim))
    return success();
  if (grow) {
    dim *= *n;
    return success();
  }
  if (dim % *n != 0)
    return c.error() << "axis " << *axis << " of X " << formatDims(x.getShape())
                     << " does not split into " << *n << " equal pieces";
  dim /= *n;
  return success();
}

/// X with axis `axis` resized by the group size.
static LogicalResult inferResized(InferContext &c, bool grow) {
  RankedTensorType x = c.input(0);
  SmallVector<int64_t> dims(x.getShape());
  if (failed(resizeAxis(c, dims, "axis", grow)))
    return failure();
  c.setResult(0, dims, x.getElementType());
  return success();
}

LogicalResult inferCAllgather(InferContext &c) { return inferResized(c, /*grow=*/true); }

LogicalResult inferCReducescatter(InferContext &c) { return inferResized(c, /*grow=*/false); }

LogicalResult inferCSplit(InferContext &c) {
  FailureOr<int64_t> n = groupSize(c);
  if (failed(n) || failed(checkRank(c, *n)))
    return failure();
  return inferResized(c, /*grow=*/false);
}

LogicalResult inferAlltoall(InferContext &c) {
  RankedTensorType x = c.input(0);
  SmallVector<int64_t> dims(x.getShape());
  if (failed(resizeAxis(c, dims, "split_axis", /*grow=*/false)) ||
      failed(resizeAxis(c, dims, "concat_axis", /*grow=*/true)))
    return failure();
  c.setResult(0, dims, x.getElementType());
  return success();
}

} // namespace distc::pd::infer
