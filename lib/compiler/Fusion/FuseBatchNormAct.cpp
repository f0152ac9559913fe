//===- FuseBatchNormAct.cpp - batch_norm with its activation in one pass --===//
//
// BuildStrategy.fuse_bn_act_ops and fuse_bn_add_act_ops, as Paddle's
// fuse_bn_act_pass and fuse_bn_add_act_pass, with their activation relu:
//
//   forward   batch_norm -> relu                  =>  fused_batch_norm_act
//             batch_norm -> elementwise_add(, z) -> relu
//                                                 =>  fused_bn_add_activation
//   backward  relu_grad -> batch_norm_grad        =>  fused_batch_norm_act_grad
//             relu_grad -> elementwise_add_grad -> batch_norm_grad
//                                                 =>  fused_bn_add_activation_grad
//
// The normalized value (and the sum) never reach memory: batch_norm's
// kernel adds z and applies relu as it writes y, and its gradient applies
// relu's gradient as it first reads dy. Only batch_norm's training form is
// fused (Paddle's fused kernels have no other), in any program: outside a
// train program the fused op normalizes with the running statistics, as
// batch_norm does. In a train program the forward is fused only together
// with its backward.
//
//===----------------------------------------------------------------------===//

#include "distc/Fusion/Passes.h"

#include "FusionLog.h"
#include "LoopInstructions.h"
#include "PatternUtils.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Transforms/ProgramUtils.h"

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEBNACT
#define GEN_PASS_DEF_FUSEBNADDACT
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

/// batch_norm's attributes the fused ops take over as they are (data_layout,
/// whose default differs, is always set).
constexpr llvm::StringLiteral kCopiedAttrs[] = {"momentum", "epsilon", "is_test",
                                                "use_global_stats", "trainable_statistics"};

/// One match: bn -> [add ->] relu, and its backward when there is one.
struct BnAct {
  Operation *bn = nullptr, *add = nullptr, *act = nullptr;
  unsigned bnSide = 0; // which operand of the add is bn's Y
  Operation *actGrad = nullptr, *addGrad = nullptr, *bnGrad = nullptr;

  Value z() const { return add->getOperand(1 - bnSide); }
  SmallVector<Operation *> forward() const {
    return add ? SmallVector<Operation *>{bn, add, act} : SmallVector<Operation *>{bn, act};
  }
  SmallVector<Operation *> backward() const {
    return addGrad ? SmallVector<Operation *>{actGrad, addGrad, bnGrad}
                   : SmallVector<Operation *>{actGrad, bnGrad};
  }
};

/// Why `bn` is not in the training form Paddle's fused kernels compute, or "".
std::string whyNotTrainingForm(Operation *bn) {
  pd::OpAttributes attrs(bn);
  if (attrs.getBool("is_test") || attrs.getBool("use_global_stats"))
    return "it normalizes with the running statistics (is_test or use_global_stats)";
  if (!isa<Float32Type, Float64Type>(
          cast<RankedTensorType>(bn->getResult(0).getType()).getElementType()))
    return "it is not float32 or float64";
  return "";
}

/// The batch_norm_grad of `bn`: the one reading its SavedMean.
Operation *bnGradOf(Operation *bn) {
  for (Operation *user : bn->getResult(3).getUsers())
    if (isType(user, "batch_norm_grad"))
      return user;
  return nullptr;
}

/// Whether `grad`'s Y@GRAD (its last operand) is `value` and `value` has
/// no other reader.
bool feedsOnly(Value value, Operation *grad) {
  return grad && value.hasOneUse() && grad->getOperands().back() == value;
}

