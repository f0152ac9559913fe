//===- NnRules.cpp - SPMD rules of neural-network layers ------------------===//
//
// Paddle's rules for the layers of the catalog's models -- embedding
// (lookup_table_v2), layer_norm, cross_entropy_with_softmax, batch_norm,
// conv2d, depthwise_conv2d and conv2d_transpose, with their gradients --
// and its generic `replicated` and `default_data_parallel` rules; and
// distc's own rules where Paddle has none: affine_channel, pool2d,
// sync_batch_norm, and batch_norm in its program slot order.
//
// A rule must describe what the op computes on each rank's local pieces
// with its attributes unchanged. Where Paddle's rule does not (a spatially
// split convolution, a grouped convolution split on channels, NHWC outputs
// named as NCHW), distc keeps the affected axes replicated; each such place
// says so, and the cases marked "distc deviates" in unittests/Sharding/cases
// record the difference.
//
// As in Paddle's einsum notation, an axis named '1' is never split; its
// entries are cleared before merging (`notated`), so that such an axis
// neither merges nor conflicts with others.
//
//===----------------------------------------------------------------------===//

#include "AxisSharding.h"
#include "RuleFamilies.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

namespace distc::sharding::detail {
namespace {

/// `dims` in notation `axes`, its '1' axes replicated.
AxisTensor notated(std::string axes, std::vector<int64_t> dims) {
  for (size_t i = 0; i < axes.size() && i < dims.size(); ++i)
    if (axes[i] == '1')
      dims[i] = kReplicated;
  return {std::move(axes), std::move(dims)};
}

/// The mesh axes that split some entry of `dims`, ascending.
std::vector<int64_t> shardedMeshDims(llvm::ArrayRef<int64_t> dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims)
    if (d != kReplicated)
      out.push_back(d);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

TensorDistAttr replicatedLike(const DistTensorSpec &spec) {
  return TensorDistAttr::replicated(spec.shape.size());
}

/// A rank check: "<what> must have <rank> axes, got <n>".
llvm::Error expectRank(const SpmdCall &call, const DistTensorSpec &spec, int64_t rank,
                       const llvm::Twine &what) {
  if (spec.rank() == rank)
    return llvm::Error::success();
  return spmdError(call, what + " must have " + llvm::Twine(rank) + " axes, got " +
                             llvm::Twine(spec.rank()));
}

/// The channel axis of a tensor of `rank` axes in `layout` (Paddle's
/// data_format / data_layout): the last one for channels-last layouts
/// (NHWC, NLC, NDHWC), else axis 1 (NCHW, NC, NCL, NCDHW, AnyLayout).
int64_t channelAxis(llvm::StringRef layout, int64_t rank) {
  bool channelsLast = layout.size() >= 3 && layout[1] != 'C' && layout.back() == 'C';
  return channelsLast ? rank - 1 : 1;
}

constexpr std::string_view kNormAlphabet = "ijklmnopqrstuvwxyz";

//===----------------------------------------------------------------------===//
// embedding (lookup_table_v2): Out[..., h] = W[Ids[...], h]
//===----------------------------------------------------------------------===//

// Ids' axes, avoiding j (W's vocabulary axis) and k (its hidden axis).
constexpr std::string_view kEmbeddingAlphabet = "abcdefghilmnopqrstuvwxyz";

/// A table split on its vocabulary axis (row-wise, Paddle's c_embedding):
/// each rank looks up the ids in its rows and contributes zeros for the
/// others, so the output is partial (sum) over that mesh axis.
llvm::Expected<SpmdInfo> inferEmbedding(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &w = call.inputs[1];
  if (llvm::Error err = expectRank(call, w, 2, "the embedding table W"))
    return std::move(err);
  int64_t paddingIdx = call.attrs.getInt("padding_idx", -1);
  bool sparse = call.attrs.getBool("sparse", false);
  int64_t rowDim = w.dist.dimsMapping[0];
  if (rowDim != kReplicated && paddingIdx != -1)
    return spmdError(call, "a table split on its vocabulary axis (W axis 0 by mesh axis " +
                               llvm::Twine(rowDim) + ") does not support padding_idx " +
                               llvm::Twine(paddingIdx));
  if (rowDim != kReplicated && sparse)
    return spmdError(call, "a table split on its vocabulary axis (W axis 0 by mesh axis " +
                               llvm::Twine(rowDim) + ") does not support sparse");
  std::string xAxes = broadcastAxes(x.rank(), x.rank(), kEmbeddingAlphabet);
  auto merged =
      mergeShardings(call, {{xAxes, x.dist.dimsMapping}, {"jk", w.dist.dimsMapping}}, false);
  if (!merged)
    return merged.takeError();
  std::vector<int64_t> partial;
  if (rowDim != kReplicated)
    partial.push_back(rowDim);
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(xAxes, *merged)), makeDistAttr(mappingFor("jk", *merged))};
  info.outputs = {makeDistAttr(mappingFor(xAxes + "k", *merged), partial)};
  return info;
}

llvm::Expected<SpmdInfo> inferEmbeddingReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  if (out.rank() != x.rank() + 1)
    return spmdError(call, "Out must have one axis more than Ids (" + llvm::Twine(x.rank()) +
                               "), got " + llvm::Twine(out.rank()));
  std::string xAxes = broadcastAxes(x.rank(), x.rank(), kEmbeddingAlphabet);
  auto merged = mergeShardings(call, {{xAxes + "k", out.dist.dimsMapping}}, false);
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(xAxes, *merged)), makeDistAttr(mappingFor("jk", *merged))};
  info.outputs = {out.dist};
  return info;
}

/// embedding_grad: inputs (Ids, W, Out@GRAD), output W@GRAD. As Paddle's
/// EmbeddingGradInferSpmd: W@GRAD = einsum('...j,...k->jk', onehot(Ids),
/// Out@GRAD), so the Ids' axes are contracted (W@GRAD partial over the mesh
/// axes splitting them) and W@GRAD's hidden axis follows Out@GRAD's. The
/// gradient kernel does not take a vocabulary-split W, so W's rows are
/// replicated (its columns stay as given).
llvm::Expected<SpmdInfo> inferEmbeddingGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &w = call.inputs[1], &g = call.inputs[2];
  if (call.attrs.getBool("sparse", false))
    return spmdError(call, "a sparse embedding gradient is not supported");
  if (llvm::Error err = expectRank(call, w, 2, "the embedding table W"))
    return std::move(err);
  if (g.rank() != x.rank() + 1)
    return spmdError(call, "Out@GRAD must have one axis more than Ids (" + llvm::Twine(x.rank()) +
                               "), got " + llvm::Twine(g.rank()));
  std::string t0 = broadcastAxes(x.rank() + 1, x.rank() + 1, "abcdefghijlmnopqrstuvwxyz");
  if (t0.empty())
    return spmdError(call, "Ids has too many axes (" + llvm::Twine(x.rank()) + ")");
  std::string gAxes = t0.substr(0, x.rank()) + "k";
  std::string wGradAxes = t0.substr(x.rank()) + "k";
  std::vector<int64_t> t0Dims = x.dist.dimsMapping;
  t0Dims.push_back(kReplicated);
  auto merged = mergeShardings(call, {{t0, t0Dims}, {gAxes, g.dist.dimsMapping}}, false);
  if (!merged)
    return merged.takeError();
  std::vector<int64_t> xDims = mappingFor(t0, *merged);
  xDims.pop_back();
  SpmdInfo info;
  info.inputs = {makeDistAttr(xDims), makeDistAttr({kReplicated, w.dist.dimsMapping[1]}),
                 makeDistAttr(mappingFor(gAxes, *merged))};
  info.outputs = {makeDistAttr(mappingFor(wGradAxes, *merged), partialDimsFor(*merged, wGradAxes))};
  return info;
}

