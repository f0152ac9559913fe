//===- LowerFeedforward.cpp - fused_feedforward and its gradient ----------===//
//
// fused_feedforward runs as the kernels the FFN's smaller fusions use:
// layer_norm; gemm_epilogue applying the activation, its pre-activation
// kept as Linear1Out; dropout; gemm_epilogue; dropout adding the residual
// as fuse_dropout_add does; and, in the post form, layer_norm. These apply
// the unfused ops' per-element formulas and GEMMs in the same order, so the
// fused block computes the unfused block's bits. The gradient mirrors it:
// dropout_grad, gemm_epilogue_grad, dropout_grad, gemm_epilogue_grad with
// the activation's gradient, layer_norm_grad, and the residual's share of
// X@GRAD added to the layer norm's.
//
// A dropout of rate 0 (one the pass found absent) is the identity: no
// kernel, no mask drawn.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdOps.h"

using namespace mlir;

namespace distc::target {

namespace {

/// The FFN's dims: rows (X's leading dims flattened), d and f.
struct FfnDims {
  DimDesc rows, d, f;
  SymShape x, hidden; // X's dims, and X's with f last
};

FailureOr<FfnDims> ffnDimsOf(ProgramLowering &l, Operation *op, Value x, Value w1) {
  FfnDims dims;
  dims.x = l.dimsOf(x);
  std::optional<DimDesc> rows = product(SymShape(dims.x.begin(), dims.x.end() - 1));
  if (!rows)
    return l.error(op) << "cannot flatten the leading dims of " << l.describe(dims.x);
  dims.rows = *rows;
  dims.d = dims.x.back();
  dims.f = l.dimsOf(w1).back();
  dims.hidden = dims.x;
  dims.hidden.back() = dims.f;
  return dims;
}

/// Whether `op`'s biases are both there: gemm_epilogue needs one.
LogicalResult requireBiases(ProgramLowering &l, Operation *op, Value b1, Value b2) {
  if (!b1 || !b2)
    return l.error(op) << "needs Linear1Bias and Linear2Bias (the pass fuses linears with "
                          "biases only)";
  return success();
}

} // namespace

LogicalResult ProgramLowering::fillMaskIfRead(Value mask, const SymShape &dims) {
  if (!mask || mask.use_empty())
    return success();
  FailureOr<int32_t> ones = defineResult(mask, dims);
  if (failed(ones))
    return failure();
  emit("fill", {}, {*ones}, {AttrDesc::ofFloat("value", 1.0)});
  return success();
}

LogicalResult ProgramLowering::lowerFusedFeedforward(Operation *op) {
  auto ffn = cast<pd::FusedFeedforwardOp>(op);
  pd::OpAttributes attrs(op);
  if (failed(requireBiases(*this, op, ffn.getLinear1Bias(), ffn.getLinear2Bias())))
    return failure();
  FailureOr<FfnDims> dims = ffnDimsOf(*this, op, ffn.getX(), ffn.getLinear1Weight());
  if (failed(dims))
    return failure();
  const bool pre = attrs.getBool("pre_layer_norm"), residual = attrs.getBool("add_residual");
  const std::string name = nameOf(ffn.getOut());
  const int32_t x = bufferOf(ffn.getX());

  // Dropout `which` (1 or 2) of `in`, `y` added.
  auto dropout = [&](int which, int32_t in, int32_t y, Value mask, const SymShape &maskDims,
                     llvm::function_ref<FailureOr<int32_t>()> defineOut) {
    return emitFusedDropout(op, "dropout" + std::to_string(which), in, y, mask, maskDims,
                            defineOut);
  };

  int32_t lnOut = x;
  if (pre) {
    if (failed(emitLayerNorm(x, ffn.getLn1Scale(), ffn.getLn1Bias(), ffn.getLn1Out(),
                             ffn.getLn1Mean(), ffn.getLn1Variance(), dims->x, dims->rows,
                             attrs.getFloat("ln1_epsilon"))))
      return failure();
    lnOut = bufferOf(ffn.getLn1Out());
  }

  // linear1 and the activation; Linear1Out is the pre-activation.
  int32_t act = temp(name + ".act", x, dims->hidden);
  int32_t preAct = -1;
  if (isNeeded(ffn.getLinear1Out())) {
    FailureOr<int32_t> b = defineResult(ffn.getLinear1Out(), dims->hidden);
    if (failed(b))
      return failure();
    preAct = view(*b, {dims->rows, dims->f});
  }
  emit("gemm_epilogue",
       {view(lnOut, {dims->rows, dims->d}), bufferOf(ffn.getLinear1Weight()),
        bufferOf(ffn.getLinear1Bias())},
       {view(act, {dims->rows, dims->f}), preAct},
       {AttrDesc::ofString("activation", attrs.getString("act_method"))});
  FailureOr<int32_t> dropped1 = dropout(1, act, -1, ffn.getDropout1Mask(), dims->hidden, [&] {
    return defineResult(ffn.getDropout1Out(), dims->hidden);
  });
  if (failed(dropped1))
    return failure();
  if (*dropped1 == act && failed(defineView(ffn.getDropout1Out(), act, dims->hidden)))
    return failure();

  // linear2, dropout2 and the residual.
  int32_t linear2 = temp(name + ".linear2", x, dims->x);
  emit("gemm_epilogue",
       {view(*dropped1, {dims->rows, dims->f}), bufferOf(ffn.getLinear2Weight()),
        bufferOf(ffn.getLinear2Bias())},
       {view(linear2, {dims->rows, dims->d}), -1}, {AttrDesc::ofString("activation", "none")});
  if (isNeeded(ffn.getDropout2Out()) && pre)
    return error(op) << "Dropout2Out is computed in the post layer_norm form only";
  Value dropped2Value = pre ? ffn.getOut() : ffn.getDropout2Out();
  FailureOr<int32_t> dropped2 =
      dropout(2, linear2, residual ? x : -1, ffn.getDropout2Mask(), dims->x,
              [&] { return defineResult(dropped2Value, dims->x); });
  if (failed(dropped2))
    return failure();
  if (*dropped2 == linear2 && failed(defineView(dropped2Value, linear2, dims->x)))
    return failure();
  if (pre)
    return success();
  return emitLayerNorm(*dropped2, ffn.getLn2Scale(), ffn.getLn2Bias(), ffn.getOut(),
                       ffn.getLn2Mean(), ffn.getLn2Variance(), dims->x, dims->rows,
                       attrs.getFloat("ln2_epsilon"));
}

LogicalResult ProgramLowering::lowerFusedFeedforwardGrad(Operation *op) {
  auto grad = cast<pd::FusedFeedforwardGradOp>(op);
  pd::OpAttributes attrs(op);
  if (failed(requireBiases(*this, op, grad.getLinear1Bias(), grad.getLinear2Bias())))
    return failure();
  FailureOr<FfnDims> dims = ffnDimsOf(*this, op, grad.getX(), grad.getLinear1Weight());
  if (failed(dims))
    return failure();
  const bool pre = attrs.getBool("pre_layer_norm"), residual = attrs.getBool("add_residual");
  const std::string name = nameOf(grad.getX_GRAD());
  const SymShape rowsD = {dims->rows, dims->d}, rowsF = {dims->rows, dims->f};

  // The gradients of one linear (and the activation before it when given).
  auto linearGrad = [&](int32_t dy, int32_t in, const SymShape &inView, Value w, Value dw, Value db,
                        int32_t dIn, const std::string &activation,
                        int32_t preAct) -> LogicalResult {
    FailureOr<int32_t> dwBuf = defineIfNeeded(dw, dimsOf(w));
    FailureOr<int32_t> dbBuf = defineIfNeeded(db, {dimsOf(w).back()});
    if (failed(dwBuf) || failed(dbBuf))
      return failure();
    SymShape outView = {dims->rows, dimsOf(w).back()};
    int32_t dact = activation == "none" ? -1 : temp(name + ".act_grad", dy, outView);
    emit("gemm_epilogue_grad", {view(dy, outView), view(in, inView), bufferOf(w), preAct},
         {dIn, *dwBuf, *dbBuf, dact}, {AttrDesc::ofString("activation", activation)});
    return success();
  };

  // The post form's layer norm first.
  int32_t dOut = bufferOf(grad.getOut_GRAD());
  int32_t dSum = dOut; // of residual + dropout2's result
  if (!pre) {
    dSum = temp(name + ".ln2_grad", dOut, dims->x);
    if (failed(emitLayerNormGrad(bufferOf(grad.getDropout2Out()), grad.getLn2Scale(),
                                 grad.getLn2Bias(), dOut, dSum, grad.getLn2Scale_GRAD(),
                                 grad.getLn2Bias_GRAD(), dims->x, attrs.getFloat("ln2_epsilon"))))
      return failure();
  }

  // linear2 through dropout2, then the activation and linear1 through
  // dropout1.
  FailureOr<int32_t> dLinear2 =
      emitFusedDropoutGrad(op, "dropout2", dSum, grad.getDropout2Mask(), dims->x, name);
  if (failed(dLinear2))
    return failure();
  int32_t dDropped1 = temp(name + ".dropout1_out_grad", dOut, dims->hidden);
  if (failed(linearGrad(*dLinear2, bufferOf(grad.getDropout1Out()), rowsF, grad.getLinear2Weight(),
                        grad.getLinear2Weight_GRAD(), grad.getLinear2Bias_GRAD(),
                        view(dDropped1, rowsF), "none", -1)))
    return failure();
  FailureOr<int32_t> dAct =
      emitFusedDropoutGrad(op, "dropout1", dDropped1, grad.getDropout1Mask(), dims->hidden, name);
  if (failed(dAct))
    return failure();
  int32_t lnOut = pre ? bufferOf(grad.getLn1Out()) : bufferOf(grad.getX());
  int32_t dLnOut = temp(name + ".ln1_out_grad", dOut, dims->x);
  if (failed(linearGrad(*dAct, lnOut, rowsD, grad.getLinear1Weight(), grad.getLinear1Weight_GRAD(),
                        grad.getLinear1Bias_GRAD(), view(dLnOut, rowsD),
                        attrs.getString("act_method"),
                        view(bufferOf(grad.getLinear1Out()), rowsF))))
    return failure();

  // X@GRAD: the pre form's layer norm gradient, plus the residual's share
  // (added as the unfused program sums them: residual first).
  FailureOr<int32_t> dx = defineResult(grad.getX_GRAD(), dims->x);
  if (failed(dx))
    return failure();
  int32_t dBranch = dLnOut;
  if (pre) {
    dBranch = residual ? temp(name + ".ln1_grad", dOut, dims->x) : *dx;
    if (failed(emitLayerNormGrad(bufferOf(grad.getX()), grad.getLn1Scale(), grad.getLn1Bias(),
                                 dLnOut, dBranch, grad.getLn1Scale_GRAD(), grad.getLn1Bias_GRAD(),
                                 dims->x, attrs.getFloat("ln1_epsilon"))))
      return failure();
  }
  if (residual)
    emit("binary", {dSum, dBranch}, {*dx}, {AttrDesc::ofString("op", "add")});
  else if (dBranch != *dx)
    emit("copy", {dBranch}, {*dx});
  return success();
}

} // namespace distc::target