/// Matches batch_norm `bn` followed by relu (withAdd false) or by an
/// elementwise_add of a tensor of its shape and relu (withAdd true). Fails
/// with `why` empty when `bn` is no candidate at all.
FailureOr<BnAct> match(Operation *bn, bool withAdd, std::string &why) {
  BnAct m;
  m.bn = bn;
  // Y's reader: the relu or the add (whose gradient reads Y too).
  Value y = bn->getResult(0);
  Operation *next = nullptr;
  for (Operation *user : y.getUsers())
    if (!isType(user, "elementwise_add_grad")) {
      if (next)
        return failure();
      next = user;
    }
  if (!next || (!withAdd && !y.hasOneUse()))
    return failure();
  if (withAdd) {
    if (!isType(next, "elementwise_add"))
      return failure();
    m.add = next;
    m.bnSide = next->getOperand(0) == y ? 0 : 1;
    Value sum = next->getResult(0);
    if (!sum.hasOneUse() || !isType(*sum.getUsers().begin(), "relu"))
      return failure();
    m.act = *sum.getUsers().begin();
    if (m.z().getType() != y.getType()) {
      why = "the tensor added, " + variableName(m.z()) + ", is broadcast";
      return failure();
    }
  } else {
    if (!isType(next, "relu"))
      return failure();
    m.act = next;
  }
  if (why = whyNotTrainingForm(bn); !why.empty())
    return failure();
  for (Operation *member : m.forward())
    if (why = whyReadersCannotWait(member, m.act, m.forward()); !why.empty())
      return failure();

  m.bnGrad = bnGradOf(bn);
  m.actGrad = userOfType(m.act->getResult(0), "relu_grad", 0);
  if (!m.bnGrad && !m.actGrad)
    return m; // no backward: an inference program
  std::string chain = withAdd ? "relu_grad, elementwise_add_grad and batch_norm_grad"
                              : "relu_grad and batch_norm_grad";
  why = "its backward is not " + chain + " chained";
  if (!m.bnGrad || !m.actGrad || m.bnGrad->getOperand(0) != bn->getOperand(0))
    return failure();
  Value dAct = m.actGrad->getResult(0);
  if (withAdd) {
    m.addGrad = userOfType(dAct, "elementwise_add_grad", 2);
    if (!m.addGrad || !dAct.hasOneUse() || m.addGrad->getOperand(m.bnSide) != y ||
        !onlyUsedBy(y, {m.add, m.addGrad}) || !feedsOnly(m.addGrad->getResult(m.bnSide), m.bnGrad))
      return failure();
  } else if (!feedsOnly(dAct, m.bnGrad)) {
    return failure();
  }
  why.clear();
  return m;
}

/// The fused ops' attributes: bn's, act_type, and `roleOf`'s op_role.
SmallVector<NamedAttribute> fusedAttrs(Operation *bn, Operation *roleOf) {
  MLIRContext *ctx = bn->getContext();
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : kCopiedAttrs)
    if (Attribute a = bn->getAttr(name))
      attrs.push_back(namedAttr(ctx, name, a));
  attrs.push_back(namedAttr(ctx, "data_layout",
                            StringAttr::get(ctx, pd::OpAttributes(bn).getString("data_layout"))));
  attrs.push_back(namedAttr(ctx, "act_type", StringAttr::get(ctx, "relu")));
  if (Attribute role = roleOf->getAttr("op_role"))
    attrs.push_back(namedAttr(ctx, "op_role", role));
  return attrs;
}

