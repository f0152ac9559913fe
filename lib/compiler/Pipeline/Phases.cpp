//===- Phases.cpp - the phase table and its pass pipelines ----------------===//
//
// The one place that says which passes each phase runs, with which options:
// distc runs these pipelines, and distc-opt registers them.
//
//===----------------------------------------------------------------------===//

#include "distc/ParameterServer/Passes.h"
#include "distc/Pipeline/Passes.h"
#include "distc/Pipeline/Pipeline.h"
#include "distc/Sharding/Passes.h"
#include "distc/Transforms/Passes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/Pass/PassRegistry.h"

#include <algorithm>

using namespace mlir;

namespace distc::pipeline {
namespace {

/// The rate the learning-rate variable starts at: the schedule's rate at
/// step 0 (the runtime overwrites it every step when there is a schedule).
double initialLearningRate(const TrainingOptions &training) {
  if (!training.hasSchedule)
    return training.lr;
  if (training.schedule.warmupSteps > 0)
    return training.schedule.warmupStartLr;
  if (training.schedule.kind == "piecewise")
    return training.schedule.values.front();
  return training.lr;
}

ApplyOptimizerOptions optimizerOptions(const TrainingOptions &training) {
  ApplyOptimizerOptions o;
  o.optimizer = training.optimizer;
  o.lr = initialLearningRate(training);
  o.momentum = training.momentumValue();
  o.nesterov = training.nesterov;
  o.beta1 = training.beta1;
  o.beta2 = training.beta2;
  o.epsilon = training.epsilonValue();
  o.initialAccumulatorValue = training.initialAccumulatorValue;
  o.decay = training.decay;
  o.rho = training.rho;
  o.centered = training.centered;
  o.l1 = training.l1;
  o.l2 = training.l2;
  o.lrPower = training.lrPower;
  o.weightDecay = training.weightDecay;
  o.clipNorm = training.clipNorm;
  return o;
}

/// Collectives in a program compiled for one rank would be the identity and
/// leave its gradients scaled for the ranks it was transpiled for: such a
/// program needs --nranks.
struct CheckSingleRankPass : PassWrapper<CheckSingleRankPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckSingleRankPass)

  explicit CheckSingleRankPass(std::string source) : source(std::move(source)) {}
  StringRef getName() const override { return "CheckSingleRank"; }
  StringRef getArgument() const override { return "distc-check-single-rank"; }
  StringRef getDescription() const override {
    return "Refuse a program that communicates between ranks";
  }

  void runOnOperation() override {
    markAllAnalysesPreserved();
    std::string collective = firstCollectiveOp(getOperation());
    if (collective.empty())
      return;
    emitError(UnknownLoc::get(&getContext()))
        << (source.empty() ? "the program" : source) << " communicates between ranks ("
        << collective
        << "): it was transpiled for data parallelism; give --nranks N, the number of ranks it "
           "was transpiled for";
    signalPassFailure();
  }

  std::string source;
};

void addModesPasses(OpPassManager &pm, const CompileOptions &options) {
  const TrainingOptions &training = options.training;
  DeriveModesOptions modes;
  modes.loss = training.loss;
  modes.train = !training.optimizer.empty();
  pm.addPass(createDeriveModes(modes));
  // BuildStrategy.sync_batch_norm: before the backward pass, which then
  // appends sync_batch_norm_grad.
  if (training.syncBatchNorm)
    pm.addPass(createSyncBatchNorm());
  // Paddle's minimize: append_backward + apply_gradients.
  if (!training.optimizer.empty()) {
    AppendBackwardOptions backward;
    backward.program = "train.main";
    backward.loss = training.loss;
    backward.noGrad.assign(training.noGrad.begin(), training.noGrad.end());
    pm.addPass(createAppendBackward(backward));
    pm.addPass(createApplyOptimizer(optimizerOptions(training)));
  }
}

/// Auto parallel: with a mesh in the module (--placements), every value's
/// sharding (distc-propagate-sharding); without one, nothing.
void addShardedPasses(OpPassManager &pm, const CompileOptions &) {
  pm.addPass(sharding::createPropagateSharding());
}

