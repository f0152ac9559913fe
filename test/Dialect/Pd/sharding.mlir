// RUN: distc-opt %s -split-input-file | distc-opt -split-input-file | FileCheck %s

// Meshes and shardings round trip: a 2-D mesh with names, parameters placed
// on it (the `shard_tensor` annotations of a Paddle script) and values
// carrying one sharding per result.

// CHECK-LABEL: pd.mesh @mesh shape [2, 2] dim_names ["dp", "mp"]
// CHECK: pd.mesh @pipe shape [4] process_ids [3, 2, 1, 0]
// CHECK: pd.var @fc_w persistable is_parameter {pd.sharding = #pd.sharding<@mesh, [Replicate(), Shard(1)], annotated>} : tensor<8x6xf32>
// CHECK: pd.var @fc_b persistable is_parameter {pd.sharding = #pd.sharding<@mesh, [Replicate(), Replicate()]>} : tensor<6xf32>
// CHECK-LABEL: pd.program @main {
// CHECK: pd.feed {pd.shardings = [#pd.sharding<@mesh, [Shard(0), Replicate()], annotated>]} : tensor<4x8xf32>
// CHECK: pd.feed {col = 1 : i32, pd.shardings = [#pd.sharding<@mesh, [Shard(0), Replicate()]>]} : tensor<?x8xf32>
// CHECK: pd.matmul_v2 %{{.*}}, %{{.*}} {pd.shardings = [#pd.sharding<@mesh, [Shard(0), Shard(1)]>]}
// CHECK: pd.reduce_sum %{{.*}} {{.*}}pd.shardings = [#pd.sharding<@mesh, [Partial(sum), Partial(max)]>]
pd.mesh @mesh shape [2, 2] dim_names ["dp", "mp"]
pd.mesh @pipe shape [4] process_ids [3, 2, 1, 0]
pd.var @fc_w persistable is_parameter {pd.sharding = #pd.sharding<@mesh, [Replicate(), Shard(1)], annotated>} : tensor<8x6xf32>
pd.var @fc_b persistable is_parameter {pd.sharding = #pd.sharding<@mesh, [Replicate(), Replicate()]>} : tensor<6xf32>
pd.program @main {
  %x = pd.feed {pd.shardings = [#pd.sharding<@mesh, [Shard(0), Replicate()], annotated>]} : tensor<4x8xf32>
  %batch = pd.feed {col = 1 : i32, pd.shardings = [#pd.sharding<@mesh, [Shard(0), Replicate()]>]} : tensor<?x8xf32>
  %w = pd.read_var @fc_w : tensor<8x6xf32>
  %y = pd.matmul_v2 %x, %w {pd.shardings = [#pd.sharding<@mesh, [Shard(0), Shard(1)]>]} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %s = pd.reduce_sum %y {reduce_all = true, pd.shardings = [#pd.sharding<@mesh, [Partial(), Partial(max)]>]} : (tensor<4x6xf32>) -> tensor<f32>
  pd.fetch %s : tensor<f32>
}
