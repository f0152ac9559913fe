//===- ReshapeRules.cpp - SPMD rules of reshapes and transposes -----------===//
//
// reshape, flatten, squeeze, unsqueeze and transpose, and their gradients:
// views of X with its axes regrouped or permuted. The regrouping views'
// shardings follow Paddle's DimTrans (ViewSharding.h). The program ops
// reshape2, squeeze2, unsqueeze2, flatten_contiguous_range and transpose2
// also write XShape: they use the *_with_xshape rules, which add it. Their
// gradient ops take XShape in X's place: the grad rules recognise it by its
// leading 0 (Paddle's own convention in InferFromDimTrans) and read X's
// shape and dims_mapping behind it.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"
#include "ViewSharding.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <map>
#include <numeric>

namespace distc::sharding::detail {
namespace {

/// The answer of a view rule from its dim_trans `mappings`: a forward rule's
/// go from X to Out, a reverse rule's from Out to X. Both tensors take
/// `partial` (a view is linear; rules that drop partial status pass none),
/// and XShape is added when the op has it.
SpmdInfo viewInfo(const SpmdCall &call, const ViewMappings &mappings, bool reverse, bool withXShape,
                  const std::map<int64_t, ReduceType> &partial = {}) {
  TensorDistAttr xDist, outDist;
  xDist.dimsMapping = reverse ? mappings.output : mappings.input;
  outDist.dimsMapping = reverse ? mappings.input : mappings.output;
  xDist.partial = outDist.partial = partial;
  SpmdInfo info;
  info.inputs.push_back(std::move(xDist));
  info.outputs.push_back(std::move(outDist));
  if (withXShape)
    addXShape(call, reverse, info);
  return info;
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

/// Out keeps X's partial status: a reshape is linear.
llvm::Expected<SpmdInfo> reshapeForward(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto mappings =
      reshapeMappings(call, x.shape, x.dist.dimsMapping, call.attrs.getInts("shape", {}));
  if (!mappings)
    return mappings.takeError();
  return viewInfo(call, *mappings, /*reverse=*/false, withXShape, x.dist.partial);
}

/// Out's dims_mapping carried back to X by the reshape Out -> X. X takes
/// Out's partial status (the inputs' current dist attrs are not consulted).
llvm::Expected<SpmdInfo> reshapeReverse(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  if (llvm::Error err = checkViewOutputs(call, withXShape))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  std::vector<int64_t> xShape = staticDims(x.shape), outShape = out.shape;
  std::vector<int64_t> target = call.attrs.getInts("shape", {});
  for (size_t i = 0; i < outShape.size() && i < target.size(); ++i) {
    if (target[i] != 0)
      continue;
    if (i >= xShape.size())
      return spmdError(call, "shape " + formatDims(target) + " copies dim " + llvm::Twine(i) +
                                 " of an input of only " + llvm::Twine(xShape.size()) + " dims");
    outShape[i] = xShape[i];
  }
  auto numel = product(call, xShape);
  if (!numel)
    return numel.takeError();
  auto outDims = inferTargetShape(call, outShape, *numel);
  if (!outDims)
    return outDims.takeError();
  auto trans = makeReshapeDimTrans(call, *outDims, xShape);
  if (!trans)
    return trans.takeError();
  ViewMappings mappings = inferFromDimTrans(out.dist.dimsMapping, *trans, call.meshShape);
  return viewInfo(call, mappings, /*reverse=*/true, withXShape, out.dist.partial);
}

llvm::Expected<SpmdInfo> inferReshape(const SpmdCall &call) { return reshapeForward(call, false); }
llvm::Expected<SpmdInfo> inferReshapeReverse(const SpmdCall &call) {
  return reshapeReverse(call, false);
}
llvm::Expected<SpmdInfo> inferReshapeWithXShape(const SpmdCall &call) {
  return reshapeForward(call, true);
}
llvm::Expected<SpmdInfo> inferReshapeWithXShapeReverse(const SpmdCall &call) {
  return reshapeReverse(call, true);
}

//===----------------------------------------------------------------------===//
// Gradients of views
//===----------------------------------------------------------------------===//

/// The first input of a view's gradient: X, or the XShape standing for it.
struct GradSource {
  DistTensorSpec x; // X's shape and dist attr
  bool xshape = false;
};

GradSource gradSource(const DistTensorSpec &first) {
  GradSource source{first, false};
  if (!first.shape.empty() && first.shape.front() == 0) {
    source.xshape = true;
    source.x.shape.erase(source.x.shape.begin());
    source.x.dist.dimsMapping.erase(source.x.dist.dimsMapping.begin());
  }
  return source;
}

/// The dist attr of the first input when it must have X's `mapping`.
TensorDistAttr sourceDistAttr(const GradSource &source, std::vector<int64_t> mapping) {
  if (source.xshape)
    return xshapeDistAttr(mapping);
  TensorDistAttr dist = source.x.dist;
  dist.dimsMapping = std::move(mapping);
  return dist;
}

/// reshape_grad, inputs (X or XShape, Out@GRAD): as Paddle's
/// ReshapeGradInferSpmd, X keeps what the forward reshape lets it keep and
/// Out@GRAD and X@GRAD follow X (with X's partial status).
llvm::Expected<SpmdInfo> inferReshapeGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  GradSource source = gradSource(call.inputs[0]);
  const DistTensorSpec &outGrad = call.inputs[1];
  auto mappings = reshapeMappings(call, source.x.shape, source.x.dist.dimsMapping, outGrad.shape);
  if (!mappings)
    return mappings.takeError();
  TensorDistAttr gradDist = source.x.dist, xGrad = source.x.dist;
  gradDist.dimsMapping = mappings->output;
  xGrad.dimsMapping = mappings->input;
  SpmdInfo info;
  info.inputs = {sourceDistAttr(source, mappings->input), gradDist};
  info.outputs = {xGrad};
  return info;
}

/// flatten_grad, squeeze_grad, unsqueeze_grad, inputs (X or XShape,
/// Out@GRAD): Out@GRAD reshaped back to X's shape (Paddle's
/// FlattenGradInferSpmd and friends); X is left as it is.
llvm::Expected<SpmdInfo> inferViewGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  GradSource source = gradSource(call.inputs[0]);
  const DistTensorSpec &outGrad = call.inputs[1];
  auto mappings = reshapeMappings(call, outGrad.shape, outGrad.dist.dimsMapping, source.x.shape);
  if (!mappings)
    return mappings.takeError();
  TensorDistAttr gradDist = outGrad.dist, xGrad = outGrad.dist;
  gradDist.dimsMapping = mappings->input;
  xGrad.dimsMapping = mappings->output;
  SpmdInfo info;
  info.inputs = {call.inputs[0].dist, gradDist};
  info.outputs = {xGrad};
  return info;
}

//===----------------------------------------------------------------------===//
// flatten
//===----------------------------------------------------------------------===//

llvm::Expected<std::pair<int64_t, int64_t>> flattenRange(const SpmdCall &call, int64_t rank) {
  int64_t start = call.attrs.getInt("start_axis", 1), stop = call.attrs.getInt("stop_axis", 1);
  int64_t first = start < 0 ? start + rank : start, last = stop < 0 ? stop + rank : stop;
  if (first < 0 || first >= rank || last < 0 || last >= rank || first > last)
    return spmdError(call, "start_axis " + llvm::Twine(start) + " and stop_axis " +
                               llvm::Twine(stop) + " are not a range of the " + llvm::Twine(rank) +
                               " dims of X");
  return std::make_pair(first, last);
}

/// X reshaped to its dims with [start_axis, stop_axis] merged (Paddle's
/// FlattenInferSpmd, which reshapes; dynamic dims count as 256 there too).
llvm::Expected<SpmdInfo> flattenForward(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  std::vector<int64_t> dims = staticDims(x.shape), target;
  if (x.rank() == 0) { // Paddle flattens a 0-D tensor to [1]
    target.push_back(1);
  } else {
    auto range = flattenRange(call, x.rank());
    if (!range)
      return range.takeError();
    for (int64_t i = 0; i < x.rank(); ++i) {
      if (i < range->first || i > range->second)
        target.push_back(dims[i]);
      else if (i == range->first) {
        auto merged = product(call, llvm::ArrayRef<int64_t>(dims).slice(i, range->second - i + 1));
        if (!merged)
          return merged.takeError();
        target.push_back(*merged);
      }
    }
  }
  auto mappings = reshapeMappings(call, x.shape, x.dist.dimsMapping, target);
  if (!mappings)
    return mappings.takeError();
  return viewInfo(call, *mappings, /*reverse=*/false, withXShape, x.dist.partial);
}

/// Each X axis from Out: the merged axis splits back into X's axes
/// (Paddle's FlattenInferSpmdReverse).
llvm::Expected<SpmdInfo> flattenReverse(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  if (llvm::Error err = checkViewOutputs(call, withXShape))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  // A 0-D X is flattened to [1], whose sharding it cannot keep.
  auto range =
      x.rank() == 0 ? std::make_pair(int64_t{0}, int64_t{-1}) : flattenRange(call, x.rank());
  if (!range)
    return range.takeError();
  auto [first, last] = *range;
  if (out.rank() != x.rank() - (last - first))
    return spmdError(call, "the output has " + llvm::Twine(out.rank()) + " dims; flattening dims " +
                               llvm::Twine(first) + ".." + llvm::Twine(last) + " of X gives " +
                               llvm::Twine(x.rank() - (last - first)));
  std::vector<int64_t> pieces(x.shape.begin() + first, x.shape.begin() + (last + 1));
  std::vector<DimTrans> trans;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (i < first)
      trans.push_back(DimTrans::input(i));
    else if (i > last)
      trans.push_back(DimTrans::input(i - (last - first)));
    else
      trans.push_back(makeSplit(DimTrans::input(first), pieces, i - first));
  }
  return viewInfo(call, inferFromDimTrans(out.dist.dimsMapping, trans, call.meshShape),
                  /*reverse=*/true, withXShape);
}

