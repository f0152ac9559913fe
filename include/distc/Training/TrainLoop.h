//===- TrainLoop.h - The training loop behind dist-run --mode train -*- C++ -*-===//
//
// runTraining drives a DistModel (DistModel.h) over a dataset: it loads the
// `--data` arguments (DataSpec.h), checks them against the train program's
// feeds, sets a held-out part aside (`--holdout F`, or `--eval-data`),
// batches (Batcher.h), initializes or restores the model, runs train steps
// until a step or epoch target, evaluates the held-out data every N steps
// and at the end, writes metrics (Metrics.h), TensorBoard events
// (TensorBoard.h), progress and checkpoints (Checkpoint.h), and at the end Paddle's persistables and inference model.
// dist-run is a thin client of it; docs/training.md is the user's view.
//
// Targets count optimizer steps since the start of training, so a run
// resumed with the same target (`--steps N` or `--epochs E`, E epochs being
// ceil(E * batches per epoch) steps) stops where an uninterrupted run would.
// A resumed run restores state_dict("all"), the global step and the
// batcher's position from the checkpoint, so it sees the same batches and
// computes bitwise the same losses as an uninterrupted one.
//
// Data parallel: with the session's Collectives set (several ranks), every
// rank runs this loop on its share of each global batch of
// batch size x ranks rows (Batcher.h); the losses reported are those of the
// global batch (the row-weighted mean over the ranks), and evaluation is
// split over the ranks and its sums added up. Only the first worker (rank
// 0) writes metrics, TensorBoard events, progress, checkpoints, persistables
// and the inference model; every rank resumes from the same checkpoint, which may have been
// written by a run on another number of ranks with the same global batch.
//
// Evaluation runs the eval program over the whole held-out set in file
// order, in batches of the training batch size, with the current
// parameters. Every fetch declared with one element is averaged over the batches weighted
// by their rows and reported as "eval_<fetch>"; the training table's loss
// fetch is "eval_loss".
//
// MLIR-free, like the runtime. Never throws; every failure is a Status
// with one line.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_TRAINLOOP_H
#define DISTC_TRAINING_TRAINLOOP_H

#include "distc/Runtime/DistModel.h"
#include "distc/Training/Checkpoint.h"
#include "distc/Training/Dataset.h"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace distc::training {

using runtime::DistModel;

struct TrainOptions {
  /// `--data` arguments (at least one).
  std::vector<std::string> data;
  /// `--eval-data` arguments: the held-out set, instead of `--holdout`.
  std::vector<std::string> evalData;
  /// `--holdout F`: the fraction of the data set aside for evaluation.
  double holdout = 0;
  int64_t batchSize = 32;
  uint64_t seed = 0;
  bool shuffle = true;
  /// `--split-files`: data parallel with each rank reading only its share
  /// of the `--data` file lists (Paddle's split_files) and batching its own
  /// rows, instead of every rank reading everything and taking its share of
  /// each global batch. Not equivalent to a serial run.
  bool splitFiles = false;
  /// `--epochs E` (> 0) or `--steps N` (> 0), not both; neither: 1 epoch.
  std::optional<double> epochs;
  std::optional<int64_t> steps;
  /// `--metrics FILE` (JSON Lines; appended to when resuming).
  std::string metricsPath;
  /// `--tensorboard DIR`: a new TensorBoard event file there (TensorBoard.h).
  std::string tensorBoardDir;
  /// `--eval-every N`: evaluate every N steps (and at the end).
  int64_t evalEvery = 0;
  /// `--save-every N`: checkpoint every N steps (and at the end).
  int64_t saveEvery = 0;
  std::string checkpointDir;
  /// Checkpoints kept in checkpointDir (0: all).
  int keepCheckpoints = 3;
  /// `--resume`: continue from checkpointDir's latest checkpoint.
  bool resume = false;
  /// `--init-from PATH`: initial parameters (loadInitialParameters).
  std::string initFrom;
  /// `--save-persistables DIR`, `--save-inference-model PREFIX`.
  std::string savePersistablesDir;
  std::string saveInferencePrefix;
  /// Where progress goes; null for none.
  std::FILE *progress = stderr;
  /// Overrides whether `progress` is a terminal (tests set it).
  std::optional<bool> progressTerminal;
};

/// The result of an evaluation.
struct EvalResult {
  int64_t rows = 0;
  int64_t batches = 0;
  double seconds = 0;
  /// "eval_loss", "eval_<fetch>", ...
  std::map<std::string, double> metrics;

