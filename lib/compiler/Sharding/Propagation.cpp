//===- Propagation.cpp - distc-propagate-sharding -------------------------===//
//
// Decides how every value of every program lies on the module's mesh
// (Passes.td has the contract). Two steps, both deterministic:
//
//  1. SourceLayouts: a fixpoint over the main programs that only ever splits
//     more tensor axes (a lattice from "whole" to "split", so it ends). Each
//     op's rule runs forward, in program order, then in reverse; its answer
//     may split an axis of an operand or result that is still whole, with a
//     mesh axis that value does not use yet. The first answer to split an
//     axis wins; annotations never change. What this step settles is the
//     layout of the sources: feeds, variables (shared by every program) and
//     annotated values.
//  2. Settling each op: in program order, the op's forward rule runs on the
//     layouts its operands actually have (partial ones included) and gives
//     the layout each operand must have and those of the results. Those are
//     written to the IR; distc-partition inserts the communication wherever
//     an operand's layout and its op's need differ.
//
// Splitting only ever grows in step 1, as in Shardy's propagation: a
// conflict between two rules never undoes a split, it leaves a reshard for
// the op that wanted otherwise.
//
//===----------------------------------------------------------------------===//

#include "ShardingIR.h"

#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Sharding/OpAttrs.h"
#include "distc/Sharding/Passes.h"
#include "distc/Sharding/SpmdRule.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace distc::sharding {
#define GEN_PASS_DEF_PROPAGATESHARDING
#include "distc/Sharding/Passes.h.inc"
} // namespace distc::sharding

using namespace mlir;

namespace distc::sharding {
namespace {

/// A value's or variable's layout while the sources are found.
struct Layout {
  std::vector<int64_t> mapping;
  bool annotated = false;

  /// The layout as a (never partial) dist attr.
  TensorDistAttr dist() const {
    TensorDistAttr d;
    d.dimsMapping = mapping;
    return d;
  }
};

/// The main programs of a module, in the order propagation visits them
/// (train first: its backward and optimizer ops say the most about the
/// variables every mode shares), and its startup programs.
struct Programs {
  std::vector<Operation *> main, startup;
};

Programs programsOf(ModuleOp module) {
  Programs programs;
  // (mode order, position in the module, program)
  std::vector<std::tuple<int, size_t, Operation *>> main;
  for (Operation &op : module.getBody()->getOperations()) {
    if (!isa<pd::ProgramOp>(op))
      continue;
    auto kind = op.getAttrOfType<StringAttr>("pd.kind");
    if (kind && kind.getValue() == "startup") {
      programs.startup.push_back(&op);
      continue;
    }
    auto mode = op.getAttrOfType<StringAttr>("pd.mode");
    int order = !mode ? 3 : mode.getValue() == "train" ? 0 : mode.getValue() == "eval" ? 1 : 2;
    main.emplace_back(order, main.size(), &op);
  }
  llvm::sort(main);
  for (auto &[order, position, op] : main)
    programs.main.push_back(op);
  return programs;
}

/// The rule binding of `op`, or null for ops without one (feeds, fetches,
/// variable accesses) and ops whose rule is not registered.
const SpmdRule *ruleOf(Operation *op, const OpSpmdBinding **bindingOut = nullptr) {
  StringRef name = op->getName().stripDialect();
  const OpSpmdBinding *binding = lookupOpSpmdBinding(std::string_view(name.data(), name.size()));
  if (!binding)
    return nullptr;
  if (bindingOut)
    *bindingOut = binding;
  return lookupSpmdRule(binding->rule);
}

/// A value's shape as rules take it: -1 for a dynamic size.
std::vector<int64_t> shapeOf(Value value) {
  std::vector<int64_t> shape;
  if (RankedTensorType type = tensorTypeOf(value))
    for (int64_t d : type.getShape())
      shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return shape;
}

/// The call of `op`'s rule with each operand and result laid out as
/// `operandDist` and `resultDist` say.
SpmdCall ruleCall(Operation *op, const OpSpmdBinding &binding, const MeshInfo &mesh,
                  llvm::function_ref<TensorDistAttr(Value)> operandDist,
                  llvm::function_ref<TensorDistAttr(Value)> resultDist) {
  SpmdCall call;
  call.meshShape = mesh.shape();
  call.opName = binding.opType;
  call.attrs = ruleAttrsForOp(binding, spmdAttrsOf(op));
  for (Value operand : op->getOperands())
    call.inputs.push_back({shapeOf(operand), operandDist(operand)});
  for (Value result : op->getResults())
    call.outputs.push_back({shapeOf(result), resultDist(result)});
  return call;
}

/// Step 1: the layouts of the sources.
class SourceLayouts {
public:
  explicit SourceLayouts(const MeshInfo &mesh) : mesh(mesh) {}

