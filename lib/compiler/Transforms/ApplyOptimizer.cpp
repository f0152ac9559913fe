//===- ApplyOptimizer.cpp - Paddle's apply_gradients on a pd program ------===//
//
// The second half of `Optimizer.minimize`: after distc-append-backward has
// produced `<param>@GRAD` for every trainable parameter, this pass appends
// what Paddle's optimizers append, in Paddle's order and with Paddle's
// names and op_role (optimize):
//
//   1. global-norm clipping (ClipGradByGlobalNorm): squared_l2_norm per
//      gradient, sum, sqrt, then g·clip/max(norm, clip);
//   2. L2 weight decay (L2Decay) as `g + coeff·p` (scale + sum), except that
//      momentum takes it as its own `regularization_method` attribute and
//      adamw decays decoupled through `coeff`;
//   3. one optimizer op per parameter reading `learning_rate_0` and its
//      state variables (Paddle's accumulators `<p>_<name>_0`: velocity;
//      moment1, moment2, beta1_pow_acc, beta2_pow_acc; moment (adagrad,
//      decayed_adagrad); momentum, mean_square, mean_grad (rmsprop); squared,
//      linear (ftrl)), each written back with `pd.write_var` so the update
//      is in place.
//
// New state variables get `fill_constant` initializers in the startup
// program, with the initial values of Paddle's optimizers (0, but beta
// powers start at beta1/beta2 and adagrad's moment at
// initial_accumulator_value). The learning rate variable starts at `lr`; a
// runtime with a schedule overwrites it before each step.
//
//===----------------------------------------------------------------------===//

#include "distc/Transforms/Passes.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Dialect/Pd/PdTypes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace distc {
#define GEN_PASS_DEF_APPLYOPTIMIZER
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

struct ParamGrad {
  std::string name;
  Value param; // read in the train program
  Value grad;
};

class OptimizerBuilder {
public:
  OptimizerBuilder(ModuleOp module, SymbolTable &symbols, Operation *main, Operation *startup)
      : module(module), symbols(symbols), main(main), startup(startup),
        builder(module.getContext()), startupBuilder(module.getContext()),
        firstProgram(firstProgramOf(module)) {
    builder.setInsertionPointToEnd(&main->getRegion(0).front());
    startupBuilder.setInsertionPointToEnd(&startup->getRegion(0).front());
  }

  /// Declares persistable `name` of `type`, initialized to `value` by the
  /// startup program, and reads it in the train program.
  FailureOr<Value> stateVariable(StringRef name, RankedTensorType type, double value) {
    if (symbols.lookup(name))
      return emitError(main->getLoc())
             << "cannot add optimizer variable '" << name << "': the program already has one";
    OpBuilder declare(module.getContext());
    declare.setInsertionPoint(firstProgram);
    OperationState var(main->getLoc(), pd::VarOp::getOperationName());
    var.addAttribute("sym_name", declare.getStringAttr(name));
    var.addAttribute("type", TypeAttr::get(type));
    var.addAttribute("persistable", declare.getUnitAttr());
    symbols.insert(declare.create(var));

    FailureOr<pd::VarDataType> dtype = pd::getPaddleDType(type.getElementType());
    if (failed(dtype))
      return emitError(main->getLoc())
             << "optimizer variable '" << name << "' has element type " << type.getElementType()
             << ", which Paddle cannot represent";
    SmallVector<NamedAttribute> attrs = {
        startupBuilder.getNamedAttr("shape", startupBuilder.getDenseI64ArrayAttr(type.getShape())),
        startupBuilder.getNamedAttr("value", startupBuilder.getF32FloatAttr(value)),
        startupBuilder.getNamedAttr("dtype",
                                    startupBuilder.getI32IntegerAttr(static_cast<int32_t>(*dtype)))};
    FailureOr<Operation *> init = pd::buildCatalogOp(startupBuilder, main->getLoc(), "fill_constant",
                                                     {}, attrs, {name.str()});
    if (failed(init))
      return failure();
    writeVar(startupBuilder, name, (*init)->getResult(0));

    OperationState read(main->getLoc(), pd::ReadVarOp::getOperationName());
    read.addAttribute("var", FlatSymbolRefAttr::get(module.getContext(), name));
    read.addTypes(type);
    return builder.create(read)->getResult(0);
  }

