//===- Passes.td - BuildStrategy's fusion passes -------------*- tablegen -*-===//
//
// Each pass is one of Paddle's BuildStrategy fusion options, a pattern on
// the IR that replaces a group of ops by one fused op with the same
// numerics (docs/fusion.md). They run in the `optimized` phase, after the
// distributed programs exist, over every main program. With `explain`,
// each pass writes to stderr what it fused and why a candidate was left.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_FUSION_PASSES
#define DISTC_FUSION_PASSES

include "mlir/Pass/PassBase.td"

def FuseElementwise : Pass<"distc-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Run every group of element-wise ops as one generated loop (enable_auto_fusion)";
  let description = [{
    BuildStrategy's `enable_auto_fusion` (Paddle's fusion_group pass). Every
    op that declares a `loopOp` in PdOps.td (element-wise arithmetic,
    activations and their gradients, scale, clip) is an instruction of a
    generated loop. Walking each main program in order, an op joins the
    group of an operand's producer when it computes a result of the group's
    shape, has the group's op role, each of its operands has the loop's
    shape or a trailing part of it (Paddle's `axis` aligning it at the end),
    and no op outside the group reads a group value before it (the group
    becomes one op where its last member was). A group of two or more ops
    becomes one `pd.fusion_group` whose results are the group values read
    outside it; the runtime runs its program tile by tile.

    Before:
    ```mlir
    %s = pd.elementwise_add %x, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %r = pd.relu %s : (tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
    After:
    ```mlir
    %r = pd.fusion_group %x, %b {code = array<i64: 0, 0, 1, -1, 6, 2, -1, -1>, imms = array<f64>,
        outputs = array<i64: 3>, fused = ["elementwise_add", "relu"]} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each group and each op left out of one to stderr">,
    Option<"maxInstructions", "max-instructions", "int", /*default=*/"32",
           "The most ops one loop holds">,
  ];
}

