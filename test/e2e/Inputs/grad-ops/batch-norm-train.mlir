// batch_norm at training time (see grad-norm.test): X = d + p, with d a
// data batch and p a parameter, so that the gradient reaches X; Scale and
// Bias are parameters; the running mean and variance start at 0.5 and 2
// (the startup program) and MeanOut/VarianceOut write them back, as a
// Paddle program names the same variables for both. The loss weights Y by
// the data r.
module {
  pd.var @bnt_p persistable is_parameter : tensor<3x2x2xf32>
  pd.var @bnt_scale persistable is_parameter : tensor<3xf32>
  pd.var @bnt_bias persistable is_parameter : tensor<3xf32>
  pd.var @bnt_mean persistable : tensor<3xf32>
  pd.var @bnt_var persistable : tensor<3xf32>
  pd.program @startup {
    %m = pd.fill_constant {shape = array<i64: 3>, value = 5.000000e-01 : f32, pd.out_names = ["bnt_mean"]} : () -> tensor<3xf32>
    pd.write_var @bnt_mean, %m : tensor<3xf32>
    %v = pd.fill_constant {shape = array<i64: 3>, value = 2.000000e+00 : f32, pd.out_names = ["bnt_var"]} : () -> tensor<3xf32>
    pd.write_var @bnt_var, %v : tensor<3xf32>
  }
  pd.program @main {
    %d = pd.feed {col = 0 : i32, pd.out_names = ["d"]} : tensor<?x3x2x2xf32>
    %r = pd.feed {col = 1 : i32, pd.out_names = ["r"]} : tensor<?x3x2x2xf32>
    %p = pd.read_var @bnt_p : tensor<3x2x2xf32>
    %x = pd.elementwise_add %d, %p {pd.out_names = ["bnt_x"]} : (tensor<?x3x2x2xf32>, tensor<3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %s = pd.read_var @bnt_scale : tensor<3xf32>
    %b = pd.read_var @bnt_bias : tensor<3xf32>
    %m = pd.read_var @bnt_mean : tensor<3xf32>
    %v = pd.read_var @bnt_var : tensor<3xf32>
    %y, %mo, %vo, %sm, %sv, %rs = pd.batch_norm %x, %s, %b, %m, %v {momentum = 8.000000e-01 : f32, pd.out_names = ["bnt_y", "bnt_mean", "bnt_var", "bnt_saved_mean", "bnt_saved_var", "bnt_reserve"]} : (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    pd.write_var @bnt_mean, %mo : tensor<3xf32>
    pd.write_var @bnt_var, %vo : tensor<3xf32>
    %ym = pd.elementwise_mul %y, %r {pd.out_names = ["bnt_m"]} : (tensor<?x3x2x2xf32>, tensor<?x3x2x2xf32>) -> tensor<?x3x2x2xf32>
    %loss = pd.mean %ym {pd.out_names = ["loss"]} : (tensor<?x3x2x2xf32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
