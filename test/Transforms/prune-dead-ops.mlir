// RUN: distc-opt %s --split-input-file --verify-diagnostics --distc-prune-dead-ops | FileCheck %s

// Fetches and variable writes are the roots; everything they do not
// transitively use goes, in every program.
// CHECK-LABEL: pd.program @main
// CHECK-NEXT: %[[X:.*]] = pd.feed
// CHECK-NEXT: %[[W:.*]] = pd.read_var @w
// CHECK-NEXT: %[[H:.*]] = pd.mul %[[X]], %[[W]]
// CHECK-NEXT: %[[Y:.*]] = pd.relu %[[H]]
// CHECK-NEXT: pd.fetch %[[Y]]
// CHECK-NEXT: }
// CHECK-LABEL: pd.program @startup
// CHECK-NEXT: %[[INIT:.*]] = pd.uniform_random
// CHECK-NEXT: pd.write_var @w, %[[INIT]]
// CHECK-NEXT: }
module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %h = pd.mul %x, %w {pd.out_names = ["h"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %y = pd.relu %h {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %t = pd.tanh %h {pd.out_names = ["t"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %m = pd.mean %t {pd.out_names = ["m"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %y : tensor<?x3xf32>
  }
  pd.program @startup {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    %1 = pd.fill_constant {shape = array<i64: 2>, value = 0.0 : f32, pd.out_names = ["unused"]} : () -> tensor<2xf32>
    pd.write_var @w, %0 : tensor<4x3xf32>
  }
}

// -----

// A variable write keeps what computes the written value, even when nothing
// is fetched; the communicator setup (c_comm_init) is kept for its effect.
// CHECK-LABEL: pd.program @startup
// CHECK-NEXT: %[[ID:.*]] = pd.c_gen_nccl_id
// CHECK-NEXT: pd.c_comm_init %[[ID]]
// CHECK-NEXT: %[[INIT:.*]] = pd.fill_constant {{.*}}["w"]
// CHECK-NEXT: %[[SCALED:.*]] = pd.scale %[[INIT]]
// CHECK-NEXT: pd.write_var @w, %[[SCALED]]
// CHECK-NEXT: }
module {
  pd.var @w persistable : tensor<2xf32>
  pd.program @startup {
    %id = pd.c_gen_nccl_id {endpoint = "", rank = -1 : i32} : () -> tensor<0xui8>
    pd.c_comm_init %id {nranks = 2 : i32, rank = -1 : i32} : (tensor<0xui8>) -> ()
    %0 = pd.fill_constant {shape = array<i64: 2>, value = 1.0 : f32, pd.out_names = ["w"]} : () -> tensor<2xf32>
    %1 = pd.scale %0 {scale = 2.0 : f32, pd.out_names = ["w"]} : (tensor<2xf32>) -> tensor<2xf32>
    %2 = pd.relu %0 {pd.out_names = ["r"]} : (tensor<2xf32>) -> tensor<2xf32>
    pd.write_var @w, %1 : tensor<2xf32>
  }
}

// -----

// A program without roots is left empty.
// CHECK-LABEL: pd.program @main
// CHECK-NEXT: }
module {
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %y = pd.relu %x {pd.out_names = ["y"]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  }
}