  /// The module's symbol table, cached for both steps' variable lookups.
  SymbolTableCollection symbols;

  Layout &of(Value value) {
    if (Operation *def = value.getDefiningOp(); def && isa<pd::ReadVarOp>(def))
      if (pd::VarOp var = variableOf(def, symbols))
        return ofVar(var);
    auto it = values.find(value);
    if (it != values.end())
      return it->second;
    Layout layout = initial(shardingOf(value, symbols), shapeOf(value).size());
    return values.try_emplace(value, std::move(layout)).first->second;
  }

  Layout &ofVar(pd::VarOp var) {
    auto it = vars.find(var);
    if (it != vars.end())
      return it->second;
    auto type = dyn_cast<RankedTensorType>(var.getType());
    Layout layout = initial(var->getAttrOfType<pd::ShardingAttr>(pd::kVarShardingAttr),
                            type ? type.getRank() : 0);
    return vars.try_emplace(var, std::move(layout)).first->second;
  }

  /// Sweeps `program` once forward and once in reverse; whether anything
  /// was split.
  bool sweep(Operation *program) {
    bool changed = false;
    Block &body = programBody(program);
    for (Operation &op : body)
      changed |= visit(&op, /*reverse=*/false);
    for (Operation &op : llvm::reverse(body))
      changed |= visit(&op, /*reverse=*/true);
    return changed;
  }

private:
  /// A user annotation is fixed; anything else starts whole (a layout the
  /// IR already holds unannotated is a starting point, not a constraint).
  Layout initial(pd::ShardingAttr sharding, int64_t rank) {
    Layout layout;
    layout.mapping.assign(rank, kReplicated);
    if (std::optional<TensorDistAttr> dist = toDist(sharding, rank)) {
      layout.mapping = dist->dimsMapping;
      layout.annotated = sharding.getAnnotated();
    }
    return layout;
  }

  /// Splits the whole axes of `layout` that `proposal` splits, where the
  /// mesh axis is free and divides the axis.
  bool grow(Layout &layout, ArrayRef<int64_t> proposal, ArrayRef<int64_t> shape) {
    if (layout.annotated || proposal.size() != layout.mapping.size())
      return false;
    bool changed = false;
    for (size_t axis = 0; axis < proposal.size(); ++axis) {
      int64_t meshAxis = proposal[axis];
      if (layout.mapping[axis] != kReplicated || meshAxis < 0 || meshAxis >= mesh.rank() ||
          llvm::is_contained(layout.mapping, meshAxis))
        continue;
      int64_t size = axis < shape.size() ? shape[axis] : -1;
      int64_t parts = mesh.shape()[meshAxis];
      if (size >= 0 && (size == 1 || size % parts != 0))
        continue;
      layout.mapping[axis] = meshAxis;
      changed = true;
    }
    return changed;
  }

  bool visit(Operation *op, bool reverse) {
    if (auto write = dyn_cast<pd::WriteVarOp>(op)) {
      pd::VarOp var = variableOf(op, symbols);
      if (!var)
        return false;
      Value value = write.getValue();
      std::vector<int64_t> shape = shapeOf(value);
      Layout &varLayout = ofVar(var);
      bool changed = grow(varLayout, of(value).mapping, shape);
      changed |= grow(of(value), varLayout.mapping, shape);
      return changed;
    }
    const OpSpmdBinding *binding = nullptr;
    const SpmdRule *rule = ruleOf(op, &binding);
    if (!rule || (reverse ? !rule->reverse : !rule->forward))
      return false;
    auto layout = [&](Value value) { return of(value).dist(); };
    SpmdCall call = ruleCall(op, *binding, mesh, layout, layout);
    llvm::Expected<SpmdInfo> info = runSpmdRule(*rule, reverse, call);
    if (!info) {
      // Settling the op reports what its rule rejects.
      llvm::consumeError(info.takeError());
      return false;
    }
    bool changed = false;
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (i < info->inputs.size())
        changed |= grow(of(operand), info->inputs[i].dimsMapping, call.inputs[i].shape);
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      if (i < info->outputs.size())
        changed |= grow(of(result), info->outputs[i].dimsMapping, call.outputs[i].shape);
    return changed;
  }

  const MeshInfo &mesh;
  llvm::DenseMap<Value, Layout> values;
  llvm::DenseMap<Operation *, Layout> vars;
};

/// Step 2: each op's operand requirements and result layouts.
class OpSettler {
public:
  OpSettler(const MeshInfo &mesh, SourceLayouts &sources) : mesh(mesh), sources(sources) {}

