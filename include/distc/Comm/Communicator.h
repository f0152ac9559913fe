//===- Communicator.h - Collectives over host memory ------------*- C++ -*-===//
//
// The runtime's view of a group of processes ("ranks" 0..size-1) that run
// the same program: the collectives data-parallel training needs, on host
// buffers, each returning a Status instead of throwing.
//
//   std::unique_ptr<Communicator> comm = ...;        // Rendezvous.h: connect
//   Status s = comm->allreduce(grad, n, DType::Float32, ReduceOp::Sum);
//
// Contract shared by every implementation:
//  * Every rank calls the same collectives in the same order with the same
//    count, dtype, op and root; a rank that does otherwise makes the
//    collective fail or time out, never silently mix data.
//  * Calls on one communicator come from one thread at a time.
//  * Reductions (allreduce, reduce) support i8, u8, i16, i32, i64, f32 and
//    f64; integer sums and products wrap around; max/min propagate NaN.
//    broadcast and allgather move bytes and accept every dtype.
//  * Reduction results are bitwise identical on every rank and in every
//    run: each element is combined in rank order, ((x0 op x1) op x2) ...,
//    whatever the element count, world size or timing.
//  * After a failure (a rank died, a timeout) the communicator is broken:
//    the failed call and every later one return an error that names the
//    rank at fault. The caller should exit; there is no recovery.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_COMM_COMMUNICATOR_H
#define DISTC_COMM_COMMUNICATOR_H

#include "distc/Runtime/DType.h"
#include "distc/Runtime/Status.h"

#include <cstddef>
#include <optional>
#include <string_view>

namespace distc::comm {

using runtime::DType;
using runtime::Status;

enum class ReduceOp { Sum, Max, Min, Prod };

/// "sum", "max", "min", "prod".
const char *reduceOpName(ReduceOp op);
std::optional<ReduceOp> reduceOpFromName(std::string_view name);

/// Whether allreduce/reduce support `dtype`.
bool isReducible(DType dtype);

class Communicator {
public:
  virtual ~Communicator();

  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// In place: on return every rank's `data` holds the reduction of all
  /// ranks' `count` elements.
  virtual Status allreduce(void *data, size_t count, DType dtype, ReduceOp op) = 0;

  /// In place: on return every rank's `data` holds root's.
  virtual Status broadcast(void *data, size_t count, DType dtype, int root) = 0;

  /// In place on root: root's `data` holds the reduction; other ranks'
  /// buffers are left unchanged.
  virtual Status reduce(void *data, size_t count, DType dtype, ReduceOp op, int root) = 0;

  /// `out` (size() * countPerRank elements) receives every rank's `in` in
  /// rank order. `in` may be `out + rank() * countPerRank` (in place), and
  /// must not otherwise overlap `out`.
  virtual Status allgather(const void *in, void *out, size_t countPerRank, DType dtype) = 0;

  /// Returns once every rank has entered the barrier.
  virtual Status barrier() = 0;
};

/// World size 1: every collective is the identity (allgather copies `in`
/// to `out`). Arguments are still checked, so a program that works here
/// does not fail on a bigger world for a bad root or dtype.
class LocalCommunicator final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status allreduce(void *data, size_t count, DType dtype, ReduceOp op) override;
  Status broadcast(void *data, size_t count, DType dtype, int root) override;
  Status reduce(void *data, size_t count, DType dtype, ReduceOp op, int root) override;
  Status allgather(const void *in, void *out, size_t countPerRank, DType dtype) override;
  Status barrier() override;
};

} // namespace distc::comm

#endif // DISTC_COMM_COMMUNICATOR_H
