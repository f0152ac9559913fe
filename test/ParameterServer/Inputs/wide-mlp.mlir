// test/e2e/mlp.mlir made wide enough for the servers to cut its weights
// into blocks (at least 2 x 8192 elements each): fc_0.w_0 8 x 2048 and
// fc_1.w_0 2048 x 8, over 8 classes (the labels use 4 of them).
module {
  pd.var @fc_0.w_0 persistable is_parameter : tensor<8x2048xf32>
  pd.var @fc_0.b_0 persistable is_parameter : tensor<2048xf32>
  pd.var @fc_1.w_0 persistable is_parameter : tensor<2048x8xf32>
  pd.var @fc_1.b_0 persistable is_parameter : tensor<8xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x8xf32>
    %label = pd.feed {col = 1 : i32, pd.out_names = ["label"]} : tensor<?x1xi64>
    %w0 = pd.read_var @fc_0.w_0 : tensor<8x2048xf32>
    %b0 = pd.read_var @fc_0.b_0 : tensor<2048xf32>
    %w1 = pd.read_var @fc_1.w_0 : tensor<2048x8xf32>
    %b1 = pd.read_var @fc_1.b_0 : tensor<8xf32>
    %0 = pd.mul %x, %w0 {pd.out_names = ["fc_0.tmp_0"]} : (tensor<?x8xf32>, tensor<8x2048xf32>) -> tensor<?x2048xf32>
    %1 = pd.elementwise_add %0, %b0 {axis = 1 : i32, pd.out_names = ["fc_0.tmp_1"]} : (tensor<?x2048xf32>, tensor<2048xf32>) -> tensor<?x2048xf32>
    %2 = pd.relu %1 {pd.out_names = ["fc_0.tmp_2"]} : (tensor<?x2048xf32>) -> tensor<?x2048xf32>
    %3 = pd.mul %2, %w1 {pd.out_names = ["fc_1.tmp_0"]} : (tensor<?x2048xf32>, tensor<2048x8xf32>) -> tensor<?x8xf32>
    %4 = pd.elementwise_add %3, %b1 {axis = 1 : i32, pd.out_names = ["logits"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %prob = pd.softmax %4 {pd.out_names = ["prob"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %sm, %xent = pd.softmax_with_cross_entropy %4, %label {pd.out_names = ["softmax_0", "xent"]} : (tensor<?x8xf32>, tensor<?x1xi64>) -> (tensor<?x8xf32>, tensor<?x1xf32>)
    %loss = pd.mean %xent {pd.out_names = ["loss"]} : (tensor<?x1xf32>) -> tensor<f32>
    %topv, %topi = pd.top_k_v2 %prob {k = 1 : i32, pd.out_names = ["top_v", "top_i"]} : (tensor<?x8xf32>) -> (tensor<?x1xf32>, tensor<?x1xi64>)
    %acc, %correct, %total = pd.accuracy %topv, %topi, %label {pd.out_names = ["acc", "correct", "total"]} : (tensor<?x1xf32>, tensor<?x1xi64>, tensor<?x1xi64>) -> (tensor<1xf32>, tensor<1xi32>, tensor<1xi32>)
    pd.fetch %prob {col = 0 : i32} : tensor<?x8xf32>
    pd.fetch %acc {col = 1 : i32} : tensor<1xf32>
  }
}
