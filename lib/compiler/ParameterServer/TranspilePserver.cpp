//===- TranspilePserver.cpp - DistributeTranspiler's pserver mode ---------===//
//
// The pass: plans the blocks and their servers (TranspilePlan.cpp), writes
// the server programs (ServerPrograms.cpp), then turns the train program
// into the trainer program and its startup program into the trainer
// startup program, op for op as Paddle's transpile and
// get_trainer_program() do (docs/parameter-server.md lists them).
//
//===----------------------------------------------------------------------===//

#include "TranspilePlan.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/ParameterServer/Passes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"

namespace distc::ps {
#define GEN_PASS_DEF_TRANSPILEPSERVER
#include "distc/ParameterServer/Passes.h.inc"
} // namespace distc::ps

using namespace mlir;

namespace distc::ps {
namespace {

/// Builds the trainer's parameter-server ops with Paddle's attributes.
class TrainerOpBuilder {
public:
  TrainerOpBuilder(MLIRContext *ctx, const TranspileSettings &settings)
      : b(ctx), settings(settings) {}

  OpBuilder b;

  NamedAttribute role(int role) { return b.getNamedAttr("op_role", b.getI32IntegerAttr(role)); }
  NamedAttribute trainerId() {
    return b.getNamedAttr("trainer_id", b.getI32IntegerAttr(settings.trainerId));
  }
  NamedAttribute strings(StringRef name, ArrayRef<std::string> values) {
    SmallVector<StringRef> refs(values.begin(), values.end());
    return b.getNamedAttr(name, b.getStrArrayAttr(refs));
  }
  /// op_role_var: the parameter and the gradient the op communicates.
  NamedAttribute roleVar(const std::string &param, const std::string &grad) {
    return strings("op_role_var", {param, grad});
  }
  /// Paddle's generate_control_dev_var_name(), numbered instead of random.
  std::string controlVarName() { return "__control_var@" + std::to_string(nextControl++); }

  /// A recv of `types` from `epmap`: its result types come from the
  /// servers, so it is built with them rather than inferred.
  Operation *recv(Location loc, ValueRange deps, ArrayRef<Type> types, ArrayRef<std::string> names,
                  ArrayRef<std::string> epmap, ArrayRef<NamedAttribute> extra) {
    OperationState state(loc, "pd.recv");
    state.addOperands(deps);
    state.addTypes(types);
    state.addAttribute("epmap",
                       b.getStrArrayAttr(SmallVector<StringRef>(epmap.begin(), epmap.end())));
    state.addAttribute("trainer_id", b.getI32IntegerAttr(settings.trainerId));
    state.addAttribute("op_role", b.getI32IntegerAttr(pd::OpRole::RPC));
    for (const NamedAttribute &attr : extra)
      state.addAttribute(attr.getName(), attr.getValue());
    SmallVector<StringRef> refs(names.begin(), names.end());
    state.addAttribute(pd::kOutNamesAttr, b.getStrArrayAttr(refs));
    return b.create(state);
  }

  /// fetch_barrier over `received` (passed through under their names).
  FailureOr<Operation *> fetchBarrier(Location loc, ArrayRef<Value> received,
                                      ArrayRef<std::string> names) {
    return pd::buildCatalogOp(
        b, loc, "fetch_barrier", {SmallVector<Value, 1>(received)},
        {strings("endpoints", settings.pservers), trainerId(), role(pd::OpRole::RPC)},
        std::vector<std::string>(names.begin(), names.end()));
  }

  /// The parameter from its received blocks: a concat along dim 0 when it
  /// was cut into several.
  FailureOr<Value> assemble(Location loc, const ParamPlan &param, ArrayRef<Value> blocks) {
    if (blocks.size() == 1)
      return blocks.front();
    auto concat = pd::buildCatalogOp(
        b, loc, "concat", {SmallVector<Value, 1>(blocks)},
        {b.getNamedAttr("axis", b.getI32IntegerAttr(0)), role(pd::OpRole::Dist)}, {param.param});
    if (failed(concat))
      return failure();
    return (*concat)->getResult(0);
  }