//===----------------------------------------------------------------------===//
// layer_norm: statistics over X's axes [begin_norm_axis, rank)
//===----------------------------------------------------------------------===//

struct LayerNormNotation {
  std::string x, stats;
};

/// X's leading begin_norm_axis axes may be split, the normalized ones not.
/// Paddle's Mean and Variance have X's leading axes; the catalog's program
/// op flattens them to [prod(X[:begin_norm_axis])] (`flattened`), which a
/// split keeps contiguous only on X's first axis, so then only that one may
/// be split.
llvm::Expected<LayerNormNotation> layerNormNotation(const SpmdCall &call, int64_t rank,
                                                    int64_t begin, bool flattened) {
  if (rank > static_cast<int64_t>(kNormAlphabet.size()))
    return spmdError(call, "X has too many axes (" + llvm::Twine(rank) + ")");
  if (begin < 0 || begin > rank)
    return spmdError(call, "begin_norm_axis " + llvm::Twine(begin) + " is out of range for X of " +
                               llvm::Twine(rank) + " axes");
  LayerNormNotation n;
  n.x.assign(rank, '1');
  for (int64_t i = 0; i < begin; ++i)
    n.x[i] = flattened && i > 0 ? '1' : kNormAlphabet[i];
  n.stats = flattened ? n.x.substr(0, 1) : n.x.substr(0, begin);
  return n;
}

/// Scale and Bias are optional in the program op: 1 to 3 inputs.
llvm::Error checkLayerNormInputs(const SpmdCall &call) {
  if (call.inputs.empty() || call.inputs.size() > 3)
    return spmdError(call, "takes X and optionally Scale and Bias, got " +
                               llvm::Twine(call.inputs.size()) + " inputs");
  return llvm::Error::success();
}

/// Scale and Bias are replicated (Paddle does not split them yet); the
/// statistics follow X's leading axes.
llvm::Expected<SpmdInfo> inferLayerNorm(const SpmdCall &call) {
  if (llvm::Error err = checkLayerNormInputs(call))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  for (size_t i = 1; i < call.inputs.size(); ++i)
    if (llvm::Error err = expectRank(call, call.inputs[i], 1, i == 1 ? "Scale" : "Bias"))
      return std::move(err);
  int64_t begin = call.attrs.getInt("begin_norm_axis", 1);
  // Forward queries carry outputs only when the caller knows their shapes.
  bool flattened = begin > 1 && call.outputs.size() == 3 && call.outputs[1].rank() == 1;
  auto n = layerNormNotation(call, x.rank(), begin, flattened);
  if (!n)
    return n.takeError();
  AxisTensor xt = notated(n->x, x.dist.dimsMapping);
  auto merged = mergeShardings(call, {xt});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(xt.dimsMapping));
  for (size_t i = 1; i < call.inputs.size(); ++i)
    info.inputs.push_back(replicatedLike(call.inputs[i]));
  TensorDistAttr stats = makeDistAttr(mappingFor(n->stats, *merged));
  info.outputs = {makeDistAttr(mappingFor(n->x, *merged)), stats, stats};
  return info;
}

llvm::Expected<SpmdInfo> inferLayerNormReverse(const SpmdCall &call) {
  if (llvm::Error err = checkLayerNormInputs(call))
    return std::move(err);
  if (call.outputs.size() != 3)
    return spmdError(call,
                     "reverse inference takes 3 outputs, got " + llvm::Twine(call.outputs.size()));
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0], &mean = call.outputs[1],
                       &var = call.outputs[2];
  int64_t begin = call.attrs.getInt("begin_norm_axis", 1);
  auto n = layerNormNotation(call, x.rank(), begin, begin > 1 && mean.rank() == 1);
  if (!n)
    return n.takeError();
  if (out.rank() != x.rank() || mean.rank() != static_cast<int64_t>(n->stats.size()) ||
      var.rank() != mean.rank())
    return spmdError(call, "Y must have X's " + llvm::Twine(x.rank()) +
                               " axes and Mean and Variance " + llvm::Twine(n->stats.size()) +
                               ", got " + llvm::Twine(out.rank()) + ", " +
                               llvm::Twine(mean.rank()) + " and " + llvm::Twine(var.rank()));
  auto merged = mergeShardings(call, {notated(n->x, out.dist.dimsMapping),
                                      notated(n->stats, mean.dist.dimsMapping),
                                      notated(n->stats, var.dist.dimsMapping)});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(mappingFor(n->x, *merged)));
  for (size_t i = 1; i < call.inputs.size(); ++i)
    info.inputs.push_back(replicatedLike(call.inputs[i]));
  for (const auto &[spec, axes] :
       {std::pair{&out, &n->x}, std::pair{&mean, &n->stats}, std::pair{&var, &n->stats}}) {
    TensorDistAttr attr = spec->dist;
    attr.dimsMapping = mappingFor(*axes, *merged);
    info.outputs.push_back(std::move(attr));
  }
  return info;
}

