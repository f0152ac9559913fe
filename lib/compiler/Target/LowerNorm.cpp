//===- LowerNorm.cpp - batch_norm, affine_channel, matmul v1, arg_max ------===//
//
// The lowerings of PdNormOps.td's ops that need more than one kernel call
// with the op's own attributes (the activations with attributes need no
// member: lowerElementwiseKernel is their whole lowering).
//
// batch_norm's MeanOut and VarianceOut are written back to the running
// statistics' persistable variables (`pd.write_var`); they are defined
// element-wise in place, so defineResult binds them to those variables'
// persistent buffers and the kernel updates the statistics where they live,
// as the optimizers update parameters. The kernel reads every input before
// it writes an output, so sharing storage is safe. sync_batch_norm lowers
// through the same members to the same kernels, with `sync` = 1, and the
// fused batch norms of fuse_bn_act_ops and fuse_bn_add_act_ops with
// `activation` (and Z) to the same kernels too.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Dialect/Pd/PdOps.h"

using namespace mlir;

namespace distc::target {

/// The index of X's channel dim under the op's data_layout.
static FailureOr<int64_t> channelAxis(ProgramLowering &pl, Operation *op, size_t rank,
                                      bool allowAny) {
  std::string layout = pd::OpAttributes(op).getString("data_layout");
  if (layout == "NCHW" || (allowAny && layout == "AnyLayout"))
    return 1;
  if (layout == "NHWC")
    return static_cast<int64_t>(rank) - 1;
  return pl.error(op) << "data_layout '" << layout << "' is not supported (NCHW or NHWC)";
}

/// sync_batch_norm and its gradient are batch_norm's kernels with `sync`
/// set: the training statistics are all-reduced over the ranks. batch_norm
/// leaves the attribute at its default, so its calls are as they were.
static std::vector<AttrDesc> syncAttrs(Operation *op) {
  if (isa<pd::SyncBatchNormOp, pd::SyncBatchNormGradOp>(op))
    return {AttrDesc::ofInt("sync", 1)};
  return {};
}

/// The buffers of a normalization gradient's needed results (-1 for the
/// others): the first has X's dims `xd`, the rest are per channel (`cd`).
static FailureOr<std::vector<int32_t>> defineNormGrads(ProgramLowering &pl, ValueRange results,
                                                       const SymShape &xd, const SymShape &cd) {
  std::vector<int32_t> outs;
  for (auto [i, result] : llvm::enumerate(results)) {
    if (!pl.isNeeded(result)) {
      outs.push_back(-1);
      continue;
    }
    FailureOr<int32_t> b = pl.defineResult(result, i == 0 ? xd : cd);
    if (failed(b))
      return failure();
    outs.push_back(*b);
  }
  return outs;
}

/// Paddle's rule (batch_norm_kernel.cc): the running statistics normalize
/// in test mode (is_test without trainable_statistics) and with
/// use_global_stats. The gradient takes is_test alone as test mode, as
/// Paddle's batch_norm_grad does. Programs other than train (eval,
/// predict) always use the running statistics and leave them unchanged.
bool ProgramLowering::usesGlobalStats(Operation *op) const {
  pd::OpAttributes attrs(op);
  if (program.mode != "train" || attrs.getBool("use_global_stats"))
    return true;
  bool isGrad = isa<pd::BatchNormGradOp, pd::SyncBatchNormGradOp, pd::FusedBatchNormActGradOp,
                    pd::FusedBnAddActivationGradOp>(op);
  return attrs.getBool("is_test") && (isGrad || !attrs.getBool("trainable_statistics"));
}

/// Whether `op` is one of the fused batch norms (fuse_bn_act_ops,
/// fuse_bn_add_act_ops), which add Z (fused_bn_add_activation) and apply
/// act_type in batch_norm's kernels.
static bool isFusedBatchNorm(Operation *op) {
  return isa<pd::FusedBatchNormActOp, pd::FusedBnAddActivationOp>(op);
}

/// batch_norm, sync_batch_norm and the fused batch norms (Z, when present,
/// is operand 1, before Scale).
LogicalResult ProgramLowering::lowerBatchNorm(Operation *op) {
  pd::OpAttributes attrs(op);
  Value x = op->getOperand(0);
  const bool withZ = isa<pd::FusedBnAddActivationOp>(op);
  const unsigned firstParam = withZ ? 2 : 1;
  SymShape xd = dimsOf(x);
  FailureOr<int64_t> axis = channelAxis(*this, op, xd.size(), /*allowAny=*/false);
  if (failed(axis))
    return failure();
  SymShape cd = {xd[*axis]};
  FailureOr<int32_t> y = defineResult(op->getResult(0), xd);
  if (failed(y))
    return failure();
  std::vector<int32_t> outs = {*y};
  // MeanOut, VarianceOut: in place over Mean and Variance's variables.
  // SavedMean, SavedVariance: only where the gradient reads them.
  for (unsigned r = 1; r <= 4; ++r) {
    Value result = op->getResult(r);
    if (!isNeeded(result)) {
      outs.push_back(-1);
      continue;
    }
    FailureOr<int32_t> b = defineResult(result, cd, /*elementwiseInPlace=*/r <= 2);
    if (failed(b))
      return failure();
    outs.push_back(*b);
  }
  // ReserveSpace is cuDNN's workspace: nothing on the CPU. A gradient op
  // that names it gets a buffer of its declared type, never read.
  Value reserve = op->getResult(5);
  if (isNeeded(reserve)) {
    auto type = cast<RankedTensorType>(reserve.getType());
    SymShape dims;
    for (int64_t d : type.getShape())
      dims.push_back(DimDesc::fixed(ShapedType::isDynamic(d) ? 0 : d));
    if (failed(defineResult(reserve, dims)))
      return failure();
  }
  std::vector<int32_t> ins = {bufferOf(x)};
  for (unsigned i = 0; i < 4; ++i)
    ins.push_back(bufferOf(op->getOperand(firstParam + i)));
  if (withZ)
    ins.push_back(bufferOf(op->getOperand(1)));
  std::vector<AttrDesc> kernelAttrs = syncAttrs(op);
  kernelAttrs.insert(kernelAttrs.begin(),
                     {AttrDesc::ofInt("channel_axis", *axis),
                      AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon")),
                      AttrDesc::ofFloat("momentum", attrs.getFloat("momentum")),
                      AttrDesc::ofInt("global_stats", usesGlobalStats(op))});
  if (isFusedBatchNorm(op))
    kernelAttrs.push_back(AttrDesc::ofString("activation", attrs.getString("act_type")));
  emit("batch_norm", ins, outs, std::move(kernelAttrs));
  return success();
}

LogicalResult ProgramLowering::lowerBatchNormGrad(Operation *op) {
  pd::OpAttributes attrs(op);
  // Operand groups: X, Scale, Bias, Mean?, Variance?, SavedMean,
  // SavedVariance, ReserveSpace?, Y@GRAD.
  auto segments = op->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  if (!segments || segments.size() != 9)
    return error(op) << "internal: batch_norm_grad without its operand segments";
  std::vector<Value> slot(9);
  unsigned next = 0;
  for (unsigned s = 0; s < 9; ++s) {
    if (segments[s] == 1)
      slot[s] = op->getOperand(next);
    next += segments[s];
  }
  Value x = slot[0], dy = slot[8];
  SymShape xd = dimsOf(x);
  FailureOr<int64_t> axis = channelAxis(*this, op, xd.size(), /*allowAny=*/false);
  if (failed(axis))
    return failure();
  bool global = usesGlobalStats(op);
  Value mean = global ? slot[3] : slot[5], variance = global ? slot[4] : slot[6];
  if (!mean || !variance)
    return error(op) << "batch_norm_grad with the running statistics (use_global_stats or "
                        "is_test) needs its Mean and Variance inputs";
  FailureOr<std::vector<int32_t>> outs = defineNormGrads(*this, op->getResults(), xd, {xd[*axis]});
  if (failed(outs))
    return failure();
  if (*outs == std::vector<int32_t>{-1, -1, -1})
    return success();
  std::vector<AttrDesc> kernelAttrs = syncAttrs(op);
  kernelAttrs.insert(kernelAttrs.begin(), {AttrDesc::ofInt("channel_axis", *axis),
                                           AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon")),
                                           AttrDesc::ofInt("global_stats", global)});
  emit("batch_norm_grad",
       {bufferOf(x), bufferOf(slot[1]), bufferOf(mean), bufferOf(variance), bufferOf(dy)}, *outs,
       std::move(kernelAttrs));
  return success();
}

/// fused_batch_norm_act_grad and fused_bn_add_activation_grad: one
/// batch_norm_grad call with `activation`, which first writes act_type's
/// gradient at Y (Z@GRAD, or a temporary when only X, Scale and Bias have
/// gradients) and runs on it. Operands: X, Y, Y@GRAD, Scale, Bias,
/// SavedMean, SavedVariance, ReserveSpace?.
LogicalResult ProgramLowering::lowerFusedBatchNormGrad(Operation *op) {
  pd::OpAttributes attrs(op);
  Value x = op->getOperand(0), y = op->getOperand(1), dy = op->getOperand(2);
  SymShape xd = dimsOf(x);
  FailureOr<int64_t> axis = channelAxis(*this, op, xd.size(), /*allowAny=*/false);
  if (failed(axis))
    return failure();
  // Paddle's fused gradients take no running statistics: they are the
  // training form's alone.
  if (usesGlobalStats(op))
    return error(op) << op->getName().stripDialect()
                     << " has the batch statistics only (is_test and use_global_stats false)";
  const bool withZ = isa<pd::FusedBnAddActivationGradOp>(op);
  // Results: X@GRAD, [Z@GRAD,] Scale@GRAD, Bias@GRAD.
  SmallVector<Value> paramGrads(op->getResults());
  if (withZ)
    paramGrads.erase(paramGrads.begin() + 1);
  FailureOr<std::vector<int32_t>> grads = defineNormGrads(*this, paramGrads, xd, {xd[*axis]});
  if (failed(grads))
    return failure();
  std::vector<int32_t> outs = std::move(*grads);
  int32_t dz;
  if (withZ && isNeeded(op->getResult(1))) {
    FailureOr<int32_t> b = defineResult(op->getResult(1), xd);
    if (failed(b))
      return failure();
    dz = *b;
  } else {
    if (outs == std::vector<int32_t>{-1, -1, -1})
      return success();
    dz = temp(nameOf(dy) + ".act_grad", bufferOf(dy), xd);
  }
  outs.push_back(dz);
  emit("batch_norm_grad",
       {bufferOf(x), bufferOf(op->getOperand(3)), bufferOf(op->getOperand(5)),
        bufferOf(op->getOperand(6)), bufferOf(dy), bufferOf(y)},
       outs,
       {AttrDesc::ofInt("channel_axis", *axis),
        AttrDesc::ofFloat("epsilon", attrs.getFloat("epsilon")),
        AttrDesc::ofInt("global_stats", 0),
        AttrDesc::ofString("activation", attrs.getString("act_type"))});
  return success();
}

LogicalResult ProgramLowering::lowerAffineChannel(Operation *op) {
  Value x = op->getOperand(0);
  FailureOr<int64_t> axis = channelAxis(*this, op, dimsOf(x).size(), /*allowAny=*/true);
  if (failed(axis))
    return failure();
  FailureOr<int32_t> out = defineResult(op->getResult(0), dimsOf(x));
  if (failed(out))
    return failure();
  emit("affine_channel", {bufferOf(x), bufferOf(op->getOperand(1)), bufferOf(op->getOperand(2))},
       {*out}, {AttrDesc::ofInt("channel_axis", *axis)});
  return success();
}

LogicalResult ProgramLowering::lowerAffineChannelGrad(Operation *op) {
  Value x = op->getOperand(0);
  SymShape xd = dimsOf(x);
  FailureOr<int64_t> axis = channelAxis(*this, op, xd.size(), /*allowAny=*/true);
  if (failed(axis))
    return failure();
  FailureOr<std::vector<int32_t>> outs = defineNormGrads(*this, op->getResults(), xd, {xd[*axis]});
  if (failed(outs))
    return failure();
  if (*outs == std::vector<int32_t>{-1, -1, -1})
    return success();
  emit("affine_channel_grad",
       {bufferOf(x), bufferOf(op->getOperand(1)), bufferOf(op->getOperand(2))}, *outs,
       {AttrDesc::ofInt("channel_axis", *axis)});
  return success();
}

/// matmul_v2's GEMM (inferMatmulV1 admits only the operands on which v1
/// and v2 agree), then the product scaled by alpha in place.
LogicalResult ProgramLowering::lowerMatmulV1(Operation *op) {
  pd::OpAttributes attrs(op);
  if (failed(lowerMatmulAs(op, attrs.getBool("transpose_X"), attrs.getBool("transpose_Y"))))
    return failure();
  double alpha = attrs.getFloat("alpha");
  if (alpha != 1.0) {
    int32_t out = bufferOf(op->getResult(0));
    emit("scale", {out}, {out}, {AttrDesc::ofFloat("scale", alpha)});
  }
  return success();
}

/// matmul_v2_grad's GEMMs on alpha * dOut.
LogicalResult ProgramLowering::lowerMatmulV1Grad(Operation *op) {
  pd::OpAttributes attrs(op);
  Value dout = op->getOperand(2);
  int32_t g = bufferOf(dout);
  double alpha = attrs.getFloat("alpha");
  if (alpha != 1.0) {
    int32_t scaled = temp(nameOf(dout) + ".alpha", g, dimsOf(dout));
    emit("scale", {g}, {scaled}, {AttrDesc::ofFloat("scale", alpha)});
    g = scaled;
  }
  return lowerMatmulGradAs(op, attrs.getBool("transpose_X"), attrs.getBool("transpose_Y"), g);
}

/// The kernel reduces the middle dim of x viewed as [outer, n, inner]:
/// `axis` splits it so; with flatten, x is one row.
LogicalResult ProgramLowering::lowerArgMax(Operation *op) {
  pd::OpAttributes attrs(op);
  Value x = op->getOperand(0);
  SymShape xd = dimsOf(x);
  int64_t axis = 0;
  int32_t in = bufferOf(x);
  if (attrs.getBool("flatten")) {
    std::optional<DimDesc> n = product(xd);
    if (!n)
      return error(op) << "cannot flatten X " << describe(xd);
    in = view(in, {*n});
  } else {
    std::optional<int64_t> a = normalizeAxis(attrs.getInt("axis"), xd.size());
    if (!a)
      return error(op) << "axis " << attrs.getInt("axis") << " out of range for X " << describe(xd);
    axis = *a;
  }
  SymShape od;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (attrs.getBool("flatten")) {
    od = {DimDesc::fixed(1)};
  } else {
    for (size_t i = 0; i < xd.size(); ++i)
      if (static_cast<int64_t>(i) != axis)
        od.push_back(xd[i]);
      else if (attrs.getBool("keepdims"))
        od.push_back(DimDesc::fixed(1));
  }
  if (static_cast<int64_t>(od.size()) != type.getRank())
    return error(op) << "internal: arg_max result " << type << " disagrees with " << describe(od);
  FailureOr<int32_t> out = defineResult(op->getResult(0), od);
  if (failed(out))
    return failure();
  emit("arg_max", {in}, {*out}, {AttrDesc::ofInt("axis", axis)});
  return success();
}

} // namespace distc::target
