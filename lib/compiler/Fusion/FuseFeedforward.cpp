//===- FuseFeedforward.cpp - a transformer's FFN block as one op ----------===//
//
// BuildStrategy.fused_feedforward, as Paddle's fused_feedforward_pass:
//
//   forward   pre layer norm:
//               layer_norm -> matmul_v2 -> elementwise_add (bias) ->
//               gelu | relu -> [dropout] -> matmul_v2 -> elementwise_add ->
//               [dropout] -> [elementwise_add of the block's input]
//             post layer norm:
//               matmul_v2 -> ... -> [dropout] -> elementwise_add of the
//               block's input -> layer_norm
//                                                   =>  fused_feedforward
//   backward  their gradients, and the sum of the input's two gradient
//             shares                                =>  fused_feedforward_grad
//
// As in Paddle at least one of the dropouts must be there (an absent one
// has rate 0), and both have the same is_test. Every value inside the block
// must be read by the block's ops and their gradients alone; in a train
// program the forward is fused only together with its backward.
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

#include "llvm/ADT/SetVector.h"

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEDFEEDFORWARD
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

/// One match.
struct Ffn {
  Operation *ln = nullptr, *act = nullptr, *drop1 = nullptr, *drop2 = nullptr, *residual = nullptr;
  Linear l1, l2;
  Operation *lnGrad = nullptr, *actGrad = nullptr, *drop1Grad = nullptr, *drop2Grad = nullptr,
            *residualGrad = nullptr, *sum = nullptr;
  unsigned residualSide = 0; // which operand of the residual add is the branch
  bool pre = true;           // the layer norm comes first; else last

  Value x() const { return pre ? ln->getOperand(0) : l1.matmul->getOperand(0); }
  Value dropped1() const { return drop1 ? drop1->getResult(0) : act->getResult(0); }
  Value branch() const { return drop2 ? drop2->getResult(0) : l2.out(); }
  Value out() const {
    return !pre ? ln->getResult(0) : residual ? residual->getResult(0) : branch();
  }
  SmallVector<Operation *> forward() const {
    SmallVector<Operation *> ops;
    for (Operation *op : {pre ? ln : nullptr, l1.matmul, l1.add, act, drop1, l2.matmul, l2.add,
                          drop2, residual, pre ? nullptr : ln})
      if (op)
        ops.push_back(op);
    return ops;
  }
  SmallVector<Operation *> backward() const {
    SmallVector<Operation *> ops;
    for (Operation *op :
         {pre ? nullptr : lnGrad, residualGrad, drop2Grad, l2.addGrad, l2.matmulGrad, drop1Grad,
          actGrad, l1.addGrad, l1.matmulGrad, pre ? lnGrad : nullptr, sum})
      if (op)
        ops.push_back(op);
    return ops;
  }
};

/// The dropout reading `value`, if any.
Operation *optionalDropout(Value value) { return nextOp(value, "dropout"); }

LogicalResult checkForward(const Ffn &m, std::string &why);

/// Matches the pre-layer-norm forward ops from layer_norm `ln`. Fails with
/// `why` empty when `ln` starts no FFN block.
FailureOr<Ffn> matchPreForward(Operation *ln, std::string &why) {
  Ffn m;
  m.ln = ln;
  FailureOr<Linear> l1 = matchLinear(ln->getResult(0));
  if (failed(l1))
    return failure();
  m.l1 = *l1;
  Operation *act = forwardReader(m.l1.out());
  if (!act || !(isType(act, "gelu") || isType(act, "relu")))
    return failure();
  m.act = act;
  m.drop1 = optionalDropout(act->getResult(0));
  FailureOr<Linear> l2 = matchLinear(m.dropped1());
  if (failed(l2)) {
    why = whySeveralReaders(m.dropped1());
    return failure();
  }
  m.l2 = *l2;
  m.drop2 = optionalDropout(m.l2.out());
  m.residual = residualAddOf(m.branch(), m.x(), m.residualSide);

  if (failed(checkForward(m, why)))
    return failure();
  return m;
}