def FuseElewiseAddAct : Pass<"distc-fuse-elewise-add-act", "mlir::ModuleOp"> {
  let summary = "An add and a relu/tanh as one op (fuse_elewise_add_act_ops)";
  let description = [{
    BuildStrategy's `fuse_elewise_add_act_ops`, as Paddle's
    fuse_elewise_add_act_pass: `act(elementwise_add(x, y))` (the sum read by
    the activation alone) and `elementwise_add(x, act(y))` (the activation's
    result read by the add and its own gradient alone), act relu or tanh,
    become one `fused_elemwise_add_activation`; in a train program the
    activation's gradient and `elementwise_add_grad` chained after them
    become one `fused_elemwise_add_activation_grad`. X must have the
    result's shape; Y may be a trailing part of it (a bias row) in
    act(x + y). A forward whose backward has another form is left alone.

    Before:
    ```mlir
    %s = pd.elementwise_add %x, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %y = pd.relu %s : (tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
    After:
    ```mlir
    %y, %s = pd.fused_elemwise_add_activation %x, %b {functor_list = ["relu", "elementwise_add"]} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each fused pair and each candidate left to stderr">,
  ];
}

def FuseBnAct : Pass<"distc-fuse-bn-act", "mlir::ModuleOp"> {
  let summary = "batch_norm and the relu after it as one op (fuse_bn_act_ops)";
  let description = [{
    BuildStrategy's `fuse_bn_act_ops`, as Paddle's fuse_bn_act_pass: a
    `batch_norm` in the training form (is_test and use_global_stats false)
    whose Y only a `relu` reads becomes one `fused_batch_norm_act`; in a
    train program the `relu_grad` and the `batch_norm_grad` reading its
    result become one `fused_batch_norm_act_grad`. A forward whose backward
    has another form is left alone. Paddle fuses float16 NHWC only (cuDNN's
    kernel); distc fuses float32 and float64 in either layout.

    Before:
    ```mlir
    %y, %m, %v, %sm, %sv, %r = pd.batch_norm %x, %scale, %bias, %mean, %var : ...
    %o = pd.relu %y : (tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
    ```
    After:
    ```mlir
    %o, %m, %v, %sm, %sv, %r = pd.fused_batch_norm_act %x, %scale, %bias, %mean, %var
        {act_type = "relu", data_layout = "NCHW"} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each fused batch_norm and each one left to stderr">,
  ];
}

def FuseBnAddAct : Pass<"distc-fuse-bn-add-act", "mlir::ModuleOp"> {
  let summary = "batch_norm, a residual add and relu as one op (fuse_bn_add_act_ops)";
  let description = [{
    BuildStrategy's `fuse_bn_add_act_ops`, as Paddle's fuse_bn_add_act_pass:
    a training-form `batch_norm` whose Y only an `elementwise_add` of a
    tensor Z of its shape reads (either operand), the sum read by a `relu`
    alone, becomes one `fused_bn_add_activation` (ResNet's residual
    connection); in a train program `relu_grad`, `elementwise_add_grad` and
    the `batch_norm_grad` of the add's Y side become one
    `fused_bn_add_activation_grad`, whose Z@GRAD is relu's gradient.

    Before:
    ```mlir
    %y, %m, %v, %sm, %sv, %r = pd.batch_norm %x, %scale, %bias, %mean, %var : ...
    %s = pd.elementwise_add %y, %z : ...
    %o = pd.relu %s : ...
    ```
    After:
    ```mlir
    %o, %m, %v, %sm, %sv, %r = pd.fused_bn_add_activation %x, %z, %scale, %bias, %mean, %var
        {act_type = "relu", data_layout = "NCHW"} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each fused batch_norm and each one left to stderr">,
  ];
}

def FuseGemmEpilogue : Pass<"distc-fuse-gemm-epilogue", "mlir::ModuleOp"> {
  let summary = "matmul + bias + activation as one GEMM with its epilogue (fuse_gemm_epilogue)";
  let description = [{
    BuildStrategy's `fuse_gemm_epilogue`, as Paddle's fuse_gemm_epilogue_pass:
    a `matmul_v2` (or a `mul` flattening all but X's last dim) with a 2-D Y,
    whose result only an `elementwise_add` of a bias row [N] reads, followed
    by a `relu` or `gelu` when the sum has no other reader, becomes one
    `fused_gemm_epilogue`. In a train program its backward, the activation's
    gradient, `elementwise_add_grad` and the GEMM's gradient over the same
    operands, becomes one `fused_gemm_epilogue_grad`; a forward whose
    backward does not have that form is left alone.

    Before:
    ```mlir
    %t = pd.matmul_v2 %x, %w : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
    %s = pd.elementwise_add %t, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %y = pd.relu %s : (tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
    After:
    ```mlir
    %y, %r = pd.fused_gemm_epilogue %x, %w, %b {activation = "relu"} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each fused GEMM and each one left to stderr">,
  ];
}

def FusedAttention : Pass<"distc-fused-attention", "mlir::ModuleOp"> {
  let summary = "A transformer's self-attention block as one op (fused_attention)";
  let description = [{
    BuildStrategy's `fused_attention`, as Paddle's fused_attention_pass:
    [`layer_norm` (of the last dim)] -> `matmul_v2` -> bias
    `elementwise_add` (one QKV linear, weight [d, 3d]) -> `reshape2` to
    [B, S, 3H, hd] -> `transpose2` [0, 2, 1, 3] -> `split` into q, k, v
    along axis 1 -> `scale` of q by hd^-0.5 -> `matmul_v2` (q, k, trans_y)
    -> [`elementwise_add` of a mask] -> `softmax` -> [`dropout`] ->
    `matmul_v2` (·, v) -> `transpose2` [0, 2, 1, 3] -> `reshape2` to
    [B, S, d] -> `matmul_v2` -> bias `elementwise_add` -> [`dropout`] ->
    [`elementwise_add` of the block's input] (pre layer norm), or the same
    without the first `layer_norm` and with the residual add followed by a
    `layer_norm` (post layer norm), becomes one `fused_attention` in its
    transpose_qkv_wb form; in a train program the gradients of those ops
    (`concat` for split's, `scale` for scale's), and the `sum` of the block
    input's two gradient shares, become one `fused_attention_grad`. Every
    value inside the block must be read by the block's ops and their
    gradients alone, and the mask must need no gradient. Paddle's pass
    takes the pre-layer-norm form with a mask, both dropouts and the
    residual add; this one takes its variations too.

    Before:
    ```mlir
    %ln, %m, %v = pd.layer_norm %x scale %s bias %b : ...
    %qkv = pd.matmul_v2 %ln, %w : ...
    %qkvb = pd.elementwise_add %qkv, %bias : ...
    %r, %rs = pd.reshape2 %qkvb {shape = array<i32: 0, 0, 6, 8>} : ...
    %t, %ts = pd.transpose2 %r {axis = array<i32: 0, 2, 1, 3>} : ...
    %q, %k, %v = pd.split %t {axis = 1 : i32, num = 3 : i32} : ...
    %qs = pd.scale %q {scale = 0.353553385 : f32} : ...
    ... softmax, dropout, the matmul with %v, transpose2, reshape2 ...
    %o = pd.matmul_v2 %merged, %wo : ...
    %ob = pd.elementwise_add %o, %bo : ...
    %d, %mask = pd.dropout %ob : ...
    %y = pd.elementwise_add %x, %d : ...
    ```
    After:
    ```mlir
    %ln_mean, ..., %y = pd.fused_attention %x, %s, %b, %w, %bias, %wo, %bo
        {transpose_qkv_wb = true, num_heads = 2, pre_layer_norm = true, ...} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each fused block and each candidate left to stderr">,
  ];
}

def FusedFeedforward : Pass<"distc-fused-feedforward", "mlir::ModuleOp"> {
  let summary = "A transformer's feed-forward block as one op (fused_feedforward)";
  let description = [{
    BuildStrategy's `fused_feedforward`, as Paddle's fused_feedforward_pass:
    `layer_norm` (of the last dim) -> `matmul_v2` -> bias `elementwise_add`
    -> `gelu` or `relu` -> [`dropout`] -> `matmul_v2` -> bias
    `elementwise_add` -> [`dropout`] -> [`elementwise_add` of the block's
    input] (pre layer norm), or the same without the first `layer_norm`
    and with the residual add followed by a `layer_norm` (post layer norm),
    with at least one dropout, becomes one `fused_feedforward`; in a train
    program the gradients of those ops, and the `sum` of the block input's
    two gradient shares, become one `fused_feedforward_grad`. Every value
    inside the block must be read by the block's ops and their gradients
    alone.

    Before:
    ```mlir
    %ln, %m, %v = pd.layer_norm %x scale %s bias %b : ...
    %h = pd.matmul_v2 %ln, %w1 : ...
    %hb = pd.elementwise_add %h, %b1 : ...
    %a = pd.gelu %hb : ...
    %o = pd.matmul_v2 %a, %w2 : ...
    %ob = pd.elementwise_add %o, %b2 : ...
    %d, %mask = pd.dropout %ob : ...
    %y = pd.elementwise_add %x, %d : ...
    ```
    After:
    ```mlir
    %y, ... = pd.fused_feedforward %x, %w1, %b1, %w2, %b2, %s, %b
        {pre_layer_norm = true, dropout1_rate = 0.0 : f32, ...} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each fused block and each layer_norm left to stderr">,
  ];
}

def FuseDropoutAdd : Pass<"distc-fuse-dropout-add", "mlir::ModuleOp"> {
  let summary = "dropout and the residual add after it as one op (fuse_dropout_add)";
  let description = [{
    BuildStrategy's `fuse_dropout_add`, as Paddle's fused_dropout_add_pass:
    a `dropout` whose Out only an `elementwise_add` of a tensor Y of its
    type reads (either operand: a residual connection) becomes one
    `fused_dropout_add`, which draws the masks dropout draws; in a train
    program `elementwise_add_grad` and the `dropout_grad` of its Out side
    become one `fused_dropout_add_grad`. A forward whose backward does not
    have that form is left alone.

    Before:
    ```mlir
    %d, %mask = pd.dropout %x {dropout_prob = 0.1 : f32} : ...
    %s = pd.elementwise_add %r, %d : ...
    ```
    After:
    ```mlir
    %s, %mask = pd.fused_dropout_add %x, %r {p = 0.1 : f32, seed_name = "dropout_0.tmp_0"} : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each fused dropout and each one left to stderr">,
  ];
}

def FuseAllOptimizerOps : Pass<"distc-fuse-all-optimizer-ops", "mlir::ModuleOp"> {
  let summary = "One multi-tensor update per kind of optimizer op (fuse_all_optimizer_ops)";
  let description = [{
    BuildStrategy's `fuse_all_optimizer_ops`. The `sgd`, `momentum`, `adam`
    and `adamw` ops of each main program that share their type, attributes
    (momentum's regularization aside, which merged_momentum lists per
    parameter), dtype and learning-rate value become one `merged_sgd`,
    `merged_momentum` or `merged_adam` (adamw as merged_adam with
    `decoupled`) where the last of them was; the write-backs
    (`pd.write_var`) of the earlier ones move after it. An update whose
    earlier members' results something else reads before it, or whose
    variables are read or written in between, starts a group of its own. Updates with
    `lazy_mode`, `multi_precision` or a row-sparse gradient are left alone.

    Before:
    ```mlir
    %w1 = pd.sgd %p1, %g1, %lr : ...
    %w2 = pd.sgd %p2, %g2, %lr : ...
    ```
    After:
    ```mlir
    %w:2 = pd.merged_sgd %p1, %p2, %g1, %g2, %lr, %lr : ...
    ```
  }];
  let options = [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Write each merged update and each update left to stderr">,
  ];
}

#endif // DISTC_FUSION_PASSES
