//===- DataParallel.cpp - collective data-parallel transpile --------------===//
//
// The nccl2 / collective mode of Paddle's DistributeTranspiler and of
// CompiledProgram.with_data_parallel (AllReduce strategy), on the train
// program distc-apply-optimizer (or Paddle) produced. One program serves
// every rank (SPMD): nothing in it depends on the rank, only the number of
// ranks enters, as the gradient scale.
//
// Train program, as Paddle's GradAllReduce writes it:
//   * before the first gradient is communicated, `c_sync_calc_stream`;
//   * right after the op that finishes a parameter's gradient (so the
//     communication of early gradients can overlap the rest of the backward
//     pass), `scale` by the gradient scale and `c_allreduce_sum`;
//   * before the first optimizer op, `c_sync_comm_stream` of each reduced
//     gradient, which the optimizer then reads.
// Startup program: first the communicator setup of Paddle's
// _init_communicator, `c_gen_nccl_id` (the communicator id, a RAW variable
// `nccl_id_0`) and `c_comm_init` of `nranks` ranks, with rank -1 and no
// endpoints: the launcher's rendezvous binds them at run time, so the
// program stays the same for every rank. Then each trainable parameter is
// broadcast from rank 0 after its initializer, so all ranks start from rank
// 0's values.
//
// Reduce strategy (BuildStrategy.ReduceStrategy.Reduce): each parameter gets
// an owner rank; its gradient is `c_reduce_sum`-ed to the owner, the
// optimizer ops that depend on it carry `owner_rank` (the runtime runs them
// on the owner only), and the updated parameter is `c_broadcast` from the
// owner right before it is written, so every rank holds it again. Its
// optimizer state stays on the owner (TrainingInfo records which).
//
//===----------------------------------------------------------------------===//

#include "distc/Transforms/Passes.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>
#include <set>

namespace distc {
#define GEN_PASS_DEF_DATAPARALLEL
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

/// The op_role Paddle gives the communication of gradients: backward, so
/// the ops stay with the gradients they reduce when programs are split.
NamedAttribute backwardRole(OpBuilder &b) {
  return b.getNamedAttr("op_role", b.getI32IntegerAttr(pd::OpRole::Backward));
}

struct DataParallelPass : impl::DataParallelBase<DataParallelPass> {
  using DataParallelBase::DataParallelBase;

  /// The gradient each optimizer op of `train` applies, by parameter name:
  /// the value in its Grad slot (after clipping and decay, if any), traced
  /// back to `<param>@GRAD`, the gradient the backward pass produced.
  LogicalResult parameterGrads(Operation *train, std::map<std::string, Value> &grads) {
    llvm::StringMap<Value> variables = variablesByName(train);
    for (Operation &op : train->getRegion(0).front()) {
      if (!(opRole(&op) & pd::OpRole::Optimize))
        continue;
      const pd::OpSpec *spec = catalogSpecOf(&op);
      int paramSlot = spec ? findSlot(spec->inputs, "Param") : -1;
      if (paramSlot < 0)
        continue;
      std::string param = variableName(operandsOfSlot(&op, *spec, paramSlot).front());
      Value grad = variables.lookup(param + "@GRAD");
      if (!grad)
        return op.emitError() << "optimizer op for '" << param << "' has no gradient '" << param
                              << "@GRAD' to all-reduce";
      grads[param] = grad;
    }
    if (grads.empty())
      return train->emitError("the train program has no optimizer op: nothing to all-reduce");
    return success();
  }

  /// Paddle's CoeffNumDevice and One replace the op that seeds the backward
  /// pass (the backward|loss `fill_constant` of `<loss>@GRAD`) by their own,
  /// which writes 1/N or 1 whatever the program's op wrote; Customized keeps
  /// the program's op, for a loss gradient the user chose. distc scales the
  /// gradients rather than the seed, so the seed is reset to 1 here.
  void resetLossGradientSeed(Operation *train, OpBuilder &b) {
    for (Operation &op : train->getRegion(0).front()) {
      if (op.getName().getStringRef() != "pd.fill_constant" ||
          opRole(&op) != (pd::OpRole::Backward | pd::OpRole::Loss))
        continue;
      auto value = op.getAttrOfType<FloatAttr>("value");
      if (value && value.getValueAsDouble() != 1.0)
        op.setAttr("value", b.getF32FloatAttr(1.0f));
    }
  }

  /// The first optimizer-role op of `train` (clipping, decay or update).
  Operation *firstOptimizeOp(Operation *train) {
    for (Operation &op : train->getRegion(0).front())
      if (opRole(&op) & pd::OpRole::Optimize)
        return &op;
    return nullptr;
  }

