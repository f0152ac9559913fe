//===- Compile.cpp - distc from options to artifact -----------------------===//

#include "Emit.h"

#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Import/Import.h"
#include "distc/Sharding/Placements.h"
#include "distc/Pipeline/Diagnostics.h"
#include "distc/Pipeline/Pipeline.h"
#include "distc/Support/ToolOutput.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;

namespace distc::pipeline {
namespace {

LogicalResult fail(const std::string &message) {
  reportError(message);
  return failure();
}

/// "a, b or c" of the phase names `pick` accepts.
std::string phaseList(bool (*pick)(const Phase &)) {
  std::vector<std::string> names;
  for (const Phase &phase : phases())
    if (pick(phase))
      names.push_back(phase.name.str());
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return list;
}

bool holdsPrograms(const Phase &phase) { return phase.result != PhaseResult::Artifact; }

/// Where distc stops: the named phase, the last one holding programs when
/// only a program is to be printed, else the last.
const Phase &lastPhase(const CompileOptions &options) {
  if (!options.compileTo.empty())
    return *findPhase(options.compileTo);
  const Phase *last = &phases().back();
  if (!options.emit.empty())
    for (const Phase &phase : phases())
      if (holdsPrograms(phase))
        last = &phase;
  return *last;
}

} // namespace

LogicalResult resolveCompileOptions(CompileOptions &options) {
  if (options.output.empty() && options.compileTo.empty() && options.emit.empty())
    return fail("nothing to do: give -o FILE, --compile-to PHASE or --emit FORM");
  const Phase *stop = nullptr;
  if (!options.compileTo.empty() && !(stop = findPhase(options.compileTo)))
    return fail("unknown phase '" + options.compileTo + "' (expected " +
                phaseList([](const Phase &) { return true; }) + ")");
  if (!options.emit.empty() && options.emit != "program-json")
    return fail("unknown --emit form '" + options.emit + "' (expected program-json)");
  if (options.emit == "program-json" && stop && !holdsPrograms(*stop))
    // The artifact is kernel calls over buffers, not a program: there is no
    // ProgramDesc to print for it.
    return fail("--emit=program-json prints a program; the " + options.compileTo +
                " phase has none (use --compile-to=" + phaseList(holdsPrograms) +
                ", or distc-dump for the artifact)");
  if (options.output == "-" && (!options.compileTo.empty() || !options.emit.empty()))
    return fail("-o - and --compile-to/--emit would both write to standard output; give -o FILE");
  if (options.rank >= 0 && options.placements.empty() &&
      (options.nranks == 0 || options.rank >= options.nranks))
    return fail("--rank " + std::to_string(options.rank) + " needs --nranks N with N > " +
                std::to_string(options.rank));
  if (options.explainSharding && options.placements.empty())
    return fail("--explain-sharding explains the shardings of --placements; give a placements "
                "file");
  if (!options.placements.empty() && options.nranks != 0)
    return fail("--placements and --nranks both say how the program is distributed: the "
                "mesh of --placements sets the ranks (data parallel over N ranks is the mesh "
                "[N] with the feeds' batch axis Shard(0))");
  std::string error;
  if (!resolveTrainingOptions(options.trainingFlags, options.training, error))
    return fail(error);
  // --- BuildStrategy: fused all-reduce buckets ---
  if (options.training.fuseAllReduce && options.nranks == 0)
    return fail("--fuse-all-reduce (fuse_all_reduce_ops) fuses the all-reduces of data "
                "parallelism: give --nranks N");
  // --- BuildStrategy: batch_norm over every rank's batch ---
  if (options.training.syncBatchNorm && options.nranks == 0)
    return fail("--sync-batch-norm (sync_batch_norm) normalizes over the batches of data "
                "parallelism's ranks: give --nranks N");
  return success();
}

/// The phases print through llvm::outs(), std::cout and C's stdout; the
/// exit status is 0 only when all of it reached standard output.
static int checkStandardOutput(int status) {
  llvm::outs().flush();
  std::error_code llvmError = llvm::outs().error();
  std::string problem = distc::standardOutputError();
  if (!llvmError && problem.empty())
    return status;
  llvm::outs().clear_error(); // else LLVM aborts at exit over the same error
  reportError("cannot write to standard output: " + (llvmError ? llvmError.message() : problem));
  return 1;
}

static int runPhases(CompileOptions options);

int compile(CompileOptions options) { return checkStandardOutput(runPhases(std::move(options))); }

static int runPhases(CompileOptions options) {
  if (failed(resolveCompileOptions(options)))
    return 1;
  DialectRegistry registry;
  registry.insert<pd::PdDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the op and variable themselves; a dump of the whole
  // program after every error would bury them.
  context.printOpOnDiagnostic(false);
  ProgramDiagnosticHandler diagnostics(&context, llvm::errs(), "distc");

  // Declared before the scopes that use it: its report, printed to stderr
  // when it goes, needs every scope stopped.
  DefaultTimingManager timing;
  timing.setEnabled(options.timing);
  TimingScope root = timing.getRootScope();

  const Phase &last = lastPhase(options);
  OwningOpRef<ModuleOp> module;
  {
    TimingScope importTiming = root.nest(phases().front().name);
    std::optional<std::string> startup;
    if (!options.startup.empty())
      startup = options.startup;
    module = importProgramFile(context, options.input, startup);
  }
  if (!module)
    return 1;
  if (!options.placements.empty()) {
    llvm::Expected<sharding::PlacementsSpec> spec =
        sharding::readPlacementsFile(options.placements);
    llvm::Error err = spec ? sharding::annotate(*module, *spec) : spec.takeError();
    if (err) {
      (void)fail(llvm::toString(std::move(err)));
      return 1;
    }
    if (options.rank >= spec->mesh.size()) {
      (void)fail("--rank " + std::to_string(options.rank) + " is not a rank of the mesh " +
                 spec->mesh.str());
      return 1;
    }
  }

  // One pass manager per phase, so that the timing report groups the passes
  // by phase. The IR is verified once, after the last phase that changes
  // it, rather than after every pass: the passes keep it valid (distc-opt,
  // which the lit tests drive, verifies after each one), and on large
  // programs each verification costs as much as a pass.
  ArrayRef<Phase> table = phases();
  for (const Phase &phase : table) {
    if (phase.addPasses) {
      PassManager pm(&context);
      pm.enableVerifier(false);
      phase.addPasses(pm, options);
      TimingScope phaseTiming = root.nest(phase.name);
      if (options.timing)
        pm.enableTiming(phaseTiming);
      if (failed(pm.run(*module)))
        return 1;
      bool lastProgramPhase = &phase == &last || !holdsPrograms(*(&phase + 1));
      if (holdsPrograms(phase) && lastProgramPhase) {
        TimingScope verifyTiming = phaseTiming.nest("verify");
        if (failed(verify(*module)))
          return 1;
      }
    }
    if (&phase == &last)
      break;
  }
  if (last.result == PhaseResult::Artifact)
    return 0;
  return emitPrograms(*module, options, last.result);
}

} // namespace distc::pipeline
