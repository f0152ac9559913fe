// RUN: distc-opt %s --split-input-file --distc-fuse-bn-act | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fuse-bn-act=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// relu(batch_norm(x)) in a train program: the forward and its backward each
// become one op. The running statistics' write-backs follow the fused op;
// the gradient reads its Y, the saved statistics and relu_grad's Out@GRAD.
// CHECK-LABEL: pd.program @train
// CHECK: %[[Y:[^,]*]], %[[MO:[^,]*]], %[[VO:[^,]*]], %[[SM:[^,]*]], %[[SV:[^,]*]], %{{.*}} = pd.fused_batch_norm_act %[[X:[^,]*]], %[[S:[^,]*]], %[[B:[^,]*]], %{{[^ ]*}}
// CHECK-SAME: {data_layout = "NCHW", 
// CHECK-SAME: pd.out_names = ["y", "bn.mean", "bn.var", "sm", "sv", "rs"]
// CHECK-NEXT: pd.write_var @bn.mean, %[[MO]]
// CHECK-NEXT: pd.write_var @bn.var, %[[VO]]
// CHECK: %[[DX:[^,]*]], %[[DS:[^,]*]], %[[DB:[^ ]*]] = pd.fused_batch_norm_act_grad %[[X]], %[[Y]], %[[DY:[^,]*]], %[[S]], %[[B]], %[[SM]], %[[SV]]
// CHECK-SAME: op_role = 1 : i32
// CHECK-SAME: pd.out_names = ["x@GRAD", "bn.w@GRAD", "bn.b@GRAD"]
// CHECK-NOT: pd.relu_grad
// CHECK-NOT: pd.batch_norm_grad
// CHECK: pd.fetch %[[DX]]
// EXPLAIN: fuse_bn_act_ops: train: fused batch_norm (t) + relu (y) into fused_batch_norm_act
// EXPLAIN: fuse_bn_act_ops: train: fused relu_grad (t@GRAD) + batch_norm_grad (x@GRAD) into fused_batch_norm_act_grad
module {
  pd.var @bn.w persistable is_parameter : tensor<3xf32>
  pd.var @bn.b persistable is_parameter : tensor<3xf32>
  pd.var @bn.mean persistable : tensor<3xf32>
  pd.var @bn.var persistable : tensor<3xf32>
  pd.program @train attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3x2x2xf32>
    %dy = pd.feed {col = 1 : i32, pd.out_names = ["y@GRAD"]} : tensor<?x3x2x2xf32>
    %s = pd.read_var @bn.w : tensor<3xf32>
    %b = pd.read_var @bn.b : tensor<3xf32>
    %m = pd.read_var @bn.mean : tensor<3xf32>
    %v = pd.read_var @bn.var : tensor<3xf32>
    %t, %mo, %vo, %sm, %sv, %rs = pd.batch_norm %x, %s, %b, %m, %v {pd.out_names = ["t", "bn.mean", "bn.var", "sm", "sv", "rs"]} : (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    pd.write_var @bn.mean, %mo : tensor<3xf32>
    pd.write_var @bn.var, %vo : tensor<3xf32>
    %y = pd.relu %t {pd.out_names = ["y"]} : (tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %dt = pd.relu_grad %y, %dy {op_role = 1 : i32, pd.out_names = ["t@GRAD"]} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %dx, %ds, %db = pd.batch_norm_grad %x, %s, %b, %sm, %sv, %dt {op_role = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 1>, pd.out_names = ["x@GRAD", "bn.w@GRAD", "bn.b@GRAD"]} : (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?x3x2x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
    pd.fetch %dx {col = 0 : i32} : tensor<?x3x2x2xf32>
    pd.fetch %ds {col = 1 : i32} : tensor<3xf32>
    pd.fetch %db {col = 2 : i32} : tensor<3xf32>
  }
}

// -----

// Left: batch_norm with the running statistics (Paddle's fused kernel has
// the training form only), and a Y that another op reads too.
// CHECK-LABEL: pd.program @left
// CHECK-NOT: pd.fused_batch_norm_act
// CHECK: }
// EXPLAIN: fuse_bn_act_ops: left: left batch_norm (t): it normalizes with the running statistics (is_test or use_global_stats)
module {
  pd.program @left attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3xf32>
    %s = pd.feed {col = 1 : i32, pd.out_names = ["s"]} : tensor<3xf32>
    %t:6 = pd.batch_norm %x, %s, %s, %s, %s {is_test = true, pd.out_names = ["t", "t1", "t2", "t3", "t4", "t5"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %y = pd.relu %t#0 {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %u:6 = pd.batch_norm %x, %s, %s, %s, %s {pd.out_names = ["u", "u1", "u2", "u3", "u4", "u5"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %z = pd.relu %u#0 {pd.out_names = ["z"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x3xf32>
    pd.fetch %z {col = 1 : i32} : tensor<?x3xf32>
    pd.fetch %u#0 {col = 2 : i32} : tensor<?x3xf32>
  }
}

// -----

// A train program whose backward is not relu_grad into batch_norm_grad
// (relu_grad's result is read twice): the forward is left too.
// CHECK-LABEL: pd.program @unchained
// CHECK-NOT: pd.fused_batch_norm_act
// CHECK: }
// EXPLAIN: fuse_bn_act_ops: unchained: left batch_norm (t): its backward is not relu_grad and batch_norm_grad chained
module {
  pd.program @unchained attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3xf32>
    %dy = pd.feed {col = 1 : i32, pd.out_names = ["y@GRAD"]} : tensor<?x3xf32>
    %s = pd.feed {col = 2 : i32, pd.out_names = ["s"]} : tensor<3xf32>
    %t, %mo, %vo, %sm, %sv, %rs = pd.batch_norm %x, %s, %s, %s, %s {pd.out_names = ["t", "t1", "t2", "sm", "sv", "rs"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %y = pd.relu %t {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %dt = pd.relu_grad %y, %dy {op_role = 1 : i32, pd.out_names = ["t@GRAD"]} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %dx, %ds, %db = pd.batch_norm_grad %x, %s, %s, %sm, %sv, %dt {op_role = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 1>, pd.out_names = ["x@GRAD", "s@GRAD", "b@GRAD"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>)
    pd.fetch %dx {col = 0 : i32} : tensor<?x3xf32>
    pd.fetch %dt {col = 1 : i32} : tensor<?x3xf32>
  }
}
