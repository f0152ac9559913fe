// Parameters read straight into assign and sum: each gets its own
// <param>@GRAD (grad-copies.test).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @assign_p_x persistable is_parameter : tensor<2x3xf32>
  pd.var @assign_p_r persistable : tensor<2x3xf32>
  pd.var @sum_p_a persistable is_parameter : tensor<2x3xf32>
  pd.var @sum_p_b persistable is_parameter : tensor<2x3xf32>
  pd.var @sum_p_r persistable : tensor<2x3xf32>
  pd.program @main {
    // assign_p
    %assign_p_x = pd.read_var @assign_p_x : tensor<2x3xf32>
    %assign_p_o = pd.assign %assign_p_x {pd.out_names = ["assign_p_o"]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %assign_p_r = pd.read_var @assign_p_r : tensor<2x3xf32>
    %assign_p_m = pd.elementwise_mul %assign_p_o, %assign_p_r {pd.out_names = ["assign_p_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %assign_p_l = pd.mean %assign_p_m {pd.out_names = ["assign_p_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // sum_p
    %sum_p_a = pd.read_var @sum_p_a : tensor<2x3xf32>
    %sum_p_b = pd.read_var @sum_p_b : tensor<2x3xf32>
    %sum_p_o = pd.sum %sum_p_a, %sum_p_b, %sum_p_a {pd.out_names = ["sum_p_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %sum_p_r = pd.read_var @sum_p_r : tensor<2x3xf32>
    %sum_p_m = pd.elementwise_mul %sum_p_o, %sum_p_r {pd.out_names = ["sum_p_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %sum_p_l = pd.mean %sum_p_m {pd.out_names = ["sum_p_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    %loss = pd.sum %assign_p_l, %sum_p_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