llvm::Expected<SpmdInfo> inferFlatten(const SpmdCall &call) { return flattenForward(call, false); }
llvm::Expected<SpmdInfo> inferFlattenReverse(const SpmdCall &call) {
  return flattenReverse(call, false);
}
llvm::Expected<SpmdInfo> inferFlattenWithXShape(const SpmdCall &call) {
  return flattenForward(call, true);
}
llvm::Expected<SpmdInfo> inferFlattenWithXShapeReverse(const SpmdCall &call) {
  return flattenReverse(call, true);
}

//===----------------------------------------------------------------------===//
// squeeze and unsqueeze
//===----------------------------------------------------------------------===//

/// The listed axes, each made non-negative against `rank`.
llvm::Expected<std::vector<int64_t>> normalizedAxes(const SpmdCall &call, int64_t rank) {
  std::vector<int64_t> axes = call.attrs.getInts("axis", {});
  for (int64_t &axis : axes) {
    int64_t given = axis;
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return spmdError(call, "axis " + llvm::Twine(given) + " is not a dim of the " +
                                 llvm::Twine(rank) + "-D input");
  }
  return axes;
}

/// Which X axes squeeze drops: with `axis`, the listed ones of size 1;
/// without, every size-1 axis. A size-1 axis it keeps is a new axis in
/// Out's sharding (Paddle's MakeSqueezeDimTrans*).
struct SqueezePlan {
  std::vector<bool> dropped, singleton;
};

