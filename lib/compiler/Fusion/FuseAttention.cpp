//===- FuseAttention.cpp - a transformer's self-attention as one op -------===//
//
// BuildStrategy.fused_attention, as Paddle's fused_attention_pass:
//
//   forward   pre layer norm:
//               layer_norm -> matmul_v2 -> elementwise_add (the QKV linear)
//               -> reshape2 [B, S, 3H, hd] -> transpose2 [0, 2, 1, 3] ->
//               split (axis 1: q, k, v) -> scale (q, by hd^-0.5) ->
//               matmul_v2 (q·kᵀ) -> [elementwise_add (mask)] -> softmax ->
//               [dropout] -> matmul_v2 (·v) -> transpose2 [0, 2, 1, 3] ->
//               reshape2 [B, S, d] -> matmul_v2 -> elementwise_add (the
//               output linear) -> [dropout] -> [elementwise_add of the
//               block's input]
//             post layer norm:
//               matmul_v2 -> ... -> [dropout] -> elementwise_add of the
//               block's input -> layer_norm
//                                                   =>  fused_attention
//   backward  their gradients (split's is a concat, scale's a scale), and
//             the sum of the input's two gradient shares
//                                                   =>  fused_attention_grad
//
// The fused op takes the transpose_qkv_wb form: QKVW is the QKV linear's
// weight [d, 3d] as it is, and num_heads comes from the reshape. Paddle's
// pass takes only the pre-layer-norm block with a mask, both dropouts and
// the residual add; the others are the same op with fewer parts. Every
// value inside the block must be read by the block's ops and their
// gradients alone; in a train program the forward is fused only together
// with its backward.
//
//===----------------------------------------------------------------------===//

#include "distc/Fusion/Passes.h"

#include "BlockPatterns.h"
#include "FusionLog.h"
#include "LoopInstructions.h"
#include "PatternUtils.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Transforms/ProgramUtils.h"

#include <cmath>

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEDATTENTION
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

/// One match: the forward ops in program order, then their gradients.
struct Attention {
  bool pre = true; // the layer norm comes first; else last
  Operation *ln = nullptr;
  Linear qkv, output; // the QKV and the output linear
  Operation *reshape = nullptr, *transpose = nullptr, *split = nullptr, *scale = nullptr,
            *qk = nullptr, *maskAdd = nullptr, *softmax = nullptr, *attnDrop = nullptr,
            *context = nullptr, *merge = nullptr, *flatten = nullptr, *drop = nullptr,
            *residual = nullptr;
  unsigned residualSide = 0; // which operand of the residual add is the branch
  int64_t heads = 0;

  Operation *lnGrad = nullptr, *residualGrad = nullptr, *dropGrad = nullptr, *flattenGrad = nullptr,
            *mergeGrad = nullptr, *contextGrad = nullptr, *attnDropGrad = nullptr,
            *softmaxGrad = nullptr, *maskAddGrad = nullptr, *qkGrad = nullptr, *scaleGrad = nullptr,
            *concat = nullptr, *transposeGrad = nullptr, *reshapeGrad = nullptr, *sum = nullptr;

  Value x() const { return pre ? ln->getOperand(0) : qkv.input(); }
  Value weights() const { return softmax->getResult(0); }
  Value dropped() const { return attnDrop ? attnDrop->getResult(0) : weights(); }
  Value branch() const { return drop ? drop->getResult(0) : output.out(); }
  Value out() const {
    return !pre ? ln->getResult(0) : residual ? residual->getResult(0) : branch();
  }
  SmallVector<Operation *> forward() const {
    SmallVector<Operation *> ops;
    for (Operation *op : {pre ? ln : nullptr, qkv.matmul, qkv.add, reshape, transpose, split, scale,
                          qk, maskAdd, softmax, attnDrop, context, merge, flatten, output.matmul,
                          output.add, drop, residual, pre ? nullptr : ln})
      if (op)
        ops.push_back(op);
    return ops;
  }
  SmallVector<Operation *> backward() const {
    SmallVector<Operation *> ops;
    for (Operation *op : {pre ? nullptr : lnGrad,
                          residualGrad,
                          dropGrad,
                          output.addGrad,
                          output.matmulGrad,
                          flattenGrad,
                          mergeGrad,
                          contextGrad,
                          attnDropGrad,
                          softmaxGrad,
                          maskAddGrad,
                          qkGrad,
                          scaleGrad,
                          concat,
                          transposeGrad,
                          reshapeGrad,
                          qkv.addGrad,
                          qkv.matmulGrad,
                          pre ? lnGrad : nullptr,
                          sum})
      if (op)
        ops.push_back(op);
    return ops;
  }
};

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

