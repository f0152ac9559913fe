//===- Batcher.h - Epochs of mini-batches with a resumable position -*- C++ -*-===//
//
// Each epoch visits the dataset's rows in an order fixed by (seed, epoch):
// with shuffling, seededPermutation(N, mixSeed(mixSeed(seed) + epoch))
// (Random.h); without, 0..N-1. Consecutive runs of B rows of that order form
// the epoch's batches; the last one has N mod B rows unless drop-last is set,
// in which case it is skipped. Batches are gathered into fresh tensors, one
// per column, with dim 0 = rows in the batch.
//
// The batcher's position is a BatcherState (seed, epoch, next row of the
// epoch's order, plus the row count and shuffle flag it was made for). A run
// that saves the state with its checkpoint and restores it on resume sees
// exactly the batches an uninterrupted run would: the order of an epoch is a
// pure function of the seed and the epoch number, identical on every machine
// and compiler.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_BATCHER_H
#define DISTC_TRAINING_BATCHER_H

#include "distc/Training/Dataset.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace distc::training {

struct BatcherOptions {
  /// Rows per batch on each rank, >= 1.
  int64_t batchSize = 1;
  /// Data parallelism: this rank's replica and the number of replicas (the
  /// ranks of a replica read the same rows; in plain data parallelism each
  /// rank is a replica). Every rank visits
  /// the same epoch order in global batches of batchSize·worldSize rows and
  /// takes its contiguous share, rank r rows [r·b, (r+1)·b) of each global
  /// batch, so the ranks together see at each step exactly the rows a serial
  /// run with batch b·worldSize sees. An epoch's final, partial global batch
  /// of m rows is shared as evenly as possible (rank r: rows
  /// [⌊r·m/N⌋, ⌊(r+1)·m/N⌋)); when m < N it is dropped, so no rank gets an
  /// empty batch.
  int64_t rank = 0;
  int64_t worldSize = 1;
  /// Shuffle each epoch (false for `--no-shuffle`: rows in order).
  bool shuffle = true;
  /// Skip an epoch's last batch when it has fewer than batchSize rows.
  bool dropLast = false;
  /// Replicas whose programs exchange rows (a mesh's collectives need equal
  /// pieces): a final partial global batch of m rows that they cannot share
  /// equally (m mod worldSize != 0) is read whole by every replica instead,
  /// and never dropped for being small. A mean over the replicas' identical
  /// batches is the mean over those m rows, so the step is the serial one.
  bool equalShares = false;
  uint64_t seed = 0;
};

struct BatcherState {
  uint64_t seed = 0;
  /// The epoch the next batch comes from (0-based).
  int64_t epoch = 0;
  /// Position in that epoch's row order of the next (global) batch's first
  /// row; the same on every rank, so a checkpoint resumes on any number of
  /// ranks whose global batch is the same.
  int64_t nextRow = 0;
  /// Recorded to detect a resume on other data or settings.
  int64_t rows = 0;
  bool shuffle = true;

  /// {"seed": "<decimal>", "epoch": E, "next_row": R, "rows": N, "shuffle": b}.
  /// The seed is a string because JSON readers commonly lose 64-bit integer
  /// precision.
  nlohmann::json toJson() const;
  /// Inverse of toJson; names the missing or ill-typed key on failure.
  static Status fromJson(const nlohmann::json &json, BatcherState &out);
};

/// One batch: a tensor per dataset column, plus where it came from.
struct Batch {
  TensorMap columns;
  int64_t epoch = 0;
  /// Index of the batch within its epoch (0-based).
  int64_t index = 0;
  /// Rows this rank reads, and rows of the global batch.
  int64_t rows = 0;
  int64_t globalRows = 0;
  /// True for the epoch's last batch; the batcher then moves to the next
  /// epoch, so a state saved right after it resumes at the next epoch's
  /// first batch.
  bool lastInEpoch = false;
};

class Batcher {
public:
  /// Fails when the dataset has no columns or no rows, the columns disagree
  /// on rows, batchSize < 1, or drop-last leaves no batch (batchSize > N).
  static Status create(Dataset dataset, const BatcherOptions &options, Batcher &out);

  /// The next batch. Epochs roll over by themselves; the caller counts
  /// epochs or steps.
  Batch next();

  /// Batches per epoch: ceil(N / G), or floor(N / G) with drop-last, where
  /// G = batchSize·worldSize is the global batch.
  int64_t batchesPerEpoch() const;
  /// Rows per global batch: batchSize·worldSize.
  int64_t globalBatchSize() const { return options_.batchSize * options_.worldSize; }
  int64_t numRows() const { return dataset_.numRows(); }
  const BatcherOptions &options() const { return options_; }
  const Dataset &dataset() const { return dataset_; }

  /// The current position.
  BatcherState state() const;
  int64_t epoch() const { return epoch_; }

  /// Moves to a saved position, adopting its seed. Fails, naming both
  /// values, when the state was made for a different row count or shuffle
  /// setting, or its position is not the start of a batch of this epoch
  /// (a multiple of batchSize below the epoch's end).
  Status restore(const BatcherState &state);

  /// The row order of `epoch` (0..N-1 or its seeded permutation).
  std::vector<int64_t> epochOrder(int64_t epoch) const;

private:
  void startEpoch(int64_t epoch);
  int64_t epochEnd() const;

  Dataset dataset_;
  BatcherOptions options_;
  int64_t epoch_ = 0;
  int64_t nextRow_ = 0;
  std::vector<int64_t> order_;
};

} // namespace distc::training

#endif // DISTC_TRAINING_BATCHER_H
