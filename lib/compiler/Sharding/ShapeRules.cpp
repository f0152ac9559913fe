//===- ShapeRules.cpp - SPMD rules of shape-changing ops ------------------===//
//
// concat, split, slice, pad (pad2d, pad3d), the channel shuffles and the
// interpolate v2 ops, and their gradients. The views (reshape, flatten,
// squeeze, unsqueeze, transpose) are in ReshapeRules.cpp, the creation ops,
// shape, coalesce_tensor, feed and fetch in CreationRules.cpp; both are
// registered from here. Where Paddle has a rule (spmd_rules/*.cc) it is
// followed; the channel shuffles and the interpolate ops have none, and
// their rules say why they are as they are.
//
// Partial status: a rule that keeps an input partial gives its outputs the
// same status (all these ops are linear in the tensors they move). Paddle's
// concat and split rules keep the inputs partial but drop it from the
// outputs, which would let a consumer read a partial value as complete;
// here the outputs keep it.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"
#include "ViewSharding.h"

#include "distc/Dialect/Pd/ResizeSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>

namespace distc::sharding::detail {
namespace {

/// `axis` made non-negative against `rank`; the error names `what`.
llvm::Expected<int64_t> normalizeAxis(const SpmdCall &call, int64_t axis, int64_t rank,
                                      llvm::StringRef what) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank)
    return spmdError(call, what + " " + llvm::Twine(axis) + " is not a dim of the " +
                               llvm::Twine(rank) + "-D input");
  return normalized;
}

/// Distinct einsum letters for the axes of a rank-`rank` tensor.
llvm::Expected<std::string> axisLetters(const SpmdCall &call, int64_t rank) {
  constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  if (rank > static_cast<int64_t>(kLetters.size()))
    return spmdError(call, "a tensor of " + llvm::Twine(rank) + " dims has too many to name");
  return std::string(kLetters.substr(0, rank));
}

/// `dist` with the tensor axes in `axes` replicated (Paddle's
/// UnShardTensorDims) and no partial status.
TensorDistAttr unshard(const TensorDistAttr &dist, llvm::ArrayRef<int64_t> axes) {
  TensorDistAttr result = withoutPartial(dist);
  for (int64_t axis : axes)
    result.dimsMapping[axis] = kReplicated;
  return result;
}

//===----------------------------------------------------------------------===//
// concat
//===----------------------------------------------------------------------===//

/// Paddle's "empty" tensor, which concat skips: 0-D or a leading 0 dim.
bool isEmpty(const DistTensorSpec &spec) { return spec.shape.empty() || spec.shape[0] == 0; }

/// What mesh axis `meshDim` does to `dist`.
Placement placementOn(const TensorDistAttr &dist, int64_t meshDim) {
  if (auto it = dist.partial.find(meshDim); it != dist.partial.end())
    return Placement::partialOf(it->second);
  int64_t axis = dist.tensorAxisOf(meshDim);
  return axis == -1 ? Placement::replicate() : Placement::shard(axis);
}

/// The elements of one rank's piece of `spec` (a split axis rounded up).
double localNumel(const DistTensorSpec &spec, llvm::ArrayRef<int64_t> meshShape) {
  double numel = 1;
  for (size_t axis = 0; axis < spec.shape.size(); ++axis) {
    int64_t size = spec.shape[axis], meshDim = spec.dist.dimsMapping[axis];
    if (meshDim != kReplicated)
      size = (size + meshShape[meshDim] - 1) / meshShape[meshDim];
    numel *= static_cast<double>(size);
  }
  return numel;
}

