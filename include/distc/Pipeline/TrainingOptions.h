//===- TrainingOptions.h - distc's optimizer settings -----------*- C++ -*-===//
//
// The optimizer, regularization, clipping, learning-rate schedule and
// BuildStrategy settings of a train program, from a JSON config file
// (`--config FILE`) overridden by explicitly given values (distc's flags,
// distc-opt's pipeline options). docs/compiler.md lists the keys and flags.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PIPELINE_TRAININGOPTIONS_H
#define DISTC_PIPELINE_TRAININGOPTIONS_H

#include "distc/Artifact/ArtifactDesc.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Pass;
} // namespace mlir

namespace distc::pipeline {

struct TrainingOptions {
  std::string optimizer; // empty: no train mode
  std::string loss;
  double lr = 0.01;
  /// Momentum's mu and RMSProp's momentum; unset: the optimizer's default
  /// (momentumValue()).
  std::optional<double> momentum;
  bool nesterov = false;
  double beta1 = 0.9;
  double beta2 = 0.999;
  /// Adam's, Adagrad's, DecayedAdagrad's and RMSProp's; unset: the
  /// optimizer's default (epsilonValue()).
  std::optional<double> epsilon;
  double initialAccumulatorValue = 0; // Adagrad's initial moment
  double decay = 0.95;                // DecayedAdagrad's
  double rho = 0.95;                  // RMSProp's (its op's `decay`)
  bool centered = false;              // RMSProp's
  double l1 = 0, l2 = 0;              // FTRL's
  double lrPower = -0.5;              // FTRL's
  double weightDecay = 0;
  double clipNorm = 0;
  std::vector<std::string> noGrad;
  bool hasSchedule = false;
  artifact::LRScheduleDesc schedule;

  // --- BuildStrategy: fused all-reduce buckets (data parallelism) --------
  bool fuseAllReduce = false; // fuse_all_reduce_ops
  double fuseGradSizeMb = 32; // fuse_grad_size_in_MB: the largest bucket
  // --- BuildStrategy: batch_norm over every rank's batch -----------------
  bool syncBatchNorm = false; // sync_batch_norm
  // --- BuildStrategy: memory ------------------------------------------------
  /// memory_optimize: the temporaries of each program share one planned
  /// arena (PlanArenas.h); false: each has storage of its own.
  bool memoryOptimize = true;
  /// enable_inplace: an element-wise op writes its result over its input
  /// when nothing reads that input's storage afterwards.
  bool enableInplace = true;
  // --- BuildStrategy: op fusion (docs/fusion.md) ----------------------------
  /// By BuildStrategy key (fusionOptions()), whether the option is on; an
  /// option not listed is off, as in Paddle.
  std::map<std::string, bool> fusion;
  bool fuses(const std::string &key) const {
    auto it = fusion.find(key);
    return it != fusion.end() && it->second;
  }
  // ----------------------------------------------------------------------
  // BuildStrategy's reduce_strategy and gradient_scale_strategy, in the
  // spelling of distc's flags ("all-reduce" | "reduce"; "coeff-num-device" |
  // "one" | "customized"); the config file also takes Paddle's enum names.
  std::string reduceStrategy = "all-reduce";
  std::string gradientScale = "coeff-num-device";
  // --- DistributeTranspilerConfig: the parameter-server transpile ---------
  // Paddle's keys and defaults; they apply with `mode` (or --transpiler)
  // pserver only.
  std::string transpilerMode;             // mode: "" | pserver | nccl2 | collective
  bool sliceVarUp = true;                 // slice_var_up
  std::string splitMethod = "RoundRobin"; // split_method: RoundRobin | HashName
  int64_t minBlockSize = 8192;            // min_block_size (at least 8192)
  bool runtimeSplitSendRecv = false;      // runtime_split_send_recv
  bool syncMode = true;                   // sync_mode
  bool halfAsync = false;                 // half_async
  /// The parameter-server keys the config file gave (for the error when
  /// the program is not transpiled for parameter servers).
  std::vector<std::string> pserverKeys;

  /// The settings as the config file spells them (recorded in the artifact).
  nlohmann::json toJson() const;
  /// momentum and epsilon as given, else Paddle's default for `optimizer`.
  double momentumValue() const;
  double epsilonValue() const;
};

/// One of BuildStrategy's fusion options: its config key (Paddle's
/// attribute name), the distc flag that turns it on, what it does, and its
/// pass (lib/compiler/Fusion), made with its `explain` option.
struct FusionOption {
  const char *key;
  const char *flag;
  const char *help;
  std::unique_ptr<mlir::Pass> (*createPass)(bool explain);
};
/// Every fusion option distc implements, in the order their passes run.
const std::vector<FusionOption> &fusionOptions();

/// Values that override the config file (distc's flags); unset ones do not.
/// Registering them as command-line flags is the tool's business.
struct TrainingFlags {
  std::string config;
  std::optional<std::string> optimizer, loss, schedule;
  std::optional<double> lr, momentum, beta1, beta2, epsilon, weightDecay, clipNorm, gamma, endLr,
      warmupStartLr;
  std::optional<double> initialAccumulatorValue, decay, rho, l1, l2, lrPower;
  std::optional<int64_t> stepSize, decaySteps, warmupSteps;
  std::optional<bool> nesterov, centered;
  std::vector<int64_t> boundaries;
  std::vector<double> values;
  std::vector<std::string> noGrad;

  // --- BuildStrategy: fused all-reduce buckets ----------------------------
  bool fuseAllReduce = false; // a plain flag: given turns fusion on
  std::optional<double> fuseGradSizeMb;
  // --- BuildStrategy: sync_batch_norm ---------------------------------------
  bool syncBatchNorm = false; // a plain flag: given turns it on
  // --- BuildStrategy: memory_optimize and enable_inplace --------------------
  std::optional<bool> memoryOptimize, enableInplace;
  // --- BuildStrategy: op fusion, by key: the options the flags turned on --
  std::vector<std::string> fusion;
  // ----------------------------------------------------------------------
  // BuildStrategy's reduce and gradient-scale strategies, already checked
  // against the spellings TrainingOptions lists.
  std::optional<std::string> reduceStrategy, gradientScale;
  // --- DistributeTranspilerConfig ------------------------------------------
  std::optional<std::string> transpilerMode;
  std::optional<bool> syncMode;
};

/// Merges the config file (if any) and the flags into `out`, checking every
/// value; on failure `error` names the key or flag.
bool resolveTrainingOptions(const TrainingFlags &flags, TrainingOptions &out, std::string &error);

} // namespace distc::pipeline

#endif // DISTC_PIPELINE_TRAININGOPTIONS_H