/// layer_norm_grad: inputs (X, [Scale], [Bias], Mean, Variance, Y@GRAD),
/// outputs (X@GRAD, Scale@GRAD, Bias@GRAD). X, the statistics and Y@GRAD
/// agree on the leading axes; Scale@GRAD and Bias@GRAD sum over them, so
/// they are partial over the mesh axes that split them.
llvm::Expected<SpmdInfo> inferLayerNormGrad(const SpmdCall &call) {
  size_t count = call.inputs.size();
  if (count < 4 || count > 6)
    return spmdError(call, "takes X, optionally Scale and Bias, Mean, Variance and Y@GRAD, got " +
                               llvm::Twine(count) + " inputs");
  const DistTensorSpec &x = call.inputs[0], &mean = call.inputs[count - 3],
                       &var = call.inputs[count - 2], &g = call.inputs[count - 1];
  llvm::ArrayRef<DistTensorSpec> params(call.inputs.data() + 1, count - 4);
  int64_t begin = call.attrs.getInt("begin_norm_axis", 1);
  auto n = layerNormNotation(call, x.rank(), begin, begin > 1 && mean.rank() == 1);
  if (!n)
    return n.takeError();
  if (g.rank() != x.rank())
    return spmdError(call, "Y@GRAD must have X's " + llvm::Twine(x.rank()) + " axes, got " +
                               llvm::Twine(g.rank()));
  if (mean.rank() != static_cast<int64_t>(n->stats.size()) || var.rank() != mean.rank())
    return spmdError(call, "Mean and Variance must have " + llvm::Twine(n->stats.size()) +
                               " axes, got " + llvm::Twine(mean.rank()) + " and " +
                               llvm::Twine(var.rank()));
  auto merged = mergeShardings(
      call, {notated(n->x, x.dist.dimsMapping), notated(n->stats, mean.dist.dimsMapping),
             notated(n->stats, var.dist.dimsMapping), notated(n->x, g.dist.dimsMapping)});
  if (!merged)
    return merged.takeError();
  std::vector<int64_t> xDims = mappingFor(n->x, *merged);
  TensorDistAttr stats = makeDistAttr(mappingFor(n->stats, *merged));
  std::vector<int64_t> partial = shardedMeshDims(xDims);

  SpmdInfo info;
  info.inputs.push_back(makeDistAttr(xDims));
  for (const DistTensorSpec &param : params)
    info.inputs.push_back(replicatedLike(param));
  info.inputs.push_back(stats);
  info.inputs.push_back(stats);
  info.inputs.push_back(makeDistAttr(xDims));
  // Scale@GRAD and Bias@GRAD have their parameter's shape (1-D when absent).
  auto paramGrad = [&](size_t i) {
    size_t rank = params.empty() ? 1 : params[std::min(i, params.size() - 1)].shape.size();
    return makeDistAttr(std::vector<int64_t>(rank, kReplicated), partial);
  };
  info.outputs = {makeDistAttr(xDims), paramGrad(0), paramGrad(1)};
  return info;
}

//===----------------------------------------------------------------------===//
// cross_entropy_with_softmax (softmax_with_cross_entropy)
//===----------------------------------------------------------------------===//

/// Paddle's notation: Logits' softmax axis is k, a hard Label and the Loss
/// have size 1 there ('1'). `shardSoftmaxAxis` (Paddle's static rule) lets
/// k stay split: the softmax and the loss then reduce across ranks
/// (c_softmax_with_cross_entropy).
struct CrossEntropyNotation {
  std::string xSrc, xDst, labelSrc, labelDst, loss, softmaxSrc, softmaxDst;
};

CrossEntropyNotation crossEntropyNotation(int64_t rank, int64_t axis, bool softLabel,
                                          bool useSoftmax, bool shardSoftmaxAxis) {
  CrossEntropyNotation n;
  n.xSrc = broadcastAxes(rank, rank, "abcdefghijlmnopqrstuvwxyz");
  n.xSrc[axis] = 'k';
  n.xDst = n.xSrc;
  if (!shardSoftmaxAxis)
    n.xDst[axis] = '1';
  n.labelSrc = n.xSrc;
  n.labelDst = n.xDst;
  if (!softLabel)
    n.labelSrc[axis] = n.labelDst[axis] = '1';
  n.loss = n.xSrc;
  n.loss[axis] = '1';
  if (useSoftmax) {
    n.softmaxSrc = n.xSrc;
    n.softmaxDst = n.xDst;
  }
  return n;
}

struct CrossEntropyAttrs {
  bool softLabel, useSoftmax;
  int64_t axis;
};

/// The attributes, with `axis` normalized against a tensor of `rank` axes.
llvm::Expected<CrossEntropyAttrs> crossEntropyAttrs(const SpmdCall &call, int64_t rank) {
  if (rank < 1 || rank > 25)
    return spmdError(call, "Logits must have 1 to 25 axes, got " + llvm::Twine(rank));
  CrossEntropyAttrs a{call.attrs.getBool("soft_label", false),
                      call.attrs.getBool("use_softmax", true), call.attrs.getInt("axis", -1)};
  if (a.axis < -rank || a.axis >= rank)
    return spmdError(call, "axis " + llvm::Twine(a.axis) + " is out of range for " +
                               llvm::Twine(rank) + " axes");
  if (a.axis < 0)
    a.axis += rank;
  return a;
}

llvm::Error expectSameRank(const SpmdCall &call, const DistTensorSpec &spec, int64_t rank,
                           const llvm::Twine &what) {
  if (spec.rank() == rank)
    return llvm::Error::success();
  return spmdError(call, what + " must have " + llvm::Twine(rank) + " axes like Logits, got " +
                             llvm::Twine(spec.rank()));
}

/// Splitting the softmax axis needs the c_softmax_with_cross_entropy
/// kernel: hard labels, the last axis, and the softmax.
llvm::Expected<SpmdInfo> inferCrossEntropy(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &label = call.inputs[1];
  auto a = crossEntropyAttrs(call, x.rank());
  if (!a)
    return a.takeError();
  if (llvm::Error err = expectSameRank(call, label, x.rank(), "Label"))
    return std::move(err);
  if (int64_t meshDim = x.dist.dimsMapping[a->axis]; meshDim != kReplicated) {
    const char *why = a->softLabel              ? "soft_label does not support"
                      : a->axis != x.rank() - 1 ? "only the last axis supports"
                      : !a->useSoftmax          ? "needs use_softmax"
                                                : nullptr;
    if (why)
      return spmdError(call, "Logits' softmax axis " + llvm::Twine(a->axis) +
                                 " is split by mesh axis " + llvm::Twine(meshDim) + ", which " +
                                 why);
  }
  CrossEntropyNotation n =
      crossEntropyNotation(x.rank(), a->axis, a->softLabel, a->useSoftmax, true);
  auto merged = mergeShardings(
      call, {notated(n.xSrc, x.dist.dimsMapping), notated(n.labelSrc, label.dist.dimsMapping)});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(n.xDst, *merged)),
                 makeDistAttr(mappingFor(n.labelDst, *merged))};
  // Without use_softmax Paddle gives the softmax output no dims_mapping.
  info.outputs = {makeDistAttr(mappingFor(n.softmaxDst, *merged)),
                  makeDistAttr(mappingFor(n.loss, *merged))};
  return info;
}

