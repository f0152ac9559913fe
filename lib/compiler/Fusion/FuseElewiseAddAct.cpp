//===- FuseElewiseAddAct.cpp - an add and an activation in one pass -------===//
//
// BuildStrategy.fuse_elewise_add_act_ops, as Paddle's
// fuse_elewise_add_act_pass, with its activations relu and tanh:
//
//   act(elementwise_add(x, y))  =>  fused_elemwise_add_activation
//                                   [act, elementwise_add]
//   elementwise_add(x, act(y))  =>  fused_elemwise_add_activation
//                                   [elementwise_add, act]
//
// and in a train program their backward, the activation's gradient and
// elementwise_add_grad, into one fused_elemwise_add_activation_grad. The
// forward writes one tensor instead of two; the lowering runs it as one
// generated loop.
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
#define GEN_PASS_DEF_FUSEELEWISEADDACT
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

bool isActivation(Operation *op) { return isType(op, "relu") || isType(op, "tanh"); }

/// One match: act(x + y) (actOuter) or x + act(y), and its backward.
struct AddAct {
  Operation *add = nullptr, *act = nullptr;
  bool actOuter = false;
  Operation *actGrad = nullptr, *addGrad = nullptr;
};

struct FuseElewiseAddActPass : impl::FuseElewiseAddActBase<FuseElewiseAddActPass> {
  using FuseElewiseAddActBase::FuseElewiseAddActBase;

  void runOnOperation() override {
    FusionLog log("fuse_elewise_add_act_ops", explain);
    auto visit = [&](Operation *add) -> LogicalResult {
      std::string why;
      FailureOr<AddAct> match = matchAdd(add, why);
      if (succeeded(match))
        return rewrite(*match, log);
      if (!why.empty())
        log.left(add, why);
      return success();
    };
    if (failed(forEachCandidate(getOperation(), {"elementwise_add"}, visit)))
      signalPassFailure();
  }

  /// An add with an activation before or after it; fails with `why` empty
  /// when there is none (not a candidate).
  static FailureOr<AddAct> matchAdd(Operation *add, std::string &why) {
    AddAct m;
    m.add = add;
    Value x = add->getOperand(0), y = add->getOperand(1), sum = add->getResult(0);
    auto xt = cast<RankedTensorType>(x.getType()), out = cast<RankedTensorType>(sum.getType());
    if (!isa<Float32Type, Float64Type>(out.getElementType())) {
      why = "it is not float32 or float64";
      return failure();
    }
    // act(x + y): the sum's only reader is the activation.
    for (Operation *user : sum.getUsers())
      if (isActivation(user) && sum.hasOneUse())
        m.act = user, m.actOuter = true;
    // x + act(y): y is an activation's result that only the add and the
    // activation's gradient read.
    if (!m.act)
      if (Operation *def = y.getDefiningOp(); def && isActivation(def)) {
        Operation *grad = userOfType(y, def->getName().stripDialect().str() + "_grad", 0);
        if (onlyUsedBy(y, {add, grad}))
          m.act = def;
      }
    if (!m.act)
      return failure();
    if (xt != out) {
      why = "X " + variableName(x) + " is broadcast";
      return failure();
    }
    std::string whyNot;
    if (failed(loopInstructionOf(add, whyNot))) {
      why = whyNot;
      return failure();
    }
    if (!m.actOuter && y.getType() != out) {
      why = "the activation's result is broadcast";
      return failure();
    }
    std::string gradType = m.act->getName().stripDialect().str() + "_grad";
    Value actOut = m.act->getResult(0);
    m.actGrad = userOfType(actOut, gradType, 0);
    m.addGrad = userOfType(x, "elementwise_add_grad", 0);
    if (m.addGrad && m.addGrad->getOperand(1) != add->getOperand(1))
      m.addGrad = nullptr;
    if (!m.actGrad && !m.addGrad)
      return m; // no backward: an inference program
    // The backward must be the two gradients chained as Paddle writes them.
    bool chained = m.actGrad && m.addGrad &&
                   (m.actOuter ? m.addGrad->getOperand(2) == m.actGrad->getResult(0) &&
                                     m.actGrad->getResult(0).hasOneUse()
                               : m.actGrad->getOperand(1) == m.addGrad->getResult(1) &&
                                     m.addGrad->getResult(1).hasOneUse());
    if (!chained) {
      why = "its backward is not " + gradType + " and elementwise_add_grad chained";
      return failure();
    }
    return m;
  }

