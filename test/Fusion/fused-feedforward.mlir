// RUN: distc-opt %s --split-input-file --distc-fused-feedforward | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fused-feedforward=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// (The train form, with its backward, is checked end to end by
// test/e2e/fusion-transformer.test.)

// A pre-layer-norm FFN block in an inference program: layer_norm, linear,
// relu, linear, dropout, residual add. The absent first dropout has rate
// 0; the fused op keeps the replaced values' names.
// CHECK-LABEL: pd.program @predict
// CHECK: %[[OUT:[^,]*]], {{.*}} = pd.fused_feedforward %[[X:[^,]*]], %[[W1:[^,]*]], %[[B1:[^,]*]], %[[W2:[^,]*]], %[[B2:[^,]*]], %[[S:[^,]*]], %[[B:[^ ]*]]
// CHECK-SAME: act_method = "relu"
// CHECK-SAME: dropout1_rate = 0.000000e+00 : f32
// CHECK-SAME: dropout2_implementation = "upscale_in_train", dropout2_rate = 2.500000e-01 : f32, dropout2_seed_name = "d2"
// CHECK-SAME: is_test = true
// CHECK-SAME: pd.out_names = ["y", "", "d2.mask", "m", "v", "", "", "h1", "ln", "a", ""]
// CHECK-SAME: pre_layer_norm = true
// CHECK-NOT: pd.matmul_v2
// CHECK: pd.fetch %[[OUT]]
// EXPLAIN: fused_feedforward: predict: fused layer_norm (ln) + matmul_v2 (h) + elementwise_add (h1) + relu (a) + matmul_v2 (o) + elementwise_add (o1) + dropout (d2) + elementwise_add (y) into fused_feedforward
module {
  pd.program @predict attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3x4xf32>
    %s = pd.feed {col = 1 : i32, pd.out_names = ["s"]} : tensor<4xf32>
    %b = pd.feed {col = 2 : i32, pd.out_names = ["b"]} : tensor<4xf32>
    %w1 = pd.feed {col = 3 : i32, pd.out_names = ["w1"]} : tensor<4x8xf32>
    %b1 = pd.feed {col = 4 : i32, pd.out_names = ["b1"]} : tensor<8xf32>
    %w2 = pd.feed {col = 5 : i32, pd.out_names = ["w2"]} : tensor<8x4xf32>
    %b2 = pd.feed {col = 6 : i32, pd.out_names = ["b2"]} : tensor<4xf32>
    %ln, %m, %v = pd.layer_norm %x scale %s bias %b {begin_norm_axis = 2 : i32, pd.out_names = ["ln", "m", "v"]} : (tensor<?x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x3x4xf32>, tensor<?xf32>, tensor<?xf32>)
    %h = pd.matmul_v2 %ln, %w1 {pd.out_names = ["h"]} : (tensor<?x3x4xf32>, tensor<4x8xf32>) -> tensor<?x3x8xf32>
    %h1 = pd.elementwise_add %h, %b1 {axis = -1 : i32, pd.out_names = ["h1"]} : (tensor<?x3x8xf32>, tensor<8xf32>) -> tensor<?x3x8xf32>
    %a = pd.relu %h1 {pd.out_names = ["a"]} : (tensor<?x3x8xf32>) -> tensor<?x3x8xf32>
    %o = pd.matmul_v2 %a, %w2 {pd.out_names = ["o"]} : (tensor<?x3x8xf32>, tensor<8x4xf32>) -> tensor<?x3x4xf32>
    %o1 = pd.elementwise_add %o, %b2 {axis = -1 : i32, pd.out_names = ["o1"]} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
    %d2, %mask = pd.dropout %o1 {dropout_prob = 0.25 : f32, is_test = true, dropout_implementation = "upscale_in_train", pd.out_names = ["d2", "d2.mask"]} : (tensor<?x3x4xf32>) -> (tensor<?x3x4xf32>, tensor<?x3x4xui8>)
    %y = pd.elementwise_add %x, %d2 {axis = -1 : i32, pd.out_names = ["y"]} : (tensor<?x3x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x3x4xf32>
  }
}