/// Whether transpose2 `op` swaps the middle two of four dims.
bool swapsHeads(Operation *op) {
  return op && pd::OpAttributes(op).getInts("axis") == std::vector<int64_t>{0, 2, 1, 3};
}

/// Matches the ops from the QKV linear's matmul_v2 `matmul` to the output
/// linear and its dropout: the part both forms share. Fails with `why`
/// empty where no attention block starts.
LogicalResult matchCore(Attention &m, Operation *matmul, std::string &why) {
  FailureOr<Linear> qkv = linearOf(matmul);
  if (failed(qkv))
    return failure();
  m.qkv = *qkv;
  ArrayRef<int64_t> x = shapeOf(m.qkv.input());
  if (x.size() != 3 || ShapedType::isDynamic(x[2]))
    return failure();
  const int64_t d = x[2];
  if (shapeOf(m.qkv.out()).back() != 3 * d)
    return failure();
  m.reshape = nextOp(m.qkv.out(), "reshape2");
  if (!m.reshape)
    return failure();
  ArrayRef<int64_t> split = shapeOf(m.reshape->getResult(0));
  if (split.size() != 4 || split[1] != x[1] || ShapedType::isDynamic(split[2]) ||
      split[2] % 3 != 0 || split[2] * split[3] != 3 * d)
    return failure();
  m.heads = split[2] / 3;
  // From here on the block is recognizable: a value with several readers
  // is the reason it is left.
  auto next = [&](Value value, StringRef type) {
    Operation *op = nextOp(value, type);
    if (!op)
      why = whySeveralReaders(value);
    return op;
  };
  m.transpose = next(m.reshape->getResult(0), "transpose2");
  if (!swapsHeads(m.transpose))
    return failure();
  m.split = next(m.transpose->getResult(0), "split");
  if (!m.split || m.split->getNumResults() != 3)
    return failure();
  int64_t axis = pd::OpAttributes(m.split).getInt("axis");
  if (axis != 1 && axis != -3)
    return failure();
  Value q = m.split->getResult(0), k = m.split->getResult(1), v = m.split->getResult(2);
  if (shapeOf(q)[1] != m.heads || shapeOf(k)[1] != m.heads)
    return failure();
  m.scale = next(q, "scale");
  if (!m.scale)
    return failure();
  m.qk = next(m.scale->getResult(0), "matmul_v2");
  if (!m.qk || m.qk->getOperand(1) != k || !pd::OpAttributes(m.qk).getBool("trans_y") ||
      pd::OpAttributes(m.qk).getBool("trans_x"))
    return failure();
  Value logits = m.qk->getResult(0);
  if (Operation *add = nextOp(logits, "elementwise_add");
      add && shapeOf(add->getOperand(1)).size() == 4) {
    m.maskAdd = add;
    logits = add->getResult(0);
  }
  m.softmax = next(logits, "softmax");
  if (!m.softmax)
    return failure();
  m.attnDrop = nextOp(m.weights(), "dropout");
  m.context = next(m.dropped(), "matmul_v2");
  if (!m.context || m.context->getOperand(1) != v ||
      pd::OpAttributes(m.context).getBool("trans_x") ||
      pd::OpAttributes(m.context).getBool("trans_y"))
    return failure();
  m.merge = next(m.context->getResult(0), "transpose2");
  if (!swapsHeads(m.merge))
    return failure();
  m.flatten = next(m.merge->getResult(0), "reshape2");
  if (!m.flatten || shapeOf(m.flatten->getResult(0)).size() != 3 ||
      shapeOf(m.flatten->getResult(0)).back() != d)
    return failure();
  FailureOr<Linear> out = matchLinear(m.flatten->getResult(0));
  if (failed(out) || shapeOf(out->weight()) != ArrayRef<int64_t>{d, d}) {
    why = whySeveralReaders(m.flatten->getResult(0));
    return failure();
  }
  m.output = *out;
  m.drop = nextOp(m.output.out(), "dropout");
  return success();
}

LogicalResult checkForward(const Attention &m, std::string &why);

/// Matches the pre-layer-norm block from layer_norm `ln`.
FailureOr<Attention> matchPreForward(Operation *ln, std::string &why) {
  Attention m;
  m.ln = ln;
  if (failed(matchCore(m, nextOp(ln->getResult(0), "matmul_v2"), why)))
    return failure();
  m.residual = residualAddOf(m.branch(), m.x(), m.residualSide);
  if (failed(checkForward(m, why)))
    return failure();
  return m;
}

