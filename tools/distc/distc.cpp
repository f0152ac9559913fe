//===- distc.cpp - the distc compiler driver ------------------------------===//
//
//   distc PROGRAM [--startup FILE] [--loss VAR] -o OUT.distc
//
// Command-line parsing only: the options, the phases `--compile-to` stops
// after and everything they do are lib/compiler/Pipeline's (docs/compiler.md).
//
//===----------------------------------------------------------------------===//

#include "common/CliChecks.h"
#include "distc/Pipeline/Diagnostics.h"
#include "distc/Pipeline/Pipeline.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace {

/// The training settings' flags, which override the config file's keys.
void addTrainingFlags(CLI::App &app, distc::pipeline::TrainingFlags &flags) {
  const char *group = "Training (train mode)";
  app.add_option("--config", flags.config, "JSON file with the settings below; flags override it")
      ->group(group)
      ->check(distc::tools::nonEmptyPath());
  app.add_option("--optimizer", flags.optimizer,
                 "Adds the train mode: sgd, momentum, adam, adamw, adagrad, decayed_adagrad, "
                 "rmsprop or ftrl")
      ->group(group);
  app.add_option("--lr", flags.lr, "Learning rate (default 0.01)")->group(group);
  app.add_option("--momentum", flags.momentum,
                 "Momentum's mu (default 0.9); RMSProp's momentum (default 0)")
      ->group(group);
  // A callback, not add_flag(std::optional<bool>&): CLI11 treats an
  // optional<bool> as a counter and sets it (to false) even when the flag is
  // absent, which would override "nesterov": true from --config.
  app.add_flag_callback(
         "--nesterov", [&flags] { flags.nesterov = true; }, "Nesterov momentum")
      ->group(group);
  app.add_option("--beta1", flags.beta1, "Adam's beta1 (default 0.9)")->group(group);
  app.add_option("--beta2", flags.beta2, "Adam's beta2 (default 0.999)")->group(group);
  app.add_option("--epsilon", flags.epsilon,
                 "Adam's epsilon (default 1e-8); Adagrad's, DecayedAdagrad's and RMSProp's "
                 "(default 1e-6)")
      ->group(group);
  app.add_option("--initial-accumulator-value", flags.initialAccumulatorValue,
                 "Adagrad's initial moment (default 0)")
      ->group(group);
  app.add_option("--decay", flags.decay, "DecayedAdagrad's decay (default 0.95)")->group(group);
  app.add_option("--rho", flags.rho, "RMSProp's rho (default 0.95)")->group(group);
  // A callback for the reason --nesterov is one.
  app.add_flag_callback(
         "--centered", [&flags] { flags.centered = true; }, "Centered RMSProp")
      ->group(group);
  app.add_option("--l1", flags.l1, "FTRL's L1 strength (default 0)")->group(group);
  app.add_option("--l2", flags.l2, "FTRL's L2 strength (default 0)")->group(group);
  app.add_option("--lr-power", flags.lrPower, "FTRL's learning rate power (default -0.5)")
      ->group(group);
  app.add_option("--weight-decay", flags.weightDecay,
                 "L2 decay coefficient (decoupled for adamw; default 0)")
      ->group(group);
  app.add_option("--clip-norm", flags.clipNorm, "Clip gradients to this global norm (default: off)")
      ->group(group);
  app.add_option("--no-grad", flags.noGrad, "Variables that get no gradient (repeatable)")
      ->group(group)
      ->delimiter(',');
  app.add_option("--lr-schedule", flags.schedule, "constant, step, piecewise or cosine")
      ->group(group);
  app.add_option("--lr-step-size", flags.stepSize, "step: decay every N steps")->group(group)
      ->check(distc::tools::decimalInteger());
  app.add_option("--lr-gamma", flags.gamma, "step: decay factor")->group(group);
  app.add_option("--lr-boundaries", flags.boundaries,
                 "piecewise: step boundaries (comma-separated)")
      ->group(group)
      ->delimiter(',')
      ->check(distc::tools::decimalInteger());
  app.add_option("--lr-values", flags.values, "piecewise: rates, one more than boundaries")
      ->group(group)
      ->delimiter(',');
  app.add_option("--lr-decay-steps", flags.decaySteps, "cosine: steps to decay over")->group(group)
      ->check(distc::tools::decimalInteger());
  app.add_option("--lr-end", flags.endLr, "cosine: final rate (default 0)")->group(group);
  app.add_option("--warmup-steps", flags.warmupSteps, "Linear warmup steps (default 0)")
      ->group(group)
      ->check(distc::tools::decimalInteger());
  app.add_option("--warmup-start-lr", flags.warmupStartLr,
                 "Rate at the first warmup step (default 0)")
      ->group(group);
  // --- BuildStrategy: memory (config keys memory_optimize, enable_inplace) ---
  app.add_flag_callback(
         "--no-memory-arena", [&flags] { flags.memoryOptimize = false; },
         "Give each temporary storage of its own instead of one planned arena per program "
         "(memory_optimize false)")
      ->group("Memory (BuildStrategy)");
  app.add_flag_callback(
         "--no-inplace", [&flags] { flags.enableInplace = false; },
         "Element-wise ops never write their result over their input (enable_inplace false)")
      ->group("Memory (BuildStrategy)");
}

