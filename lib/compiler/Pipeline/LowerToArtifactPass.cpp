//===- LowerToArtifactPass.cpp - the artifact phase -----------------------===//
//
// Lowers the mode programs (lib/compiler/Target), adds what the runtime needs beside
// the kernel calls (the Training table, the inference model), checks the
// result with the runtime's loader and writes or prints it.
//
//===----------------------------------------------------------------------===//

#include "distc/Pipeline/Passes.h"

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Artifact/MemoryReport.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Export/Export.h"
#include "distc/ProgramDesc/ProgramDesc.h"
#include "distc/Runtime/ArtifactPrinter.h"
#include "distc/Target/LowerToArtifact.h"
#include "distc/Target/TrainingInfo.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <set>

namespace distc::pipeline {
#define GEN_PASS_DEF_LOWERTOARTIFACT
#include "distc/Pipeline/Passes.h.inc"
} // namespace distc::pipeline

using namespace mlir;

namespace distc::pipeline {
namespace {

/// Errors that belong to no op: distc prints them without a location.
InFlightDiagnostic emitModuleError(ModuleOp module) {
  return emitError(UnknownLoc::get(module.getContext()));
}

/// The predict program as save_inference_model writes it: only that program
/// and the persistable variables it reads, as Paddle's binary ProgramDesc.
/// A partitioned module exports the serial program it kept
/// (pd::kSerialInferenceAttr), not a rank's.
LogicalResult exportInferenceModel(ModuleOp module, artifact::InferenceModelDesc &out) {
  for (ModuleOp nested : module.getOps<ModuleOp>())
    if (nested->hasAttr(pd::kSerialInferenceAttr))
      return exportInferenceModel(nested, out);
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  Operation *predict = findProgram(*copy, "predict.main");
  if (!predict)
    return failure();
  std::set<std::string> read = readVariables(predict);
  SmallVector<Operation *> doomed;
  for (Operation &op : copy->getBody()->getOperations()) {
    StringRef name = op.getName().getStringRef();
    if ((name == "pd.program" && &op != predict) || isa<ModuleOp>(op) ||
        (name == "pd.var" && !read.count(SymbolTable::getSymbolName(&op).str())))
      doomed.push_back(&op);
  }
  for (Operation *op : doomed)
    op->erase();
  programdesc::ProgramDesc desc;
  if (failed(exportProgram(*copy, "predict.main", desc)))
    return failure();
  std::string bytes, error;
  if (!programdesc::programToBinary(desc, bytes, error))
    return emitModuleError(module) << error;
  out.program.assign(bytes.begin(), bytes.end());
  out.parameters.assign(read.begin(), read.end()); // sorted: Paddle's combined-file order
  return success();
}

/// Fills the artifact's Training table (when there is a train mode) and its
/// inference model (the predict program).
LogicalResult describeModes(ModuleOp module, const TrainingOptions &training,
                            artifact::ArtifactDesc &artifact) {
  if (Operation *train = findProgram(module, "train.main")) {
    std::string loss = training.loss.empty() ? seededLoss(train) : training.loss;
    FailureOr<artifact::TrainingDesc> desc = target::describeTraining(module, loss);
    if (failed(desc))
      return failure();
    for (const artifact::BufferDesc &buffer : artifact.buffers)
      if (buffer.kind == artifact::BufferKind::Persistent &&
          buffer.name == target::kStepCounterName)
        desc->stepVar = buffer.name;
    if (training.hasSchedule) {
      if (desc->learningRateVar.empty())
        return emitModuleError(module)
               << "the program computes its own learning rate; it cannot take a "
                  "learning-rate schedule";
      desc->hasSchedule = true;
      desc->schedule = training.schedule;
    }
    if (training.optimizer.empty())
      desc->config = nlohmann::json{{"optimizer", desc->optimizer}, {"source", "program"}}.dump();
    else
      desc->config = training.toJson().dump();
    artifact.hasTraining = true;
    artifact.training = std::move(*desc);
  } else if (training.hasSchedule) {
    return emitModuleError(module)
           << "a learning-rate schedule needs a train mode: give --optimizer";
  }
  if (findProgram(module, "predict.main")) {
    if (failed(exportInferenceModel(module, artifact.inference)))
      return failure();
    artifact.hasInference = true;
  }
  return success();
}

struct LowerToArtifactPass : impl::LowerToArtifactBase<LowerToArtifactPass> {
  using Base::Base;

  /// Set when distc created the pass with its resolved settings; otherwise
  /// they come from the `loss` and `config` options.
  std::optional<TrainingOptions> resolvedTraining;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    markAllAnalysesPreserved();
    TrainingOptions training;
    if (resolvedTraining) {
      training = *resolvedTraining;
    } else {
      TrainingFlags flags;
      flags.config = config;
      if (!loss.empty())
        flags.loss = loss;
      std::string error;
      if (!resolveTrainingOptions(flags, training, error)) {
        emitModuleError(module) << error;
        return signalPassFailure();
      }
    }

    target::LoweringOptions lowering;
    lowering.programSeed = seed;
    lowering.source = source;
    lowering.planArenas = arena;
    lowering.inplace = inplace;
    FailureOr<artifact::ArtifactDesc> desc = target::lowerToArtifact(module, lowering);
    if (failed(desc) || failed(describeModes(module, training, *desc)))
      return signalPassFailure();
    // A partitioned module's mesh sets the ranks; otherwise --nranks.
    if (desc->rings.empty())
      desc->worldSize = std::max<int>(worldSize, 1);
    std::vector<uint8_t> payload = artifact::serializeArtifact(*desc);

    // Check our own output with the runtime's loader: a bug here should fail
    // at compile time, not on a cluster.
    std::string error;
    auto loaded = artifact::LoadedArtifact::loadBytes(
        artifact::makeArtifactFileBytes(payload),
        output.empty() ? std::string("<artifact>") : std::string(output), error);
    if (!loaded) {
      emitModuleError(module) << "internal: produced an invalid artifact: " << error;
      return signalPassFailure();
    }
    if (memoryReport) {
      llvm::outs().flush();
      std::cout << artifact::formatMemoryReport(*loaded->artifact()) << std::flush;
    }
    if (print) {
      // The printer writes to the C stream; what went to the others first
      // must come out first.
      llvm::outs().flush();
      std::cout.flush();
      runtime::printArtifact(*loaded, stdout);
      std::fflush(stdout);
    }
    if (!output.empty() && !artifact::writeArtifactFile(output, payload, error)) {
      emitModuleError(module) << error;
      return signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<Pass> createLowerToArtifact(const LowerToArtifactOptions &options,
                                            const TrainingOptions &training) {
  auto pass = std::make_unique<LowerToArtifactPass>(options);
  pass->resolvedTraining = training;
  return pass;
}

} // namespace distc::pipeline