/// Matches the post-layer-norm block ending in layer_norm `ln`: its input
/// is the residual add of the block's input X and the branch starting at
/// X's QKV linear.
FailureOr<Attention> matchPostForward(Operation *ln, std::string &why) {
  Operation *residual = ln->getOperand(0).getDefiningOp();
  if (!isType(residual, "elementwise_add"))
    return failure();
  for (unsigned side : {0u, 1u}) {
    Value x = residual->getOperand(1 - side);
    for (Operation *user : x.getUsers()) {
      if (!isType(user, "matmul_v2") || user->getOperand(0) != x || isBackwardOp(user))
        continue;
      Attention m;
      m.pre = false;
      m.ln = ln;
      std::string coreWhy;
      if (failed(matchCore(m, user, coreWhy)) || m.branch() != residual->getOperand(side))
        continue;
      m.residual = residual;
      m.residualSide = side;
      if (failed(checkForward(m, why)))
        return failure();
      return m;
    }
  }
  return failure();
}

/// What the fused op requires of a matched block beyond its shape.
LogicalResult checkForward(const Attention &m, std::string &why) {
  auto x = cast<RankedTensorType>(m.x().getType());
  if (pd::OpAttributes(m.ln).getInt("begin_norm_axis") != x.getRank() - 1) {
    why = "its layer_norm does not normalize the last dim alone";
    return failure();
  }
  Type t = x.getElementType();
  if (!isa<Float32Type, Float64Type>(t)) {
    why = "it is not float32 or float64";
    return failure();
  }
  // fused_attention scales q by hd^-0.5 in the element type.
  pd::OpAttributes scale(m.scale);
  int64_t headDim = x.getDimSize(2) / m.heads;
  double alpha = 1.0 / std::sqrt(double(headDim)), given = scale.getFloat("scale");
  bool same = t.isF32() ? float(alpha) == float(given) : alpha == given;
  if (!same || scale.getFloat("bias") != 0) {
    why = "its scale of q is not by head_dim^-0.5 (" + std::to_string(alpha) + ") in " +
          (t.isF32() ? "float32" : "float64");
    return failure();
  }
  if (m.maskAdd) {
    int64_t axis = pd::OpAttributes(m.maskAdd).getInt("axis");
    if (axis != -1 && axis != 3) {
      why = "its mask is added along axis " + std::to_string(axis);
      return failure();
    }
  }
  int64_t softmaxAxis = pd::OpAttributes(m.softmax).getInt("axis");
  if (softmaxAxis != -1 && softmaxAxis != 3) {
    why = "its softmax is not over the last axis";
    return failure();
  }
  if (!m.pre && !m.residual) {
    why = "its post layer norm has no residual add before it";
    return failure();
  }
  if (m.attnDrop && m.drop &&
      pd::OpAttributes(m.attnDrop).getBool("is_test") !=
          pd::OpAttributes(m.drop).getBool("is_test")) {
    why = "its dropouts differ in is_test";
    return failure();
  }
  return success();
}

