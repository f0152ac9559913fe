//===- LowerAttention.cpp - fused_attention and its gradient ---------------===//
//
// Paddle's fused_attention runs as a sequence of distc's kernels, one per
// step of the computation its documentation gives (PdFusionOps.td), each
// writing the intermediate result Paddle names: layer_norm, the QKV matmul
// and bias add, transpose to [3, B, H, S, hd], a slice each for q, k and
// v, the scale of q, the batched QKᵀ matmul, the mask add, softmax,
// dropout, the matmul with v, transpose back, the output matmul and bias
// add, dropout adding the residual, and the post form's layer_norm.
//
// The kernels are those the unfused ops the pass replaces lower to, called
// as those lowerings call them (the matmuls' operand views, the scale in
// the element type), so a fused block computes the unfused block's bits;
// only data movement differs (one transpose and three slices where the
// unfused program has transpose2 and split). The gradient mirrors it:
// the layer norms' and dropouts' gradients, matmul_v2_grad's GEMMs, the
// bias gradients reduced as elementwise_add_grad reduces them, softmax's
// gradient, the batched matmuls' (reading the forward's q, k, v and scaled
// q, as the unfused gradient reads split's and scale's outputs), and q, k
// and v's gradients concatenated into one [3, B, H, S, hd] buffer that one
// transpose turns into the QKV bias output's gradient.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdOps.h"

#include <cmath>

using namespace mlir;

