//===- FuseGemmEpilogue.cpp - matmul + bias + activation as one GEMM ------===//
//
// BuildStrategy.fuse_gemm_epilogue, as Paddle's fuse_gemm_epilogue_pass:
//
//   forward   matmul_v2 (or mul)  ->  elementwise_add of a bias row  ->
//             [relu | gelu]                  =>  fused_gemm_epilogue
//   backward  [relu_grad | gelu_grad]  ->  elementwise_add_grad  ->
//             matmul_v2_grad (or mul_grad)   =>  fused_gemm_epilogue_grad
//
// The GEMM's output and the pre-activation never reach memory in a
// separate pass: the kernel adds the bias and applies the activation right
// after the GEMM, and the backward computes the bias gradient from the
// activation's gradient as it goes. In a train program the forward is fused
// only together with its backward, which otherwise would still read the
// GEMM's unbiased output.
//
//===----------------------------------------------------------------------===//

#include "distc/Fusion/Passes.h"

#include "FusionLog.h"
#include "PatternUtils.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

namespace distc::fusion {
#define GEN_PASS_DEF_FUSEGEMMEPILOGUE
#include "distc/Fusion/Passes.h.inc"
} // namespace distc::fusion

using namespace mlir;

namespace distc::fusion {
namespace {

/// One match: the forward ops and, in a train program, their gradients.
struct Epilogue {
  Operation *gemm = nullptr, *add = nullptr, *act = nullptr;
  std::string activation = "none";
  Operation *actGrad = nullptr, *addGrad = nullptr, *gemmGrad = nullptr;
  Value x, y, bias;
  bool transX = false, transY = false;
};

struct FuseGemmEpiloguePass : impl::FuseGemmEpilogueBase<FuseGemmEpiloguePass> {
  using FuseGemmEpilogueBase::FuseGemmEpilogueBase;

  void runOnOperation() override {
    FusionLog log("fuse_gemm_epilogue", explain);
    auto visit = [&](Operation *gemm) -> LogicalResult {
      std::string why;
      FailureOr<Epilogue> match = matchEpilogue(gemm, why);
      if (succeeded(match))
        return rewrite(*match, log);
      if (!why.empty())
        log.left(gemm, why);
      return success();
    };
    if (failed(forEachCandidate(getOperation(), {"matmul_v2", "mul"}, visit)))
      signalPassFailure();
  }

  /// The GEMM's operands and transposes, or failure with `why`.
  static LogicalResult matchGemm(Operation *gemm, Epilogue &e, std::string &why) {
    e.gemm = gemm;
    e.x = gemm->getOperand(0);
    e.y = gemm->getOperand(1);
    auto x = cast<RankedTensorType>(e.x.getType()), y = cast<RankedTensorType>(e.y.getType());
    pd::OpAttributes attrs(gemm);
    if (isType(gemm, "mul")) {
      if (attrs.getInt("x_num_col_dims") != x.getRank() - 1 ||
          attrs.getInt("y_num_col_dims") != 1) {
        why = "it flattens X or Y other than into rows of X's last dim";
        return failure();
      }
    } else {
      e.transX = attrs.getBool("trans_x");
      e.transY = attrs.getBool("trans_y");
      if (e.transX && x.getRank() != 2) {
        why = "it transposes an X of rank " + std::to_string(x.getRank());
        return failure();
      }
    }
    if (y.getRank() != 2 || x.getRank() < 2) {
      why = "Y is not 2-D or X is a vector";
      return failure();
    }
    if (!isa<Float32Type, Float64Type>(x.getElementType())) {
      why = "it is not float32 or float64";
      return failure();
    }
    return success();
  }