llvm::Expected<SqueezePlan> squeezePlan(const SpmdCall &call, const DistTensorSpec &x) {
  auto axes = normalizedAxes(call, x.rank());
  if (!axes)
    return axes.takeError();
  SqueezePlan plan{std::vector<bool>(x.rank(), false), std::vector<bool>(x.rank(), false)};
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (x.shape[i] != 1)
      continue;
    bool listed = axes->empty() || llvm::is_contained(*axes, i);
    plan.dropped[i] = listed;
    plan.singleton[i] = !listed;
  }
  return plan;
}

/// squeeze drops partial status, as Paddle's SqueezeInferSpmd.
llvm::Expected<SpmdInfo> squeezeForward(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto plan = squeezePlan(call, x);
  if (!plan)
    return plan.takeError();
  std::vector<DimTrans> trans;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!plan->dropped[i])
      trans.push_back(plan->singleton[i] ? DimTrans::singleton() : DimTrans::input(i));
  return viewInfo(call, inferFromDimTrans(x.dist.dimsMapping, trans, call.meshShape),
                  /*reverse=*/false, withXShape);
}

llvm::Expected<SpmdInfo> squeezeReverse(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  if (llvm::Error err = checkViewOutputs(call, withXShape))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  auto plan = squeezePlan(call, x);
  if (!plan)
    return plan.takeError();
  int64_t kept = llvm::count(plan->dropped, false);
  if (out.rank() != kept)
    return spmdError(call, "the output has " + llvm::Twine(out.rank()) +
                               " dims; squeezing X gives " + llvm::Twine(kept));
  std::vector<DimTrans> trans;
  for (int64_t i = 0, j = 0; i < x.rank(); ++i) {
    if (plan->dropped[i]) {
      trans.push_back(DimTrans::singleton());
    } else if (plan->singleton[i]) {
      trans.push_back(DimTrans::singleton());
      ++j;
    } else {
      trans.push_back(DimTrans::input(j++));
    }
  }
  return viewInfo(call, inferFromDimTrans(out.dist.dimsMapping, trans, call.meshShape),
                  /*reverse=*/true, withXShape);
}

