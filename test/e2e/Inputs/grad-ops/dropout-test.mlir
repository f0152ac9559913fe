// Test-time dropout (is_test), both implementations (grad-nn.test).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @drop_x persistable is_parameter : tensor<2x3xf32>
  pd.var @drop_r persistable : tensor<2x3xf32>
  pd.var @drop_up_x persistable is_parameter : tensor<2x3xf32>
  pd.var @drop_up_r persistable : tensor<2x3xf32>
  pd.program @main {
    // drop
    %drop_x = pd.read_var @drop_x : tensor<2x3xf32>
    %drop_o, %drop_mask = pd.dropout %drop_x {dropout_prob = 2.500000e-01 : f32, is_test = true, pd.out_names = ["drop_o", "drop_mask"]} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xui8>)
    %drop_r = pd.read_var @drop_r : tensor<2x3xf32>
    %drop_m = pd.elementwise_mul %drop_o, %drop_r {pd.out_names = ["drop_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %drop_l = pd.mean %drop_m {pd.out_names = ["drop_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // drop_up
    %drop_up_x = pd.read_var @drop_up_x : tensor<2x3xf32>
    %drop_up_o, %drop_up_mask = pd.dropout %drop_up_x {dropout_prob = 2.500000e-01 : f32, is_test = true, dropout_implementation = "upscale_in_train", pd.out_names = ["drop_up_o", "drop_up_mask"]} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xui8>)
    %drop_up_r = pd.read_var @drop_up_r : tensor<2x3xf32>
    %drop_up_m = pd.elementwise_mul %drop_up_o, %drop_up_r {pd.out_names = ["drop_up_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %drop_up_l = pd.mean %drop_up_m {pd.out_names = ["drop_up_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    %loss = pd.sum %drop_l, %drop_up_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
