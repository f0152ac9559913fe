// Gradient check inputs (see grad-reduction.test): reduce_sum and
// reduce_mean over listed (also negative) dims, keep_dim, reduce_all and the
// default dim, and mean.
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @sum_d1_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @sum_d1_r persistable : tensor<2x4xf32>
  pd.var @sum_keep_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @sum_keep_r persistable : tensor<2x3x1xf32>
  pd.var @sum_d02_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @sum_d02_r persistable : tensor<3xf32>
  pd.var @sum_all_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @sum_all_r persistable : tensor<f32>
  pd.var @sum_dflt_x persistable is_parameter : tensor<3x4xf32>
  pd.var @sum_dflt_r persistable : tensor<4xf32>
  pd.var @mean_d1_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mean_d1_r persistable : tensor<2x4xf32>
  pd.var @mean_keep_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mean_keep_r persistable : tensor<1x3x1xf32>
  pd.var @mean_d02_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mean_d02_r persistable : tensor<3xf32>
  pd.var @mean_all_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mean_all_r persistable : tensor<f32>
  pd.var @mean_allk_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mean_allk_r persistable : tensor<1x1x1xf32>
  pd.var @mean_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mean_r persistable : tensor<f32>
  pd.program @main {
    // sum_d1
    %sum_d1_x = pd.read_var @sum_d1_x : tensor<2x3x4xf32>
    %sum_d1_o = pd.reduce_sum %sum_d1_x {dim = array<i32: 1>, pd.out_names = ["sum_d1_o"]} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
    %sum_d1_r = pd.read_var @sum_d1_r : tensor<2x4xf32>
    %sum_d1_m = pd.elementwise_mul %sum_d1_o, %sum_d1_r {pd.out_names = ["sum_d1_m"]} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %sum_d1_l = pd.mean %sum_d1_m {pd.out_names = ["sum_d1_l"]} : (tensor<2x4xf32>) -> tensor<f32>
    // sum_keep
    %sum_keep_x = pd.read_var @sum_keep_x : tensor<2x3x4xf32>
    %sum_keep_o = pd.reduce_sum %sum_keep_x {dim = array<i32: -1>, keep_dim = true, pd.out_names = ["sum_keep_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
    %sum_keep_r = pd.read_var @sum_keep_r : tensor<2x3x1xf32>
    %sum_keep_m = pd.elementwise_mul %sum_keep_o, %sum_keep_r {pd.out_names = ["sum_keep_m"]} : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
    %sum_keep_l = pd.mean %sum_keep_m {pd.out_names = ["sum_keep_l"]} : (tensor<2x3x1xf32>) -> tensor<f32>
    // sum_d02
    %sum_d02_x = pd.read_var @sum_d02_x : tensor<2x3x4xf32>
    %sum_d02_o = pd.reduce_sum %sum_d02_x {dim = array<i32: 0, 2>, pd.out_names = ["sum_d02_o"]} : (tensor<2x3x4xf32>) -> tensor<3xf32>
    %sum_d02_r = pd.read_var @sum_d02_r : tensor<3xf32>
    %sum_d02_m = pd.elementwise_mul %sum_d02_o, %sum_d02_r {pd.out_names = ["sum_d02_m"]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %sum_d02_l = pd.mean %sum_d02_m {pd.out_names = ["sum_d02_l"]} : (tensor<3xf32>) -> tensor<f32>
    // sum_all
    %sum_all_x = pd.read_var @sum_all_x : tensor<2x3x4xf32>
    %sum_all_o = pd.reduce_sum %sum_all_x {reduce_all = true, pd.out_names = ["sum_all_o"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    %sum_all_r = pd.read_var @sum_all_r : tensor<f32>
    %sum_all_m = pd.elementwise_mul %sum_all_o, %sum_all_r {pd.out_names = ["sum_all_m"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %sum_all_l = pd.mean %sum_all_m {pd.out_names = ["sum_all_l"]} : (tensor<f32>) -> tensor<f32>
    // sum_dflt
    %sum_dflt_x = pd.read_var @sum_dflt_x : tensor<3x4xf32>
    %sum_dflt_o = pd.reduce_sum %sum_dflt_x {pd.out_names = ["sum_dflt_o"]} : (tensor<3x4xf32>) -> tensor<4xf32>
    %sum_dflt_r = pd.read_var @sum_dflt_r : tensor<4xf32>
    %sum_dflt_m = pd.elementwise_mul %sum_dflt_o, %sum_dflt_r {pd.out_names = ["sum_dflt_m"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %sum_dflt_l = pd.mean %sum_dflt_m {pd.out_names = ["sum_dflt_l"]} : (tensor<4xf32>) -> tensor<f32>
    // mean_d1
    %mean_d1_x = pd.read_var @mean_d1_x : tensor<2x3x4xf32>
    %mean_d1_o = pd.reduce_mean %mean_d1_x {dim = array<i32: 1>, pd.out_names = ["mean_d1_o"]} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
    %mean_d1_r = pd.read_var @mean_d1_r : tensor<2x4xf32>
    %mean_d1_m = pd.elementwise_mul %mean_d1_o, %mean_d1_r {pd.out_names = ["mean_d1_m"]} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %mean_d1_l = pd.mean %mean_d1_m {pd.out_names = ["mean_d1_l"]} : (tensor<2x4xf32>) -> tensor<f32>
    // mean_keep
    %mean_keep_x = pd.read_var @mean_keep_x : tensor<2x3x4xf32>
    %mean_keep_o = pd.reduce_mean %mean_keep_x {dim = array<i32: -1, 0>, keep_dim = true, pd.out_names = ["mean_keep_o"]} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
    %mean_keep_r = pd.read_var @mean_keep_r : tensor<1x3x1xf32>
    %mean_keep_m = pd.elementwise_mul %mean_keep_o, %mean_keep_r {pd.out_names = ["mean_keep_m"]} : (tensor<1x3x1xf32>, tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
    %mean_keep_l = pd.mean %mean_keep_m {pd.out_names = ["mean_keep_l"]} : (tensor<1x3x1xf32>) -> tensor<f32>
    // mean_d02
    %mean_d02_x = pd.read_var @mean_d02_x : tensor<2x3x4xf32>
    %mean_d02_o = pd.reduce_mean %mean_d02_x {dim = array<i32: 0, 2>, pd.out_names = ["mean_d02_o"]} : (tensor<2x3x4xf32>) -> tensor<3xf32>
    %mean_d02_r = pd.read_var @mean_d02_r : tensor<3xf32>
    %mean_d02_m = pd.elementwise_mul %mean_d02_o, %mean_d02_r {pd.out_names = ["mean_d02_m"]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %mean_d02_l = pd.mean %mean_d02_m {pd.out_names = ["mean_d02_l"]} : (tensor<3xf32>) -> tensor<f32>
    // mean_all
    %mean_all_x = pd.read_var @mean_all_x : tensor<2x3x4xf32>
    %mean_all_o = pd.reduce_mean %mean_all_x {reduce_all = true, pd.out_names = ["mean_all_o"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    %mean_all_r = pd.read_var @mean_all_r : tensor<f32>
    %mean_all_m = pd.elementwise_mul %mean_all_o, %mean_all_r {pd.out_names = ["mean_all_m"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %mean_all_l = pd.mean %mean_all_m {pd.out_names = ["mean_all_l"]} : (tensor<f32>) -> tensor<f32>
    // mean_allk
    %mean_allk_x = pd.read_var @mean_allk_x : tensor<2x3x4xf32>
    %mean_allk_o = pd.reduce_mean %mean_allk_x {keep_dim = true, reduce_all = true, pd.out_names = ["mean_allk_o"]} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
    %mean_allk_r = pd.read_var @mean_allk_r : tensor<1x1x1xf32>
    %mean_allk_m = pd.elementwise_mul %mean_allk_o, %mean_allk_r {pd.out_names = ["mean_allk_m"]} : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
    %mean_allk_l = pd.mean %mean_allk_m {pd.out_names = ["mean_allk_l"]} : (tensor<1x1x1xf32>) -> tensor<f32>
    // mean
    %mean_x = pd.read_var @mean_x : tensor<2x3x4xf32>
    %mean_o = pd.mean %mean_x {pd.out_names = ["mean_o"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    %mean_r = pd.read_var @mean_r : tensor<f32>
    %mean_m = pd.elementwise_mul %mean_o, %mean_r {pd.out_names = ["mean_m"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %mean_l = pd.mean %mean_m {pd.out_names = ["mean_l"]} : (tensor<f32>) -> tensor<f32>
    %loss = pd.sum %sum_d1_l, %sum_keep_l, %sum_d02_l, %sum_all_l, %sum_dflt_l, %mean_d1_l, %mean_keep_l, %mean_d02_l, %mean_all_l, %mean_allk_l, %mean_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
