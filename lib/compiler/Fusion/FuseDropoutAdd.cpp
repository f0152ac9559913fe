//===- FuseDropoutAdd.cpp - dropout and the residual add in one pass -------===//
//
// BuildStrategy.fuse_dropout_add, as Paddle's fused_dropout_add_pass:
//
//   forward   dropout -> elementwise_add(, y)     =>  fused_dropout_add
//   backward  elementwise_add_grad -> dropout_grad
//                                                 =>  fused_dropout_add_grad
//
// The transformer's residual connections add a dropped-out sublayer output
// to their input; fused, dropout's kernel adds y as it applies the mask and
// the dropped value never reaches memory. The gradient of y is Out@GRAD
// itself, so the backward only saves an op. In a train program the forward
// is fused only together with its backward, which reads the dropped value
// otherwise.
//
// Masks stay the same: distc derives an unfixed dropout seed from the name
// of dropout's output, which the fused op keeps as `seed_name`.
//
//===----------------------------------------------------------------------===//

#include "distc/Fusion/Passes.h"

#include "FusionLog.h"
#include "PatternUtils.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Transforms/ProgramUtils.h"

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEDROPOUTADD
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

/// One match: dropout -> add, and its backward when there is one.
struct DropoutAdd {
  Operation *dropout = nullptr, *add = nullptr;
  unsigned side = 0; // which operand of the add is dropout's Out
  Operation *addGrad = nullptr, *dropoutGrad = nullptr;

  Value y() const { return add->getOperand(1 - side); }
  SmallVector<Operation *> forward() const { return {dropout, add}; }
  SmallVector<Operation *> backward() const { return {addGrad, dropoutGrad}; }
};

/// Matches `dropout` whose Out only an elementwise_add (and its gradient)
/// reads. Fails with `why` empty when `dropout` is no candidate at all.
FailureOr<DropoutAdd> match(Operation *dropout, std::string &why) {
  DropoutAdd m;
  m.dropout = dropout;
  Value out = dropout->getResult(0);
  SmallVector<Operation *> readers;
  for (Operation *user : out.getUsers())
    if (!isType(user, "elementwise_add_grad") && !llvm::is_contained(readers, user))
      readers.push_back(user);
  if (!llvm::any_of(readers, [](Operation *r) { return isType(r, "elementwise_add"); }))
    return failure();
  if (readers.size() > 1) {
    why = "its output " + variableName(out) + " is read by another op";
    return failure();
  }
  m.add = readers.front();
  if (m.add->getOperand(0) == m.add->getOperand(1)) {
    why = "its output is added to itself";
    return failure();
  }
  m.side = m.add->getOperand(0) == out ? 0 : 1;
  if (m.y().getType() != out.getType()) {
    why = "the tensor added, " + variableName(m.y()) + ", is broadcast";
    return failure();
  }
  for (Operation *member : m.forward())
    if (why = whyReadersCannotWait(member, m.add, m.forward()); !why.empty())
      return failure();

  m.addGrad = userOfType(out, "elementwise_add_grad", m.side);
  m.dropoutGrad = dropout->getNumResults() > 1
                      ? userOfType(dropout->getResult(1), "dropout_grad", /*index=*/0)
                      : nullptr;
  if (!m.addGrad && !m.dropoutGrad)
    return m; // no backward: an inference program, or no gradient flows
  why = "its backward is not elementwise_add_grad and dropout_grad chained";
  if (!m.addGrad || !m.dropoutGrad || m.addGrad->getOperand(1 - m.side) != m.y() ||
      !onlyUsedBy(out, {m.add, m.addGrad}))
    return failure();
  Value dOut = m.addGrad->getResult(m.side);
  if (!dOut.hasOneUse() || m.dropoutGrad->getOperand(1) != dOut)
    return failure();
  why.clear();
  return m;
}