  LogicalResult settleMain(Operation *program) {
    for (Operation &op : programBody(program))
      if (failed(settle(&op)))
        return failure();
    return success();
  }

  /// Startup programs initialize whole values on every rank (the same
  /// seeds give every rank the serial program's values); a variable that
  /// is split is sliced as it is written.
  void settleStartup(Operation *program) {
    for (Operation &op : programBody(program)) {
      std::vector<TensorDistAttr> required;
      for (Value operand : op.getOperands())
        required.push_back(TensorDistAttr::replicated(shapeOf(operand).size()));
      if (isa<pd::WriteVarOp>(op))
        if (pd::VarOp var = variableOf(&op, sources.symbols))
          required[0] = sources.ofVar(var).dist();
      std::vector<TensorDistAttr> results;
      for (Value result : op.getResults())
        results.push_back(isa<pd::ReadVarOp>(op) ? varDist(&op)
                                                 : TensorDistAttr::replicated(shapeOf(result).size()));
      write(&op, required, results);
    }
  }

private:
  TensorDistAttr varDist(Operation *access) {
    pd::VarOp var = variableOf(access, sources.symbols);
    return var ? sources.ofVar(var).dist() : TensorDistAttr();
  }

  TensorDistAttr current(Value value) {
    auto it = produced.find(value);
    if (it != produced.end())
      return it->second;
    // Not produced by a settled op (it cannot happen in a verified program,
    // whose ops come after their operands): the source's layout.
    return sources.of(value).dist();
  }

  std::string placementsOf(const TensorDistAttr &dist) { return formatPlacements(mesh, dist); }

  /// "'x' [Shard(0)], 'w' [Replicate()]": the operands as the rule saw them.
  std::string describeOperands(Operation *op) {
    std::string text;
    for (Value operand : op->getOperands()) {
      if (!text.empty())
        text += ", ";
      text += describeValue(operand) + " " + placementsOf(current(operand));
    }
    return text;
  }

  LogicalResult settle(Operation *op) {
    std::vector<TensorDistAttr> required, results;
    if (isa<pd::FeedOp>(op)) {
      for (Value result : op->getResults())
        results.push_back(sources.of(result).dist());
    } else if (isa<pd::ReadVarOp>(op)) {
      results.push_back(varDist(op));
    } else if (isa<pd::WriteVarOp>(op)) {
      required.push_back(varDist(op));
    } else if (isa<pd::FetchOp>(op)) {
      // A fetch returns the whole tensor, as the serial program would.
      required.push_back(TensorDistAttr::replicated(shapeOf(op->getOperand(0)).size()));
    } else if (failed(applyRule(op, required, results))) {
      return failure();
    }
    for (auto [result, dist] : llvm::zip(op->getResults(), results))
      produced[result] = dist;
    write(op, required, results);
    return success();
  }

  /// The forward rule on the operands' layouts; for an annotated result the
  /// rule gives otherwise, the operands its reverse asks for.
  LogicalResult applyRule(Operation *op, std::vector<TensorDistAttr> &required,
                          std::vector<TensorDistAttr> &results) {
    const OpSpmdBinding *binding = nullptr;
    const SpmdRule *rule = ruleOf(op, &binding);
    if (!rule || !rule->forward) {
      // No rule: the op runs on whole tensors.
      for (Value operand : op->getOperands())
        required.push_back(TensorDistAttr::replicated(shapeOf(operand).size()));
      for (Value result : op->getResults())
        results.push_back(TensorDistAttr::replicated(shapeOf(result).size()));
      return checkAnnotatedResults(op, results, nullptr);
    }
    SpmdCall call = ruleCall(
        op, *binding, mesh, [&](Value operand) { return current(operand); },
        [&](Value result) { return sources.of(result).dist(); });
    llvm::Expected<SpmdInfo> info = runSpmdRule(*rule, /*reverse=*/false, call);
    if (!info)
      return op->emitError() << describeOp(op) << ": its SPMD rule '" << rule->name
                             << "' rejects the operands " << describeOperands(op) << ": "
                             << llvm::toString(info.takeError());
    if (firstUnmetAnnotation(op, info->outputs) >= 0 && rule->reverse) {
      // Ask the rule which operands give the annotated results.
      SpmdCall back = call;
      for (auto [i, result] : llvm::enumerate(op->getResults()))
        if (sources.of(result).annotated)
          back.outputs[i].dist = sources.of(result).dist();
      if (llvm::Expected<SpmdInfo> wanted = runSpmdRule(*rule, /*reverse=*/true, back)) {
        SpmdCall again = call;
        for (size_t i = 0; i < again.inputs.size() && i < wanted->inputs.size(); ++i)
          again.inputs[i].dist = wanted->inputs[i];
        if (llvm::Expected<SpmdInfo> retry = runSpmdRule(*rule, /*reverse=*/false, again))
          info = std::move(*retry);
        else
          llvm::consumeError(retry.takeError());
      } else {
        llvm::consumeError(wanted.takeError());
      }
    }
    if (info->inputs.size() != op->getNumOperands() || info->outputs.size() != op->getNumResults())
      return op->emitError() << describeOp(op) << ": its SPMD rule '" << rule->name << "' answers "
                             << info->inputs.size() << " operands and " << info->outputs.size()
                             << " results for an op of " << op->getNumOperands() << " and "
                             << op->getNumResults();
    required = info->inputs;
    results = info->outputs;
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      if (llvm::Error err = verifyDistAttr(results[i], shapeOf(result), mesh.shape()))
        return op->emitError() << describeOp(op) << ": its SPMD rule '" << rule->name
                               << "' lays out " << describeValue(result) << " as "
                               << placementsOf(results[i]) << ", which does not fit: "
                               << llvm::toString(std::move(err));
    return checkAnnotatedResults(op, results, rule);
  }