/// Matches the backward of forward match `m`, if any: fails with `why`
/// when it is there but not chained as the fused gradient needs.
LogicalResult matchBackward(Attention &m, std::string &why) {
  m.lnGrad = layerNormGradOf(m.ln);
  m.qkv.findBackward();
  m.output.findBackward();
  m.reshapeGrad = userOfType(m.reshape->getResult(1), "reshape2_grad", 0);
  m.transposeGrad = userOfType(m.transpose->getResult(1), "transpose2_grad", 0);
  m.qkGrad = userOfType(m.scale->getResult(0), "matmul_v2_grad", 0);
  if (m.maskAdd)
    m.maskAddGrad = userOfType(m.qk->getResult(0), "elementwise_add_grad", 0);
  m.softmaxGrad = userOfType(m.weights(), "softmax_grad", 0);
  m.attnDropGrad = dropoutGradOf(m.attnDrop);
  m.contextGrad = userOfType(m.dropped(), "matmul_v2_grad", 0);
  m.mergeGrad = userOfType(m.merge->getResult(1), "transpose2_grad", 0);
  m.flattenGrad = userOfType(m.flatten->getResult(1), "reshape2_grad", 0);
  m.dropGrad = dropoutGradOf(m.drop);
  if (m.residual)
    m.residualGrad = userOfType(m.branch(), "elementwise_add_grad", m.residualSide);
  if (m.qkGrad && m.qkGrad->getResult(0).hasOneUse())
    m.scaleGrad = *m.qkGrad->getResult(0).getUsers().begin();
  if (m.transposeGrad)
    m.concat = m.transposeGrad->getOperand(1).getDefiningOp();
  if (m.backward().empty())
    return success(); // no backward: an inference program
  why = "its backward is not the gradients of its ops chained";
  if (!m.lnGrad || !m.qkv.matmulGrad || !m.qkv.addGrad || !m.output.matmulGrad ||
      !m.output.addGrad || !m.reshapeGrad || !m.transposeGrad || !m.qkGrad || !m.softmaxGrad ||
      !m.contextGrad || !m.mergeGrad || !m.flattenGrad || (m.maskAdd && !m.maskAddGrad) ||
      (m.attnDrop && !m.attnDropGrad) || (m.drop && !m.dropGrad) ||
      (m.residual && !m.residualGrad) || !isType(m.scaleGrad, "scale") ||
      !isType(m.concat, "concat"))
    return failure();
  if (m.maskAdd && !m.maskAddGrad->getResult(1).use_empty()) {
    why = "its mask needs a gradient, which fused_attention_grad does not give";
    return failure();
  }
  // Each gradient feeds the next one alone: Out@GRAD is the last operand
  // of the add, dropout, softmax and view gradients, operand 2 of
  // matmul_v2_grad and the only one of scale. The post form starts at the
  // layer norm.
  GradientChain chain{m.pre && m.residual ? m.residualGrad->getResult(m.residualSide) : Value()};
  auto step = [&](Operation *grad, unsigned index, Value result) {
    return chain.step(grad, index, result);
  };
  if (!m.pre && (!step(m.lnGrad, m.lnGrad->getNumOperands() - 1, m.lnGrad->getResult(0)) ||
                 !step(m.residualGrad, 2, m.residualGrad->getResult(m.residualSide))))
    return failure();
  if ((m.drop && !step(m.dropGrad, 1, m.dropGrad->getResult(0))) ||
      !step(m.output.addGrad, 2, m.output.addGrad->getResult(0)) ||
      !step(m.output.matmulGrad, 2, m.output.matmulGrad->getResult(0)) ||
      !step(m.flattenGrad, 1, m.flattenGrad->getResult(0)) ||
      !step(m.mergeGrad, 1, m.mergeGrad->getResult(0)) ||
      !step(m.contextGrad, 2, m.contextGrad->getResult(0)) ||
      (m.attnDrop && !step(m.attnDropGrad, 1, m.attnDropGrad->getResult(0))) ||
      !step(m.softmaxGrad, 1, m.softmaxGrad->getResult(0)) ||
      (m.maskAdd && !step(m.maskAddGrad, 2, m.maskAddGrad->getResult(0))) ||
      !step(m.qkGrad, 2, m.qkGrad->getResult(0)) ||
      !step(m.scaleGrad, 0, m.scaleGrad->getResult(0)))
    return failure();
  // split's gradient: the concat of q's, k's and v's, in that order.
  Value dk = m.qkGrad->getResult(1), dv = m.contextGrad->getResult(1);
  if (!feeds(chain.d, m.concat, 0) || !feeds(dk, m.concat, 1) || !feeds(dv, m.concat, 2) ||
      m.concat->getNumOperands() != 3)
    return failure();
  chain.d = m.concat->getResult(0);
  if (!step(m.transposeGrad, 1, m.transposeGrad->getResult(0)) ||
      !step(m.reshapeGrad, 1, m.reshapeGrad->getResult(0)) ||
      !step(m.qkv.addGrad, 2, m.qkv.addGrad->getResult(0)) ||
      !step(m.qkv.matmulGrad, 2, m.qkv.matmulGrad->getResult(0)) ||
      (m.pre && !feeds(chain.d, m.lnGrad, m.lnGrad->getNumOperands() - 1)))
    return failure();
  if (m.residual) {
    // X@GRAD: the sum of the residual's share and the branch's (through
    // the pre form's layer norm, or the QKV linear).
    Value viaResidual = m.residualGrad->getResult(1 - m.residualSide);
    Value viaBranch = m.pre ? m.lnGrad->getResult(0) : m.qkv.matmulGrad->getResult(0);
    m.sum = sumOfShares(viaBranch, viaResidual);
    if (!m.sum) {
      why = "the block input's gradient is not the sum of its two shares alone";
      return failure();
    }
  }
  why.clear();
  return success();
}

