//===- ReductionRules.cpp - SPMD rules of reductions ----------------------===//
//
// A reduction over a split axis runs locally on each rank's slice and
// leaves a partial result over the mesh axis that split it, completed by
// the reduction's own combination: a sum of partial sums, a max of partial
// maxima, a mean of partial means (the slices are equal). The rules of
// Paddle's reduction.cc, with the partial status naming the reduction
// (Partial(max) for `max`, Partial(avg) for `mean`, ...), and of the ops
// that reduce along one axis but cannot leave a partial result, so that
// axis must be whole on every rank:
//
//  * softmax and log_softmax normalize along `axis` (softmax.cc);
//  * argmax picks an index along `axis` (argmax.cc);
//  * topk keeps the k largest along `axis` (topk.cc);
//  * accuracy (no Paddle rule) compares along the batch and k axes.
//
// mean_all (the fluid `mean` op) reduces everything to a 0-D mean.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace distc::sharding::detail {
namespace {

/// `axis` in [-rank, rank) as an index; the error names the attribute.
llvm::Expected<int64_t> normalizeAxis(const SpmdCall &call, int64_t axis, int64_t rank,
                                      llvm::StringRef what) {
  if (axis < -rank || axis >= rank)
    return spmdError(call, "axis " + llvm::Twine(axis) + " is out of range for " + what +
                               " of rank " + llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Reductions over `axis`
//===----------------------------------------------------------------------===//

/// Which axes of a tensor of `rank` axes `call` reduces: Paddle's `axis`
/// (empty: all), or all with the fluid op's `reduce_all`, which the phi
/// rule does not see.
llvm::Expected<std::vector<bool>> reducedAxes(const SpmdCall &call, int64_t rank) {
  std::vector<int64_t> axes = call.attrs.getInts("axis", {});
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  if (axes.empty() || call.attrs.getBool("reduce_all", false)) {
    reduced.assign(reduced.size(), true);
    return reduced;
  }
  for (int64_t axis : axes) {
    auto index = normalizeAxis(call, axis, rank, "x");
    if (!index)
      return index.takeError();
    reduced[static_cast<size_t>(*index)] = true;
  }
  return reduced;
}

/// The output's notation (Paddle's GetOutputNotation): the kept letters, and
/// '1' for each reduced axis with keepdim.
std::string reducedNotation(std::string_view xAxes, const std::vector<bool> &reduced,
                            bool keepDim) {
  std::string out;
  for (size_t i = 0; i < xAxes.size(); ++i) {
    if (!reduced[i])
      out += xAxes[i];
    else if (keepDim)
      out += kSizeOneAxis;
  }
  return out;
}

/// Paddle's ReductionInferSpmdBase: x keeps its dims_mapping (without partial
/// status), the output keeps the letters it keeps and is partial over the
/// mesh axes that split a reduced one, combining by `combine`. With no
/// `combine` -- a reduction whose partial results cannot be combined
/// (frobenius_norm: no norm of per-rank norms is the norm) -- the reduced
/// axes are replicated instead.
llvm::Expected<SpmdInfo> reductionForward(const SpmdCall &call, std::optional<ReduceType> combine) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto xAxes = axesOfRank(call, x.rank(), "x");
  if (!xAxes)
    return xAxes.takeError();
  auto reduced = reducedAxes(call, x.rank());
  if (!reduced)
    return reduced.takeError();
  std::string outAxes = reducedNotation(*xAxes, *reduced, call.attrs.getBool("keepdim", false));
  std::vector<int64_t> xMapping = x.dist.dimsMapping;
  if (!combine)
    for (size_t i = 0; i < xMapping.size(); ++i)
      if ((*reduced)[i])
        xMapping[i] = kReplicated;
  auto merged = mergeShardings(call, {{*xAxes, xMapping}});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(xMapping));
  info.outputs.push_back(makeDistAttr(mappingWithSizeOne(outAxes, *merged),
                                      partialDimsFor(*merged, outAxes),
                                      combine.value_or(ReduceType::Sum)));
  return info;
}

template <ReduceType Combine> llvm::Expected<SpmdInfo> inferReduction(const SpmdCall &call) {
  return reductionForward(call, Combine);
}

llvm::Expected<SpmdInfo> inferUncombinedReduction(const SpmdCall &call) {
  return reductionForward(call, std::nullopt);
}

/// `reduce_base`: Paddle's ReductionInferSpmdBase with its `reduce_type`,
/// Paddle's enum number (0 sum, 1 max, 2 min, 3 prod, 4 avg, 5 any, 6 all)
/// or a name ("max").
llvm::Expected<SpmdInfo> inferReduceBase(const SpmdCall &call) {
  static constexpr ReduceType byNumber[] = {ReduceType::Sum,  ReduceType::Max, ReduceType::Min,
                                            ReduceType::Prod, ReduceType::Avg, ReduceType::Any,
                                            ReduceType::All};
  std::string name = call.attrs.getString("reduce_type", "");
  if (!name.empty()) {
    std::optional<ReduceType> type = parseReduceType(name);
    if (!type)
      return spmdError(call, "reduce_type '" + name + "' is not a reduction");
    return reductionForward(call, *type);
  }
  int64_t number = call.attrs.getInt("reduce_type", 0);
  if (number < 0 || number >= static_cast<int64_t>(std::size(byNumber)))
    return spmdError(call, "reduce_type " + llvm::Twine(number) +
                               " is not one of Paddle's reductions (0 sum ... 6 all)");
  return reductionForward(call, byNumber[number]);
}

/// Paddle's ReductionInferSpmdReverse: x takes the output's letters and is
/// replicated along the reduced axes; the output keeps its dist attr.
llvm::Expected<SpmdInfo> inferReductionReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  auto xAxes = axesOfRank(call, x.rank(), "x");
  if (!xAxes)
    return xAxes.takeError();
  auto reduced = reducedAxes(call, x.rank());
  if (!reduced)
    return reduced.takeError();
  std::string outAxes = reducedNotation(*xAxes, *reduced, call.attrs.getBool("keepdim", false));
  if (static_cast<int64_t>(outAxes.size()) != out.rank())
    return spmdError(call, "out has " + llvm::Twine(out.rank()) +
                               " axes; the reduction of x gives " + llvm::Twine(outAxes.size()));
  auto merged = mergeShardings(call, {{outAxes, out.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  return SpmdInfo{{makeDistAttr(mappingFor(*xAxes, *merged))}, {out.dist}};
}

/// Paddle's ReductionGradInferSpmd: inputs (x, out_grad) or, for max, min
/// and prod, (x, out, out_grad); output x_grad. x and x_grad take out_grad's
/// dims_mapping with the reduced axes replicated; out and out_grad lose
/// their partial status (the gradient of a max needs the whole max).
llvm::Expected<SpmdInfo> inferReductionGrad(const SpmdCall &call) {
  if (call.inputs.size() != 2 && call.inputs.size() != 3)
    return spmdError(call, "takes x, [out,] out_grad: 2 or 3 inputs, got " +
                               llvm::Twine(call.inputs.size()));
  const DistTensorSpec &x = call.inputs[0], &outGrad = call.inputs.back();
  auto reduced = reducedAxes(call, x.rank());
  if (!reduced)
    return reduced.takeError();
  bool all = std::all_of(reduced->begin(), reduced->end(), [](bool r) { return r; });
  std::vector<int64_t> mapping;
  if (outGrad.rank() == x.rank()) { // keepdim: the reduced axes have size 1
    mapping = outGrad.dist.dimsMapping;
    for (size_t i = 0; i < mapping.size(); ++i)
      if ((*reduced)[i])
        mapping[i] = kReplicated;
  } else if (all) {
    // Also covers the [1] that older programs declare for a full reduction.
    mapping.assign(static_cast<size_t>(x.rank()), kReplicated);
  } else {
    int64_t kept = std::count(reduced->begin(), reduced->end(), false);
    if (outGrad.rank() != kept)
      return spmdError(call, "out_grad has " + llvm::Twine(outGrad.rank()) +
                                 " axes; the reduction of x keeps " + llvm::Twine(kept));
    size_t next = 0;
    for (bool r : *reduced)
      mapping.push_back(r ? kReplicated : outGrad.dist.dimsMapping[next++]);
  }
  TensorDistAttr gradAttr = makeDistAttr(outGrad.dist.dimsMapping);
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mapping));
  if (call.inputs.size() == 3)
    info.inputs.push_back(makeDistAttr(call.inputs[1].dist.dimsMapping)); // out
  info.inputs.push_back(gradAttr);
  info.outputs.push_back(makeDistAttr(mapping));
  return info;
}

//===----------------------------------------------------------------------===//
// squared_l2_norm, mean_all
//===----------------------------------------------------------------------===//

/// Paddle registers squared_l2_norm with the reduction rule (its test passes
/// `axis` and `keepdim`), but its op has no attributes and reduces all of x
/// to shape [1] (SquaredL2NormInferSpmd): without `axis`, the sum over
/// everything with a [-1] output.
llvm::Expected<SpmdInfo> inferSquaredL2Norm(const SpmdCall &call) {
  bool opForm = !call.attrs.has("axis");
  auto info = reductionForward(call, ReduceType::Sum);
  if (!info)
    return info.takeError();
  if (opForm)
    info->outputs[0].dimsMapping = {kReplicated};
  return info;
}

llvm::Expected<SpmdInfo> inferSquaredL2NormReverse(const SpmdCall &call) {
  if (call.attrs.has("axis"))
    return inferReductionReverse(call);
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  return SpmdInfo{{TensorDistAttr::replicated(call.inputs[0].shape.size())},
                  {call.outputs[0].dist}};
}

/// Paddle's MeanAllInferSpmd: a 0-D mean, partial (avg) over the mesh axes
/// that split x.
llvm::Expected<SpmdInfo> inferMeanAll(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto xAxes = axesOfRank(call, x.rank(), "x");
  if (!xAxes)
    return xAxes.takeError();
  auto merged = mergeShardings(call, {{*xAxes, x.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  return SpmdInfo{{makeDistAttr(x.dist.dimsMapping)},
                  {makeDistAttr({}, partialDimsFor(*merged, ""), ReduceType::Avg)}};
}

/// From the 0-D output, which no mesh axis splits: x whole.
llvm::Expected<SpmdInfo> inferMeanAllReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  return SpmdInfo{{TensorDistAttr::replicated(call.inputs[0].shape.size())},
                  {call.outputs[0].dist}};
}

/// Paddle's MeanAllGradInferSpmd: inputs (x, out_grad), output x_grad; x and
/// x_grad whole (the gradient is out_grad / numel everywhere).
llvm::Expected<SpmdInfo> inferMeanAllGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  TensorDistAttr whole = TensorDistAttr::replicated(call.inputs[0].shape.size());
  return SpmdInfo{{whole, makeDistAttr(call.inputs[1].dist.dimsMapping)}, {whole}};
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

/// `mapping` with the softmax axis replicated (a 0-D tensor has none).
llvm::Expected<std::vector<int64_t>>
withAxisWhole(const SpmdCall &call, std::vector<int64_t> mapping, llvm::StringRef what) {
  if (mapping.empty())
    return mapping;
  int64_t rank = static_cast<int64_t>(mapping.size());
  auto axis = normalizeAxis(call, call.attrs.getInt("axis", -1), rank, what);
  if (!axis)
    return axis.takeError();
  mapping[static_cast<size_t>(*axis)] = kReplicated;
  return mapping;
}

/// Paddle's SoftmaxInferSpmd: x and out keep x's dims_mapping with the
/// softmax axis replicated (each row must be whole to normalize it).
llvm::Expected<SpmdInfo> inferSoftmax(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  auto mapping = withAxisWhole(call, call.inputs[0].dist.dimsMapping, "x");
  if (!mapping)
    return mapping.takeError();
  auto axes = axesOfRank(call, call.inputs[0].rank(), "x");
  if (!axes)
    return axes.takeError();
  auto merged = mergeShardings(call, {{*axes, *mapping}});
  if (!merged)
    return merged.takeError();
  return SpmdInfo{{makeDistAttr(*mapping)}, {makeDistAttr(mappingFor(*axes, *merged))}};
}

/// Paddle's SoftmaxInferSpmdReverse: out's dims_mapping with the softmax axis
/// replicated, for both.
llvm::Expected<SpmdInfo> inferSoftmaxReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  if (out.rank() != x.rank())
    return spmdError(call, "out has " + llvm::Twine(out.rank()) + " axes, x " +
                               llvm::Twine(x.rank()) + "; softmax keeps the rank");
  auto mapping = withAxisWhole(call, out.dist.dimsMapping, "out");
  if (!mapping)
    return mapping.takeError();
  auto axes = axesOfRank(call, out.rank(), "out");
  if (!axes)
    return axes.takeError();
  auto merged = mergeShardings(call, {{*axes, *mapping}});
  if (!merged)
    return merged.takeError();
  return SpmdInfo{{makeDistAttr(mappingFor(*axes, *merged))}, {makeDistAttr(*mapping)}};
}

/// Paddle's SoftmaxGradInferSpmd: inputs (out, out_grad), output x_grad; the
/// softmax axis of both replicated, then merged as an element-wise op.
llvm::Expected<SpmdInfo> inferSoftmaxGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  const DistTensorSpec &out = call.inputs[0], &outGrad = call.inputs[1];
  if (out.rank() != outGrad.rank())
    return spmdError(call, "out has " + llvm::Twine(out.rank()) + " axes, out_grad " +
                               llvm::Twine(outGrad.rank()) + "; they must match");
  auto outMapping = withAxisWhole(call, out.dist.dimsMapping, "out");
  if (!outMapping)
    return outMapping.takeError();
  auto gradMapping = withAxisWhole(call, outGrad.dist.dimsMapping, "out_grad");
  if (!gradMapping)
    return gradMapping.takeError();
  auto axes = axesOfRank(call, out.rank(), "out");
  if (!axes)
    return axes.takeError();
  auto merged = mergeShardings(call, {{*axes, *outMapping}, {*axes, *gradMapping}});
  if (!merged)
    return merged.takeError();
  // A size-1 axis broadcasts and stays replicated, as in the binary rule.
  TensorDistAttr attr = makeDistAttr(mappingForShape(*axes, out.shape, *merged));
  return SpmdInfo{{attr, attr}, {attr}};
}

//===----------------------------------------------------------------------===//
// argmax, topk
//===----------------------------------------------------------------------===//

/// Paddle's ArgMaxInferSpmdBase: x keeps its dims_mapping with `axis`
/// replicated (all of it with `flatten`); out drops that axis (keeps it with
/// `keepdims`); flatten gives [-1], or all replicated with keepdims.
llvm::Expected<SpmdInfo> inferArgMax(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  bool keepDims = call.attrs.getBool("keepdims", false);
  std::vector<int64_t> xMapping = x.dist.dimsMapping, outMapping;
  if (call.attrs.getBool("flatten", false)) {
    xMapping.assign(xMapping.size(), kReplicated);
    outMapping.assign(keepDims ? xMapping.size() : 1, kReplicated);
  } else {
    auto axis = normalizeAxis(call, call.attrs.getInt("axis", -1), x.rank(), "x");
    if (!axis)
      return axis.takeError();
    xMapping[static_cast<size_t>(*axis)] = kReplicated;
    outMapping = xMapping;
    if (!keepDims)
      outMapping.erase(outMapping.begin() + *axis);
  }
  return SpmdInfo{{makeDistAttr(xMapping)}, {makeDistAttr(outMapping)}};
}

/// Paddle's ArgMaxInferSpmdReverseBase: x takes out's dims_mapping with a
/// replicated `axis` (all replicated with `flatten`, where out becomes
/// replicated too). Unlike Paddle, whose flatten-without-keepdims branch
/// appends an entry to out's dims_mapping, out is [-1] there, as forward
/// gives it.
llvm::Expected<SpmdInfo> inferArgMaxReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  bool keepDims = call.attrs.getBool("keepdims", false);
  std::vector<int64_t> xMapping, outMapping = out.dist.dimsMapping;
  if (call.attrs.getBool("flatten", false)) {
    xMapping.assign(static_cast<size_t>(x.rank()), kReplicated);
    outMapping.assign(keepDims ? xMapping.size() : 1, kReplicated);
    return SpmdInfo{{makeDistAttr(xMapping)}, {makeDistAttr(outMapping)}};
  }
  auto axis = normalizeAxis(call, call.attrs.getInt("axis", -1), x.rank(), "x");
  if (!axis)
    return axis.takeError();
  if (out.rank() != x.rank() - (keepDims ? 0 : 1))
    return spmdError(call, "out has " + llvm::Twine(out.rank()) + " axes; argmax of x of rank " +
                               llvm::Twine(x.rank()) + " gives " +
                               llvm::Twine(x.rank() - (keepDims ? 0 : 1)));
  xMapping = outMapping;
  if (keepDims)
    xMapping[static_cast<size_t>(*axis)] = kReplicated;
  else
    xMapping.insert(xMapping.begin() + *axis, kReplicated);
  return SpmdInfo{{makeDistAttr(xMapping)}, {makeDistAttr(outMapping)}};
}

