// RUN: distc-opt %s --split-input-file --distc-fuse-dropout-add | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fuse-dropout-add=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// r + dropout(x) in a train program, the residual connection of a
// transformer block: the forward and its backward each become one op. The
// fused op keeps the dropout's name as seed_name (unfixed seeds derive from
// it) and its Mask; the gradient reads the Mask and the add's Out@GRAD.
// CHECK-LABEL: pd.program @train
// CHECK: %[[S:[^,]*]], %[[M:[^ ]*]] = pd.fused_dropout_add %[[X:[^,]*]], %[[R:[^ ]*]]
// CHECK-SAME: {mode = "downgrade_in_infer", p = 1.000000e-01 : f32, pd.out_names = ["s", "d.mask"], seed_name = "d"}
// CHECK-NEXT: pd.fetch %[[S]]
// CHECK: %[[DX:[^,]*]], %[[DR:[^ ]*]] = pd.fused_dropout_add_grad %[[M]], %[[DS:[^ ]*]]
// CHECK-SAME: {mode = "downgrade_in_infer", op_role = 1 : i32, p = 1.000000e-01 : f32, pd.out_names = ["x@GRAD", "r@GRAD"]}
// CHECK-NOT: pd.elementwise_add_grad
// CHECK-NOT: pd.dropout_grad
// CHECK: pd.fetch %[[DX]]
// CHECK: pd.fetch %[[DR]]
// EXPLAIN: fuse_dropout_add: train: fused dropout (d) + elementwise_add (s) into fused_dropout_add
// EXPLAIN: fuse_dropout_add: train: fused elementwise_add_grad (r@GRAD) + dropout_grad (x@GRAD) into fused_dropout_add_grad
module {
  pd.program @train attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x4xf32>
    %r = pd.feed {col = 1 : i32, pd.out_names = ["r"]} : tensor<?x4xf32>
    %ds = pd.feed {col = 2 : i32, pd.out_names = ["s@GRAD"]} : tensor<?x4xf32>
    %d, %m = pd.dropout %x {dropout_prob = 0.1 : f32, pd.out_names = ["d", "d.mask"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %s = pd.elementwise_add %r, %d {axis = -1 : i32, pd.out_names = ["s"]} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    pd.fetch %s {col = 0 : i32} : tensor<?x4xf32>
    %dr, %dd = pd.elementwise_add_grad %r, %d, %ds {axis = -1 : i32, op_role = 1 : i32, pd.out_names = ["r@GRAD", "d@GRAD"]} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
    %dx = pd.dropout_grad %m, %dd {dropout_prob = 0.1 : f32, op_role = 1 : i32, pd.out_names = ["x@GRAD"]} : (tensor<?x4xui8>, tensor<?x4xf32>) -> tensor<?x4xf32>
    pd.fetch %dx {col = 1 : i32} : tensor<?x4xf32>
    pd.fetch %dr {col = 2 : i32} : tensor<?x4xf32>
  }
}

// -----

// An inference program: dropout (here the left operand) in its test form,
// fused without a backward; its attributes carry over in Paddle's spelling
// (upscale_in_train is fused_dropout_add's default mode, so not printed).
// CHECK-LABEL: pd.program @predict
// CHECK: pd.fused_dropout_add %{{[^,]*}}, %{{[^ ]*}} {fix_seed = true, is_test = true, p = 2.500000e-01 : f32, pd.out_names = ["s", "m"], seed = 7 : i32, seed_name = "d"}
// CHECK-NOT: pd.dropout
// EXPLAIN: fuse_dropout_add: predict: fused dropout (d) + elementwise_add (s) into fused_dropout_add
module {
  pd.program @predict attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x4xf32>
    %r = pd.feed {col = 1 : i32, pd.out_names = ["r"]} : tensor<?x4xf32>
    %d, %m = pd.dropout %x {dropout_prob = 0.25 : f32, is_test = true, fix_seed = true, seed = 7 : i32, dropout_implementation = "upscale_in_train", pd.out_names = ["d", "m"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %s = pd.elementwise_add %d, %r {axis = -1 : i32, pd.out_names = ["s"]} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    pd.fetch %s {col = 0 : i32} : tensor<?x4xf32>
  }
}

// -----

// Left: a broadcast addend, an output another op reads too, an output added
// to itself, and a backward that is not the two gradients chained (no
// gradient flows to the dropout's input).
// CHECK-LABEL: pd.program @left
// CHECK-NOT: pd.fused_dropout_add
// CHECK: }
// EXPLAIN: fuse_dropout_add: left: left dropout (a): the tensor added, b, is broadcast
// EXPLAIN: fuse_dropout_add: left: left dropout (c): its output c is read by another op
// EXPLAIN: fuse_dropout_add: left: left dropout (e): its output is added to itself
// EXPLAIN: fuse_dropout_add: left: left dropout (g): its backward is not elementwise_add_grad and dropout_grad chained
module {
  pd.program @left attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x4xf32>
    %b = pd.feed {col = 1 : i32, pd.out_names = ["b"]} : tensor<4xf32>
    %a, %am = pd.dropout %x {pd.out_names = ["a", "am"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %ab = pd.elementwise_add %a, %b {axis = -1 : i32, pd.out_names = ["ab"]} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    pd.fetch %ab {col = 0 : i32} : tensor<?x4xf32>
    %c, %cm = pd.dropout %x {pd.out_names = ["c", "cm"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %cx = pd.elementwise_add %c, %x {axis = -1 : i32, pd.out_names = ["cx"]} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    pd.fetch %cx {col = 1 : i32} : tensor<?x4xf32>
    pd.fetch %c {col = 2 : i32} : tensor<?x4xf32>
    %e, %em = pd.dropout %x {pd.out_names = ["e", "em"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %ee = pd.elementwise_add %e, %e {axis = -1 : i32, pd.out_names = ["ee"]} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    pd.fetch %ee {col = 3 : i32} : tensor<?x4xf32>
    %g, %gm = pd.dropout %x {pd.out_names = ["g", "gm"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %gx = pd.elementwise_add %x, %g {axis = -1 : i32, pd.out_names = ["gx"]} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %dgx = pd.feed {col = 4 : i32, pd.out_names = ["gx@GRAD"]} : tensor<?x4xf32>
    %dx, %dg = pd.elementwise_add_grad %x, %g, %dgx {axis = -1 : i32, op_role = 1 : i32, pd.out_names = ["x@GRAD", "g@GRAD"]} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
    pd.fetch %gx {col = 5 : i32} : tensor<?x4xf32>
    pd.fetch %dx {col = 6 : i32} : tensor<?x4xf32>
  }
}