/// Where unsqueeze puts X's axes: per Out axis, the X axis there or -1 for
/// an inserted one. The axes are inserted one after the other, each
/// normalized against the rank reached so far, as Paddle's unsqueeze does
/// (its SPMD rule normalizes all against X's rank + 1, which agrees for
/// every sorted list of non-negative axes and a single negative one).
llvm::Expected<std::vector<int64_t>> unsqueezeLayout(const SpmdCall &call, int64_t rank) {
  std::vector<int64_t> layout(rank);
  std::iota(layout.begin(), layout.end(), 0);
  for (int64_t given : call.attrs.getInts("axis", {})) {
    int64_t current = static_cast<int64_t>(layout.size());
    int64_t axis = given < 0 ? given + current + 1 : given;
    if (axis < 0 || axis > current)
      return spmdError(call, "axis " + llvm::Twine(given) + " is outside [" +
                                 llvm::Twine(-current - 1) + ", " + llvm::Twine(current) +
                                 "] for an input of " + llvm::Twine(current) + " dims");
    layout.insert(layout.begin() + axis, -1);
  }
  return layout;
}

/// unsqueeze drops partial status, as Paddle's UnsqueezeInferSpmd; an X
/// axis of size 1 does not keep its sharding.
llvm::Expected<SpmdInfo> unsqueezeForward(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto layout = unsqueezeLayout(call, x.rank());
  if (!layout)
    return layout.takeError();
  std::vector<DimTrans> trans;
  for (int64_t dim : *layout)
    trans.push_back(dim != -1 && x.shape[dim] != 1 ? DimTrans::input(dim) : DimTrans::singleton());
  return viewInfo(call, inferFromDimTrans(x.dist.dimsMapping, trans, call.meshShape),
                  /*reverse=*/false, withXShape);
}

