// RUN: distc-opt %s --split-input-file --distc-sync-batch-norm="program=main" | FileCheck %s
// RUN: distc-opt %s --split-input-file --distc-sync-batch-norm="program=main" \
// RUN:   --distc-append-backward="program=main loss=loss" | FileCheck %s --check-prefix=BACKWARD
// RUN: not distc-opt %s --split-input-file --distc-sync-batch-norm 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTRAIN

// batch_norm in training form becomes sync_batch_norm with the same
// operands, attributes and results; with the running statistics
// (use_global_stats, or is_test without trainable_statistics) it stays.
// is_test with trainable_statistics normalizes with the batch: it turns.
// CHECK-LABEL: pd.program @main
// CHECK: %[[Y:.*]], %[[MO:.*]], %[[VO:.*]], %{{.*}}, %{{.*}}, %{{.*}} = pd.sync_batch_norm %[[X:.*]], %[[S:.*]], %[[B:.*]], %[[M:.*]], %[[V:.*]] {momentum = 8.000000e-01 : f32, pd.out_names = ["y", "bn.mean", "bn.var", "sm", "sv", "rs"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
// CHECK-NEXT: pd.write_var @bn.mean, %[[MO]]
// CHECK-NEXT: pd.write_var @bn.var, %[[VO]]
// CHECK-NEXT: pd.batch_norm %[[Y]], {{.*}} {pd.out_names = {{.*}}, use_global_stats = true}
// CHECK-NEXT: pd.batch_norm %[[Y]], {{.*}} {is_test = true, pd.out_names
// CHECK-NEXT: pd.sync_batch_norm %[[Y]], {{.*}} {is_test = true, pd.out_names = {{.*}}, trainable_statistics = true}
//
// The gradient appended after it is sync_batch_norm_grad, with its
// attributes; the other ops' gradients stay batch_norm_grad.
// BACKWARD-LABEL: pd.program @main
// BACKWARD: pd.sync_batch_norm_grad %{{.*}} {momentum = 8.000000e-01 : f32, op_role = 1 : i32
// BACKWARD-NOT: pd.sync_batch_norm_grad
// BACKWARD: {{^// -{5}$}}
//
// Without a train program there is nothing to train.
// NOTRAIN: error: sync_batch_norm needs a train mode (no program 'train.main')
module {
  pd.var @bn.w persistable is_parameter : tensor<3xf32>
  pd.var @bn.b persistable is_parameter : tensor<3xf32>
  pd.var @bn.mean persistable : tensor<3xf32>
  pd.var @bn.var persistable : tensor<3xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3xf32>
    %s = pd.read_var @bn.w : tensor<3xf32>
    %b = pd.read_var @bn.b : tensor<3xf32>
    %m = pd.read_var @bn.mean : tensor<3xf32>
    %v = pd.read_var @bn.var : tensor<3xf32>
    %y, %mo, %vo, %sm, %sv, %rs = pd.batch_norm %x, %s, %b, %m, %v {momentum = 8.000000e-01 : f32, pd.out_names = ["y", "bn.mean", "bn.var", "sm", "sv", "rs"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    pd.write_var @bn.mean, %mo : tensor<3xf32>
    pd.write_var @bn.var, %vo : tensor<3xf32>
    %g:6 = pd.batch_norm %y, %s, %b, %m, %v {use_global_stats = true, pd.out_names = ["g", "g1", "g2", "g3", "g4", "g5"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %t:6 = pd.batch_norm %y, %s, %b, %m, %v {is_test = true, pd.out_names = ["t", "t1", "t2", "t3", "t4", "t5"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %u:6 = pd.batch_norm %y, %s, %b, %m, %v {is_test = true, trainable_statistics = true, pd.out_names = ["u", "u1", "u2", "u3", "u4", "u5"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %sum = pd.sum %g#0, %t#0, %u#0 {pd.out_names = ["sum"]} : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %loss = pd.mean %sum {pd.out_names = ["loss"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %loss {col = 0 : i32} : tensor<f32>
  }
}

// -----

// Gradient ops the program already holds (Paddle's backward) turn alike:
// in training form (not is_test, not use_global_stats) only.
// CHECK-LABEL: pd.program @main
// CHECK: pd.sync_batch_norm %
// CHECK: pd.sync_batch_norm_grad %{{.*}} {op_role = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 1>, pd.out_names = ["x@GRAD", "bn.w@GRAD", "bn.b@GRAD"]}
// CHECK: pd.batch_norm_grad %{{.*}} {is_test = true,
module {
  pd.var @bn.w persistable is_parameter : tensor<3xf32>
  pd.var @bn.b persistable is_parameter : tensor<3xf32>
  pd.var @bn.mean persistable : tensor<3xf32>
  pd.var @bn.var persistable : tensor<3xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3xf32>
    %dy = pd.feed {col = 1 : i32, pd.out_names = ["y@GRAD"]} : tensor<?x3xf32>
    %s = pd.read_var @bn.w : tensor<3xf32>
    %b = pd.read_var @bn.b : tensor<3xf32>
    %m = pd.read_var @bn.mean : tensor<3xf32>
    %v = pd.read_var @bn.var : tensor<3xf32>
    %y, %mo, %vo, %sm, %sv, %rs = pd.batch_norm %x, %s, %b, %m, %v {pd.out_names = ["y", "bn.mean", "bn.var", "sm", "sv", "rs"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %dx, %ds, %db = pd.batch_norm_grad %x, %s, %b, %sm, %sv, %dy {op_role = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 1>, pd.out_names = ["x@GRAD", "bn.w@GRAD", "bn.b@GRAD"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>)
    %ex, %es, %eb = pd.batch_norm_grad %x, %s, %b, %m, %v, %sm, %sv, %dy {is_test = true, op_role = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1>, pd.out_names = ["x@GRAD2", "bn.w@GRAD2", "bn.b@GRAD2"]} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>)
    %loss = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x3xf32>) -> tensor<f32>
    pd.fetch %dx {col = 0 : i32} : tensor<?x3xf32>
    pd.fetch %ex {col = 1 : i32} : tensor<?x3xf32>
  }
}
