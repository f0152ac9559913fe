// Gradient check inputs (see grad-copies.test): scale (bias after and
// before), cast to f64 and back, assign, and sum with a repeated operand.
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @scale_x persistable is_parameter : tensor<2x3xf32>
  pd.var @scale_r persistable : tensor<2x3xf32>
  pd.var @scale_pre_x persistable is_parameter : tensor<2x3xf32>
  pd.var @scale_pre_r persistable : tensor<2x3xf32>
  pd.var @cast_x persistable is_parameter : tensor<2x3xf32>
  pd.var @cast_r persistable : tensor<2x3xf32>
  pd.var @assign_x persistable is_parameter : tensor<2x3xf32>
  pd.var @assign_r persistable : tensor<2x3xf32>
  pd.var @sum_a persistable is_parameter : tensor<2x3xf32>
  pd.var @sum_b persistable is_parameter : tensor<2x3xf32>
  pd.var @sum_r persistable : tensor<2x3xf32>
  pd.program @main {
    // scale
    %scale_x = pd.read_var @scale_x : tensor<2x3xf32>
    %scale_o = pd.scale %scale_x {scale = 2.5 : f32, bias = 0.5 : f32, pd.out_names = ["scale_o"]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %scale_r = pd.read_var @scale_r : tensor<2x3xf32>
    %scale_m = pd.elementwise_mul %scale_o, %scale_r {pd.out_names = ["scale_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %scale_l = pd.mean %scale_m {pd.out_names = ["scale_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // scale_pre
    %scale_pre_x = pd.read_var @scale_pre_x : tensor<2x3xf32>
    %scale_pre_o = pd.scale %scale_pre_x {scale = -1.5 : f32, bias = 0.5 : f32, bias_after_scale = false, pd.out_names = ["scale_pre_o"]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %scale_pre_r = pd.read_var @scale_pre_r : tensor<2x3xf32>
    %scale_pre_m = pd.elementwise_mul %scale_pre_o, %scale_pre_r {pd.out_names = ["scale_pre_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %scale_pre_l = pd.mean %scale_pre_m {pd.out_names = ["scale_pre_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // cast
    %cast_x = pd.read_var @cast_x : tensor<2x3xf32>
    %cast_d = pd.cast %cast_x {in_dtype = 5 : i32, out_dtype = 6 : i32, pd.out_names = ["cast_d"]} : (tensor<2x3xf32>) -> tensor<2x3xf64>
    %cast_t = pd.tanh %cast_d {pd.out_names = ["cast_t"]} : (tensor<2x3xf64>) -> tensor<2x3xf64>
    %cast_o = pd.cast %cast_t {in_dtype = 6 : i32, out_dtype = 5 : i32, pd.out_names = ["cast_o"]} : (tensor<2x3xf64>) -> tensor<2x3xf32>
    %cast_r = pd.read_var @cast_r : tensor<2x3xf32>
    %cast_m = pd.elementwise_mul %cast_o, %cast_r {pd.out_names = ["cast_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %cast_l = pd.mean %cast_m {pd.out_names = ["cast_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // assign
    %assign_x = pd.read_var @assign_x : tensor<2x3xf32>
    %assign_t = pd.tanh %assign_x {pd.out_names = ["assign_t"]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %assign_o = pd.assign %assign_t {pd.out_names = ["assign_o"]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %assign_r = pd.read_var @assign_r : tensor<2x3xf32>
    %assign_m = pd.elementwise_mul %assign_o, %assign_r {pd.out_names = ["assign_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %assign_l = pd.mean %assign_m {pd.out_names = ["assign_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // sum
    %sum_a = pd.read_var @sum_a : tensor<2x3xf32>
    %sum_b = pd.read_var @sum_b : tensor<2x3xf32>
    %sum_ta = pd.tanh %sum_a {pd.out_names = ["sum_ta"]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %sum_sb = pd.square %sum_b {pd.out_names = ["sum_sb"]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %sum_o = pd.sum %sum_ta, %sum_sb, %sum_ta {pd.out_names = ["sum_o"]} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %sum_r = pd.read_var @sum_r : tensor<2x3xf32>
    %sum_m = pd.elementwise_mul %sum_o, %sum_r {pd.out_names = ["sum_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %sum_l = pd.mean %sum_m {pd.out_names = ["sum_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    %loss = pd.sum %scale_l, %scale_pre_l, %cast_l, %assign_l, %sum_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