/// One dist attr for all of `tensors`, which agree on every axis but
/// `freeAxis` (Paddle's AlignDimsSharding for concat). A mesh axis on which
/// every (non-empty) tensor is placed alike keeps that placement -- unless it
/// splits `freeAxis`, or is a partial other than sum or avg. A mesh axis on
/// which they differ goes to the aligned axis that costs least to reshard
/// every tensor to (elements to move: the local size times the mesh axis;
/// nothing for a tensor that already splits that axis; an axis smaller than
/// the mesh axis is never chosen), the first such axis on a tie, or none.
std::vector<TensorDistAttr> alignShardings(llvm::ArrayRef<DistTensorSpec> tensors, int64_t freeAxis,
                                           llvm::ArrayRef<int64_t> meshShape) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  size_t ref = 0;
  while (ref < tensors.size() && isEmpty(tensors[ref]))
    ++ref;
  int64_t rank = tensors[ref].rank();
  auto mismatch = [&](int64_t meshDim) {
    Placement expected = placementOn(tensors[ref].dist, meshDim);
    return llvm::any_of(tensors, [&](const DistTensorSpec &t) {
      return !isEmpty(t) && placementOn(t.dist, meshDim) != expected;
    });
  };

  std::set<int64_t> shardedAxes;
  std::map<int64_t, int64_t> meshDimToAxis;
  std::map<int64_t, ReduceType> partial;
  for (int64_t m = 0; m < static_cast<int64_t>(meshShape.size()); ++m) {
    if (mismatch(m))
      continue;
    Placement p = placementOn(tensors[ref].dist, m);
    if (p.kind == Placement::Kind::Shard && p.dim != freeAxis) {
      shardedAxes.insert(p.dim);
      meshDimToAxis[m] = p.dim;
    } else if (p.kind == Placement::Kind::Partial &&
               (p.reduce == ReduceType::Sum || p.reduce == ReduceType::Avg)) {
      partial[m] = p.reduce;
    }
  }
  for (int64_t m = 0; m < static_cast<int64_t>(meshShape.size()); ++m) {
    if (!mismatch(m))
      continue;
    double bestCost = kInfinity;
    int64_t bestAxis = -1;
    for (int64_t axis = 0; axis < rank; ++axis) {
      if (axis == freeAxis || shardedAxes.count(axis))
        continue;
      double cost = 0;
      for (const DistTensorSpec &t : tensors) {
        if (isEmpty(t) || t.rank() != rank)
          continue;
        if (t.shape[axis] < meshShape[m]) {
          cost = kInfinity;
          break;
        }
        if (t.dist.isSharded(axis) || llvm::is_contained(t.shape, 0))
          continue;
        cost += localNumel(t, meshShape) * static_cast<double>(meshShape[m]);
      }
      if (cost < bestCost) {
        bestCost = cost;
        bestAxis = axis;
      }
    }
    if (bestAxis != -1) {
      shardedAxes.insert(bestAxis);
      meshDimToAxis[m] = bestAxis;
    }
  }

  std::vector<TensorDistAttr> aligned;
  for (const DistTensorSpec &t : tensors) {
    TensorDistAttr dist = TensorDistAttr::replicated(t.shape.size());
    for (auto [meshDim, axis] : meshDimToAxis)
      if (axis < t.rank())
        dist.dimsMapping[axis] = meshDim;
    dist.partial = partial;
    aligned.push_back(std::move(dist));
  }
  return aligned;
}

/// The concat axis of `tensors` (`axis`, made non-negative against the
/// first non-empty one), or an error; nullopt when every tensor is empty.
llvm::Expected<std::optional<int64_t>> concatAxis(const SpmdCall &call,
                                                  llvm::ArrayRef<DistTensorSpec> tensors) {
  auto nonEmpty = llvm::find_if(tensors, [](const DistTensorSpec &t) { return !isEmpty(t); });
  if (nonEmpty == tensors.end())
    return std::nullopt;
  int64_t rank = nonEmpty->rank();
  auto axis = normalizeAxis(call, call.attrs.getInt("axis", 0), rank, "axis");
  if (!axis)
    return axis.takeError();
  for (const DistTensorSpec &t : tensors)
    if (!isEmpty(t) && t.rank() != rank)
      return spmdError(call, "concatenates tensors of " + llvm::Twine(rank) + " and " +
                                 llvm::Twine(t.rank()) + " dims");
  return std::optional<int64_t>(*axis);
}

/// Inputs X (one or more): aligned on every axis but the concat axis; Out
/// is laid out like them (Paddle's ConcatInferSpmd). With only empty
/// inputs Paddle infers nothing; here they stay as they are and Out is
/// replicated.
llvm::Expected<SpmdInfo> inferConcat(const SpmdCall &call) {
  if (call.inputs.empty())
    return spmdError(call, "takes at least one input");
  auto axis = concatAxis(call, call.inputs);
  if (!axis)
    return axis.takeError();
  SpmdInfo info;
  if (!*axis) {
    for (const DistTensorSpec &x : call.inputs)
      info.inputs.push_back(x.dist);
    info.outputs.push_back(TensorDistAttr::replicated(call.inputs.front().shape.size()));
    return info;
  }
  info.inputs = alignShardings(call.inputs, **axis, call.meshShape);
  size_t ref = llvm::find_if(call.inputs, [](const DistTensorSpec &t) { return !isEmpty(t); }) -
               call.inputs.begin();
  info.outputs.push_back(info.inputs[ref]);
  return info;
}

