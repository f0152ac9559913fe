// An MLP classifier with batch_norm in training form between its layers
// (see data-parallel-batch-norm.test): x [N, 16] -> fc -> batch_norm over
// [N, 8] (channel axis 1) -> relu -> fc -> softmax_with_cross_entropy ->
// mean. The running mean and variance are written back through MeanOut and
// VarianceOut, as a Paddle program names the same variables for both.
module {
  pd.var @fc_0.w_0 persistable is_parameter : tensor<16x8xf32>
  pd.var @fc_0.b_0 persistable is_parameter : tensor<8xf32>
  pd.var @bn.w persistable is_parameter : tensor<8xf32>
  pd.var @bn.b persistable is_parameter : tensor<8xf32>
  pd.var @bn.mean persistable : tensor<8xf32>
  pd.var @bn.var persistable : tensor<8xf32>
  pd.var @fc_1.w_0 persistable is_parameter : tensor<8x4xf32>
  pd.var @fc_1.b_0 persistable is_parameter : tensor<4xf32>
  pd.program @startup {
    %m = pd.fill_constant {shape = array<i64: 8>, value = 0.000000e+00 : f32, pd.out_names = ["bn.mean"]} : () -> tensor<8xf32>
    pd.write_var @bn.mean, %m : tensor<8xf32>
    %v = pd.fill_constant {shape = array<i64: 8>, value = 1.000000e+00 : f32, pd.out_names = ["bn.var"]} : () -> tensor<8xf32>
    pd.write_var @bn.var, %v : tensor<8xf32>
  }
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x16xf32>
    %label = pd.feed {col = 1 : i32, pd.out_names = ["label"]} : tensor<?x1xi64>
    %w0 = pd.read_var @fc_0.w_0 : tensor<16x8xf32>
    %b0 = pd.read_var @fc_0.b_0 : tensor<8xf32>
    %0 = pd.mul %x, %w0 {pd.out_names = ["fc_0.tmp_0"]} : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
    %1 = pd.elementwise_add %0, %b0 {axis = 1 : i32, pd.out_names = ["fc_0.tmp_1"]} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %s = pd.read_var @bn.w : tensor<8xf32>
    %b = pd.read_var @bn.b : tensor<8xf32>
    %m = pd.read_var @bn.mean : tensor<8xf32>
    %v = pd.read_var @bn.var : tensor<8xf32>
    %y, %mo, %vo, %sm, %sv, %rs = pd.batch_norm %1, %s, %b, %m, %v {momentum = 8.000000e-01 : f32, pd.out_names = ["bn.tmp_0", "bn.mean", "bn.var", "bn.tmp_1", "bn.tmp_2", "bn.tmp_3"]} : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<?xui8>)
    pd.write_var @bn.mean, %mo : tensor<8xf32>
    pd.write_var @bn.var, %vo : tensor<8xf32>
    %2 = pd.relu %y {pd.out_names = ["relu_0.tmp_0"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
    %w1 = pd.read_var @fc_1.w_0 : tensor<8x4xf32>
    %b1 = pd.read_var @fc_1.b_0 : tensor<4xf32>
    %3 = pd.mul %2, %w1 {pd.out_names = ["fc_1.tmp_0"]} : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
    %4 = pd.elementwise_add %3, %b1 {axis = 1 : i32, pd.out_names = ["logits"]} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %sm2, %xent = pd.softmax_with_cross_entropy %4, %label {pd.out_names = ["softmax_0", "xent"]} : (tensor<?x4xf32>, tensor<?x1xi64>) -> (tensor<?x4xf32>, tensor<?x1xf32>)
    %loss = pd.mean %xent {pd.out_names = ["loss"]} : (tensor<?x1xf32>) -> tensor<f32>
    pd.fetch %loss {col = 0 : i32} : tensor<f32>
  }
}