/// The dims_mapping `specs` agree on outside `axis` (replicated there):
/// the tensors of topk and its gradient differ only along it (k vs n).
llvm::Expected<std::vector<int64_t>>
mergeOutsideAxis(const SpmdCall &call, llvm::ArrayRef<const DistTensorSpec *> specs, int64_t rank) {
  auto axis = normalizeAxis(call, call.attrs.getInt("axis", -1), rank, "x");
  if (!axis)
    return axis.takeError();
  auto axes = axesOfRank(call, rank, "x");
  if (!axes)
    return axes.takeError();
  std::vector<AxisTensor> tensors;
  for (const DistTensorSpec *spec : specs) {
    if (spec->rank() != rank)
      return spmdError(call, "a tensor of " + llvm::Twine(spec->rank()) +
                                 " axes where topk's have " + llvm::Twine(rank));
    std::vector<int64_t> mapping = spec->dist.dimsMapping;
    mapping[static_cast<size_t>(*axis)] = kReplicated;
    tensors.push_back({*axes, mapping});
  }
  auto merged = mergeShardings(call, tensors);
  if (!merged)
    return merged.takeError();
  std::vector<int64_t> mapping = mappingFor(*axes, *merged);
  mapping[static_cast<size_t>(*axis)] = kReplicated;
  return mapping;
}