llvm::Expected<SpmdInfo> inferCrossEntropyReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 2, true, 2))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &softmax = call.outputs[0], &loss = call.outputs[1];
  auto a = crossEntropyAttrs(call, x.rank());
  if (!a)
    return a.takeError();
  if (llvm::Error err = expectSameRank(call, loss, x.rank(), "Loss"))
    return std::move(err);
  CrossEntropyNotation n =
      crossEntropyNotation(x.rank(), a->axis, a->softLabel, a->useSoftmax, true);
  std::vector<AxisTensor> tensors = {notated(n.loss, loss.dist.dimsMapping)};
  if (a->useSoftmax) {
    if (llvm::Error err = expectSameRank(call, softmax, x.rank(), "Softmax"))
      return std::move(err);
    tensors.push_back(notated(n.softmaxSrc, softmax.dist.dimsMapping));
  }
  auto merged = mergeShardings(call, tensors);
  if (!merged)
    return merged.takeError();
  std::vector<int64_t> xDims = mappingFor(n.xDst, *merged);
  std::vector<int64_t> labelDims = mappingFor(n.labelDst, *merged);
  std::vector<int64_t> softmaxDims = mappingFor(n.softmaxDst, *merged);
  // The softmax axis stays split only where the forward rule allows it.
  bool splittable = a->useSoftmax && a->axis == x.rank() - 1 && !a->softLabel;
  if (xDims[a->axis] != kReplicated && !splittable) {
    xDims[a->axis] = kReplicated;
    if (a->useSoftmax)
      softmaxDims[a->axis] = labelDims[a->axis] = kReplicated;
  }
  SpmdInfo info;
  info.inputs = {makeDistAttr(xDims), makeDistAttr(labelDims)};
  TensorDistAttr softmaxAttr = softmax.dist, lossAttr = loss.dist;
  softmaxAttr.dimsMapping = softmaxDims;
  lossAttr.dimsMapping = mappingFor(n.loss, *merged);
  info.outputs = {softmaxAttr, lossAttr};
  return info;
}

/// cross_entropy_with_softmax_grad: inputs (Label, Softmax, Loss@GRAD),
/// output Logits@GRAD, which takes Label's layout. Unlike the forward rule,
/// Paddle's gradient rule keeps the softmax axis whole.
llvm::Expected<SpmdInfo> inferCrossEntropyGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  const DistTensorSpec &label = call.inputs[0], &softmax = call.inputs[1], &g = call.inputs[2];
  auto a = crossEntropyAttrs(call, g.rank());
  if (!a)
    return a.takeError();
  if (llvm::Error err = expectSameRank(call, label, g.rank(), "Label"))
    return std::move(err);
  CrossEntropyNotation n =
      crossEntropyNotation(g.rank(), a->axis, a->softLabel, a->useSoftmax, false);
  std::vector<AxisTensor> tensors = {notated(n.labelSrc, label.dist.dimsMapping)};
  if (a->useSoftmax) {
    if (llvm::Error err = expectSameRank(call, softmax, g.rank(), "Softmax"))
      return std::move(err);
    tensors.push_back(notated(n.softmaxSrc, softmax.dist.dimsMapping));
  }
  tensors.push_back(notated(n.loss, g.dist.dimsMapping));
  auto merged = mergeShardings(call, tensors);
  if (!merged)
    return merged.takeError();
  TensorDistAttr labelAttr = makeDistAttr(mappingFor(n.labelDst, *merged));
  SpmdInfo info;
  // Without use_softmax the Softmax input takes no part: replicated.
  info.inputs = {labelAttr,
                 a->useSoftmax ? makeDistAttr(mappingFor(n.softmaxDst, *merged))
                               : replicatedLike(softmax),
                 makeDistAttr(mappingFor(n.loss, *merged))};
  info.outputs = {labelAttr};
  return info;
}

//===----------------------------------------------------------------------===//
// batch_norm, sync_batch_norm, affine_channel: per-channel normalization
//===----------------------------------------------------------------------===//

/// Whether the op normalizes with the running statistics (Mean, Variance)
/// rather than the batch's: Paddle's use_global_stats, or is_test without
/// trainable_statistics.
bool usesRunningStats(const SpmdAttrs &attrs) {
  return attrs.getBool("use_global_stats", false) ||
         (attrs.getBool("is_test", false) && !attrs.getBool("trainable_statistics", false));
}

/// How batch normalization lets X be split:
///  * batch_norm with the batch's statistics (Paddle's rule): only the
///    channel axis -- the statistics of a channel need its whole batch;
///  * sync_batch_norm with the batch's statistics: every axis but the
///    channel -- the kernel all-reduces the per-channel sums over every
///    rank, which gives the global batch's statistics when ranks hold
///    different rows (and the same ones when they hold copies), but mixes
///    channels when ranks hold different channels;
///  * either with the running statistics (distc; Paddle's rule does not
///    look at the mode): any axis, the op is then a per-channel affine map.
struct BatchNormForm {
  std::string x; // X's axes
  char channel;
  std::vector<int64_t> xDims; // X's dims_mapping, restricted as above
};

llvm::Expected<BatchNormForm> batchNormForm(const SpmdCall &call, const DistTensorSpec &x,
                                            bool sync) {
  if (x.rank() < 2 || x.rank() > 5)
    return spmdError(call, "X must have 2 to 5 axes, got " + llvm::Twine(x.rank()));
  BatchNormForm f;
  f.x = std::string(kNormAlphabet.substr(0, x.rank()));
  int64_t c = channelAxis(call.attrs.getString("data_format", "NCHW"), x.rank());
  f.channel = f.x[c];
  f.xDims = x.dist.dimsMapping;
  if (!usesRunningStats(call.attrs)) {
    for (int64_t i = 0; i < x.rank(); ++i)
      if ((i == c) == sync)
        f.xDims[i] = kReplicated;
  }
  return f;
}

llvm::Error
expectChannelVectors(const SpmdCall &call,
                     std::initializer_list<std::pair<const DistTensorSpec *, const char *>> specs) {
  for (const auto &[spec, name] : specs)
    if (llvm::Error err = expectRank(call, *spec, 1, name))
      return err;
  return llvm::Error::success();
}

/// Paddle's slot order: (x, mean, variance, scale, bias); outputs (out,
/// mean_out, variance_out, saved_mean, saved_variance, reserve_space).
/// Every per-channel tensor follows X's channel axis (Paddle's 4-D rule;
/// its N-D rule leaves Scale and Bias replicated, which does not fit the
/// local kernel when the channels are split).
llvm::Expected<SpmdInfo> batchNormForward(const SpmdCall &call, const DistTensorSpec &x,
                                          const DistTensorSpec &mean, const DistTensorSpec &var,
                                          const DistTensorSpec &scale, const DistTensorSpec &bias,
                                          bool sync) {
  if (llvm::Error err = expectChannelVectors(
          call, {{&mean, "Mean"}, {&var, "Variance"}, {&scale, "Scale"}, {&bias, "Bias"}}))
    return std::move(err);
  auto f = batchNormForm(call, x, sync);
  if (!f)
    return f.takeError();
  auto merged = mergeShardings(call, {{f->x, f->xDims}});
  if (!merged)
    return merged.takeError();
  TensorDistAttr perChannel = makeDistAttr(mappingFor(std::string(1, f->channel), *merged));
  SpmdInfo info;
  info.inputs = {makeDistAttr(f->xDims), perChannel, perChannel, perChannel, perChannel};
  info.outputs = {makeDistAttr(mappingFor(f->x, *merged)),
                  perChannel,
                  perChannel,
                  perChannel,
                  perChannel,
                  TensorDistAttr::replicated(1)};
  return info;
}

