//===- PdNormOps.td - Normalization, activations, matmul v1 -*- tablegen -*-===//
//
// The ops vision models (ResNet-vd, MobileNetV3, ShuffleNetV2, VGG) add to
// the catalog: batch_norm (and its data-parallel form sync_batch_norm) and
// affine_channel, the activations with attributes (relu6, hard_swish,
// hard_sigmoid, swish, leaky_relu), Paddle's first matmul and arg_max. Included at the end of PdOps.td; the fields are
// those of Pd_Op (PdDialect.td, docs/adding-an-op.md).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDNORMOPS_TD
#define DISTC_DIALECT_PD_PDNORMOPS_TD

// --- Normalization -------------------------------------------------------------

// MeanOut and VarianceOut are the running statistics' new values: in a
// Paddle program they are the very variables Mean and Variance read, so the
// importer writes them back with `pd.write_var` (as it does an optimizer's
// ParamOut) and the lowering updates the persistent buffers in place.
//
// batch_norm and sync_batch_norm are one op to Paddle (sync_batch_norm_op.cc
// registers batch_norm's maker and gradient): the same slots, attributes,
// shape rule and PIR form, declared once here. Only the lowering tells them
// apart (the kernels' `sync` attribute).
defvar Pd_BatchNormAttrs = (ins PdBool<"false">:$is_test, PdFloat<"0.9">:$momentum,
                                PdFloat<"1e-05">:$epsilon, PdStr<"NCHW">:$data_layout,
                                PdBool<"false">:$fuse_with_relu,
                                PdBool<"false">:$use_global_stats,
                                PdBool<"false">:$trainable_statistics);

class Pd_BatchNormLikeOp<string mnemonic> : Pd_CatalogOp<mnemonic, [Pure]> {
  let arguments = !con((ins PdTensor:$X, PdTensor:$Scale, PdTensor:$Bias, PdTensor:$Mean,
                            PdTensor:$Variance), Pd_BatchNormAttrs);
  let results = (outs PdTensor:$Y, PdTensor:$MeanOut, PdTensor:$VarianceOut,
                      PdTensor:$SavedMean, PdTensor:$SavedVariance, PdTensor:$ReserveSpace);
  let optionalOutputs = ["MeanOut", "VarianceOut", "SavedMean", "SavedVariance",
                         "ReserveSpace"];
  let unsupportedInputs = ["MomentumTensor"];
  // pd_op.<mnemonic>(x, mean, variance, scale, bias), results in ODS order
  // (pd_op.sync_batch_norm_, its in-place spelling, is read as the same);
  // PIR's data_format is data_layout (op_compat.yaml).
  let pirOperands = ["X", "Mean", "Variance", "Scale", "Bias"];
  let pirAttrs = ["data_format:data_layout"];
  let inferRule = "inferBatchNorm";
  let lowering = [{ lowerBatchNorm(op) }];
  let gradOp = mnemonic # "_grad";
  let spmdAttrs = ["data_format:data_layout"];
}

class Pd_BatchNormLikeGradOp<string mnemonic, string forward>
    : Pd_GradOp<mnemonic, forward, [AttrSizedOperandSegments]> {
  let arguments = !con((ins PdTensor:$X, PdTensor:$Scale, PdTensor:$Bias,
                            Optional<PdTensor>:$Mean, Optional<PdTensor>:$Variance,
                            PdTensor:$SavedMean, PdTensor:$SavedVariance,
                            Optional<PdTensor>:$ReserveSpace, PdTensor:$Y_GRAD),
                       Pd_BatchNormAttrs);
  let results = (outs PdTensor:$X_GRAD, PdTensor:$Scale_GRAD, PdTensor:$Bias_GRAD);
  let lowering = [{ lowerBatchNormGrad(op) }];
  let spmdAttrs = ["data_format:data_layout"];
}

def Pd_BatchNormOp : Pd_BatchNormLikeOp<"batch_norm"> {
  let summary = "Batch normalization per channel (batch or running statistics)";
  let description = [{
    Training form (`is_test` false, or `trainable_statistics`, and not
    `use_global_stats`, in a train program): X is normalized with the
    batch's mean and biased variance, and MeanOut/VarianceOut =
    momentum * Mean/Variance + (1 - momentum) * batch mean/biased variance.
    SavedMean is the batch mean, SavedVariance 1/sqrt(batch var + epsilon),
    as Paddle's CPU kernel saves them for the gradient. Otherwise X is
    normalized with Mean and Variance, which pass through unchanged.
  }];
  // Paddle's batch_norm rule orders its operands (x, mean, variance, scale,
  // bias); fluid_batch_norm is that rule over this op's slot order.
  let spmdRule = "fluid_batch_norm";
}

def Pd_BatchNormGradOp : Pd_BatchNormLikeGradOp<"batch_norm_grad", "batch_norm"> {
  let spmdRule = "batch_norm_grad";
}