  /// Appends `pd.<type>` with op_role optimize to the train program.
  FailureOr<Operation *> op(StringRef type, ArrayRef<SmallVector<Value, 1>> slots,
                            SmallVector<NamedAttribute> attrs, ArrayRef<std::string> names) {
    attrs.push_back(builder.getNamedAttr("op_role", builder.getI32IntegerAttr(pd::OpRole::Optimize)));
    return pd::buildCatalogOp(builder, main->getLoc(), type, slots, attrs, names);
  }

  void writeVar(StringRef name, Value value) { writeVar(builder, name, value); }

  OpBuilder &mainBuilder() { return builder; }

private:
  static void writeVar(OpBuilder &at, StringRef name, Value value) {
    OperationState write(value.getLoc(), pd::WriteVarOp::getOperationName());
    write.addAttribute("var", FlatSymbolRefAttr::get(at.getContext(), name));
    write.addOperands(value);
    at.create(write);
  }

  static Operation *firstProgramOf(ModuleOp module) {
    for (Operation &op : module.getBody()->getOperations())
      if (isa<pd::ProgramOp>(op))
        return &op;
    return nullptr;
  }

  ModuleOp module;
  SymbolTable &symbols;
  Operation *main;
  Operation *startup;
  OpBuilder builder;
  OpBuilder startupBuilder;
  /// Where new variables are declared: before the first program, which
  /// stays first (variables go before it), so it is found once.
  Operation *firstProgram;
};

struct ApplyOptimizerPass : impl::ApplyOptimizerBase<ApplyOptimizerPass> {
  using ApplyOptimizerBase::ApplyOptimizerBase;

  /// Trainable parameters that have a gradient in `main`, by name.
  SmallVector<ParamGrad> parameterGrads(const SymbolTable &symbols, Operation *main) {
    std::map<std::string, ParamGrad> found;
    llvm::StringMap<Value> variables = variablesByName(main);
    main->walk([&](pd::ReadVarOp read) {
      auto var = symbols.lookup<pd::VarOp>(read.getVarAttr().getAttr());
      if (!var || !var.getIsParameter() || var.getStopGradient())
        return;
      std::string name = read.getVar().str();
      if (Value grad = variables.lookup(name + "@GRAD"); grad && !found.count(name))
        found[name] = {name, read.getResult(), grad};
    });
    SmallVector<ParamGrad> params;
    for (auto &entry : found)
      params.push_back(entry.second);
    return params;
  }

  /// ClipGradByGlobalNorm: every gradient times clip / max(‖g‖, clip).
  LogicalResult clipByGlobalNorm(OptimizerBuilder &b, SmallVector<ParamGrad> &params) {
    OpBuilder &ob = b.mainBuilder();
    SmallVector<Value, 1> squares;
    for (ParamGrad &p : params) {
      auto sq = b.op("squared_l2_norm", {{p.grad}}, {}, {p.name + "@GRAD@SQUARED_L2_NORM"});
      if (failed(sq))
        return failure();
      squares.push_back((*sq)->getResult(0));
    }
    auto total = b.op("sum", {squares}, {}, {"global_norm_square"});
    if (failed(total))
      return failure();
    auto norm = b.op("sqrt", {{(*total)->getResult(0)}}, {}, {"global_norm"});
    if (failed(norm))
      return failure();
    auto normType = cast<RankedTensorType>((*norm)->getResult(0).getType());
    auto clip = b.op("fill_constant", {},
                     {ob.getNamedAttr("shape", ob.getDenseI64ArrayAttr(normType.getShape())),
                      ob.getNamedAttr("value", ob.getF32FloatAttr(clipNorm)),
                      ob.getNamedAttr("dtype", ob.getI32IntegerAttr(5))},
                     {"global_norm_clip"});
    if (failed(clip))
      return failure();
    Value clipValue = (*clip)->getResult(0);
    auto denom = b.op("elementwise_max", {{(*norm)->getResult(0)}, {clipValue}}, {},
                      {"global_norm_denominator"});
    if (failed(denom))
      return failure();
    auto scale =
        b.op("elementwise_div", {{clipValue}, {(*denom)->getResult(0)}}, {}, {"global_norm_scale"});
    if (failed(scale))
      return failure();
    for (ParamGrad &p : params) {
      auto clipped = b.op("elementwise_mul", {{p.grad}, {(*scale)->getResult(0)}}, {},
                          {p.name + "@GRAD@CLIP"});
      if (failed(clipped))
        return failure();
      p.grad = (*clipped)->getResult(0);
    }
    return success();
  }