/// batch_norm as Paddle's rule orders it: (x, mean, variance, scale, bias).
llvm::Expected<SpmdInfo> inferBatchNorm(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 5, false, 0))
    return std::move(err);
  const auto &in = call.inputs;
  return batchNormForward(call, in[0], in[1], in[2], in[3], in[4], /*sync=*/false);
}

/// The program op's slot order: (X, Scale, Bias, Mean, Variance).
llvm::Expected<SpmdInfo> batchNormProgramOrder(const SpmdCall &call, bool sync) {
  if (llvm::Error err = checkArity(call, 5, false, 0))
    return std::move(err);
  const auto &in = call.inputs;
  auto info = batchNormForward(call, in[0], in[3], in[4], in[1], in[2], sync);
  if (!info)
    return info.takeError();
  std::vector<TensorDistAttr> paddleOrder = info->inputs;
  info->inputs = {paddleOrder[0], paddleOrder[3], paddleOrder[4], paddleOrder[1], paddleOrder[2]};
  return info;
}

/// fluid_batch_norm: Paddle's batch_norm rule over the program op's slots.
llvm::Expected<SpmdInfo> inferFluidBatchNorm(const SpmdCall &call) {
  return batchNormProgramOrder(call, /*sync=*/false);
}

/// sync_batch_norm (distc; Paddle has no rule): see BatchNormForm.
llvm::Expected<SpmdInfo> inferSyncBatchNorm(const SpmdCall &call) {
  return batchNormProgramOrder(call, /*sync=*/true);
}

/// batch_norm_grad: inputs (x, scale, bias, [mean_out, variance_out],
/// saved_mean, saved_variance, [reserve_space], out_grad) -- Paddle's order
/// and the program op's, whose running statistics and reserve space are
/// optional -- outputs (x_grad, scale_grad, bias_grad). Scale@GRAD and
/// Bias@GRAD are this rank's per-channel sums: partial over the mesh axes
/// that split X's other axes (only possible with the running statistics or
/// with sync_batch_norm, whose kernel all-reduces only dX's sums).
llvm::Expected<SpmdInfo> batchNormGrad(const SpmdCall &call, bool sync) {
  size_t count = call.inputs.size();
  if (count < 6 || count > 9)
    return spmdError(call, "takes X, Scale, Bias, optionally Mean and Variance, SavedMean, "
                           "SavedVariance, optionally ReserveSpace, and Y@GRAD; got " +
                               llvm::Twine(count) + " inputs");
  const DistTensorSpec &x = call.inputs[0], &g = call.inputs[count - 1];
  // Mean and Variance come together: 9 and 8 inputs have them, 9 and 7 the
  // reserve space.
  size_t reserveSlot = count == 9 || count == 7 ? count - 2 : count;
  if (llvm::Error err = expectRank(call, g, x.rank(), "Y@GRAD"))
    return std::move(err);
  for (size_t i = 1; i + 1 < count; ++i)
    if (i != reserveSlot)
      if (llvm::Error err = expectRank(call, call.inputs[i], 1,
                                       "input " + llvm::Twine(i) + " (a per-channel vector)"))
        return std::move(err);
  auto f = batchNormForm(call, x, sync);
  if (!f)
    return f.takeError();
  auto merged = mergeShardings(call, {{f->x, f->xDims}});
  if (!merged)
    return merged.takeError();
  std::string channel(1, f->channel);
  std::vector<int64_t> xDims = mappingFor(f->x, *merged);
  TensorDistAttr perChannel = makeDistAttr(mappingFor(channel, *merged));
  SpmdInfo info;
  for (size_t i = 0; i < count; ++i) {
    if (i == 0 || i == count - 1)
      info.inputs.push_back(makeDistAttr(xDims));
    else if (i == reserveSlot)
      info.inputs.push_back(replicatedLike(call.inputs[i]));
    else
      info.inputs.push_back(perChannel);
  }
  TensorDistAttr paramGrad = makeDistAttr(perChannel.dimsMapping, partialDimsFor(*merged, channel));
  info.outputs = {makeDistAttr(xDims), paramGrad, paramGrad};
  return info;
}

llvm::Expected<SpmdInfo> inferBatchNormGrad(const SpmdCall &call) {
  return batchNormGrad(call, /*sync=*/false);
}

llvm::Expected<SpmdInfo> inferSyncBatchNormGrad(const SpmdCall &call) {
  return batchNormGrad(call, /*sync=*/true);
}

/// affine_channel (distc; Paddle has no rule): Out = X * Scale[c] + Bias[c]
/// is elementwise with per-channel parameters, so X may be split anywhere,
/// and Scale and Bias follow X's channel axis.
struct AffineChannelNotation {
  std::string x, channel;
};

AffineChannelNotation affineChannelNotation(const SpmdCall &call, int64_t rank) {
  AffineChannelNotation n;
  n.x = std::string(kNormAlphabet.substr(0, std::min<int64_t>(rank, kNormAlphabet.size())));
  n.channel = n.x.substr(channelAxis(call.attrs.getString("data_layout", "AnyLayout"), rank), 1);
  return n;
}

llvm::Expected<SpmdInfo> inferAffineChannel(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &scale = call.inputs[1], &bias = call.inputs[2];
  if (x.rank() < 2 || x.rank() > static_cast<int64_t>(kNormAlphabet.size()))
    return spmdError(call, "X must have 2 to 18 axes, got " + llvm::Twine(x.rank()));
  if (llvm::Error err = expectChannelVectors(call, {{&scale, "Scale"}, {&bias, "Bias"}}))
    return std::move(err);
  AffineChannelNotation n = affineChannelNotation(call, x.rank());
  auto merged = mergeShardings(call, {{n.x, x.dist.dimsMapping},
                                      {n.channel, scale.dist.dimsMapping},
                                      {n.channel, bias.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  TensorDistAttr perChannel = makeDistAttr(mappingFor(n.channel, *merged));
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(n.x, *merged)), perChannel, perChannel};
  info.outputs = {makeDistAttr(mappingFor(n.x, *merged))};
  return info;
}

llvm::Expected<SpmdInfo> inferAffineChannelReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, true, 1))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &out = call.outputs[0];
  if (llvm::Error err = expectRank(call, out, x.rank(), "Out"))
    return std::move(err);
  AffineChannelNotation n = affineChannelNotation(call, x.rank());
  auto merged = mergeShardings(call, {{n.x, out.dist.dimsMapping}}, false);
  if (!merged)
    return merged.takeError();
  TensorDistAttr perChannel = makeDistAttr(mappingFor(n.channel, *merged));
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(n.x, *merged)), perChannel, perChannel};
  info.outputs = {makeDistAttr(mappingFor(n.x, *merged))};
  return info;
}