def Pd_SyncBatchNormOp : Pd_BatchNormLikeOp<"sync_batch_norm"> {
  let summary = "batch_norm with the statistics of every data-parallel rank's batch";
  let description = [{
    batch_norm whose training-form statistics are those of the global batch:
    each rank's per-channel sums of X and X² and its element count are
    all-reduced, so every rank normalizes with the same mean and biased
    variance and keeps the same running statistics (Paddle's
    BuildStrategy.sync_batch_norm; distc --sync-batch-norm writes it). With
    one rank, or with the running statistics, it is batch_norm.
  }];
  let spmdRule = "sync_batch_norm";
}

def Pd_SyncBatchNormGradOp
    : Pd_BatchNormLikeGradOp<"sync_batch_norm_grad", "sync_batch_norm"> {
  let spmdRule = "sync_batch_norm_grad";
}

// pd_op.affine_channel(x, scale, bias) {data_layout}: the default form.
def Pd_AffineChannelOp : Pd_CatalogOp<"affine_channel", [Pure]> {
  let summary = "X * Scale + Bias per channel (NCHW, or NHWC)";
  let arguments = (ins PdTensor:$X, PdTensor:$Scale, PdTensor:$Bias,
                       PdStr<"AnyLayout">:$data_layout);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferAffineChannel";
  let lowering = [{ lowerAffineChannel(op) }];
  let gradOp = "affine_channel_grad";
  let spmdRule = "affine_channel";
}

def Pd_AffineChannelGradOp : Pd_GradOp<"affine_channel_grad", "affine_channel"> {
  let arguments = (ins PdTensor:$X, PdTensor:$Scale, PdTensor:$Out_GRAD,
                       PdStr<"AnyLayout">:$data_layout);
  let results = (outs PdTensor:$X_GRAD, PdTensor:$Scale_GRAD, PdTensor:$Bias_GRAD);
  // Bias is no input of Paddle's affine_channel_grad: its gradient has Scale's type.
  let inferRule = "inferAffineChannelGrad";
  let lowering = [{ lowerAffineChannelGrad(op) }];
  let spmdRule = "affine_channel_grad";
}

// --- Activations with attributes ---------------------------------------------
//
// Each is its own kernel taking the op's Float attributes by name, as clip
// is; the gradient reads the forward value Paddle's gradient op takes
// (`input`: Out or X).

class Pd_ParamActivationOp<string mnemonic, string what, dag attrs, list<string> attrNames>
    : Pd_CatalogOp<mnemonic, [Pure]> {
  let summary = what;
  let arguments = !con((ins PdTensor:$X), attrs);
  let results = (outs PdTensor:$Out);
  let inferRule = "inferSameAsX";
  let lowering = "lowerElementwiseKernel(op, \"" # mnemonic # "\", {\"" #
                 !interleave(attrNames, "\", \"") # "\"})";
  let gradOp = mnemonic # "_grad";
}
class Pd_ParamActivationGradOp<string mnemonic, string forward, string input, dag attrs,
                               list<string> attrNames>
    : Pd_GradOp<mnemonic, forward> {
  let arguments = !con(!dag(ins, [PdTensor, PdTensor], [input, "Out_GRAD"]), attrs);
  let results = (outs PdTensor:$X_GRAD);
  let lowering = "lowerElementwiseKernel(op, \"" # mnemonic # "\", {\"" #
                 !interleave(attrNames, "\", \"") # "\"})";
}

// The PIR forms (ops.yaml, inconsistent/static_ops.yaml): pd_op.relu6,
// pd_op.hardswish and pd_op.swish have no attributes, their kernels fix
// relu6's threshold at 6, hardswish's threshold, scale and offset at 6, 6
// and 3, and swish's beta at 1 (phi's Relu6Kernel, HardSwishKernel and
// SwishKernel) -- the catalog defaults, which the importer applies.
// pd_op.hardsigmoid keeps slope and offset; pd_op.leaky_relu calls alpha
// negative_slope.
def Pd_Relu6Op : Pd_ParamActivationOp<"relu6", "min(max(X, 0), threshold)",
    (ins PdFloat<"6">:$threshold), ["threshold"]> {
  let spmdRule = "relu6";
}
def Pd_Relu6GradOp : Pd_ParamActivationGradOp<"relu6_grad", "relu6", "Out",
    (ins PdFloat<"6">:$threshold), ["threshold"]> {
  let spmdRule = "relu6_grad";
}

def Pd_HardSwishOp : Pd_ParamActivationOp<"hard_swish",
    "X * min(max(X + offset, 0), threshold) / scale",
    (ins PdFloat<"6">:$threshold, PdFloat<"6">:$scale, PdFloat<"3">:$offset),
    ["threshold", "scale", "offset"]> {
  let pirName = "hardswish";
  let spmdRule = "hardswish";
}
def Pd_HardSwishGradOp : Pd_ParamActivationGradOp<"hard_swish_grad", "hard_swish", "X",
    (ins PdFloat<"6">:$threshold, PdFloat<"6">:$scale, PdFloat<"3">:$offset),
    ["threshold", "scale", "offset"]> {
  let spmdRule = "hardswish_grad";
}