/// Paddle's TopkInferSpmd: x keeps its dims_mapping with `axis` replicated;
/// out and indices take it.
llvm::Expected<SpmdInfo> inferTopK(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  if (x.rank() == 0)
    return SpmdInfo{{makeDistAttr({})}, {makeDistAttr({}), makeDistAttr({})}};
  auto mapping = mergeOutsideAxis(call, {&x}, x.rank());
  if (!mapping)
    return mapping.takeError();
  TensorDistAttr attr = makeDistAttr(*mapping);
  return SpmdInfo{{attr}, {attr, attr}};
}

/// Paddle registers topk's gradient rule as its reverse; distc's reverse is
/// a true one: from out (and indices), merged outside `axis`.
llvm::Expected<SpmdInfo> inferTopKReverse(const SpmdCall &call) {
  if (call.outputs.size() != 1 && call.outputs.size() != 2)
    return spmdError(call, "reverse inference takes out and optionally indices, got " +
                               llvm::Twine(call.outputs.size()) + " outputs");
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  int64_t rank = call.inputs[0].rank();
  if (rank == 0)
    return SpmdInfo{{makeDistAttr({})},
                    std::vector<TensorDistAttr>(call.outputs.size(), makeDistAttr({}))};
  std::vector<const DistTensorSpec *> specs;
  for (const DistTensorSpec &out : call.outputs)
    specs.push_back(&out);
  auto mapping = mergeOutsideAxis(call, specs, rank);
  if (!mapping)
    return mapping.takeError();
  TensorDistAttr attr = makeDistAttr(*mapping);
  return SpmdInfo{{attr}, std::vector<TensorDistAttr>(call.outputs.size(), attr)};
}

