//===- TranspilePlan.cpp - Parameters, blocks and their servers -----------===//

#include "TranspilePlan.h"

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/ParameterServer/Dispatcher.h"
#include "distc/ParameterServer/NumpyShuffle.h"
#include "distc/Transforms/ProgramUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <set>

using namespace mlir;

namespace distc::ps {

RankedTensorType ParamPlan::gradBlockType(const BlockPlan &block) const {
  return pd::withSelectedRows(block.type, sparse);
}

std::string sentGradName(const TranspileSettings &settings, const BlockPlan &block) {
  return settings.trainerSuffix() ? trainerVarName(block.gradName, settings.trainerId)
                                  : block.gradName;
}

LogicalResult checkSettings(const TranspileSettings &s, Operation *anchor) {
  if (s.pservers.empty())
    return anchor->emitError("the parameter-server transpile needs the servers' endpoints "
                             "(--pservers host:port,...)");
  llvm::StringSet<> seen;
  for (const std::string &endpoint : s.pservers) {
    auto [host, port] = llvm::StringRef(endpoint).rsplit(':');
    unsigned number = 0;
    if (host.empty() || port.getAsInteger(10, number) || number == 0 || number > 65535)
      return anchor->emitError() << "server endpoint '" << endpoint << "' is not host:port";
    if (!seen.insert(endpoint).second)
      return anchor->emitError() << "server endpoint '" << endpoint << "' is listed twice";
  }
  if (s.trainers < 1)
    return anchor->emitError() << "trainers = " << s.trainers << " must be at least 1";
  if (s.trainerId < 0 || s.trainerId >= s.trainers)
    return anchor->emitError() << "trainer id " << s.trainerId << " is not one of the "
                               << s.trainers << " trainers";
  if (s.minBlockSize < kMinBlockSize)
    return anchor->emitError() << "min_block_size = " << s.minBlockSize
                               << " is below Paddle's smallest, " << kMinBlockSize;
  if (!makeDispatcher(s.splitMethod, s.pservers))
    return anchor->emitError() << "unknown split_method '" << s.splitMethod
                               << "' (RoundRobin or HashName)";
  if (s.runtimeSplitSendRecv && s.syncMode)
    return anchor->emitError("runtime_split_send_recv needs asynchronous training "
                             "(sync_mode false), as Paddle's config requires");
  if (s.halfAsync && (s.syncMode || !s.runtimeSplitSendRecv))
    return anchor->emitError("half_async applies to asynchronous training with "
                             "runtime_split_send_recv only");
  if (!s.sliceVarUp && s.seed > UINT32_MAX)
    return anchor->emitError() << "the program seed " << s.seed
                               << " does not fit numpy's 32-bit seed, which orders whole "
                                  "variables without slice_var_up";
  return success();
}

namespace {

/// The parameter an optimizer op (an op with a Param slot) updates, or "".
std::string updatedParam(Operation *op) {
  const pd::OpSpec *spec = catalogSpecOf(op);
  int slot = spec ? findSlot(spec->inputs, "Param") : -1;
  if (slot < 0)
    return "";
  SmallVector<Value, 1> operands = operandsOfSlot(op, *spec, slot);
  return operands.empty() ? "" : variableName(operands.front());
}

/// The ops of a row-sparse gradient: the gradient ops of sparse lookups of
/// the parameter, alone or summed (a table several lookups share). Empty
/// when the gradient is dense.
std::vector<Operation *> sparseGradientOps(Value grad) {
  auto sparseLookup = [](Value value) {
    auto op = value.getDefiningOp<pd::LookupTableV2GradOp>();
    return op && pd::OpAttributes(op).getBool("is_sparse") ? op.getOperation() : nullptr;
  };
  if (Operation *op = sparseLookup(grad))
    return {op};
  auto sum = grad.getDefiningOp<pd::SumOp>();
  if (!sum)
    return {};
  std::vector<Operation *> ops;
  for (Value part : sum->getOperands()) {
    Operation *op = sparseLookup(part);
    if (!op || !part.hasOneUse())
      return {};
    ops.push_back(op);
  }
  ops.push_back(sum);
  return ops;
}

/// Whether `op` is a lookup of `table` that Paddle marks is_distributed.
bool isDistributedLookup(Operation *op, StringRef table) {
  auto lookup = dyn_cast<pd::LookupTableV2Op>(op);
  auto flag = lookup ? lookup->getAttrOfType<BoolAttr>("is_distributed") : BoolAttr();
  return flag && flag.getValue() && variableName(lookup->getOperand(1)) == table;
}

/// Marks `plan` distributed when a lookup of it is is_distributed; such a
/// table must be looked up sparsely only.
LogicalResult markDistributed(Operation *train, ParamPlan &plan) {
  Operation *first = nullptr;
  train->walk([&](Operation *op) {
    if (!first && isDistributedLookup(op, plan.param))
      first = op;
  });
  if (!first)
    return success();
  if (!plan.sparse)
    return first->emitError() << "'" << plan.param << "' is looked up with is_distributed, so "
                              << "it lives on the servers only: every use of it must be a "
                                 "lookup_table_v2 with is_sparse";
  if (plan.type.getRank() != 2)
    return first->emitError() << "distributed table '" << plan.param << "' must be 2-D";
  plan.distributed = true;
  return success();
}

/// Finds the parameters and their gradients, in the order of their
/// optimizer ops.
LogicalResult findParams(Operation *train, std::vector<ParamPlan> &params) {
  llvm::StringMap<Value> variables = variablesByName(train);
  std::set<std::string> seen;
  for (Operation &op : train->getRegion(0).front()) {
    if (!(opRole(&op) & pd::OpRole::Optimize))
      continue;
    std::string param = updatedParam(&op);
    if (param.empty() || !seen.insert(param).second)
      continue;
    ParamPlan plan;
    plan.param = param;
    plan.grad = param + "@GRAD";
    plan.gradValue = variables.lookup(plan.grad);
    if (!plan.gradValue)
      return op.emitError() << "optimizer op for '" << param << "' has no gradient '" << plan.grad
                            << "' to send to the servers";
    const pd::OpSpec *spec = catalogSpecOf(&op);
    plan.type = dyn_cast<RankedTensorType>(
        operandsOfSlot(&op, *spec, findSlot(spec->inputs, "Param")).front().getType());
    if (!plan.type || !plan.type.hasStaticShape())
      return op.emitError() << "parameter '" << param << "' needs a static shape to be cut into "
                            << "blocks";
    plan.sparseGradOps = sparseGradientOps(plan.gradValue);
    plan.sparse = !plan.sparseGradOps.empty();
    if (failed(markDistributed(train, plan)))
      return failure();
    params.push_back(std::move(plan));
  }
  if (params.empty())
    return train->emitError("the train program has no optimizer op: no parameter for the "
                            "servers to update");
  return success();
}

/// Gives each optimize-role op to the one parameter it depends on (through
/// the parameter's value, its gradient, or an earlier op of the parameter).
LogicalResult groupOptimizeOps(Operation *train, std::vector<ParamPlan> &params) {
  llvm::DenseMap<Value, size_t> owner;
  std::map<std::string, size_t> byName;
  for (auto [i, plan] : llvm::enumerate(params)) {
    byName[plan.param] = i;
    owner[plan.gradValue] = i;
  }
  for (Operation &op : train->getRegion(0).front())
    if (auto read = dyn_cast<pd::ReadVarOp>(op))
      if (auto it = byName.find(read.getVar().str()); it != byName.end())
        owner[read.getResult()] = it->second;
  for (Operation &op : train->getRegion(0).front()) {
    if (!(opRole(&op) & pd::OpRole::Optimize))
      continue;
    std::set<size_t> owners;
    for (Value operand : op.getOperands())
      if (auto it = owner.find(operand); it != owner.end())
        owners.insert(it->second);
    std::string updated = updatedParam(&op);
    if (!updated.empty())
      owners.insert(byName.at(updated));
    StringRef type = op.getName().getStringRef().drop_front(3);
    if (owners.empty())
      return op.emitError() << "optimizer-role op '" << type
                            << "' depends on no parameter; the servers run only the ops that "
                               "update their parameter blocks";
    if (owners.size() > 1)
      return op.emitError() << "'" << type << "' combines the gradients or values of several "
                            << "parameters ('" << params[*owners.begin()].param << "', '"
                            << params[*std::next(owners.begin())].param
                            << "', ...), which no single server holds (gradient clipping by "
                               "global norm does this)";
    size_t index = *owners.begin();
    params[index].optimizeOps.push_back(&op);
    for (Value result : op.getResults())
      owner[result] = index;
  }
  return success();
}

} // namespace

FailureOr<TranspilePlan> planTranspile(Operation *train, const TranspileSettings &settings) {
  TranspilePlan plan;
  plan.settings = settings;
  if (failed(findParams(train, plan.params)) || failed(groupOptimizeOps(train, plan.params)))
    return failure();

  const int64_t sliceCount =
      settings.sliceVarUp ? static_cast<int64_t>(settings.pservers.size()) : 1;
  const int64_t servers = static_cast<int64_t>(settings.pservers.size());
  for (ParamPlan &param : plan.params) {
    std::vector<int64_t> shape(param.type.getShape().begin(), param.type.getShape().end());
    if (param.distributed) {
      // One block per server, ceil(rows / servers) rows each (the last
      // the rest), whatever slice_var_up and min_block_size say: Paddle's
      // distributed table size.
      const int64_t rows = shape[0], per = (rows + servers - 1) / servers;
      if (rows < servers || (servers - 1) * per >= rows)
        return train->emitError() << "distributed table '" << param.param << "' has " << rows
                                  << " rows, too few for one block on each of the " << servers
                                  << " servers";
      for (int64_t i = 0; i < servers; ++i) {
        BlockPlan b;
        b.block.varName = param.param;
        b.block.index = i;
        b.block.offset = i * per * shape[1];
        b.block.shape = {std::min(per, rows - i * per), shape[1]};
        b.block.size = b.block.shape[0] * shape[1];
        b.paramName = param.param; // each server's part keeps the table's name
        b.gradName = param.grad + ".pserver_" + std::to_string(i);
        b.type = RankedTensorType::get(b.block.shape, param.type.getElementType());
        b.endpoint = settings.pservers[size_t(i)];
        b.server = static_cast<int>(i);
        param.blocks.push_back(std::move(b));
      }
      continue;
    }
    std::vector<VarBlock> blocks =
        sliceVariable(param.param, shape, sliceCount, settings.minBlockSize);
    int64_t count = static_cast<int64_t>(blocks.size());
    for (VarBlock &block : blocks) {
      BlockPlan b;
      b.paramName = blockVarName(param.param, block.index, count);
      b.gradName = blockVarName(param.grad, block.index, count);
      b.type = RankedTensorType::get(block.shape, param.type.getElementType());
      b.block = std::move(block);
      param.blocks.push_back(std::move(b));
    }
  }

  // Placement. Paddle dispatches the gradient blocks, then (after a reset)
  // the parameter blocks in the same order, so that with RoundRobin each
  // parameter block lives where its gradient goes. Paddle's HashName hashes
  // the two names differently and may split a pair; distc places the pair
  // by the parameter block's name. Without slice_var_up the variables are
  // handed out in numpy's shuffle of them. A distributed table has one
  // block on each server already; like Paddle (which takes it out of the
  // list before the shuffle) it does not count in the shuffle.
  std::vector<size_t> dispatched;
  for (size_t i = 0; i < plan.params.size(); ++i)
    if (!plan.params[i].distributed)
      dispatched.push_back(i);
  std::vector<size_t> order = dispatched;
  if (!settings.sliceVarUp) {
    std::vector<size_t> shuffled =
        numpyShuffleOrder(dispatched.size(), static_cast<uint32_t>(settings.seed));
    for (size_t i = 0; i < shuffled.size(); ++i)
      order[i] = dispatched[shuffled[i]];
  }
  std::unique_ptr<Dispatcher> dispatcher = makeDispatcher(settings.splitMethod, settings.pservers);
  for (size_t index : order) {
    ParamPlan &param = plan.params[index];
    std::vector<std::string> names;
    for (const BlockPlan &block : param.blocks)
      names.push_back(block.paramName);
    std::vector<std::string> endpoints = dispatcher->dispatch(names);
    for (auto [block, endpoint] : llvm::zip_equal(param.blocks, endpoints)) {
      block.endpoint = endpoint;
      block.server =
          static_cast<int>(std::find(settings.pservers.begin(), settings.pservers.end(), endpoint) -
                           settings.pservers.begin());
    }
  }
  return plan;
}

} // namespace distc::ps
