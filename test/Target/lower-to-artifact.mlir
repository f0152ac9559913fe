// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-lower-to-artifact="print seed=7" -o /dev/null | FileCheck %s
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-lower-to-artifact="print world-size=2" | FileCheck %s --check-prefix=MODULE

// A predict mode: kernel calls over buffers, its batch dim a symbol, and the
// predict program as the inference model. The seed of an initializer whose
// seed is 0 derives from the program seed. The module is left unchanged.
// CHECK-LABEL: artifact: <artifact>
// CHECK-NOT: world size
// CHECK: symbols:
// CHECK-NEXT: $0 = x.dim0
// CHECK: predict/trainer/main
// CHECK-NEXT: feeds: x = %[[X:[0-9]+]]
// CHECK-NEXT: %[[Y:[0-9]+]] = matmul(%[[X]], %{{[0-9]+}}) {trans_a = 0, trans_b = 0}   // mul -> y
// CHECK-NEXT: fetches: y = %[[Y]]
// CHECK: predict/trainer/startup
// CHECK-NEXT: = uniform_random() {max = 0.5, min = -0.5, seed = 8533641391475054441}
// CHECK: inference:
// CHECK-NEXT: program: {{[0-9]+}} bytes
// CHECK-NEXT: parameters: w

// MODULE-LABEL: artifact: <artifact>
// MODULE: world size: 2 ranks
// MODULE-LABEL: module {
// MODULE: pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"}
// MODULE: pd.mul
// MODULE: pd.program @predict.startup
module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    pd.fetch %y : tensor<?x3xf32>
  }
  pd.program @predict.startup attributes {pd.kind = "startup", pd.mode = "predict"} {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    pd.write_var @w, %0 : tensor<4x3xf32>
  }
}

// -----

// An eval mode alone: no inference model, the mean a reduce.
// CHECK-LABEL: artifact: <artifact>
// CHECK: eval/trainer/main
// CHECK: = reduce({{.*}}) {axes = [0, 1], op = "mean"}
// CHECK: fetches: y = %{{[0-9]+}}, loss = %{{[0-9]+}}
// CHECK-NOT: inference:
module {
  pd.program @eval.main attributes {pd.kind = "main", pd.mode = "eval"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3xf32>
    %y = pd.relu %x {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %l = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %y : tensor<?x3xf32>
    pd.fetch %l {col = 1 : i32} : tensor<f32>
  }
}

// -----

// The serial program, before distc-derive-modes, has no modes to lower.
module {
  // expected-error @below {{program has no pd.mode/pd.kind: run the distc-derive-modes pass first}}
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3xf32>
    pd.fetch %x : tensor<?x3xf32>
  }
}
