// RUN: distc-opt %s --split-input-file --distc-fuse-elementwise | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fuse-elementwise=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// A bias add, relu and scale become one loop: registers 0 and 1 are x and
// the bias row (a trailing part of the loop's shape), add -> 2, relu -> 3,
// scale -> 4 with its three immediates; y is the only value read outside.
// CHECK-LABEL: pd.program @chain
// CHECK: %[[X:.*]] = pd.feed
// CHECK: %[[B:.*]] = pd.read_var @b
// CHECK-NEXT: %[[Y:.*]] = pd.fusion_group %[[X]], %[[B]]
// CHECK-SAME: code = array<i64: 0, 0, 1, -1, 6, 2, -1, -1, 17, 3, -1, 0>
// CHECK-SAME: fused = ["elementwise_add", "relu", "scale"]
// CHECK-SAME: imms = array<f64: 2.000000e+00, 5.000000e-01, 1.000000e+00>
// CHECK-SAME: outputs = array<i64: 4>
// CHECK-SAME: pd.out_names = ["y"]
// CHECK-NEXT: pd.fetch %[[Y]]
// EXPLAIN: enable_auto_fusion: chain: fused elementwise_add (h) + relu (r) + scale (y) into fusion_group
module {
  pd.var @b persistable is_parameter : tensor<8xf32>
  pd.program @chain attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x8xf32>
    %b = pd.read_var @b : tensor<8xf32>
    %h = pd.elementwise_add %x, %b {pd.out_names = ["h"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %r = pd.relu %h {pd.out_names = ["r"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %y = pd.scale %r {scale = 2.0 : f32, bias = 0.5 : f32, pd.out_names = ["y"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    pd.fetch %y : tensor<?x8xf32>
  }
}

// -----

// A value read outside the group is one more result; a read of a group
// value by another op before the next candidate ends the group there. The
// next group reads the first one's result.
// CHECK-LABEL: pd.program @outputs
// CHECK: %[[G:.*]]:2 = pd.fusion_group
// CHECK-SAME: fused = ["tanh", "sigmoid"]
// CHECK-SAME: outputs = array<i64: 1, 2>
// CHECK-SAME: pd.out_names = ["t", "s"]
// CHECK-NEXT: %[[M:.*]] = pd.mean %[[G]]#0
// CHECK-NEXT: %[[Q:.*]] = pd.fusion_group %[[G]]#1
// CHECK-SAME: fused = ["square", "relu"]
// EXPLAIN: enable_auto_fusion: outputs: fused square (q) + relu (r) into fusion_group
module {
  pd.program @outputs attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<4x8xf32>
    %t = pd.tanh %x {pd.out_names = ["t"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = pd.sigmoid %t {pd.out_names = ["s"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = pd.mean %t {pd.out_names = ["m"]} : (tensor<4x8xf32>) -> tensor<f32>
    %q = pd.square %s {pd.out_names = ["q"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = pd.relu %q {pd.out_names = ["r"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    pd.fetch %m : tensor<f32>
    pd.fetch %r {col = 1 : i32} : tensor<4x8xf32>
  }
}

// -----

// Left alone: a bias aligned at axis 1 (not at the end), an integer chain
// and a gradient chain of another op role than its forward.
// CHECK-LABEL: pd.program @left
// CHECK-NOT: pd.fusion_group
// CHECK: }
// EXPLAIN: enable_auto_fusion: left: left elementwise_add (c): operand cb [4] is aligned at axis 1, not at the end of [2, 4, 4]
// EXPLAIN: enable_auto_fusion: left: left scale (j): its result is not a float32 or float64 tensor
module {
  pd.program @left attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<2x4x4xf32>
    %cb = pd.feed {pd.out_names = ["cb"], col = 1 : i32} : tensor<4xf32>
    %r = pd.relu %x {pd.out_names = ["r"]} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %c = pd.elementwise_add %r, %cb {axis = 1 : i32, pd.out_names = ["c"]} : (tensor<2x4x4xf32>, tensor<4xf32>) -> tensor<2x4x4xf32>
    %i = pd.feed {pd.out_names = ["i"], col = 2 : i32} : tensor<4xi64>
    %j = pd.scale %i {scale = 2.0 : f32, pd.out_names = ["j"]} : (tensor<4xi64>) -> tensor<4xi64>
    %k = pd.scale %j {scale = 2.0 : f32, pd.out_names = ["k"]} : (tensor<4xi64>) -> tensor<4xi64>
    pd.fetch %c : tensor<2x4x4xf32>
    pd.fetch %k {col = 1 : i32} : tensor<4xi64>
  }
}

// -----

// A split loop: the add's result has another shape than its operand's
// loop, so it starts a loop of its own, and the explanation says why.
// CHECK-LABEL: pd.program @split
// CHECK-COUNT-2: pd.fusion_group
// EXPLAIN: enable_auto_fusion: split: fused relu (a) + scale (c) into fusion_group
// EXPLAIN: enable_auto_fusion: split: started a loop at elementwise_add (s): its result's type differs from the loop's
// EXPLAIN: enable_auto_fusion: split: fused elementwise_add (s) + relu (y) into fusion_group
module {
  pd.program @split attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<4x8xf32>
    %b = pd.feed {pd.out_names = ["b"], col = 1 : i32} : tensor<2x4x8xf32>
    %a = pd.relu %x {pd.out_names = ["a"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %c = pd.scale %a {scale = 2.0 : f32, pd.out_names = ["c"]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = pd.elementwise_add %b, %c {pd.out_names = ["s"]} : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
    %y = pd.relu %s {pd.out_names = ["y"]} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
    pd.fetch %y : tensor<2x4x8xf32>
  }
}
