// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-lower-to-artifact="print" -o /dev/null | FileCheck %s

// fused_feedforward runs as the kernels of its parts. Pre layer norm, in
// an inference program: the layer norm, the first linear with its gelu,
// no kernel for the rate-0 first dropout, the second linear, and the
// second dropout's inference form (upscale_in_train: the identity) adding
// the residual.
// CHECK-LABEL: artifact: <artifact>
// CHECK: = layer_norm(%{{[0-9]+}}, %{{[0-9]+}}, none) {begin_norm_axis = 2, epsilon = 9.9{{[0-9e-]+}}}   // fused_feedforward -> y
// CHECK-NEXT: = gemm_epilogue({{.*}}) {activation = "gelu"}   // fused_feedforward -> y
// CHECK-NEXT: = gemm_epilogue({{.*}}) {activation = "none"}   // fused_feedforward -> y
// CHECK-NEXT: = binary({{.*}}) {op = "add"}   // fused_feedforward -> y
module {
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3x4xf32>
    %w1 = pd.feed {col = 1 : i32, pd.out_names = ["w1"]} : tensor<4x8xf32>
    %b1 = pd.feed {col = 2 : i32, pd.out_names = ["b1"]} : tensor<8xf32>
    %w2 = pd.feed {col = 3 : i32, pd.out_names = ["w2"]} : tensor<8x4xf32>
    %b2 = pd.feed {col = 4 : i32, pd.out_names = ["b2"]} : tensor<4xf32>
    %s = pd.feed {col = 5 : i32, pd.out_names = ["s"]} : tensor<4xf32>
    %r:11 = pd.fused_feedforward %x, %w1, %b1, %w2, %b2, %s {pre_layer_norm = true, dropout1_rate = 0.0 : f32, dropout2_rate = 0.1 : f32, dropout2_implementation = "upscale_in_train", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0>, pd.out_names = ["y", "m1", "m2", "lm1", "lv1", "lm2", "lv2", "l1", "ln", "d1", "d2"]} : (tensor<?x3x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x3x4xf32>, tensor<?x3x8xui8>, tensor<?x3x4xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x3x8xf32>, tensor<?x3x4xf32>, tensor<?x3x8xf32>, tensor<?x3x4xf32>)
    pd.fetch %r#0 {col = 0 : i32} : tensor<?x3x4xf32>
  }
}

// -----

// Post layer norm: relu, the first dropout downgrade_in_infer (a scale by
// 1 − p), the residual added to the second linear's output, then the layer
// norm writing Out.
// CHECK-LABEL: artifact: <artifact>
// CHECK: = gemm_epilogue({{.*}}) {activation = "relu"}   // fused_feedforward -> y
// CHECK-NEXT: = scale({{.*}}) {bias = 0, bias_after_scale = 1, scale = 0.75}   // fused_feedforward -> y
// CHECK-NEXT: = gemm_epilogue({{.*}}) {activation = "none"}   // fused_feedforward -> y
// CHECK-NEXT: = binary({{.*}}) {op = "add"}   // fused_feedforward -> y
// CHECK-NEXT: = layer_norm({{.*}}   // fused_feedforward -> y
module {
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x4xf32>
    %w1 = pd.feed {col = 1 : i32, pd.out_names = ["w1"]} : tensor<4x8xf32>
    %b1 = pd.feed {col = 2 : i32, pd.out_names = ["b1"]} : tensor<8xf32>
    %w2 = pd.feed {col = 3 : i32, pd.out_names = ["w2"]} : tensor<8x4xf32>
    %b2 = pd.feed {col = 4 : i32, pd.out_names = ["b2"]} : tensor<4xf32>
    %r:11 = pd.fused_feedforward %x, %w1, %b1, %w2, %b2 {act_method = "relu", dropout1_rate = 0.25 : f32, dropout2_rate = 0.0 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, pd.out_names = ["y", "m1", "m2", "lm1", "lv1", "lm2", "lv2", "l1", "ln", "d1", "d2"]} : (tensor<?x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x8xui8>, tensor<?x4xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x4xf32>)
    pd.fetch %r#0 {col = 0 : i32} : tensor<?x4xf32>
  }
}

// -----

module {
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x4xf32>
    %w1 = pd.feed {col = 1 : i32, pd.out_names = ["w1"]} : tensor<4x8xf32>
    %w2 = pd.feed {col = 2 : i32, pd.out_names = ["w2"]} : tensor<8x4xf32>
    // expected-error @below {{needs Linear1Bias and Linear2Bias (the pass fuses linears with biases only)}}
    %r:11 = pd.fused_feedforward %x, %w1, %w2 {pre_layer_norm = true, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 0, 0, 0, 0>, pd.out_names = ["y", "m1", "m2", "lm1", "lv1", "lm2", "lv2", "l1", "ln", "d1", "d2"]} : (tensor<?x4xf32>, tensor<4x8xf32>, tensor<8x4xf32>) -> (tensor<?x4xf32>, tensor<?x8xui8>, tensor<?x4xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x4xf32>)
    pd.fetch %r#0 {col = 0 : i32} : tensor<?x4xf32>
  }
}
