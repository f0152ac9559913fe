// The rows of a data-parallel replica come from one mesh axis: feeds whose
// batch axes are split on different axes are refused, even when no op
// brings them together.
// RUN: not distc-opt %s --distc-partition 2>&1 | FileCheck %s
// CHECK: error: feeds disagree on the mesh axis that splits the batch: {{.*}}'x'{{.*}} is split on 'a', {{.*}}'y'{{.*}} on 'b'; the batch rows of a data-parallel replica come from one mesh axis

module {
  pd.mesh @mesh shape [2, 2] dim_names ["a", "b"] process_ids [0, 1, 2, 3]
  pd.program @eval.main attributes {pd.kind = "main", pd.mode = "eval"} {
    %0 = pd.feed {pd.out_names = ["x"], pd.shardings = [#pd.sharding<@mesh, [Shard(0), Replicate()]>]} : tensor<?x4xf32>
    pd.fetch %0 {pd.operand_shardings = [#pd.sharding<@mesh, [Replicate(), Replicate()]>]} : tensor<?x4xf32>
  }
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %0 = pd.feed {pd.out_names = ["y"], pd.shardings = [#pd.sharding<@mesh, [Replicate(), Shard(0)]>]} : tensor<?x4xf32>
    pd.fetch %0 {pd.operand_shardings = [#pd.sharding<@mesh, [Replicate(), Replicate()]>]} : tensor<?x4xf32>
  }
}
