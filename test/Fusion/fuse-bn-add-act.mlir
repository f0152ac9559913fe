// RUN: distc-opt %s --split-input-file --distc-fuse-bn-add-act | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fuse-bn-add-act=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// relu(batch_norm(x) + z), a residual connection, in a train program: the
// forward and its backward each become one op. Z@GRAD is the add's Y
// gradient, which an op before batch_norm_grad reads: the fused gradient
// takes relu_grad's place.
// CHECK-LABEL: pd.program @train
// CHECK: %[[Y:[^,]*]], %[[MO:[^,]*]], %{{[^,]*}}, %[[SM:[^,]*]], %[[SV:[^,]*]], %{{.*}} = pd.fused_bn_add_activation %[[X:[^,]*]], %[[Z:[^,]*]], %[[S:[^,]*]], %[[B:[^,]*]], %{{[^ ]*}}
// CHECK-SAME: {data_layout = "NCHW", 
// CHECK-SAME: pd.out_names = ["y", "bn.mean", "bn.var", "sm", "sv", "rs"]
// CHECK-NEXT: pd.write_var @bn.mean, %[[MO]]
// CHECK: %[[DX:[^,]*]], %[[DZ:[^,]*]], %[[DS:[^,]*]], %[[DB:[^ ]*]] = pd.fused_bn_add_activation_grad %[[X]], %[[Y]], %[[DY:[^,]*]], %[[S]], %[[B]], %[[SM]], %[[SV]]
// CHECK-SAME: pd.out_names = ["x@GRAD", "z@GRAD", "bn.w@GRAD", "bn.b@GRAD"]
// CHECK-NEXT: pd.scale %[[DZ]]
// CHECK-NOT: pd.relu_grad
// CHECK-NOT: pd.elementwise_add_grad
// CHECK-NOT: pd.batch_norm_grad
// CHECK: pd.fetch %[[DX]]
// EXPLAIN: fuse_bn_add_act_ops: train: fused batch_norm (t) + elementwise_add (s) + relu (y) into fused_bn_add_activation
// EXPLAIN: fuse_bn_add_act_ops: train: fused relu_grad (s@GRAD) + elementwise_add_grad (t@GRAD) + batch_norm_grad (x@GRAD) into fused_bn_add_activation_grad
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
    // The residual, computed after batch_norm.
    %z = pd.scale %x {scale = 2.0 : f32, pd.out_names = ["z"]} : (tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %sum = pd.elementwise_add %t, %z {axis = -1 : i32, pd.out_names = ["s"]} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %y = pd.relu %sum {pd.out_names = ["y"]} : (tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %ds = pd.relu_grad %y, %dy {op_role = 1 : i32, pd.out_names = ["s@GRAD"]} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %dt, %dz = pd.elementwise_add_grad %t, %z, %ds {axis = -1 : i32, op_role = 1 : i32, pd.out_names = ["t@GRAD", "z@GRAD"]} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>)
    %dzx = pd.scale %dz {scale = 2.0 : f32, op_role = 1 : i32, pd.out_names = ["z@GRAD@x"]} : (tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %dx, %ds2, %db = pd.batch_norm_grad %x, %s, %b, %sm, %sv, %dt {op_role = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 1>, pd.out_names = ["x@GRAD", "bn.w@GRAD", "bn.b@GRAD"]} : (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?x3x2x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
    pd.fetch %dx {col = 0 : i32} : tensor<?x3x2x2xf32>
    pd.fetch %dzx {col = 1 : i32} : tensor<?x3x2x2xf32>
    pd.fetch %ds2 {col = 2 : i32} : tensor<3xf32>
    pd.fetch %db {col = 3 : i32} : tensor<3xf32>
  }
}

// -----

// At inference, with batch_norm's Y the add's second operand.
// CHECK-LABEL: pd.program @predict
// CHECK: pd.fused_bn_add_activation %[[X:[^,]*]], %[[X]],
// CHECK-NOT: pd.elementwise_add
// CHECK-NOT: pd.relu
module {
  pd.program @predict attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3xf32>
    %s = pd.feed {col = 1 : i32, pd.out_names = ["s"]} : tensor<3xf32>
    %t:6 = pd.batch_norm %x, %s, %s, %s, %s {data_layout = "NHWC", pd.out_names = ["t", "t1", "t2", "t3", "t4", "t5"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %sum = pd.elementwise_add %x, %t#0 {pd.out_names = ["s"]} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %y = pd.relu %sum {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x3xf32>
  }
}

// -----

// Left: the added tensor is a broadcast bias row.
// CHECK-LABEL: pd.program @broadcast
// CHECK-NOT: pd.fused_bn_add_activation
// CHECK: }
// EXPLAIN: fuse_bn_add_act_ops: broadcast: left batch_norm (t): the tensor added, s, is broadcast
module {
  pd.program @broadcast attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3xf32>
    %s = pd.feed {col = 1 : i32, pd.out_names = ["s"]} : tensor<3xf32>
    %t:6 = pd.batch_norm %x, %s, %s, %s, %s {data_layout = "NHWC", pd.out_names = ["t", "t1", "t2", "t3", "t4", "t5"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %sum = pd.elementwise_add %t#0, %s {pd.out_names = ["u"]} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %y = pd.relu %sum {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x3xf32>
  }
}