  /// L2Decay: g + coeff·p.
  LogicalResult l2Decay(OptimizerBuilder &b, SmallVector<ParamGrad> &params) {
    OpBuilder &ob = b.mainBuilder();
    for (ParamGrad &p : params) {
      auto decay = b.op("scale", {{p.param}},
                        {ob.getNamedAttr("scale", ob.getF32FloatAttr(weightDecay))},
                        {p.name + "@L2_DECAY"});
      if (failed(decay))
        return failure();
      auto sum = b.op("sum", {{p.grad, (*decay)->getResult(0)}}, {}, {p.name + "@GRAD@L2"});
      if (failed(sum))
        return failure();
      p.grad = (*sum)->getResult(0);
    }
    return success();
  }

  /// Appends optimizer `type` on `slots` and writes its result i back to
  /// variable `writes[i]` (the parameter, then its state).
  LogicalResult appendUpdate(OptimizerBuilder &b, StringRef type,
                             ArrayRef<SmallVector<Value, 1>> slots,
                             SmallVector<NamedAttribute> attrs, ArrayRef<std::string> writes) {
    FailureOr<Operation *> op = b.op(type, slots, std::move(attrs), writes);
    if (failed(op))
      return failure();
    for (auto [i, name] : llvm::enumerate(writes))
      b.writeVar(name, (*op)->getResult(i));
    return success();
  }

  NamedAttribute floatAttr(OpBuilder &ob, StringRef name, double value) {
    return ob.getNamedAttr(name, ob.getF32FloatAttr(static_cast<float>(value)));
  }

  double epsilonValue() {
    return epsilon.hasValue() ? double(epsilon) : optimizerDefaultEpsilon(optimizer);
  }
  double momentumValue() {
    return momentum.hasValue() ? double(momentum) : optimizerDefaultMomentum(optimizer);
  }

  LogicalResult updateMomentum(OptimizerBuilder &b, const ParamGrad &p, Value lr) {
    OpBuilder &ob = b.mainBuilder();
    std::string velocityName = p.name + "_velocity_0";
    FailureOr<Value> velocity =
        b.stateVariable(velocityName, cast<RankedTensorType>(p.param.getType()), 0.0);
    if (failed(velocity))
      return failure();
    SmallVector<NamedAttribute> attrs = {floatAttr(ob, "mu", momentumValue()),
                                         ob.getNamedAttr("use_nesterov", ob.getBoolAttr(nesterov))};
    if (weightDecay != 0) {
      attrs.push_back(ob.getNamedAttr("regularization_method", ob.getStringAttr("l2_decay")));
      attrs.push_back(floatAttr(ob, "regularization_coeff", weightDecay));
    }
    return appendUpdate(b, "momentum", {{p.param}, {p.grad}, {*velocity}, {lr}}, attrs,
                        {p.name, velocityName});
  }