namespace distc::target {

namespace {

/// hd^-0.5 rounded to `x`'s element type, as the unfused program's scale
/// op (whose kernel rounds its attribute so) applies it.
double attentionScale(Value x, int64_t headDim) {
  double alpha = 1.0 / std::sqrt(double(headDim));
  Type t = cast<RankedTensorType>(x.getType()).getElementType();
  return t.isF32() ? double(float(alpha)) : alpha;
}

AttrDesc matmulAttr(const char *name, bool value) { return AttrDesc::ofInt(name, value); }

} // namespace

LogicalResult ProgramLowering::lowerFusedAttention(Operation *op) {
  auto att = cast<pd::FusedAttentionOp>(op);
  pd::OpAttributes attrs(op);
  const bool pre = attrs.getBool("pre_layer_norm"), residual = attrs.getBool("add_residual");
  Value x = att.getX();
  const SymShape &xd = dimsOf(x);
  auto w = cast<RankedTensorType>(att.getQKVW().getType());
  const bool transposedW = attrs.getBool("transpose_qkv_wb");
  const int64_t embed = cast<RankedTensorType>(x.getType()).getDimSize(2);
  const int64_t heads = transposedW ? attrs.getInt("num_heads") : w.getDimSize(1),
                headDim = embed / heads;
  std::optional<DimDesc> rows = product(SymShape(xd.begin(), xd.begin() + 2));
  if (!rows)
    return error(op) << "cannot flatten the leading dims of " << describe(xd);
  const DimDesc b = xd[0], s = xd[1], d = DimDesc::fixed(embed), h = DimDesc::fixed(heads),
                hd = DimDesc::fixed(headDim), three = DimDesc::fixed(3);
  const SymShape scores = {b, h, s, s}, perHead = {b, h, s, hd};
  const std::string name = nameOf(att.getY());

  // Each step's result: the op's result of that name (defined whether or
  // not another op reads it: the next step does).
  auto result = [&](Value v, SymShape dims) { return defineResult(v, std::move(dims)); };
  // Dropout `prefix` ("attn_dropout" or "dropout") of `in`, `y` added,
  // into result `out` (a view of `in` when it is the identity).
  auto dropout = [&](const std::string &prefix, int32_t in, int32_t y, Value mask,
                     const SymShape &dims, Value out) -> FailureOr<int32_t> {
    FailureOr<int32_t> dropped =
        emitFusedDropout(op, prefix, in, y, mask, dims, [&] { return result(out, dims); });
    if (succeeded(dropped) && *dropped == in && failed(defineView(out, in, dims)))
      return failure();
    return dropped;
  };

  for (Value notComputed :
       pre ? SmallVector<Value>{att.getLn2Mean(), att.getLn2Variance(),
                                att.getBiasDropoutResidualOut()}
           : SmallVector<Value>{att.getLnMean(), att.getLnVariance(), att.getLnOut()})
    if (isNeeded(notComputed))
      return error(op) << nameOf(notComputed) << " is computed in the " << (pre ? "post" : "pre")
                       << " layer_norm form only";

  int32_t in = bufferOf(x);
  if (pre) {
    if (failed(emitLayerNorm(in, att.getLnScale(), att.getLnBias(), att.getLnOut(), att.getLnMean(),
                             att.getLnVariance(), xd, *rows, attrs.getFloat("epsilon"))))
      return failure();
    in = bufferOf(att.getLnOut());
  }

  // q, k, v: [rows, d]·QKVWᵀ (+ bias) as [B, S, 3, H, hd], transposed to
  // [3, B, H, S, hd], and one slice each, q scaled by hd^-0.5. The
  // transpose_qkv_wb form multiplies by QKVW [d, 3d] as matmul_v2 does.
  const DimDesc threeD = DimDesc::fixed(3 * embed);
  const SymShape qkvDims = transposedW ? SymShape{b, s, threeD} : SymShape{b, s, three, h, hd};
  FailureOr<int32_t> qkv = result(att.getQKVOut(), qkvDims);
  if (failed(qkv))
    return failure();
  const SymShape qkvRows = {*rows, threeD};
  if (transposedW)
    emit("matmul", {view(in, xd), view(bufferOf(att.getQKVW()), {DimDesc::fixed(1), d, threeD})},
         {view(*qkv, {b, s, threeD})},
         {matmulAttr("trans_a", false), matmulAttr("trans_b", false)});
  else
    emit("matmul", {view(in, {*rows, d}), view(bufferOf(att.getQKVW()), {threeD, d})},
         {view(*qkv, qkvRows)}, {AttrDesc::ofInt("trans_b", 1)});
  int32_t biased = *qkv;
  if (att.getQKVBias()) {
    FailureOr<int32_t> withBias = result(att.getQKVBiasOut(), qkvDims);
    if (failed(withBias))
      return failure();
    emit("binary",
         {view(*qkv, qkvRows),
          view(bufferOf(att.getQKVBias()), {DimDesc::fixed(1), DimDesc::fixed(3 * embed)})},
         {view(*withBias, qkvRows)}, {AttrDesc::ofString("op", "add")});
    biased = *withBias;
  } else if (failed(defineView(att.getQKVBiasOut(), *qkv, qkvDims))) {
    return failure();
  }
  FailureOr<int32_t> transposed = result(att.getTransposeOut2(), {three, b, h, s, hd});
  if (failed(transposed))
    return failure();
  emit("transpose", {view(biased, {b, s, three, h, hd})}, {*transposed},
       {AttrDesc::ofInts("perm", {2, 0, 3, 1, 4})});
  int32_t part[3];
  for (int64_t i = 0; i < 3; ++i) {
    part[i] = temp(name + ".qkv" + std::to_string(i), biased, {DimDesc::fixed(1), b, h, s, hd});
    emit("slice", {*transposed}, {part[i]},
         {AttrDesc::ofInts("axes", {0}), AttrDesc::ofInts("starts", {i}),
          AttrDesc::ofInts("ends", {i + 1})});
  }
  int32_t q = temp(name + ".q", biased, perHead);
  emit("scale", {view(part[0], perHead)}, {q},
       {AttrDesc::ofFloat("scale", attentionScale(x, headDim)), AttrDesc::ofFloat("bias", 0.0),
        AttrDesc::ofInt("bias_after_scale", 1)});
  attentionHeads[att.getTransposeOut2()] = {view(part[0], perHead), view(part[1], perHead),
                                            view(part[2], perHead), q};

  // The attention weights and their product with v.
  FailureOr<int32_t> qk = result(att.getQKOut(), scores);
  if (failed(qk))
    return failure();
  emit("matmul", {q, view(part[1], perHead)}, {*qk},
       {matmulAttr("trans_a", false), matmulAttr("trans_b", true)});
  int32_t logits = *qk;
  if (Value mask = att.getSrcMask()) {
    FailureOr<int32_t> masked = result(att.getSrcMaskOut(), scores);
    if (failed(masked))
      return failure();
    emit("binary", {*qk, bufferOf(mask)}, {*masked}, {AttrDesc::ofString("op", "add")});
    logits = *masked;
  } else if (failed(defineView(att.getSrcMaskOut(), *qk, scores))) {
    return failure();
  }
  FailureOr<int32_t> weights = result(att.getSoftmaxOut(), scores);
  if (failed(weights))
    return failure();
  emit("softmax", {logits}, {*weights}, {AttrDesc::ofInt("axis", 3)});
  FailureOr<int32_t> dropped = dropout("attn_dropout", *weights, -1, att.getAttnDropoutMaskOut(),
                                       scores, att.getAttnDropoutOut());
  if (failed(dropped))
    return failure();
  FailureOr<int32_t> context = result(att.getQKTVOut(), perHead);
  if (failed(context))
    return failure();
  emit("matmul", {*dropped, view(part[2], perHead)}, {*context},
       {matmulAttr("trans_a", false), matmulAttr("trans_b", false)});
  FailureOr<int32_t> merged = result(att.getFMHAOut(), {b, s, h, hd});
  if (failed(merged))
    return failure();
  emit("transpose", {*context}, {*merged}, {AttrDesc::ofInts("perm", {0, 2, 1, 3})});

  // The output linear, its bias, dropout with the residual.
  FailureOr<int32_t> linear = result(att.getOutLinearOut(), xd);
  if (failed(linear))
    return failure();
  emit("matmul",
       {view(*merged, xd), view(bufferOf(att.getOutLinearW()), {DimDesc::fixed(1), d, d})},
       {*linear}, {matmulAttr("trans_a", false), matmulAttr("trans_b", false)});
  int32_t withBias = *linear;
  if (Value bias = att.getOutLinearBias()) {
    withBias = temp(name + ".out_linear_bias", *linear, xd);
    emit("binary", {view(*linear, {*rows, d}), view(bufferOf(bias), {DimDesc::fixed(1), d})},
         {view(withBias, {*rows, d})}, {AttrDesc::ofString("op", "add")});
  }
  Value summed = pre ? att.getY() : att.getBiasDropoutResidualOut();
  FailureOr<int32_t> out = dropout("dropout", withBias, residual ? bufferOf(x) : -1,
                                   att.getDropoutMaskOut(), xd, summed);
  if (failed(out))
    return failure();
  if (pre)
    return success();
  return emitLayerNorm(*out, att.getLn2Scale(), att.getLn2Bias(), att.getY(), att.getLn2Mean(),
                       att.getLn2Variance(), xd, *rows, attrs.getFloat("ln_epsilon"));
}

LogicalResult ProgramLowering::lowerFusedAttentionGrad(Operation *op) {
  auto grad = cast<pd::FusedAttentionGradOp>(op);
  pd::OpAttributes attrs(op);
  const bool pre = attrs.getBool("pre_layer_norm"), residual = attrs.getBool("add_residual");
  Value x = grad.getX();
  const SymShape &xd = dimsOf(x);
  const int64_t embed = cast<RankedTensorType>(x.getType()).getDimSize(2);
  const int64_t heads = attrs.getInt("num_heads"), headDim = embed / heads;
  std::optional<DimDesc> rows = product(SymShape(xd.begin(), xd.begin() + 2));
  if (!rows)
    return error(op) << "cannot flatten the leading dims of " << describe(xd);
  const DimDesc b = xd[0], s = xd[1], d = DimDesc::fixed(embed), h = DimDesc::fixed(heads),
                hd = DimDesc::fixed(headDim), one = DimDesc::fixed(1),
                threeD = DimDesc::fixed(3 * embed);
  const SymShape scores = {b, h, s, s}, perHead = {b, h, s, hd}, rowsD = {*rows, d};
  const std::string name = nameOf(grad.getX_GRAD());

  auto matmul = [&](int32_t a, bool ta, int32_t bb, bool tb, int32_t out) {
    emit("matmul", {a, bb}, {out}, {matmulAttr("trans_a", ta), matmulAttr("trans_b", tb)});
  };
  // A linear's gradients, as matmul_v2_grad (a 2-D weight: the batch
  // flattened into rows) and elementwise_add_grad (the bias's reduced
  // over the rows) emit them: dIn = dy·Wᵀ, dW = inᵀ·dy, db = Σ dy.
  auto linearGrad = [&](int32_t dy, const SymShape &dyDims, int32_t in, Value w, Value bias,
                        Value dw, Value db, int32_t dIn) -> LogicalResult {
    const DimDesc n = dyDims.back();
    if (bias && isNeeded(db) && failed(emitReduceTo(dy, dyDims, {one, one, n}, dimsOf(bias), db)))
      return failure();
    if (dIn >= 0)
      matmul(view(dy, {*rows, n}), false, bufferOf(w), true, view(dIn, rowsD));
    FailureOr<int32_t> dwBuf = defineIfNeeded(dw, dimsOf(w));
    if (failed(dwBuf))
      return failure();
    if (*dwBuf >= 0)
      matmul(view(in, rowsD), true, view(dy, {*rows, n}), false, *dwBuf);
    return success();
  };
  // The post form's layer norm; the residual add passes its gradient to
  // both operands.
  const int32_t dY = bufferOf(grad.getY_GRAD());
  int32_t dSum = dY;
  if (!pre) {
    dSum = temp(name + ".ln2_grad", dY, xd);
    if (failed(emitLayerNormGrad(bufferOf(grad.getBiasDropoutResidualOut()), grad.getLn2Scale(),
                                 grad.getLn2Bias(), dY, dSum, grad.getLn2Scale_GRAD(),
                                 grad.getLn2Bias_GRAD(), xd, attrs.getFloat("ln_epsilon"))))
      return failure();
  }

  // The output linear through its dropout, then back to the heads.
  FailureOr<int32_t> dLinear =
      emitFusedDropoutGrad(op, "dropout", dSum, grad.getDropoutMaskOut(), xd, name);
  if (failed(dLinear))
    return failure();
  int32_t dMerged = temp(name + ".fmha_out_grad", dY, {b, s, h, hd});
  if (failed(linearGrad(*dLinear, xd, bufferOf(grad.getFMHAOut()), grad.getOutLinearW(),
                        grad.getOutLinearBias(), grad.getOutLinearW_GRAD(),
                        grad.getOutLinearBias_GRAD(), dMerged)))
    return failure();
  int32_t dContext = temp(name + ".qktv_out_grad", dY, perHead);
  emit("transpose", {dMerged}, {dContext}, {AttrDesc::ofInts("perm", {0, 2, 1, 3})});

  // q, k, v from TransposeOut2 (q scaled again, as the forward did); their
  // gradients go to one buffer in the same layout.
  // q, k, v and the scaled q, as the forward left them. Their gradients
  // go to one buffer in TransposeOut2's layout.
  auto found = attentionHeads.find(grad.getTransposeOut2());
  if (found == attentionHeads.end())
    return error(op) << "input slot 'TransposeOut2' " << nameOf(grad.getTransposeOut2())
                     << " is not a result of a fused_attention op before it in this program";
  const std::array<int32_t, 4> saved = found->second;
  const int32_t k = saved[1], v = saved[2], scaledQ = saved[3];
  int32_t dq = temp(name + ".d_q", dY, perHead), dk = temp(name + ".d_k", dY, perHead),
          dv = temp(name + ".d_v", dY, perHead);
  int32_t dQkv = temp(name + ".transpose_out2_grad", dY, {DimDesc::fixed(3), b, h, s, hd});

  // w·v: the dropped weights' and v's gradients.
  int32_t dDropped = temp(name + ".attn_dropout_out_grad", dY, scores);
  matmul(dContext, false, v, true, dDropped);
  matmul(bufferOf(grad.getAttnDropoutOut()), true, dContext, false, dv);
  FailureOr<int32_t> dWeights = emitFusedDropoutGrad(op, "attn_dropout", dDropped,
                                                     grad.getAttnDropoutMaskOut(), scores, name);
  if (failed(dWeights))
    return failure();
  int32_t dScores = temp(name + ".qk_out_grad", dY, scores);
  emit("softmax_grad", {bufferOf(grad.getSoftmaxOut()), *dWeights}, {dScores},
       {AttrDesc::ofInt("axis", 3)});

  // The mask's add passes the gradient through; q·hd^-0.5·kᵀ's gradients.
  int32_t dScaledQ = temp(name + ".scaled_q_grad", dY, perHead);
  matmul(dScores, false, k, false, dScaledQ);
  matmul(dScores, true, scaledQ, false, dk);
  emit("scale", {dScaledQ}, {dq},
       {AttrDesc::ofFloat("scale", attentionScale(x, headDim)), AttrDesc::ofFloat("bias", 0.0),
        AttrDesc::ofInt("bias_after_scale", 1)});
  const SymShape onePart = {one, b, h, s, hd};
  emit("concat", {view(dq, onePart), view(dk, onePart), view(dv, onePart)}, {dQkv},
       {AttrDesc::ofInt("axis", 0)});

  // Back to [B, S, 3d], the QKV linear's output, and through it.
  int32_t dQkvOut = temp(name + ".qkv_bias_out_grad", dY, {b, s, threeD});
  emit("transpose", {dQkv}, {view(dQkvOut, {b, s, DimDesc::fixed(3), h, hd})},
       {AttrDesc::ofInts("perm", {1, 3, 0, 2, 4})});
  int32_t lnOut = pre ? bufferOf(grad.getLnOut()) : bufferOf(x);
  int32_t dLnOut = temp(name + ".ln_out_grad", dY, xd);
  if (failed(linearGrad(dQkvOut, {b, s, threeD}, lnOut, grad.getQKVW(), grad.getQKVBias(),
                        grad.getQKVW_GRAD(), grad.getQKVBias_GRAD(), dLnOut)))
    return failure();

  // X@GRAD: the pre form's layer norm gradient (or the QKV linear's input
  // gradient), plus the residual's share.
  FailureOr<int32_t> dx = defineResult(grad.getX_GRAD(), xd);
  if (failed(dx))
    return failure();
  int32_t dBranch = dLnOut;
  if (pre) {
    dBranch = residual ? temp(name + ".ln_grad", dY, xd) : *dx;
    if (failed(emitLayerNormGrad(bufferOf(x), grad.getLnScale(), grad.getLnBias(), dLnOut, dBranch,
                                 grad.getLnScale_GRAD(), grad.getLnBias_GRAD(), xd,
                                 attrs.getFloat("epsilon"))))
      return failure();
  }
  if (residual)
    emit("binary", {dSum, dBranch}, {*dx}, {AttrDesc::ofString("op", "add")});
  else if (dBranch != *dx)
    emit("copy", {dBranch}, {*dx});
  return success();
}

} // namespace distc::target