/// The distributed strategy: Paddle's collective transpile with --nranks;
/// without it, a program that already communicates is refused.
void addDistributedPasses(OpPassManager &pm, const CompileOptions &options) {
  const TrainingOptions &training = options.training;
  if (training.transpilerMode == "pserver") {
    ps::TranspilePserverOptions transpile;
    transpile.pservers.assign(options.pservers.begin(), options.pservers.end());
    transpile.trainers = options.trainers;
    transpile.trainerId = options.trainerId;
    transpile.syncMode = training.syncMode;
    transpile.sliceVarUp = training.sliceVarUp;
    transpile.splitMethod = training.splitMethod;
    transpile.minBlockSize = training.minBlockSize;
    transpile.runtimeSplitSendRecv = training.runtimeSplitSendRecv;
    transpile.halfAsync = training.halfAsync;
    transpile.seed = options.seed;
    pm.addPass(ps::createTranspilePserver(transpile));
    return;
  }
  if (!options.placements.empty()) {
    sharding::PartitionOptions partition;
    partition.explain = options.explainSharding;
    pm.addPass(sharding::createPartition(partition));
    return;
  }
  if (options.nranks == 0) {
    pm.addPass(std::make_unique<CheckSingleRankPass>(options.input));
    return;
  }
  DataParallelOptions dp;
  dp.nranks = options.nranks;
  dp.gradientScale = training.gradientScale;
  dp.reduceStrategy = training.reduceStrategy;
  pm.addPass(createDataParallel(dp));
}

/// BuildStrategy's optimizations of the distributed programs.
void addOptimizedPasses(OpPassManager &pm, const CompileOptions &options) {
  const TrainingOptions &training = options.training;
  if (training.fuseAllReduce) {
    FuseAllReduceOptions fusion;
    fusion.bucketMb = training.fuseGradSizeMb;
    pm.addPass(createFuseAllReduce(fusion));
  }
  for (const FusionOption &option : fusionOptions())
    if (training.fuses(option.key))
      pm.addPass(option.createPass(options.explainFusion));
}

/// The memory passes over the programs (Paddle's release_memory).
void addPlannedPasses(OpPassManager &pm, const CompileOptions &options) {
  if (options.memoryOptimizeLevel >= 0) {
    MemoryOptimizeOptions reuse;
    reuse.level = options.memoryOptimizeLevel;
    reuse.skip.assign(options.skipOptSet.begin(), options.skipOptSet.end());
    reuse.skipGrads = options.skipGrads;
    reuse.printLog = options.memoryOptimizeLog;
    pm.addPass(createMemoryOptimize(reuse));
  }
  if (options.releaseMemory) {
    ReleaseMemoryOptions release;
    release.skip.assign(options.skipOptSet.begin(), options.skipOptSet.end());
    pm.addPass(createReleaseMemory(release));
  }
}

void addArtifactPasses(OpPassManager &pm, const CompileOptions &options) {
  LowerToArtifactOptions lowering;
  // Stopping at the artifact prints it; running through writes it.
  lowering.print = options.compileTo == "artifact";
  if (!lowering.print)
    lowering.output = options.output;
  lowering.seed = options.seed;
  lowering.arena = options.training.memoryOptimize;
  lowering.inplace = options.training.enableInplace;
  lowering.memoryReport = options.memoryReport;
  lowering.source = options.input;
  lowering.worldSize = std::max(options.nranks, 1);
  pm.addPass(createLowerToArtifact(lowering, options.training));
}

// The phase table: adding a phase is adding a row (and its passes).
const Phase kPhases[] = {
    {"import", "the serial program as pd IR, verified (shape and dtype inference on every op)",
     PhaseResult::SerialPrograms, nullptr},
    {"modes",
     "per-mode programs @<mode>.main / @<mode>.startup (distc-derive-modes), the train "
     "program differentiated and given its optimizer (distc-append-backward, "
     "distc-apply-optimizer; with --sync-batch-norm its batch_norm ops first become "
     "sync_batch_norm, distc-sync-batch-norm)",
     PhaseResult::ModePrograms, addModesPasses},
    {"sharded",
     "auto parallel: with --placements, every value's and variable's sharding on the mesh and "
     "the sharding each op needs of its operands (distc-propagate-sharding)",
     PhaseResult::ModePrograms, addShardedPasses},
    {"distributed",
     "the programs every rank runs: data parallelism with --nranks (distc-data-parallel), or "
     "with --placements the sharded programs partitioned into the one every rank of the mesh "
     "runs, local shapes and reshard collectives (distc-partition), or with --transpiler "
     "pserver the trainer program and one nested module of programs per server "
     "(distc-transpile-pserver)",
     PhaseResult::ModePrograms, addDistributedPasses},
    {"optimized",
     "BuildStrategy's optimizations: fused all-reduce buckets (distc-fuse-all-reduce), then "
     "the fusion options turned on (docs/fusion.md: distc-fuse-elementwise, ...)",
     PhaseResult::ModePrograms, addOptimizedPasses},
    {"planned",
     "the memory passes: with --memory-optimize variables renamed to reuse dead ones "
     "(distc-memory-optimize), with --release-memory a delete_var after each variable's last "
     "use (distc-release-memory)",
     PhaseResult::ModePrograms, addPlannedPasses},
    {"artifact",
     "kernel calls over buffers (distc-lower-to-artifact) with one planned arena per program, "
     "checked by the runtime's own loader",
     PhaseResult::Artifact, addArtifactPasses},
};