/// The attributes the two fused ops share, and the forward's own.
SmallVector<NamedAttribute> fusedAttrs(const Attention &m, Operation *roleOf, bool forward) {
  MLIRContext *ctx = m.ln->getContext();
  Builder b(ctx);
  double epsilon = pd::OpAttributes(m.ln).getFloat("epsilon");
  SmallVector<NamedAttribute> attrs = {
      namedAttr(ctx, "num_heads", b.getI32IntegerAttr(static_cast<int32_t>(m.heads))),
      namedAttr(ctx, "transpose_qkv_wb", b.getBoolAttr(true)),
      namedAttr(ctx, "pre_layer_norm", b.getBoolAttr(m.pre)),
      namedAttr(ctx, m.pre ? "epsilon" : "ln_epsilon", b.getF32FloatAttr(epsilon)),
      namedAttr(ctx, "add_residual", b.getBoolAttr(m.residual != nullptr))};
  bool isTest = false;
  for (auto [k, drop] : {std::pair{"attn_dropout", m.attnDrop}, std::pair{"dropout", m.drop}}) {
    std::string key = k;
    if (!drop) {
      attrs.push_back(namedAttr(ctx, key + "_rate", b.getF32FloatAttr(0)));
      continue;
    }
    pd::OpAttributes d(drop);
    isTest = d.getBool("is_test");
    attrs.push_back(namedAttr(ctx, key + "_rate", b.getF32FloatAttr(d.getFloat("dropout_prob"))));
    attrs.push_back(namedAttr(ctx, key + "_implementation",
                              b.getStringAttr(d.getString("dropout_implementation"))));
    if (forward) {
      attrs.push_back(namedAttr(ctx, key + "_fix_seed", b.getBoolAttr(d.getBool("fix_seed"))));
      attrs.push_back(namedAttr(ctx, key + "_seed",
                                b.getI32IntegerAttr(static_cast<int32_t>(d.getInt("seed")))));
      attrs.push_back(
          namedAttr(ctx, key + "_seed_name", b.getStringAttr(variableName(drop->getResult(0)))));
    }
  }
  attrs.push_back(namedAttr(ctx, "is_test", b.getBoolAttr(isTest)));
  if (Attribute role = roleOf->getAttr("op_role"))
    attrs.push_back(namedAttr(ctx, "op_role", role));
  return attrs;
}