  const TranspileSettings &settings;
  unsigned nextControl = 0;
};

/// The row counts of a parameter's blocks (split_byref's `sections`).
SmallVector<int32_t> blockRows(const ParamPlan &param) {
  SmallVector<int32_t> rows;
  for (const BlockPlan &block : param.blocks)
    rows.push_back(static_cast<int32_t>(block.block.shape.front()));
  return rows;
}

SmallVector<int64_t> blockHeights(const ParamPlan &param) {
  SmallVector<int64_t> rows;
  for (const BlockPlan &block : param.blocks)
    rows.push_back(block.block.shape.front());
  return rows;
}

std::vector<std::string> blockEndpoints(const ParamPlan &param) {
  std::vector<std::string> endpoints;
  for (const BlockPlan &block : param.blocks)
    endpoints.push_back(block.endpoint);
  return endpoints;
}

/// Renames result `value` in its op's `pd.out_names`.
void renameResult(Value value, StringRef name) {
  Operation *def = value.getDefiningOp();
  unsigned index = cast<OpResult>(value).getResultNumber();
  SmallVector<Attribute> names(def->getNumResults(), StringAttr::get(def->getContext(), ""));
  if (auto existing = def->getAttrOfType<ArrayAttr>(pd::kOutNamesAttr))
    for (auto [i, attr] : llvm::enumerate(existing))
      if (i < names.size())
        names[i] = attr;
  names[index] = StringAttr::get(def->getContext(), name);
  def->setAttr(pd::kOutNamesAttr, ArrayAttr::get(def->getContext(), names));
}

struct TranspilePserverPass : impl::TranspilePserverBase<TranspilePserverPass> {
  using TranspilePserverBase::TranspilePserverBase;

  TranspileSettings settings() const {
    TranspileSettings s;
    s.pservers.assign(pservers.begin(), pservers.end());
    s.trainers = trainers;
    s.trainerId = trainerId;
    s.syncMode = syncMode;
    s.sliceVarUp = sliceVarUp;
    s.splitMethod = splitMethod;
    s.minBlockSize = minBlockSize;
    s.runtimeSplitSendRecv = runtimeSplitSendRecv;
    s.halfAsync = halfAsync;
    s.seed = seed;
    return s;
  }

  /// Right after the op that finishes each gradient: split_byref into its
  /// blocks (several blocks, unless split at run time) and send. Returns
  /// each parameter's send (its control dependence) and the gradient name
  /// its ops carry in op_role_var.
  LogicalResult sendGradients(TrainerOpBuilder &tb, const TranspilePlan &plan,
                              SmallVectorImpl<Value> &sends, std::vector<std::string> &sentAs) {
    const TranspileSettings &s = plan.settings;
    for (const ParamPlan &param : plan.params) {
      Value grad = param.gradValue;
      Operation *def = grad.getDefiningOp();
      Location loc = def->getLoc();
      tb.b.setInsertionPointAfter(def);
      SmallVector<Value, 1> inputs{grad};
      SmallVector<NamedAttribute> attrs = {
          tb.trainerId(), tb.strings("epmap", blockEndpoints(param)), tb.role(pd::OpRole::RPC)};
      std::string gradVar = param.grad;
      // A sparse table's gradient is the rows its lookups read.
      for (Operation *op : param.sparseGradOps) {
        Value result = op->getResult(0);
        result.setType(pd::withSelectedRows(cast<RankedTensorType>(result.getType()), true));
      }
      if (param.distributed || (param.sparse && param.blocks.size() > 1)) {
        // Each server gets the rows in its block, numbered from the block's
        // first row: Paddle's split_ids for a distributed table (always),
        // split_selected_rows for another sparse one.
        std::vector<std::string> names;
        for (const BlockPlan &block : param.blocks)
          names.push_back(sentGradName(s, block));
        auto split = pd::buildCatalogOp(
            tb.b, loc, param.distributed ? "split_ids" : "split_selected_rows", {{grad}},
            {tb.b.getNamedAttr("height_sections", tb.b.getDenseI64ArrayAttr(blockHeights(param))),
             tb.role(pd::OpRole::Dist)},
            names);
        if (failed(split))
          return failure();
        inputs.assign((*split)->getResults().begin(), (*split)->getResults().end());
      } else if (param.blocks.size() == 1) {
        // Paddle renames the program's gradient variable itself.
        gradVar = sentGradName(s, param.blocks.front());
        renameResult(grad, gradVar);
      } else if (s.runtimeSplitSendRecv) {
        SmallVector<int64_t> sections;
        std::vector<std::string> names;
        for (const BlockPlan &block : param.blocks) {
          sections.push_back(block.block.shape.front());
          names.push_back(block.gradName);
        }
        attrs.push_back(tb.b.getNamedAttr("sections", tb.b.getDenseI64ArrayAttr(sections)));
        attrs.push_back(tb.strings("send_varnames", names));
      } else {
        std::vector<std::string> names;
        for (const BlockPlan &block : param.blocks)
          names.push_back(sentGradName(s, block));
        auto split = pd::buildCatalogOp(
            tb.b, loc, "split_byref", {{grad}},
            {tb.b.getNamedAttr("sections", tb.b.getDenseI32ArrayAttr(blockRows(param))),
             tb.role(pd::OpRole::Dist)},
            names);
        if (failed(split))
          return failure();
        inputs.assign((*split)->getResults().begin(), (*split)->getResults().end());
      }
      attrs.push_back(tb.roleVar(param.param, gradVar));
      auto send = pd::buildCatalogOp(tb.b, loc, "send", {inputs}, attrs, {tb.controlVarName()});
      if (failed(send))
        return failure();
      sends.push_back((*send)->getResult(0));
      sentAs.push_back(gradVar);
    }
    return success();
  }