  /// The train program, transpiled: each gradient scaled and communicated
  /// where the backward pass finishes it, the optimizer reading the results
  /// after the communication stream, and under the Reduce strategy each
  /// update restricted to its parameter's owner.
  LogicalResult transpileTrain(Operation *train) {
    std::map<std::string, Value> grads;
    if (failed(parameterGrads(train, grads)))
      return failure();
    OpBuilder b(train->getContext());
    if (gradientScale != "customized")
      resetLossGradientSeed(train, b);
    std::vector<std::pair<Operation *, std::string>> order = finishingOrder(grads);
    const bool reduceStrategy = this->reduceStrategy == "reduce";
    std::map<std::string, int> owners;
    if (reduceStrategy)
      owners = assignOwners(order, grads);
    std::map<std::string, Value> reduced;
    if (failed(communicateGradients(b, order, grads, owners, reduced)))
      return failure();
    Operation *first = firstOptimizeOp(train);
    if (failed(syncBeforeOptimizer(b, first, grads, reduced)))
      return failure();
    if (reduceStrategy)
      return restrictUpdatesToOwners(train, first, owners);
    return success();
  }

  /// The gradients, as (the op that finishes it, its parameter), in the
  /// order the backward pass finishes them.
  std::vector<std::pair<Operation *, std::string>>
  finishingOrder(const std::map<std::string, Value> &grads) {
    std::vector<std::pair<Operation *, std::string>> order;
    for (auto &[param, grad] : grads)
      order.push_back({grad.getDefiningOp(), param});
    llvm::sort(order, [](auto &a, auto &b) { return a.first->isBeforeInBlock(b.first); });
    return order;
  }

  /// Right after the op that finishes each gradient: the compute-stream sync
  /// (once, before the first collective, as Paddle), the 1/N scale
  /// (CoeffNumDevice; One and Customized leave the sum: the user's loss is
  /// then already scaled, or meant as a sum) and the all-reduce, or under
  /// the Reduce strategy the reduce to the parameter's owner. `reduced`
  /// gets each parameter's communicated gradient.
  LogicalResult communicateGradients(OpBuilder &b,
                                     const std::vector<std::pair<Operation *, std::string>> &order,
                                     const std::map<std::string, Value> &grads,
                                     const std::map<std::string, int> &owners,
                                     std::map<std::string, Value> &reduced) {
    const bool average = gradientScale == "coeff-num-device";
    const bool reduceStrategy = this->reduceStrategy == "reduce";
    const double scale = 1.0 / nranks;
    bool synced = false;
    for (auto &[def, param] : order) {
      Value grad = grads.at(param);
      b.setInsertionPointAfter(def);
      if (!synced) {
        auto sync = pd::buildCatalogOp(b, def->getLoc(), "c_sync_calc_stream", {{grad}},
                                       {backwardRole(b)}, {param + "@GRAD"});
        if (failed(sync))
          return failure();
        grad = (*sync)->getResult(0);
        synced = true;
      }
      Value input = grad;
      if (average) {
        auto scaled = pd::buildCatalogOp(
            b, def->getLoc(), "scale", {{input}},
            {b.getNamedAttr("scale", b.getF32FloatAttr(static_cast<float>(scale))),
             backwardRole(b)},
            {param + "@GRAD"});
        if (failed(scaled))
          return failure();
        input = (*scaled)->getResult(0);
      }
      SmallVector<NamedAttribute> attrs = {b.getNamedAttr("ring_id", b.getI32IntegerAttr(0)),
                                           backwardRole(b)};
      if (reduceStrategy)
        attrs.push_back(b.getNamedAttr("root_id", b.getI32IntegerAttr(owners.at(param))));
      auto communicated =
          pd::buildCatalogOp(b, def->getLoc(), reduceStrategy ? "c_reduce_sum" : "c_allreduce_sum",
                             {{input}}, attrs, {param + "@GRAD"});
      if (failed(communicated))
        return failure();
      reduced[param] = (*communicated)->getResult(0);
    }
    return success();
  }

