// RUN: distc-opt %s --split-input-file --distc-fuse-gemm-epilogue | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fuse-gemm-epilogue=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// A train program: mul + bias + relu forward, and its backward, each
// become one op. The backward's ReserveSpace is relu's output.
// CHECK-LABEL: pd.program @train
// CHECK: %[[Y:.*]], %{{.*}} = pd.fused_gemm_epilogue %[[X:.*]], %[[W:.*]], %[[B:[^ ]*]]
// CHECK-SAME: activation = "relu"
// CHECK-SAME: pd.out_names = ["y", "s"]
// CHECK: %[[DX:.*]], %[[DW:.*]], %[[DB:.*]] = pd.fused_gemm_epilogue_grad %[[DY:.*]], %[[X]], %[[W]], %[[Y]]
// CHECK-SAME: activation_grad = "relu_grad"
// CHECK-SAME: op_role = 1 : i32
// CHECK-SAME: pd.out_names = ["x@GRAD", "w@GRAD", "b@GRAD"]
// CHECK-NOT: pd.relu_grad
// CHECK-NOT: pd.elementwise_add_grad
// CHECK-NOT: pd.mul_grad
// CHECK: pd.write_var @w, %[[DW]]
// CHECK: pd.write_var @b, %[[DB]]
// EXPLAIN: fuse_gemm_epilogue: train: fused mul (t) + elementwise_add (s) + relu (y) into fused_gemm_epilogue
// EXPLAIN: fuse_gemm_epilogue: train: fused relu_grad (s@GRAD) + elementwise_add_grad (t@GRAD) + mul_grad (x@GRAD) into fused_gemm_epilogue_grad
module {
  pd.var @w persistable is_parameter : tensor<4x8xf32>
  pd.var @b persistable is_parameter : tensor<8xf32>
  pd.program @train attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x8xf32>
    %b = pd.read_var @b : tensor<8xf32>
    %t = pd.mul %x, %w {pd.out_names = ["t"]} : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
    %s = pd.elementwise_add %t, %b {axis = -1 : i32, pd.out_names = ["s"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %y = pd.relu %s {pd.out_names = ["y"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %dy = pd.feed {pd.out_names = ["y@GRAD"], col = 1 : i32} : tensor<?x8xf32>
    %ds = pd.relu_grad %y, %dy {op_role = 1 : i32, pd.out_names = ["s@GRAD"]} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    %dt, %db = pd.elementwise_add_grad %t, %b, %ds {axis = -1 : i32, op_role = 1 : i32, pd.out_names = ["t@GRAD", "b@GRAD"]} : (tensor<?x8xf32>, tensor<8xf32>, tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>)
    %dx, %dw = pd.mul_grad %x, %w, %dt {op_role = 1 : i32, pd.out_names = ["x@GRAD", "w@GRAD"]} : (tensor<?x4xf32>, tensor<4x8xf32>, tensor<?x8xf32>) -> (tensor<?x4xf32>, tensor<4x8xf32>)
    pd.write_var @w, %dw : tensor<4x8xf32>
    pd.write_var @b, %db : tensor<8xf32>
    pd.fetch %y : tensor<?x8xf32>
  }
}

// -----

// Inference: matmul_v2 + bias + gelu (tanh form); the pre-activation is
// not needed.
// CHECK-LABEL: pd.program @predict
// CHECK: pd.fused_gemm_epilogue
// CHECK-SAME: activation = "gelu_tanh"
// CHECK-NOT: pd.gelu
module {
  pd.program @predict attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<2x3x4xf32>
    %w = pd.feed {pd.out_names = ["w"], col = 1 : i32} : tensor<4x8xf32>
    %b = pd.feed {pd.out_names = ["b"], col = 2 : i32} : tensor<8xf32>
    %t = pd.matmul_v2 %x, %w {pd.out_names = ["t"]} : (tensor<2x3x4xf32>, tensor<4x8xf32>) -> tensor<2x3x8xf32>
    %s = pd.elementwise_add %t, %b {pd.out_names = ["s"]} : (tensor<2x3x8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
    %y = pd.gelu %s {approximate = true, pd.out_names = ["y"]} : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    pd.fetch %y : tensor<2x3x8xf32>
  }
}

// -----

// Left: a bias aligned at axis 0, and a GEMM whose output is read twice.
// CHECK-LABEL: pd.program @left
// CHECK-NOT: pd.fused_gemm_epilogue
// CHECK: }
// EXPLAIN: fuse_gemm_epilogue: left: left matmul_v2 (t): its bias c is not a row of its output's last dim
// EXPLAIN: fuse_gemm_epilogue: left: left matmul_v2 (u): its result u is read by another op
module {
  pd.program @left attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<8x8xf32>
    %w = pd.feed {pd.out_names = ["w"], col = 1 : i32} : tensor<8x8xf32>
    %c = pd.feed {pd.out_names = ["c"], col = 2 : i32} : tensor<8xf32>
    %t = pd.matmul_v2 %x, %w {pd.out_names = ["t"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %s = pd.elementwise_add %t, %c {axis = 0 : i32, pd.out_names = ["s"]} : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
    %u = pd.matmul_v2 %x, %w {pd.out_names = ["u"]} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %v = pd.elementwise_add %u, %c {pd.out_names = ["v"]} : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
    %m = pd.mean %u {pd.out_names = ["m"]} : (tensor<8x8xf32>) -> tensor<f32>
    pd.fetch %s : tensor<8x8xf32>
    pd.fetch %v {col = 1 : i32} : tensor<8x8xf32>
    pd.fetch %m {col = 2 : i32} : tensor<f32>
  }
}