  /// adam and adamw.
  LogicalResult updateAdam(OptimizerBuilder &b, const ParamGrad &p, Value lr) {
    OpBuilder &ob = b.mainBuilder();
    auto paramType = cast<RankedTensorType>(p.param.getType());
    auto scalarType = RankedTensorType::get({1}, paramType.getElementType());
    std::string m1 = p.name + "_moment1_0", m2 = p.name + "_moment2_0";
    std::string b1 = p.name + "_beta1_pow_acc_0", b2 = p.name + "_beta2_pow_acc_0";
    FailureOr<Value> m1v = b.stateVariable(m1, paramType, 0.0);
    FailureOr<Value> m2v = b.stateVariable(m2, paramType, 0.0);
    FailureOr<Value> b1v = b.stateVariable(b1, scalarType, beta1);
    FailureOr<Value> b2v = b.stateVariable(b2, scalarType, beta2);
    if (failed(m1v) || failed(m2v) || failed(b1v) || failed(b2v))
      return failure();
    SmallVector<NamedAttribute> attrs = {floatAttr(ob, "beta1", beta1),
                                         floatAttr(ob, "beta2", beta2),
                                         floatAttr(ob, "epsilon", epsilonValue())};
    if (optimizer == "adamw") {
      attrs.push_back(floatAttr(ob, "coeff", weightDecay));
      attrs.push_back(ob.getNamedAttr("with_decay", ob.getBoolAttr(weightDecay != 0)));
    }
    return appendUpdate(b, optimizer, {{p.param}, {p.grad}, {lr}, {*m1v}, {*m2v}, {*b1v}, {*b2v}},
                        attrs, {p.name, m1, m2, b1, b2});
  }

  /// adagrad and decayed_adagrad: one moment, `<p>_moment_0`.
  LogicalResult updateAdagrad(OptimizerBuilder &b, const ParamGrad &p, Value lr) {
    OpBuilder &ob = b.mainBuilder();
    bool decayed = optimizer == "decayed_adagrad";
    std::string momentName = p.name + "_moment_0";
    FailureOr<Value> moment = b.stateVariable(momentName, cast<RankedTensorType>(p.param.getType()),
                                              decayed ? 0.0 : double(initialAccumulatorValue));
    if (failed(moment))
      return failure();
    SmallVector<NamedAttribute> attrs = {floatAttr(ob, "epsilon", epsilonValue())};
    if (decayed)
      attrs.push_back(floatAttr(ob, "decay", decay));
    return appendUpdate(b, optimizer, {{p.param}, {p.grad}, {*moment}, {lr}}, attrs,
                        {p.name, momentName});
  }

  /// rmsprop: Paddle's RMSProp creates all three accumulators, centered or
  /// not, and passes MeanGrad either way.
  LogicalResult updateRmsprop(OptimizerBuilder &b, const ParamGrad &p, Value lr) {
    OpBuilder &ob = b.mainBuilder();
    auto paramType = cast<RankedTensorType>(p.param.getType());
    std::string momentName = p.name + "_momentum_0", meanSquareName = p.name + "_mean_square_0",
                meanGradName = p.name + "_mean_grad_0";
    FailureOr<Value> moment = b.stateVariable(momentName, paramType, 0.0);
    FailureOr<Value> meanSquare = b.stateVariable(meanSquareName, paramType, 0.0);
    FailureOr<Value> meanGrad = b.stateVariable(meanGradName, paramType, 0.0);
    if (failed(moment) || failed(meanSquare) || failed(meanGrad))
      return failure();
    SmallVector<NamedAttribute> attrs = {floatAttr(ob, "epsilon", epsilonValue()),
                                         floatAttr(ob, "decay", rho),
                                         floatAttr(ob, "momentum", momentumValue()),
                                         ob.getNamedAttr("centered", ob.getBoolAttr(centered))};
    return appendUpdate(b, "rmsprop",
                        {{p.param}, {*meanSquare}, {*meanGrad}, {lr}, {p.grad}, {*moment}}, attrs,
                        {p.name, momentName, meanSquareName, meanGradName});
  }

