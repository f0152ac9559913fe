//===- LowerAttention.cpp - fused_attention --------------------------------===//
//
// Paddle's fused_attention runs as a sequence of distc's kernels, one per
// step of the computation its documentation gives (PdFusionOps.td), each
// writing the intermediate result Paddle names: layer_norm, the QKV matmul
// and bias add, transpose to [3, B, H, S, hd], a slice each for q, k and
// v, the scale of q, the batched QKᵀ matmul, the mask add, softmax,
// dropout, the matmul with v, transpose back, the output matmul and bias
// add, dropout adding the residual, and the post form's layer_norm.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdOps.h"

#include <cmath>

using namespace mlir;

namespace distc::target {

LogicalResult ProgramLowering::lowerFusedAttention(Operation *op) {
  auto att = cast<pd::FusedAttentionOp>(op);
  pd::OpAttributes attrs(op);
  const bool pre = attrs.getBool("pre_layer_norm"), residual = attrs.getBool("add_residual");
  Value x = att.getX();
  const SymShape &xd = dimsOf(x);
  auto w = cast<RankedTensorType>(att.getQKVW().getType());
  const int64_t heads = w.getDimSize(1), headDim = w.getDimSize(2), embed = w.getDimSize(3);
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
  // [3, B, H, S, hd], and one slice each, q scaled by hd^-0.5.
  const SymShape qkvDims = {b, s, three, h, hd};
  FailureOr<int32_t> qkv = result(att.getQKVOut(), qkvDims);
  if (failed(qkv))
    return failure();
  const SymShape qkvRows = {*rows, DimDesc::fixed(3 * embed)};
  emit("matmul",
       {view(in, {*rows, d}), view(bufferOf(att.getQKVW()), {DimDesc::fixed(3 * embed), d})},
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
  emit("transpose", {biased}, {*transposed}, {AttrDesc::ofInts("perm", {2, 0, 3, 1, 4})});
  int32_t part[3];
  for (int64_t i = 0; i < 3; ++i) {
    part[i] = temp(name + ".qkv" + std::to_string(i), biased, {DimDesc::fixed(1), b, h, s, hd});
    emit("slice", {*transposed}, {part[i]},
         {AttrDesc::ofInts("axes", {0}), AttrDesc::ofInts("starts", {i}),
          AttrDesc::ofInts("ends", {i + 1})});
  }
  int32_t q = temp(name + ".q", biased, perHead);
  emit("scale", {view(part[0], perHead)}, {q},
       {AttrDesc::ofFloat("scale", 1.0 / std::sqrt(double(headDim))),
        AttrDesc::ofFloat("bias", 0.0), AttrDesc::ofInt("bias_after_scale", 1)});

  // The attention weights and their product with v.
  FailureOr<int32_t> qk = result(att.getQKOut(), scores);
  if (failed(qk))
    return failure();
  emit("matmul", {q, view(part[1], perHead)}, {*qk}, {AttrDesc::ofInt("trans_b", 1)});
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
  emit("matmul", {*dropped, view(part[2], perHead)}, {*context});
  FailureOr<int32_t> merged = result(att.getFMHAOut(), {b, s, h, hd});
  if (failed(merged))
    return failure();
  emit("transpose", {*context}, {*merged}, {AttrDesc::ofInts("perm", {0, 2, 1, 3})});

  // The output linear, its bias, dropout with the residual.
  FailureOr<int32_t> linear = result(att.getOutLinearOut(), xd);
  if (failed(linear))
    return failure();
  emit("matmul", {view(*merged, {*rows, d}), bufferOf(att.getOutLinearW())},
       {view(*linear, {*rows, d})});
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

} // namespace distc::target