  /// The first annotated result `results` does not lay out as annotated, or -1.
  int firstUnmetAnnotation(Operation *op, const std::vector<TensorDistAttr> &results) {
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      const Layout &layout = sources.of(result);
      if (layout.annotated && i < results.size() && results[i] != layout.dist())
        return static_cast<int>(i);
    }
    return -1;
  }

  /// Refuses results that miss their annotation; `rule` gave them (null:
  /// the op has none).
  LogicalResult checkAnnotatedResults(Operation *op, const std::vector<TensorDistAttr> &results,
                                      const SpmdRule *rule) {
    int i = firstUnmetAnnotation(op, results);
    if (i < 0)
      return success();
    Value result = op->getResult(i);
    InFlightDiagnostic diag = op->emitError()
                              << "tensor " << describeValue(result) << " is annotated "
                              << placementsOf(sources.of(result).dist()) << " but "
                              << describeOp(op) << " cannot produce it from "
                              << describeOperands(op) << ": ";
    if (rule)
      diag << "its rule '" << rule->name << "' gives " << placementsOf(results[i]);
    else
      diag << "it has no SPMD rule";
    return diag;
  }

  void write(Operation *op, const std::vector<TensorDistAttr> &required,
             const std::vector<TensorDistAttr> &results) {
    Builder b(op->getContext());
    if (op->getNumOperands() > 0) {
      SmallVector<Attribute> attrs;
      for (const TensorDistAttr &dist : required)
        attrs.push_back(toShardingAttr(mesh, dist));
      op->setAttr(kOperandShardingsAttr, b.getArrayAttr(attrs));
    }
    if (op->getNumResults() > 0 && !isa<pd::ReadVarOp>(op)) {
      SmallVector<Attribute> attrs;
      for (auto [result, dist] : llvm::zip(op->getResults(), results))
        attrs.push_back(toShardingAttr(mesh, dist, sources.of(result).annotated));
      op->setAttr(pd::kShardingsAttr, b.getArrayAttr(attrs));
    }
  }

  const MeshInfo &mesh;
  SourceLayouts &sources;
  llvm::DenseMap<Value, TensorDistAttr> produced;
};

struct PropagateShardingPass : impl::PropagateShardingBase<PropagateShardingPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::optional<MeshInfo>> mesh = findMesh(module);
    if (failed(mesh))
      return signalPassFailure();
    if (!*mesh)
      return;
    Programs programs = programsOf(module);
    SourceLayouts sources(**mesh);
    // Each round can only split more axes, so this ends; the bound is the
    // most splits there can be, a guard against a rule that flip-flops.
    for (int round = 0; round < 1000; ++round) {
      bool changed = false;
      for (Operation *program : programs.main)
        changed |= sources.sweep(program);
      if (!changed)
        break;
    }
    for (pd::VarOp var : module.getOps<pd::VarOp>()) {
      if (!isa<RankedTensorType>(var.getType()))
        continue;
      const Layout &layout = sources.ofVar(var);
      var->setAttr(pd::kVarShardingAttr, toShardingAttr(**mesh, layout.dist(), layout.annotated));
    }
    for (Operation *program : programs.main) {
      OpSettler settler(**mesh, sources);
      if (failed(settler.settleMain(program)))
        return signalPassFailure();
    }
    for (Operation *program : programs.startup)
      OpSettler(**mesh, sources).settleStartup(program);
  }
};

} // namespace
} // namespace distc::sharding