  /// ftrl: `<p>_squared_0` and `<p>_linear_0`, both starting at 0.
  LogicalResult updateFtrl(OptimizerBuilder &b, const ParamGrad &p, Value lr) {
    OpBuilder &ob = b.mainBuilder();
    auto paramType = cast<RankedTensorType>(p.param.getType());
    std::string squaredName = p.name + "_squared_0", linearName = p.name + "_linear_0";
    FailureOr<Value> squared = b.stateVariable(squaredName, paramType, 0.0);
    FailureOr<Value> linear = b.stateVariable(linearName, paramType, 0.0);
    if (failed(squared) || failed(linear))
      return failure();
    SmallVector<NamedAttribute> attrs = {floatAttr(ob, "l1", l1), floatAttr(ob, "l2", l2),
                                         floatAttr(ob, "lr_power", lrPower)};
    return appendUpdate(b, "ftrl", {{p.param}, {*squared}, {*linear}, {p.grad}, {lr}}, attrs,
                        {p.name, squaredName, linearName});
  }

  LogicalResult update(OptimizerBuilder &b, const ParamGrad &p, Value lr) {
    if (optimizer == "sgd")
      return appendUpdate(b, "sgd", {{p.param}, {lr}, {p.grad}}, {}, {p.name});
    if (optimizer == "momentum")
      return updateMomentum(b, p, lr);
    if (optimizer == "adagrad" || optimizer == "decayed_adagrad")
      return updateAdagrad(b, p, lr);
    if (optimizer == "rmsprop")
      return updateRmsprop(b, p, lr);
    if (optimizer == "ftrl")
      return updateFtrl(b, p, lr);
    return updateAdam(b, p, lr);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Operation *main = findProgram(module, program);
    Operation *startupProgram = findProgram(module, startup);
    if (!main || !startupProgram) {
      module.emitError() << "no programs '" << program << "' and '" << startup
                         << "' to add the optimizer to";
      return signalPassFailure();
    }
    if (!llvm::is_contained(knownOptimizers(), StringRef(optimizer))) {
      module.emitError() << "unknown optimizer '" << optimizer << "' (expected "
                         << llvm::join(knownOptimizers(), ", ") << ")";
      return signalPassFailure();
    }
    // One symbol table for all lookups: SymbolTable::lookupSymbolIn scans
    // the module, which declares every variable.
    SymbolTable symbols(module);
    SmallVector<ParamGrad> params = parameterGrads(symbols, main);
    if (params.empty()) {
      main->emitError("no trainable parameter has a gradient: run distc-append-backward first");
      return signalPassFailure();
    }
    OptimizerBuilder b(module, symbols, main, startupProgram);
    if (clipNorm < 0 || weightDecay < 0 || lr < 0) {
      module.emitError("lr, weight decay and the clip norm must not be negative");
      return signalPassFailure();
    }
    if (clipNorm > 0 && failed(clipByGlobalNorm(b, params)))
      return signalPassFailure();
    // Paddle appends L2Decay to the gradient for every optimizer but these
    // two, which take it as their own attributes.
    bool decayInGradient = weightDecay != 0 && optimizer != "momentum" && optimizer != "adamw";
    if (decayInGradient && failed(l2Decay(b, params)))
      return signalPassFailure();
    auto lrType = RankedTensorType::get({1}, Float32Type::get(module.getContext()));
    FailureOr<Value> lrValue = b.stateVariable("learning_rate_0", lrType, lr);
    if (failed(lrValue))
      return signalPassFailure();
    for (const ParamGrad &p : params)
      if (failed(update(b, p, *lrValue)))
        return signalPassFailure();
  }
};

} // namespace

ArrayRef<StringRef> knownOptimizers() {
  static const StringRef names[] = {"sgd",     "momentum",        "adam",    "adamw",
                                    "adagrad", "decayed_adagrad", "rmsprop", "ftrl"};
  return names;
}

double optimizerDefaultEpsilon(StringRef optimizer) {
  return optimizer == "adam" || optimizer == "adamw" ? 1e-8 : 1e-6;
}

double optimizerDefaultMomentum(StringRef optimizer) { return optimizer == "rmsprop" ? 0.0 : 0.9; }

} // namespace distc
