// RUN: distc-opt %s --split-input-file --distc-fuse-elewise-add-act | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fuse-elewise-add-act=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// relu(x + b) in a train program: the forward and its backward each become
// one op; the gradient reads the fused Out.
// CHECK-LABEL: pd.program @train
// CHECK: %[[Y:.*]], %{{.*}} = pd.fused_elemwise_add_activation %[[X:.*]], %[[B:[^ ]*]]
// CHECK-SAME: functor_list = ["relu", "elementwise_add"]
// CHECK-SAME: pd.out_names = ["y", "s"]
// CHECK: %[[DX:.*]], %[[DB:.*]], %{{.*}} = pd.fused_elemwise_add_activation_grad %[[X]], %[[B]], %[[Y]], %[[DY:[^ ]*]]
// CHECK-SAME: functor_list = ["relu_grad", "elementwise_add_grad"]
// CHECK-SAME: pd.out_names = ["x@GRAD", "b@GRAD", "s@GRAD"]
// CHECK-NOT: pd.relu_grad
// CHECK-NOT: pd.elementwise_add_grad
// CHECK: pd.fetch %[[DX]]
// CHECK: pd.fetch %[[DB]]
// EXPLAIN: fuse_elewise_add_act_ops: train: fused elementwise_add (s) + relu (y) into fused_elemwise_add_activation
// EXPLAIN: fuse_elewise_add_act_ops: train: fused relu_grad (s@GRAD) + elementwise_add_grad (x@GRAD) into fused_elemwise_add_activation_grad
module {
  pd.program @train attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x8xf32>
    %b = pd.feed {pd.out_names = ["b"], col = 1 : i32} : tensor<8xf32>
    %s = pd.elementwise_add %x, %b {axis = -1 : i32, pd.out_names = ["s"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %y = pd.relu %s {pd.out_names = ["y"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %dy = pd.feed {pd.out_names = ["y@GRAD"], col = 2 : i32} : tensor<?x8xf32>
    %ds = pd.relu_grad %y, %dy {op_role = 1 : i32, pd.out_names = ["s@GRAD"]} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    %dx, %db = pd.elementwise_add_grad %x, %b, %ds {axis = -1 : i32, op_role = 1 : i32, pd.out_names = ["x@GRAD", "b@GRAD"]} : (tensor<?x8xf32>, tensor<8xf32>, tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>)
    pd.fetch %dx : tensor<?x8xf32>
    pd.fetch %db {col = 1 : i32} : tensor<8xf32>
  }
}

// -----

// x + tanh(y) at inference.
// CHECK-LABEL: pd.program @residual
// CHECK: pd.fused_elemwise_add_activation
// CHECK-SAME: functor_list = ["elementwise_add", "tanh"]
// CHECK-NOT: pd.tanh
module {
  pd.program @residual attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<4x8xf32>
    %y = pd.feed {pd.out_names = ["y"], col = 1 : i32} : tensor<4x8xf32>
    %t = pd.tanh %y {pd.out_names = ["t"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = pd.elementwise_add %x, %t {pd.out_names = ["s"]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    pd.fetch %s : tensor<4x8xf32>
  }
}

// -----

// Left: the sum is read by another op too.
// CHECK-LABEL: pd.program @left
// CHECK-NOT: pd.fused_elemwise_add_activation
// CHECK: }
module {
  pd.program @left attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<4x8xf32>
    %y = pd.feed {pd.out_names = ["y"], col = 1 : i32} : tensor<4x8xf32>
    %s = pd.elementwise_add %x, %y {pd.out_names = ["s"]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = pd.relu %s {pd.out_names = ["r"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    pd.fetch %r : tensor<4x8xf32>
    pd.fetch %s {col = 1 : i32} : tensor<4x8xf32>
  }
}
