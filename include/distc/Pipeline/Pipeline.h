//===- Pipeline.h - the compiler's front door -----------------*- C++ -*-===//
//
// Everything `distc` does, as a library: its options, the table of phases
// (each a pass pipeline that `--compile-to` can stop after), lowering to the
// artifact and writing it, and printing a program as ProgramDesc JSON.
// distc is argument parsing over `compile`; distc-opt runs the same phase
// pipelines through `registerDistcPipelines`.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PIPELINE_PIPELINE_H
#define DISTC_PIPELINE_PIPELINE_H

#include "distc/Pipeline/TrainingOptions.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace distc::pipeline {

/// Everything distc accepts; docs/compiler.md describes each.
struct CompileOptions {
  /// The main program (Paddle ProgramDesc, its JSON form or pd .mlir) and
  /// its startup program (optional).
  std::string input;
  std::string startup;
  /// The artifact file to write after the last phase.
  std::string output;
  /// A phase name: stop after that phase and print what it produced. Empty:
  /// run every phase and write `output` (or, with `emit`, stop at the last
  /// phase that holds programs).
  std::string compileTo;
  /// "program-json": print one program of the phase as ProgramDesc JSON,
  /// chosen by `mode` (default predict) and `program` (main | startup), as
  /// rank `rank` runs it (-1: the SPMD program every rank shares).
  std::string emit;
  std::string mode;
  std::string program = "main";
  int rank = -1;
  /// Paddle's program random_seed: seeds initializers whose seed is 0.
  uint64_t seed = 0;
  /// Print the memory report of the artifact (MemoryReport.h).
  bool memoryReport = false;
  /// Paddle's release_memory: delete_var after each variable's last use,
  /// never for the variables of `skipOptSet` (distc-release-memory).
  bool releaseMemory = false;
  std::vector<std::string> skipOptSet;
  /// Paddle's memory_optimize at this level (0 or 1; -1: not run), with
  /// skip_grads and print_log (distc-memory-optimize); skipOptSet applies.
  int memoryOptimizeLevel = -1;
  bool skipGrads = false;
  bool memoryOptimizeLog = false;
  /// Data parallelism over this many trainer ranks (0: a serial program).
  int nranks = 0;
  /// DistributeTranspiler (the transpiler mode itself is
  /// `training.transpilerMode`, from --transpiler or the config's `mode`):
  /// the servers' endpoints, the number of trainers (0: not given) and the
  /// trainer whose program is written.
  std::vector<std::string> pservers;
  int trainers = 0;
  int trainerId = 0;
  /// `--emit=program-json` of a parameter-server program: "trainer" (the
  /// default) or "pserver", the latter for the server at `endpoint`.
  std::string role;
  std::string endpoint;
  /// Auto parallel: a placements file (the process mesh and the
  /// `shard_tensor` annotations, distc/Sharding/Placements.h).
  std::string placements;
  /// Print every reshard partitioning inserts, and why, with the per-rank
  /// parameter bytes (distc-partition's `explain`).
  bool explainSharding = false;
  /// Print what each fusion pass fused and why it left each candidate.
  bool explainFusion = false;
  /// Print the time of every phase and pass to stderr.
  bool timing = false;
  /// The config file and the values given over it; `resolveCompileOptions`
  /// turns them into `training`, which the phases read.
  TrainingFlags trainingFlags;
  TrainingOptions training;
};

/// What the module holds after a phase, which decides how it is printed.
enum class PhaseResult {
  /// `@main` / `@startup`, as imported.
  SerialPrograms,
  /// `@<mode>.main` / `@<mode>.startup` (distc-derive-modes).
  ModePrograms,
  /// The programs are lowered to an artifact, which the phase printed or
  /// wrote; the module itself is unchanged.
  Artifact,
};

/// One row of the phase table. The phases run in table order, each on what
/// the previous one left; the first (import) reads the input files.
struct Phase {
  llvm::StringLiteral name;
  llvm::StringLiteral summary;
  PhaseResult result;
  /// Adds the phase's passes (none for import, which is no pass).
  void (*addPasses)(mlir::OpPassManager &pm, const CompileOptions &options);
};

/// The phases, in order. `--compile-to` accepts each name.
llvm::ArrayRef<Phase> phases();

/// The phase named `name`, or null.
const Phase *findPhase(llvm::StringRef name);

/// Checks the combination of options, reads the config file and fills
/// `options.training`; on failure reports the first problem (as distc
/// prints errors) and returns failure.
mlir::LogicalResult resolveCompileOptions(CompileOptions &options);

/// Adds the passes of every phase up to and including `last` to `pm`.
/// `options` must be resolved.
void buildPipeline(mlir::OpPassManager &pm, const Phase &last, const CompileOptions &options);

/// distc: resolves the options, imports the program, runs the phases and
/// prints or writes the result. Returns the process exit code; every error
/// has been reported on stderr.
int compile(CompileOptions options);

/// Registers `distc-pipeline-<phase>` for every phase after import: the
/// passes distc runs up to that phase, with distc's options as pipeline
/// options (for distc-opt and lit tests).
void registerDistcPipelines();

} // namespace distc::pipeline

#endif // DISTC_PIPELINE_PIPELINE_H