/// Matches the post-layer-norm forward ops ending in layer_norm `ln`,
/// tracing them back from its input. Fails with `why` empty when `ln`
/// ends no FFN block.
FailureOr<Ffn> matchPostForward(Operation *ln, std::string &why) {
  Ffn m;
  m.pre = false;
  m.ln = ln;
  m.residual = ln->getOperand(0).getDefiningOp();
  if (!isType(m.residual, "elementwise_add"))
    return failure();
  for (unsigned side : {0u, 1u}) {
    Ffn t = m;
    t.residualSide = side;
    Value b = m.residual->getOperand(side);
    t.drop2 = dropoutDefining(b);
    FailureOr<Linear> l2 = linearDefining(t.drop2 ? t.drop2->getOperand(0) : b);
    if (failed(l2))
      continue;
    t.l2 = *l2;
    Value d1 = t.l2.matmul->getOperand(0);
    t.drop1 = dropoutDefining(d1);
    t.act = (t.drop1 ? t.drop1->getOperand(0) : d1).getDefiningOp();
    if (!isType(t.act, "gelu") && !isType(t.act, "relu"))
      continue;
    FailureOr<Linear> l1 = linearDefining(t.act->getOperand(0));
    if (failed(l1) || l1->matmul->getOperand(0) != m.residual->getOperand(1 - side))
      continue;
    t.l1 = *l1;
    if (failed(checkForward(t, why)))
      return failure();
    return t;
  }
  return failure();
}

/// What Paddle's pattern requires of a matched block beyond its shape.
LogicalResult checkForward(const Ffn &m, std::string &why) {
  Operation *ln = m.ln, *act = m.act;
  auto x = cast<RankedTensorType>(m.x().getType());
  if (pd::OpAttributes(ln).getInt("begin_norm_axis") != x.getRank() - 1) {
    why = "its layer_norm does not normalize the last dim alone";
    return failure();
  }
  if (!isa<Float32Type, Float64Type>(x.getElementType())) {
    why = "it is not float32 or float64";
    return failure();
  }
  if (isType(act, "gelu") && pd::OpAttributes(act).getBool("approximate")) {
    why = "its gelu is the tanh approximation, which fused_feedforward does not take";
    return failure();
  }
  if (!m.drop1 && !m.drop2) {
    why = "it has no dropout (Paddle's pattern needs one)";
    return failure();
  }
  if (m.drop1 && m.drop2 &&
      pd::OpAttributes(m.drop1).getBool("is_test") !=
          pd::OpAttributes(m.drop2).getBool("is_test")) {
    why = "its dropouts differ in is_test";
    return failure();
  }
  return success();
}

/// Matches the backward of forward match `m`, if any: fails with `why`
/// when it is there but not chained as the fused gradient needs.
LogicalResult matchBackward(Ffn &m, std::string &why) {
  m.lnGrad = layerNormGradOf(m.ln);
  m.l1.matmulGrad = userOfType(m.l1.matmul->getOperand(0), "matmul_v2_grad", 0);
  m.l1.addGrad = userOfType(m.l1.matmul->getResult(0), "elementwise_add_grad", 0);
  m.actGrad = isType(m.act, "gelu") ? userOfType(m.l1.out(), "gelu_grad", 0)
                                    : userOfType(m.act->getResult(0), "relu_grad", 0);
  m.l2.matmulGrad = userOfType(m.dropped1(), "matmul_v2_grad", 0);
  m.l2.addGrad = userOfType(m.l2.matmul->getResult(0), "elementwise_add_grad", 0);
  m.drop1Grad = dropoutGradOf(m.drop1);
  m.drop2Grad = dropoutGradOf(m.drop2);
  if (m.residual)
    m.residualGrad = userOfType(m.branch(), "elementwise_add_grad", m.residualSide);
  SmallVector<Operation *> found = m.backward();
  if (found.empty())
    return success(); // no backward: an inference program
  why = "its backward is not the gradients of its ops chained";
  if (!m.lnGrad || !m.l1.matmulGrad || !m.l1.addGrad || !m.actGrad || !m.l2.matmulGrad ||
      !m.l2.addGrad || (m.drop1 && !m.drop1Grad) || (m.drop2 && !m.drop2Grad) ||
      (m.residual && !m.residualGrad))
    return failure();
  // Each gradient feeds the next one alone: Out@GRAD is the last operand
  // of the add, dropout and activation gradients, and operand 2 of
  // matmul_v2_grad. The post form starts at the layer norm.
  GradientChain chain{m.pre && m.residual ? m.residualGrad->getResult(m.residualSide) : Value()};
  auto step = [&](Operation *grad, unsigned index, Value result) {
    return chain.step(grad, index, result);
  };
  if (!m.pre && (!step(m.lnGrad, m.lnGrad->getNumOperands() - 1, m.lnGrad->getResult(0)) ||
                 !step(m.residualGrad, 2, m.residualGrad->getResult(m.residualSide))))
    return failure();
  if ((m.drop2 && !step(m.drop2Grad, 1, m.drop2Grad->getResult(0))) ||
      !step(m.l2.addGrad, 2, m.l2.addGrad->getResult(0)) ||
      !step(m.l2.matmulGrad, 2, m.l2.matmulGrad->getResult(0)) ||
      (m.drop1 && !step(m.drop1Grad, 1, m.drop1Grad->getResult(0))) ||
      !step(m.actGrad, 1, m.actGrad->getResult(0)) ||
      !step(m.l1.addGrad, 2, m.l1.addGrad->getResult(0)) ||
      !step(m.l1.matmulGrad, 2, m.l1.matmulGrad->getResult(0)) ||
      (m.pre && !feeds(chain.d, m.lnGrad, m.lnGrad->getNumOperands() - 1)))
    return failure();
  if (m.residual) {
    // X@GRAD: the sum of the residual's share and the branch's (through
    // the pre form's layer norm, or the first linear).
    Value viaResidual = m.residualGrad->getResult(1 - m.residualSide);
    Value viaNorm = m.pre ? m.lnGrad->getResult(0) : m.l1.matmulGrad->getResult(0);
    Operation *sum = sumOfShares(viaNorm, viaResidual);
    if (!sum) {
      why = "the block input's gradient is not the sum of its two shares alone";
      return failure();
    }
    m.sum = sum;
  }
  why.clear();
  return success();
}

