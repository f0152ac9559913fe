// RUN: distc-opt %s --distc-memory-optimize | FileCheck %s --check-prefix=L0
// RUN: distc-opt %s '--distc-memory-optimize=level=1 print-log=true' 2>&1 | FileCheck %s --check-prefix=L1
// RUN: distc-opt %s '--distc-memory-optimize=skip=h,t' | FileCheck %s --check-prefix=SKIP
// RUN: not distc-opt %s '--distc-memory-optimize=level=2' 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not distc-opt %s '--distc-memory-optimize=skip=nope' 2>&1 | FileCheck %s --check-prefix=NOPE

// Paddle's memory_optimize: after each op, what it read for the last time
// joins a pool (names as renamed so far); a variable defined later takes
// the name of the first pooled one of its dtype whose shape fits. The feed
// x dies at the mul, m at the relu (its last reader), the relu's h at the
// tanh, the tanh's t at the scale. Level 0 wants the same shape: t takes
// m, the scale's s takes h; the [?, 1] sum fits nothing. The fetched y and
// z keep their names; w is persistable; the startup program is left alone.
// L0-LABEL: pd.program @main
// L0: pd.relu {{.*}}pd.out_names = ["h"]
// L0: pd.tanh {{.*}}pd.out_names = ["m"]
// L0: pd.scale {{.*}}pd.out_names = ["h"]
// L0: pd.reduce_sum {{.*}}pd.out_names = ["r"]
// L0: pd.scale {{.*}}pd.out_names = ["z"]
// L0-LABEL: pd.program @startup
// L0: pd.scale {{.*}}pd.out_names = ["w2"]
// L0: pd.relu {{.*}}pd.out_names = ["w3"]

// Level 1 takes any batch-sized variable with at least as many elements:
// h takes the feed's name, and the sum takes one too.
// L1: memory_optimize: h reuses x (pool entry 0, shape [-1, 4])
// L1: memory_optimize: t reuses m (pool entry 0, shape [-1, 3])
// L1: memory_optimize: s reuses x (pool entry 0, shape [-1, 3])
// L1: memory_optimize: r reuses m (pool entry 0, shape [-1, 3])
// L1: pd.reduce_sum {{.*}}pd.out_names = ["m"]

// The skip set is neither renamed nor pooled: s takes m instead.
// SKIP: pd.relu {{.*}}pd.out_names = ["h"]
// SKIP: pd.tanh {{.*}}pd.out_names = ["t"]
// SKIP: pd.scale {{.*}}pd.out_names = ["m"]

// LEVEL: memory_optimize level 2 is neither 0 nor 1
// NOPE: skip_opt_set names 'nope', which is no variable of any program
module {
  pd.var @w persistable is_parameter : tensor<4x3xf32>
  pd.program @main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x3xf32>
    %m = pd.mul %x, %w {pd.out_names = ["m"]} : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %y = pd.sigmoid %m {pd.out_names = ["y"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %h = pd.relu %m {pd.out_names = ["h"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %t = pd.tanh %h {pd.out_names = ["t"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %s = pd.scale %t {pd.out_names = ["s"]} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %r = pd.reduce_sum %s {dim = array<i32: 1>, keep_dim = true, pd.out_names = ["r"]} : (tensor<?x3xf32>) -> tensor<?x1xf32>
    %z = pd.scale %r {pd.out_names = ["z"]} : (tensor<?x1xf32>) -> tensor<?x1xf32>
    pd.fetch %y : tensor<?x3xf32>
    pd.fetch %z {col = 1 : i32} : tensor<?x1xf32>
  }
  pd.program @startup attributes {pd.kind = "startup", pd.mode = "predict"} {
    %0 = pd.uniform_random {shape = array<i64: 4, 3>, min = -0.5 : f32, max = 0.5 : f32, pd.out_names = ["w"]} : () -> tensor<4x3xf32>
    %1 = pd.scale %0 {pd.out_names = ["w2"]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %2 = pd.relu %1 {pd.out_names = ["w3"]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    pd.write_var @w, %2 : tensor<4x3xf32>
  }
}
