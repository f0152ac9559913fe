// A two-layer MLP classifier in pd IR, compiled by distc and run by dist-run
// with parameters from .npy files; every output is compared with a float64
// NumPy reference.
//
// RUN: rm -rf %t && %python %S/Inputs/reference.py mlp %t
// RUN: distc %s --loss loss -o %t/mlp.distc
// RUN: dist-run %t/mlp.distc --mode predict --params %t/params --input x=@%t/x.npy \
// RUN:   --expected-output prob=@%t/prob.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=PREDICT
// RUN: dist-run %t/mlp.distc --mode eval --params %t/params --input x=@%t/x.npy \
// RUN:   --input label=@%t/label.npy --expected-output loss=@%t/loss.npy \
// RUN:   --expected-output acc=@%t/acc.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=EVAL
// The predict mode needs no label: it was pruned with the loss.
// RUN: not dist-run %t/mlp.distc --mode predict --params %t/params --input x=@%t/x.npy \
// RUN:   --input label=@%t/label.npy 2>&1 | FileCheck %s --check-prefix=EXTRA
// A batch whose label disagrees with x in size is caught before running.
// RUN: %python -c "import numpy as np; np.save('%t/label3.npy', np.zeros((3, 1), np.int64))"
// RUN: not dist-run %t/mlp.distc --mode eval --params %t/params --input x=@%t/x.npy \
// RUN:   --input label=@%t/label3.npy 2>&1 | FileCheck %s --check-prefix=BATCH

// PREDICT: prob: OK
// EVAL-DAG: loss: OK
// EVAL-DAG: acc: OK
// EXTRA: label
// BATCH: error: {{.*}}label

module {
  pd.var @fc_0.w_0 persistable is_parameter : tensor<8x16xf32>
  pd.var @fc_0.b_0 persistable is_parameter : tensor<16xf32>
  pd.var @fc_1.w_0 persistable is_parameter : tensor<16x4xf32>
  pd.var @fc_1.b_0 persistable is_parameter : tensor<4xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x8xf32>
    %label = pd.feed {col = 1 : i32, pd.out_names = ["label"]} : tensor<?x1xi64>
    %w0 = pd.read_var @fc_0.w_0 : tensor<8x16xf32>
    %b0 = pd.read_var @fc_0.b_0 : tensor<16xf32>
    %w1 = pd.read_var @fc_1.w_0 : tensor<16x4xf32>
    %b1 = pd.read_var @fc_1.b_0 : tensor<4xf32>
    %0 = pd.mul %x, %w0 {pd.out_names = ["fc_0.tmp_0"]} : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
    %1 = pd.elementwise_add %0, %b0 {axis = 1 : i32, pd.out_names = ["fc_0.tmp_1"]} : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
    %2 = pd.relu %1 {pd.out_names = ["fc_0.tmp_2"]} : (tensor<?x16xf32>) -> tensor<?x16xf32>
    %3 = pd.mul %2, %w1 {pd.out_names = ["fc_1.tmp_0"]} : (tensor<?x16xf32>, tensor<16x4xf32>) -> tensor<?x4xf32>
    %4 = pd.elementwise_add %3, %b1 {axis = 1 : i32, pd.out_names = ["logits"]} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %prob = pd.softmax %4 {pd.out_names = ["prob"]} : (tensor<?x4xf32>) -> tensor<?x4xf32>
    %sm, %xent = pd.softmax_with_cross_entropy %4, %label {pd.out_names = ["softmax_0", "xent"]} : (tensor<?x4xf32>, tensor<?x1xi64>) -> (tensor<?x4xf32>, tensor<?x1xf32>)
    %loss = pd.mean %xent {pd.out_names = ["loss"]} : (tensor<?x1xf32>) -> tensor<f32>
    %topv, %topi = pd.top_k_v2 %prob {k = 1 : i32, pd.out_names = ["top_v", "top_i"]} : (tensor<?x4xf32>) -> (tensor<?x1xf32>, tensor<?x1xi64>)
    %acc, %correct, %total = pd.accuracy %topv, %topi, %label {pd.out_names = ["acc", "correct", "total"]} : (tensor<?x1xf32>, tensor<?x1xi64>, tensor<?x1xi64>) -> (tensor<1xf32>, tensor<1xi32>, tensor<1xi32>)
    pd.fetch %prob {col = 0 : i32} : tensor<?x4xf32>
    pd.fetch %acc {col = 1 : i32} : tensor<1xf32>
  }
}
