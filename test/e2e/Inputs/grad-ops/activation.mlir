// Gradient check inputs (see grad-activation.test): relu, sigmoid, tanh,
// sqrt, square, gelu (exact and tanh approximation), softmax on three axes,
// clip.
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @relu_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @relu_r persistable : tensor<2x3x4xf32>
  pd.var @sigmoid_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @sigmoid_r persistable : tensor<2x3x4xf32>
  pd.var @tanh_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @tanh_r persistable : tensor<2x3x4xf32>
  pd.var @sqrt_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @sqrt_r persistable : tensor<2x3x4xf32>
  pd.var @square_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @square_r persistable : tensor<2x3x4xf32>
  pd.var @gelu_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @gelu_r persistable : tensor<2x3x4xf32>
  pd.var @gelu_tanh_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @gelu_tanh_r persistable : tensor<2x3x4xf32>
  pd.var @softmax_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @softmax_r persistable : tensor<2x3x4xf32>
  pd.var @softmax_a0_x persistable is_parameter : tensor<3x4xf32>
  pd.var @softmax_a0_r persistable : tensor<3x4xf32>
  pd.var @softmax_a1_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @softmax_a1_r persistable : tensor<2x3x4xf32>
  pd.var @clip_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @clip_r persistable : tensor<2x3x4xf32>
  pd.program @main {
    // relu
    %relu_x = pd.read_var @relu_x : tensor<2x3x4xf32>
    %relu_o = pd.relu %relu_x {pd.out_names = ["relu_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %relu_r = pd.read_var @relu_r : tensor<2x3x4xf32>
    %relu_m = pd.elementwise_mul %relu_o, %relu_r {pd.out_names = ["relu_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %relu_l = pd.mean %relu_m {pd.out_names = ["relu_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // sigmoid
    %sigmoid_x = pd.read_var @sigmoid_x : tensor<2x3x4xf32>
    %sigmoid_o = pd.sigmoid %sigmoid_x {pd.out_names = ["sigmoid_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %sigmoid_r = pd.read_var @sigmoid_r : tensor<2x3x4xf32>
    %sigmoid_m = pd.elementwise_mul %sigmoid_o, %sigmoid_r {pd.out_names = ["sigmoid_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %sigmoid_l = pd.mean %sigmoid_m {pd.out_names = ["sigmoid_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // tanh
    %tanh_x = pd.read_var @tanh_x : tensor<2x3x4xf32>
    %tanh_o = pd.tanh %tanh_x {pd.out_names = ["tanh_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %tanh_r = pd.read_var @tanh_r : tensor<2x3x4xf32>
    %tanh_m = pd.elementwise_mul %tanh_o, %tanh_r {pd.out_names = ["tanh_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %tanh_l = pd.mean %tanh_m {pd.out_names = ["tanh_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // sqrt
    %sqrt_x = pd.read_var @sqrt_x : tensor<2x3x4xf32>
    %sqrt_o = pd.sqrt %sqrt_x {pd.out_names = ["sqrt_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %sqrt_r = pd.read_var @sqrt_r : tensor<2x3x4xf32>
    %sqrt_m = pd.elementwise_mul %sqrt_o, %sqrt_r {pd.out_names = ["sqrt_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %sqrt_l = pd.mean %sqrt_m {pd.out_names = ["sqrt_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // square
    %square_x = pd.read_var @square_x : tensor<2x3x4xf32>
    %square_o = pd.square %square_x {pd.out_names = ["square_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %square_r = pd.read_var @square_r : tensor<2x3x4xf32>
    %square_m = pd.elementwise_mul %square_o, %square_r {pd.out_names = ["square_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %square_l = pd.mean %square_m {pd.out_names = ["square_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // gelu
    %gelu_x = pd.read_var @gelu_x : tensor<2x3x4xf32>
    %gelu_o = pd.gelu %gelu_x {pd.out_names = ["gelu_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %gelu_r = pd.read_var @gelu_r : tensor<2x3x4xf32>
    %gelu_m = pd.elementwise_mul %gelu_o, %gelu_r {pd.out_names = ["gelu_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %gelu_l = pd.mean %gelu_m {pd.out_names = ["gelu_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // gelu_tanh
    %gelu_tanh_x = pd.read_var @gelu_tanh_x : tensor<2x3x4xf32>
    %gelu_tanh_o = pd.gelu %gelu_tanh_x {approximate = true, pd.out_names = ["gelu_tanh_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %gelu_tanh_r = pd.read_var @gelu_tanh_r : tensor<2x3x4xf32>
    %gelu_tanh_m = pd.elementwise_mul %gelu_tanh_o, %gelu_tanh_r {pd.out_names = ["gelu_tanh_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %gelu_tanh_l = pd.mean %gelu_tanh_m {pd.out_names = ["gelu_tanh_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // softmax
    %softmax_x = pd.read_var @softmax_x : tensor<2x3x4xf32>
    %softmax_o = pd.softmax %softmax_x {pd.out_names = ["softmax_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %softmax_r = pd.read_var @softmax_r : tensor<2x3x4xf32>
    %softmax_m = pd.elementwise_mul %softmax_o, %softmax_r {pd.out_names = ["softmax_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %softmax_l = pd.mean %softmax_m {pd.out_names = ["softmax_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // softmax_a0
    %softmax_a0_x = pd.read_var @softmax_a0_x : tensor<3x4xf32>
    %softmax_a0_o = pd.softmax %softmax_a0_x {axis = 0 : i32, pd.out_names = ["softmax_a0_o"]} : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %softmax_a0_r = pd.read_var @softmax_a0_r : tensor<3x4xf32>
    %softmax_a0_m = pd.elementwise_mul %softmax_a0_o, %softmax_a0_r {pd.out_names = ["softmax_a0_m"]} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %softmax_a0_l = pd.mean %softmax_a0_m {pd.out_names = ["softmax_a0_l"]} : (tensor<3x4xf32>) -> tensor<f32>
    // softmax_a1
    %softmax_a1_x = pd.read_var @softmax_a1_x : tensor<2x3x4xf32>
    %softmax_a1_o = pd.softmax %softmax_a1_x {axis = 1 : i32, pd.out_names = ["softmax_a1_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %softmax_a1_r = pd.read_var @softmax_a1_r : tensor<2x3x4xf32>
    %softmax_a1_m = pd.elementwise_mul %softmax_a1_o, %softmax_a1_r {pd.out_names = ["softmax_a1_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %softmax_a1_l = pd.mean %softmax_a1_m {pd.out_names = ["softmax_a1_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // clip
    %clip_x = pd.read_var @clip_x : tensor<2x3x4xf32>
    %clip_o = pd.clip %clip_x {min = -5.000000e-01 : f32, max = 8.000000e-01 : f32, pd.out_names = ["clip_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %clip_r = pd.read_var @clip_r : tensor<2x3x4xf32>
    %clip_m = pd.elementwise_mul %clip_o, %clip_r {pd.out_names = ["clip_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %clip_l = pd.mean %clip_m {pd.out_names = ["clip_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    %loss = pd.sum %relu_l, %sigmoid_l, %tanh_l, %sqrt_l, %square_l, %gelu_l, %gelu_tanh_l, %softmax_l, %softmax_a0_l, %softmax_a1_l, %clip_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
