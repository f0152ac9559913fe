// RUN: distc-opt %s --split-input-file --distc-fuse-all-optimizer-ops | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fuse-all-optimizer-ops=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Two adam updates with one learning rate become one merged_adam where
// the first was; each ParamOut still goes to its variable.
// CHECK-LABEL: pd.program @adam
// CHECK: %[[PO:[^:]*]]:2, {{.*}} = pd.merged_adam %[[P1:[^,]*]], %[[P2:[^,]*]], %[[G1:[^,]*]], %[[G2:[^,]*]], %[[LR:[^,]*]], %[[LR]],
// CHECK-SAME: pd.out_names = ["p1_out", "p2_out", "m1a_out", "m1b_out", "m2a_out", "m2b_out", "b1a_out", "b1b_out", "b2a_out", "b2b_out"]
// CHECK-NOT: pd.adam
// CHECK: pd.write_var @p1, %[[PO]]#0
// CHECK: pd.write_var @p2, %[[PO]]#1
// EXPLAIN: fuse_all_optimizer_ops: adam: fused adam (p1_out) + adam (p2_out) into merged_adam
module {
  pd.var @p1 persistable is_parameter : tensor<4xf32>
  pd.var @p2 persistable is_parameter : tensor<2x3xf32>
  pd.program @adam attributes {pd.kind = "main", pd.mode = "train"} {
    %p1 = pd.read_var @p1 : tensor<4xf32>
    %p2 = pd.read_var @p2 : tensor<2x3xf32>
    %g1 = pd.feed {pd.out_names = ["g1"]} : tensor<4xf32>
    %g2 = pd.feed {pd.out_names = ["g2"], col = 1 : i32} : tensor<2x3xf32>
    %lr = pd.feed {pd.out_names = ["lr"], col = 2 : i32} : tensor<1xf32>
    %one = pd.feed {pd.out_names = ["one"], col = 3 : i32} : tensor<1xf32>
    %o1:5 = pd.adam %p1, %g1, %lr, %g1, %g1, %one, %one {op_role = 2 : i32, pd.out_names = ["p1_out", "m1a_out", "m2a_out", "b1a_out", "b2a_out"]} : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>)
    pd.write_var @p1, %o1#0 : tensor<4xf32>
    %o2:5 = pd.adam %p2, %g2, %lr, %g2, %g2, %one, %one {op_role = 2 : i32, pd.out_names = ["p2_out", "m1b_out", "m2b_out", "b1b_out", "b2b_out"]} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1xf32>, tensor<1xf32>)
    pd.write_var @p2, %o2#0 : tensor<2x3xf32>
  }
}

// -----

// Momentum updates with different regularization still merge (it is
// listed per parameter); an sgd with another learning rate does not join
// the others.
// CHECK-LABEL: pd.program @mixed
// CHECK: pd.merged_momentum
// CHECK-SAME: regularization_coeff = array<f32: 0.000000e+00, 5.000000e-01>
// CHECK-SAME: regularization_method = ["", "l2_decay"]
// CHECK: pd.merged_sgd
// CHECK: pd.sgd
module {
  pd.program @mixed attributes {pd.kind = "main", pd.mode = "train"} {
    %p = pd.feed {pd.out_names = ["p"]} : tensor<4xf32>
    %lr = pd.feed {pd.out_names = ["lr"], col = 1 : i32} : tensor<1xf32>
    %lr2 = pd.feed {pd.out_names = ["lr2"], col = 2 : i32} : tensor<1xf32>
    %a:2 = pd.momentum %p, %p, %p, %lr {pd.out_names = ["a", "av"]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %b:2 = pd.momentum %p, %p, %p, %lr {regularization_method = "l2_decay", regularization_coeff = 0.5 : f32, pd.out_names = ["b", "bv"]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %c = pd.sgd %p, %lr, %p {pd.out_names = ["c"]} : (tensor<4xf32>, tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = pd.sgd %p, %lr, %p {pd.out_names = ["d"]} : (tensor<4xf32>, tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = pd.sgd %p, %lr2, %p {pd.out_names = ["e"]} : (tensor<4xf32>, tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
    pd.fetch %a#0 : tensor<4xf32>
    pd.fetch %b#0 {col = 1 : i32} : tensor<4xf32>
    pd.fetch %c {col = 2 : i32} : tensor<4xf32>
    pd.fetch %d {col = 3 : i32} : tensor<4xf32>
    pd.fetch %e {col = 4 : i32} : tensor<4xf32>
  }
}