  /// Receives every parameter's blocks (or, split at run time, the whole
  /// parameter) after `deps[i]`, then, with `barrier`, fetch_barrier over
  /// all of them; each parameter is assembled from its blocks and written.
  LogicalResult receiveAndWrite(TrainerOpBuilder &tb, Location loc, const TranspilePlan &plan,
                                ArrayRef<SmallVector<Value, 1>> deps,
                                ArrayRef<SmallVector<NamedAttribute>> extra, bool barrier) {
    const TranspileSettings &s = plan.settings;
    std::vector<std::vector<Value>> received; // per parameter, its blocks
    std::vector<Value> all;
    std::vector<std::string> allNames;
    for (auto [i, param] : llvm::enumerate(plan.params)) {
      received.emplace_back();
      if (param.distributed)
        continue; // the trainers prefetch its rows instead
      SmallVector<Type> types;
      std::vector<std::string> names;
      SmallVector<NamedAttribute> attrs(extra[i].begin(), extra[i].end());
      if (s.runtimeSplitSendRecv && param.blocks.size() > 1 && !deps[i].empty()) {
        types.push_back(param.type);
        names.push_back(param.param);
        std::vector<std::string> blockNames;
        for (const BlockPlan &block : param.blocks)
          blockNames.push_back(block.paramName);
        attrs.push_back(tb.strings("recv_varnames", blockNames));
      } else {
        for (const BlockPlan &block : param.blocks) {
          types.push_back(block.type);
          names.push_back(block.paramName);
        }
      }
      Operation *recv = tb.recv(loc, deps[i], types, names, blockEndpoints(param), attrs);
      if (failed(mlir::verify(recv)))
        return failure();
      received.back().assign(recv->getResults().begin(), recv->getResults().end());
      all.insert(all.end(), recv->getResults().begin(), recv->getResults().end());
      allNames.insert(allNames.end(), names.begin(), names.end());
    }
    if (barrier) {
      auto fetched = tb.fetchBarrier(loc, all, allNames);
      if (failed(fetched))
        return failure();
      unsigned next = 0;
      for (std::vector<Value> &values : received)
        for (Value &value : values)
          value = (*fetched)->getResult(next++);
    }
    for (auto [i, param] : llvm::enumerate(plan.params)) {
      if (param.distributed)
        continue;
      FailureOr<Value> value = tb.assemble(loc, param, received[i]);
      if (failed(value))
        return failure();
      pd::WriteVarOp::create(tb.b, loc, param.param, *value);
    }
    return success();
  }