LogicalResult rewrite(Attention &m, FusionLog &log) {
  log.fused(m.forward(), "fused_attention");
  Operation *last = m.forward().back();
  auto [lnScale, lnBias] = layerNormParams(m.ln);
  SmallVector<Value, 1> none, mask;
  if (m.maskAdd)
    mask.push_back(m.maskAdd->getOperand(1));
  // X, LnScale, LnBias, QKVW, QKVBias, SrcMask, OutLinearW, OutLinearBias,
  // Ln2Scale, Ln2Bias.
  SmallVector<SmallVector<Value, 1>> operands = {{m.x()},
                                                 m.pre ? lnScale : none,
                                                 m.pre ? lnBias : none,
                                                 {m.qkv.weight()},
                                                 {m.qkv.bias()},
                                                 mask,
                                                 {m.output.weight()},
                                                 {m.output.bias()},
                                                 m.pre ? none : lnScale,
                                                 m.pre ? none : lnBias};
  // The results keep the names of the values they stand for; one with no
  // such value (an absent dropout's) is named after Y.
  const std::string y = variableName(m.out());
  auto nameOr = [&](Operation *op, unsigned index, const char *slot) {
    std::string name = nameOfResult(op, index);
    return name.empty() ? y + "." + slot : name;
  };
  std::string mean = nameOfResult(m.ln, 1), variance = nameOfResult(m.ln, 2);
  std::vector<std::string> names = {m.pre ? mean : "",
                                    m.pre ? variance : "",
                                    m.pre ? variableName(m.ln->getResult(0)) : "",
                                    variableName(m.qkv.matmul->getResult(0)),
                                    variableName(m.qkv.out()),
                                    variableName(m.transpose->getResult(0)),
                                    variableName(m.qk->getResult(0)),
                                    variableName(m.context->getResult(0)),
                                    variableName(m.weights()),
                                    nameOr(m.attnDrop, 1, "AttnDropoutMaskOut"),
                                    nameOr(m.attnDrop, 0, "AttnDropoutOut"),
                                    nameOr(m.maskAdd, 0, "SrcMaskOut"),
                                    variableName(m.flatten->getResult(0)),
                                    variableName(m.output.matmul->getResult(0)),
                                    nameOr(m.drop, 1, "DropoutMaskOut"),
                                    m.pre ? "" : mean,
                                    m.pre ? "" : variance,
                                    m.pre ? "" : variableName(m.residual->getResult(0)),
                                    y};
  OpBuilder builder(last);
  FailureOr<Operation *> fused = pd::buildCatalogOp(builder, last->getLoc(), "fused_attention",
                                                    operands, fusedAttrs(m, last, true), names);
  if (failed(fused))
    return failure();
  deferReaders(m.forward(), *fused);
  auto result = [&](unsigned i) { return SmallVector<Value, 1>{(*fused)->getResult(i)}; };

  if (m.lnGrad) {
    log.fused(m.backward(), "fused_attention_grad");
    Operation *first = m.backward().front();
    Value dOut = !m.pre       ? m.lnGrad->getOperand(m.lnGrad->getNumOperands() - 1)
                 : m.residual ? m.residualGrad->getOperand(2)
                 : m.drop     ? m.dropGrad->getOperand(1)
                              : m.output.addGrad->getOperand(2);
    // Y@GRAD, X, QKVW, QKVBias, OutLinearW, OutLinearBias, LnScale, LnBias,
    // LnOut, Ln2Scale, Ln2Bias, BiasDropoutResidualOut, TransposeOut2,
    // SoftmaxOut, AttnDropoutMaskOut, AttnDropoutOut, FMHAOut,
    // DropoutMaskOut.
    SmallVector<SmallVector<Value, 1>> gradOperands = {{dOut},
                                                       {m.x()},
                                                       {m.qkv.weight()},
                                                       {m.qkv.bias()},
                                                       {m.output.weight()},
                                                       {m.output.bias()},
                                                       m.pre ? lnScale : none,
                                                       m.pre ? lnBias : none,
                                                       m.pre ? result(2) : none,
                                                       m.pre ? none : lnScale,
                                                       m.pre ? none : lnBias,
                                                       m.pre ? none : result(17),
                                                       result(5),
                                                       result(8),
                                                       result(9),
                                                       result(10),
                                                       result(12),
                                                       result(14)};
    // X@GRAD, QKVW@GRAD, QKVBias@GRAD, OutLinearW@GRAD, OutLinearBias@GRAD,
    // LnScale@GRAD, LnBias@GRAD, Ln2Scale@GRAD, Ln2Bias@GRAD.
    Value dScale = m.lnGrad->getResult(1), dBias = m.lnGrad->getResult(2);
    SmallVector<Value> replaced = {m.sum   ? m.sum->getResult(0)
                                   : m.pre ? m.lnGrad->getResult(0)
                                           : m.qkv.matmulGrad->getResult(0),
                                   m.qkv.matmulGrad->getResult(1),
                                   m.qkv.addGrad->getResult(1),
                                   m.output.matmulGrad->getResult(1),
                                   m.output.addGrad->getResult(1),
                                   m.pre ? dScale : Value(),
                                   m.pre ? dBias : Value(),
                                   m.pre ? Value() : dScale,
                                   m.pre ? Value() : dBias};
    std::vector<std::string> gradNames;
    for (Value v : replaced)
      gradNames.push_back(v ? variableName(v) : "");
    // At the chain's first op: the parameters' gradients may be read (by
    // their all-reduce) between the gradients the op replaces.
    OpBuilder gradBuilder(first);
    FailureOr<Operation *> grad =
        pd::buildCatalogOp(gradBuilder, first->getLoc(), "fused_attention_grad", gradOperands,
                           fusedAttrs(m, m.qkv.matmulGrad, false), gradNames);
    if (failed(grad))
      return failure();
    for (auto [i, v] : llvm::enumerate(replaced))
      if (v)
        v.replaceAllUsesWith((*grad)->getResult(i));
  }
  m.out().replaceAllUsesWith((*fused)->getResult(18));
  eraseBlock(m.forward(), m.backward());
  return success();
}

struct FusedAttentionPass : impl::FusedAttentionBase<FusedAttentionPass> {
  using FusedAttentionBase::FusedAttentionBase;
  void runOnOperation() override {
    FusionLog log("fused_attention", explain);
    if (failed(fuseBlocks<Attention>(getOperation(), log, matchPreForward, matchPostForward,
                                     matchBackward, rewrite)))
      signalPassFailure();
  }
};

} // namespace
} // namespace distc::fusion
