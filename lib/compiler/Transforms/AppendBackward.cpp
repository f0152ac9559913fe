//===- AppendBackward.cpp - reverse-mode autodiff over a pd program -------===//
//
// Paddle's `append_backward` on SSA: from the loss back to every trainable
// parameter, each forward op on the way gets its backward op, written as
// Paddle writes it (`<op>_grad`, gradients named `<var>@GRAD`, fan-out
// accumulated by `sum` over `<var>@GRAD@RENAME@block0@<k>`), with
// `op_role` = backward. Most ops follow one rule read off the catalogue:
// the backward op's input slot N is the forward input N, the forward output
// N, or — for `N@GRAD` — the gradient of forward output N; its output `S@GRAD`
// is the gradient of forward input S. A few ops have forward ops as their
// backward (scale, cast, assign, sum, split), as in Paddle.
//
//===----------------------------------------------------------------------===//

#include "distc/Transforms/Passes.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Dialect/Pd/PdTypes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

namespace distc {
#define GEN_PASS_DEF_APPENDBACKWARD
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

std::string gradName(Value value) {
  std::string name = variableName(value);
  return name.empty() ? "" : name + "@GRAD";
}

class BackwardBuilder {
public:
  BackwardBuilder(Operation *program, const llvm::StringSet<> &noGrad)
      : program(program), noGrad(noGrad), builder(program->getContext()) {
    Block &body = program->getRegion(0).front();
    builder.setInsertionPointToEnd(&body);
  }

  LogicalResult run(Value loss);

  /// Gradients of the trainable parameters, by parameter name.
  llvm::StringMap<Value> parameterGrads;

  /// A gradient written with forward ops (PdOps.td `gradRule`): gets the
  /// forward op and the gradient of its first result.
  using GradRule = LogicalResult (BackwardBuilder::*)(Operation *op, Value dOut);
  LogicalResult assignGrad(Operation *op, Value dOut);
  LogicalResult sumGrad(Operation *op, Value dOut);
  LogicalResult scaleGrad(Operation *op, Value dOut);
  LogicalResult castGrad(Operation *op, Value dOut);
  LogicalResult splitGrad(Operation *op, Value dOut);

private:
  /// Emits `type` on `in`, at `forward`'s location, as the gradient
  /// contribution to `target`.
  LogicalResult emitGradOp(Operation *forward, StringRef type, Value in,
                           SmallVector<NamedAttribute> attrs, Value target);
  LogicalResult markRequiresGrad();
  LogicalResult backwardOf(Operation *op);
  LogicalResult genericRule(Operation *op, const pd::OpSpec &spec, StringRef gradType);
  LogicalResult gradOpInputs(Operation *op, const pd::OpSpec &spec, const pd::OpSpec &gradSpec,
                             SmallVector<SmallVector<Value, 1>> &slots, bool &anyOutputGrad);
  void gradOpTargets(Operation *op, const pd::OpSpec &spec, const pd::OpSpec &gradSpec,
                     SmallVector<Value> &targets, SmallVector<std::string> &names,
                     unsigned &numVariadic);
  FailureOr<Operation *> seedLossGradient(Value loss);
  FailureOr<Value> gradOf(Value value);
  FailureOr<Value> zeroGradOf(Value value);
  void contribute(Value forward, Value grad);
  NamedAttribute backwardRole() {
    return builder.getNamedAttr("op_role", builder.getI32IntegerAttr(pd::OpRole::Backward));
  }
  SmallVector<NamedAttribute> copyAttrs(Operation *forward, const pd::OpSpec &gradSpec);

