// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-derive-modes="loss=loss" | FileCheck %s
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-derive-modes="loss=loss train=true" | FileCheck %s --check-prefix=TRAIN

// A forward program with a loss. predict fetches the program's output,
// pruned of the loss (and of the unused tanh); eval fetches the output and
// the loss. Each startup program keeps only the initializers of variables
// its main program reads. train fetches the scalar loss alone and keeps
// what computes it.
// CHECK-LABEL: pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"}
// CHECK-NOT: pd.tanh
// CHECK-NOT: pd.mean
// CHECK: %[[Y:.*]] = pd.relu {{.*}}["y"]
// CHECK-NEXT: pd.fetch %[[Y]] : tensor<?x3xf32>
// CHECK-NEXT: }
// CHECK-LABEL: pd.program @eval.main attributes {pd.kind = "main", pd.mode = "eval"}
// CHECK-NOT: pd.tanh
// CHECK: %[[Y:.*]] = pd.relu {{.*}}["y"]
// CHECK-NEXT: %[[L:.*]] = pd.mean %[[Y]] {{.*}}["loss"]
// CHECK-NEXT: pd.fetch %[[Y]] : tensor<?x3xf32>
// CHECK-NEXT: pd.fetch %[[L]] {col = 1 : i32} : tensor<f32>
// CHECK-LABEL: pd.program @predict.startup attributes {pd.kind = "startup", pd.mode = "predict"}
// CHECK-NEXT: pd.uniform_random {{.*}}["w"]
// CHECK-NEXT: pd.write_var @w
// CHECK-NEXT: }
// CHECK-LABEL: pd.program @eval.startup attributes {pd.kind = "startup", pd.mode = "eval"}
// CHECK-NOT: @unused
// CHECK: }

// TRAIN-LABEL: pd.program @train.main attributes {pd.kind = "main", pd.mode = "train"}
// TRAIN-NOT: pd.tanh
// TRAIN: %[[L:.*]] = pd.mean {{.*}}["loss"]
// TRAIN-NEXT: pd.fetch %[[L]] : tensor<f32>
// TRAIN-NEXT: }
// TRAIN-LABEL: pd.program @predict.main
// TRAIN-LABEL: pd.program @eval.main
// TRAIN-LABEL: pd.program @train.startup attributes {pd.kind = "startup", pd.mode = "train"}
// TRAIN-NEXT: pd.uniform_random {{.*}}["w"]
// TRAIN-NEXT: pd.write_var @w
// TRAIN-NEXT: }
module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.var @unused persistable : tensor<2xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %h = pd.mul %x, %w {pd.out_names = ["h"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %y = pd.relu %h {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %t = pd.tanh %h {pd.out_names = ["t"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %l = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %y : tensor<?x3xf32>
  }
  pd.program @startup {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    pd.write_var @w, %0 : tensor<4x3xf32>
    %1 = pd.fill_constant {shape = array<i64: 2>, value = 0.0 : f32, pd.out_names = ["unused"]} : () -> tensor<2xf32>
    pd.write_var @unused, %1 : tensor<2xf32>
  }
}

// -----

// What a label feed reaches (softmax_with_cross_entropy's Label slot) is a
// metric, not a prediction: predict keeps only the relu and needs no label.
// eval fetches everything; train fetches the scalar fetches and the loss.
// CHECK-LABEL: pd.program @predict.main
// CHECK-NOT: ["label"]
// CHECK: %[[P:.*]] = pd.relu {{.*}}["p"]
// CHECK-NEXT: pd.fetch %[[P]] : tensor<?x10xf32>
// CHECK-NEXT: }
// CHECK-LABEL: pd.program @eval.main
// CHECK: pd.fetch %{{.*}} : tensor<?x10xf32>
// CHECK-NEXT: pd.fetch %{{.*}} {col = 1 : i32} : tensor<?x1xf32>
// CHECK-NEXT: pd.fetch %{{.*}} {col = 2 : i32} : tensor<f32>
// CHECK-NEXT: }

// TRAIN-LABEL: pd.program @train.main
// TRAIN-NOT: pd.relu
// TRAIN: %[[L:.*]] = pd.mean {{.*}}["loss"]
// TRAIN-NEXT: pd.fetch %[[L]] : tensor<f32>
// TRAIN-NEXT: }
module {
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x10xf32>
    %label = pd.feed {pd.out_names = ["label"]} : tensor<?x1xi64>
    %p = pd.relu %x {pd.out_names = ["p"]} : (tensor<?x10xf32>) -> tensor<?x10xf32>
    %sm, %ce = pd.softmax_with_cross_entropy %x, %label {pd.out_names = ["sm", "ce"]} : (tensor<?x10xf32>, tensor<?x1xi64>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
    %l = pd.mean %ce {pd.out_names = ["loss"]} : (tensor<?x1xf32>) -> tensor<f32>
    pd.fetch %p : tensor<?x10xf32>
    pd.fetch %ce : tensor<?x1xf32>
    pd.fetch %l : tensor<f32>
  }
}

// -----

// A program that fetches only the loss and a metric has no predict mode.
// CHECK-NOT: @predict.main
// CHECK-LABEL: pd.program @eval.main
// CHECK: pd.fetch %{{.*}} : tensor<?x1xf32>
module {
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x10xf32>
    %label = pd.feed {pd.out_names = ["label"]} : tensor<?x1xi64>
    %sm, %ce = pd.softmax_with_cross_entropy %x, %label {pd.out_names = ["sm", "ce"]} : (tensor<?x10xf32>, tensor<?x1xi64>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
    %l = pd.mean %ce {pd.out_names = ["loss"]} : (tensor<?x1xf32>) -> tensor<f32>
    pd.fetch %ce : tensor<?x1xf32>
    pd.fetch %l : tensor<f32>
  }
}

// -----

// expected-error @below {{no 'pd.program @main' to derive modes from}}
module {
  pd.program @start {
  }
}

// -----

module {
  // expected-error @below {{loss variable 'loss' is not defined by the main program}}
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    pd.fetch %x : tensor<?x4xf32>
  }
}

// -----

module {
  // expected-error @below {{loss variable 'loss' must be a scalar, but has type 'tensor<?x4xf32>'}}
  pd.program @main {
    %x = pd.feed {pd.out_names = ["loss"]} : tensor<?x4xf32>
    pd.fetch %x : tensor<?x4xf32>
  }
}
