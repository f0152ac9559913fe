// Paddle's test_dist_transpiler.py network without an optimizer: distc's
// --optimizer adds it (and its state variables).
module {
  pd.var @fc_w persistable is_parameter : tensor<1000x1000xf32>
  pd.var @fc_b persistable is_parameter : tensor<1000xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x1000xf32>
    %y = pd.feed {col = 1 : i32, pd.out_names = ["y"]} : tensor<?x1xf32>
    %w = pd.read_var @fc_w : tensor<1000x1000xf32>
    %b = pd.read_var @fc_b : tensor<1000xf32>
    %0 = pd.mul %x, %w {pd.out_names = ["fc_0.tmp_0"]} : (tensor<?x1000xf32>, tensor<1000x1000xf32>) -> tensor<?x1000xf32>
    %1 = pd.elementwise_add %0, %b {axis = 1 : i32, pd.out_names = ["fc_0.tmp_1"]} : (tensor<?x1000xf32>, tensor<1000xf32>) -> tensor<?x1000xf32>
    %2 = pd.elementwise_sub %1, %y {pd.out_names = ["tmp_0"]} : (tensor<?x1000xf32>, tensor<?x1xf32>) -> tensor<?x1000xf32>
    %3 = pd.square %2 {pd.out_names = ["tmp_1"]} : (tensor<?x1000xf32>) -> tensor<?x1000xf32>
    %loss = pd.mean %3 {pd.out_names = ["mean_0.tmp_0"]} : (tensor<?x1000xf32>) -> tensor<f32>
    pd.fetch %loss {col = 0 : i32} : tensor<f32>
  }
  pd.program @startup {
    %b = pd.fill_constant {shape = array<i64: 1000>, value = 0.0 : f32, pd.out_names = ["fc_b"]} : () -> tensor<1000xf32>
    pd.write_var @fc_b, %b : tensor<1000xf32>
    %w = pd.uniform_random {shape = array<i64: 1000, 1000>, min = -0.0548 : f32, max = 0.0548 : f32, seed = 0 : i32, pd.out_names = ["fc_w"]} : () -> tensor<1000x1000xf32>
    pd.write_var @fc_w, %w : tensor<1000x1000xf32>
  }
}