/// Paddle's TopkGradInferSpmd: inputs (x, indices, out_grad), output x_grad,
/// all merged outside `axis`. (Paddle merges the first rank-1 entries of
/// each dims_mapping and inserts the replicated axis afterwards, which
/// misplaces an axis after `axis`; distc merges by position.)
llvm::Expected<SpmdInfo> inferTopKGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  int64_t rank = call.inputs[0].rank();
  if (rank == 0)
    return SpmdInfo{std::vector<TensorDistAttr>(3, makeDistAttr({})), {makeDistAttr({})}};
  auto mapping = mergeOutsideAxis(call, {&call.inputs[0], &call.inputs[1], &call.inputs[2]}, rank);
  if (!mapping)
    return mapping.takeError();
  TensorDistAttr attr = makeDistAttr(*mapping);
  return SpmdInfo{std::vector<TensorDistAttr>(3, attr), {attr}};
}

//===----------------------------------------------------------------------===//
// accuracy
//===----------------------------------------------------------------------===//

/// accuracy: inputs (Out [N, k], Indices [N, k], Label [N, 1]), outputs
/// (Accuracy, Correct, Total), each [1]. Paddle has no rule for it; distc
/// treats it as the reduction it is, over both N and k, with every reduced
/// axis whole on every rank, so each rank computes the exact metric and the
/// outputs are replicated with no partial status to complete.
///  * k must be whole: a sample is correct when any of its k indices is the
///    label, which no per-shard partial result expresses.
///  * N could stay split, leaving Correct and Total partial (sum) and
///    Accuracy partial (avg, as distc's even splits give every rank as many
///    samples) -- three outputs completed by two reductions, and an Accuracy
///    that is only right while Correct and Total are the counts of equal
///    shards. The metric's inputs are small ([N, k], k a handful) next to the
///    model's activations, so gathering them costs little and keeps the
///    results simple and exact.
llvm::Expected<SpmdInfo> inferAccuracy(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  SpmdInfo info;
  for (const DistTensorSpec &input : call.inputs)
    info.inputs.push_back(TensorDistAttr::replicated(input.shape.size()));
  info.outputs.assign(3, TensorDistAttr::replicated(1));
  return info;
}

} // namespace