/// Out with the concat axis replicated; every input takes that (and Out's
/// partial status, which Paddle's ConcatInferSpmdReverse drops from them).
llvm::Expected<SpmdInfo> inferConcatReverse(const SpmdCall &call) {
  if (call.inputs.empty())
    return spmdError(call, "takes at least one input");
  const DistTensorSpec &out = call.outputs[0];
  auto axis = normalizeAxis(call, call.attrs.getInt("axis", 0), out.rank(), "axis");
  if (!axis)
    return axis.takeError();
  TensorDistAttr dist = out.dist;
  dist.dimsMapping[*axis] = kReplicated;
  SpmdInfo info;
  for (const DistTensorSpec &x : call.inputs)
    info.inputs.push_back(x.rank() == out.rank() ? dist
                                                 : TensorDistAttr::replicated(x.shape.size()));
  info.outputs.push_back(out.dist);
  return info;
}

/// concat_grad, inputs (X..., Out@GRAD): all aligned together as in the
/// forward rule; each X@GRAD like its X (Paddle's ConcatGradInferSpmdDynamic).
llvm::Expected<SpmdInfo> inferConcatGrad(const SpmdCall &call) {
  if (call.inputs.size() < 2)
    return spmdError(call, "takes X (one or more) and Out@GRAD, got " +
                               llvm::Twine(call.inputs.size()) + " inputs");
  llvm::ArrayRef<DistTensorSpec> xs = llvm::ArrayRef(call.inputs).drop_back();
  auto axis = concatAxis(call, xs);
  if (!axis)
    return axis.takeError();
  SpmdInfo info;
  if (!*axis) {
    for (const DistTensorSpec &x : call.inputs)
      info.inputs.push_back(x.dist);
    for (const DistTensorSpec &x : xs)
      info.outputs.push_back(TensorDistAttr::replicated(x.shape.size()));
    return info;
  }
  if (call.inputs.back().rank() !=
      llvm::find_if(xs, [](const DistTensorSpec &t) { return !isEmpty(t); })->rank())
    return spmdError(call,
                     "Out@GRAD has " + llvm::Twine(call.inputs.back().rank()) + " dims, unlike X");
  info.inputs = alignShardings(call.inputs, **axis, call.meshShape);
  info.outputs.assign(info.inputs.begin(), info.inputs.end() - 1);
  return info;
}

//===----------------------------------------------------------------------===//
// split
//===----------------------------------------------------------------------===//

/// The number of pieces: `sections`' length, else `num` (the program op
/// has both; Paddle's split_with_num rule reads only `num`).
int64_t splitCount(const SpmdCall &call) {
  std::vector<int64_t> sections = call.attrs.getInts("sections", {});
  return sections.empty() ? call.attrs.getInt("num", 0) : static_cast<int64_t>(sections.size());
}