  Operation *program;
  const llvm::StringSet<> &noGrad;
  OpBuilder builder;
  llvm::DenseSet<Value> requiresGrad;
  llvm::DenseMap<Value, SmallVector<Value, 1>> contributions;
};

/// Values computed from a trainable parameter: the only ones whose
/// gradients anyone needs.
LogicalResult BackwardBuilder::markRequiresGrad() {
  // One table for all reads: lookupSymbolIn would scan the module's
  // variables for each.
  SymbolTable symbols(program->getParentOfType<ModuleOp>());
  for (Operation &op : program->getRegion(0).front()) {
    if (auto read = dyn_cast<pd::ReadVarOp>(op)) {
      auto varOp = symbols.lookup<pd::VarOp>(read.getVarAttr().getAttr());
      if (varOp && varOp.getIsParameter() && !varOp.getStopGradient() &&
          !noGrad.contains(read.getVar()) && isa<FloatType>(read.getType().getElementType()))
        requiresGrad.insert(read.getResult());
      continue;
    }
    bool anyInput = llvm::any_of(op.getOperands(), [&](Value v) { return requiresGrad.count(v); });
    if (!anyInput)
      continue;
    for (Value result : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (type && isa<FloatType>(type.getElementType()) && !noGrad.contains(variableName(result)))
        requiresGrad.insert(result);
    }
  }
  return success();
}

void BackwardBuilder::contribute(Value forward, Value grad) {
  if (grad && requiresGrad.count(forward))
    contributions[forward].push_back(grad);
}

/// The gradient of `value` (null if nothing contributed): the single
/// contribution, or their `sum`.
FailureOr<Value> BackwardBuilder::gradOf(Value value) {
  auto it = contributions.find(value);
  if (it == contributions.end() || it->second.empty())
    return Value();
  SmallVector<Value, 1> &parts = it->second;
  if (parts.size() == 1)
    return parts.front();
  std::string name = gradName(value);
  for (auto [k, part] : llvm::enumerate(parts)) {
    Operation *def = part.getDefiningOp();
    auto names = def->getAttrOfType<ArrayAttr>(pd::kOutNamesAttr);
    if (!names || name.empty())
      continue;
    SmallVector<Attribute> renamed(names.begin(), names.end());
    unsigned index = cast<OpResult>(part).getResultNumber();
    renamed[index] = builder.getStringAttr(name + "@RENAME@block0@" + std::to_string(k));
    def->setAttr(pd::kOutNamesAttr, builder.getArrayAttr(renamed));
  }
  SmallVector<SmallVector<Value, 1>> slots = {SmallVector<Value, 1>(parts.begin(), parts.end())};
  FailureOr<Operation *> sum =
      pd::buildCatalogOp(builder, value.getLoc(), "sum", slots, {backwardRole()}, {name});
  if (failed(sum))
    return failure();
  parts.assign({(*sum)->getResult(0)});
  return (*sum)->getResult(0);
}

/// A zero gradient for a forward output nothing differentiated (an unused
/// split piece): `scale` by 0 keeps the output's run-time shape, as
/// Paddle's fill_zeros_like does.
FailureOr<Value> BackwardBuilder::zeroGradOf(Value value) {
  FailureOr<Operation *> zero = pd::buildCatalogOp(
      builder, value.getLoc(), "scale", {{value}},
      {builder.getNamedAttr("scale", builder.getF32FloatAttr(0)), backwardRole()},
      {gradName(value)});
  if (failed(zero))
    return failure();
  return (*zero)->getResult(0);
}

SmallVector<NamedAttribute> BackwardBuilder::copyAttrs(Operation *forward,
                                                       const pd::OpSpec &gradSpec) {
  SmallVector<NamedAttribute> attrs;
  for (const pd::AttrSpec &attr : gradSpec.attrs) {
    StringRef name(attr.name.data(), attr.name.size());
    if (Attribute value = forward->getAttr(name))
      attrs.push_back(builder.getNamedAttr(name, value));
  }
  attrs.push_back(backwardRole());
  return attrs;
}

/// The grad op's input slots, by name: `S@GRAD` is the gradient of
/// forward output S (zeros for one nothing differentiated), any other slot
/// the forward op's input or output of that name. `anyOutputGrad` says
/// whether any output of the op has a gradient at all.
LogicalResult BackwardBuilder::gradOpInputs(Operation *op, const pd::OpSpec &spec,
                                            const pd::OpSpec &gradSpec,
                                            SmallVector<SmallVector<Value, 1>> &slots,
                                            bool &anyOutputGrad) {
  anyOutputGrad = false;
  for (const pd::SlotSpec &slot : gradSpec.inputs) {
    StringRef name(slot.name.data(), slot.name.size());
    if (name.consume_back("@GRAD")) {
      int out = findSlot(spec.outputs, name);
      SmallVector<Value, 1> grads;
      for (Value result : resultsOfSlot(op, spec, out)) {
        FailureOr<Value> grad = gradOf(result);
        if (failed(grad))
          return failure();
        if (!*grad) {
          FailureOr<Value> zero = zeroGradOf(result);
          if (failed(zero))
            return failure();
          grads.push_back(*zero);
          continue;
        }
        anyOutputGrad = true;
        grads.push_back(*grad);
      }
      slots.push_back(grads);
    } else if (int in = findSlot(spec.inputs, name); in >= 0) {
      slots.push_back(operandsOfSlot(op, spec, in));
    } else if (int out = findSlot(spec.outputs, name); out >= 0) {
      slots.push_back(resultsOfSlot(op, spec, out));
    } else {
      return op->emitError() << "internal: " << gradSpec.type << " slot '" << name
                             << "' matches nothing of " << spec.type;
    }
  }
  return success();
}

/// The forward input each result of the grad op is the gradient of (null
/// for an absent optional input), and the result's name: the input's
/// `@GRAD`, or none for one nothing needs (Paddle leaves it out).
/// `numVariadic` is the size of a variadic gradient slot.
void BackwardBuilder::gradOpTargets(Operation *op, const pd::OpSpec &spec,
                                    const pd::OpSpec &gradSpec, SmallVector<Value> &targets,
                                    SmallVector<std::string> &names, unsigned &numVariadic) {
  numVariadic = 0;
  for (const pd::SlotSpec &slot : gradSpec.outputs) {
    StringRef name(slot.name.data(), slot.name.size());
    name.consume_back("@GRAD");
    int in = findSlot(spec.inputs, name);
    SmallVector<Value, 1> forward =
        in >= 0 ? operandsOfSlot(op, spec, in) : SmallVector<Value, 1>();
    if (slot.variadic)
      numVariadic = forward.size();
    if (forward.empty() && !slot.variadic) { // absent optional input
      names.push_back("");
      targets.push_back(Value());
    }
    for (Value v : forward) {
      names.push_back(requiresGrad.count(v) ? gradName(v) : "");
      targets.push_back(v);
    }
  }
}

LogicalResult BackwardBuilder::genericRule(Operation *op, const pd::OpSpec &spec,
                                           StringRef gradType) {
  const pd::OpSpec *gradSpec = pd::lookupOp(std::string_view(gradType.data(), gradType.size()));
  SmallVector<SmallVector<Value, 1>> slots;
  bool anyOutputGrad = false;
  if (failed(gradOpInputs(op, spec, *gradSpec, slots, anyOutputGrad)))
    return failure();
  if (!anyOutputGrad)
    return success();
  SmallVector<Value> targets;
  SmallVector<std::string> names;
  unsigned numVariadic = 0;
  gradOpTargets(op, spec, *gradSpec, targets, names, numVariadic);
  FailureOr<Operation *> grad = pd::buildCatalogOp(builder, op->getLoc(), gradType, slots,
                                                   copyAttrs(op, *gradSpec), names, numVariadic);
  if (failed(grad))
    return failure();
  for (auto [target, result] : llvm::zip((*grad)->getResults(), targets))
    if (result)
      contribute(result, target);
  return success();
}

// Ops whose backward is forward ops (their PdOps.td `gradRule`). Each
// gives every input its own op, so every gradient is a value named
// `<input>@GRAD` that renaming for fan-out can relabel on its own.

LogicalResult BackwardBuilder::emitGradOp(Operation *forward, StringRef type, Value in,
                                          SmallVector<NamedAttribute> attrs, Value target) {
  attrs.push_back(backwardRole());
  FailureOr<Operation *> g =
      pd::buildCatalogOp(builder, forward->getLoc(), type, {{in}}, attrs, {gradName(target)});
  if (failed(g))
    return failure();
  contribute(target, (*g)->getResult(0));
  return success();
}

/// assign passes the gradient through (Paddle's assign).
LogicalResult BackwardBuilder::assignGrad(Operation *op, Value dOut) {
  return emitGradOp(op, "assign", dOut, {}, op->getOperand(0));
}

/// sum passes the gradient to each input (Paddle's scale by 1).
LogicalResult BackwardBuilder::sumGrad(Operation *op, Value dOut) {
  for (Value in : op->getOperands())
    if (requiresGrad.count(in) &&
        failed(emitGradOp(op, "scale", dOut,
                          {builder.getNamedAttr("scale", builder.getF32FloatAttr(1))}, in)))
      return failure();
  return success();
}

/// d(s·x + b)/dx = s, whatever the bias order.
LogicalResult BackwardBuilder::scaleGrad(Operation *op, Value dOut) {
  pd::OpAttributes attrs(op);
  return emitGradOp(
      op, "scale", dOut,
      {builder.getNamedAttr("scale", builder.getF32FloatAttr(attrs.getFloat("scale")))},
      op->getOperand(0));
}

/// cast back to the input's dtype.
LogicalResult BackwardBuilder::castGrad(Operation *op, Value dOut) {
  pd::OpAttributes attrs(op);
  return emitGradOp(
      op, "cast", dOut,
      {builder.getNamedAttr("in_dtype", builder.getI32IntegerAttr(attrs.getInt("out_dtype"))),
       builder.getNamedAttr("out_dtype", builder.getI32IntegerAttr(attrs.getInt("in_dtype")))},
      op->getOperand(0));
}

/// split's gradient concatenates the pieces' gradients, zeros for a piece
/// nothing differentiated.
LogicalResult BackwardBuilder::splitGrad(Operation *op, Value) {
  SmallVector<Value, 1> pieces;
  for (Value result : op->getResults()) {
    FailureOr<Value> g = gradOf(result);
    if (failed(g))
      return failure();
    if (*g) {
      pieces.push_back(*g);
      continue;
    }
    FailureOr<Value> zero = zeroGradOf(result);
    if (failed(zero))
      return failure();
    pieces.push_back(*zero);
  }
  pd::OpAttributes attrs(op);
  FailureOr<Operation *> g = pd::buildCatalogOp(
      builder, op->getLoc(), "concat", {pieces},
      {builder.getNamedAttr("axis", builder.getI32IntegerAttr(attrs.getInt("axis"))),
       backwardRole()},
      {gradName(op->getOperand(0))});
  if (failed(g))
    return failure();
  contribute(op->getOperand(0), (*g)->getResult(0));
  return success();
}

/// The gradient rule `type` declares in PdOps.td (`gradRule`), or null.
static BackwardBuilder::GradRule lookupGradRule(StringRef type) {
  static const llvm::StringMap<BackwardBuilder::GradRule> rules = [] {
    llvm::StringMap<BackwardBuilder::GradRule> map;
    for (auto [name, rule] : std::initializer_list<std::pair<StringRef, BackwardBuilder::GradRule>>{
#include "distc/Dialect/Pd/PdGradientRules.inc"
         })
      map[name] = rule;
    return map;
  }();
  return rules.lookup(type);
}

LogicalResult BackwardBuilder::backwardOf(Operation *op) {
  const pd::OpSpec *spec = catalogSpecOf(op);
  if (!spec)
    return success(); // feed, read_var: leaves
  bool anyGrad = llvm::any_of(op->getResults(), [&](Value r) { return contributions.count(r); });
  if (!anyGrad)
    return success();
  StringRef type(spec->type.data(), spec->type.size());
  if (!spec->gradOp.empty())
    return genericRule(op, *spec, StringRef(spec->gradOp.data(), spec->gradOp.size()));
  if (GradRule rule = lookupGradRule(type)) {
    FailureOr<Value> dOut = gradOf(op->getResult(0));
    if (failed(dOut))
      return failure();
    return (this->*rule)(op, *dOut);
  }
  return op->emitError() << "no gradient rule for op '" << type << "' (output '"
                         << variableName(op->getResult(0))
                         << "'); the loss depends on it through a trainable parameter";
}

/// d loss / d loss = 1, as Paddle's fill_constant with role backward|loss.
FailureOr<Operation *> BackwardBuilder::seedLossGradient(Value loss) {
  auto lossType = cast<RankedTensorType>(loss.getType());
  SmallVector<int64_t> shape(lossType.getShape());
  FailureOr<pd::VarDataType> dtype = pd::getPaddleDType(lossType.getElementType());
  if (failed(dtype))
    return emitError(loss.getLoc())
           << "loss '" << variableName(loss) << "' has element type " << lossType.getElementType()
           << ", which Paddle cannot represent";
  FailureOr<Operation *> seed = pd::buildCatalogOp(
      builder, loss.getLoc(), "fill_constant", {},
      {builder.getNamedAttr("shape", builder.getDenseI64ArrayAttr(shape)),
       builder.getNamedAttr("value", builder.getF32FloatAttr(1.0f)),
       builder.getNamedAttr("dtype", builder.getI32IntegerAttr(static_cast<int32_t>(*dtype))),
       builder.getNamedAttr("op_role",
                            builder.getI32IntegerAttr(pd::OpRole::Backward | pd::OpRole::Loss))},
      {gradName(loss)});
  if (failed(seed))
    return failure();
  contributions[loss].push_back((*seed)->getResult(0));
  return seed;
}

LogicalResult BackwardBuilder::run(Value loss) {
  if (failed(markRequiresGrad()))
    return failure();
  if (!requiresGrad.count(loss))
    return emitError(loss.getLoc())
           << "loss '" << variableName(loss) << "' does not depend on any trainable parameter";
  FailureOr<Operation *> seed = seedLossGradient(loss);
  if (failed(seed))
    return failure();

  // The forward ops in reverse: each gets its backward, each trainable
  // parameter read its gradient.
  SmallVector<Operation *> forward;
  for (Operation &op : program->getRegion(0).front())
    if (&op != *seed)
      forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    if (op->getName().getStringRef() == "pd.read_var") {
      Value param = op->getResult(0);
      if (!requiresGrad.count(param))
        continue;
      FailureOr<Value> grad = gradOf(param);
      if (failed(grad))
        return failure();
      if (*grad)
        parameterGrads[cast<pd::ReadVarOp>(op).getVar()] = *grad;
      continue;
    }
    if (failed(backwardOf(op)))
      return failure();
  }
  return success();
}