  /// A `c_sync_comm_stream` per communicated gradient before `first`, the
  /// first optimizer op; the optimizer reads the synced gradients. The ops
  /// from `first` on are collected before the syncs go in: asking
  /// isBeforeInBlock of each use after inserting ops would renumber the
  /// block again and again.
  LogicalResult syncBeforeOptimizer(OpBuilder &b, Operation *first,
                                    const std::map<std::string, Value> &grads,
                                    const std::map<std::string, Value> &reduced) {
    llvm::SmallPtrSet<Operation *, 32> fromFirst;
    for (Operation *op = first; op; op = op->getNextNode())
      fromFirst.insert(op);
    b.setInsertionPoint(first);
    for (auto &[param, value] : reduced) {
      auto sync = pd::buildCatalogOp(
          b, first->getLoc(), "c_sync_comm_stream", {{value}},
          {b.getNamedAttr("ring_id", b.getI32IntegerAttr(0)), backwardRole(b)}, {param + "@GRAD"});
      if (failed(sync))
        return failure();
      Value original = grads.at(param);
      Value synced = (*sync)->getResult(0);
      original.replaceUsesWithIf(
          synced, [&](OpOperand &use) { return fromFirst.contains(use.getOwner()); });
      syncedGrads[param] = synced;
    }
    return success();
  }

  /// Deals the parameters out to the ranks, in the order the backward pass
  /// finishes their gradients, each to the rank with the fewest bytes so far
  /// (ties: the lowest rank), as Paddle's Reduce mode balances them.
  std::map<std::string, int>
  assignOwners(const std::vector<std::pair<Operation *, std::string>> &order,
               const std::map<std::string, Value> &grads) {
    std::vector<int64_t> load(nranks, 0);
    std::map<std::string, int> owners;
    for (const auto &[def, param] : order) {
      auto type = cast<ShapedType>(grads.at(param).getType());
      int64_t bytes = type.hasStaticShape()
                          ? type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8)
                          : 1;
      int rank = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      owners[param] = rank;
      load[rank] += bytes;
    }
    return owners;
  }

  /// Marks every op from `first` on that depends on a parameter or its
  /// reduced gradient with the parameter's `owner_rank`, and broadcasts
  /// each updated parameter from its owner before it is written.
  LogicalResult restrictUpdatesToOwners(Operation *train, Operation *first,
                                        const std::map<std::string, int> &owners) {
    // Which parameter each value depends on: seeded with the parameters
    // and their reduced gradients, carried forward through the optimizer
    // ops.
    DenseMap<Value, std::string> paramOf;
    for (const auto &[param, grad] : syncedGrads)
      paramOf[grad] = param;
    OpBuilder b(train->getContext());
    for (Operation &op : train->getRegion(0).front())
      if (auto read = dyn_cast<pd::ReadVarOp>(op))
        if (owners.count(read.getVar().str()))
          paramOf[read.getResult()] = read.getVar().str();
    SmallVector<Operation *> ops;
    for (Operation *op = first; op; op = op->getNextNode())
      ops.push_back(op);
    for (Operation *op : ops) {
      if (isa<pd::ReadVarOp>(op))
        continue;
      std::set<std::string> params;
      for (Value operand : op->getOperands())
        if (auto it = paramOf.find(operand); it != paramOf.end())
          params.insert(it->second);
      if (params.empty())
        continue;
      if (params.size() > 1)
        return op->emitError()
               << "'" << op->getName().getStringRef().drop_front(3)
               << "' combines the gradients or values of several parameters ('" << *params.begin()
               << "', '" << *std::next(params.begin())
               << "', ...), so no single rank can own it under the Reduce strategy (gradient "
                  "clipping by global norm does this); use the AllReduce strategy";
      const std::string &param = *params.begin();
      const int owner = owners.at(param);
      if (isa<pd::FetchOp>(op))
        return op->emitError() << "fetches a value computed on the owner of '" << param
                               << "' only (Reduce strategy)";
      if (auto write = dyn_cast<pd::WriteVarOp>(op)) {
        if (write.getVar() == param) {
          // Every rank writes the owner's update.
          b.setInsertionPoint(write);
          auto broadcast = pd::buildCatalogOp(
              b, write.getLoc(), "c_broadcast", {{write.getValue()}},
              {b.getNamedAttr("ring_id", b.getI32IntegerAttr(0)),
               b.getNamedAttr("root", b.getI32IntegerAttr(owner)),
               b.getNamedAttr("op_role", b.getI32IntegerAttr(pd::OpRole::Optimize))},
              {param});
          if (failed(broadcast))
            return failure();
          write->setOperand(0, (*broadcast)->getResult(0));
          continue;
        }
      }
      op->setAttr("owner_rank", b.getI32IntegerAttr(owner));
      for (Value result : op->getResults())
        paramOf[result] = param;
    }
    return success();
  }