  LogicalResult rewrite(AddAct &m, FusionLog &log) {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    StringRef act = m.act->getName().stripDialect();
    auto attr = [&](StringRef name, Attribute value) {
      return NamedAttribute(StringAttr::get(ctx, name), value);
    };
    auto functors = [&](StringRef suffix) {
      std::string a = (act + suffix).str(), add = ("elementwise_add" + suffix).str();
      return m.actOuter ? b.getStrArrayAttr({a, add}) : b.getStrArrayAttr({add, a});
    };
    Operation *first = m.actOuter ? m.add : m.act, *last = m.actOuter ? m.act : m.add;
    Value x = m.add->getOperand(0);
    Value y = m.actOuter ? m.add->getOperand(1) : m.act->getOperand(0);
    Value out = last->getResult(0), inter = first->getResult(0);
    SmallVector<NamedAttribute> attrs = {
        attr("functor_list", functors("")),
        attr("axis", m.add->getAttr("axis") ? m.add->getAttr("axis") : b.getI32IntegerAttr(-1)),
        attr("save_intermediate_out",
             b.getBoolAttr(!onlyUsedBy(inter, {last, m.actGrad}) || (m.actGrad && !m.actOuter)))};
    if (Attribute role = last->getAttr("op_role"))
      attrs.push_back(attr("op_role", role));
    log.fused({first, last}, "fused_elemwise_add_activation");
    OpBuilder builder(last);
    FailureOr<Operation *> fused =
        pd::buildCatalogOp(builder, last->getLoc(), "fused_elemwise_add_activation", {{x}, {y}},
                           attrs, {variableName(out), variableName(inter)});
    if (failed(fused))
      return failure();
    Value fusedOut = (*fused)->getResult(0), fusedInter = (*fused)->getResult(1);

    SmallVector<Operation *> backward;
    if (m.addGrad) {
      Operation *gFirst = m.actOuter ? m.actGrad : m.addGrad;
      Operation *gLast = m.actOuter ? m.addGrad : m.actGrad;
      backward = {gFirst, gLast};
      Value dOut = m.actOuter ? m.actGrad->getOperand(1) : m.addGrad->getOperand(2);
      SmallVector<NamedAttribute> gradAttrs = {attr("functor_list", functors("_grad")),
                                               attr("axis", attrs[1].getValue())};
      if (Attribute role = gLast->getAttr("op_role"))
        gradAttrs.push_back(attr("op_role", role));
      // X, Y, Out, IntermediateOut, Out@GRAD.
      SmallVector<SmallVector<Value, 1>> operands = {{x}, {y}, {}, {}, {dOut}};
      if (m.actOuter)
        operands[2] = {fusedOut};
      else
        operands[3] = {fusedInter};
      Value dx = m.addGrad->getResult(0);
      Value dy = m.actOuter ? m.addGrad->getResult(1) : m.actGrad->getResult(0);
      Value dInter = m.actOuter ? m.actGrad->getResult(0) : m.addGrad->getResult(1);
      log.fused(backward, "fused_elemwise_add_activation_grad");
      // At the first gradient: its operands are all defined by then, and a
      // reader of the first one's results may run before the second.
      OpBuilder gradBuilder(gFirst);
      FailureOr<Operation *> grad = pd::buildCatalogOp(
          gradBuilder, gLast->getLoc(), "fused_elemwise_add_activation_grad", operands, gradAttrs,
          {variableName(dx), variableName(dy), variableName(dInter)});
      if (failed(grad))
        return failure();
      dx.replaceAllUsesWith((*grad)->getResult(0));
      dy.replaceAllUsesWith((*grad)->getResult(1));
      dInter.replaceAllUsesWith((*grad)->getResult(2));
    }
    out.replaceAllUsesWith(fusedOut);
    inter.replaceAllUsesWith(fusedInter);
    for (Operation *op : llvm::reverse(backward))
      op->erase();
    last->erase();
    first->erase();
    return success();
  }
};

} // namespace
} // namespace distc::fusion
