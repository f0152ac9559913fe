// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-append-backward="program=main loss=loss" | FileCheck %s

// A linear layer with a mean loss: the feed gets no gradient, the weight does.
// CHECK-LABEL: pd.program @main
// CHECK: %[[SEED:.*]] = pd.fill_constant {op_role = 257 : i32, pd.out_names = ["loss@GRAD"], value = 1.000000e+00 : f32}
// CHECK: %[[DY:.*]] = pd.mean_grad %{{.*}}, %[[SEED]] {op_role = 1 : i32, pd.out_names = ["y@GRAD"]}
// CHECK: pd.mul_grad %{{.*}}, %{{.*}}, %[[DY]] {op_role = 1 : i32, pd.out_names = ["", "w@GRAD"]}
module {
  pd.var @w persistable is_parameter : tensor<4x2xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x2xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %l = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x2xf32>) -> tensor<f32>
    pd.fetch %l : tensor<f32>
  }
}

// -----

// A value used twice gets the sum of both gradients, as Paddle renames them.
// CHECK-LABEL: pd.program @main
// CHECK-DAG: "h@GRAD@RENAME@block0@0"
// CHECK-DAG: "h@GRAD@RENAME@block0@1"
// CHECK: pd.sum %{{.*}}, %{{.*}} {op_role = 1 : i32, pd.out_names = ["h@GRAD"]}
// CHECK: pd.relu_grad
module {
  pd.var @w persistable is_parameter : tensor<4x4xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<2x4xf32>
    %w = pd.read_var @w : tensor<4x4xf32>
    %m = pd.mul %x, %w {pd.out_names = ["m"]} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %h = pd.relu %m {pd.out_names = ["h"]} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %s = pd.tanh %h {pd.out_names = ["s"]} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %t = pd.elementwise_mul %h, %s {pd.out_names = ["t"]} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %l = pd.mean %t {pd.out_names = ["loss"]} : (tensor<2x4xf32>) -> tensor<f32>
  }
}

// -----

// stop_gradient parameters are not trained; when nothing else is, the loss
// has nothing to differentiate.
module {
  pd.var @w persistable is_parameter stop_gradient : tensor<4x2xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x2xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    // expected-error @+1 {{loss 'loss' does not depend on any trainable parameter}}
    %l = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x2xf32>) -> tensor<f32>
  }
}

// -----

// An op without a gradient rule on the way to the loss is named.
module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<2x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    // expected-error @+1 {{no gradient rule for op 'top_k_v2' (output 'top_v')}}
    %v, %i = pd.top_k_v2 %y {k = 1 : i32, pd.out_names = ["top_v", "top_i"]} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
    %l = pd.mean %v {pd.out_names = ["loss"]} : (tensor<2x1xf32>) -> tensor<f32>
  }
}

// -----

// The loss must be a float scalar.
module {
  pd.var @w persistable is_parameter : tensor<4x2xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x2xf32>
    // expected-error @+1 {{loss 'loss' must be a float scalar, got 'tensor<?x2xf32>'}}
    %y = pd.mul %x, %w {pd.out_names = ["loss"]} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
  }
}