/// Data parallelism and BuildStrategy.
void addParallelFlags(CLI::App &app, distc::pipeline::CompileOptions &options) {
  const char *group = "Data parallel (collective mode)";
  distc::pipeline::TrainingFlags &flags = options.trainingFlags;
  app.add_option("--nranks", options.nranks,
                 "Trainer ranks: all-reduce gradients across them (one program for every rank)")
      ->group(group)
      ->check(CLI::Range(1, 1 << 20))
      ->check(distc::tools::decimalInteger());
  app.add_option("--gradient-scale", flags.gradientScale,
                 "coeff-num-device (average the ranks' gradients), one or customized (sum)")
      ->group(group)
      ->check(CLI::IsMember({"coeff-num-device", "one", "customized"}));
  app.add_option("--reduce-strategy", flags.reduceStrategy,
                 "all-reduce (every rank updates every parameter) or reduce (each parameter's "
                 "owner rank updates it and broadcasts it)")
      ->group(group)
      ->check(CLI::IsMember({"all-reduce", "reduce"}));
  app.add_option("--rank", options.rank, "With --emit: the rank whose programs to print")
      ->group(group)
      ->check(distc::tools::decimalInteger());
  // --- BuildStrategy: fused all-reduce buckets ---
  app.add_flag("--fuse-all-reduce", flags.fuseAllReduce,
               "All-reduce the gradients in buckets, one collective each (fuse_all_reduce_ops)")
      ->group(group);
  app.add_option("--fuse-grad-size-mb", flags.fuseGradSizeMb,
                 "With --fuse-all-reduce: the largest bucket in MiB (fuse_grad_size_in_MB, "
                 "default 32)")
      ->group(group);
  // An optional value: --memory-optimize is level 0 (CLI11 would apply a
  // flag's {default} even when the flag is absent).
  app.add_option_function<std::string>(
         "--memory-optimize",
         [&options](const std::string &level) {
           options.memoryOptimizeLevel = level == "1" ? 1 : 0;
         },
         "Rename variables to reuse dead ones' memory, as Paddle's memory_optimize: "
         "=0 (the default) only of the same shape, =1 any with at least as many elements")
      ->expected(0, 1)
      ->check(CLI::IsMember({"", "0", "1"}))
      ->group("Memory (BuildStrategy)");
  app.add_flag("--skip-grads", options.skipGrads,
               "With --memory-optimize: keep the gradients the optimizer reads (skip_grads)")
      ->group("Memory (BuildStrategy)");
  app.add_flag("--print-memory-log", options.memoryOptimizeLog,
               "With --memory-optimize: write each reuse to stderr (print_log)")
      ->group("Memory (BuildStrategy)");
  app.add_flag("--release-memory", options.releaseMemory,
               "Insert delete_var after each variable's last use in the main programs "
               "(Paddle's release_memory)")
      ->group("Memory (BuildStrategy)");
  app.add_option("--skip-opt-set", options.skipOptSet,
                 "Variables the memory passes never free (Paddle's skip_opt_set; "
                 "comma-separated or repeated)")
      ->delimiter(',')
      ->group("Memory (BuildStrategy)");
  app.add_flag("--memory-report", options.memoryReport,
               "Print, per program, its temporaries' bytes with no reuse, the planned arena, "
               "the liveness lower bound and their ratio, and the persistent bytes per rank")
      ->group("Memory (BuildStrategy)");
  // --- BuildStrategy: batch_norm over every rank's batch ---
  app.add_flag("--sync-batch-norm", flags.syncBatchNorm,
               "batch_norm normalizes with the statistics of every rank's batch together "
               "(sync_batch_norm)")
      ->group(group);
}