  /// Sets up the communicator at the beginning of `startup`, as Paddle's
  /// _init_communicator does, unless the program does already; an existing
  /// setup must be for `nranks` ranks.
  LogicalResult initCommunicator(Operation *startup) {
    bool present = false;
    WalkResult walk = startup->walk([&](pd::CCommInitOp init) {
      present = true;
      int64_t size = pd::OpAttributes(init).getInt("nranks");
      if (size == nranks)
        return WalkResult::advance();
      init.emitError() << "c_comm_init sets up a communicator of " << size
                       << " ranks, but data parallelism is compiled for "
                       << static_cast<int>(nranks);
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return failure();
    if (present)
      return success();
    Block &body = startup->getRegion(0).front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    Location loc = startup->getLoc();
    // Paddle's transpiler gives them the Forward role.
    NamedAttribute role = b.getNamedAttr("op_role", b.getI32IntegerAttr(pd::OpRole::Forward));
    NamedAttribute ring = b.getNamedAttr("ring_id", b.getI32IntegerAttr(0));
    NamedAttribute anyRank = b.getNamedAttr("rank", b.getI32IntegerAttr(-1));
    auto id = pd::buildCatalogOp(b, loc, "c_gen_nccl_id", {},
                                 {b.getNamedAttr("endpoint", b.getStringAttr("")),
                                  b.getNamedAttr("other_endpoints", b.getStrArrayAttr({})), anyRank,
                                  ring, role},
                                 {"nccl_id_0"});
    if (failed(id))
      return failure();
    auto init = pd::buildCatalogOp(
        b, loc, "c_comm_init", {{(*id)->getResult(0)}},
        {b.getNamedAttr("nranks", b.getI32IntegerAttr(nranks)), anyRank, ring, role}, {});
    return failure(failed(init));
  }

  /// Broadcasts each trainable parameter from rank 0 where the startup
  /// program writes it.
  LogicalResult transpileStartup(ModuleOp module, Operation *startup) {
    SmallVector<pd::WriteVarOp> writes;
    startup->walk([&](pd::WriteVarOp write) { writes.push_back(write); });
    OpBuilder b(module.getContext());
    SymbolTable symbols(module); // lookupSymbolIn would scan the module per write
    for (pd::WriteVarOp write : writes) {
      auto var = symbols.lookup<pd::VarOp>(write.getVarAttr().getAttr());
      if (!var || !var.getIsParameter() ||
          isa_and_nonnull<pd::CBroadcastOp>(write.getValue().getDefiningOp()))
        continue;
      b.setInsertionPoint(write);
      auto broadcast =
          pd::buildCatalogOp(b, write.getLoc(), "c_broadcast", {{write.getValue()}},
                             {b.getNamedAttr("ring_id", b.getI32IntegerAttr(0)),
                              b.getNamedAttr("root", b.getI32IntegerAttr(0)), backwardRole(b)},
                             {write.getVar().str()});
      if (failed(broadcast))
        return failure();
      write->setOperand(0, (*broadcast)->getResult(0));
    }
    return success();
  }

  /// Per parameter, the reduced gradient the optimizer reads.
  std::map<std::string, Value> syncedGrads;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (reduceStrategy != "all-reduce" && reduceStrategy != "reduce") {
      module.emitError() << "unknown reduce strategy '" << reduceStrategy
                         << "' (expected all-reduce or reduce)";
      return signalPassFailure();
    }
    if (nranks < 1) {
      module.emitError() << "nranks must be at least 1, got " << nranks;
      return signalPassFailure();
    }
    if (gradientScale != "coeff-num-device" && gradientScale != "one" &&
        gradientScale != "customized") {
      module.emitError() << "unknown gradient scale strategy '" << gradientScale
                         << "' (expected coeff-num-device, one or customized)";
      return signalPassFailure();
    }
    Operation *train = findProgram(module, program);
    if (!train) {
      module.emitError() << "data parallelism needs a train mode (no program '" << program
                         << "'): give an optimizer, or compile a program that has one";
      return signalPassFailure();
    }
    // The startup program sets up the communicator, also for a train
    // program transpiled before (unless the startup program does already).
    Operation *startupProgram = findProgram(module, startup);
    if (startupProgram && failed(initCommunicator(startupProgram)))
      return signalPassFailure();
    // A program that already communicates (exported by distc or Paddle
    // after the transpile) is taken as it is: transpiling it again would
    // reduce every gradient twice.
    if (!firstCollectiveOp(train).empty())
      return;
    if (failed(transpileTrain(train)))
      return signalPassFailure();
    if (startupProgram && failed(transpileStartup(module, startupProgram)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace distc
