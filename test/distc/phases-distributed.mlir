// The phases after modes: distributed (data parallelism) and optimized
// (BuildStrategy), each stopping where --compile-to names it.
//
// RUN: distc %s --loss loss --optimizer sgd --nranks 2 --compile-to=modes | FileCheck %s --check-prefix=MODES
// RUN: distc %s --loss loss --optimizer sgd --nranks 2 --compile-to=distributed | FileCheck %s --check-prefix=DIST
// RUN: distc %s --loss loss --optimizer sgd --nranks 2 --fuse-all-reduce --compile-to=distributed | FileCheck %s --check-prefix=DIST
// RUN: distc %s --loss loss --optimizer sgd --nranks 2 --fuse-all-reduce --compile-to=optimized | FileCheck %s --check-prefix=OPT
// RUN: distc %s --loss loss --optimizer sgd --nranks 2 --fuse-all-reduce --emit=program-json --mode train | FileCheck %s --check-prefix=JSON
// RUN: not distc %s --compile-to=lowered 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The train program is differentiated and optimized, not yet distributed.
// MODES-LABEL: pd.program @train.main
// MODES: pd.mul_grad
// MODES-NOT: pd.c_allreduce_sum
// MODES: pd.sgd

// Every gradient all-reduced on its own, nothing fused yet.
// DIST-LABEL: pd.program @train.main
// DIST-NOT: pd.coalesce_tensor
// DIST: pd.c_allreduce_sum
// DIST-NOT: pd.coalesce_tensor
// DIST: pd.sgd

// OPT-LABEL: pd.program @train.main
// OPT: pd.coalesce_tensor
// OPT: pd.c_allreduce_sum
// OPT: pd.sgd

// --emit prints the last phase that holds programs: the planned one (the optimized programs, with the memory passes).
// JSON: "type": "coalesce_tensor"

// UNKNOWN: --compile-to: lowered not in {import,modes,sharded,distributed,optimized,planned,artifact}

module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.var @b persistable is_parameter : tensor<3xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %b = pd.read_var @b : tensor<3xf32>
    %h = pd.mul %x, %w {pd.out_names = ["h"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %y = pd.elementwise_add %h, %b {axis = 1 : i32, pd.out_names = ["y"]} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %loss = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
  pd.program @startup {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    pd.write_var @w, %0 : tensor<4x3xf32>
    %1 = pd.fill_constant {shape = array<i64: 3>, value = 0.0 : f32, pd.out_names = ["b"]} : () -> tensor<3xf32>
    pd.write_var @b, %1 : tensor<3xf32>
  }
}