/// Fetches each parameter gradient after the program's own fetches, in
/// parameter-name order, so a gradient check can read them.
void appendGradFetches(Operation *program, const llvm::StringMap<Value> &grads) {
  Block &body = program->getRegion(0).front();
  int32_t col = 0;
  for (Operation &op : body)
    if (auto fetch = dyn_cast<pd::FetchOp>(op))
      col = std::max<int32_t>(col, static_cast<int32_t>(fetch.getCol()) + 1);
  std::vector<std::string> names;
  for (const auto &entry : grads)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  OpBuilder builder = OpBuilder::atBlockEnd(&body);
  for (const std::string &name : names) {
    Value grad = grads.lookup(name);
    OperationState state(grad.getLoc(), pd::FetchOp::getOperationName());
    state.addOperands(grad);
    state.addAttribute("col", builder.getI32IntegerAttr(col++));
    builder.create(state);
  }
}

struct AppendBackwardPass : impl::AppendBackwardBase<AppendBackwardPass> {
  using AppendBackwardBase::AppendBackwardBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Operation *target = findProgram(module, program);
    if (!target) {
      module.emitError() << "no program '" << program << "' to differentiate";
      return signalPassFailure();
    }
    Value lossValue = findVariable(target, loss);
    if (!lossValue) {
      target->emitError() << "loss variable '" << loss << "' is not defined by the program";
      return signalPassFailure();
    }
    auto type = cast<RankedTensorType>(lossValue.getType());
    if (!type.hasStaticShape() || type.getNumElements() != 1 ||
        !isa<FloatType>(type.getElementType())) {
      emitError(lossValue.getLoc()) << "loss '" << loss << "' must be a float scalar, got " << type;
      return signalPassFailure();
    }
    llvm::StringSet<> noGradSet;
    for (const std::string &name : noGrad)
      noGradSet.insert(name);
    BackwardBuilder backward(target, noGradSet);
    if (failed(backward.run(lossValue)))
      return signalPassFailure();
    if (fetchGrads)
      appendGradFetches(target, backward.parameterGrads);
  }
};

} // namespace
} // namespace distc
