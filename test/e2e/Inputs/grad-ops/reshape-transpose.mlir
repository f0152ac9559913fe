// reshape2 and transpose2, whose gradient ops take X's shape from XShape
// (grad-shape.test).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @reshape_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @reshape_r persistable : tensor<2x12xf32>
  pd.var @reshape_split_x persistable is_parameter : tensor<2x6xf32>
  pd.var @reshape_split_r persistable : tensor<3x2x2xf32>
  pd.var @transpose_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @transpose_r persistable : tensor<4x2x3xf32>
  pd.var @transpose_neg_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @transpose_neg_r persistable : tensor<2x4x3xf32>
  pd.program @main {
    // reshape
    %reshape_x = pd.read_var @reshape_x : tensor<2x3x4xf32>
    %reshape_o, %reshape_xs = pd.reshape2 %reshape_x {shape = array<i32: 0, -1>, pd.out_names = ["reshape_o", "reshape_xshape"]} : (tensor<2x3x4xf32>) -> (tensor<2x12xf32>, tensor<0x2x3x4xf32>)
    %reshape_r = pd.read_var @reshape_r : tensor<2x12xf32>
    %reshape_m = pd.elementwise_mul %reshape_o, %reshape_r {pd.out_names = ["reshape_m"]} : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<2x12xf32>
    %reshape_l = pd.mean %reshape_m {pd.out_names = ["reshape_l"]} : (tensor<2x12xf32>) -> tensor<f32>
    // reshape_split
    %reshape_split_x = pd.read_var @reshape_split_x : tensor<2x6xf32>
    %reshape_split_o, %reshape_split_xs = pd.reshape2 %reshape_split_x {shape = array<i32: 3, 2, 2>, pd.out_names = ["reshape_split_o", "reshape_split_xshape"]} : (tensor<2x6xf32>) -> (tensor<3x2x2xf32>, tensor<0x2x6xf32>)
    %reshape_split_r = pd.read_var @reshape_split_r : tensor<3x2x2xf32>
    %reshape_split_m = pd.elementwise_mul %reshape_split_o, %reshape_split_r {pd.out_names = ["reshape_split_m"]} : (tensor<3x2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
    %reshape_split_l = pd.mean %reshape_split_m {pd.out_names = ["reshape_split_l"]} : (tensor<3x2x2xf32>) -> tensor<f32>
    // transpose
    %transpose_x = pd.read_var @transpose_x : tensor<2x3x4xf32>
    %transpose_o, %transpose_xs = pd.transpose2 %transpose_x {axis = array<i32: 2, 0, 1>, pd.out_names = ["transpose_o", "transpose_xshape"]} : (tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<0x2x3x4xf32>)
    %transpose_r = pd.read_var @transpose_r : tensor<4x2x3xf32>
    %transpose_m = pd.elementwise_mul %transpose_o, %transpose_r {pd.out_names = ["transpose_m"]} : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
    %transpose_l = pd.mean %transpose_m {pd.out_names = ["transpose_l"]} : (tensor<4x2x3xf32>) -> tensor<f32>
    // transpose_neg
    %transpose_neg_x = pd.read_var @transpose_neg_x : tensor<2x3x4xf32>
    %transpose_neg_o, %transpose_neg_xs = pd.transpose2 %transpose_neg_x {axis = array<i32: 0, -1, -2>, pd.out_names = ["transpose_neg_o", "transpose_neg_xshape"]} : (tensor<2x3x4xf32>) -> (tensor<2x4x3xf32>, tensor<0x2x3x4xf32>)
    %transpose_neg_r = pd.read_var @transpose_neg_r : tensor<2x4x3xf32>
    %transpose_neg_m = pd.elementwise_mul %transpose_neg_o, %transpose_neg_r {pd.out_names = ["transpose_neg_m"]} : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
    %transpose_neg_l = pd.mean %transpose_neg_m {pd.out_names = ["transpose_neg_l"]} : (tensor<2x4x3xf32>) -> tensor<f32>
    %loss = pd.sum %reshape_l, %reshape_split_l, %transpose_l, %transpose_neg_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
