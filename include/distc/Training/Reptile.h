//===- Reptile.h - Meta-learning on few-shot episodes -----------*- C++ -*-===//
//
// `dist-run ARTIFACT --mode train --meta reptile`: Reptile (Nichol, Achiam
// and Schulman, 2018) over N-way K-shot episodes (Episodes.h) with the
// artifact's own train program as the inner optimizer.
//
// Each meta-step t of M:
//   * every rank draws its `metaBatch` episodes (episode numbers
//     [t*B*R + r*B, t*B*R + (r+1)*B) for rank r of R, B = metaBatch);
//   * for each, starting from θ (parameters) and the optimizer state and
//     step counter of the start of training (so that every episode is the
//     same fresh fine-tune, whichever episodes ran before), the train
//     program runs `innerSteps` steps, each on the whole support set
//     (N*K rows, class by class), giving θ';
//   * θ ← θ + ε_t · mean(θ' − θ) over all B*R episodes of the step, the
//     differences summed in float64 and over the ranks with one allreduce;
//     ε_t = (1 − t/M)·ε + (t/M)·ε_final (Reptile's linear annealing; ε_final
//     defaults to ε).
// R ranks with meta-batch B compute what one process with meta-batch R*B
// computes (the same episodes; the float64 sums may differ in rounding
// order for more than two terms).
//
// Evaluation (held-out classes: `--eval-data`, or the `test` folder of a
// few-shot root given as `--data images=ROOT`): `evalEpisodes` episodes,
// numbered from 0 with the seed mixSeed(seed + 1) so that they differ from
// the training ones; each fine-tunes from θ for `evalInnerSteps` steps on
// its support set, then the predict program classifies the query rows
// (argmax over the first N columns of its class-score fetch). The accuracy
// is correct queries over all queries, the episodes split over the ranks.
//
// Artifacts must be compiled for one rank (each rank adapts its own copy;
// the outer update is the only communication).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRAINING_REPTILE_H
#define DISTC_TRAINING_REPTILE_H

#include "distc/Training/Episodes.h"
#include "distc/Training/TrainLoop.h"

#include <optional>
#include <string>
#include <vector>

namespace distc::training {

struct ReptileOptions {
  /// `--ways N --shots K --queries Q`.
  EpisodeOptions episode;
  /// `--inner-steps k` (>= 1).
  int64_t innerSteps = 5;
  /// `--meta-steps M` (>= 0; 0 evaluates the initial parameters).
  int64_t metaSteps = 100;
  /// `--meta-batch B`: episodes per meta-step on each rank (>= 1).
  int64_t metaBatch = 1;
  /// `--meta-lr ε` and `--meta-lr-final`.
  double metaLr = 1.0;
  std::optional<double> metaLrFinal;
  /// `--eval-episodes E` (all ranks together) and `--eval-inner-steps`
  /// (0: innerSteps).
  int64_t evalEpisodes = 100;
  int64_t evalInnerSteps = 0;
  /// The label feed episodes are drawn by, unless an `images=` argument
  /// names another.
  std::string labelFeed = "label";
};

struct ReptileReport {
  int64_t metaSteps = 0;
  int64_t episodes = 0;
  double seconds = 0;
  /// Per meta-step: the mean over its episodes of the last inner step's loss.
  std::vector<double> losses;
  EpisodeOptions episode;
  /// The evaluation: episodes, queries, correct queries (none without
  /// held-out data).
  int64_t evalEpisodes = 0;
  int64_t evalQueries = 0;
  int64_t evalCorrect = 0;
  double accuracy() const { return evalQueries ? double(evalCorrect) / double(evalQueries) : 0; }

  /// "meta-trained 200 steps (400 episodes) in 3.1 s: loss 0.21; 5-way
  /// 1-shot accuracy 0.873 over 200 episodes (chance 0.2)".
  std::string summary() const;
};

/// The ε of meta-step t (0-based).
double reptileMetaLr(const ReptileOptions &options, int64_t step);

/// Runs Reptile (see above) with the data, seed, metrics, progress and
/// final outputs of `train`. Training options that do not apply (epochs,
/// steps, held-out rows, checkpoints, TensorBoard, --split-files) are
/// refused.
Status runReptile(DistModel &model, const TrainOptions &train, const ReptileOptions &options,
                  ReptileReport &report);

} // namespace distc::training

#endif // DISTC_TRAINING_REPTILE_H