/// affine_channel_grad: inputs (X, Scale, Out@GRAD), outputs (X@GRAD,
/// Scale@GRAD, Bias@GRAD); the parameter gradients sum over every axis but
/// the channel: partial over the mesh axes splitting those.
llvm::Expected<SpmdInfo> inferAffineChannelGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0], &scale = call.inputs[1], &g = call.inputs[2];
  if (x.rank() < 2 || x.rank() > static_cast<int64_t>(kNormAlphabet.size()))
    return spmdError(call, "X must have 2 to 18 axes, got " + llvm::Twine(x.rank()));
  if (llvm::Error err = expectRank(call, scale, 1, "Scale"))
    return std::move(err);
  if (llvm::Error err = expectRank(call, g, x.rank(), "Out@GRAD"))
    return std::move(err);
  AffineChannelNotation n = affineChannelNotation(call, x.rank());
  auto merged = mergeShardings(
      call,
      {{n.x, x.dist.dimsMapping}, {n.channel, scale.dist.dimsMapping}, {n.x, g.dist.dimsMapping}});
  if (!merged)
    return merged.takeError();
  TensorDistAttr xAttr = makeDistAttr(mappingFor(n.x, *merged));
  TensorDistAttr perChannel = makeDistAttr(mappingFor(n.channel, *merged));
  TensorDistAttr paramGrad =
      makeDistAttr(perChannel.dimsMapping, partialDimsFor(*merged, n.channel));
  SpmdInfo info;
  info.inputs = {xAttr, perChannel, xAttr};
  info.outputs = {xAttr, paramGrad, paramGrad};
  return info;
}

//===----------------------------------------------------------------------===//
// conv2d, depthwise_conv2d, conv2d_transpose
//===----------------------------------------------------------------------===//

enum class ConvKind { Conv, Depthwise, Transpose };

/// Paddle's notation is nchw,mchw->nmhw (conv2d_transpose: nchw,cmhw->nmhw):
/// the input channels c are contracted (a split c leaves the output
/// partial), the output channels m come from the filter. distc deviates
/// where that notation does not describe the local computation:
///  * the spatial axes are never split ('1'): Paddle names the input's,
///    the filter's and the output's spatial axes alike, but a window
///    crosses the boundary of a split input, and the filter's spatial axes
///    are not the output's;
///  * with groups > 1 (every depthwise convolution) the channels are not
///    split either: a rank's slice of filters belongs to other groups of
///    input channels than the local kernel, with the same `groups`,
///    assigns them;
///  * channels-last (NHWC) inputs have channels-last outputs (Paddle names
///    the output nmhw whatever the layout);
///  * with the fused form's Bias, c is not split: every rank would add the
///    bias to its partial output.
struct ConvNotation {
  std::string input, filter, output;
  int64_t inputChannel, filterChannel, outputChannel;
};

ConvNotation convNotation(ConvKind kind, bool channelsLast, bool splitChannels,
                          bool splitContraction) {
  char c = splitChannels && splitContraction && kind != ConvKind::Depthwise ? 'c' : '1';
  char m = splitChannels ? 'm' : '1';
  ConvNotation n;
  n.inputChannel = n.outputChannel = channelsLast ? 3 : 1;
  n.input = channelsLast ? std::string{'n', '1', '1', c} : std::string{'n', c, '1', '1'};
  n.output = channelsLast ? std::string{'n', '1', '1', m} : std::string{'n', m, '1', '1'};
  switch (kind) {
  case ConvKind::Conv:
    n.filter = {m, c, '1', '1'};
    n.filterChannel = 1;
    break;
  case ConvKind::Depthwise:
    n.filter = {m, '1', '1', '1'};
    n.filterChannel = 1;
    break;
  case ConvKind::Transpose:
    n.filter = {c, m, '1', '1'};
    n.filterChannel = 0;
    break;
  }
  return n;
}

/// Whether the op has the fused form's Bias: conv2d and depthwise_conv2d
/// take (Input, Filter, [Bias]), their gradients (Input, Filter, [Bias],
/// Output@GRAD).
llvm::Expected<bool> convHasBias(const SpmdCall &call, ConvKind kind, size_t operands) {
  size_t count = call.inputs.size();
  if (count == operands || (kind != ConvKind::Transpose && count == operands + 1))
    return count == operands + 1;
  return spmdError(call, "takes " + llvm::Twine(operands) + " inputs" +
                             (kind != ConvKind::Transpose ? " (and Bias)" : "") + ", got " +
                             llvm::Twine(count));
}

/// The notation of `call`'s convolution, after Paddle's checks of the
/// operands' ranks and channel shardings.
llvm::Expected<ConvNotation> convNotationFor(const SpmdCall &call, ConvKind kind, bool hasBias) {
  const DistTensorSpec &input = call.inputs[0], &filter = call.inputs[1];
  if (llvm::Error err = expectRank(call, input, 4, "Input"))
    return std::move(err);
  if (llvm::Error err = expectRank(call, filter, 4, "Filter"))
    return std::move(err);
  bool channelsLast = call.attrs.getString("data_format", "NCHW") == "NHWC";
  bool splitChannels = call.attrs.getInt("groups", 1) == 1;
  ConvNotation n = convNotation(kind, channelsLast, splitChannels, !hasBias);
  return n;
}

/// Paddle's forward checks: the contracted channel axis is split alike in
/// Input and Filter; a depthwise filter's second axis is never split.
llvm::Error checkConvChannels(const SpmdCall &call, ConvKind kind, const ConvNotation &n) {
  const DistTensorSpec &input = call.inputs[0], &filter = call.inputs[1];
  if (kind == ConvKind::Depthwise) {
    if (filter.dist.dimsMapping[1] != kReplicated)
      return spmdError(call, "a depthwise Filter's axis 1 must not be split, got mesh axis " +
                                 llvm::Twine(filter.dist.dimsMapping[1]));
    return llvm::Error::success();
  }
  int64_t inputC = input.dist.dimsMapping[n.inputChannel];
  int64_t filterC = filter.dist.dimsMapping[kind == ConvKind::Transpose ? 0 : 1];
  if (inputC != filterC)
    return spmdError(call, "Input's channel axis " + llvm::Twine(n.inputChannel) + " (mesh axis " +
                               llvm::Twine(inputC) + ") and Filter's input channels (mesh axis " +
                               llvm::Twine(filterC) + ") must be split alike");
  return llvm::Error::success();
}

