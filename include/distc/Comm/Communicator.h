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
//  * Reductions (allreduce, reduce, reduceScatter) support i8, u8, i16,
//    i32, i64, f32 and f64; integer sums and products wrap around; max/min
//    propagate NaN. broadcast, allgather and alltoall move bytes and accept
//    every dtype.
//  * Reduction results are bitwise identical on every rank and in every
//    run: each element is combined in rank order, ((x0 op x1) op x2) ...,
//    whatever the element count, world size or timing.
//  * Sub-groups: makeSubgroup forms a communicator over some of the ranks
//    (a group of a "ring", the partition of the ranks a sharded program
//    communicates in); its ranks are the members' indices in the group,
//    and its failures name the ring and the world ranks at fault.
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
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

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

  /// `in` holds size() chunks of `countPerRank` elements; `out` receives
  /// chunk rank() of their reduction over the ranks (chunk k of every
  /// rank's `in` reduced into rank k's `out`), each element combined in
  /// rank order like allreduce. The buffers must not overlap.
  virtual Status reduceScatter(const void *in, void *out, size_t countPerRank, DType dtype,
                               ReduceOp op) = 0;

  /// `in` and `out` hold size() chunks of `countPerRank` elements: chunk k
  /// of `in` goes to rank k, and chunk j of `out` receives what rank j
  /// sent this rank. The buffers must not overlap.
  virtual Status alltoall(const void *in, void *out, size_t countPerRank, DType dtype) = 0;

  /// Returns once every rank has entered the barrier.
  virtual Status barrier() = 0;

  /// Forms the communicator of the group `groupRanks` (ranks of this
  /// communicator, distinct, this rank among them) of ring `ringId` (> 0):
  /// its rank r is groupRanks[r]. Every rank of this communicator calls it
  /// for its own group, the rings in the same order on every rank, while
  /// no collective is in flight; it returns once every member's
  /// communicator works. Messages of the new communicator say "on ring
  /// <ringId>" and name ranks of this one. A group of one needs no peer.
  virtual Status makeSubgroup(const std::vector<int> &groupRanks, int ringId,
                              std::unique_ptr<Communicator> &out) = 0;
};

/// World size 1: every collective is the identity (allgather,
/// reduceScatter and alltoall copy `in` to `out`). Arguments are still
/// checked, so a program that works here does not fail on a bigger world
/// for a bad root or dtype.
class LocalCommunicator final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status allreduce(void *data, size_t count, DType dtype, ReduceOp op) override;
  Status broadcast(void *data, size_t count, DType dtype, int root) override;
  Status reduce(void *data, size_t count, DType dtype, ReduceOp op, int root) override;
  Status allgather(const void *in, void *out, size_t countPerRank, DType dtype) override;
  Status reduceScatter(const void *in, void *out, size_t countPerRank, DType dtype,
                       ReduceOp op) override;
  Status alltoall(const void *in, void *out, size_t countPerRank, DType dtype) override;
  Status barrier() override;
  /// Only the group {0}: another local communicator.
  Status makeSubgroup(const std::vector<int> &groupRanks, int ringId,
                      std::unique_ptr<Communicator> &out) override;
};

} // namespace distc::comm

#endif // DISTC_COMM_COMMUNICATOR_H
