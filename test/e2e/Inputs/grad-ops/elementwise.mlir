// Gradient check inputs (see grad-elementwise.test): elementwise_add, _sub,
// _mul and _div on equal shapes and with Paddle's `axis` broadcast of the
// lower-rank operand (trailing, axis 1, axis 0, X smaller than Y), size-1
// dims on one or both sides, and one value used twice.
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @ew_add_x persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_add_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_add_r persistable : tensor<2x3xf32>
  pd.var @ew_add_last_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_add_last_y persistable is_parameter : tensor<4xf32>
  pd.var @ew_add_last_r persistable : tensor<2x3x4xf32>
  pd.var @ew_add_mid_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_add_mid_y persistable is_parameter : tensor<3xf32>
  pd.var @ew_add_mid_r persistable : tensor<2x3x4xf32>
  pd.var @ew_add_lead_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_add_lead_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_add_lead_r persistable : tensor<2x3x4xf32>
  pd.var @ew_add_ones_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_add_ones_y persistable is_parameter : tensor<1x3x1xf32>
  pd.var @ew_add_ones_r persistable : tensor<2x3x4xf32>
  pd.var @ew_add_xsmall_x persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_add_xsmall_y persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_add_xsmall_r persistable : tensor<2x3x4xf32>
  pd.var @ew_sub_x persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_sub_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_sub_r persistable : tensor<2x3xf32>
  pd.var @ew_sub_last_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_sub_last_y persistable is_parameter : tensor<4xf32>
  pd.var @ew_sub_last_r persistable : tensor<2x3x4xf32>
  pd.var @ew_sub_mid_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_sub_mid_y persistable is_parameter : tensor<3xf32>
  pd.var @ew_sub_mid_r persistable : tensor<2x3x4xf32>
  pd.var @ew_sub_lead_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_sub_lead_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_sub_lead_r persistable : tensor<2x3x4xf32>
  pd.var @ew_sub_ones_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_sub_ones_y persistable is_parameter : tensor<1x3x1xf32>
  pd.var @ew_sub_ones_r persistable : tensor<2x3x4xf32>
  pd.var @ew_sub_xsmall_x persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_sub_xsmall_y persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_sub_xsmall_r persistable : tensor<2x3x4xf32>
  pd.var @ew_mul_x persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_mul_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_mul_r persistable : tensor<2x3xf32>
  pd.var @ew_mul_last_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_mul_last_y persistable is_parameter : tensor<4xf32>
  pd.var @ew_mul_last_r persistable : tensor<2x3x4xf32>
  pd.var @ew_mul_mid_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_mul_mid_y persistable is_parameter : tensor<3xf32>
  pd.var @ew_mul_mid_r persistable : tensor<2x3x4xf32>
  pd.var @ew_mul_lead_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_mul_lead_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_mul_lead_r persistable : tensor<2x3x4xf32>
  pd.var @ew_mul_ones_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_mul_ones_y persistable is_parameter : tensor<1x3x1xf32>
  pd.var @ew_mul_ones_r persistable : tensor<2x3x4xf32>
  pd.var @ew_mul_xsmall_x persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_mul_xsmall_y persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_mul_xsmall_r persistable : tensor<2x3x4xf32>
  pd.var @ew_div_x persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_div_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_div_r persistable : tensor<2x3xf32>
  pd.var @ew_div_last_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_div_last_y persistable is_parameter : tensor<4xf32>
  pd.var @ew_div_last_r persistable : tensor<2x3x4xf32>
  pd.var @ew_div_mid_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_div_mid_y persistable is_parameter : tensor<3xf32>
  pd.var @ew_div_mid_r persistable : tensor<2x3x4xf32>
  pd.var @ew_div_lead_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_div_lead_y persistable is_parameter : tensor<2x3xf32>
  pd.var @ew_div_lead_r persistable : tensor<2x3x4xf32>
  pd.var @ew_div_ones_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_div_ones_y persistable is_parameter : tensor<1x3x1xf32>
  pd.var @ew_div_ones_r persistable : tensor<2x3x4xf32>
  pd.var @ew_div_xsmall_x persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_div_xsmall_y persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ew_div_xsmall_r persistable : tensor<2x3x4xf32>
  pd.var @ew_add_both_x persistable is_parameter : tensor<2x1x4xf32>
  pd.var @ew_add_both_y persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_add_both_r persistable : tensor<2x3x4xf32>
  pd.var @ew_sub_both_x persistable is_parameter : tensor<2x1x4xf32>
  pd.var @ew_sub_both_y persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_sub_both_r persistable : tensor<2x3x4xf32>
  pd.var @ew_mul_both_x persistable is_parameter : tensor<2x1x4xf32>
  pd.var @ew_mul_both_y persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_mul_both_r persistable : tensor<2x3x4xf32>
  pd.var @ew_div_both_x persistable is_parameter : tensor<2x1x4xf32>
  pd.var @ew_div_both_y persistable is_parameter : tensor<3x1xf32>
  pd.var @ew_div_both_r persistable : tensor<2x3x4xf32>
  pd.var @square_by_mul_x persistable is_parameter : tensor<2x3xf32>
  pd.var @square_by_mul_r persistable : tensor<2x3xf32>
  pd.program @main {
    // ew_add
    %ew_add_x = pd.read_var @ew_add_x : tensor<2x3xf32>
    %ew_add_y = pd.read_var @ew_add_y : tensor<2x3xf32>
    %ew_add_o = pd.elementwise_add %ew_add_x, %ew_add_y {pd.out_names = ["ew_add_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_add_r = pd.read_var @ew_add_r : tensor<2x3xf32>
    %ew_add_m = pd.elementwise_mul %ew_add_o, %ew_add_r {pd.out_names = ["ew_add_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_add_l = pd.mean %ew_add_m {pd.out_names = ["ew_add_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // ew_add_last
    %ew_add_last_x = pd.read_var @ew_add_last_x : tensor<2x3x4xf32>
    %ew_add_last_y = pd.read_var @ew_add_last_y : tensor<4xf32>
    %ew_add_last_o = pd.elementwise_add %ew_add_last_x, %ew_add_last_y {pd.out_names = ["ew_add_last_o"]} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %ew_add_last_r = pd.read_var @ew_add_last_r : tensor<2x3x4xf32>
    %ew_add_last_m = pd.elementwise_mul %ew_add_last_o, %ew_add_last_r {pd.out_names = ["ew_add_last_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_add_last_l = pd.mean %ew_add_last_m {pd.out_names = ["ew_add_last_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_add_mid
    %ew_add_mid_x = pd.read_var @ew_add_mid_x : tensor<2x3x4xf32>
    %ew_add_mid_y = pd.read_var @ew_add_mid_y : tensor<3xf32>
    %ew_add_mid_o = pd.elementwise_add %ew_add_mid_x, %ew_add_mid_y {axis = 1 : i32, pd.out_names = ["ew_add_mid_o"]} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    %ew_add_mid_r = pd.read_var @ew_add_mid_r : tensor<2x3x4xf32>
    %ew_add_mid_m = pd.elementwise_mul %ew_add_mid_o, %ew_add_mid_r {pd.out_names = ["ew_add_mid_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_add_mid_l = pd.mean %ew_add_mid_m {pd.out_names = ["ew_add_mid_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_add_lead
    %ew_add_lead_x = pd.read_var @ew_add_lead_x : tensor<2x3x4xf32>
    %ew_add_lead_y = pd.read_var @ew_add_lead_y : tensor<2x3xf32>
    %ew_add_lead_o = pd.elementwise_add %ew_add_lead_x, %ew_add_lead_y {axis = 0 : i32, pd.out_names = ["ew_add_lead_o"]} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
    %ew_add_lead_r = pd.read_var @ew_add_lead_r : tensor<2x3x4xf32>
    %ew_add_lead_m = pd.elementwise_mul %ew_add_lead_o, %ew_add_lead_r {pd.out_names = ["ew_add_lead_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_add_lead_l = pd.mean %ew_add_lead_m {pd.out_names = ["ew_add_lead_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_add_ones
    %ew_add_ones_x = pd.read_var @ew_add_ones_x : tensor<2x3x4xf32>
    %ew_add_ones_y = pd.read_var @ew_add_ones_y : tensor<1x3x1xf32>
    %ew_add_ones_o = pd.elementwise_add %ew_add_ones_x, %ew_add_ones_y {pd.out_names = ["ew_add_ones_o"]} : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
    %ew_add_ones_r = pd.read_var @ew_add_ones_r : tensor<2x3x4xf32>
    %ew_add_ones_m = pd.elementwise_mul %ew_add_ones_o, %ew_add_ones_r {pd.out_names = ["ew_add_ones_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_add_ones_l = pd.mean %ew_add_ones_m {pd.out_names = ["ew_add_ones_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_add_xsmall
    %ew_add_xsmall_x = pd.read_var @ew_add_xsmall_x : tensor<3x1xf32>
    %ew_add_xsmall_y = pd.read_var @ew_add_xsmall_y : tensor<2x3x4xf32>
    %ew_add_xsmall_o = pd.elementwise_add %ew_add_xsmall_x, %ew_add_xsmall_y {axis = 1 : i32, pd.out_names = ["ew_add_xsmall_o"]} : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_add_xsmall_r = pd.read_var @ew_add_xsmall_r : tensor<2x3x4xf32>
    %ew_add_xsmall_m = pd.elementwise_mul %ew_add_xsmall_o, %ew_add_xsmall_r {pd.out_names = ["ew_add_xsmall_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_add_xsmall_l = pd.mean %ew_add_xsmall_m {pd.out_names = ["ew_add_xsmall_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_sub
    %ew_sub_x = pd.read_var @ew_sub_x : tensor<2x3xf32>
    %ew_sub_y = pd.read_var @ew_sub_y : tensor<2x3xf32>
    %ew_sub_o = pd.elementwise_sub %ew_sub_x, %ew_sub_y {pd.out_names = ["ew_sub_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_sub_r = pd.read_var @ew_sub_r : tensor<2x3xf32>
    %ew_sub_m = pd.elementwise_mul %ew_sub_o, %ew_sub_r {pd.out_names = ["ew_sub_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_sub_l = pd.mean %ew_sub_m {pd.out_names = ["ew_sub_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // ew_sub_last
    %ew_sub_last_x = pd.read_var @ew_sub_last_x : tensor<2x3x4xf32>
    %ew_sub_last_y = pd.read_var @ew_sub_last_y : tensor<4xf32>
    %ew_sub_last_o = pd.elementwise_sub %ew_sub_last_x, %ew_sub_last_y {pd.out_names = ["ew_sub_last_o"]} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_last_r = pd.read_var @ew_sub_last_r : tensor<2x3x4xf32>
    %ew_sub_last_m = pd.elementwise_mul %ew_sub_last_o, %ew_sub_last_r {pd.out_names = ["ew_sub_last_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_last_l = pd.mean %ew_sub_last_m {pd.out_names = ["ew_sub_last_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_sub_mid
    %ew_sub_mid_x = pd.read_var @ew_sub_mid_x : tensor<2x3x4xf32>
    %ew_sub_mid_y = pd.read_var @ew_sub_mid_y : tensor<3xf32>
    %ew_sub_mid_o = pd.elementwise_sub %ew_sub_mid_x, %ew_sub_mid_y {axis = 1 : i32, pd.out_names = ["ew_sub_mid_o"]} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    %ew_sub_mid_r = pd.read_var @ew_sub_mid_r : tensor<2x3x4xf32>
    %ew_sub_mid_m = pd.elementwise_mul %ew_sub_mid_o, %ew_sub_mid_r {pd.out_names = ["ew_sub_mid_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_mid_l = pd.mean %ew_sub_mid_m {pd.out_names = ["ew_sub_mid_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_sub_lead
    %ew_sub_lead_x = pd.read_var @ew_sub_lead_x : tensor<2x3x4xf32>
    %ew_sub_lead_y = pd.read_var @ew_sub_lead_y : tensor<2x3xf32>
    %ew_sub_lead_o = pd.elementwise_sub %ew_sub_lead_x, %ew_sub_lead_y {axis = 0 : i32, pd.out_names = ["ew_sub_lead_o"]} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
    %ew_sub_lead_r = pd.read_var @ew_sub_lead_r : tensor<2x3x4xf32>
    %ew_sub_lead_m = pd.elementwise_mul %ew_sub_lead_o, %ew_sub_lead_r {pd.out_names = ["ew_sub_lead_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_lead_l = pd.mean %ew_sub_lead_m {pd.out_names = ["ew_sub_lead_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_sub_ones
    %ew_sub_ones_x = pd.read_var @ew_sub_ones_x : tensor<2x3x4xf32>
    %ew_sub_ones_y = pd.read_var @ew_sub_ones_y : tensor<1x3x1xf32>
    %ew_sub_ones_o = pd.elementwise_sub %ew_sub_ones_x, %ew_sub_ones_y {pd.out_names = ["ew_sub_ones_o"]} : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
    %ew_sub_ones_r = pd.read_var @ew_sub_ones_r : tensor<2x3x4xf32>
    %ew_sub_ones_m = pd.elementwise_mul %ew_sub_ones_o, %ew_sub_ones_r {pd.out_names = ["ew_sub_ones_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_ones_l = pd.mean %ew_sub_ones_m {pd.out_names = ["ew_sub_ones_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_sub_xsmall
    %ew_sub_xsmall_x = pd.read_var @ew_sub_xsmall_x : tensor<3x1xf32>
    %ew_sub_xsmall_y = pd.read_var @ew_sub_xsmall_y : tensor<2x3x4xf32>
    %ew_sub_xsmall_o = pd.elementwise_sub %ew_sub_xsmall_x, %ew_sub_xsmall_y {axis = 1 : i32, pd.out_names = ["ew_sub_xsmall_o"]} : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_xsmall_r = pd.read_var @ew_sub_xsmall_r : tensor<2x3x4xf32>
    %ew_sub_xsmall_m = pd.elementwise_mul %ew_sub_xsmall_o, %ew_sub_xsmall_r {pd.out_names = ["ew_sub_xsmall_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_xsmall_l = pd.mean %ew_sub_xsmall_m {pd.out_names = ["ew_sub_xsmall_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_mul
    %ew_mul_x = pd.read_var @ew_mul_x : tensor<2x3xf32>
    %ew_mul_y = pd.read_var @ew_mul_y : tensor<2x3xf32>
    %ew_mul_o = pd.elementwise_mul %ew_mul_x, %ew_mul_y {pd.out_names = ["ew_mul_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_mul_r = pd.read_var @ew_mul_r : tensor<2x3xf32>
    %ew_mul_m = pd.elementwise_mul %ew_mul_o, %ew_mul_r {pd.out_names = ["ew_mul_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_mul_l = pd.mean %ew_mul_m {pd.out_names = ["ew_mul_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // ew_mul_last
    %ew_mul_last_x = pd.read_var @ew_mul_last_x : tensor<2x3x4xf32>
    %ew_mul_last_y = pd.read_var @ew_mul_last_y : tensor<4xf32>
    %ew_mul_last_o = pd.elementwise_mul %ew_mul_last_x, %ew_mul_last_y {pd.out_names = ["ew_mul_last_o"]} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_last_r = pd.read_var @ew_mul_last_r : tensor<2x3x4xf32>
    %ew_mul_last_m = pd.elementwise_mul %ew_mul_last_o, %ew_mul_last_r {pd.out_names = ["ew_mul_last_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_last_l = pd.mean %ew_mul_last_m {pd.out_names = ["ew_mul_last_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_mul_mid
    %ew_mul_mid_x = pd.read_var @ew_mul_mid_x : tensor<2x3x4xf32>
    %ew_mul_mid_y = pd.read_var @ew_mul_mid_y : tensor<3xf32>
    %ew_mul_mid_o = pd.elementwise_mul %ew_mul_mid_x, %ew_mul_mid_y {axis = 1 : i32, pd.out_names = ["ew_mul_mid_o"]} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    %ew_mul_mid_r = pd.read_var @ew_mul_mid_r : tensor<2x3x4xf32>
    %ew_mul_mid_m = pd.elementwise_mul %ew_mul_mid_o, %ew_mul_mid_r {pd.out_names = ["ew_mul_mid_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_mid_l = pd.mean %ew_mul_mid_m {pd.out_names = ["ew_mul_mid_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_mul_lead
    %ew_mul_lead_x = pd.read_var @ew_mul_lead_x : tensor<2x3x4xf32>
    %ew_mul_lead_y = pd.read_var @ew_mul_lead_y : tensor<2x3xf32>
    %ew_mul_lead_o = pd.elementwise_mul %ew_mul_lead_x, %ew_mul_lead_y {axis = 0 : i32, pd.out_names = ["ew_mul_lead_o"]} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
    %ew_mul_lead_r = pd.read_var @ew_mul_lead_r : tensor<2x3x4xf32>
    %ew_mul_lead_m = pd.elementwise_mul %ew_mul_lead_o, %ew_mul_lead_r {pd.out_names = ["ew_mul_lead_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_lead_l = pd.mean %ew_mul_lead_m {pd.out_names = ["ew_mul_lead_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_mul_ones
    %ew_mul_ones_x = pd.read_var @ew_mul_ones_x : tensor<2x3x4xf32>
    %ew_mul_ones_y = pd.read_var @ew_mul_ones_y : tensor<1x3x1xf32>
    %ew_mul_ones_o = pd.elementwise_mul %ew_mul_ones_x, %ew_mul_ones_y {pd.out_names = ["ew_mul_ones_o"]} : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
    %ew_mul_ones_r = pd.read_var @ew_mul_ones_r : tensor<2x3x4xf32>
    %ew_mul_ones_m = pd.elementwise_mul %ew_mul_ones_o, %ew_mul_ones_r {pd.out_names = ["ew_mul_ones_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_ones_l = pd.mean %ew_mul_ones_m {pd.out_names = ["ew_mul_ones_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_mul_xsmall
    %ew_mul_xsmall_x = pd.read_var @ew_mul_xsmall_x : tensor<3x1xf32>
    %ew_mul_xsmall_y = pd.read_var @ew_mul_xsmall_y : tensor<2x3x4xf32>
    %ew_mul_xsmall_o = pd.elementwise_mul %ew_mul_xsmall_x, %ew_mul_xsmall_y {axis = 1 : i32, pd.out_names = ["ew_mul_xsmall_o"]} : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_xsmall_r = pd.read_var @ew_mul_xsmall_r : tensor<2x3x4xf32>
    %ew_mul_xsmall_m = pd.elementwise_mul %ew_mul_xsmall_o, %ew_mul_xsmall_r {pd.out_names = ["ew_mul_xsmall_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_xsmall_l = pd.mean %ew_mul_xsmall_m {pd.out_names = ["ew_mul_xsmall_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_div
    %ew_div_x = pd.read_var @ew_div_x : tensor<2x3xf32>
    %ew_div_y = pd.read_var @ew_div_y : tensor<2x3xf32>
    %ew_div_o = pd.elementwise_div %ew_div_x, %ew_div_y {pd.out_names = ["ew_div_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_div_r = pd.read_var @ew_div_r : tensor<2x3xf32>
    %ew_div_m = pd.elementwise_mul %ew_div_o, %ew_div_r {pd.out_names = ["ew_div_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %ew_div_l = pd.mean %ew_div_m {pd.out_names = ["ew_div_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // ew_div_last
    %ew_div_last_x = pd.read_var @ew_div_last_x : tensor<2x3x4xf32>
    %ew_div_last_y = pd.read_var @ew_div_last_y : tensor<4xf32>
    %ew_div_last_o = pd.elementwise_div %ew_div_last_x, %ew_div_last_y {pd.out_names = ["ew_div_last_o"]} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %ew_div_last_r = pd.read_var @ew_div_last_r : tensor<2x3x4xf32>
    %ew_div_last_m = pd.elementwise_mul %ew_div_last_o, %ew_div_last_r {pd.out_names = ["ew_div_last_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_div_last_l = pd.mean %ew_div_last_m {pd.out_names = ["ew_div_last_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_div_mid
    %ew_div_mid_x = pd.read_var @ew_div_mid_x : tensor<2x3x4xf32>
    %ew_div_mid_y = pd.read_var @ew_div_mid_y : tensor<3xf32>
    %ew_div_mid_o = pd.elementwise_div %ew_div_mid_x, %ew_div_mid_y {axis = 1 : i32, pd.out_names = ["ew_div_mid_o"]} : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
    %ew_div_mid_r = pd.read_var @ew_div_mid_r : tensor<2x3x4xf32>
    %ew_div_mid_m = pd.elementwise_mul %ew_div_mid_o, %ew_div_mid_r {pd.out_names = ["ew_div_mid_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_div_mid_l = pd.mean %ew_div_mid_m {pd.out_names = ["ew_div_mid_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_div_lead
    %ew_div_lead_x = pd.read_var @ew_div_lead_x : tensor<2x3x4xf32>
    %ew_div_lead_y = pd.read_var @ew_div_lead_y : tensor<2x3xf32>
    %ew_div_lead_o = pd.elementwise_div %ew_div_lead_x, %ew_div_lead_y {axis = 0 : i32, pd.out_names = ["ew_div_lead_o"]} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
    %ew_div_lead_r = pd.read_var @ew_div_lead_r : tensor<2x3x4xf32>
    %ew_div_lead_m = pd.elementwise_mul %ew_div_lead_o, %ew_div_lead_r {pd.out_names = ["ew_div_lead_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_div_lead_l = pd.mean %ew_div_lead_m {pd.out_names = ["ew_div_lead_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_div_ones
    %ew_div_ones_x = pd.read_var @ew_div_ones_x : tensor<2x3x4xf32>
    %ew_div_ones_y = pd.read_var @ew_div_ones_y : tensor<1x3x1xf32>
    %ew_div_ones_o = pd.elementwise_div %ew_div_ones_x, %ew_div_ones_y {pd.out_names = ["ew_div_ones_o"]} : (tensor<2x3x4xf32>, tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
    %ew_div_ones_r = pd.read_var @ew_div_ones_r : tensor<2x3x4xf32>
    %ew_div_ones_m = pd.elementwise_mul %ew_div_ones_o, %ew_div_ones_r {pd.out_names = ["ew_div_ones_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_div_ones_l = pd.mean %ew_div_ones_m {pd.out_names = ["ew_div_ones_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_div_xsmall
    %ew_div_xsmall_x = pd.read_var @ew_div_xsmall_x : tensor<3x1xf32>
    %ew_div_xsmall_y = pd.read_var @ew_div_xsmall_y : tensor<2x3x4xf32>
    %ew_div_xsmall_o = pd.elementwise_div %ew_div_xsmall_x, %ew_div_xsmall_y {axis = 1 : i32, pd.out_names = ["ew_div_xsmall_o"]} : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_div_xsmall_r = pd.read_var @ew_div_xsmall_r : tensor<2x3x4xf32>
    %ew_div_xsmall_m = pd.elementwise_mul %ew_div_xsmall_o, %ew_div_xsmall_r {pd.out_names = ["ew_div_xsmall_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_div_xsmall_l = pd.mean %ew_div_xsmall_m {pd.out_names = ["ew_div_xsmall_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_add_both
    %ew_add_both_x = pd.read_var @ew_add_both_x : tensor<2x1x4xf32>
    %ew_add_both_y = pd.read_var @ew_add_both_y : tensor<3x1xf32>
    %ew_add_both_o = pd.elementwise_add %ew_add_both_x, %ew_add_both_y {pd.out_names = ["ew_add_both_o"]} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %ew_add_both_r = pd.read_var @ew_add_both_r : tensor<2x3x4xf32>
    %ew_add_both_m = pd.elementwise_mul %ew_add_both_o, %ew_add_both_r {pd.out_names = ["ew_add_both_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_add_both_l = pd.mean %ew_add_both_m {pd.out_names = ["ew_add_both_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_sub_both
    %ew_sub_both_x = pd.read_var @ew_sub_both_x : tensor<2x1x4xf32>
    %ew_sub_both_y = pd.read_var @ew_sub_both_y : tensor<3x1xf32>
    %ew_sub_both_o = pd.elementwise_sub %ew_sub_both_x, %ew_sub_both_y {pd.out_names = ["ew_sub_both_o"]} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %ew_sub_both_r = pd.read_var @ew_sub_both_r : tensor<2x3x4xf32>
    %ew_sub_both_m = pd.elementwise_mul %ew_sub_both_o, %ew_sub_both_r {pd.out_names = ["ew_sub_both_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_sub_both_l = pd.mean %ew_sub_both_m {pd.out_names = ["ew_sub_both_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_mul_both
    %ew_mul_both_x = pd.read_var @ew_mul_both_x : tensor<2x1x4xf32>
    %ew_mul_both_y = pd.read_var @ew_mul_both_y : tensor<3x1xf32>
    %ew_mul_both_o = pd.elementwise_mul %ew_mul_both_x, %ew_mul_both_y {pd.out_names = ["ew_mul_both_o"]} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %ew_mul_both_r = pd.read_var @ew_mul_both_r : tensor<2x3x4xf32>
    %ew_mul_both_m = pd.elementwise_mul %ew_mul_both_o, %ew_mul_both_r {pd.out_names = ["ew_mul_both_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_mul_both_l = pd.mean %ew_mul_both_m {pd.out_names = ["ew_mul_both_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ew_div_both
    %ew_div_both_x = pd.read_var @ew_div_both_x : tensor<2x1x4xf32>
    %ew_div_both_y = pd.read_var @ew_div_both_y : tensor<3x1xf32>
    %ew_div_both_o = pd.elementwise_div %ew_div_both_x, %ew_div_both_y {pd.out_names = ["ew_div_both_o"]} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %ew_div_both_r = pd.read_var @ew_div_both_r : tensor<2x3x4xf32>
    %ew_div_both_m = pd.elementwise_mul %ew_div_both_o, %ew_div_both_r {pd.out_names = ["ew_div_both_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ew_div_both_l = pd.mean %ew_div_both_m {pd.out_names = ["ew_div_both_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // square_by_mul
    %square_by_mul_x = pd.read_var @square_by_mul_x : tensor<2x3xf32>
    %square_by_mul_o = pd.elementwise_mul %square_by_mul_x, %square_by_mul_x {pd.out_names = ["square_by_mul_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %square_by_mul_r = pd.read_var @square_by_mul_r : tensor<2x3xf32>
    %square_by_mul_m = pd.elementwise_mul %square_by_mul_o, %square_by_mul_r {pd.out_names = ["square_by_mul_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %square_by_mul_l = pd.mean %square_by_mul_m {pd.out_names = ["square_by_mul_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    %loss = pd.sum %ew_add_l, %ew_add_last_l, %ew_add_mid_l, %ew_add_lead_l, %ew_add_ones_l, %ew_add_xsmall_l, %ew_sub_l, %ew_sub_last_l, %ew_sub_mid_l, %ew_sub_lead_l, %ew_sub_ones_l, %ew_sub_xsmall_l, %ew_mul_l, %ew_mul_last_l, %ew_mul_mid_l, %ew_mul_lead_l, %ew_mul_ones_l, %ew_mul_xsmall_l, %ew_div_l, %ew_div_last_l, %ew_div_mid_l, %ew_div_lead_l, %ew_div_ones_l, %ew_div_xsmall_l, %ew_add_both_l, %ew_sub_both_l, %ew_mul_both_l, %ew_div_both_l, %square_by_mul_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
