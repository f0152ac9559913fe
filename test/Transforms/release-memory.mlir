// RUN: distc-opt %s --distc-release-memory | FileCheck %s
// RUN: distc-opt %s '--distc-release-memory=skip=h,z' \
// RUN:   | FileCheck %s --check-prefix=SKIP

// Paddle's release_memory: after the op that reads a variable for the last
// time, one delete_var of what that op was the last to read, in the order
// it reads them. Persistable variables (w), the fetched y and rank-0
// values (m) stay; so do the variables of the skip set.
// CHECK-LABEL: pd.program @main
// CHECK-NEXT: %[[X:.*]] = pd.feed
// CHECK-NEXT: %[[W:.*]] = pd.read_var @w
// CHECK-NEXT: %[[H:.*]] = pd.mul %[[X]], %[[W]]
// CHECK-NEXT: pd.delete_var %[[X]] :
// CHECK-NEXT: %[[Y:.*]] = pd.relu %[[H]]
// CHECK-NEXT: %[[Z:.*]] = pd.tanh %[[H]]
// CHECK-NEXT: %[[S:.*]] = pd.elementwise_add %[[Z]], %[[H]]
// CHECK-NEXT: pd.delete_var %[[Z]], %[[H]] :
// CHECK-NEXT: %[[M:.*]] = pd.mean %[[S]]
// CHECK-NEXT: pd.delete_var %[[S]] :
// CHECK-NEXT: pd.fetch %[[Y]]
// CHECK-NEXT: pd.fetch %[[M]]
// CHECK-NEXT: {{^ *}}}{{$}}
// The startup program is left alone.
// CHECK-LABEL: pd.program @startup
// CHECK-NOT: delete_var
// CHECK: }

// SKIP-LABEL: pd.program @main
// SKIP: pd.mul
// SKIP-NEXT: pd.delete_var %{{[0-9a-z_]+}} :
// SKIP: pd.elementwise_add
// SKIP-NOT: pd.delete_var
// SKIP: pd.mean
// SKIP-NEXT: pd.delete_var %{{[0-9a-z_]+}} :
module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.program @main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %h = pd.mul %x, %w {pd.out_names = ["h"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %y = pd.relu %h {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %z = pd.tanh %h {pd.out_names = ["z"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %s = pd.elementwise_add %z, %h {pd.out_names = ["s"]} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %m = pd.mean %s {pd.out_names = ["m"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %y : tensor<?x3xf32>
    pd.fetch %m {col = 1 : i32} : tensor<f32>
  }
  pd.program @startup attributes {pd.kind = "startup", pd.mode = "predict"} {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    %1 = pd.scale %0 {pd.out_names = ["w2"]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    pd.write_var @w, %1 : tensor<4x3xf32>
  }
}