def Pd_HardSigmoidOp : Pd_ParamActivationOp<"hard_sigmoid",
    "min(max(slope * X + offset, 0), 1)",
    (ins PdFloat<"0.2">:$slope, PdFloat<"0.5">:$offset), ["slope", "offset"]> {
  let pirName = "hardsigmoid";
  let spmdRule = "hardsigmoid";
}
def Pd_HardSigmoidGradOp : Pd_ParamActivationGradOp<"hard_sigmoid_grad", "hard_sigmoid",
    "Out", (ins PdFloat<"0.2">:$slope, PdFloat<"0.5">:$offset), ["slope", "offset"]> {
  let spmdRule = "hardsigmoid_grad";
}

def Pd_SwishOp : Pd_ParamActivationOp<"swish", "X * sigmoid(beta * X)",
    (ins PdFloat<"1">:$beta), ["beta"]> {
  let spmdRule = "swish";
}
def Pd_SwishGradOp : Pd_ParamActivationGradOp<"swish_grad", "swish", "X",
    (ins PdFloat<"1">:$beta), ["beta"]> {
  let spmdRule = "swish_grad";
}

def Pd_LeakyReluOp : Pd_ParamActivationOp<"leaky_relu", "X if X > 0 else alpha * X",
    (ins PdFloat<"0.02">:$alpha), ["alpha"]> {
  let pirAttrs = ["negative_slope:alpha"];
  let spmdRule = "leaky_relu";
}
def Pd_LeakyReluGradOp : Pd_ParamActivationGradOp<"leaky_relu_grad", "leaky_relu", "X",
    (ins PdFloat<"0.02">:$alpha), ["alpha"]> {
  let spmdRule = "leaky_relu_grad";
}

// --- Element-wise ------------------------------------------------------------------

// The counterpart of elementwise_max (PdOps.td), without a gradient as it.
def Pd_ElementwiseMinOp : Pd_ElementwiseOp<"elementwise_min", "min(X, Y)", "min"> {
  let pirName = "minimum";
  let spmdRule = "minimum";
}
def Pd_ElementwiseMinGradOp : Pd_ElementwiseGradOp<"elementwise_min_grad", "min"> {
  let spmdRule = "minimum_grad";
}

// --- matmul (v1) and arg_max ---------------------------------------------------

// The fused_* and head_number attributes are oneDNN fusion passes' and
// multi-head attention's; anything but their defaults is refused.
defvar Pd_MatmulV1Attrs = (ins PdBool<"false">:$transpose_X, PdBool<"false">:$transpose_Y,
                               PdFloat<"1">:$alpha, PdInts<"[]">:$fused_reshape_X,
                               PdInts<"[]">:$fused_reshape_Y, PdInts<"[]">:$fused_transpose_X,
                               PdInts<"[]">:$fused_transpose_Y,
                               PdInts<"[]">:$fused_reshape_Out,
                               PdInts<"[]">:$fused_transpose_Out, PdInt<"1">:$head_number);

def Pd_MatmulOp : Pd_CatalogOp<"matmul", [Pure]> {
  let summary = "alpha * X·Y (Paddle's first matmul), batch dims of one operand";
  let description = [{
    A 1-D X is a row, a 1-D Y a column (not transposable); when both have
    batch dims they must be equal, otherwise the matrix operand is shared
    by every batch. The product of two vectors is [1].
  }];
  let arguments = !con((ins PdTensor:$X, PdTensor:$Y), Pd_MatmulV1Attrs);
  let results = (outs PdTensor:$Out);
  let hasPirForm = 0; // PIR programs hold matmul (matmul_v2) instead
  let inferRule = "inferMatmulV1";
  let lowering = [{ lowerMatmulV1(op) }];
  let gradOp = "matmul_grad";
  let spmdRule = "matmul";
  let spmdAttrs = ["trans_x:transpose_X", "trans_y:transpose_Y"];
}

def Pd_MatmulGradOp : Pd_BinaryGradOp<"matmul_grad", "matmul"> {
  let arguments = !con((ins PdTensor:$X, PdTensor:$Y, PdTensor:$Out_GRAD), Pd_MatmulV1Attrs);
  let lowering = [{ lowerMatmulV1Grad(op) }];
  let spmdRule = "matmul_grad";
  let spmdAttrs = ["trans_x:transpose_X", "trans_y:transpose_Y"];
}

def Pd_ArgMaxOp : Pd_CatalogOp<"arg_max", [Pure]> {
  let summary = "Index of the largest X along `axis` (of all X with `flatten`)";
  let arguments = (ins PdTensor:$X, PdLong<"-1">:$axis, PdBool<"false">:$keepdims,
                       PdBool<"false">:$flatten, PdInt<"3">:$dtype);
  let results = (outs PdTensor:$Out);
  // pd_op.argmax(x, axis) {keepdims, flatten, dtype}: axis is a Scalar
  // operand; dtype a DataType, read as the VarType number arg_max keeps.
  let pirName = "argmax";
  let pirOperands = ["X", "attr:axis"];
  let inferRule = "inferArgMax";
  let lowering = [{ lowerArgMax(op) }];
  let spmdRule = "argmax";
}

#endif // DISTC_DIALECT_PD_PDNORMOPS_TD