  /// At the end of the trainer program: send_barrier (synchronous or
  /// half-asynchronous training), then every parameter received after it
  /// (asynchronous: after its own send), fetch_barrier, the concats and the
  /// parameters' writes.
  LogicalResult receiveParameters(TrainerOpBuilder &tb, Operation *train, const TranspilePlan &plan,
                                  ArrayRef<Value> sends, ArrayRef<std::string> sentAs) {
    const TranspileSettings &s = plan.settings;
    Location loc = train->getLoc();
    tb.b.setInsertionPointToEnd(&train->getRegion(0).front());
    Value barrier;
    if (s.syncMode || s.halfAsync) {
      auto op = pd::buildCatalogOp(tb.b, loc, "send_barrier", {SmallVector<Value, 1>(sends)},
                                   {tb.trainerId(), tb.strings("endpoints", s.pservers),
                                    tb.b.getNamedAttr("half_async", tb.b.getBoolAttr(s.halfAsync)),
                                    tb.role(pd::OpRole::RPC)},
                                   {tb.controlVarName()});
      if (failed(op))
        return failure();
      barrier = (*op)->getResult(0);
    }
    std::vector<SmallVector<Value, 1>> deps;
    std::vector<SmallVector<NamedAttribute>> extra;
    for (auto [i, param] : llvm::enumerate(plan.params)) {
      deps.push_back({barrier ? barrier : sends[i]});
      extra.push_back({tb.roleVar(param.param, sentAs[i])});
    }
    return receiveAndWrite(tb, loc, plan, deps, extra, /*barrier=*/s.syncMode);
  }

  /// A distributed table's lookups, in every program that has them:
  /// split_ids of the ids into the servers' blocks, prefetch of their rows
  /// and merge_ids back into the lookup's output.
  LogicalResult prefetchDistributedLookups(TrainerOpBuilder &tb, ModuleOp module,
                                           const TranspilePlan &plan) {
    for (const ParamPlan &param : plan.params) {
      if (!param.distributed)
        continue;
      SmallVector<pd::LookupTableV2Op> lookups;
      module.walk([&](pd::LookupTableV2Op op) {
        if (variableName(op.getOperand(1)) == param.param)
          lookups.push_back(op);
      });
      for (pd::LookupTableV2Op lookup : lookups) {
        Location loc = lookup.getLoc();
        tb.b.setInsertionPoint(lookup);
        Value ids = lookup.getOperand(0);
        std::string out = variableName(lookup.getResult());
        NamedAttribute heights =
            tb.b.getNamedAttr("height_sections", tb.b.getDenseI64ArrayAttr(blockHeights(param)));
        NamedAttribute padding = tb.b.getNamedAttr(
            "padding_idx", tb.b.getI64IntegerAttr(pd::OpAttributes(lookup).getInt("padding_idx")));
        std::vector<std::string> idNames, rowNames;
        SmallVector<Type> rowTypes;
        for (const BlockPlan &block : param.blocks) {
          idNames.push_back(out + "@IDS." + std::to_string(block.block.index));
          rowNames.push_back(out + "@ROWS." + std::to_string(block.block.index));
          rowTypes.push_back(block.type);
        }
        auto split = pd::buildCatalogOp(tb.b, loc, "split_ids", {{ids}},
                                        {heights, padding, tb.role(pd::OpRole::Forward)}, idNames);
        if (failed(split))
          return failure();
        SmallVector<Value, 1> shards((*split)->getResults().begin(),
                                     (*split)->getResults().end());
        OperationState state(loc, "pd.prefetch");
        state.addOperands(shards);
        state.addTypes(rowTypes);
        state.addAttribute("epmap", tb.strings("epmap", blockEndpoints(param)).getValue());
        state.addAttribute("table_names",
                           tb.strings("table_names",
                                      std::vector<std::string>(param.blocks.size(), param.param))
                               .getValue());
        state.addAttribute("trainer_id", tb.b.getI32IntegerAttr(plan.settings.trainerId));
        state.addAttribute("op_role", tb.b.getI32IntegerAttr(pd::OpRole::RPC));
        SmallVector<StringRef> refs(rowNames.begin(), rowNames.end());
        state.addAttribute(pd::kOutNamesAttr, tb.b.getStrArrayAttr(refs));
        Operation *prefetch = tb.b.create(state);
        if (failed(mlir::verify(prefetch)))
          return failure();
        SmallVector<Value, 1> rows(prefetch->getResults().begin(), prefetch->getResults().end());
        auto merge = pd::buildCatalogOp(tb.b, loc, "merge_ids", {{ids}, shards, rows},
                                        {heights, padding, tb.role(pd::OpRole::Forward)}, {out});
        if (failed(merge))
          return failure();
        lookup.getResult().replaceAllUsesWith((*merge)->getResult(0));
        lookup.erase();
      }
    }
    return success();
  }

