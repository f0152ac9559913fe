//===- LowerOptimizer.cpp - optimizer ops to update kernels ---------------===//
//
// Each `<S>Out` result is usually written back to S's persistable variable
// by a `pd.write_var`; defineResult then binds it to that variable's
// persistent buffer, so the kernel updates parameters and state in place.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

using namespace mlir;

namespace distc::target {

LogicalResult ProgramLowering::lowerOptimizer(Operation *op) {
  StringRef type = op->getName().getStringRef();
  type.consume_front("pd.");
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

} // namespace distc::target