llvm::Expected<SpmdInfo> unsqueezeReverse(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  if (llvm::Error err = checkViewOutputs(call, withXShape))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  auto layout = unsqueezeLayout(call, x.rank());
  if (!layout)
    return layout.takeError();
  if (out.rank() != static_cast<int64_t>(layout->size()))
    return spmdError(call, "the output has " + llvm::Twine(out.rank()) +
                               " dims; unsqueezing X gives " + llvm::Twine(layout->size()));
  std::vector<DimTrans> trans(x.rank(), DimTrans::singleton());
  for (size_t i = 0; i < layout->size(); ++i)
    if (int64_t dim = (*layout)[i]; dim != -1 && out.shape[i] != 1)
      trans[dim] = DimTrans::input(static_cast<int64_t>(i));
  return viewInfo(call, inferFromDimTrans(out.dist.dimsMapping, trans, call.meshShape),
                  /*reverse=*/true, withXShape);
}

llvm::Expected<SpmdInfo> inferSqueeze(const SpmdCall &call) { return squeezeForward(call, false); }
llvm::Expected<SpmdInfo> inferSqueezeReverse(const SpmdCall &call) {
  return squeezeReverse(call, false);
}
llvm::Expected<SpmdInfo> inferSqueezeWithXShape(const SpmdCall &call) {
  return squeezeForward(call, true);
}
llvm::Expected<SpmdInfo> inferSqueezeWithXShapeReverse(const SpmdCall &call) {
  return squeezeReverse(call, true);
}
llvm::Expected<SpmdInfo> inferUnsqueeze(const SpmdCall &call) {
  return unsqueezeForward(call, false);
}
llvm::Expected<SpmdInfo> inferUnsqueezeReverse(const SpmdCall &call) {
  return unsqueezeReverse(call, false);
}
llvm::Expected<SpmdInfo> inferUnsqueezeWithXShape(const SpmdCall &call) {
  return unsqueezeForward(call, true);
}
llvm::Expected<SpmdInfo> inferUnsqueezeWithXShapeReverse(const SpmdCall &call) {
  return unsqueezeReverse(call, true);
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

/// `perm` with negative entries made non-negative; it must be a
/// permutation of X's axes.
llvm::Expected<std::vector<int64_t>> permutation(const SpmdCall &call, int64_t rank) {
  std::vector<int64_t> perm = call.attrs.getInts("perm", {});
  std::vector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t &axis : perm) {
    if (axis < 0)
      axis += rank;
    valid = valid && axis >= 0 && axis < rank && !seen[axis];
    if (valid)
      seen[axis] = true;
  }
  if (!valid)
    return spmdError(call, "perm " + formatDims(call.attrs.getInts("perm", {})) +
                               " is not a permutation of the " + llvm::Twine(rank) + " dims of X");
  return perm;
}

/// Out axis i is X axis perm[i]; both keep X's partial status.
llvm::Expected<SpmdInfo> transposeForward(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto perm = permutation(call, x.rank());
  if (!perm)
    return perm.takeError();
  TensorDistAttr out = x.dist;
  for (size_t i = 0; i < perm->size(); ++i)
    out.dimsMapping[i] = x.dist.dimsMapping[(*perm)[i]];
  SpmdInfo info;
  info.inputs.push_back(x.dist);
  info.outputs.push_back(out);
  if (withXShape)
    addXShape(call, false, info);
  return info;
}

/// X axis perm[i] is Out axis i; neither is partial (Paddle's
/// TransposeInferSpmdReverse).
llvm::Expected<SpmdInfo> transposeReverse(const SpmdCall &call, bool withXShape) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  if (llvm::Error err = checkViewOutputs(call, withXShape))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  if (x.rank() != out.rank())
    return spmdError(call, "X has " + llvm::Twine(x.rank()) + " dims and the output " +
                               llvm::Twine(out.rank()));
  auto perm = permutation(call, x.rank());
  if (!perm)
    return perm.takeError();
  std::vector<int64_t> mapping(x.rank(), kReplicated);
  for (size_t i = 0; i < perm->size(); ++i)
    mapping[(*perm)[i]] = out.dist.dimsMapping[i];
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mapping));
  info.outputs.push_back(withoutPartial(out.dist));
  if (withXShape)
    addXShape(call, true, info);
  return info;
}