  /// get_trainer_program(): the optimizer ops (and what only they read or
  /// write) leave the trainer; the servers run them.
  LogicalResult dropOptimizerOps(Operation *train) {
    Block &body = train->getRegion(0).front();
    llvm::DenseSet<Operation *> doomed;
    SmallVector<Operation *> order;
    for (Operation &op : body) {
      bool optimize = opRole(&op) & (pd::OpRole::Optimize | pd::OpRole::LRSched);
      auto write = dyn_cast<pd::WriteVarOp>(op);
      if (optimize || (write && doomed.contains(write.getValue().getDefiningOp()))) {
        doomed.insert(&op);
        order.push_back(&op);
      }
    }
    for (Operation *op : order)
      for (Operation *user : op->getUsers())
        if (!doomed.contains(user))
          return user->emitError() << "uses the result of optimizer op '"
                                   << op->getName().getStringRef().drop_front(3)
                                   << "', which runs on the parameter servers, not on the trainer";
    for (Operation *op : order)
      op->dropAllReferences();
    for (Operation *op : llvm::reverse(order))
      op->erase();
    for (Operation &op : llvm::make_early_inc_range(body))
      if (isa<pd::ReadVarOp>(op) && op.use_empty())
        op.erase();
    return success();
  }

  /// The trainer startup program: after its own initializers, receive
  /// every parameter from the servers (Paddle's startup recv section).
  LogicalResult receiveInitialParameters(TrainerOpBuilder &tb, Operation *startup,
                                         const TranspilePlan &plan) {
    tb.b.setInsertionPointToEnd(&startup->getRegion(0).front());
    std::vector<SmallVector<Value, 1>> deps(plan.params.size());
    std::vector<SmallVector<NamedAttribute>> extra(plan.params.size());
    // An asynchronous server has no rounds to end: no fetch_barrier.
    return receiveAndWrite(tb, startup->getLoc(), plan, deps, extra,
                           /*barrier=*/plan.settings.syncMode);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TranspileSettings s = settings();
    if (failed(checkSettings(s, module)))
      return signalPassFailure();
    Operation *train = findProgram(module, program);
    if (!train) {
      module.emitError() << "the parameter-server transpile needs a train mode (no program '"
                         << program << "'): give an optimizer, or compile a program that has one";
      return signalPassFailure();
    }
    Operation *startupProgram = findProgram(module, startup);
    if (!startupProgram) {
      module.emitError() << "the parameter-server transpile needs the startup program '" << startup
                         << "': the servers initialize their blocks from it";
      return signalPassFailure();
    }
    std::string collective = firstCollectiveOp(train);
    if (!collective.empty()) {
      module.emitError() << "the train program communicates between ranks already (" << collective
                         << "); it cannot also be transpiled for parameter servers";
      return signalPassFailure();
    }
    bool transpiled = false;
    train->walk(
        [&](Operation *op) { transpiled |= isa<pd::SendOp, pd::RecvOp, pd::ListenAndServOp>(op); });
    if (transpiled) {
      module.emitError("the train program is transpiled for parameter servers already");
      return signalPassFailure();
    }
    FailureOr<TranspilePlan> plan = planTranspile(train, s);
    if (failed(plan) || failed(buildServerModules(module, train, startupProgram, *plan)))
      return signalPassFailure();
    TrainerOpBuilder tb(module.getContext(), s);
    SmallVector<Value> sends;
    std::vector<std::string> sentAs;
    if (failed(sendGradients(tb, *plan, sends, sentAs)) ||
        failed(receiveParameters(tb, train, *plan, sends, sentAs)) ||
        failed(prefetchDistributedLookups(tb, module, *plan)) ||
        failed(dropOptimizerOps(train)) ||
        failed(receiveInitialParameters(tb, startupProgram, *plan)))
      return signalPassFailure();
  }
};

} // namespace
} // namespace distc::ps
