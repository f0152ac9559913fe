//===- PdFusionOps.td - Ops the fusion passes write ------*- tablegen -*-===//
//
// BuildStrategy's fusion passes (lib/compiler/Fusion) replace groups of ops
// with one op each. Included at the end of PdOps.td; the fields are those of
// Pd_Op (PdDialect.td, docs/adding-an-op.md).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDFUSIONOPS_TD
#define DISTC_DIALECT_PD_PDFUSIONOPS_TD

def Pd_FusionGroupOp : Pd_Op<"fusion_group", [Pure]> {
  let summary = "A group of element-wise ops run as one generated loop";
  let description = [{
    What enable_auto_fusion (distc-fuse-elementwise) makes of a group of
    element-wise ops: one loop over the shape of its results, whose body is
    the program `code` over registers (distc/Artifact/ElementwiseLoop.h):
    registers 0..n-1 are the inputs, instruction i writes register n + i,
    4 integers per instruction (opcode, operand a, operand b, first
    immediate in `imms`, -1 where unused), and result k is register
    `outputs[k]`. Every result has the loop's shape; an input has it too,
    or is a trailing part of it broadcast over the leading dims. Paddle's
    fusion_group op holds generated device code instead; distc generates
    the loop's body per group, and the CPU kernel runs it tile by tile so
    that no intermediate value goes through memory. `fused` and `names` are
    the types and result variables of the ops the group replaced, one per
    instruction: the exporter writes the group back out as those ops.

    ```mlir
    %out = pd.fusion_group %x, %b {code = array<i64: 0, 0, 1, -1, 6, 2, -1, -1>,
        imms = array<f64>, outputs = array<i64: 3>, fused = ["elementwise_add", "relu"],
        names = ["h", "out"]}
        : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Variadic<PdTensor>:$inputs, DenseI64ArrayAttr:$code,
                       DenseF64ArrayAttr:$imms, DenseI64ArrayAttr:$outputs,
                       StrArrayAttr:$fused, StrArrayAttr:$names);
  let results = (outs Variadic<PdTensor>:$outs);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let lowering = [{ lowerFusionGroup(op) }];
}

// --- fuse_elewise_add_act_ops ---------------------------------------------

def Pd_FusedElemwiseAddActivationOp : Pd_CatalogOp<"fused_elemwise_add_activation", [Pure]> {
  let summary = "An element-wise add and an activation in one pass";
  let description = [{
    Paddle's fused_elemwise_add_activation, which fuse_elewise_add_act_ops
    makes of an elementwise_add and a relu or tanh. `functor_list` [act,
    "elementwise_add"]: Out = act(X + Y), IntermediateOut = X + Y (Y may be
    a trailing part of X's shape, Paddle's `axis` aligning it at the end);
    ["elementwise_add", act]: Out = X + act(Y), IntermediateOut = act(Y) (X
    and Y of one shape). IntermediateOut is computed when some op reads it
    (`save_intermediate_out`).
  }];
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdStrings<"[]">:$functor_list,
                       PdInt<"-1">:$axis, PdFloat<"0">:$scale,
                       PdBool<"false">:$save_intermediate_out);
  let results = (outs PdTensor:$Out, PdTensor:$IntermediateOut);
  let optionalOutputs = ["IntermediateOut"];
  let hasPirForm = 0;
  let inferRule = "inferFusedElemwiseActivation";
  let lowering = [{ lowerFusedElemwiseActivation(op) }];
  let spmdRule = "replicated";
}

def Pd_FusedElemwiseAddActivationGradOp
    : Pd_CatalogOp<"fused_elemwise_add_activation_grad", [Pure, AttrSizedOperandSegments]> {
  let summary = "X@GRAD, Y@GRAD and IntermediateOut@GRAD of fused_elemwise_add_activation";
  let description = [{
    Paddle's fused_elemwise_add_activation_grad. `functor_list` [act_grad,
    "elementwise_add_grad"] (the gradient of act(X + Y)) reads Out; its
    IntermediateOut@GRAD is act's gradient at Out, reduced into X@GRAD and
    Y@GRAD. ["elementwise_add_grad", act_grad] (of X + act(Y)) reads
    IntermediateOut = act(Y): X@GRAD and IntermediateOut@GRAD are Out@GRAD
    (reduced to their shapes), Y@GRAD act's gradient at IntermediateOut.
    act_grad is relu_grad or tanh_grad; X gives X@GRAD its shape.
  }];
  let arguments = (ins Optional<PdTensor>:$X, PdTensor:$Y, Optional<PdTensor>:$Out,
                       Optional<PdTensor>:$IntermediateOut, PdTensor:$Out_GRAD,
                       PdStrings<"[]">:$functor_list, PdInt<"-1">:$axis, PdFloat<"0">:$scale,
                       PdBool<"false">:$save_intermediate_out);
  let results = (outs PdTensor:$X_GRAD, PdTensor:$Y_GRAD, PdTensor:$IntermediateOut_GRAD);
  let optionalOutputs = ["X_GRAD", "Y_GRAD", "IntermediateOut_GRAD"];
  let hasPirForm = 0;
  let inferRule = "inferFusedElemwiseActivationGrad";
  let lowering = [{ lowerFusedElemwiseActivationGrad(op) }];
  let spmdRule = "replicated";
}

// --- fuse_gemm_epilogue ----------------------------------------------------

def Pd_FusedGemmEpilogueOp : Pd_CatalogOp<"fused_gemm_epilogue", [Pure]> {
  let summary = "Out = activation(X·Y + Bias), one GEMM with its epilogue";
  let description = [{
    Paddle's fused_gemm_epilogue, which fuse_gemm_epilogue makes of a
    matmul_v2 (or a `mul` that flattens all but X's last dim), the
    elementwise_add of a bias row and an optional relu or gelu. X is
    [..., K] (its leading dims are the GEMM's rows; [K, M] with trans_x),
    Y [K, N] ([N, K] with trans_y), Bias [N]; `activation` is `none`,
    `relu`, `gelu` (erf form) or `gelu_tanh` (gelu's tanh approximation,
    which Paddle's cuBLASLt epilogue computes). ReserveSpace is what the
    activation's gradient reads: the pre-activation X·Y + Bias (computed
    only when some op reads it).
  }];
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdTensor:$Bias, PdBool<"false">:$trans_x,
                       PdBool<"false">:$trans_y, PdStr<"none">:$activation);
  let results = (outs PdTensor:$Out, PdTensor:$ReserveSpace);
  let optionalOutputs = ["ReserveSpace"];
  let hasPirForm = 0; // written by distc's fusion pass only
  let inferRule = "inferFusedGemmEpilogue";
  let lowering = [{ lowerFusedGemmEpilogue(op) }];
  // Fused after the distributed programs exist; a mesh program holding one
  // keeps its operands whole.
  let spmdRule = "replicated";
}

def Pd_FusedGemmEpilogueGradOp : Pd_CatalogOp<"fused_gemm_epilogue_grad", [Pure]> {
  let summary = "DX, DY, DBias of fused_gemm_epilogue from DOut";
  let description = [{
    Paddle's fused_gemm_epilogue_grad, which fuse_gemm_epilogue makes of
    the activation's gradient, elementwise_add_grad and matmul_v2_grad (or
    mul_grad). `activation_grad` is `none`, `relu_grad`, `gelu_grad` or
    `gelu_tanh_grad`; ReserveSpace is the forward Out for relu_grad and the
    pre-activation for the gelu gradients (absent for none).
  }];
  let arguments = (ins PdTensor:$DOut, PdTensor:$X, PdTensor:$Y, Optional<PdTensor>:$ReserveSpace,
                       PdBool<"false">:$trans_x, PdBool<"false">:$trans_y,
                       PdStr<"none">:$activation_grad);
  let results = (outs PdTensor:$DX, PdTensor:$DY, PdTensor:$DBias);
  let optionalOutputs = ["DX", "DY", "DBias"];
  let hasPirForm = 0;
  let inferRule = "inferFusedGemmEpilogueGrad";
  let lowering = [{ lowerFusedGemmEpilogueGrad(op) }];
  let spmdRule = "replicated";
}

// --- fuse_bn_act_ops, fuse_bn_add_act_ops -----------------------------------

// Paddle's fused batch norms take batch_norm's attributes (the passes copy
// them over) and act_type. Paddle's kernels are cuDNN's NHWC training form,
// hence the default layout; distc runs them in either layout and, like
// batch_norm, with the running statistics outside a train program.
defvar Pd_FusedBatchNormAttrs = (ins PdFloat<"0.9">:$momentum, PdFloat<"1e-05">:$epsilon,
                                     PdStr<"relu">:$act_type, PdStr<"NHWC">:$data_layout,
                                     PdBool<"false">:$is_test,
                                     PdBool<"false">:$use_global_stats,
                                     PdBool<"false">:$trainable_statistics);

class Pd_FusedBatchNormOp<string mnemonic, dag inputs> : Pd_CatalogOp<mnemonic, [Pure]> {
  let arguments = !con(inputs, Pd_FusedBatchNormAttrs);
  let results = (outs PdTensor:$Y, PdTensor:$MeanOut, PdTensor:$VarianceOut,
                      PdTensor:$SavedMean, PdTensor:$SavedVariance, PdTensor:$ReserveSpace);
  let optionalOutputs = ["MeanOut", "VarianceOut", "SavedMean", "SavedVariance",
                         "ReserveSpace"];
  let hasPirForm = 0; // written by distc's fusion passes only
  let inferRule = "inferFusedBatchNorm";
  let lowering = [{ lowerBatchNorm(op) }];
  let spmdRule = "replicated";
}

// The gradients read the forward's output Y (act_type's gradient at Y) and
// the batch statistics it saved: Paddle's fused kernels are training-form
// only, so the fusion passes leave a batch_norm with running statistics.
class Pd_FusedBatchNormGradOp<string mnemonic, dag outputs>
    : Pd_CatalogOp<mnemonic, [Pure]> {
  let arguments = !con((ins PdTensor:$X, PdTensor:$Y, PdTensor:$Y_GRAD, PdTensor:$Scale,
                            PdTensor:$Bias, PdTensor:$SavedMean, PdTensor:$SavedVariance,
                            Optional<PdTensor>:$ReserveSpace),
                       Pd_FusedBatchNormAttrs);
  let results = outputs;
  let hasPirForm = 0;
  let inferRule = "inferFusedBatchNormGrad";
  let lowering = [{ lowerFusedBatchNormGrad(op) }];
  let spmdRule = "replicated";
}

def Pd_FusedBatchNormActOp
    : Pd_FusedBatchNormOp<"fused_batch_norm_act",
                          (ins PdTensor:$X, PdTensor:$Scale, PdTensor:$Bias, PdTensor:$Mean,
                               PdTensor:$Variance)> {
  let summary = "Y = act_type(batch_norm(X)), one pass";
  let description = [{
    Paddle's fused_batch_norm_act, which fuse_bn_act_ops makes of a
    batch_norm and the relu that alone reads its Y. The outputs are
    batch_norm's, Y holding the activation's result. act_type is `relu`.
  }];
}

def Pd_FusedBatchNormActGradOp
    : Pd_FusedBatchNormGradOp<"fused_batch_norm_act_grad",
                              (outs PdTensor:$X_GRAD, PdTensor:$Scale_GRAD,
                                    PdTensor:$Bias_GRAD)> {
  let summary = "X@GRAD, Scale@GRAD, Bias@GRAD of fused_batch_norm_act";
  let description = [{
    Paddle's fused_batch_norm_act_grad: batch_norm_grad of act_type's
    gradient at Y, which fuse_bn_act_ops makes of relu_grad and the
    batch_norm_grad reading its result.
  }];
  let optionalOutputs = ["X_GRAD", "Scale_GRAD", "Bias_GRAD"];
}

def Pd_FusedBnAddActivationOp
    : Pd_FusedBatchNormOp<"fused_bn_add_activation",
                          (ins PdTensor:$X, PdTensor:$Z, PdTensor:$Scale, PdTensor:$Bias,
                               PdTensor:$Mean, PdTensor:$Variance)> {
  let summary = "Y = act_type(batch_norm(X) + Z), one pass";
  let description = [{
    Paddle's fused_bn_add_activation, which fuse_bn_add_act_ops makes of a
    batch_norm, the elementwise_add of Z (of X's shape: a residual
    connection) to its Y, and the relu that alone reads the sum.
  }];
}

def Pd_FusedBnAddActivationGradOp
    : Pd_FusedBatchNormGradOp<"fused_bn_add_activation_grad",
                              (outs PdTensor:$X_GRAD, PdTensor:$Z_GRAD, PdTensor:$Scale_GRAD,
                                    PdTensor:$Bias_GRAD)> {
  let summary = "X@GRAD, Z@GRAD, Scale@GRAD, Bias@GRAD of fused_bn_add_activation";
  let description = [{
    Paddle's fused_bn_add_activation_grad, of relu_grad, the
    elementwise_add_grad after it and the batch_norm_grad of the add's X
    gradient: Z@GRAD is act_type's gradient at Y, and batch_norm_grad runs
    on it.
  }];
  let optionalOutputs = ["X_GRAD", "Z_GRAD", "Scale_GRAD", "Bias_GRAD"];
}

// --- fuse_dropout_add --------------------------------------------------------

def Pd_FusedDropoutAddOp : Pd_CatalogOp<"fused_dropout_add"> {
  let summary = "Out = dropout(X) + Y, one pass";
  let description = [{
    Paddle's fused_dropout_add, which fuse_dropout_add makes of a dropout
    and the elementwise_add of a tensor Y of its shape (a residual
    connection) to its Out. The attributes are dropout's, in Paddle's
    spelling: probability `p`, `mode` (`upscale_in_train` or
    `downgrade_in_infer`), `is_test`, `seed` with `fix_seed`. Paddle's
    second output is the seed and offset its GPU kernel draws from; distc
    keeps the Mask instead (1 where an element of X is kept), as dropout
    does. Without fix_seed, distc derives dropout's seed from the name of
    its output (docs/artifact.md, "Randomness"): `seed_name` is the name
    the masks derive from, that of the dropout the pass replaced, so the
    fused program draws the masks the unfused one draws (empty: Out's).
    Like dropout, not Pure: each run draws a fresh mask.
  }];
  let arguments = (ins PdTensor:$X, PdTensor:$Y, PdFloat<"0.5">:$p, PdBool<"false">:$is_test,
                       PdStr<"upscale_in_train">:$mode, PdInt<"0">:$seed,
                       PdBool<"false">:$fix_seed, PdStr<"">:$seed_name);
  let results = (outs PdTensor:$Out, PdTensor:$Mask);
  let optionalOutputs = ["Mask"];
  let hasPirForm = 0; // written by distc's fusion pass only
  let inferRule = "inferFusedDropoutAdd";
  let lowering = [{ lowerFusedDropoutAdd(op) }];
  let spmdRule = "replicated";
}

def Pd_FusedDropoutAddGradOp : Pd_CatalogOp<"fused_dropout_add_grad", [Pure]> {
  let summary = "X@GRAD and Y@GRAD of fused_dropout_add";
  let description = [{
    Paddle's fused_dropout_add_grad, which fuse_dropout_add makes of the
    elementwise_add_grad and dropout_grad after a fused dropout and add:
    X@GRAD is dropout's gradient of Out@GRAD (through the forward's Mask),
    Y@GRAD is Out@GRAD.
  }];
  let arguments = (ins PdTensor:$Mask, PdTensor:$Out_GRAD, PdFloat<"0.5">:$p,
                       PdBool<"false">:$is_test, PdStr<"upscale_in_train">:$mode,
                       PdBool<"false">:$fix_seed);
  let results = (outs PdTensor:$X_GRAD, PdTensor:$Y_GRAD);
  let optionalOutputs = ["X_GRAD", "Y_GRAD"];
  let hasPirForm = 0;
  let inferRule = "inferFusedDropoutAddGrad";
  let lowering = [{ lowerFusedDropoutAddGrad(op) }];
  let spmdRule = "replicated";
}

// --- fused_feedforward ------------------------------------------------------

def Pd_FusedFeedforwardOp
    : Pd_CatalogOp<"fused_feedforward", [AttrSizedOperandSegments]> {
  let summary = "A transformer's feed-forward block as one op";
  let description = [{
    Paddle's fused_feedforward, which the fused_feedforward pass makes of a
    transformer block's FFN:

    ```
    residual = X
    ln1_out  = pre_layer_norm ? layer_norm(X) : X            (Ln1Out, Ln1Mean, Ln1Variance)
    out      = dropout1(act_method(ln1_out·Linear1Weight + Linear1Bias))
                                                 (Linear1Out: the pre-activation; Dropout1Out)
    out      = dropout2(out·Linear2Weight + Linear2Bias)
    out      = add_residual ? residual + out : out            (Dropout2Out, post form)
    Out      = pre_layer_norm ? out : layer_norm(out)         (Ln2Mean, Ln2Variance)
    ```

    The layer norms normalize the last dim; act_method is `gelu` or
    `relu`; a dropout of rate 0 is none. Like fused_dropout_add, distc
    keeps each dropout's Mask and derives an unfixed seed from
    `dropout1_seed_name` / `dropout2_seed_name`, the names of the dropouts
    the pass replaced. Paddle's seed tensors and tensor-parallel ring_id
    are not supported. Dropout2Out is computed in the post form only,
    where the layer norm's gradient reads it.
  }];
  let arguments = (ins PdTensor:$X, PdTensor:$Linear1Weight, Optional<PdTensor>:$Linear1Bias,
                       PdTensor:$Linear2Weight, Optional<PdTensor>:$Linear2Bias,
                       Optional<PdTensor>:$Ln1Scale, Optional<PdTensor>:$Ln1Bias,
                       Optional<PdTensor>:$Ln2Scale, Optional<PdTensor>:$Ln2Bias,
                       PdBool<"false">:$pre_layer_norm, PdFloat<"1e-05">:$ln1_epsilon,
                       PdFloat<"1e-05">:$ln2_epsilon, PdStr<"gelu">:$act_method,
                       PdFloat<"0.5">:$dropout1_rate, PdFloat<"0.5">:$dropout2_rate,
                       PdStr<"downgrade_in_infer">:$dropout1_implementation,
                       PdStr<"downgrade_in_infer">:$dropout2_implementation,
                       PdBool<"false">:$is_test, PdBool<"false">:$dropout1_fix_seed,
                       PdBool<"false">:$dropout2_fix_seed, PdInt<"0">:$dropout1_seed,
                       PdInt<"0">:$dropout2_seed, PdBool<"true">:$add_residual,
                       PdInt<"-1">:$ring_id, PdStr<"">:$dropout1_seed_name,
                       PdStr<"">:$dropout2_seed_name);
  let results = (outs PdTensor:$Out, PdTensor:$Dropout1Mask, PdTensor:$Dropout2Mask,
                      PdTensor:$Ln1Mean, PdTensor:$Ln1Variance, PdTensor:$Ln2Mean,
                      PdTensor:$Ln2Variance, PdTensor:$Linear1Out, PdTensor:$Ln1Out,
                      PdTensor:$Dropout1Out, PdTensor:$Dropout2Out);
  let optionalOutputs = ["Dropout1Mask", "Dropout2Mask", "Ln1Mean", "Ln1Variance", "Ln2Mean",
                         "Ln2Variance", "Linear1Out", "Ln1Out", "Dropout1Out", "Dropout2Out"];
  let unsupportedInputs = ["Dropout1Seed", "Dropout2Seed"];
  let hasPirForm = 0; // written by distc's fusion pass only
  let inferRule = "inferFusedFeedforward";
  let lowering = [{ lowerFusedFeedforward(op) }];
  let spmdRule = "replicated";
}

def Pd_FusedFeedforwardGradOp
    : Pd_CatalogOp<"fused_feedforward_grad", [Pure, AttrSizedOperandSegments]> {
  let summary = "The gradients of fused_feedforward";
  let description = [{
    Paddle's fused_feedforward_grad, which the fused_feedforward pass makes
    of the FFN's backward ops: from Out@GRAD and what the forward saved,
    the gradients of X (both paths of the residual connection summed),
    the layer norm's scale and bias, and both linears' weights and biases.
  }];
  let arguments = (ins PdTensor:$Out_GRAD, PdTensor:$X, PdTensor:$Linear1Weight,
                       Optional<PdTensor>:$Linear1Bias, PdTensor:$Linear2Weight,
                       Optional<PdTensor>:$Linear2Bias, PdTensor:$Dropout1Mask,
                       PdTensor:$Dropout2Mask, PdTensor:$Linear1Out, PdTensor:$Dropout1Out,
                       Optional<PdTensor>:$Dropout2Out, Optional<PdTensor>:$Ln1Scale,
                       Optional<PdTensor>:$Ln1Bias, Optional<PdTensor>:$Ln1Out,
                       Optional<PdTensor>:$Ln1Mean, Optional<PdTensor>:$Ln1Variance,
                       Optional<PdTensor>:$Ln2Scale, Optional<PdTensor>:$Ln2Bias,
                       Optional<PdTensor>:$Ln2Mean, Optional<PdTensor>:$Ln2Variance,
                       PdBool<"false">:$pre_layer_norm, PdFloat<"1e-05">:$ln1_epsilon,
                       PdFloat<"1e-05">:$ln2_epsilon, PdStr<"gelu">:$act_method,
                       PdFloat<"0.5">:$dropout1_rate, PdFloat<"0.5">:$dropout2_rate,
                       PdStr<"downgrade_in_infer">:$dropout1_implementation,
                       PdStr<"downgrade_in_infer">:$dropout2_implementation,
                       PdBool<"false">:$is_test, PdBool<"true">:$add_residual,
                       PdInt<"-1">:$ring_id);
  let results = (outs PdTensor:$X_GRAD, PdTensor:$Ln1Scale_GRAD, PdTensor:$Ln1Bias_GRAD,
                      PdTensor:$Ln2Scale_GRAD, PdTensor:$Ln2Bias_GRAD,
                      PdTensor:$Linear1Weight_GRAD, PdTensor:$Linear1Bias_GRAD,
                      PdTensor:$Linear2Weight_GRAD, PdTensor:$Linear2Bias_GRAD);
  let optionalOutputs = ["X_GRAD", "Ln1Scale_GRAD", "Ln1Bias_GRAD", "Ln2Scale_GRAD",
                         "Ln2Bias_GRAD", "Linear1Weight_GRAD", "Linear1Bias_GRAD",
                         "Linear2Weight_GRAD", "Linear2Bias_GRAD"];
  let hasPirForm = 0;
  let inferRule = "inferFusedFeedforwardGrad";
  let lowering = [{ lowerFusedFeedforwardGrad(op) }];
  let spmdRule = "replicated";
}

// --- fused_attention ---------------------------------------------------------

def Pd_FusedAttentionOp : Pd_CatalogOp<"fused_attention", [AttrSizedOperandSegments]> {
  let summary = "A transformer's multi-head self-attention block as one op";
  let description = [{
    Paddle's fused_attention (incubate fused_multi_head_attention), which
    the fused_attention pass makes of a transformer block's self-attention.
    With QKVW [3, H, hd, d] and QKVBias [3, H, hd], as its documentation
    defines it:

    ```
    residual = X
    out = pre_layer_norm ? layer_norm(X) : X        (LnOut, LnMean, LnVariance)
    qkv = out · QKVWᵀ + QKVBias, as [B, S, 3, H, hd]    (QKVOut, QKVBiasOut)
    q, k, v = transpose(qkv, [2, 0, 3, 1, 4])        (TransposeOut2)
    w = softmax(q·hd^-0.5 · kᵀ [+ SrcMask])          (QKOut, SrcMaskOut, SoftmaxOut)
    w = dropout(w, attn_dropout_rate)                (AttnDropoutOut, its mask)
    o = transpose(w·v, [0, 2, 1, 3]) as [B, S, d]    (QKTVOut, FMHAOut)
    o = o · OutLinearW + OutLinearBias               (OutLinearOut)
    o = dropout(o, dropout_rate) [+ residual]        (DropoutMaskOut, BiasDropoutResidualOut)
    Y = pre_layer_norm ? o : layer_norm(o)           (Ln2Mean, Ln2Variance)
    ```

    In the `transpose_qkv_wb` form, the one the pass writes, QKVW is the
    QKV linear's weight [d, 3d] (qkv = out · QKVW + QKVBias [3d], QKVOut
    and QKVBiasOut [B, S, 3d]) and `num_heads` gives H. hd^-0.5 is taken
    in the element type. Like fused_feedforward, distc derives an unfixed
    seed from `attn_dropout_seed_name` / `dropout_seed_name`, the names of
    the dropouts the pass replaced. The cache for generation (CacheKV) and
    tensor-parallel `ring_id` are refused.
  }];
  let arguments = (ins PdTensor:$X, Optional<PdTensor>:$LnScale, Optional<PdTensor>:$LnBias,
                       PdTensor:$QKVW, Optional<PdTensor>:$QKVBias, Optional<PdTensor>:$SrcMask,
                       PdTensor:$OutLinearW, Optional<PdTensor>:$OutLinearBias,
                       Optional<PdTensor>:$Ln2Scale, Optional<PdTensor>:$Ln2Bias,
                       PdInt<"-1">:$num_heads, PdBool<"false">:$transpose_qkv_wb,
                       PdBool<"false">:$pre_layer_norm, PdFloat<"1e-05">:$epsilon,
                       PdFloat<"0.5">:$attn_dropout_rate, PdBool<"false">:$is_test,
                       PdBool<"true">:$attn_dropout_fix_seed, PdInt<"0">:$attn_dropout_seed,
                       PdStr<"downgrade_in_infer">:$attn_dropout_implementation,
                       PdFloat<"0.5">:$dropout_rate, PdBool<"true">:$dropout_fix_seed,
                       PdInt<"0">:$dropout_seed,
                       PdStr<"downgrade_in_infer">:$dropout_implementation,
                       PdFloat<"1e-05">:$ln_epsilon, PdBool<"true">:$add_residual,
                       PdInt<"-1">:$ring_id, PdStr<"">:$attn_dropout_seed_name,
                       PdStr<"">:$dropout_seed_name);
  let results = (outs PdTensor:$LnMean, PdTensor:$LnVariance, PdTensor:$LnOut,
                      PdTensor:$QKVOut, PdTensor:$QKVBiasOut, PdTensor:$TransposeOut2,
                      PdTensor:$QKOut, PdTensor:$QKTVOut, PdTensor:$SoftmaxOut,
                      PdTensor:$AttnDropoutMaskOut, PdTensor:$AttnDropoutOut,
                      PdTensor:$SrcMaskOut, PdTensor:$FMHAOut, PdTensor:$OutLinearOut,
                      PdTensor:$DropoutMaskOut, PdTensor:$Ln2Mean, PdTensor:$Ln2Variance,
                      PdTensor:$BiasDropoutResidualOut, PdTensor:$Y);
  let optionalOutputs = ["LnMean", "LnVariance", "LnOut", "QKVOut", "QKVBiasOut",
                         "TransposeOut2", "QKOut", "QKTVOut", "SoftmaxOut",
                         "AttnDropoutMaskOut", "AttnDropoutOut", "SrcMaskOut", "FMHAOut",
                         "OutLinearOut", "DropoutMaskOut", "Ln2Mean", "Ln2Variance",
                         "BiasDropoutResidualOut"];
  let unsupportedInputs = ["CacheKV"];
  let hasPirForm = 0;
  let inferRule = "inferFusedAttention";
  let lowering = [{ lowerFusedAttention(op) }];
  let spmdRule = "replicated";
}

def Pd_FusedAttentionGradOp
    : Pd_CatalogOp<"fused_attention_grad", [Pure, AttrSizedOperandSegments]> {
  let summary = "The gradients of fused_attention";
  let description = [{
    Paddle's fused_attention_grad, which the fused_attention pass makes of
    the attention block's backward ops: from Y@GRAD and what the forward
    saved, the gradients of X (both paths of the residual connection
    summed), the QKV and output linears' weights and biases, and the
    layer norm's scale and bias. The transpose_qkv_wb form only. Of
    Paddle's inputs it takes those the gradient reads (the softmax output,
    the dropped attention weights and both masks, q, k and v as
    TransposeOut2, FMHAOut, the layer norm's input), and of its outputs
    the parameters' and X's gradients: the intermediate results'
    gradients are not results.
  }];
  let arguments = (ins PdTensor:$Y_GRAD, PdTensor:$X, PdTensor:$QKVW,
                       Optional<PdTensor>:$QKVBias, PdTensor:$OutLinearW,
                       Optional<PdTensor>:$OutLinearBias, Optional<PdTensor>:$LnScale,
                       Optional<PdTensor>:$LnBias, Optional<PdTensor>:$LnOut,
                       Optional<PdTensor>:$Ln2Scale, Optional<PdTensor>:$Ln2Bias,
                       Optional<PdTensor>:$BiasDropoutResidualOut, PdTensor:$TransposeOut2,
                       PdTensor:$SoftmaxOut, PdTensor:$AttnDropoutMaskOut,
                       PdTensor:$AttnDropoutOut, PdTensor:$FMHAOut, PdTensor:$DropoutMaskOut,
                       PdInt<"-1">:$num_heads, PdBool<"false">:$transpose_qkv_wb,
                       PdBool<"false">:$pre_layer_norm, PdFloat<"1e-05">:$epsilon,
                       PdFloat<"0.5">:$attn_dropout_rate, PdBool<"false">:$is_test,
                       PdStr<"downgrade_in_infer">:$attn_dropout_implementation,
                       PdFloat<"0.5">:$dropout_rate,
                       PdStr<"downgrade_in_infer">:$dropout_implementation,
                       PdFloat<"1e-05">:$ln_epsilon, PdBool<"true">:$add_residual,
                       PdInt<"-1">:$ring_id);
  let results = (outs PdTensor:$X_GRAD, PdTensor:$QKVW_GRAD, PdTensor:$QKVBias_GRAD,
                      PdTensor:$OutLinearW_GRAD, PdTensor:$OutLinearBias_GRAD,
                      PdTensor:$LnScale_GRAD, PdTensor:$LnBias_GRAD, PdTensor:$Ln2Scale_GRAD,
                      PdTensor:$Ln2Bias_GRAD);
  let optionalOutputs = ["X_GRAD", "QKVW_GRAD", "QKVBias_GRAD", "OutLinearW_GRAD",
                         "OutLinearBias_GRAD", "LnScale_GRAD", "LnBias_GRAD", "Ln2Scale_GRAD",
                         "Ln2Bias_GRAD"];
  let hasPirForm = 0;
  let inferRule = "inferFusedAttentionGrad";
  let lowering = [{ lowerFusedAttentionGrad(op) }];
  let spmdRule = "replicated";
}

// --- fuse_all_optimizer_ops -------------------------------------------------

// One multi-tensor update of several parameters: slot S holds the S of every
// parameter in order, and S`Out` their new values.
class Pd_MergedOptimizerOp<string mnemonic, string what>
    : Pd_CatalogOp<mnemonic, [Pure, SameVariadicOperandSize, SameVariadicResultSize]> {
  let summary = what # " of several parameters in one multi-tensor update";
  let hasPirForm = 0;
  let inferRule = "inferMergedOptimizer";
  let lowering = [{ lowerMergedOptimizer(op) }];
  let spmdRule = "replicated";
}
def Pd_MergedAdamOp : Pd_MergedOptimizerOp<"merged_adam", "Adam (AdamW with `decoupled`)"> {
  let description = [{
    Paddle's merged_adam: adam of parameter i from Param[i], Grad[i],
    LearningRate[i], Moment1[i], ..., as fuse_all_optimizer_ops makes of
    adam (and distc, with `decoupled`, of adamw) ops that share their
    attributes and learning rate.
  }];
  let arguments = (ins Variadic<PdTensor>:$Param, Variadic<PdTensor>:$Grad,
                       Variadic<PdTensor>:$LearningRate, Variadic<PdTensor>:$Moment1,
                       Variadic<PdTensor>:$Moment2, Variadic<PdTensor>:$Beta1Pow,
                       Variadic<PdTensor>:$Beta2Pow, PdFloat<"0.9">:$beta1,
                       PdFloat<"0.999">:$beta2, PdFloat<"1e-08">:$epsilon,
                       PdBool<"false">:$multi_precision, PdBool<"false">:$use_global_beta_pow,
                       PdBool<"false">:$decoupled, PdFloat<"0">:$weight_decay);
  let results = (outs Variadic<PdTensor>:$ParamOut, Variadic<PdTensor>:$Moment1Out,
                      Variadic<PdTensor>:$Moment2Out, Variadic<PdTensor>:$Beta1PowOut,
                      Variadic<PdTensor>:$Beta2PowOut);
}
def Pd_MergedMomentumOp : Pd_MergedOptimizerOp<"merged_momentum", "Momentum"> {
  let description = [{
    Paddle's merged_momentum: momentum of parameter i from Param[i],
    Grad[i], Velocity[i] and LearningRate[i]; `regularization_method` and
    `regularization_coeff` hold one entry per parameter.
  }];
  let arguments = (ins Variadic<PdTensor>:$Param, Variadic<PdTensor>:$Grad,
                       Variadic<PdTensor>:$Velocity, Variadic<PdTensor>:$LearningRate,
                       PdFloat<"0.9">:$mu, PdBool<"false">:$use_nesterov,
                       PdStrings<"[]">:$regularization_method,
                       PdFloats<"[]">:$regularization_coeff, PdBool<"false">:$multi_precision,
                       PdFloat<"1">:$rescale_grad);
  let results = (outs Variadic<PdTensor>:$ParamOut, Variadic<PdTensor>:$VelocityOut);
}
def Pd_MergedSgdOp : Pd_MergedOptimizerOp<"merged_sgd", "SGD"> {
  let description = [{
    distc's: sgd of parameter i from Param[i], Grad[i] and LearningRate[i].
    Paddle fuses sgd ops by coalescing the parameters into one buffer and
    running one sgd over it; distc keeps each parameter in its own buffer
    and updates them all in one multi-tensor loop instead.
  }];
  let arguments = (ins Variadic<PdTensor>:$Param, Variadic<PdTensor>:$Grad,
                       Variadic<PdTensor>:$LearningRate);
  let results = (outs Variadic<PdTensor>:$ParamOut);
}

#endif // DISTC_DIALECT_PD_PDFUSIONOPS_TD