/// Every piece is laid out like X, with the split axis replicated (Paddle's
/// SplitWithNumInferSpmd); the pieces keep X's partial status.
llvm::Expected<SpmdInfo> inferSplit(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto axis = normalizeAxis(call, call.attrs.getInt("axis", 0), x.rank(), "axis");
  if (!axis)
    return axis.takeError();
  int64_t num = splitCount(call);
  if (num <= 0)
    return spmdError(call, "needs 'num' > 0 or 'sections' to know how many outputs it has");
  // `num` equal pieces of a dim of known size hold an element each.
  int64_t size = x.shape[*axis];
  if (call.attrs.getInts("sections", {}).empty() && num > (size > 0 ? size : int64_t{1} << 16))
    return spmdError(call, "cannot split dim " + llvm::Twine(*axis) + " (" + llvm::Twine(size) +
                               ") into " + llvm::Twine(num) + " pieces");
  auto axes = axisLetters(call, x.rank());
  if (!axes)
    return axes.takeError();
  auto merged = mergeShardings(call, {{*axes, x.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  TensorDistAttr piece = x.dist;
  piece.dimsMapping = mappingFor(*axes, *merged);
  piece.dimsMapping[*axis] = kReplicated;
  TensorDistAttr xDist = x.dist;
  xDist.dimsMapping[*axis] = kReplicated;
  SpmdInfo info;
  info.inputs.push_back(xDist);
  info.outputs.assign(num, piece);
  return info;
}

/// The pieces' shardings merged (split axis replicated) for X and every
/// piece (Paddle's SplitWithNumInferSpmdReverse); none is partial.
llvm::Expected<SpmdInfo> inferSplitReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  int64_t num = splitCount(call);
  if (call.outputs.empty() || (num > 0 && static_cast<int64_t>(call.outputs.size()) != num))
    return spmdError(call, "splits into " + llvm::Twine(num) + " outputs, got " +
                               llvm::Twine(call.outputs.size()));
  auto axis = normalizeAxis(call, call.attrs.getInt("axis", 0), x.rank(), "axis");
  if (!axis)
    return axis.takeError();
  auto axes = axisLetters(call, x.rank());
  if (!axes)
    return axes.takeError();
  std::vector<AxisTensor> pieces;
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    if (call.outputs[i].rank() != x.rank())
      return spmdError(call, "output " + llvm::Twine(i) + " has " +
                                 llvm::Twine(call.outputs[i].rank()) + " dims, X " +
                                 llvm::Twine(x.rank()));
    pieces.push_back({*axes, call.outputs[i].dist.dimsMapping});
  }
  auto merged = mergeShardings(call, pieces);
  if (!merged)
    return merged.takeError();
  std::vector<int64_t> mapping = mappingFor(*axes, *merged);
  mapping[*axis] = kReplicated;
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mapping));
  info.outputs.assign(call.outputs.size(), makeDistAttr(mapping));
  return info;
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

/// A slice's axes: the sliced ones, and those decrease_axis drops.
struct SliceAxes {
  std::vector<int64_t> sliced;
  std::vector<bool> dropped;
  /// Per output axis, the input axis it is.
  std::vector<int64_t> kept;
};

/// decrease_axis drops a sliced axis whose slice has one element (or an
/// unknown count), as the op does. Paddle's static rule ignores
/// decrease_axis; its tests pass entries no valid op has (an axis not
/// sliced, or sliced to more than one element), which are ignored here too.
llvm::Expected<SliceAxes> sliceAxes(const SpmdCall &call, llvm::ArrayRef<int64_t> shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes = call.attrs.getInts("axes", {}),
                       starts = call.attrs.getInts("starts", {}),
                       ends = call.attrs.getInts("ends", {}),
                       flags = call.attrs.getInts("infer_flags", {});
  SliceAxes result{{}, std::vector<bool>(rank, false), {}};
  std::vector<int64_t> extent(rank, -1);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(call, axes[i], rank, "axes entry");
    if (!axis)
      return axis.takeError();
    result.sliced.push_back(*axis);
    int64_t dim = shape[*axis];
    if (dim < 0 || i >= starts.size() || i >= ends.size() || (i < flags.size() && flags[i] == -1))
      continue;
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    extent[*axis] = std::max<int64_t>(end - start, 0);
  }
  for (int64_t d : call.attrs.getInts("decrease_axis", {})) {
    int64_t axis = d < 0 ? d + rank : d;
    if (axis >= 0 && axis < rank && llvm::is_contained(result.sliced, axis) &&
        (extent[axis] == 1 || extent[axis] == -1))
      result.dropped[axis] = true;
  }
  for (int64_t axis = 0; axis < rank; ++axis)
    if (!result.dropped[axis])
      result.kept.push_back(axis);
  return result;
}

/// The sliced axes replicated; Out is the rest (Paddle's SliceInferSpmd);
/// neither is partial.
llvm::Expected<SpmdInfo> inferSlice(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &input = call.inputs[0];
  auto axes = sliceAxes(call, input.shape);
  if (!axes)
    return axes.takeError();
  TensorDistAttr inputDist = unshard(input.dist, axes->sliced);
  std::vector<int64_t> out;
  for (int64_t axis : axes->kept)
    out.push_back(inputDist.dimsMapping[axis]);
  SpmdInfo info;
  info.inputs.push_back(inputDist);
  info.outputs.push_back(makeDistAttr(out));
  return info;
}

