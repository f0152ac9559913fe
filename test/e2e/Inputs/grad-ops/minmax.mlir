// Gradient check inputs (see grad-minmax.test): elementwise_max and
// elementwise_min on equal shapes and with Y broadcast at axis 1.
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output is weighted by the persistable <case>_r, and loss = sum of
// mean(out * r). Inputs/gradcheck.py minmax writes the values and the float64
// finite-difference gradients.
module {
  pd.var @ew_max_x persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_max_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_max_r persistable : tensor<2x3xf32>
  pd.var @ew_max_mid_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_max_mid_y persistable is_parameter : tensor<3xf32>
  pd.var @ew_max_mid_r persistable : tensor<2x3x4xf32>
  pd.var @ew_min_x persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_min_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_min_r persistable : tensor<2x3xf32>
  pd.var @ew_min_mid_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_min_mid_y persistable is_parameter : tensor<3xf32>
  pd.var @ew_min_mid_r persistable : tensor<2x3x4xf32>
  pd.program @main {
    %ew_max_x = pd.read_var @ew_max_x : tensor<2x3xf32>
    %ew_max_y = pd.read_var @ew_max_y : tensor<2x3xf32>
    %ew_max_o = pd.elementwise_max %ew_max_x, %ew_max_y {pd.out_names = ["ew_max_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_max_r = pd.read_var @ew_max_r : tensor<2x3xf32>
    %ew_max_m = pd.elementwise_mul %ew_max_o, %ew_max_r {pd.out_names = ["ew_max_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_max_l = pd.mean %ew_max_m {pd.out_names = ["ew_max_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    %ew_max_mid_x = pd.read_var @ew_max_mid_x : tensor<2x3x4xf32>
    %ew_max_mid_y = pd.read_var @ew_max_mid_y : tensor<3xf32>
    %ew_max_mid_o = pd.elementwise_max %ew_max_mid_x, %ew_max_mid_y {axis = 1 : i32, pd.out_names = ["ew_max_mid_o"]} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    %ew_max_mid_r = pd.read_var @ew_max_mid_r : tensor<2x3x4xf32>
    %ew_max_mid_m = pd.elementwise_mul %ew_max_mid_o, %ew_max_mid_r {pd.out_names = ["ew_max_mid_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_max_mid_l = pd.mean %ew_max_mid_m {pd.out_names = ["ew_max_mid_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    %ew_min_x = pd.read_var @ew_min_x : tensor<2x3xf32>
    %ew_min_y = pd.read_var @ew_min_y : tensor<2x3xf32>
    %ew_min_o = pd.elementwise_min %ew_min_x, %ew_min_y {pd.out_names = ["ew_min_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_min_r = pd.read_var @ew_min_r : tensor<2x3xf32>
    %ew_min_m = pd.elementwise_mul %ew_min_o, %ew_min_r {pd.out_names = ["ew_min_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_min_l = pd.mean %ew_min_m {pd.out_names = ["ew_min_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    %ew_min_mid_x = pd.read_var @ew_min_mid_x : tensor<2x3x4xf32>
    %ew_min_mid_y = pd.read_var @ew_min_mid_y : tensor<3xf32>
    %ew_min_mid_o = pd.elementwise_min %ew_min_mid_x, %ew_min_mid_y {axis = 1 : i32, pd.out_names = ["ew_min_mid_o"]} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    %ew_min_mid_r = pd.read_var @ew_min_mid_r : tensor<2x3x4xf32>
    %ew_min_mid_m = pd.elementwise_mul %ew_min_mid_o, %ew_min_mid_r {pd.out_names = ["ew_min_mid_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_min_mid_l = pd.mean %ew_min_mid_m {pd.out_names = ["ew_min_mid_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    %loss = pd.sum %ew_max_l, %ew_max_mid_l, %ew_min_l, %ew_min_mid_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
