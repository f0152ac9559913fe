// RUN: distc-opt %s --distc-memory-optimize | FileCheck %s

// A training dropout draws its mask from a seed derived from a name: its
// output's for dropout, the seed name the fusion pass recorded for a fused
// op, else the fused op's result names. memory_optimize renames none of
// those results: a renamed one would draw other masks. The feed x dies at
// the relu; of the [?, 4] results after it only those of the fused op
// with its seed name may take x's name.
// CHECK-LABEL: pd.program @main
// CHECK: pd.relu {{.*}}pd.out_names = ["a"]
// CHECK: pd.dropout {{.*}}pd.out_names = ["d", "d.mask"]
// CHECK: pd.fused_dropout_add {{.*}}pd.out_names = ["f", "f.mask"]
// CHECK: pd.fused_dropout_add {{.*}}pd.out_names = ["x", "g.mask"]
module {
  pd.program @main attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x4xf32>
    %y = pd.feed {col = 1 : i32, pd.out_names = ["y"]} : tensor<?x4xf32>
    %a = pd.relu %x {pd.out_names = ["a"]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %d, %dm = pd.dropout %a {dropout_prob = 0.5 : f32, pd.out_names = ["d", "d.mask"]} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %f, %fm = pd.fused_dropout_add %d, %y {p = 0.5 : f32, pd.out_names = ["f", "f.mask"]} : (tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %g, %gm = pd.fused_dropout_add %f, %y {p = 0.5 : f32, seed_name = "g", pd.out_names = ["g", "g.mask"]} : (tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xui8>)
    %s = pd.reduce_sum %g {reduce_all = true, pd.out_names = ["s"]} : (tensor<?x4xf32>) -> tensor<f32>
    pd.fetch %s {col = 0 : i32} : tensor<f32>
    pd.fetch %dm {col = 1 : i32} : tensor<?x4xui8>
    pd.fetch %fm {col = 2 : i32} : tensor<?x4xui8>
    pd.fetch %gm {col = 3 : i32} : tensor<?x4xui8>
  }
}