template <ConvKind Kind> llvm::Expected<SpmdInfo> inferConv(const SpmdCall &call) {
  auto hasBias = convHasBias(call, Kind, 2);
  if (!hasBias)
    return hasBias.takeError();
  auto n = convNotationFor(call, Kind, *hasBias);
  if (!n)
    return n.takeError();
  if (llvm::Error err = checkConvChannels(call, Kind, *n))
    return std::move(err);
  const DistTensorSpec &input = call.inputs[0], &filter = call.inputs[1];
  auto merged = mergeShardings(call, {notated(n->input, input.dist.dimsMapping),
                                      notated(n->filter, filter.dist.dimsMapping)});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(n->input, *merged)),
                 makeDistAttr(mappingFor(n->filter, *merged))};
  if (*hasBias)
    info.inputs.push_back(makeDistAttr(mappingFor(n->output.substr(n->outputChannel, 1), *merged)));
  info.outputs = {makeDistAttr(mappingFor(n->output, *merged), partialDimsFor(*merged, n->output))};
  return info;
}

/// From the output alone (Paddle's conv2d reverse rule; distc gives
/// depthwise_conv2d and conv2d_transpose the same, where Paddle registers
/// the gradient rule).
template <ConvKind Kind> llvm::Expected<SpmdInfo> inferConvReverse(const SpmdCall &call) {
  auto hasBias = convHasBias(call, Kind, 2);
  if (!hasBias)
    return hasBias.takeError();
  if (call.outputs.size() != 1)
    return spmdError(call,
                     "reverse inference takes 1 output, got " + llvm::Twine(call.outputs.size()));
  auto n = convNotationFor(call, Kind, *hasBias);
  if (!n)
    return n.takeError();
  const DistTensorSpec &out = call.outputs[0];
  if (llvm::Error err = expectRank(call, out, 4, "Output"))
    return std::move(err);
  auto merged = mergeShardings(call, {notated(n->output, out.dist.dimsMapping)}, false);
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(n->input, *merged)),
                 makeDistAttr(mappingFor(n->filter, *merged))};
  if (*hasBias)
    info.inputs.push_back(makeDistAttr(mappingFor(n->output.substr(n->outputChannel, 1), *merged)));
  TensorDistAttr outAttr = out.dist;
  outAttr.dimsMapping = mappingFor(n->output, *merged);
  info.outputs = {outAttr};
  return info;
}

/// The gradients (Paddle's Conv2dGradInferSpmdBase): Input@GRAD is the
/// product of Filter and Output@GRAD (partial over the mesh axis of the
/// output channels it contracts), Filter@GRAD that of Input and Output@GRAD
/// (partial over the batch's). An Output@GRAD partial over the mesh axis
/// that splits the input channels (the forward output was partial there)
/// keeps both gradients split on it. conv2d_grad and depthwise_conv2d_grad
/// also give Bias@GRAD (the program op's third result, whether or not Bias
/// is given): Output@GRAD summed over all but the channel axis.
template <ConvKind Kind> llvm::Expected<SpmdInfo> inferConvGrad(const SpmdCall &call) {
  auto hasBias = convHasBias(call, Kind, 3);
  if (!hasBias)
    return hasBias.takeError();
  auto n = convNotationFor(call, Kind, *hasBias);
  if (!n)
    return n.takeError();
  const DistTensorSpec &input = call.inputs[0], &filter = call.inputs[1], &g = call.inputs.back();
  if (llvm::Error err = expectRank(call, g, 4, "Output@GRAD"))
    return std::move(err);
  AxisTensor inputT = notated(n->input, input.dist.dimsMapping);
  AxisTensor filterT = notated(n->filter, filter.dist.dimsMapping);
  AxisTensor gT = notated(n->output, g.dist.dimsMapping);
  auto viaFilter = mergeShardings(call, {filterT, gT});
  if (!viaFilter)
    return viaFilter.takeError();
  auto viaInput = mergeShardings(call, {inputT, gT});
  if (!viaInput)
    return viaInput.takeError();
  auto all = mergeShardings(call, {inputT, filterT, gT});
  if (!all)
    return all.takeError();

  TensorDistAttr inputGrad =
      makeDistAttr(mappingFor(n->input, *viaFilter), partialDimsFor(*viaFilter, n->input));
  TensorDistAttr filterGrad =
      makeDistAttr(mappingFor(n->filter, *viaInput), partialDimsFor(*viaInput, n->filter));
  TensorDistAttr gAttr = makeDistAttr(mappingFor(n->output, *all));
  if (g.dist.isPartial() && Kind != ConvKind::Depthwise) {
    std::vector<int64_t> partial = g.dist.partialDims();
    if (partial.size() != 1)
      return spmdError(call, "Output@GRAD may be partial over one mesh axis (the one splitting "
                             "the input channels), got " +
                                 llvm::Twine(partial.size()));
    int64_t d = partial.front();
    bool channelsSplit = n->input[n->inputChannel] != '1';
    if (channelsSplit && input.dist.dimsMapping[n->inputChannel] == d &&
        filter.dist.dimsMapping[n->filterChannel] == d) {
      inputGrad.dimsMapping[n->inputChannel] = d;
      filterGrad.dimsMapping[n->filterChannel] = d;
      gAttr.partial[d] = ReduceType::Sum;
    }
  }
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(n->input, *viaInput)),
                 makeDistAttr(mappingFor(n->filter, *viaFilter))};
  if (*hasBias)
    info.inputs.push_back(makeDistAttr({gAttr.dimsMapping[n->outputChannel]}));
  info.inputs.push_back(gAttr);
  info.outputs = {inputGrad, filterGrad};
  if (Kind != ConvKind::Transpose) {
    std::vector<int64_t> summed = gAttr.partialDims();
    for (int64_t i = 0; i < 4; ++i)
      if (i != n->outputChannel && gAttr.dimsMapping[i] != kReplicated)
        summed.push_back(gAttr.dimsMapping[i]);
    std::sort(summed.begin(), summed.end());
    summed.erase(std::unique(summed.begin(), summed.end()), summed.end());
    info.outputs.push_back(makeDistAttr({gAttr.dimsMapping[n->outputChannel]}, summed));
  }
  return info;
}

//===----------------------------------------------------------------------===//
// pool2d (distc; Paddle has no rule)
//===----------------------------------------------------------------------===//

/// Pooling works on each (sample, channel) plane alone: the batch and the
/// channels may be split, the spatial axes not (a window would cross the
/// boundary).
std::string poolNotation(const SpmdCall &call) {
  return call.attrs.getString("data_format", "NCHW") == "NHWC" ? "n11c" : "nc11";
}

llvm::Expected<SpmdInfo> inferPool2d(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, false, 0))
    return std::move(err);
  const DistTensorSpec &x = call.inputs[0];
  if (llvm::Error err = expectRank(call, x, 4, "X"))
    return std::move(err);
  std::string axes = poolNotation(call);
  auto merged = mergeShardings(call, {notated(axes, x.dist.dimsMapping)});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(axes, *merged))};
  info.outputs = {makeDistAttr(mappingFor(axes, *merged))};
  return info;
}