/// distc's options as pass-pipeline options, for distc-opt. Only the ones
/// the phases read; the rest of the training settings come from `config`.
struct PipelineOptions : PassPipelineOptions<PipelineOptions> {
  Option<std::string> config{*this, "config",
                             llvm::cl::desc("JSON training config, as distc --config")};
  Option<std::string> loss{*this, "loss", llvm::cl::desc("Loss variable")};
  Option<std::string> optimizer{
      *this, "optimizer",
      llvm::cl::desc("Adds the train mode: sgd, momentum, adam, adamw, adagrad, decayed_adagrad, "
                     "rmsprop or ftrl")};
  Option<double> lr{*this, "lr", llvm::cl::desc("Learning rate")};
  Option<int> nranks{*this, "nranks", llvm::cl::desc("Data-parallel trainer ranks (0: serial)"),
                     llvm::cl::init(0)};
  Option<std::string> gradientScale{*this, "gradient-scale",
                                    llvm::cl::desc("coeff-num-device, one or customized")};
  Option<std::string> reduceStrategy{*this, "reduce-strategy",
                                     llvm::cl::desc("all-reduce or reduce")};
  Option<bool> fuseAllReduce{*this, "fuse-all-reduce",
                             llvm::cl::desc("All-reduce the gradients in buckets")};
  Option<bool> syncBatchNorm{
      *this, "sync-batch-norm",
      llvm::cl::desc("batch_norm with the statistics of every rank's batch")};
  ListOption<std::string> fuse{
      *this, "fuse",
      llvm::cl::desc("BuildStrategy fusion options to turn on, by config key "
                     "(enable_auto_fusion, ...)")};
  Option<uint64_t> seed{*this, "seed", llvm::cl::desc("Program random seed"), llvm::cl::init(0)};
  Option<std::string> output{*this, "output",
                             llvm::cl::desc("artifact phase: write this file instead of printing")};
};

} // namespace

llvm::ArrayRef<Phase> phases() { return kPhases; }

const Phase *findPhase(llvm::StringRef name) {
  for (const Phase &phase : kPhases)
    if (phase.name == name)
      return &phase;
  return nullptr;
}

void buildPipeline(OpPassManager &pm, const Phase &last, const CompileOptions &options) {
  for (const Phase &phase : kPhases) {
    if (phase.addPasses)
      phase.addPasses(pm, options);
    if (&phase == &last)
      break;
  }
}

void registerDistcPipelines() {
  for (const Phase &phase : kPhases) {
    if (!phase.addPasses)
      continue;
    std::string name = ("distc-pipeline-" + phase.name).str();
    std::string description = ("distc --compile-to=" + phase.name + ": " + phase.summary).str();
    registerPassPipeline(
        name, description,
        [&phase](OpPassManager &pm, StringRef text,
                 function_ref<LogicalResult(const Twine &)> errorHandler) {
          PipelineOptions given;
          if (failed(given.parseFromString(text)))
            return failure();
          CompileOptions options;
          options.nranks = given.nranks;
          options.seed = given.seed;
          options.output = given.output;
          // With an output file the pipeline runs through and writes it, as
          // distc -o does.
          if (options.output.empty())
            options.compileTo = phase.name.str();
          TrainingFlags &flags = options.trainingFlags;
          flags.config = given.config;
          if (given.loss.hasValue())
            flags.loss = given.loss;
          if (given.optimizer.hasValue())
            flags.optimizer = given.optimizer;
          if (given.lr.hasValue())
            flags.lr = given.lr;
          if (given.gradientScale.hasValue())
            flags.gradientScale = given.gradientScale;
          if (given.reduceStrategy.hasValue())
            flags.reduceStrategy = given.reduceStrategy;
          flags.fuseAllReduce = given.fuseAllReduce;
          flags.syncBatchNorm = given.syncBatchNorm;
          flags.fusion.assign(given.fuse.begin(), given.fuse.end());
          std::string error;
          if (!resolveTrainingOptions(flags, options.training, error))
            return errorHandler(error);
          buildPipeline(pm, phase, options);
          return success();
        },
        [](function_ref<void(const detail::PassOptions &)> handler) {
          handler(PipelineOptions());
        });
  }
}

} // namespace distc::pipeline