// -----

// Left: gelu's tanh approximation, a block without dropout (Paddle's
// pattern needs one), and a block whose activation another op reads.
// CHECK-LABEL: pd.program @left
// CHECK-NOT: pd.fused_feedforward
// CHECK: }
// EXPLAIN: fused_feedforward: left: left layer_norm (ln): its gelu is the tanh approximation, which fused_feedforward does not take
// EXPLAIN: fused_feedforward: left: left layer_norm (ln2): it has no dropout (Paddle's pattern needs one)
// EXPLAIN: fused_feedforward: left: left layer_norm (ln3): a3 is read by dropout (d3) and fetch
module {
  pd.program @left attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x4xf32>
    %w1 = pd.feed {col = 1 : i32, pd.out_names = ["w1"]} : tensor<4x8xf32>
    %b1 = pd.feed {col = 2 : i32, pd.out_names = ["b1"]} : tensor<8xf32>
    %w2 = pd.feed {col = 3 : i32, pd.out_names = ["w2"]} : tensor<8x4xf32>
    %b2 = pd.feed {col = 4 : i32, pd.out_names = ["b2"]} : tensor<4xf32>
    %ln, %m, %v = pd.layer_norm %x {begin_norm_axis = 1 : i32, pd.out_names = ["ln", "m", "v"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>)
    %h = pd.matmul_v2 %ln, %w1 {pd.out_names = ["h"]} : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
    %h1 = pd.elementwise_add %h, %b1 {pd.out_names = ["h1"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %a = pd.gelu %h1 {approximate = true, pd.out_names = ["a"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %o = pd.matmul_v2 %a, %w2 {pd.out_names = ["o"]} : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
    %o1 = pd.elementwise_add %o, %b2 {pd.out_names = ["o1"]} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %d, %dm = pd.dropout %o1 {is_test = true, pd.out_names = ["d", "dm"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    pd.fetch %d {col = 0 : i32} : tensor<?x4xf32>
    %ln2, %m2, %v2 = pd.layer_norm %x {begin_norm_axis = 1 : i32, pd.out_names = ["ln2", "m2", "v2"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>)
    %h2 = pd.matmul_v2 %ln2, %w1 {pd.out_names = ["h2"]} : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
    %h21 = pd.elementwise_add %h2, %b1 {pd.out_names = ["h21"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %a2 = pd.relu %h21 {pd.out_names = ["a2"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %o2 = pd.matmul_v2 %a2, %w2 {pd.out_names = ["o2"]} : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
    %o21 = pd.elementwise_add %o2, %b2 {pd.out_names = ["o21"]} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    pd.fetch %o21 {col = 1 : i32} : tensor<?x4xf32>
    %ln3, %m3, %v3 = pd.layer_norm %x {begin_norm_axis = 1 : i32, pd.out_names = ["ln3", "m3", "v3"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?xf32>, tensor<?xf32>)
    %h3 = pd.matmul_v2 %ln3, %w1 {pd.out_names = ["h3"]} : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
    %h31 = pd.elementwise_add %h3, %b1 {pd.out_names = ["h31"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %a3 = pd.relu %h31 {pd.out_names = ["a3"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %d3, %d3m = pd.dropout %a3 {is_test = true, pd.out_names = ["d3", "d3m"]} : (tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xui8>)
    %o3 = pd.matmul_v2 %d3, %w2 {pd.out_names = ["o3"]} : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
    %o31 = pd.elementwise_add %o3, %b2 {pd.out_names = ["o31"]} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    pd.fetch %o31 {col = 2 : i32} : tensor<?x4xf32>
    pd.fetch %a3 {col = 3 : i32} : tensor<?x8xf32>
  }
}
