// Gradient check inputs (see grad-linalg.test): mul with x_num_col_dims /
// y_num_col_dims flattening, matmul_v2 with every trans_x/trans_y pair on
// 2-D and same-batch 3-D and 4-D operands, and a 2-D Y shared by a batched X.
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @mul_x persistable is_parameter : tensor<3x4xf32>
  pd.var @mul_y persistable is_parameter : tensor<4x2xf32>
  pd.var @mul_r persistable : tensor<3x2xf32>
  pd.var @mul_flat_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mul_flat_y persistable is_parameter : tensor<2x2x5xf32>
  pd.var @mul_flat_r persistable : tensor<2x3x5xf32>
  pd.var @mul_x1_x persistable is_parameter : tensor<2x3x2xf32>
  pd.var @mul_x1_y persistable is_parameter : tensor<6x2x2xf32>
  pd.var @mul_x1_r persistable : tensor<2x2x2xf32>
  pd.var @mm_nn_x persistable is_parameter : tensor<3x4xf32>
  pd.var @mm_nn_y persistable is_parameter : tensor<4x2xf32>
  pd.var @mm_nn_r persistable : tensor<3x2xf32>
  pd.var @bmm_nn_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @bmm_nn_y persistable is_parameter : tensor<2x4x5xf32>
  pd.var @bmm_nn_r persistable : tensor<2x3x5xf32>
  pd.var @mm_nt_x persistable is_parameter : tensor<3x4xf32>
  pd.var @mm_nt_y persistable is_parameter : tensor<2x4xf32>
  pd.var @mm_nt_r persistable : tensor<3x2xf32>
  pd.var @bmm_nt_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @bmm_nt_y persistable is_parameter : tensor<2x5x4xf32>
  pd.var @bmm_nt_r persistable : tensor<2x3x5xf32>
  pd.var @mm_tn_x persistable is_parameter : tensor<4x3xf32>
  pd.var @mm_tn_y persistable is_parameter : tensor<4x2xf32>
  pd.var @mm_tn_r persistable : tensor<3x2xf32>
  pd.var @bmm_tn_x persistable is_parameter : tensor<2x4x3xf32>
  pd.var @bmm_tn_y persistable is_parameter : tensor<2x4x5xf32>
  pd.var @bmm_tn_r persistable : tensor<2x3x5xf32>
  pd.var @mm_tt_x persistable is_parameter : tensor<4x3xf32>
  pd.var @mm_tt_y persistable is_parameter : tensor<2x4xf32>
  pd.var @mm_tt_r persistable : tensor<3x2xf32>
  pd.var @bmm_tt_x persistable is_parameter : tensor<2x4x3xf32>
  pd.var @bmm_tt_y persistable is_parameter : tensor<2x5x4xf32>
  pd.var @bmm_tt_r persistable : tensor<2x3x5xf32>
  pd.var @bmm4_x persistable is_parameter : tensor<2x2x3x2xf32>
  pd.var @bmm4_y persistable is_parameter : tensor<2x2x2x3xf32>
  pd.var @bmm4_r persistable : tensor<2x2x3x3xf32>
  pd.var @bmm4_tt_x persistable is_parameter : tensor<2x2x2x3xf32>
  pd.var @bmm4_tt_y persistable is_parameter : tensor<2x2x3x2xf32>
  pd.var @bmm4_tt_r persistable : tensor<2x2x3x3xf32>
  pd.var @mm_w_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mm_w_y persistable is_parameter : tensor<4x5xf32>
  pd.var @mm_w_r persistable : tensor<2x3x5xf32>
  pd.var @mm_wt_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mm_wt_y persistable is_parameter : tensor<5x4xf32>
  pd.var @mm_wt_r persistable : tensor<2x3x5xf32>
  pd.program @main {
    // mul
    %mul_x = pd.read_var @mul_x : tensor<3x4xf32>
    %mul_y = pd.read_var @mul_y : tensor<4x2xf32>
    %mul_o = pd.mul %mul_x, %mul_y {pd.out_names = ["mul_o"]} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %mul_r = pd.read_var @mul_r : tensor<3x2xf32>
    %mul_m = pd.elementwise_mul %mul_o, %mul_r {pd.out_names = ["mul_m"]} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %mul_l = pd.mean %mul_m {pd.out_names = ["mul_l"]} : (tensor<3x2xf32>) -> tensor<f32>
    // mul_flat
    %mul_flat_x = pd.read_var @mul_flat_x : tensor<2x3x4xf32>
    %mul_flat_y = pd.read_var @mul_flat_y : tensor<2x2x5xf32>
    %mul_flat_o = pd.mul %mul_flat_x, %mul_flat_y {x_num_col_dims = 2 : i32, y_num_col_dims = 2 : i32, pd.out_names = ["mul_flat_o"]} : (tensor<2x3x4xf32>, tensor<2x2x5xf32>) -> tensor<2x3x5xf32>
    %mul_flat_r = pd.read_var @mul_flat_r : tensor<2x3x5xf32>
    %mul_flat_m = pd.elementwise_mul %mul_flat_o, %mul_flat_r {pd.out_names = ["mul_flat_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %mul_flat_l = pd.mean %mul_flat_m {pd.out_names = ["mul_flat_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    // mul_x1
    %mul_x1_x = pd.read_var @mul_x1_x : tensor<2x3x2xf32>
    %mul_x1_y = pd.read_var @mul_x1_y : tensor<6x2x2xf32>
    %mul_x1_o = pd.mul %mul_x1_x, %mul_x1_y {pd.out_names = ["mul_x1_o"]} : (tensor<2x3x2xf32>, tensor<6x2x2xf32>) -> tensor<2x2x2xf32>
    %mul_x1_r = pd.read_var @mul_x1_r : tensor<2x2x2xf32>
    %mul_x1_m = pd.elementwise_mul %mul_x1_o, %mul_x1_r {pd.out_names = ["mul_x1_m"]} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
    %mul_x1_l = pd.mean %mul_x1_m {pd.out_names = ["mul_x1_l"]} : (tensor<2x2x2xf32>) -> tensor<f32>
    // mm_nn
    %mm_nn_x = pd.read_var @mm_nn_x : tensor<3x4xf32>
    %mm_nn_y = pd.read_var @mm_nn_y : tensor<4x2xf32>
    %mm_nn_o = pd.matmul_v2 %mm_nn_x, %mm_nn_y {pd.out_names = ["mm_nn_o"]} : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %mm_nn_r = pd.read_var @mm_nn_r : tensor<3x2xf32>
    %mm_nn_m = pd.elementwise_mul %mm_nn_o, %mm_nn_r {pd.out_names = ["mm_nn_m"]} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %mm_nn_l = pd.mean %mm_nn_m {pd.out_names = ["mm_nn_l"]} : (tensor<3x2xf32>) -> tensor<f32>
    // bmm_nn
    %bmm_nn_x = pd.read_var @bmm_nn_x : tensor<2x3x4xf32>
    %bmm_nn_y = pd.read_var @bmm_nn_y : tensor<2x4x5xf32>
    %bmm_nn_o = pd.matmul_v2 %bmm_nn_x, %bmm_nn_y {pd.out_names = ["bmm_nn_o"]} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %bmm_nn_r = pd.read_var @bmm_nn_r : tensor<2x3x5xf32>
    %bmm_nn_m = pd.elementwise_mul %bmm_nn_o, %bmm_nn_r {pd.out_names = ["bmm_nn_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %bmm_nn_l = pd.mean %bmm_nn_m {pd.out_names = ["bmm_nn_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    // mm_nt
    %mm_nt_x = pd.read_var @mm_nt_x : tensor<3x4xf32>
    %mm_nt_y = pd.read_var @mm_nt_y : tensor<2x4xf32>
    %mm_nt_o = pd.matmul_v2 %mm_nt_x, %mm_nt_y {trans_y = true, pd.out_names = ["mm_nt_o"]} : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
    %mm_nt_r = pd.read_var @mm_nt_r : tensor<3x2xf32>
    %mm_nt_m = pd.elementwise_mul %mm_nt_o, %mm_nt_r {pd.out_names = ["mm_nt_m"]} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %mm_nt_l = pd.mean %mm_nt_m {pd.out_names = ["mm_nt_l"]} : (tensor<3x2xf32>) -> tensor<f32>
    // bmm_nt
    %bmm_nt_x = pd.read_var @bmm_nt_x : tensor<2x3x4xf32>
    %bmm_nt_y = pd.read_var @bmm_nt_y : tensor<2x5x4xf32>
    %bmm_nt_o = pd.matmul_v2 %bmm_nt_x, %bmm_nt_y {trans_y = true, pd.out_names = ["bmm_nt_o"]} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
    %bmm_nt_r = pd.read_var @bmm_nt_r : tensor<2x3x5xf32>
    %bmm_nt_m = pd.elementwise_mul %bmm_nt_o, %bmm_nt_r {pd.out_names = ["bmm_nt_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %bmm_nt_l = pd.mean %bmm_nt_m {pd.out_names = ["bmm_nt_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    // mm_tn
    %mm_tn_x = pd.read_var @mm_tn_x : tensor<4x3xf32>
    %mm_tn_y = pd.read_var @mm_tn_y : tensor<4x2xf32>
    %mm_tn_o = pd.matmul_v2 %mm_tn_x, %mm_tn_y {trans_x = true, pd.out_names = ["mm_tn_o"]} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %mm_tn_r = pd.read_var @mm_tn_r : tensor<3x2xf32>
    %mm_tn_m = pd.elementwise_mul %mm_tn_o, %mm_tn_r {pd.out_names = ["mm_tn_m"]} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %mm_tn_l = pd.mean %mm_tn_m {pd.out_names = ["mm_tn_l"]} : (tensor<3x2xf32>) -> tensor<f32>
    // bmm_tn
    %bmm_tn_x = pd.read_var @bmm_tn_x : tensor<2x4x3xf32>
    %bmm_tn_y = pd.read_var @bmm_tn_y : tensor<2x4x5xf32>
    %bmm_tn_o = pd.matmul_v2 %bmm_tn_x, %bmm_tn_y {trans_x = true, pd.out_names = ["bmm_tn_o"]} : (tensor<2x4x3xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %bmm_tn_r = pd.read_var @bmm_tn_r : tensor<2x3x5xf32>
    %bmm_tn_m = pd.elementwise_mul %bmm_tn_o, %bmm_tn_r {pd.out_names = ["bmm_tn_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %bmm_tn_l = pd.mean %bmm_tn_m {pd.out_names = ["bmm_tn_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    // mm_tt
    %mm_tt_x = pd.read_var @mm_tt_x : tensor<4x3xf32>
    %mm_tt_y = pd.read_var @mm_tt_y : tensor<2x4xf32>
    %mm_tt_o = pd.matmul_v2 %mm_tt_x, %mm_tt_y {trans_x = true, trans_y = true, pd.out_names = ["mm_tt_o"]} : (tensor<4x3xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
    %mm_tt_r = pd.read_var @mm_tt_r : tensor<3x2xf32>
    %mm_tt_m = pd.elementwise_mul %mm_tt_o, %mm_tt_r {pd.out_names = ["mm_tt_m"]} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %mm_tt_l = pd.mean %mm_tt_m {pd.out_names = ["mm_tt_l"]} : (tensor<3x2xf32>) -> tensor<f32>
    // bmm_tt
    %bmm_tt_x = pd.read_var @bmm_tt_x : tensor<2x4x3xf32>
    %bmm_tt_y = pd.read_var @bmm_tt_y : tensor<2x5x4xf32>
    %bmm_tt_o = pd.matmul_v2 %bmm_tt_x, %bmm_tt_y {trans_x = true, trans_y = true, pd.out_names = ["bmm_tt_o"]} : (tensor<2x4x3xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
    %bmm_tt_r = pd.read_var @bmm_tt_r : tensor<2x3x5xf32>
    %bmm_tt_m = pd.elementwise_mul %bmm_tt_o, %bmm_tt_r {pd.out_names = ["bmm_tt_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %bmm_tt_l = pd.mean %bmm_tt_m {pd.out_names = ["bmm_tt_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    // bmm4
    %bmm4_x = pd.read_var @bmm4_x : tensor<2x2x3x2xf32>
    %bmm4_y = pd.read_var @bmm4_y : tensor<2x2x2x3xf32>
    %bmm4_o = pd.matmul_v2 %bmm4_x, %bmm4_y {pd.out_names = ["bmm4_o"]} : (tensor<2x2x3x2xf32>, tensor<2x2x2x3xf32>) -> tensor<2x2x3x3xf32>
    %bmm4_r = pd.read_var @bmm4_r : tensor<2x2x3x3xf32>
    %bmm4_m = pd.elementwise_mul %bmm4_o, %bmm4_r {pd.out_names = ["bmm4_m"]} : (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
    %bmm4_l = pd.mean %bmm4_m {pd.out_names = ["bmm4_l"]} : (tensor<2x2x3x3xf32>) -> tensor<f32>
    // bmm4_tt
    %bmm4_tt_x = pd.read_var @bmm4_tt_x : tensor<2x2x2x3xf32>
    %bmm4_tt_y = pd.read_var @bmm4_tt_y : tensor<2x2x3x2xf32>
    %bmm4_tt_o = pd.matmul_v2 %bmm4_tt_x, %bmm4_tt_y {trans_x = true, trans_y = true, pd.out_names = ["bmm4_tt_o"]} : (tensor<2x2x2x3xf32>, tensor<2x2x3x2xf32>) -> tensor<2x2x3x3xf32>
    %bmm4_tt_r = pd.read_var @bmm4_tt_r : tensor<2x2x3x3xf32>
    %bmm4_tt_m = pd.elementwise_mul %bmm4_tt_o, %bmm4_tt_r {pd.out_names = ["bmm4_tt_m"]} : (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
    %bmm4_tt_l = pd.mean %bmm4_tt_m {pd.out_names = ["bmm4_tt_l"]} : (tensor<2x2x3x3xf32>) -> tensor<f32>
    // mm_w
    %mm_w_x = pd.read_var @mm_w_x : tensor<2x3x4xf32>
    %mm_w_y = pd.read_var @mm_w_y : tensor<4x5xf32>
    %mm_w_o = pd.matmul_v2 %mm_w_x, %mm_w_y {pd.out_names = ["mm_w_o"]} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    %mm_w_r = pd.read_var @mm_w_r : tensor<2x3x5xf32>
    %mm_w_m = pd.elementwise_mul %mm_w_o, %mm_w_r {pd.out_names = ["mm_w_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %mm_w_l = pd.mean %mm_w_m {pd.out_names = ["mm_w_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    // mm_wt
    %mm_wt_x = pd.read_var @mm_wt_x : tensor<2x3x4xf32>
    %mm_wt_y = pd.read_var @mm_wt_y : tensor<5x4xf32>
    %mm_wt_o = pd.matmul_v2 %mm_wt_x, %mm_wt_y {trans_y = true, pd.out_names = ["mm_wt_o"]} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
    %mm_wt_r = pd.read_var @mm_wt_r : tensor<2x3x5xf32>
    %mm_wt_m = pd.elementwise_mul %mm_wt_o, %mm_wt_r {pd.out_names = ["mm_wt_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %mm_wt_l = pd.mean %mm_wt_m {pd.out_names = ["mm_wt_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    %loss = pd.sum %mul_l, %mul_flat_l, %mul_x1_l, %mm_nn_l, %bmm_nn_l, %mm_nt_l, %bmm_nt_l, %mm_tn_l, %bmm_tn_l, %mm_tt_l, %bmm_tt_l, %bmm4_l, %bmm4_tt_l, %mm_w_l, %mm_wt_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