/// The attributes the two fused ops share, and the forward's own.
SmallVector<NamedAttribute> fusedAttrs(const Ffn &m, Operation *roleOf, bool forward) {
  MLIRContext *ctx = m.ln->getContext();
  Builder b(ctx);
  SmallVector<NamedAttribute> attrs = {
      namedAttr(ctx, "pre_layer_norm", b.getBoolAttr(m.pre)),
      namedAttr(ctx, m.pre ? "ln1_epsilon" : "ln2_epsilon",
                b.getF32FloatAttr(pd::OpAttributes(m.ln).getFloat("epsilon"))),
      namedAttr(ctx, "act_method", b.getStringAttr(m.act->getName().stripDialect())),
      namedAttr(ctx, "add_residual", b.getBoolAttr(m.residual != nullptr))};
  bool isTest = false;
  for (auto [which, drop] : {std::pair{1, m.drop1}, std::pair{2, m.drop2}}) {
    std::string k = "dropout" + std::to_string(which);
    if (!drop) {
      attrs.push_back(namedAttr(ctx, k + "_rate", b.getF32FloatAttr(0)));
      continue;
    }
    pd::OpAttributes d(drop);
    isTest = d.getBool("is_test");
    attrs.push_back(namedAttr(ctx, k + "_rate", b.getF32FloatAttr(d.getFloat("dropout_prob"))));
    attrs.push_back(namedAttr(ctx, k + "_implementation",
                              b.getStringAttr(d.getString("dropout_implementation"))));
    if (forward) {
      attrs.push_back(namedAttr(ctx, k + "_fix_seed", b.getBoolAttr(d.getBool("fix_seed"))));
      attrs.push_back(
          namedAttr(ctx, k + "_seed", b.getI32IntegerAttr(static_cast<int32_t>(d.getInt("seed")))));
      attrs.push_back(
          namedAttr(ctx, k + "_seed_name", b.getStringAttr(variableName(drop->getResult(0)))));
    }
  }
  attrs.push_back(namedAttr(ctx, "is_test", b.getBoolAttr(isTest)));
  if (Attribute role = roleOf->getAttr("op_role"))
    attrs.push_back(namedAttr(ctx, "op_role", role));
  return attrs;
}