/// transpose_grad, inputs ([XShape,] Out@GRAD): X@GRAD axis perm[i] is
/// Out@GRAD axis i; neither is partial (Paddle's TransposeGradInferSpmd).
/// XShape, which only carries X's shape, is left as it is.
llvm::Expected<SpmdInfo> inferTransposeGrad(const SpmdCall &call) {
  if (call.inputs.size() != 1 && call.inputs.size() != 2)
    return spmdError(call, "takes Out@GRAD (after XShape), got " + llvm::Twine(call.inputs.size()) +
                               " inputs");
  const DistTensorSpec &outGrad = call.inputs.back();
  auto perm = permutation(call, outGrad.rank());
  if (!perm)
    return perm.takeError();
  std::vector<int64_t> mapping(outGrad.rank(), kReplicated);
  for (size_t i = 0; i < perm->size(); ++i)
    mapping[(*perm)[i]] = outGrad.dist.dimsMapping[i];
  SpmdInfo info;
  if (call.inputs.size() == 2)
    info.inputs.push_back(call.inputs[0].dist);
  info.inputs.push_back(withoutPartial(outGrad.dist));
  info.outputs.push_back(makeDistAttr(mapping));
  return info;
}

llvm::Expected<SpmdInfo> inferTranspose(const SpmdCall &call) {
  return transposeForward(call, false);
}
llvm::Expected<SpmdInfo> inferTransposeReverse(const SpmdCall &call) {
  return transposeReverse(call, false);
}
llvm::Expected<SpmdInfo> inferTransposeWithXShape(const SpmdCall &call) {
  return transposeForward(call, true);
}
llvm::Expected<SpmdInfo> inferTransposeWithXShapeReverse(const SpmdCall &call) {
  return transposeReverse(call, true);
}

} // namespace

void appendReshapeRules(std::vector<SpmdRule> &rules) {
  // Paddle's rules (reshape2, unsqueeze2 and transpose2 are its names for
  // the static program ops), and the variants that add XShape, which the
  // program ops use (Paddle's *WithXShape rules).
  rules.push_back({"reshape", inferReshape, inferReshapeReverse, 1});
  rules.push_back({"reshape2", inferReshape, inferReshapeReverse, 1});
  rules.push_back(
      {"reshape_with_xshape", inferReshapeWithXShape, inferReshapeWithXShapeReverse, -1});
  rules.push_back({"reshape_grad", inferReshapeGrad, nullptr, -1});
  rules.push_back({"flatten", inferFlatten, inferFlattenReverse, 1});
  rules.push_back(
      {"flatten_with_xshape", inferFlattenWithXShape, inferFlattenWithXShapeReverse, -1});
  rules.push_back({"flatten_grad", inferViewGrad, nullptr, -1});
  rules.push_back({"squeeze", inferSqueeze, inferSqueezeReverse, 1});
  rules.push_back(
      {"squeeze_with_xshape", inferSqueezeWithXShape, inferSqueezeWithXShapeReverse, -1});
  rules.push_back({"squeeze_grad", inferViewGrad, nullptr, -1});
  rules.push_back({"unsqueeze", inferUnsqueeze, inferUnsqueezeReverse, 1});
  rules.push_back({"unsqueeze2", inferUnsqueeze, inferUnsqueezeReverse, 1});
  rules.push_back(
      {"unsqueeze_with_xshape", inferUnsqueezeWithXShape, inferUnsqueezeWithXShapeReverse, -1});
  rules.push_back({"unsqueeze_grad", inferViewGrad, nullptr, -1});
  rules.push_back({"transpose", inferTranspose, inferTransposeReverse, 1});
  rules.push_back({"transpose2", inferTranspose, inferTransposeReverse, 1});
  rules.push_back(
      {"transpose_with_xshape", inferTransposeWithXShape, inferTransposeWithXShapeReverse, -1});
  rules.push_back({"transpose_grad", inferTransposeGrad, nullptr, -1});
}

} // namespace distc::sharding::detail
