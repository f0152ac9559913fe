//===- LowerOptimizer.cpp - optimizer ops to update kernels ---------------===//
//
// sgd, momentum, adam and adamw (lowerOptimizer); adagrad and
// decayed_adagrad, one kernel; rmsprop; ftrl.
//
// Each `<S>Out` result is usually written back to S's persistable variable
// by a `pd.write_var`; defineResult then binds it to that variable's
// persistent buffer, so the kernel updates parameters and state in place.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdOps.h"

using namespace mlir;

namespace distc::target {

/// Binds optimizer output `result`, the new value of `input`, to a buffer
/// of `input`'s dims: the variable's own when it is written back, so the
/// update is in place (the kernels read each element before writing it).
static FailureOr<int32_t> defineUpdated(ProgramLowering &l, Value result, Value input) {
  return l.defineResult(result, l.dimsOf(input), /*elementwiseInPlace=*/true);
}

LogicalResult ProgramLowering::lowerOptimizer(Operation *op) {
  StringRef type = op->getName().getStringRef();
  type.consume_front("pd.");
  // sgd with a row-sparse gradient updates only its rows; every other
  // update reads the gradient's dense form.
  if (type == "sgd" && isRowSparse(op->getOperand(2)))
    return lowerSparseSgd(op);
  if (failed(densifyOperands(op)))
    return failure();
  pd::OpAttributes attrs(op);
  // ParamOut has Param's shape; each state output its state input's.
  std::vector<int32_t> outs(op->getNumResults(), -1);
  // The update kernels read each element before writing it, so outputs may
  // be the very buffers of their inputs: parameters update in place.
  FailureOr<int32_t> paramOut =
      defineResult(op->getResult(0), dimsOf(op->getOperand(0)), /*elementwiseInPlace=*/true);
  if (failed(paramOut))
    return failure();
  outs[0] = *paramOut;
  auto in = [&](unsigned i) { return bufferOf(op->getOperand(i)); };
  auto state = [&](unsigned result, unsigned input) -> LogicalResult {
    FailureOr<int32_t> b = defineResult(op->getResult(result), dimsOf(op->getOperand(input)),
                                        /*elementwiseInPlace=*/true);
    if (failed(b))
      return failure();
    outs[result] = *b;
    return success();
  };

  if (type == "sgd") { // Param, LearningRate, Grad
    emit("sgd", {in(0), in(2), in(1)}, {outs[0]});
    return success();
  }
  if (type == "momentum") { // Param, Grad, Velocity, LearningRate
    if (failed(state(1, 2)))
      return failure();
    double coeff =
        attrs.getString("regularization_method") == "l2_decay" ? attrs.getFloat("regularization_coeff") : 0;
    if (attrs.getFloat("rescale_grad") != 1.0)
      return error(op) << "momentum with rescale_grad != 1 is not supported";
    emit("momentum", {in(0), in(1), in(2), in(3)}, {outs[0], outs[1]},
         {AttrDesc::ofFloat("mu", attrs.getFloat("mu")),
          AttrDesc::ofInt("use_nesterov", attrs.getBool("use_nesterov")),
          AttrDesc::ofFloat("regularization_coeff", coeff)});
    return success();
  }
  // adam / adamw: Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow
  for (unsigned r = 1; r < 5; ++r)
    if (failed(state(r, r + 2)))
      return failure();
  if (attrs.getBool("lazy_mode"))
    return error(op) << "adam lazy_mode (sparse updates) is not supported";
  std::vector<AttrDesc> kernelAttrs = {AttrDesc::ofFloat("beta1", attrs.getFloat("beta1")),
                                       AttrDesc::ofFloat("beta2", attrs.getFloat("beta2")),
                                       AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon"))};
  if (type == "adamw" && attrs.getBool("with_decay")) {
    kernelAttrs.push_back(
        AttrDesc::ofFloat("weight_decay", attrs.getFloat("coeff") * attrs.getFloat("lr_ratio")));
    kernelAttrs.push_back(AttrDesc::ofInt("decoupled", 1));
  }
  emit("adam", {in(0), in(1), in(3), in(4), in(5), in(6), in(2)}, outs, kernelAttrs);
  return success();
}

LogicalResult ProgramLowering::lowerMergedOptimizer(Operation *op) {
  StringRef type = op->getName().stripDialect();
  pd::OpAttributes attrs(op);
  // Every slot holds one tensor per parameter (SameVariadicOperandSize);
  // the catalog names them.
  const pd::OpSpec &spec = *pd::lookupOp(std::string_view(type.data(), type.size()));
  auto slotIndex = [&](std::string_view name) -> unsigned {
    for (auto [i, input] : llvm::enumerate(spec.inputs))
      if (input.name == name)
        return unsigned(i);
    llvm_unreachable("a merged optimizer without the slot");
  };
  const unsigned numSlots = spec.inputs.size();
  const unsigned n = op->getNumOperands() / numSlots;
  auto slot = [&](unsigned s) { return op->getOperands().slice(s * n, n); };
  const unsigned lrSlot = slotIndex("LearningRate");
  Value lr = slot(lrSlot).front();
  for (Value other : slot(lrSlot))
    if (bufferOf(other) != bufferOf(lr))
      return error(op) << "the parameters have different learning rates ("
                       << nameOf(lr) << ", " << nameOf(other)
                       << "); one multi-tensor update takes one";
  for (Value g : slot(slotIndex("Grad")))
    if (isRowSparse(g))
      return error(op) << "gradient " << nameOf(g)
                       << " is row-sparse; a merged update takes dense gradients";
  // Operands: the kernel's order is the op's slots but the learning rate,
  // then one lr; the results follow the op's (ParamOut, then each state's
  // Out).
  std::vector<int32_t> inputs;
  for (unsigned s = 0; s < numSlots; ++s)
    if (s != lrSlot)
      for (Value v : slot(s))
        inputs.push_back(bufferOf(v));
  inputs.push_back(bufferOf(lr));
  // Result slot `XOut` holds the new values of input slot `X`, in place.
  std::vector<int32_t> outputs;
  for (auto [r, result] : llvm::enumerate(op->getResults())) {
    std::string_view out = spec.outputs[r / n].name;
    Value source = slot(slotIndex(out.substr(0, out.size() - 3)))[r % n];
    FailureOr<int32_t> b =
        defineResult(result, dimsOf(source), /*elementwiseInPlace=*/true);
    if (failed(b))
      return failure();
    outputs.push_back(*b);
  }
  std::vector<AttrDesc> kernelAttrs = {AttrDesc::ofInt("count", n)};
  if (type == "merged_adam") {
    kernelAttrs.push_back(AttrDesc::ofFloat("beta1", attrs.getFloat("beta1")));
    kernelAttrs.push_back(AttrDesc::ofFloat("beta2", attrs.getFloat("beta2")));
    kernelAttrs.push_back(AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon")));
    if (attrs.getBool("decoupled")) {
      kernelAttrs.push_back(AttrDesc::ofInt("decoupled", 1));
      kernelAttrs.push_back(AttrDesc::ofFloat("weight_decay", attrs.getFloat("weight_decay")));
    }
  } else if (type == "merged_momentum") {
    std::vector<std::string> methods = attrs.getStrings("regularization_method");
    std::vector<double> coeffs = attrs.getFloats("regularization_coeff");
    double coeff = 0;
    for (size_t i = 0; i < methods.size(); ++i) {
      double c = methods[i] == "l2_decay" && i < coeffs.size() ? coeffs[i] : 0;
      if (i > 0 && c != coeff)
        return error(op) << "the parameters have different L2 coefficients; one "
                            "multi-tensor update takes one";
      coeff = c;
    }
    if (attrs.getFloat("rescale_grad") != 1.0)
      return error(op) << "merged_momentum with rescale_grad != 1 is not supported";
    kernelAttrs.push_back(AttrDesc::ofFloat("mu", attrs.getFloat("mu")));
    kernelAttrs.push_back(AttrDesc::ofInt("use_nesterov", attrs.getBool("use_nesterov")));
    kernelAttrs.push_back(AttrDesc::ofFloat("regularization_coeff", coeff));
  }
  emit(type.str(), std::move(inputs), std::move(outputs), std::move(kernelAttrs));
  return success();
}

LogicalResult ProgramLowering::lowerAdagrad(Operation *op) {
  // adagrad and decayed_adagrad: Param, Grad, Moment, LearningRate.
  pd::OpAttributes attrs(op);
  FailureOr<int32_t> paramOut = defineUpdated(*this, op->getResult(0), op->getOperand(0));
  FailureOr<int32_t> momentOut = defineUpdated(*this, op->getResult(1), op->getOperand(2));
  if (failed(paramOut) || failed(momentOut))
    return failure();
  std::vector<AttrDesc> kernelAttrs = {AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon"))};
  if (isa<pd::DecayedAdagradOp>(op)) {
    kernelAttrs.push_back(AttrDesc::ofFloat("decay", attrs.getFloat("decay")));
    kernelAttrs.push_back(AttrDesc::ofInt("decayed", 1));
  }
  emit("adagrad",
       {bufferOf(op->getOperand(0)), bufferOf(op->getOperand(1)), bufferOf(op->getOperand(2)),
        bufferOf(op->getOperand(3))},
       {*paramOut, *momentOut}, kernelAttrs);
  return success();
}

LogicalResult ProgramLowering::lowerRmsprop(Operation *op) {
  auto rms = cast<pd::RmspropOp>(op);
  pd::OpAttributes attrs(op);
  bool centered = attrs.getBool("centered");
  Value meanGrad = rms.getMeanGrad();
  // Inference refused a centered op without MeanGrad. Not centered, the
  // kernel carries MeanGrad over to MeanGradOut, which needs MeanGrad.
  if (!meanGrad && isNeeded(rms.getMeanGradOut()))
    return error(op) << "output slot 'MeanGradOut' of rmsprop is used, but input slot "
                        "'MeanGrad' is not given";
  FailureOr<int32_t> paramOut = defineUpdated(*this, rms.getParamOut(), rms.getParam());
  FailureOr<int32_t> momentOut = defineUpdated(*this, rms.getMomentOut(), rms.getMoment());
  FailureOr<int32_t> meanSquareOut =
      defineUpdated(*this, rms.getMeanSquareOut(), rms.getMeanSquare());
  if (failed(paramOut) || failed(momentOut) || failed(meanSquareOut))
    return failure();
  std::vector<int32_t> inputs = {bufferOf(rms.getParam()), bufferOf(rms.getGrad()),
                                 bufferOf(rms.getMoment()), bufferOf(rms.getMeanSquare()),
                                 bufferOf(rms.getLearningRate())};
  std::vector<int32_t> outputs = {*paramOut, *momentOut, *meanSquareOut};
  if (meanGrad && (centered || isNeeded(rms.getMeanGradOut()))) {
    FailureOr<int32_t> meanGradOut = defineUpdated(*this, rms.getMeanGradOut(), meanGrad);
    if (failed(meanGradOut))
      return failure();
    inputs.push_back(bufferOf(meanGrad));
    outputs.push_back(*meanGradOut);
  }
  emit("rmsprop", inputs, outputs,
       {AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon")),
        AttrDesc::ofFloat("decay", attrs.getFloat("decay")),
        AttrDesc::ofFloat("momentum", attrs.getFloat("momentum")),
        AttrDesc::ofInt("centered", centered)});
  return success();
}

LogicalResult ProgramLowering::lowerFtrl(Operation *op) {
  auto ftrl = cast<pd::FtrlOp>(op);
  pd::OpAttributes attrs(op);
  FailureOr<int32_t> paramOut = defineUpdated(*this, ftrl.getParamOut(), ftrl.getParam());
  FailureOr<int32_t> squaredOut =
      defineUpdated(*this, ftrl.getSquaredAccumOut(), ftrl.getSquaredAccumulator());
  FailureOr<int32_t> linearOut =
      defineUpdated(*this, ftrl.getLinearAccumOut(), ftrl.getLinearAccumulator());
  if (failed(paramOut) || failed(squaredOut) || failed(linearOut))
    return failure();
  emit("ftrl",
       {bufferOf(ftrl.getParam()), bufferOf(ftrl.getGrad()), bufferOf(ftrl.getSquaredAccumulator()),
        bufferOf(ftrl.getLinearAccumulator()), bufferOf(ftrl.getLearningRate())},
       {*paramOut, *squaredOut, *linearOut},
       {AttrDesc::ofFloat("l1", attrs.getFloat("l1")),
        AttrDesc::ofFloat("l2", attrs.getFloat("l2")),
        AttrDesc::ofFloat("lr_power", attrs.getFloat("lr_power"))});
  return success();
}

} // namespace distc::target
