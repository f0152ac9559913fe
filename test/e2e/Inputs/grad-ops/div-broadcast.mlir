// A broadcast elementwise_div on its own: its gradient lowering emits
// temporaries and views while it reads shapes (grad-elementwise.test).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @div_xsmall_x persistable is_parameter : tensor<3x1xf32>
  pd.var @div_xsmall_y persistable is_parameter : tensor<2x3x4xf32>
  pd.var @div_xsmall_r persistable : tensor<2x3x4xf32>
  pd.program @main {
    // div_xsmall
    %div_xsmall_x = pd.read_var @div_xsmall_x : tensor<3x1xf32>
    %div_xsmall_y = pd.read_var @div_xsmall_y : tensor<2x3x4xf32>
    %div_xsmall_o = pd.elementwise_div %div_xsmall_x, %div_xsmall_y {axis = 1 : i32, pd.out_names = ["div_xsmall_o"]} : (tensor<3x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %div_xsmall_r = pd.read_var @div_xsmall_r : tensor<2x3x4xf32>
    %div_xsmall_m = pd.elementwise_mul %div_xsmall_o, %div_xsmall_r {pd.out_names = ["div_xsmall_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %div_xsmall_l = pd.mean %div_xsmall_m {pd.out_names = ["div_xsmall_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    %loss = pd.sum %div_xsmall_l {pd.out_names = ["loss"]} : (tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
