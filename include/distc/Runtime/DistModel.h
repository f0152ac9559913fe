//===- DistModel.h - Training, evaluation and prediction API ----*- C++ -*-===//
//
// A DistModel drives an artifact the way Paddle's DistModel drives a static
// program: one object, three modes sharing one set of parameters.
//
//   std::string error;
//   auto model = DistModel::open("model.distc", error);   // null + error
//   model->initialize();              // startup: parameters + optimizer state
//   model->train();                   // select the train program
//   StepResult r;
//   model->step({{"x", x}, {"label", y}}, r);  // one optimizer update
//   r.loss; r.learningRate; model->globalStep();
//   model->eval();   model->step(batch, r);    // loss + metrics, no update
//   model->predict(); model->step({{"x", x}}, r);  r.fetches["probs"]
//   TensorMap sd;  model->stateDict("param", sd);  model->setStateDict(sd);
//
// A train step, for an artifact with a training table (artifact.fbs):
//   1. lr = schedule(globalStep()) when the artifact has a schedule, written
//      into learning_rate_var; without a schedule the rate is what that
//      variable holds (the startup program's value, or a restored one);
//   2. globalStep() (0-based: updates already applied) is written into
//      step_var;
//   3. the train program runs: forward, backward and the optimizer, which
//      updates the persistent parameters and optimizer state in place;
//   4. the step counter is incremented, and the loss (the fetch named by the
//      training table's `loss`) and every fetch are returned.
// A failed step leaves the counter unchanged (the persistent state may hold
// partial updates, see Session.h).
//
// State dicts hold deep copies: "param" is the training table's parameters,
// "opt" its optimizer state, "all" both. For an artifact without a training
// table "param" is every persistent variable and "opt" is empty. They hold
// whole variables: for a program partitioned over a mesh, stateDict() and
// persistables() all-gather the variables the mesh splits (every rank must
// call them, in the same order) and setStateDict() keeps this rank's slice
// (WholeVariables.h), so state moves between meshes and to one process.
//
// Not thread-safe; use one DistModel per thread.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_DISTMODEL_H
#define DISTC_RUNTIME_DISTMODEL_H

#include "distc/Runtime/LRSchedule.h"
#include "distc/Runtime/Session.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace distc::runtime {

struct StepResult {
  /// The loss fetch's first element (the training table's `loss`), when the
  /// mode's program fetches it; NaN otherwise.
  double loss = std::numeric_limits<double>::quiet_NaN();
  bool hasLoss = false;
  /// Train mode: the learning rate the step used (NaN when the artifact has
  /// no learning-rate variable).
  double learningRate = std::numeric_limits<double>::quiet_NaN();
  /// globalStep() after the call.
  int64_t step = 0;
  /// Every fetch of the mode's program.
  TensorMap fetches;
};

/// The value of a one-element tensor of any dtype as a double; false for
/// an undefined tensor or one with another element count.
bool scalarValue(const Tensor &tensor, double &value);

class DistModel {
public:
  /// Loads and validates an artifact (Session::open). The mode starts as the
  /// widest one present: train, else eval, else predict.
  static std::unique_ptr<DistModel> open(const std::string &path, std::string &error);
  /// The same over an open session.
  static std::unique_ptr<DistModel> create(std::unique_ptr<Session> session, std::string &error);

  ~DistModel();

  Session &session() { return *session_; }
  const Session &session() const { return *session_; }
  const artifact::LoadedArtifact &artifact() const { return session_->artifact(); }

  /// Runs the startup program of the widest mode present (train, else eval,
  /// else predict). Persistent buffers are shared by every mode, so this
  /// initializes parameters and optimizer state for all of them. Resets the
  /// global step to 0. An artifact compiled for several ranks, used outside
  /// its job (no communicator of that size), skips the train startup, which
  /// communicates: eval and predict still work, train does not.
  Status initialize();

  /// Select the mode step() runs; an error (listing the artifact's modes)
  /// when the artifact has no such mode, or when its program does not fetch
  /// the training table's loss.
  Status train();
  Status eval();
  Status predict();
  Status setMode(const std::string &mode);
  const std::string &mode() const { return mode_; }
  bool hasMode(const std::string &mode) const { return session_->hasMode(mode); }

  /// The current mode's feeds and fetches.
  std::vector<ProgramIO> feeds() const { return session_->feeds(mode_); }
  std::vector<ProgramIO> fetches() const { return session_->fetches(mode_); }

  /// Runs the current mode's program on `batch` (see above); `out` is reset
  /// first.
  Status step(const TensorMap &batch, StepResult &out);

  /// Optimizer updates applied so far (0-based index of the next step).
  int64_t globalStep() const { return step_; }
  void setGlobalStep(int64_t step) { step_ = step; }

  /// The rate the next train step uses: the schedule's value at
  /// globalStep(), or without a schedule the learning-rate variable's value
  /// (NaN when there is none, or it is not initialized yet).
  double currentLearningRate() const;

  /// Whether the artifact has a training table, and its parts.
  bool hasTraining() const;
  /// The loss fetch's name ("" when unknown).
  std::string lossName() const;
  std::string optimizerName() const;
  /// The optimizer settings as JSON text ("" when absent).
  std::string optimizerConfig() const;
  const std::optional<LRScheduleParams> &schedule() const { return schedule_; }
  /// The variable names of state_dict(mode), sorted; an error for a mode
  /// other than "param", "opt" and "all".
  Status stateDictNames(const std::string &mode, std::vector<std::string> &names) const;

  /// Deep copies of the variables of `mode` ("param", "opt" or "all").
  /// Every one must be initialized.
  Status stateDict(const std::string &mode, TensorMap &out) const;

  /// Copies `state` into the persistent variables, all or nothing: every
  /// name, dtype and shape is checked before anything is written. Each name
  /// must be a persistent variable; with `strict` the names must be exactly
  /// those of stateDict("all"). Errors name the variable.
  Status setStateDict(const TensorMap &state, bool strict = true);

  /// Deep copies of every persistent variable (what save_persistables
  /// writes). Every one must be initialized.
  Status persistables(TensorMap &out) const;

  /// Deep copies of the whole persistent variables `names` (gathered on a
  /// mesh, as stateDict). Each must exist and be initialized; the error
  /// names the first that is not.
  Status variables(const std::vector<std::string> &names, TensorMap &out) const;

  /// Data parallelism with the Reduce strategy: each rank updates the
  /// optimizer state of the parameters it owns only, so the others hold
  /// stale copies. This broadcasts every owned state variable from its
  /// owner, after which stateDict() is the same on every rank. A collective:
  /// every rank must call it. A no-op for artifacts without owned state.
  /// A parameter-server trainer reads the servers' state instead
  /// (ServerState.h), and setStateDict() has the first trainer write the
  /// servers' blocks too, every trainer waiting for it (every trainer must
  /// call it, with the same state).
  Status synchronizeState();

private:
  DistModel() = default;
  Status checkLossFetch(const std::string &mode) const;

  std::unique_ptr<Session> session_;
  std::string mode_;
  int64_t step_ = 0;
  std::optional<LRScheduleParams> schedule_;
  /// Parameter-server mode: the rate the servers' copies were last given
  /// by this trainer (none: unknown, e.g. after a state dict was loaded).
  std::optional<float> serverRate_;
};

} // namespace distc::runtime

#endif // DISTC_RUNTIME_DISTMODEL_H
