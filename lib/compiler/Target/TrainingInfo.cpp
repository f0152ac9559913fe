//===- TrainingInfo.cpp - What the runtime must know to train -------------===//

#include "distc/Target/TrainingInfo.h"

#include "distc/Target/LowerToArtifact.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include <map>
#include <set>

using namespace mlir;

namespace distc::target {

/// The persistable variable `value` is read from, or "".
static std::string readVariable(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != "pd.read_var")
    return "";
  return def->getAttrOfType<FlatSymbolRefAttr>("var").getValue().str();
}

FailureOr<artifact::TrainingDesc> describeTraining(ModuleOp module, StringRef loss) {
  Operation *train = findProgram(module, "train.main");
  if (!train)
    return module.emitError("no train program to describe");
  artifact::TrainingDesc desc;
  desc.loss = loss.str();
  std::set<std::string> parameters, state;
  bool sawLearningRate = false;
  LogicalResult result = success();
  // Parameter-server mode: the optimizer ops are the servers'; a block
  // `fc_w.block1` updates the trainer's parameter `fc_w`.
  bool onServers = false;
  auto wholeName = [&](std::string name) {
    if (size_t pos = name.find(".block"); onServers && pos != std::string::npos)
      name.resize(pos);
    return name;
  };
  auto visit = [&](Operation *op) {
    const pd::OpSpec *spec = catalogSpecOf(op);
    if (!spec || !(opRole(op) & pd::OpRole::Optimize))
      return;
    int paramSlot = findSlot(spec->inputs, "Param");
    int lrSlot = findSlot(spec->inputs, "LearningRate");
    if (paramSlot < 0 || lrSlot < 0)
      return; // clipping, decay: optimize-role arithmetic
    if (desc.optimizer.empty())
      desc.optimizer = std::string(spec->type);
    for (Value param : operandsOfSlot(op, *spec, paramSlot))
      if (std::string name = readVariable(param); !name.empty())
        parameters.insert(wholeName(name));
    for (Value lr : operandsOfSlot(op, *spec, lrSlot)) {
      std::string name = readVariable(lr);
      if (sawLearningRate && name != desc.learningRateVar) {
        result = op->emitError() << "optimizer ops read different learning rates ('"
                                 << desc.learningRateVar << "' and '" << name
                                 << "'); the runtime cannot schedule them as one";
        return;
      }
      sawLearningRate = true;
      desc.learningRateVar = name;
    }
  };
  train->walk(visit);
  if (parameters.empty()) {
    onServers = true;
    for (ModuleOp server : module.getOps<ModuleOp>())
      if (server->hasAttr("pd.endpoint"))
        server.walk(visit);
  }
  if (failed(result))
    return failure();
  if (parameters.empty())
    return train->emitError("the train program has no optimizer op updating a parameter");
  // Under the Reduce strategy a state variable written by its parameter's
  // owner only (`owner_rank`) is up to date on that rank alone.
  // A variable the forward pass writes (batch_norm's running statistics,
  // through MeanOut/VarianceOut) is model state, not optimizer state: it
  // belongs with the parameters (what Paddle's state_dict calls buffers),
  // so that --init-from loads it with them from a pretrained model.
  std::set<std::string> modelState;
  std::map<std::string, int32_t> owners;
  train->walk([&](Operation *op) {
    if (op->getName().getStringRef() != "pd.write_var")
      return;
    std::string name = op->getAttrOfType<FlatSymbolRefAttr>("var").getValue().str();
    if (parameters.count(name))
      return;
    if (Operation *def = op->getOperand(0).getDefiningOp();
        def && catalogSpecOf(def) && !isTrainingOp(def)) {
      modelState.insert(name);
      return;
    }
    state.insert(name);
    if (auto owner = op->getAttrOfType<IntegerAttr>("owner_rank"))
      owners[name] = static_cast<int32_t>(owner.getInt());
  });
  if (!desc.learningRateVar.empty())
    state.insert(desc.learningRateVar);
  // Parameter-server mode: the state the servers update, by the trainers'
  // whole names (the trainers read it from the servers for checkpoints).
  if (onServers)
    for (ModuleOp server : module.getOps<ModuleOp>())
      for (Operation &op : server.getBody()->getOperations())
        if (auto whole = op.getAttrOfType<StringAttr>("pd.block_of"))
          if (!parameters.count(whole.getValue().str()))
            state.insert(whole.getValue().str());
  for (const std::string &name : modelState)
    if (!state.count(name))
      parameters.insert(name);
  desc.parameters.assign(parameters.begin(), parameters.end());
  desc.optimizerState.assign(state.begin(), state.end());
  if (!owners.empty())
    for (const std::string &name : desc.optimizerState)
      desc.optimizerStateOwner.push_back(owners.count(name) ? owners[name] : -1);
  return desc;
}

} // namespace distc::target