/// Out's sharding carried back to Input, the sliced axes replicated in both
/// (Paddle's SliceInferSpmdReverse).
llvm::Expected<SpmdInfo> inferSliceReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  const DistTensorSpec &input = call.inputs[0], &out = call.outputs[0];
  auto axes = sliceAxes(call, input.shape);
  if (!axes)
    return axes.takeError();
  if (out.rank() != static_cast<int64_t>(axes->kept.size()))
    return spmdError(call, "the output has " + llvm::Twine(out.rank()) + " dims; slicing gives " +
                               llvm::Twine(axes->kept.size()));
  std::vector<int64_t> inputMapping(input.rank(), kReplicated);
  for (size_t i = 0; i < axes->kept.size(); ++i)
    inputMapping[axes->kept[i]] = out.dist.dimsMapping[i];
  for (int64_t axis : axes->sliced)
    inputMapping[axis] = kReplicated;
  std::vector<int64_t> outMapping;
  for (int64_t axis : axes->kept)
    outMapping.push_back(inputMapping[axis]);
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(inputMapping));
  info.outputs.push_back(makeDistAttr(outMapping));
  return info;
}

/// slice_grad, inputs (Input, Out@GRAD): the two merged with the sliced
/// axes replicated, Out@GRAD's shardings first; Input@GRAD like Input
/// (Paddle's SliceGradInferBase).
llvm::Expected<SpmdInfo> inferSliceGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  const DistTensorSpec &input = call.inputs[0], &outGrad = call.inputs[1];
  auto axes = sliceAxes(call, input.shape);
  if (!axes)
    return axes.takeError();
  if (outGrad.rank() != static_cast<int64_t>(axes->kept.size()))
    return spmdError(call, "Out@GRAD has " + llvm::Twine(outGrad.rank()) +
                               " dims; slicing Input gives " + llvm::Twine(axes->kept.size()));
  auto letters = axisLetters(call, input.rank());
  if (!letters)
    return letters.takeError();
  std::string inputAxes = *letters, outAxes;
  std::vector<int64_t> slicedOut;
  for (size_t i = 0; i < axes->kept.size(); ++i) {
    outAxes += inputAxes[axes->kept[i]];
    if (llvm::is_contained(axes->sliced, axes->kept[i]))
      slicedOut.push_back(static_cast<int64_t>(i));
  }
  auto merged = mergeShardings(call, {{outAxes, unshard(outGrad.dist, slicedOut).dimsMapping},
                                      {inputAxes, unshard(input.dist, axes->sliced).dimsMapping}});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mappingFor(inputAxes, *merged)));
  info.inputs.push_back(makeDistAttr(mappingFor(outAxes, *merged)));
  info.outputs.push_back(makeDistAttr(mappingFor(inputAxes, *merged)));
  return info;
}

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

/// How an op lists its paddings: Paddle's pad (before, after) per axis;
/// pad2d [top, bottom, left, right] and pad3d [left, right, top, bottom,
/// front, back] for their spatial axes, laid out by `data_format`.
enum class PadLayout { PerAxis, Pad2d, Pad3d };

/// The axes of a rank-`rank` tensor the op pads.
llvm::Expected<std::vector<int64_t>> paddedAxes(const SpmdCall &call, int64_t rank,
                                                PadLayout layout) {
  std::vector<int64_t> paddings = call.attrs.getInts("paddings", {});
  std::vector<std::pair<int64_t, int64_t>> pads;
  if (layout == PadLayout::PerAxis) {
    if (static_cast<int64_t>(paddings.size()) != 2 * rank)
      return spmdError(call, "paddings " + formatDims(paddings) +
                                 " must list (before, after) for the dims of a " +
                                 llvm::Twine(rank) + "-D input");
    for (size_t i = 0; i < paddings.size(); i += 2)
      pads.emplace_back(paddings[i], paddings[i + 1]);
  } else {
    bool is3d = layout == PadLayout::Pad3d;
    std::string format = call.attrs.getString("data_format", is3d ? "NCDHW" : "NCHW");
    auto perDim = pd::padsPerDim(rank, paddings, format, /*innerFirst=*/is3d);
    if (!perDim || rank != (is3d ? 5 : 4))
      return spmdError(call, "paddings " + formatDims(paddings) + " with data_format '" + format +
                                 "' do not fit a " + llvm::Twine(rank) + "-D input");
    pads = std::move(*perDim);
  }
  std::vector<int64_t> axes;
  for (size_t axis = 0; axis < pads.size(); ++axis)
    if (pads[axis].first != 0 || pads[axis].second != 0)
      axes.push_back(static_cast<int64_t>(axis));
  return axes;
}

