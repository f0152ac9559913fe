// layer_norm with a Bias and no Scale (grad-nn.test).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @ln_b_x persistable is_parameter : tensor<2x2x3xf32>
  pd.var @ln_b_bias persistable is_parameter : tensor<3xf32>
  pd.var @ln_b_r persistable : tensor<2x2x3xf32>
  pd.program @main {
    // ln_b
    %ln_b_x = pd.read_var @ln_b_x : tensor<2x2x3xf32>
    %ln_b_bias = pd.read_var @ln_b_bias : tensor<3xf32>
    %ln_b_o, %ln_b_mean, %ln_b_var = pd.layer_norm %ln_b_x bias %ln_b_bias {begin_norm_axis = 2 : i32, pd.out_names = ["ln_b_o", "ln_b_mean", "ln_b_var"]} : (tensor<2x2x3xf32>, tensor<3xf32>) -> (tensor<2x2x3xf32>, tensor<4xf32>, tensor<4xf32>)
    %ln_b_r = pd.read_var @ln_b_r : tensor<2x2x3xf32>
    %ln_b_m = pd.elementwise_mul %ln_b_o, %ln_b_r {pd.out_names = ["ln_b_m"]} : (tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %ln_b_l = pd.mean %ln_b_m {pd.out_names = ["ln_b_l"]} : (tensor<2x2x3xf32>) -> tensor<f32>
    %loss = pd.sum %ln_b_l {pd.out_names = ["loss"]} : (tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