LogicalResult rewrite(Ffn &m, FusionLog &log) {
  log.fused(m.forward(), "fused_feedforward");
  Operation *last = m.forward().back();
  // X, Linear1Weight, Linear1Bias, Linear2Weight, Linear2Bias, Ln1Scale,
  // Ln1Bias, Ln2Scale, Ln2Bias.
  auto [lnScale, lnBias] = layerNormParams(m.ln);
  SmallVector<Value, 1> none;
  SmallVector<SmallVector<Value, 1>> operands = {{m.x()},
                                                 {m.l1.weight()},
                                                 {m.l1.bias()},
                                                 {m.l2.weight()},
                                                 {m.l2.bias()},
                                                 m.pre ? lnScale : none,
                                                 m.pre ? lnBias : none,
                                                 m.pre ? none : lnScale,
                                                 m.pre ? none : lnBias};
  // Out, Dropout1Mask, Dropout2Mask, Ln1Mean, Ln1Variance, Ln2Mean,
  // Ln2Variance, Linear1Out, Ln1Out, Dropout1Out, Dropout2Out (the post
  // form's layer norm input).
  std::string mean = nameOfResult(m.ln, 1), variance = nameOfResult(m.ln, 2);
  std::vector<std::string> names = {variableName(m.out()),
                                    nameOfResult(m.drop1, 1),
                                    nameOfResult(m.drop2, 1),
                                    m.pre ? mean : "",
                                    m.pre ? variance : "",
                                    m.pre ? "" : mean,
                                    m.pre ? "" : variance,
                                    variableName(m.l1.out()),
                                    m.pre ? variableName(m.ln->getResult(0)) : "",
                                    variableName(m.dropped1()),
                                    m.pre ? "" : variableName(m.residual->getResult(0))};
  OpBuilder builder(last);
  FailureOr<Operation *> fused = pd::buildCatalogOp(builder, last->getLoc(), "fused_feedforward",
                                                    operands, fusedAttrs(m, last, true), names);
  if (failed(fused))
    return failure();
  deferReaders(m.forward(), *fused);
  auto result = [&](unsigned i) { return (*fused)->getResult(i); };

  if (m.lnGrad) {
    log.fused(m.backward(), "fused_feedforward_grad");
    Operation *first = m.backward().front();
    Value dOut = !m.pre       ? m.lnGrad->getOperand(m.lnGrad->getNumOperands() - 1)
                 : m.residual ? m.residualGrad->getOperand(2)
                 : m.drop2    ? m.drop2Grad->getOperand(1)
                              : m.l2.addGrad->getOperand(2);
    // Out@GRAD, X, Linear1Weight, Linear1Bias, Linear2Weight, Linear2Bias,
    // Dropout1Mask, Dropout2Mask, Linear1Out, Dropout1Out, Dropout2Out,
    // Ln1Scale, Ln1Bias, Ln1Out, Ln1Mean, Ln1Variance, Ln2*.
    SmallVector<SmallVector<Value, 1>> gradOperands = {
        {dOut},
        {m.x()},
        {m.l1.weight()},
        {m.l1.bias()},
        {m.l2.weight()},
        {m.l2.bias()},
        {result(1)},
        {result(2)},
        {result(7)},
        {result(9)},
        m.pre ? none : SmallVector<Value, 1>{result(10)},
        m.pre ? lnScale : none,
        m.pre ? lnBias : none,
        m.pre ? SmallVector<Value, 1>{result(8)} : none,
        m.pre ? SmallVector<Value, 1>{result(3)} : none,
        m.pre ? SmallVector<Value, 1>{result(4)} : none,
        m.pre ? none : lnScale,
        m.pre ? none : lnBias,
        m.pre ? none : SmallVector<Value, 1>{result(5)},
        m.pre ? none : SmallVector<Value, 1>{result(6)}};
    // X@GRAD, Ln1Scale@GRAD, Ln1Bias@GRAD, Ln2Scale@GRAD, Ln2Bias@GRAD,
    // Linear1Weight@GRAD, Linear1Bias@GRAD, Linear2Weight@GRAD,
    // Linear2Bias@GRAD.
    Value dScale = m.lnGrad->getResult(1), dBias = m.lnGrad->getResult(2);
    SmallVector<Value> replaced = {m.sum ? m.sum->getResult(0) : m.lnGrad->getResult(0),
                                   m.pre ? dScale : Value(),
                                   m.pre ? dBias : Value(),
                                   m.pre ? Value() : dScale,
                                   m.pre ? Value() : dBias,
                                   m.l1.matmulGrad->getResult(1),
                                   m.l1.addGrad->getResult(1),
                                   m.l2.matmulGrad->getResult(1),
                                   m.l2.addGrad->getResult(1)};
    std::vector<std::string> gradNames;
    for (Value v : replaced)
      gradNames.push_back(v ? variableName(v) : "");
    // At the chain's first op: the parameters' gradients may be read (by
    // their all-reduce) between the gradients the op replaces.
    OpBuilder gradBuilder(first);
    FailureOr<Operation *> grad =
        pd::buildCatalogOp(gradBuilder, first->getLoc(), "fused_feedforward_grad", gradOperands,
                           fusedAttrs(m, m.l1.matmulGrad, false), gradNames);
    if (failed(grad))
      return failure();
    for (auto [i, v] : llvm::enumerate(replaced))
      if (v)
        v.replaceAllUsesWith((*grad)->getResult(i));
  }
  m.out().replaceAllUsesWith(result(0));
  eraseBlock(m.forward(), m.backward());
  return success();
}

struct FusedFeedforwardPass : impl::FusedFeedforwardBase<FusedFeedforwardPass> {
  using FusedFeedforwardBase::FusedFeedforwardBase;
  void runOnOperation() override {
    FusionLog log("fused_feedforward", explain);
    if (failed(fuseBlocks<Ffn>(getOperation(), log, matchPreForward, matchPostForward,
                               matchBackward, rewrite)))
      signalPassFailure();
  }
};

} // namespace
} // namespace distc::fusion