/// The padded axes replicated in X and Out, neither partial (Paddle's
/// PadInferSpmd); pad2d and pad3d alike.
template <PadLayout Layout> llvm::Expected<SpmdInfo> inferPad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  auto axes = paddedAxes(call, x.rank(), Layout);
  if (!axes)
    return axes.takeError();
  TensorDistAttr dist = unshard(x.dist, *axes);
  return SpmdInfo{{dist}, {dist}};
}

/// From Out: the padded axes replicated (Paddle registers PadGradInferSpmd,
/// which does this, as pad's reverse).
template <PadLayout Layout> llvm::Expected<SpmdInfo> inferPadReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  auto axes = paddedAxes(call, call.outputs[0].rank(), Layout);
  if (!axes)
    return axes.takeError();
  TensorDistAttr dist = unshard(call.outputs[0].dist, *axes);
  return SpmdInfo{{dist}, {dist}};
}

/// pad_grad, input Out@GRAD; pad2d_grad and pad3d_grad, inputs (X,
/// Out@GRAD): Out@GRAD with the padded axes replicated, and X@GRAD (and X)
/// like it (Paddle's PadGradInferSpmdDynamic).
template <PadLayout Layout> llvm::Expected<SpmdInfo> inferPadGrad(const SpmdCall &call) {
  if (call.inputs.size() != 1 && call.inputs.size() != 2)
    return spmdError(call, "takes Out@GRAD (after X), got " + llvm::Twine(call.inputs.size()) +
                               " inputs");
  const DistTensorSpec &outGrad = call.inputs.back();
  auto axes = paddedAxes(call, outGrad.rank(), Layout);
  if (!axes)
    return axes.takeError();
  TensorDistAttr dist = unshard(outGrad.dist, *axes);
  SpmdInfo info;
  info.inputs.assign(call.inputs.size(), dist);
  info.outputs.push_back(dist);
  return info;
}

//===----------------------------------------------------------------------===//
// Ops without a Paddle rule
//===----------------------------------------------------------------------===//

/// The channel axis of a shuffle: 1, or the last for channel_shuffle's
/// NHWC `data_format`.
llvm::Expected<int64_t> shuffleChannelAxis(const SpmdCall &call, int64_t rank) {
  std::string format = call.attrs.getString("data_format", "NCHW");
  if (rank < 2 || (format != "NCHW" && format != "NHWC"))
    return spmdError(call, "needs an NCHW or NHWC input, got a " + llvm::Twine(rank) +
                               "-D one with data_format '" + format + "'");
  return format == "NHWC" ? rank - 1 : 1;
}

/// shuffle_channel, channel_shuffle and their gradients (one input, one
/// output of its shape): the shuffle permutes the channels, so the channel
/// axis is replicated and every other axis (batch, spatial) keeps its
/// sharding, as does the partial status (a permutation is linear). Paddle
/// has no rule for these ops. In reverse the input takes Out's.
llvm::Expected<SpmdInfo> shuffle(const SpmdCall &call, bool reverse) {
  if (llvm::Error err = checkArity(call, 1, reverse, 1))
    return std::move(err);
  const DistTensorSpec &from = reverse ? call.outputs[0] : call.inputs[0];
  auto channel = shuffleChannelAxis(call, from.rank());
  if (!channel)
    return channel.takeError();
  TensorDistAttr dist = from.dist;
  dist.dimsMapping[*channel] = kReplicated;
  return SpmdInfo{{dist}, {dist}};
}

llvm::Expected<SpmdInfo> inferShuffle(const SpmdCall &call) { return shuffle(call, false); }
llvm::Expected<SpmdInfo> inferShuffleReverse(const SpmdCall &call) { return shuffle(call, true); }

/// The spatial axes of an interpolate op's input, laid out by `data_layout`.
llvm::Expected<std::vector<int64_t>> interpSpatialAxes(const SpmdCall &call, int64_t rank) {
  std::string layout = call.attrs.getString("data_layout", "NCHW");
  std::optional<int64_t> first = rank >= 3 ? pd::firstSpatialDim(layout, rank - 2) : std::nullopt;
  if (!first)
    return spmdError(call, "data_layout '" + layout + "' does not lay out a " + llvm::Twine(rank) +
                               "-D input");
  std::vector<int64_t> axes(rank - 2);
  std::iota(axes.begin(), axes.end(), *first);
  return axes;
}

