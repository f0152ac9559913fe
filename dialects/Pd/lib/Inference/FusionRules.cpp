//===- FusionRules.cpp - Inference of the ops the fusion passes write ----===//

#include "Inference/InferContext.h"

using namespace mlir;

namespace distc::pd::infer {

/// The activation of a fused_elemwise_add_activation(_grad) functor list
/// and whether the add comes first (X + act(Y)), or failure (reported).
static FailureOr<std::pair<std::string, bool>> addActivationOf(InferContext &c, bool grad) {
  SmallVector<std::string> functors;
  for (const std::string &f : c.getStrings("functor_list"))
    functors.push_back(f);
  std::string add = grad ? "elementwise_add_grad" : "elementwise_add";
  auto isAct = [&](const std::string &f) {
    return grad ? f == "relu_grad" || f == "tanh_grad" : f == "relu" || f == "tanh";
  };
  if (functors.size() == 2 && functors[0] == add && isAct(functors[1]))
    return std::make_pair(functors[1], true);
  if (functors.size() == 2 && isAct(functors[0]) && functors[1] == add)
    return std::make_pair(functors[0], false);
  c.error() << "attribute 'functor_list' must be [" << add << ", act] or [act, " << add
            << "] with act " << (grad ? "relu_grad or tanh_grad" : "relu or tanh");
  return failure();
}

/// act(X + Y) (Y broadcast into X as elementwise_add does) or X + act(Y)
/// (one shape): Out and IntermediateOut have X's type.
LogicalResult inferFusedElemwiseActivation(InferContext &c) {
  FailureOr<std::pair<std::string, bool>> form = addActivationOf(c, /*grad=*/false);
  if (failed(form) || failed(c.requireSameElementType(0, 1)))
    return failure();
  RankedTensorType x = c.input(0), y = c.input(1);
  if (form->second && x.getShape() != y.getShape())
    return c.error() << "X + act(Y) needs input slots 'X' " << x << " and 'Y' " << y
                     << " of one shape";
  if (y.getRank() > x.getRank())
    return c.error() << "input slot 'Y' " << y << " has a higher rank than 'X' " << x;
  c.setResult(0, x);
  c.setResult(1, form->second ? y : x);
  return success();
}

/// X@GRAD, Y@GRAD and IntermediateOut@GRAD have the types of X (or, when
/// absent, Out@GRAD), Y and the intermediate value.
LogicalResult inferFusedElemwiseActivationGrad(InferContext &c) {
  FailureOr<std::pair<std::string, bool>> form = addActivationOf(c, /*grad=*/true);
  if (failed(form))
    return failure();
  RankedTensorType x = c.input(0), y = c.input(1), out = c.input(2), inter = c.input(3),
                   dout = c.input(4);
  if (form->second ? !inter : !out)
    return c.error() << "functor_list ["
                     << (form->second ? "elementwise_add_grad, act_grad"
                                      : "act_grad, elementwise_add_grad")
                     << "] needs input slot '" << (form->second ? "IntermediateOut" : "Out") << "'";
  c.setResult(0, x ? x : dout);
  c.setResult(1, y);
  c.setResult(2, form->second ? y : dout);
  return success();
}

/// X [..., K] (its leading dims the rows; [K, M] with trans_x), Y [K, N]
/// ([N, K] with trans_y), Bias [N]: Out and ReserveSpace are X's rows by N.
LogicalResult inferFusedGemmEpilogue(InferContext &c) {
  RankedTensorType x = c.input(0), y = c.input(1), bias = c.input(2);
  if (failed(c.requireSameElementType(0, 1)) || failed(c.requireSameElementType(0, 2)))
    return failure();
  bool transX = c.getBool("trans_x"), transY = c.getBool("trans_y");
  if (x.getRank() < 2 || (transX && x.getRank() != 2))
    return c.error() << "input slot 'X' " << x << " must have rank >= 2 (exactly 2 with trans_x)";
  if (y.getRank() != 2)
    return c.error() << "input slot 'Y' " << y << " must have rank 2";
  if (failed(c.requireStringIn("activation", {"none", "relu", "gelu", "gelu_tanh"})))
    return failure();
  int64_t k = transX ? x.getDimSize(0) : x.getShape().back();
  int64_t ky = transY ? y.getDimSize(1) : y.getDimSize(0);
  int64_t n = transY ? y.getDimSize(0) : y.getDimSize(1);
  if (!mergeEqualDim(k, ky))
    return c.error() << "input slots 'X' " << x << " and 'Y' " << y
                     << " have mismatched contraction sizes " << k << " vs " << ky;
  if (bias.getRank() != 1 || !mergeEqualDim(bias.getDimSize(0), n))
    return c.error() << "input slot 'Bias' " << bias << " must be [" << n << "]";
  Dims out;
  if (transX)
    out.push_back(x.getDimSize(1));
  else
    llvm::append_range(out, x.getShape().drop_back());
  out.push_back(n);
  c.setResult(0, out, x.getElementType());
  c.setResult(1, out, x.getElementType());
  return success();
}

/// DX, DY and DBias have the types of X, Y and Y's output dim.
LogicalResult inferFusedGemmEpilogueGrad(InferContext &c) {
  RankedTensorType x = c.input(1), y = c.input(2);
  if (y.getRank() != 2)
    return c.error() << "input slot 'Y' " << y << " must have rank 2";
  if (failed(c.requireStringIn("activation_grad",
                               {"none", "relu_grad", "gelu_grad", "gelu_tanh_grad"})))
    return failure();
  std::string activation = c.getString("activation_grad");
  if (activation != "none" && !c.input(3))
    return c.error() << "activation_grad " << activation << " needs input slot 'ReserveSpace'";
  c.setResult(0, x);
  c.setResult(1, y);
  int64_t n = c.getBool("trans_y") ? y.getDimSize(0) : y.getDimSize(1);
  c.setResult(2, {n}, y.getElementType());
  return success();
}

/// dropout's probability and mode, as fused_dropout_add spells them.
static LogicalResult requireDropoutAttrs(InferContext &c) {
  double p = c.getFloat("p");
  if (!(p >= 0 && p <= 1))
    return c.error() << "attribute 'p' = " << p << " must be in [0, 1]";
  return c.requireStringIn("mode", {"upscale_in_train", "downgrade_in_infer"});
}

/// dropout(X) + Y with Y of X's type: Out is like X, Mask its u8 twin.
LogicalResult inferFusedDropoutAdd(InferContext &c) {
  if (failed(requireDropoutAttrs(c)))
    return failure();
  RankedTensorType x = c.input(0), y = c.input(1);
  if (x != y)
    return c.error() << "input slot 'Y' " << y << " must have the type of input slot 'X' " << x;
  c.setResult(0, x);
  c.setResult(1, x.getShape(), IntegerType::get(c.getContext(), 8, IntegerType::Unsigned));
  return success();
}

/// X@GRAD and Y@GRAD are like Out@GRAD; Mask is its u8 twin.
LogicalResult inferFusedDropoutAddGrad(InferContext &c) {
  if (failed(requireDropoutAttrs(c)))
    return failure();
  RankedTensorType mask = c.input(0), dout = c.input(1);
  if (mask.getShape() != dout.getShape() || !mask.getElementType().isUnsignedInteger(8))
    return c.error() << "input slot 'Mask' " << mask << " must be ui8 of the shape of input slot "
                     << "'Out@GRAD' " << dout;
  c.setResult(0, dout);
  c.setResult(1, dout);
  return success();
}

/// Where fused_feedforward(_grad) has the FFN's inputs.
struct FeedforwardSlots {
  unsigned x, w1, b1, w2, b2, lnScale, lnBias;
  const char *lnScaleName, *lnBiasName;
};

/// The FFN's input slots of fused_feedforward (`grad` false) or its
/// gradient, with the layer norm's of the pre or the post form.
static FeedforwardSlots feedforwardSlots(InferContext &c, bool grad) {
  bool pre = c.getBool("pre_layer_norm");
  const char *scale = pre ? "Ln1Scale" : "Ln2Scale", *bias = pre ? "Ln1Bias" : "Ln2Bias";
  if (grad)
    return {1, 2, 3, 4, 5, pre ? 11u : 16u, pre ? 12u : 17u, scale, bias};
  return {0, 1, 2, 3, 4, pre ? 5u : 7u, pre ? 6u : 8u, scale, bias};
}

/// Checks the FFN's attributes and shapes: X [..., d] (rank >= 2),
/// Linear1Weight [d, f], Linear2Weight [f, d], biases [f] and [d], the
/// layer norm's scale and bias [d]. Returns f.
static FailureOr<int64_t> requireFeedforward(InferContext &c, const FeedforwardSlots &s) {
  if (failed(c.requireStringIn("act_method", {"gelu", "relu"})) ||
      failed(c.requireStringIn("dropout1_implementation",
                               {"upscale_in_train", "downgrade_in_infer"})) ||
      failed(c.requireStringIn("dropout2_implementation",
                               {"upscale_in_train", "downgrade_in_infer"})))
    return failure();
  for (const char *rate : {"dropout1_rate", "dropout2_rate"}) {
    double p = c.getFloat(rate);
    if (!(p >= 0 && p <= 1))
      return c.error() << "attribute '" << rate << "' = " << p << " must be in [0, 1]";
  }
  if (c.getInt("ring_id") != -1)
    return c.error() << "attribute 'ring_id' = " << c.getInt("ring_id")
                     << ": tensor-parallel feed-forward blocks are not supported";
  RankedTensorType x = c.input(s.x), w1 = c.input(s.w1), w2 = c.input(s.w2);
  if (x.getRank() < 2)
    return c.error() << "input slot 'X' " << x << " must have rank >= 2";
  int64_t d = x.getShape().back();
  if (w1.getRank() != 2 || !mergeEqualDim(w1.getDimSize(0), d))
    return c.error() << "input slot 'Linear1Weight' " << w1 << " must be [d, f] with d = "
                     << d << ", the last dim of input slot 'X' " << x;
  int64_t f = w1.getDimSize(1);
  if (w2.getRank() != 2 || !mergeEqualDim(w2.getDimSize(0), f) ||
      !mergeEqualDim(w2.getDimSize(1), d))
    return c.error() << "input slot 'Linear2Weight' " << w2 << " must be [" << f << ", " << d
                     << "] to map Linear1Weight " << w1 << "'s output back";
  auto requireVector = [&](unsigned slot, const char *name, int64_t size) -> LogicalResult {
    RankedTensorType t = c.input(slot);
    if (t && (t.getRank() != 1 || !mergeEqualDim(t.getDimSize(0), size)))
      return c.error() << "input slot '" << name << "' " << t << " must be [" << size << "]";
    return success();
  };
  if (failed(requireVector(s.b1, "Linear1Bias", f)) ||
      failed(requireVector(s.b2, "Linear2Bias", d)) ||
      failed(requireVector(s.lnScale, s.lnScaleName, d)) ||
      failed(requireVector(s.lnBias, s.lnBiasName, d)))
    return failure();
  for (unsigned slot : {s.w1, s.w2})
    if (c.input(slot).getElementType() != x.getElementType())
      return c.error() << "the weights must have the element type of input slot 'X' " << x;
  return f;
}

/// Out, Ln1Out and Dropout2Out are like X; Linear1Out, Dropout1Out and
/// Dropout1Mask [..., f]; the masks ui8; the layer norms' statistics one
/// value per row, in f32 for f16/bf16 as layer_norm's.
LogicalResult inferFusedFeedforward(InferContext &c) {
  bool pre = c.getBool("pre_layer_norm");
  FailureOr<int64_t> f = requireFeedforward(c, feedforwardSlots(c, /*grad=*/false));
  if (failed(f))
    return failure();
  if (!pre && !c.getBool("add_residual"))
    return c.error() << "pre_layer_norm and add_residual cannot both be false";
  RankedTensorType x = c.input(0);
  Dims hidden(x.getShape());
  hidden.back() = *f;
  Type u8 = IntegerType::get(c.getContext(), 8, IntegerType::Unsigned);
  Type statType = x.getElementType();
  if (statType.isF16() || statType.isBF16())
    statType = Float32Type::get(c.getContext());
  Dims rows = {product(x.getShape().drop_back())};
  c.setResult(0, x);
  c.setResult(1, hidden, u8);
  c.setResult(2, x.getShape(), u8);
  for (unsigned stat = 3; stat <= 6; ++stat)
    c.setResult(stat, rows, statType);
  c.setResult(7, hidden, x.getElementType());
  c.setResult(8, x);
  c.setResult(9, hidden, x.getElementType());
  c.setResult(10, x);
  return success();
}

/// Each gradient has the type of what it differentiates; that of an absent
/// input (an unused result) the type it would have.
LogicalResult inferFusedFeedforwardGrad(InferContext &c) {
  bool pre = c.getBool("pre_layer_norm");
  FailureOr<int64_t> f = requireFeedforward(c, feedforwardSlots(c, /*grad=*/true));
  if (failed(f))
    return failure();
  RankedTensorType x = c.input(1);
  if (c.input(0) != x)
    return c.error() << "input slot 'Out@GRAD' " << c.input(0)
                     << " must have the type of input slot 'X' " << x;
  if (pre && !c.input(13))
    return c.error() << "the pre_layer_norm form needs input slot 'Ln1Out'";
  if (!pre && !c.input(10))
    return c.error() << "the post layer_norm form needs input slot 'Dropout2Out'";
  c.setResult(0, x);
  int64_t d = x.getShape().back();
  // Each result's input slot and, when that is absent, its size.
  static constexpr unsigned kGradOf[] = {11, 12, 16, 17, 2, 3, 4, 5};
  const int64_t absentSize[] = {d, d, d, d, 0, *f, 0, d};
  for (auto [i, slot] : llvm::enumerate(kGradOf)) {
    if (RankedTensorType t = c.input(slot))
      c.setResult(1 + i, t);
    else
      c.setResult(1 + i, {absentSize[i]}, x.getElementType());
  }
  return success();
}

namespace {

/// fused_attention's heads, head dim and embed dim from X and QKVW:
/// [3, H, hd, d], or [d, 3d] with num_heads H in the transpose_qkv_wb form.
struct AttentionDims {
  int64_t heads, headDim, embed;
};

FailureOr<AttentionDims> attentionDims(InferContext &c, RankedTensorType x, RankedTensorType w) {
  if (x.getRank() != 3)
    return c.error() << "input slot 'X' " << x << " must be [batch, seq, embed]";
  int64_t d = x.getDimSize(2);
  if (ShapedType::isDynamic(d))
    return c.error() << "input slot 'X' " << x << " needs a static embed dim";
  if (c.getBool("transpose_qkv_wb")) {
    int64_t h = c.getInt("num_heads");
    if (h <= 0 || d % h != 0)
      return c.error() << "attribute 'num_heads' = " << h << " must divide the embed dim " << d;
    if (w.getRank() != 2 || !mergeEqualDim(w.getDimSize(0), d) ||
        !mergeEqualDim(w.getDimSize(1), 3 * d))
      return c.error() << "input slot 'QKVW' " << w << " must be [" << d << ", " << 3 * d
                       << "] in the transpose_qkv_wb form";
    return AttentionDims{h, d / h, d};
  }
  if (w.getRank() != 4 || w.getDimSize(0) != 3 || !mergeEqualDim(w.getDimSize(3), d) ||
      !mergeEqualDim(w.getDimSize(1) * w.getDimSize(2), d))
    return c.error() << "input slot 'QKVW' " << w << " must be [3, heads, head_dim, " << d
                     << "] with heads·head_dim = " << d;
  return AttentionDims{w.getDimSize(1), w.getDimSize(2), d};
}

/// The checks fused_attention and its gradient share: attributes, and the
/// weights, biases and layer norm parameters against X (slots by name).
FailureOr<AttentionDims>
requireAttention(InferContext &c, RankedTensorType x, RankedTensorType w, RankedTensorType qkvBias,
                 RankedTensorType wOut,
                 ArrayRef<std::pair<RankedTensorType, const char *>> vectors) {
  if (failed(c.requireStringIn("attn_dropout_implementation",
                               {"upscale_in_train", "downgrade_in_infer"})) ||
      failed(
          c.requireStringIn("dropout_implementation", {"upscale_in_train", "downgrade_in_infer"})))
    return failure();
  for (const char *rate : {"attn_dropout_rate", "dropout_rate"}) {
    double p = c.getFloat(rate);
    if (!(p >= 0 && p <= 1))
      return c.error() << "attribute '" << rate << "' = " << p << " must be in [0, 1]";
  }
  if (c.getInt("ring_id") != -1)
    return c.error() << "attribute 'ring_id' = " << c.getInt("ring_id")
                     << ": tensor-parallel attention is not supported";
  if (!c.getBool("pre_layer_norm") && !c.getBool("add_residual"))
    return c.error() << "pre_layer_norm and add_residual cannot both be false";
  FailureOr<AttentionDims> dims = attentionDims(c, x, w);
  if (failed(dims))
    return failure();
  auto [h, hd, d] = *dims;
  if (qkvBias) {
    SmallVector<int64_t> expected = c.getBool("transpose_qkv_wb") ? SmallVector<int64_t>{3 * d}
                                                                  : SmallVector<int64_t>{3, h, hd};
    if (qkvBias.getShape() != ArrayRef<int64_t>(expected)) {
      InFlightDiagnostic diag = c.error();
      diag << "input slot 'QKVBias' " << qkvBias << " must be [";
      llvm::interleaveComma(expected, diag);
      return diag << "]";
    }
  }
  if (wOut.getRank() != 2 || !mergeEqualDim(wOut.getDimSize(0), d) ||
      !mergeEqualDim(wOut.getDimSize(1), d))
    return c.error() << "input slot 'OutLinearW' " << wOut << " must be [" << d << ", " << d << "]";
  for (auto [t, name] : vectors)
    if (t && (t.getRank() != 1 || !mergeEqualDim(t.getDimSize(0), d)))
      return c.error() << "input slot '" << name << "' " << t << " must be [" << d << "]";
  for (RankedTensorType weight : {w, wOut})
    if (weight.getElementType() != x.getElementType())
      return c.error() << "the weights must have the element type of input slot 'X' " << x;
  return dims;
}

} // namespace

/// X [B, S, d]; QKVW [3, H, hd, d] with H·hd = d, QKVBias [3, H, hd] (or
/// [d, 3d] and [3d] in the transpose_qkv_wb form); SrcMask broadcast to
/// [B, H, S, S]; OutLinearW [d, d], OutLinearBias and the layer norms'
/// scale and bias [d]. The results are the intermediate values of Paddle's
/// fused_attention (see PdFusionOps.td) and Y like X.
LogicalResult inferFusedAttention(InferContext &c) {
  RankedTensorType x = c.input(0);
  FailureOr<AttentionDims> dims = requireAttention(c, x, c.input(3), c.input(4), c.input(6),
                                                   {{c.input(1), "LnScale"},
                                                    {c.input(2), "LnBias"},
                                                    {c.input(7), "OutLinearBias"},
                                                    {c.input(8), "Ln2Scale"},
                                                    {c.input(9), "Ln2Bias"}});
  if (failed(dims))
    return failure();
  int64_t h = dims->heads, hd = dims->headDim, s = x.getDimSize(1), batch = x.getDimSize(0);
  Dims scores = {batch, h, s, s};
  if (RankedTensorType mask = c.input(5)) {
    if (mask.getRank() != 4 || mask.getElementType() != x.getElementType())
      return c.error() << "input slot 'SrcMask' " << mask << " must be a 4-D " << x.getElementType()
                       << " tensor broadcast to [batch, " << h << ", " << s << ", " << s << "]";
    for (int i = 0; i < 4; ++i)
      if (mask.getDimSize(i) != 1 && !mergeEqualDim(mask.getDimSize(i), scores[i]))
        return c.error() << "input slot 'SrcMask' " << mask << " does not broadcast to [batch, "
                         << h << ", " << s << ", " << s << "]";
  }
  Type t = x.getElementType();
  Type u8 = IntegerType::get(c.getContext(), 8, IntegerType::Unsigned);
  Type statType = t.isF16() || t.isBF16() ? Type(Float32Type::get(c.getContext())) : t;
  Dims rows = {product(x.getShape().take_front(2))};
  Dims qkv =
      c.getBool("transpose_qkv_wb") ? Dims{batch, s, 3 * dims->embed} : Dims{batch, s, 3, h, hd};
  c.setResult(0, rows, statType);
  c.setResult(1, rows, statType);
  c.setResult(2, x);
  c.setResult(3, qkv, t);
  c.setResult(4, qkv, t);
  c.setResult(5, {3, batch, h, s, hd}, t);
  c.setResult(6, scores, t);
  c.setResult(7, {batch, h, s, hd}, t);
  c.setResult(8, scores, t);
  c.setResult(9, scores, u8);
  c.setResult(10, scores, t);
  c.setResult(11, scores, t);
  c.setResult(12, {batch, s, h, hd}, t);
  c.setResult(13, x);
  c.setResult(14, x.getShape(), u8);
  c.setResult(15, rows, statType);
  c.setResult(16, rows, statType);
  c.setResult(17, x);
  c.setResult(18, x);
  return success();
}

/// Y@GRAD like X; the saved values as fused_attention gives them. The
/// results: X@GRAD like X, each parameter's gradient like it (an absent
/// one's [0], or [d] for a layer norm's).
LogicalResult inferFusedAttentionGrad(InferContext &c) {
  if (!c.getBool("transpose_qkv_wb"))
    return c.error() << "the gradient takes the transpose_qkv_wb form only";
  RankedTensorType x = c.input(1);
  FailureOr<AttentionDims> dims = requireAttention(c, x, c.input(2), c.input(3), c.input(4),
                                                   {{c.input(5), "OutLinearBias"},
                                                    {c.input(6), "LnScale"},
                                                    {c.input(7), "LnBias"},
                                                    {c.input(9), "Ln2Scale"},
                                                    {c.input(10), "Ln2Bias"}});
  if (failed(dims))
    return failure();
  if (c.input(0) != x)
    return c.error() << "input slot 'Y@GRAD' " << c.input(0)
                     << " must have the type of input slot 'X' " << x;
  bool pre = c.getBool("pre_layer_norm");
  if (pre && !c.input(8))
    return c.error() << "the pre_layer_norm form needs input slot 'LnOut'";
  if (!pre && !c.input(11))
    return c.error() << "the post layer_norm form needs input slot 'BiasDropoutResidualOut'";
  int64_t h = dims->heads, hd = dims->headDim, s = x.getDimSize(1), batch = x.getDimSize(0);
  auto expect = [&](unsigned slot, const char *name, ArrayRef<int64_t> shape) -> LogicalResult {
    RankedTensorType t = c.input(slot);
    if (t.getRank() != static_cast<int64_t>(shape.size()))
      return c.error() << "input slot '" << name << "' " << t << " must have rank " << shape.size();
    for (auto [have, want] : llvm::zip(t.getShape(), shape))
      if (!mergeEqualDim(have, want))
        return c.error() << "input slot '" << name << "' " << t << " does not match X " << x
                         << " and " << h << " heads";
    return success();
  };
  const int64_t scores[] = {batch, h, s, s};
  if (failed(expect(12, "TransposeOut2", {3, batch, h, s, hd})) ||
      failed(expect(13, "SoftmaxOut", scores)) ||
      failed(expect(14, "AttnDropoutMaskOut", scores)) ||
      failed(expect(15, "AttnDropoutOut", scores)) ||
      failed(expect(16, "FMHAOut", {batch, s, h, hd})) ||
      failed(expect(17, "DropoutMaskOut", x.getShape())))
    return failure();
  c.setResult(0, x);
  int64_t d = dims->embed;
  // Each result's input slot and, when that is absent, its size.
  static constexpr unsigned kGradOf[] = {2, 3, 4, 5, 6, 7, 9, 10};
  const int64_t absentSize[] = {0, 0, 0, 0, d, d, d, d};
  for (auto [i, slot] : llvm::enumerate(kGradOf)) {
    if (RankedTensorType t = c.input(slot))
      c.setResult(1 + i, t);
    else
      c.setResult(1 + i, {absentSize[i]}, x.getElementType());
  }
  return success();
}

} // namespace distc::pd::infer