  /// "eval_acc 0.972 eval_loss 0.1021" (loss first, 4 significant digits).
  std::string format() const;
};

struct TrainReport {
  /// Global step at the start (> 0 when resumed) and at the end.
  int64_t startStep = 0;
  int64_t endStep = 0;
  int64_t batchesPerEpoch = 0;
  int64_t trainRows = 0;
  int64_t evalRows = 0;
  /// Wall time of the whole run.
  double seconds = 0;
  /// This run's steps: loss (over the global batch) and learning rate of each.
  std::vector<double> losses;
  std::vector<double> learningRates;
  /// The last evaluation (none without held-out data).
  std::optional<EvalResult> eval;
  /// The checkpoint a resumed run started from.
  std::string resumedFrom;

  double epochs() const { return batchesPerEpoch ? double(endStep) / double(batchesPerEpoch) : 0; }
  /// The final line dist-run prints, e.g. "trained 500 steps (3.5 epochs) in
  /// 2.1 s: loss 0.0812; eval_loss 0.1 eval_acc 0.972".
  std::string summary() const;
};

/// Trains `model` (see above). `model` must be freshly opened: runTraining
/// initializes it (or restores it with `resume`).
Status runTraining(DistModel &model, const TrainOptions &options, TrainReport &report);

/// Runs `model`'s eval program over `data` (columns for its feeds; other
/// columns are ignored) in batches of `batchSize` rows, in order, with the
/// current state. The model's mode is restored afterwards.
Status evaluate(DistModel &model, const Dataset &data, int64_t batchSize, EvalResult &result);

/// What `mode`'s feeds expect, for checkDatasetFeeds and loadData.
std::map<std::string, FeedSpec> feedSpecs(const runtime::Session &session, const std::string &mode);

/// A worker's share of file lists (`--split-files`).
struct FileShard {
  int rank = 0;
  int workers = 1;
};

/// Loads and combines `--data` arguments into `out`, then checks them
/// against `feeds` (checkDatasetFeeds). Errors name the argument. With
/// `shard`, each argument's file list is cut with fileShard (DataSpec.h) and
/// only the worker's files are read; every worker must get at least one.
/// With `log`, every file read is reported there (loadData in DataSpec.h)
/// once all of them load and fit.
Status loadDataArguments(const std::vector<std::string> &specs,
                         const std::map<std::string, FeedSpec> &feeds, Dataset &out,
                         const FileShard *shard = nullptr, std::FILE *log = nullptr);

/// `--init-from PATH`: loads state_dict("param") (loadParameters in
/// PaddleParams.h: a checkpoint, a directory of .npy or Paddle per-variable
/// files, or a combined file) into the model, which must be initialized.
Status loadInitialParameters(DistModel &model, const std::string &path);

/// `--save-persistables DIR`: every persistable variable in Paddle's
/// per-variable format, whole. On a mesh every rank calls it (the split
/// variables are gathered) and the ranks with `write` write.
Status saveModelPersistables(const DistModel &model, const std::string &dir, bool write = true);

/// `--save-inference-model PREFIX`: PREFIX.pdmodel holds the artifact's
/// inference program bytes verbatim, PREFIX.pdiparams the current values of
/// its parameters in the payload's order, whole. An error when the artifact
/// has no inference payload. On a mesh every rank calls it (the split
/// parameters are gathered) and the ranks with `write` write.
Status saveInferenceModel(const DistModel &model, const std::string &prefix, bool write = true);

/// The `extra` a checkpoint of `model` records: artifact checksum and name,
/// optimizer and its settings, batch size per rank, ranks and global batch.
nlohmann::json checkpointExtra(const DistModel &model, int64_t batchSize);

/// Whether a checkpoint whose state is `saved` can resume training of
/// `model` with `batchSize` (per rank) and `seed`; the error names every
/// mismatch. A checkpoint of another artifact is refused unless that one
/// was compiled for another number of ranks; the global batch must agree.
Status checkResumable(const DistModel &model, const std::string &checkpoint,
                      const TrainingState &saved, int64_t batchSize, uint64_t seed);

/// The dtypes and shapes of the model's variables `names`.
VarSpecs variableSpecs(const DistModel &model, const std::vector<std::string> &names);

/// A number for humans: 4 significant digits, "nan", "inf".
std::string formatMetric(double value);

} // namespace distc::training

#endif // DISTC_TRAINING_TRAINLOOP_H