/// bilinear_interp_v2 and nearest_interp_v2: each output pixel reads
/// input pixels around it, so the spatial axes are replicated; batch and
/// channel keep their sharding. Partial status is dropped (the op is not
/// linear for every reduction). Paddle has no rule for these ops.
llvm::Expected<SpmdInfo> interp(const SpmdCall &call, bool reverse) {
  if (llvm::Error err = checkArity(call, 1, reverse, 1))
    return std::move(err);
  const DistTensorSpec &from = reverse ? call.outputs[0] : call.inputs[0];
  auto spatial = interpSpatialAxes(call, from.rank());
  if (!spatial)
    return spatial.takeError();
  TensorDistAttr dist = unshard(from.dist, *spatial);
  return SpmdInfo{{dist}, {dist}};
}

llvm::Expected<SpmdInfo> inferInterp(const SpmdCall &call) { return interp(call, false); }
llvm::Expected<SpmdInfo> inferInterpReverse(const SpmdCall &call) { return interp(call, true); }

/// The interpolate ops' gradient, inputs (X, Out@GRAD): batch and channel
/// merged from X then Out@GRAD, spatial axes replicated, for all three.
llvm::Expected<SpmdInfo> inferInterpGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &outGrad = call.inputs[1];
  if (x.rank() != outGrad.rank())
    return spmdError(call, "X has " + llvm::Twine(x.rank()) + " dims, Out@GRAD " +
                               llvm::Twine(outGrad.rank()));
  auto spatial = interpSpatialAxes(call, x.rank());
  if (!spatial)
    return spatial.takeError();
  // Batch and channel share their letter; spatial axes get one per tensor.
  std::string xAxes, gradAxes;
  for (int64_t axis = 0; axis < x.rank(); ++axis) {
    bool isSpatial = llvm::is_contained(*spatial, axis);
    xAxes += isSpatial ? static_cast<char>('p' + axis) : static_cast<char>('a' + axis);
    gradAxes += isSpatial ? static_cast<char>('u' + axis) : static_cast<char>('a' + axis);
  }
  auto merged =
      mergeShardings(call, {{xAxes, x.dist.dimsMapping}, {gradAxes, outGrad.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  TensorDistAttr dist = unshard(makeDistAttr(mappingFor(xAxes, *merged)), *spatial);
  return SpmdInfo{{dist, dist}, {dist}};
}

} // namespace

void appendShapeRules(std::vector<SpmdRule> &rules) {
  appendReshapeRules(rules);
  appendCreationRules(rules);
  rules.push_back({"concat", inferConcat, inferConcatReverse, 1});
  rules.push_back({"concat_grad", inferConcatGrad, nullptr, -1});
  rules.push_back({"split", inferSplit, inferSplitReverse, -1});
  rules.push_back({"split_with_num", inferSplit, inferSplitReverse, -1});
  rules.push_back({"slice", inferSlice, inferSliceReverse, 1});
  rules.push_back({"slice_grad", inferSliceGrad, nullptr, -1});
  rules.push_back({"pad", inferPad<PadLayout::PerAxis>, inferPadReverse<PadLayout::PerAxis>, 1});
  rules.push_back({"pad_grad", inferPadGrad<PadLayout::PerAxis>, nullptr, -1});
  // distc's names for the ops Paddle has no rule for.
  rules.push_back({"pad2d", inferPad<PadLayout::Pad2d>, inferPadReverse<PadLayout::Pad2d>, 1});
  rules.push_back({"pad2d_grad", inferPadGrad<PadLayout::Pad2d>, nullptr, -1});
  rules.push_back({"pad3d", inferPad<PadLayout::Pad3d>, inferPadReverse<PadLayout::Pad3d>, 1});
  rules.push_back({"pad3d_grad", inferPadGrad<PadLayout::Pad3d>, nullptr, -1});
  rules.push_back({"shuffle_channel", inferShuffle, inferShuffleReverse, 1});
  rules.push_back({"shuffle_channel_grad", inferShuffle, nullptr, -1});
  rules.push_back({"channel_shuffle", inferShuffle, inferShuffleReverse, 1});
  rules.push_back({"channel_shuffle_grad", inferShuffle, nullptr, -1});
  rules.push_back({"interp_v2", inferInterp, inferInterpReverse, 1});
  rules.push_back({"interp_v2_grad", inferInterpGrad, nullptr, -1});
}

} // namespace distc::sharding::detail
