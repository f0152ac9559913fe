//===- ElementwiseRules.cpp - SPMD rules of element-wise ops --------------===//
//
// Element-wise ops compute each output element from the input elements at
// the same (broadcast) position, so a tensor axis may be split by any mesh
// axis as long as every operand is split the same way there
// (paddle/phi/infermeta/spmd_rules/elementwise.cc):
//
//  * unary ops (`relu`, `scale`, `clip`, ...): the output takes the input's
//    dims_mapping; a partial input is made whole first, as a non-linear
//    function of partial sums is not the function of their total. `cast`
//    alone keeps the input's partial status (Paddle's
//    ElementwiseUnaryWithPartialInferSpmd): casting commutes with the sum.
//  * binary ops (`add`, `maximum`, `greater_than`, ...): the operands are
//    aligned from the right (or, for a fluid program op, at its `axis`), an
//    axis of size 1 broadcasts and stays replicated (Paddle's '1' letter),
//    and the other axes merge with Paddle's conflict rules (AxisSharding.h).
//  * `add_n` (the fluid `sum` op) merges all its inputs; it keeps a partial
//    status only when every input has the same one (a sum of partial sums is
//    a partial sum).
//  * gradients: the gradient of a unary op follows out_grad; that of a
//    binary op follows out_grad too, except that an input broadcast to the
//    output has its gradient summed over the broadcast axes, which leaves it
//    partial (sum) over the mesh axes that split them.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cstdlib>
#include <deque>