  /// Matches the bias add, activation and gradients after `gemm`. Fails
  /// with `why` empty when `gemm` has no bias add at all (not a candidate).
  FailureOr<Epilogue> matchEpilogue(Operation *gemm, std::string &why) {
    Epilogue e;
    Value tmp = gemm->getResult(0);
    e.add = userOfType(tmp, "elementwise_add", 0);
    if (!e.add)
      return failure();
    if (failed(matchGemm(gemm, e, why)))
      return failure();
    e.bias = e.add->getOperand(1);
    auto out = cast<RankedTensorType>(tmp.getType());
    auto bias = cast<RankedTensorType>(e.bias.getType());
    int64_t axis = pd::OpAttributes(e.add).getInt("axis");
    if (bias.getRank() != 1 || bias.getDimSize(0) != out.getShape().back() ||
        (axis != -1 && axis != out.getRank() - 1)) {
      why = "its bias " + variableName(e.bias) + " is not a row of its output's last dim";
      return failure();
    }
    Value s = e.add->getResult(0);
    // The activation: the only forward reader of the sum.
    for (StringRef act : {"relu", "gelu"})
      if (Operation *op = userOfType(s, act, 0))
        e.act = op;
    if (e.act) {
      e.activation = e.act->getName().stripDialect().str();
      if (e.activation == "gelu" && pd::OpAttributes(e.act).getBool("approximate"))
        e.activation = "gelu_tanh";
    }

    // The backward, in a train program.
    e.addGrad = userOfType(tmp, "elementwise_add_grad", 0);
    if (e.act) {
      // relu_grad reads relu's Out, gelu_grad gelu's input (the sum).
      e.actGrad = e.activation == "relu" ? userOfType(e.act->getResult(0), "relu_grad", 0)
                                         : userOfType(s, "gelu_grad", 0);
      std::vector<Operation *> sReaders = {e.act};
      if (e.actGrad && e.activation != "relu")
        sReaders.push_back(e.actGrad);
      if (!onlyUsedBy(s, sReaders)) {
        // The sum is read elsewhere: fuse without the activation.
        e.act = nullptr;
        e.actGrad = nullptr;
        e.activation = "none";
      }
    }
    if (e.addGrad) {
      Value dTmp = e.addGrad->getResult(0);
      e.gemmGrad = userOfType(dTmp, gemm->getName().stripDialect().str() + "_grad", 2);
      bool matched = e.gemmGrad && e.gemmGrad->getOperand(0) == e.x &&
                     e.gemmGrad->getOperand(1) == e.y && onlyUsedBy(dTmp, {e.gemmGrad}) &&
                     e.addGrad->getOperand(1) == e.bias;
      if (matched) {
        pd::OpAttributes fa(gemm), ga(e.gemmGrad);
        matched = isType(gemm, "mul")
                      ? ga.getInt("x_num_col_dims") == fa.getInt("x_num_col_dims")
                      : ga.getBool("trans_x") == e.transX && ga.getBool("trans_y") == e.transY;
      }
      if (matched && e.act)
        matched = e.actGrad && e.addGrad->getOperand(2) == e.actGrad->getResult(0) &&
                  onlyUsedBy(e.actGrad->getResult(0), {e.addGrad});
      if (!matched) {
        why = "its backward is not activation grad -> elementwise_add_grad -> " +
              gemm->getName().stripDialect().str() + "_grad over the same operands";
        return failure();
      }
    }
    std::vector<Operation *> tmpReaders = {e.add};
    if (e.addGrad)
      tmpReaders.push_back(e.addGrad);
    if (!onlyUsedBy(tmp, tmpReaders)) {
      why = "its result " + variableName(tmp) + " is read by another op";
      return failure();
    }
    return e;
  }

  LogicalResult rewrite(Epilogue &e, FusionLog &log) {
    SmallVector<Operation *> forward = {e.gemm, e.add};
    if (e.act)
      forward.push_back(e.act);
    Operation *last = forward.back();
    Value out = last->getResult(0), s = e.add->getResult(0);
    MLIRContext *ctx = &getContext();
    auto attr = [&](StringRef name, Attribute value) {
      return NamedAttribute(StringAttr::get(ctx, name), value);
    };
    SmallVector<NamedAttribute> attrs = {attr("trans_x", BoolAttr::get(ctx, e.transX)),
                                         attr("trans_y", BoolAttr::get(ctx, e.transY)),
                                         attr("activation", StringAttr::get(ctx, e.activation))};
    if (Attribute role = last->getAttr("op_role"))
      attrs.push_back(attr("op_role", role));
    log.fused(forward, "fused_gemm_epilogue");
    OpBuilder builder(last);
    FailureOr<Operation *> fused =
        pd::buildCatalogOp(builder, last->getLoc(), "fused_gemm_epilogue", {{e.x}, {e.y}, {e.bias}},
                           attrs, {variableName(out), variableName(s)});
    if (failed(fused))
      return failure();
    Value fusedOut = (*fused)->getResult(0), reserve = (*fused)->getResult(1);

    SmallVector<Operation *> backward;
    if (e.addGrad) {
      if (e.actGrad)
        backward.push_back(e.actGrad);
      backward.append({e.addGrad, e.gemmGrad});
      Value dOut = e.actGrad ? e.actGrad->getOperand(1) : e.addGrad->getOperand(2);
      SmallVector<NamedAttribute> gradAttrs = {
          attr("trans_x", BoolAttr::get(ctx, e.transX)),
          attr("trans_y", BoolAttr::get(ctx, e.transY)),
          attr("activation_grad",
               StringAttr::get(ctx, e.act ? e.activation + "_grad" : std::string("none")))};
      if (Attribute role = e.gemmGrad->getAttr("op_role"))
        gradAttrs.push_back(attr("op_role", role));
      SmallVector<SmallVector<Value, 1>> operands = {{dOut}, {e.x}, {e.y}, {}};
      if (e.act)
        operands[3] = {e.activation == "relu" ? fusedOut : reserve};
      log.fused(backward, "fused_gemm_epilogue_grad");
      // At the chain's first op: its operands are all defined by then, and
      // a reader of the bias gradient (a data-parallel all-reduce) may run
      // before the GEMM's gradient.
      OpBuilder gradBuilder(backward.front());
      FailureOr<Operation *> grad = pd::buildCatalogOp(
          gradBuilder, e.gemmGrad->getLoc(), "fused_gemm_epilogue_grad", operands, gradAttrs,
          {variableName(e.gemmGrad->getResult(0)), variableName(e.gemmGrad->getResult(1)),
           variableName(e.addGrad->getResult(1))});
      if (failed(grad))
        return failure();
      e.gemmGrad->getResult(0).replaceAllUsesWith((*grad)->getResult(0));
      e.gemmGrad->getResult(1).replaceAllUsesWith((*grad)->getResult(1));
      e.addGrad->getResult(1).replaceAllUsesWith((*grad)->getResult(2));
    }
    out.replaceAllUsesWith(fusedOut);
    if (e.act)
      s.replaceAllUsesWith(reserve); // gelu_grad's input, erased below
    for (Operation *op : llvm::reverse(backward))
      op->erase();
    for (Operation *op : llvm::reverse(forward))
      op->erase();
    return success();
  }
};

} // namespace
} // namespace distc::fusion
