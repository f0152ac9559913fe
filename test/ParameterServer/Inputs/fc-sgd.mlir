// Paddle's test_dist_transpiler.py network (net_conf): x [1000] -> fc(1000)
// named fc_w / fc_b -> square_error_cost with y -> mean, minimized by
// SGD(0.1), as Paddle's minimize writes it: forward, backward, one sgd per
// parameter (in parameter-name order) and a startup program whose
// initializers Paddle prepends, so the learning rate's comes first.
module {
  pd.var @fc_w persistable is_parameter : tensor<1000x1000xf32>
  pd.var @fc_b persistable is_parameter : tensor<1000xf32>
  pd.var @learning_rate_0 persistable : tensor<1xf32>
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
    %seed = pd.fill_constant {op_role = 257 : i32, pd.out_names = ["mean_0.tmp_0@GRAD"], value = 1.000000e+00 : f32} : () -> tensor<f32>
    %g3 = pd.mean_grad %3, %seed {op_role = 1 : i32, pd.out_names = ["tmp_1@GRAD"]} : (tensor<?x1000xf32>, tensor<f32>) -> tensor<?x1000xf32>
    %g2 = pd.square_grad %2, %g3 {op_role = 1 : i32, pd.out_names = ["tmp_0@GRAD"]} : (tensor<?x1000xf32>, tensor<?x1000xf32>) -> tensor<?x1000xf32>
    %g1, %gy = pd.elementwise_sub_grad %1, %y, %g2 {op_role = 1 : i32, pd.out_names = ["fc_0.tmp_1@GRAD", ""]} : (tensor<?x1000xf32>, tensor<?x1xf32>, tensor<?x1000xf32>) -> (tensor<?x1000xf32>, tensor<?x1xf32>)
    %g0, %gb = pd.elementwise_add_grad %0, %b, %g1 {axis = 1 : i32, op_role = 1 : i32, pd.out_names = ["fc_0.tmp_0@GRAD", "fc_b@GRAD"]} : (tensor<?x1000xf32>, tensor<1000xf32>, tensor<?x1000xf32>) -> (tensor<?x1000xf32>, tensor<1000xf32>)
    %gx, %gw = pd.mul_grad %x, %w, %g0 {op_role = 1 : i32, pd.out_names = ["", "fc_w@GRAD"]} : (tensor<?x1000xf32>, tensor<1000x1000xf32>, tensor<?x1000xf32>) -> (tensor<?x1000xf32>, tensor<1000x1000xf32>)
    %lr = pd.read_var @learning_rate_0 : tensor<1xf32>
    %b2 = pd.sgd %b, %lr, %gb {op_role = 2 : i32, pd.out_names = ["fc_b"]} : (tensor<1000xf32>, tensor<1xf32>, tensor<1000xf32>) -> tensor<1000xf32>
    pd.write_var @fc_b, %b2 : tensor<1000xf32>
    %w2 = pd.sgd %w, %lr, %gw {op_role = 2 : i32, pd.out_names = ["fc_w"]} : (tensor<1000x1000xf32>, tensor<1xf32>, tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
    pd.write_var @fc_w, %w2 : tensor<1000x1000xf32>
  }
  pd.program @startup {
    %lr = pd.fill_constant {shape = array<i64: 1>, value = 1.000000e-01 : f32, pd.out_names = ["learning_rate_0"]} : () -> tensor<1xf32>
    pd.write_var @learning_rate_0, %lr : tensor<1xf32>
    %b = pd.fill_constant {shape = array<i64: 1000>, value = 0.0 : f32, pd.out_names = ["fc_b"]} : () -> tensor<1000xf32>
    pd.write_var @fc_b, %b : tensor<1000xf32>
    %w = pd.uniform_random {shape = array<i64: 1000, 1000>, min = -0.0548 : f32, max = 0.0548 : f32, seed = 0 : i32, pd.out_names = ["fc_w"]} : () -> tensor<1000x1000xf32>
    pd.write_var @fc_w, %w : tensor<1000x1000xf32>
  }
}
