//===- TrainingRules.cpp - Backward, accumulation and optimizer ops -------===//
//
// A gradient has the type of what it is the gradient of, so the backward
// rules mostly copy: `S@GRAD` takes the type of input S (the forward value
// the backward op receives). reshape2/transpose2 receive XShape instead of
// X and recover X's dims from it. Optimizer outputs `<S>Out` take input S's
// type, after checking that Param and Grad agree (ftrl abbreviates: its
// `SquaredAccumOut` updates `SquaredAccumulator`).
//
//===----------------------------------------------------------------------===//

#include "Inference/InferContext.h"

#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include "llvm/ADT/StringRef.h"

using namespace mlir;

namespace distc::pd::infer {
namespace {

std::optional<unsigned> inputSlot(InferContext &c, StringRef name) {
  const OpSpec &spec = c.getSpec();
  for (unsigned i = 0; i < spec.inputs.size(); ++i)
    if (spec.inputs[i].name == std::string_view(name.data(), name.size()))
      return i;
  return std::nullopt;
}

/// The forward slot an `S@GRAD` output is the gradient of, and the input
/// slot that carries a value of that type.
std::optional<unsigned> typeSourceOf(InferContext &c, StringRef gradSlot) {
  StringRef forward = gradSlot;
  if (!forward.consume_back("@GRAD"))
    return std::nullopt;
  if (auto slot = inputSlot(c, forward))
    return slot;
  // Activation grads receive Out instead of X; both have one type. Dropout's
  // receives neither, only Out@GRAD (its Mask is uint8).
  if (forward == "X") {
    if (auto slot = inputSlot(c, "Out"))
      return slot;
    if (auto slot = inputSlot(c, "Out@GRAD"))
      return slot;
  }
  // Cross entropy: the logits gradient has the softmax's type.
  if (forward == "Logits")
    return inputSlot(c, "Softmax");
  return std::nullopt;
}

} // namespace

LogicalResult inferGrad(InferContext &c) {
  const OpSpec &spec = c.getSpec();
  StringRef type(spec.type.data(), spec.type.size());
  for (unsigned out = 0; out < spec.outputs.size(); ++out) {
    StringRef name(spec.outputs[out].name.data(), spec.outputs[out].name.size());
    if (type == "reshape2_grad" || type == "transpose2_grad") {
      // XShape is [0] ++ X.dims.
      RankedTensorType xshape = c.input(0), dout = c.input(1);
      if (xshape.getRank() < 1)
        return c.error() << "input 'XShape' must have rank >= 1, got " << xshape;
      c.setResult(out, xshape.getShape().drop_front(), dout.getElementType());
      continue;
    }
    std::optional<unsigned> source = typeSourceOf(c, name);
    if (!source)
      return c.error() << "no forward input for gradient output '" << name << "'";
    if (spec.outputs[out].variadic) {
      for (RankedTensorType t : c.inputs(*source))
        c.addResult(out, t.getShape(), t.getElementType());
      continue;
    }
    RankedTensorType t = c.input(*source);
    if (!t) {
      // layer_norm without Scale/Bias: the (unused) gradient still has
      // their shape, the normalized part of X flattened.
      RankedTensorType x = c.input(0);
      int64_t axis = std::clamp<int64_t>(c.getInt("begin_norm_axis"), 0, x.getRank());
      t = RankedTensorType::get({product(x.getShape().drop_front(axis))}, x.getElementType());
    }
    c.setResult(out, t);
  }
  return success();
}

/// The input slot an optimizer output `<S>Out` is the new value of: S, or
/// the one input slot whose name S begins (ftrl's `SquaredAccum`).
static std::optional<unsigned> updatedSlot(InferContext &c, StringRef output) {
  StringRef stem = output;
  if (!stem.consume_back("Out"))
    return std::nullopt;
  if (std::optional<unsigned> exact = inputSlot(c, stem))
    return exact;
  std::optional<unsigned> found;
  const OpSpec &spec = c.getSpec();
  for (unsigned i = 0; i < spec.inputs.size(); ++i)
    if (StringRef(spec.inputs[i].name.data(), spec.inputs[i].name.size()).starts_with(stem)) {
      if (found)
        return std::nullopt;
      found = i;
    }
  return found;
}

LogicalResult inferOptimizer(InferContext &c) {
  const OpSpec &spec = c.getSpec();
  auto param = inputSlot(c, "Param"), grad = inputSlot(c, "Grad");
  if (param && grad) {
    RankedTensorType p = c.input(*param), g = c.input(*grad);
    if (p.getShape() != g.getShape() || p.getElementType() != g.getElementType())
      return c.error() << "Param " << p << " and Grad " << g << " must have one type";
  }
  for (unsigned out = 0; out < spec.outputs.size(); ++out) {
    StringRef name(spec.outputs[out].name.data(), spec.outputs[out].name.size());
    std::optional<unsigned> source = updatedSlot(c, name);
    if (!source)
      return c.error() << "output '" << spec.outputs[out].name << "' updates no input";
    RankedTensorType type = c.input(*source);
    // The new value of an absent optional state (rmsprop's MeanGradOut
    // without MeanGrad) is the parameter's shape, as Paddle declares it.
    if (!type && param)
      type = c.input(*param);
    if (!type)
      return c.error() << "output '" << spec.outputs[out].name << "' updates no input";
    c.setResult(out, type);
  }
  return success();
}

/// merged_adam, merged_momentum, merged_sgd: every slot holds one tensor
/// per parameter, and `<S>Out` element i has the type of S element i.
LogicalResult inferMergedOptimizer(InferContext &c) {
  const OpSpec &spec = c.getSpec();
  auto param = inputSlot(c, "Param"), grad = inputSlot(c, "Grad");
  if (!param || !grad)
    return c.error() << "has no Param or Grad slot";
  SmallVector<RankedTensorType> params = c.inputs(*param);
  for (unsigned slot = 0; slot < spec.inputs.size(); ++slot)
    if (c.inputs(slot).size() != params.size())
      return c.error() << "input slot '" << spec.inputs[slot].name << "' holds "
                       << c.inputs(slot).size() << " tensors for " << params.size()
                       << " parameters";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(params, c.inputs(*grad)))) {
    auto [p, g] = pair;
    if (p.getShape() != g.getShape() || p.getElementType() != g.getElementType())
      return c.error() << "Param " << i << " " << p << " and Grad " << i << " " << g
                       << " must have one type";
  }
  for (unsigned out = 0; out < spec.outputs.size(); ++out) {
    StringRef name(spec.outputs[out].name.data(), spec.outputs[out].name.size());
    std::optional<unsigned> source = updatedSlot(c, name);
    if (!source)
      return c.error() << "output '" << name << "' updates no input";
    for (RankedTensorType type : c.inputs(*source))
      c.addResult(out, type);
  }
  return success();
}

LogicalResult inferRmsprop(InferContext &c) {
  std::optional<unsigned> meanGrad = inputSlot(c, "MeanGrad");
  if (c.getBool("centered") && meanGrad && !c.input(*meanGrad))
    return c.error() << "centered RMSProp needs input slot 'MeanGrad' (the moving average of "
                        "the gradient)";
  return inferOptimizer(c);
}

LogicalResult inferSum(InferContext &c) {
  SmallVector<RankedTensorType> xs = c.inputs(0);
  for (RankedTensorType t : xs)
    if (t.getElementType() != xs.front().getElementType() ||
        failed(verifyCompatibleShape(t.getShape(), xs.front().getShape())))
      return c.error() << "inputs 'X' must have one shape and dtype, got " << xs.front()
                       << " and " << t;
  c.setResult(0, xs.front());
  return success();
}

LogicalResult inferSquaredL2Norm(InferContext &c) {
  c.setResult(0, {1}, c.input(0).getElementType());
  return success();
}

// delete_var: frees its inputs and has no result; any tensor may go.
LogicalResult inferDeleteVar(InferContext &c) {
  if (c.inputs(0).empty())
    return c.error() << "input slot 'X' names no variable to delete";
  return success();
}

} // namespace distc::pd::infer