LogicalResult rewrite(BnAct &m, FusionLog &log) {
  const bool withAdd = m.add != nullptr;
  Operation *bn = m.bn;
  StringRef type = withAdd ? "fused_bn_add_activation" : "fused_batch_norm_act";
  log.fused(m.forward(), type);
  // Operands: X, [Z,] Scale, Bias, Mean, Variance.
  SmallVector<SmallVector<Value, 1>> operands = {{bn->getOperand(0)}};
  if (withAdd)
    operands.push_back({m.z()});
  for (unsigned i = 1; i <= 4; ++i)
    operands.push_back({bn->getOperand(i)});
  Value out = m.act->getResult(0);
  std::vector<std::string> names = {variableName(out)};
  for (unsigned r = 1; r < bn->getNumResults(); ++r)
    names.push_back(variableName(bn->getResult(r)));
  OpBuilder builder(m.act);
  FailureOr<Operation *> fused =
      pd::buildCatalogOp(builder, m.act->getLoc(), type, operands, fusedAttrs(bn, m.act), names);
  if (failed(fused))
    return failure();
  // bn's write-backs of the running statistics wait for the fused op.
  deferReaders(m.forward(), *fused);
  Value fusedOut = (*fused)->getResult(0);

  if (m.bnGrad) {
    StringRef gradType = withAdd ? "fused_bn_add_activation_grad" : "fused_batch_norm_act_grad";
    log.fused(m.backward(), gradType);
    Operation *bnGrad = m.bnGrad;
    pd::OpAttributes gradAttrs(bnGrad);
    // X, Y, Y@GRAD, Scale, Bias, SavedMean, SavedVariance, ReserveSpace?.
    SmallVector<SmallVector<Value, 1>> gradOperands = {
        {bn->getOperand(0)},        {fusedOut},
        {m.actGrad->getOperand(1)}, {bn->getOperand(1)},
        {bn->getOperand(2)},        {(*fused)->getResult(3)},
        {(*fused)->getResult(4)},   {}};
    // Results: X@GRAD, [Z@GRAD,] Scale@GRAD, Bias@GRAD.
    SmallVector<Value> replaced = {bnGrad->getResult(0)};
    if (withAdd)
      replaced.push_back(m.addGrad->getResult(1 - m.bnSide));
    replaced.push_back(bnGrad->getResult(1));
    replaced.push_back(bnGrad->getResult(2));
    std::vector<std::string> gradNames;
    for (Value v : replaced)
      gradNames.push_back(variableName(v));
    // At the chain's first op: its operands are all defined by then, and a
    // reader of Z@GRAD may run before batch_norm_grad.
    OpBuilder gradBuilder(m.actGrad);
    FailureOr<Operation *> grad =
        pd::buildCatalogOp(gradBuilder, m.actGrad->getLoc(), gradType, gradOperands,
                           fusedAttrs(bn, bnGrad), gradNames);
    if (failed(grad))
      return failure();
    for (auto [i, v] : llvm::enumerate(replaced))
      v.replaceAllUsesWith((*grad)->getResult(i));
  }
  out.replaceAllUsesWith(fusedOut);
  for (unsigned r = 1; r < bn->getNumResults(); ++r)
    bn->getResult(r).replaceAllUsesWith((*fused)->getResult(r));
  SmallVector<Operation *> replacedOps = m.forward();
  if (m.bnGrad)
    replacedOps.append(m.backward());
  for (Operation *op : llvm::reverse(replacedOps))
    op->erase();
  return success();
}

/// Both passes: every batch_norm of the main programs, matched with or
/// without the add.
LogicalResult fuseAll(ModuleOp module, bool withAdd, FusionLog &log) {
  return forEachCandidate(module, {"batch_norm"}, [&](Operation *bn) -> LogicalResult {
    std::string why;
    FailureOr<BnAct> m = match(bn, withAdd, why);
    if (succeeded(m))
      return rewrite(*m, log);
    if (!why.empty())
      log.left(bn, why);
    return success();
  });
}

struct FuseBnActPass : impl::FuseBnActBase<FuseBnActPass> {
  using FuseBnActBase::FuseBnActBase;
  void runOnOperation() override {
    FusionLog log("fuse_bn_act_ops", explain);
    if (failed(fuseAll(getOperation(), /*withAdd=*/false, log)))
      signalPassFailure();
  }
};

struct FuseBnAddActPass : impl::FuseBnAddActBase<FuseBnAddActPass> {
  using FuseBnAddActBase::FuseBnAddActBase;
  void runOnOperation() override {
    FusionLog log("fuse_bn_add_act_ops", explain);
    if (failed(fuseAll(getOperation(), /*withAdd=*/true, log)))
      signalPassFailure();
  }
};

} // namespace
} // namespace distc::fusion