namespace distc::sharding::detail {
namespace {

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

/// The dims_mapping a unary op's operand and result share, from `spec`.
llvm::Expected<std::vector<int64_t>> unaryMapping(const SpmdCall &call, const DistTensorSpec &spec,
                                                  llvm::StringRef what) {
  auto axes = axesOfRank(call, spec.rank(), what);
  if (!axes)
    return axes.takeError();
  auto merged = mergeShardings(call, {{*axes, spec.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  return mappingFor(*axes, *merged);
}

/// Paddle's ElementwiseUnaryInferSpmd: x and out share x's dims_mapping, no
/// partial status.
llvm::Expected<SpmdInfo> inferUnary(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  auto mapping = unaryMapping(call, call.inputs[0], "x");
  if (!mapping)
    return mapping.takeError();
  return SpmdInfo{{makeDistAttr(*mapping)}, {makeDistAttr(*mapping)}};
}

/// Paddle's ElementwiseUnaryInferSpmdReverse: both take out's dims_mapping.
llvm::Expected<SpmdInfo> inferUnaryReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  if (out.rank() != x.rank())
    return spmdError(call, "out has " + llvm::Twine(out.rank()) + " axes, x " +
                               llvm::Twine(x.rank()) + "; an element-wise op keeps the rank");
  auto mapping = unaryMapping(call, out, "out");
  if (!mapping)
    return mapping.takeError();
  return SpmdInfo{{makeDistAttr(*mapping)}, {makeDistAttr(*mapping)}};
}

/// `cast` (Paddle's ElementwiseUnaryWithPartialInferSpmd): as a unary op, but
/// x and out keep x's partial status -- a cast of partial sums sums to the
/// cast of their total (up to rounding, which Paddle accepts too).
llvm::Expected<SpmdInfo> inferUnaryWithPartial(const SpmdCall &call) {
  auto info = inferUnary(call);
  if (!info)
    return info.takeError();
  info->inputs[0].partial = call.inputs[0].dist.partial;
  info->outputs[0].partial = call.inputs[0].dist.partial;
  return info;
}

/// Paddle's ElementwiseUnaryGradInferSpmd, for any number of forward values
/// (x, out, ...) before out_grad: every input and x_grad take out_grad's
/// dims_mapping without its partial status.
llvm::Expected<SpmdInfo> inferUnaryGrad(const SpmdCall &call) {
  if (call.inputs.empty())
    return spmdError(call, "takes the forward values and out_grad, got no inputs");
  const DistTensorSpec &outGrad = call.inputs.back();
  for (size_t i = 0; i + 1 < call.inputs.size(); ++i)
    if (call.inputs[i].rank() != outGrad.rank())
      return spmdError(call, "input " + llvm::Twine(i) + " has " +
                                 llvm::Twine(call.inputs[i].rank()) + " axes, out_grad " +
                                 llvm::Twine(outGrad.rank()) +
                                 "; an element-wise gradient keeps the rank");
  TensorDistAttr attr = makeDistAttr(outGrad.dist.dimsMapping);
  SpmdInfo info;
  info.inputs.assign(call.inputs.size(), attr);
  info.outputs.push_back(attr);
  return info;
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

/// Where each operand's axes sit among the output's: Paddle's broadcast
/// aligns the shorter operand with the trailing axes of the longer one, or,
/// for a fluid program op whose `axis` is not -1, from axis `axis` of the
/// longer one (the phi ops have no `axis`; it defaults to -1).
struct BinaryLayout {
  int64_t outRank = 0;
  int64_t xOffset = 0, yOffset = 0;
};

llvm::Expected<BinaryLayout> binaryLayout(const SpmdCall &call, int64_t xRank, int64_t yRank) {
  BinaryLayout layout;
  layout.outRank = std::max(xRank, yRank);
  if (layout.outRank > static_cast<int64_t>(kAlphabet.size()))
    return spmdError(call, "operands of " + llvm::Twine(layout.outRank) + " axes; at most " +
                               llvm::Twine(kAlphabet.size()) + " are supported");
  int64_t axis = call.attrs.getInt("axis", -1);
  int64_t start = axis == -1 ? std::abs(xRank - yRank) : axis;
  if (start < 0 || start > layout.outRank)
    return spmdError(call, "axis " + llvm::Twine(axis) + " is out of range for x of rank " +
                               llvm::Twine(xRank) + " and y of rank " + llvm::Twine(yRank));
  int64_t shorter = std::min(xRank, yRank);
  if (xRank != yRank && start + shorter > layout.outRank)
    return spmdError(call, "axis " + llvm::Twine(axis) + " places " + (xRank < yRank ? "x" : "y") +
                               " of rank " + llvm::Twine(shorter) + " past the end of " +
                               (xRank < yRank ? "y" : "x") + " of rank " +
                               llvm::Twine(layout.outRank));
  if (xRank < yRank)
    layout.xOffset = start;
  else if (yRank < xRank)
    layout.yOffset = start;
  return layout;
}

/// The einsum notation of a binary op (Paddle's GetBinaryNotations): output
/// axis i is letter i; an operand's axis of size 1 is '1', and so is an
/// output axis every operand broadcasts along.
struct BinaryNotation {
  std::string x, y, out;
};

BinaryNotation binaryNotation(const BinaryLayout &layout, llvm::ArrayRef<int64_t> xShape,
                              llvm::ArrayRef<int64_t> yShape) {
  BinaryNotation n;
  std::vector<int> broadcastCount(static_cast<size_t>(layout.outRank), 0);
  auto operandAxes = [&](llvm::ArrayRef<int64_t> shape, int64_t offset) {
    std::string axes;
    for (int64_t i = 0; i < layout.outRank; ++i) {
      int64_t local = i - offset;
      if (local < 0 || local >= static_cast<int64_t>(shape.size())) {
        ++broadcastCount[i];
      } else if (shape[local] == 1) {
        ++broadcastCount[i];
        axes += kSizeOneAxis;
      } else {
        axes += kAlphabet[i];
      }
    }
    return axes;
  };
  n.x = operandAxes(xShape, layout.xOffset);
  n.y = operandAxes(yShape, layout.yOffset);
  for (int64_t i = 0; i < layout.outRank; ++i)
    n.out += broadcastCount[i] == 2 ? kSizeOneAxis : kAlphabet[i];
  return n;
}

/// Paddle's ElementwiseBinaryInferSpmd on x and y: the merged shardings,
/// no partial status.
llvm::Expected<SpmdInfo> binaryForward(const SpmdCall &call, const DistTensorSpec &x,
                                       const DistTensorSpec &y) {
  auto layout = binaryLayout(call, x.rank(), y.rank());
  if (!layout)
    return layout.takeError();
  BinaryNotation n = binaryNotation(*layout, x.shape, y.shape);
  auto merged = mergeShardings(call, {{n.x, x.dist.dimsMapping}, {n.y, y.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mappingWithSizeOne(n.x, *merged)));
  info.inputs.push_back(makeDistAttr(mappingWithSizeOne(n.y, *merged)));
  info.outputs.push_back(makeDistAttr(mappingWithSizeOne(n.out, *merged)));
  return info;
}

llvm::Expected<SpmdInfo> inferBinary(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  return binaryForward(call, call.inputs[0], call.inputs[1]);
}

/// Paddle's ElementwiseBinaryInferSpmdReverse: x and y from out's
/// dims_mapping; out keeps its dims_mapping.
llvm::Expected<SpmdInfo> inferBinaryReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &y = call.inputs[1], &out = call.outputs[0];
  auto layout = binaryLayout(call, x.rank(), y.rank());
  if (!layout)
    return layout.takeError();
  if (out.rank() != layout->outRank)
    return spmdError(call, "out has " + llvm::Twine(out.rank()) + " axes; x and y broadcast to " +
                               llvm::Twine(layout->outRank));
  BinaryNotation n = binaryNotation(*layout, x.shape, y.shape);
  auto merged = mergeShardings(call, {{n.out, out.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mappingWithSizeOne(n.x, *merged)));
  info.inputs.push_back(makeDistAttr(mappingWithSizeOne(n.y, *merged)));
  info.outputs.push_back(makeDistAttr(out.dist.dimsMapping));
  return info;
}

/// The dist attrs of an operand broadcast to out_grad (at `offset`) and of
/// its gradient: out_grad's dims_mapping at the operand's axes, replicated
/// where the operand has size 1; the gradient is summed over every other
/// axis of out_grad (the broadcast ones), so it is partial (sum) over the
/// mesh axes splitting them. Generalizes reduceGradBroadcastDims to the
/// fluid `axis`, which may leave broadcast axes after the operand's too.
std::pair<TensorDistAttr, TensorDistAttr>
broadcastGrad(const DistTensorSpec &operand, int64_t offset, const DistTensorSpec &outGrad) {
  const std::vector<int64_t> &gradMapping = outGrad.dist.dimsMapping;
  std::vector<int64_t> mapping;
  std::vector<int64_t> partial;
  for (int64_t i = 0; i < outGrad.rank(); ++i) {
    int64_t meshDim = gradMapping[i];
    int64_t local = i - offset;
    bool inOperand = local >= 0 && local < operand.rank();
    bool summed = !inOperand || (operand.shape[local] == 1 && outGrad.shape[i] != 1);
    if (inOperand)
      mapping.push_back(operand.shape[local] == 1 ? kReplicated : meshDim);
    if (summed && meshDim != kReplicated)
      partial.push_back(meshDim);
  }
  return {makeDistAttr(mapping), makeDistAttr(mapping, partial)};
}

/// Paddle's ElementwiseBinaryGradInferSpmd: inputs (x, y, out_grad) or
/// (x, y, out, out_grad), outputs (x_grad, y_grad). Everything follows
/// out_grad (without its partial status); see broadcastGrad.
llvm::Expected<SpmdInfo> inferBinaryGrad(const SpmdCall &call) {
  if (call.inputs.size() != 3 && call.inputs.size() != 4)
    return spmdError(call, "takes x, y, [out,] out_grad: 3 or 4 inputs, got " +
                               llvm::Twine(call.inputs.size()));
  const DistTensorSpec &x = call.inputs[0], &y = call.inputs[1], &outGrad = call.inputs.back();
  auto layout = binaryLayout(call, x.rank(), y.rank());
  if (!layout)
    return layout.takeError();
  if (outGrad.rank() != layout->outRank)
    return spmdError(call, "out_grad has " + llvm::Twine(outGrad.rank()) +
                               " axes; x and y broadcast to " + llvm::Twine(layout->outRank));
  auto [xAttr, xGrad] = broadcastGrad(x, layout->xOffset, outGrad);
  auto [yAttr, yGrad] = broadcastGrad(y, layout->yOffset, outGrad);
  TensorDistAttr gradAttr = makeDistAttr(outGrad.dist.dimsMapping);
  SpmdInfo info;
  info.inputs = {xAttr, yAttr};
  if (call.inputs.size() == 4)
    info.inputs.push_back(gradAttr); // out
  info.inputs.push_back(gradAttr);
  info.outputs = {xGrad, yGrad};
  return info;
}

//===----------------------------------------------------------------------===//
// add_n, dropout
//===----------------------------------------------------------------------===//

/// Paddle's AddNInferSpmd: every input and the output take the merged
/// dims_mapping, and the partial status all inputs share (none unless every
/// input has the same one).
llvm::Expected<SpmdInfo> inferAddN(const SpmdCall &call) {
  if (call.inputs.empty())
    return spmdError(call, "takes at least one input, got none");
  const DistTensorSpec &first = call.inputs.front();
  auto axes = axesOfRank(call, first.rank(), "input 0");
  if (!axes)
    return axes.takeError();
  std::vector<AxisTensor> tensors;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (call.inputs[i].rank() != first.rank())
      return spmdError(call, "input " + llvm::Twine(i) + " has " +
                                 llvm::Twine(call.inputs[i].rank()) + " axes, input 0 " +
                                 llvm::Twine(first.rank()) + "; add_n adds tensors of one shape");
    tensors.push_back({*axes, call.inputs[i].dist.dimsMapping});
  }
  auto merged = mergeShardings(call, tensors);
  if (!merged)
    return merged.takeError();
  TensorDistAttr attr = makeDistAttr(mappingFor(*axes, *merged));
  bool samePartial = std::all_of(call.inputs.begin(), call.inputs.end(), [&](const auto &input) {
    return input.dist.isPartial() && input.dist.partial == first.dist.partial;
  });
  if (samePartial)
    attr.partial = first.dist.partial;
  SpmdInfo info;
  info.inputs.assign(call.inputs.size(), attr);
  info.outputs.push_back(attr);
  return info;
}

/// Paddle's DropoutFwdInferSpmd: Out and Mask both take x's dims_mapping (a
/// unary op; distc's dropout takes no Seed tensor).
llvm::Expected<SpmdInfo> inferDropout(const SpmdCall &call) {
  auto info = inferUnary(call);
  if (!info)
    return info.takeError();
  info->outputs.push_back(info->outputs[0]);
  return info;
}

/// From Out (and Mask, when given, which must agree): the unary reverse.
llvm::Expected<SpmdInfo> inferDropoutReverse(const SpmdCall &call) {
  if (call.outputs.size() != 1 && call.outputs.size() != 2)
    return spmdError(call, "reverse inference takes out and optionally mask, got " +
                               llvm::Twine(call.outputs.size()) + " outputs");
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  SpmdCall outOnly = call;
  outOnly.outputs.resize(1);
  auto info = inferUnaryReverse(outOnly);
  if (!info)
    return info.takeError();
  if (call.outputs.size() == 2) {
    if (call.outputs[1].dist.dimsMapping != info->outputs[0].dimsMapping)
      return spmdError(call, "mask " + call.outputs[1].dist.str() + " is not laid out as out " +
                                 call.outputs[0].dist.str());
    info->outputs.push_back(info->outputs[0]);
  }
  return info;
}

/// Paddle's DropoutBwdInferSpmd: (mask, out_grad) merge as a binary op.
llvm::Expected<SpmdInfo> inferDropoutGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  SpmdCall aligned = call;
  aligned.attrs = SpmdAttrs(); // mask and out_grad have one shape: no axis
  return binaryForward(aligned, call.inputs[0], call.inputs[1]);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

// Paddle's rules.cc registers these with ElementwiseUnaryInferSpmd (and its
// reverse); scale, clip and gelu have rules of their own that call it.
// label_smooth, also registered so there, has a rule of its own
// (label_smooth.cc) outside this family; dropout has its own below.
// clang-format off
constexpr std::string_view kUnaryRules[] = {
    "acos", "acosh", "asin", "asinh", "assign", "atan",
    "atanh", "bernoulli", "bitwise_not", "ceil", "celu", "clip",
    "conj", "cos", "cosh", "digamma", "elementwise_unary", "elu",
    "erf", "erfinv", "exp", "expm1", "fill", "floor",
    "gelu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu",
    "lgamma", "log", "log10", "log1p", "log2", "logical_not",
    "logit", "logsigmoid", "mish", "poisson", "pow", "reciprocal",
    "relu", "relu6", "round", "rsqrt", "scale", "selu",
    "sigmoid", "sign", "silu", "sin", "sinh", "softplus",
    "softshrink", "softsign", "sqrt", "square", "stanh", "swish",
    "tan", "tanh", "tanh_shrink", "thresholded_relu", "trunc",
};
// clang-format on

// Unary ops without a gradient of their own: random and logical ops, fill,
// and scale and assign, whose gradients are scale and assign.
constexpr std::string_view kUnaryWithoutGrad[] = {"assign",      "bernoulli", "bitwise_not", "fill",
                                                  "logical_not", "poisson",   "scale"};

// Paddle's ElementwiseBinaryInferSpmd names. elementwise_add, elementwise_mul
// and elementwise_div, which Paddle also registers for its static programs,
// are distc program ops: they reach add/multiply/divide through their
// declarations, which also bring the fluid `axis`.
// clang-format off
constexpr std::string_view kBinaryRules[] = {
    "add", "bitwise_and", "bitwise_or", "bitwise_xor", "divide", "elementwise_binary",
    "elementwise_pow", "floor_divide", "fmax", "fmin", "greater_than", "heaviside",
    "less_than", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
    "multiply", "not_equal", "remainder", "subtract",
};
// clang-format on

// The binary ops with a gradient (ElementwiseBinaryGradInferSpmd).
constexpr std::string_view kBinaryWithGrad[] = {
    "add",       "divide",  "elementwise_pow", "fmax",     "fmin",
    "heaviside", "maximum", "minimum",         "multiply", "subtract"};

/// `<rule>_grad`, kept alive for the registry's string_views (a deque
/// never moves its elements).
std::string_view gradName(std::string_view rule) {
  static std::deque<std::string> names;
  return names.emplace_back(std::string(rule) + "_grad");
}

} // namespace

void appendElementwiseRules(std::vector<SpmdRule> &rules) {
  for (std::string_view name : kUnaryRules) {
    rules.push_back({name, inferUnary, inferUnaryReverse, 1});
    if (std::find(std::begin(kUnaryWithoutGrad), std::end(kUnaryWithoutGrad), name) ==
        std::end(kUnaryWithoutGrad))
      rules.push_back({gradName(name), inferUnaryGrad, nullptr, -1});
  }
  for (std::string_view name : kBinaryRules)
    rules.push_back({name, inferBinary, inferBinaryReverse, 1});
  for (std::string_view name : kBinaryWithGrad)
    rules.push_back({gradName(name), inferBinaryGrad, nullptr, -1});
  rules.push_back({"cast", inferUnaryWithPartial, inferUnaryReverse, 1});
  rules.push_back({"add_n", inferAddN, nullptr, -1});
  rules.push_back({"dropout", inferDropout, inferDropoutReverse, -1});
  rules.push_back({"dropout_grad", inferDropoutGrad, nullptr, -1});
}

} // namespace distc::sharding::detail