void appendReductionRules(std::vector<SpmdRule> &rules) {
  // Paddle's reduction.cc names; reduce_sum, which Paddle also registers for
  // static programs, is a distc program op reaching `sum` through its
  // declaration (with `dim`, `keep_dim` and `reduce_all`).
  rules.push_back({"reduce_base", inferReduceBase, inferReductionReverse, 1});
  rules.push_back({"sum", inferReduction<ReduceType::Sum>, inferReductionReverse, 1});
  rules.push_back({"mean", inferReduction<ReduceType::Avg>, inferReductionReverse, 1});
  rules.push_back({"max", inferReduction<ReduceType::Max>, inferReductionReverse, 1});
  rules.push_back({"amax", inferReduction<ReduceType::Max>, inferReductionReverse, 1});
  rules.push_back({"reduce_max", inferReduction<ReduceType::Max>, inferReductionReverse, 1});
  rules.push_back({"min", inferReduction<ReduceType::Min>, inferReductionReverse, 1});
  rules.push_back({"amin", inferReduction<ReduceType::Min>, inferReductionReverse, 1});
  rules.push_back({"prod", inferReduction<ReduceType::Prod>, inferReductionReverse, 1});
  rules.push_back({"all", inferReduction<ReduceType::All>, inferReductionReverse, 1});
  rules.push_back({"any", inferReduction<ReduceType::Any>, inferReductionReverse, 1});
  rules.push_back({"frobenius_norm", inferUncombinedReduction, inferReductionReverse, 1});
  for (std::string_view grad : {"sum_grad", "mean_grad", "max_grad", "amax_grad", "min_grad",
                                "amin_grad", "prod_grad", "frobenius_norm_grad"})
    rules.push_back({grad, inferReductionGrad, nullptr, -1});
  rules.push_back({"squared_l2_norm", inferSquaredL2Norm, inferSquaredL2NormReverse, 1});
  rules.push_back({"squared_l2_norm_grad", inferReductionGrad, nullptr, -1});
  rules.push_back({"mean_all", inferMeanAll, inferMeanAllReverse, 1});
  rules.push_back({"mean_all_grad", inferMeanAllGrad, nullptr, -1});
  for (std::string_view name : {"softmax", "log_softmax"})
    rules.push_back({name, inferSoftmax, inferSoftmaxReverse, 1});
  for (std::string_view name : {"softmax_grad", "log_softmax_grad"})
    rules.push_back({name, inferSoftmaxGrad, nullptr, -1});
  rules.push_back({"argmax", inferArgMax, inferArgMaxReverse, 1});
  rules.push_back({"topk", inferTopK, inferTopKReverse, -1});
  rules.push_back({"topk_grad", inferTopKGrad, nullptr, -1});
  rules.push_back({"accuracy", inferAccuracy, nullptr, -1});
}

} // namespace distc::sharding::detail