/// DistributeTranspiler: the parameter-server mode (and nccl2/collective,
/// which are data parallelism over the trainers).
void addTranspilerFlags(CLI::App &app, distc::pipeline::CompileOptions &options) {
  const char *group = "DistributeTranspiler (parameter server)";
  distc::pipeline::TrainingFlags &flags = options.trainingFlags;
  app.add_option("--transpiler", flags.transpilerMode,
                 "pserver: parameter servers hold the parameters (--pservers, --trainers); "
                 "nccl2 or collective: data parallelism over --trainers (config 'mode')")
      ->group(group)
      ->check(CLI::IsMember({"pserver", "nccl2", "collective"}));
  app.add_option("--pservers", options.pservers, "The servers' endpoints, host:port,...")
      ->group(group)
      ->delimiter(',');
  app.add_option("--trainers", options.trainers, "Number of trainers (default 1)")
      ->group(group)
      ->check(CLI::Range(1, 1 << 20))
      ->check(distc::tools::decimalInteger());
  app.add_option("--trainer-id", options.trainerId,
                 "The trainer whose program --emit prints (default 0)")
      ->group(group)
      ->check(distc::tools::decimalInteger());
  app.add_option("--sync-mode", flags.syncMode,
                 "true (default): synchronous training with barriers; false: asynchronous "
                 "(config 'sync_mode')")
      ->group(group);
  app.add_option("--role", options.role,
                 "With --emit: trainer (get_trainer_program) or pserver (get_pserver_program, "
                 "with --endpoint)")
      ->group(group)
      ->check(CLI::IsMember({"trainer", "pserver"}));
  app.add_option("--endpoint", options.endpoint, "With --role pserver: which server")->group(group);
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"distc: compile a serial Paddle program into a distributed artifact"};
  distc::pipeline::CompileOptions options;
  app.add_option("program", options.input,
                 "Main program: Paddle ProgramDesc (binary __model__/.pdmodel or its JSON form) "
                 "or pd dialect .mlir")
      ->required()
      ->check(distc::tools::nonEmptyPath());
  app.add_option("--startup", options.startup, "Startup program (parameter initializers)")
      ->check(distc::tools::nonEmptyPath());
  app.add_option("-o,--output", options.output, "Artifact file to write")
      ->check(distc::tools::nonEmptyPath());
  app.add_option("--loss", options.trainingFlags.loss, "Loss variable; adds the eval mode");
  addTrainingFlags(app, options.trainingFlags);
  app.add_option("--seed", options.seed,
                 "Program random seed for initializers whose seed attribute is 0")
      ->check(distc::tools::unsignedDecimal());
  addParallelFlags(app, options);
  addTranspilerFlags(app, options);
  app.add_option("--placements", options.placements,
                 "Auto parallel: JSON file of the process mesh and tensor placements "
                 "({\"mesh\": {\"shape\": [2, 2], \"dim_names\": [\"dp\", \"mp\"]}, "
                 "\"tensors\": {\"x\": [\"Shard(0)\", \"Replicate()\"]}})")
      ->group("Auto parallel (sharding)");
  for (const distc::pipeline::FusionOption &option : distc::pipeline::fusionOptions())
    app.add_flag_callback(
           option.flag,
           [&options, key = std::string(option.key)] {
             options.trainingFlags.fusion.push_back(key);
           },
           option.help)
        ->group("Fusion (BuildStrategy)");
  app.add_flag("--explain-fusion", options.explainFusion,
               "Print what each fusion pass fused and why it left each candidate it saw")
      ->group("Fusion (BuildStrategy)");
  app.add_flag("--explain-sharding", options.explainSharding,
               "Print every reshard partitioning inserts (op, tensor, from and to placements, "
               "the collectives, and the rule or annotation that asked for it) and a rank's "
               "parameter and optimizer-state bytes against the serial program's")
      ->group("Auto parallel (sharding)");

  std::vector<std::string> phaseNames;
  std::string phaseHelp = "Stop after a phase and print it:";
  for (const distc::pipeline::Phase &phase : distc::pipeline::phases()) {
    phaseNames.push_back(phase.name.str());
    phaseHelp += "\n  " + phase.name.str() + ": " + phase.summary.str();
  }
  app.add_option("--compile-to", options.compileTo, phaseHelp)->check(CLI::IsMember(phaseNames));
  app.add_option("--emit", options.emit, "Print the program of the phase in another form")
      ->check(CLI::IsMember({"program-json"}));
  app.add_option("--mode", options.mode, "Mode of the program to emit (train, eval, predict)")
      ->check(CLI::IsMember({"train", "eval", "predict"}));
  app.add_option("--program", options.program, "Which program to emit")
      ->check(CLI::IsMember({"main", "startup"}));
  app.add_flag("--timing", options.timing, "Print the time of every phase and pass to stderr");
  if (std::string slip = distc::tools::emptyAttachedValue(argc, argv); !slip.empty()) {
    distc::reportError(slip);
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    // Same form and exit status as every other distc error.
    distc::reportError(e.what());
    return 1;
  }
  return distc::pipeline::compile(std::move(options));
}
