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

#include <algorithm>
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

/// DistributeTranspiler's modes: pserver needs its servers and trainers;
/// nccl2 and collective are data parallelism over the trainers (--nranks).
LogicalResult resolveTranspiler(CompileOptions &options) {
  const std::string &mode = options.training.transpilerMode;
  bool pserver = mode == "pserver";
  if (!pserver && !options.pservers.empty())
    return fail("--pservers lists the parameter servers of --transpiler pserver");
  if (mode.empty() && (options.trainers != 0 || options.trainerId != 0))
    return fail("--trainers and --trainer-id are DistributeTranspiler's: give --transpiler "
                "pserver, nccl2 or collective");
  if (options.trainers < 0 || options.trainerId < 0)
    return fail("--trainers and --trainer-id must not be negative");
  if (!pserver && (!options.role.empty() || !options.endpoint.empty()))
    return fail("--role and --endpoint choose among the programs of --transpiler pserver");
  if (mode == "nccl2" || mode == "collective") {
    if (options.trainers == 0 && options.nranks == 0)
      return fail("--transpiler " + mode + " is data parallelism: give --trainers N");
    if (options.trainers != 0 && options.nranks != 0 && options.trainers != options.nranks)
      return fail("--trainers " + std::to_string(options.trainers) + " and --nranks " +
                  std::to_string(options.nranks) + " disagree");
    if (options.nranks == 0)
      options.nranks = options.trainers;
    if (options.trainerId >= options.nranks)
      return fail("--trainer-id " + std::to_string(options.trainerId) + " is not one of the " +
                  std::to_string(options.nranks) + " trainers");
    if (options.rank < 0 && options.trainerId > 0)
      options.rank = options.trainerId;
    return success();
  }
  if (!pserver)
    return success();
  if (options.pservers.empty())
    return fail("--transpiler pserver needs the servers' endpoints: --pservers host:port,...");
  if (options.nranks != 0 || !options.placements.empty())
    return fail("--transpiler pserver distributes the program by itself; --nranks and "
                "--placements describe other strategies");
  if (options.trainers == 0)
    options.trainers = 1;
  if (options.trainerId >= options.trainers)
    return fail("--trainer-id " + std::to_string(options.trainerId) + " is not one of the " +
                std::to_string(options.trainers) + " trainers");
  if (options.rank >= 0)
    return fail("--rank selects a rank's SPMD program; a parameter-server trainer is "
                "--trainer-id, a server --role pserver --endpoint");
  if (options.role.empty())
    options.role = "trainer";
  if (options.role != "trainer" && options.role != "pserver")
    return fail("unknown --role '" + options.role + "' (expected trainer or pserver)");
  if (options.role == "pserver") {
    if (options.endpoint.empty())
      return fail("--role pserver needs --endpoint, one of --pservers");
    if (std::find(options.pservers.begin(), options.pservers.end(), options.endpoint) ==
        options.pservers.end())
      return fail("--endpoint " + options.endpoint + " is not one of --pservers");
  } else if (!options.endpoint.empty()) {
    return fail("--endpoint names a server's programs: give --role pserver");
  }
  return success();
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
  if (failed(resolveTranspiler(options)))
    return failure();
  if (options.rank >= 0 && options.placements.empty() &&
      (options.nranks == 0 || options.rank >= options.nranks))
    return fail("--rank " + std::to_string(options.rank) + " needs --nranks N with N > " +
                std::to_string(options.rank));
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