llvm::Expected<SpmdInfo> inferPool2dReverse(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 1, true, 1))
    return std::move(err);
  if (llvm::Error err = expectRank(call, call.outputs[0], 4, "Out"))
    return std::move(err);
  std::string axes = poolNotation(call);
  auto merged = mergeShardings(call, {notated(axes, call.outputs[0].dist.dimsMapping)});
  if (!merged)
    return merged.takeError();
  SpmdInfo info;
  info.inputs = {makeDistAttr(mappingFor(axes, *merged))};
  info.outputs = {makeDistAttr(mappingFor(axes, *merged))};
  return info;
}

/// pool2d_grad: inputs (X, Out, Out@GRAD), output X@GRAD, all alike.
llvm::Expected<SpmdInfo> inferPool2dGrad(const SpmdCall &call) {
  if (llvm::Error err = checkArity(call, 3, false, 0))
    return std::move(err);
  std::string axes = poolNotation(call);
  std::vector<AxisTensor> tensors;
  for (size_t i = 0; i < 3; ++i) {
    if (llvm::Error err =
            expectRank(call, call.inputs[i], 4, i == 0 ? "X" : (i == 1 ? "Out" : "Out@GRAD")))
      return std::move(err);
    tensors.push_back(notated(axes, call.inputs[i].dist.dimsMapping));
  }
  auto merged = mergeShardings(call, tensors);
  if (!merged)
    return merged.takeError();
  TensorDistAttr attr = makeDistAttr(mappingFor(axes, *merged));
  SpmdInfo info;
  info.inputs = {attr, attr, attr};
  info.outputs = {attr};
  return info;
}

//===----------------------------------------------------------------------===//
// Paddle's generic rules: replicated and default_data_parallel
//===----------------------------------------------------------------------===//

/// Every input and output whole on every rank. The outputs are the call's
/// (their ranks: Paddle's rule is given the outputs in both directions).
llvm::Expected<SpmdInfo> inferReplicated(const SpmdCall &call) {
  SpmdInfo info;
  for (const DistTensorSpec &spec : call.inputs)
    info.inputs.push_back(replicatedLike(spec));
  for (const DistTensorSpec &spec : call.outputs)
    info.outputs.push_back(replicatedLike(spec));
  return info;
}

/// Axis 0 of every tensor is the batch: the mesh axis splitting it in any of
/// `from` (two different ones are an error) splits it in all; every other
/// axis is replicated.
llvm::Expected<SpmdInfo> defaultDataParallel(const SpmdCall &call,
                                             llvm::ArrayRef<DistTensorSpec> from) {
  std::vector<AxisTensor> batch;
  for (const DistTensorSpec &spec : from)
    if (spec.rank() > 0)
      batch.push_back({"b", {spec.dist.dimsMapping[0]}});
  auto merged = mergeShardings(call, batch);
  if (!merged)
    return merged.takeError();
  int64_t batchDim = mappingFor("b", *merged)[0];
  auto layout = [&](const DistTensorSpec &spec) {
    std::vector<int64_t> dims(spec.shape.size(), kReplicated);
    if (!dims.empty())
      dims[0] = batchDim;
    return makeDistAttr(dims);
  };
  SpmdInfo info;
  for (const DistTensorSpec &spec : call.inputs)
    info.inputs.push_back(layout(spec));
  for (const DistTensorSpec &spec : call.outputs)
    info.outputs.push_back(layout(spec));
  return info;
}

llvm::Expected<SpmdInfo> inferDefaultDataParallel(const SpmdCall &call) {
  return defaultDataParallel(call, call.inputs);
}

llvm::Expected<SpmdInfo> inferDefaultDataParallelReverse(const SpmdCall &call) {
  return defaultDataParallel(call, call.outputs);
}

} // namespace

void appendNnRules(std::vector<SpmdRule> &rules) {
  rules.push_back({"embedding", inferEmbedding, inferEmbeddingReverse, 1});
  rules.push_back({"lookup_table_v2", inferEmbedding, inferEmbeddingReverse, 1});
  rules.push_back({"embedding_grad", inferEmbeddingGrad, nullptr, -1});

  rules.push_back({"layer_norm", inferLayerNorm, inferLayerNormReverse, 3});
  rules.push_back({"layer_norm_grad", inferLayerNormGrad, nullptr, -1});

  rules.push_back({"cross_entropy_with_softmax", inferCrossEntropy, inferCrossEntropyReverse, 2});
  rules.push_back({"softmax_with_cross_entropy", inferCrossEntropy, inferCrossEntropyReverse, 2});
  rules.push_back({"cross_entropy_with_softmax_grad", inferCrossEntropyGrad, nullptr, -1});

  rules.push_back({"batch_norm", inferBatchNorm, nullptr, -1});
  rules.push_back({"fluid_batch_norm", inferFluidBatchNorm, nullptr, -1});
  rules.push_back({"batch_norm_grad", inferBatchNormGrad, nullptr, -1});
  rules.push_back({"sync_batch_norm", inferSyncBatchNorm, nullptr, -1});
  rules.push_back({"sync_batch_norm_grad", inferSyncBatchNormGrad, nullptr, -1});
  rules.push_back({"affine_channel", inferAffineChannel, inferAffineChannelReverse, 1});
  rules.push_back({"affine_channel_grad", inferAffineChannelGrad, nullptr, -1});

  rules.push_back({"conv2d", inferConv<ConvKind::Conv>, inferConvReverse<ConvKind::Conv>, 1});
  rules.push_back({"conv2d_grad", inferConvGrad<ConvKind::Conv>, nullptr, -1});
  rules.push_back({"depthwise_conv2d", inferConv<ConvKind::Depthwise>,
                   inferConvReverse<ConvKind::Depthwise>, 1});
  rules.push_back({"depthwise_conv2d_grad", inferConvGrad<ConvKind::Depthwise>, nullptr, -1});
  rules.push_back({"conv2d_transpose", inferConv<ConvKind::Transpose>,
                   inferConvReverse<ConvKind::Transpose>, 1});
  rules.push_back({"conv2d_transpose_grad", inferConvGrad<ConvKind::Transpose>, nullptr, -1});

  rules.push_back({"pool2d", inferPool2d, inferPool2dReverse, 1});
  rules.push_back({"pool2d_grad", inferPool2dGrad, nullptr, -1});

  rules.push_back({"replicated", inferReplicated, inferReplicated, -1});
  rules.push_back(
      {"default_data_parallel", inferDefaultDataParallel, inferDefaultDataParallelReverse, -1});
  rules.push_back({"default_", inferDefaultDataParallel, inferDefaultDataParallelReverse, -1});
}

} // namespace distc::sharding::detail