/// The fused ops' attributes, dropout's in Paddle's fused spelling, and
/// `roleOf`'s op_role. The forward also takes `seed` and `seed_name`.
SmallVector<NamedAttribute> fusedAttrs(Operation *dropout, Operation *roleOf, bool forward) {
  MLIRContext *ctx = dropout->getContext();
  pd::OpAttributes attrs(dropout);
  Builder b(ctx);
  SmallVector<NamedAttribute> fused = {
      namedAttr(ctx, "p", b.getF32FloatAttr(attrs.getFloat("dropout_prob"))),
      namedAttr(ctx, "is_test", b.getBoolAttr(attrs.getBool("is_test"))),
      namedAttr(ctx, "mode", b.getStringAttr(attrs.getString("dropout_implementation"))),
      namedAttr(ctx, "fix_seed", b.getBoolAttr(attrs.getBool("fix_seed")))};
  if (forward) {
    fused.push_back(
        namedAttr(ctx, "seed", b.getI32IntegerAttr(static_cast<int32_t>(attrs.getInt("seed")))));
    fused.push_back(
        namedAttr(ctx, "seed_name", b.getStringAttr(variableName(dropout->getResult(0)))));
  }
  if (Attribute role = roleOf->getAttr("op_role"))
    fused.push_back(namedAttr(ctx, "op_role", role));
  return fused;
}

LogicalResult rewrite(DropoutAdd &m, FusionLog &log) {
  Operation *dropout = m.dropout;
  log.fused(m.forward(), "fused_dropout_add");
  Value sum = m.add->getResult(0);
  bool hasMask = dropout->getNumResults() > 1;
  std::vector<std::string> names = {variableName(sum)};
  if (hasMask)
    names.push_back(variableName(dropout->getResult(1)));
  OpBuilder builder(m.add);
  FailureOr<Operation *> fused = pd::buildCatalogOp(
      builder, m.add->getLoc(), "fused_dropout_add", {{dropout->getOperand(0)}, {m.y()}},
      fusedAttrs(dropout, m.add, /*forward=*/true), names);
  if (failed(fused))
    return failure();
  deferReaders(m.forward(), *fused);

  if (m.addGrad) {
    log.fused(m.backward(), "fused_dropout_add_grad");
    SmallVector<Value> replaced = {m.dropoutGrad->getResult(0), m.addGrad->getResult(1 - m.side)};
    std::vector<std::string> gradNames;
    for (Value v : replaced)
      gradNames.push_back(variableName(v));
    // At the chain's first op: a reader of Y@GRAD may run before
    // dropout_grad.
    OpBuilder gradBuilder(m.addGrad);
    FailureOr<Operation *> grad =
        pd::buildCatalogOp(gradBuilder, m.addGrad->getLoc(), "fused_dropout_add_grad",
                           {{(*fused)->getResult(1)}, {m.addGrad->getOperand(2)}},
                           fusedAttrs(dropout, m.dropoutGrad, /*forward=*/false), gradNames);
    if (failed(grad))
      return failure();
    for (auto [i, v] : llvm::enumerate(replaced))
      v.replaceAllUsesWith((*grad)->getResult(i));
  }
  sum.replaceAllUsesWith((*fused)->getResult(0));
  if (hasMask)
    dropout->getResult(1).replaceAllUsesWith((*fused)->getResult(1));
  SmallVector<Operation *> replacedOps = m.forward();
  if (m.addGrad)
    replacedOps.append(m.backward());
  for (Operation *op : llvm::reverse(replacedOps))
    op->erase();
  return success();
}

struct FuseDropoutAddPass : impl::FuseDropoutAddBase<FuseDropoutAddPass> {
  using FuseDropoutAddBase::FuseDropoutAddBase;
  void runOnOperation() override {
    FusionLog log("fuse_dropout_add", explain);
    LogicalResult result =
        forEachCandidate(getOperation(), {"dropout"}, [&](Operation *dropout) -> LogicalResult {
          std::string why;
          FailureOr<DropoutAdd> m = match(dropout, why);
          if (succeeded(m))
            return rewrite(*m, log);
          if (!why.empty())
            log.left(dropout, why);
          return success();
        });
    if (failed(result))
      signalPassFailure();
  }
};

} // namespace
} // namespace distc::fusion
