// Gradient check inputs (see grad-nn.test): lookup_table_v2 (i64 and i32
// ids, repeated ids, padding_idx), layer_norm (begin_norm_axis 1 and 2, with
// Scale and Bias, Scale only, neither), softmax_with_cross_entropy (hard
// labels, ignore_index, axis 1, soft labels).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @emb_w persistable is_parameter : tensor<6x3xf32>
  pd.var @emb_ids persistable : tensor<2x3xi64>
  pd.var @emb_r persistable : tensor<2x3x3xf32>
  pd.var @emb_i32_w persistable is_parameter : tensor<4x2xf32>
  pd.var @emb_i32_ids persistable : tensor<4xi32>
  pd.var @emb_i32_r persistable : tensor<4x2xf32>
  pd.var @emb_pad_w persistable is_parameter : tensor<6x3xf32>
  pd.var @emb_pad_ids persistable : tensor<2x4xi64>
  pd.var @emb_pad_r persistable : tensor<2x4x3xf32>
  pd.var @ln_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ln_scale persistable is_parameter : tensor<12xf32>
  pd.var @ln_bias persistable is_parameter : tensor<12xf32>
  pd.var @ln_r persistable : tensor<2x3x4xf32>
  pd.var @ln2_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @ln2_scale persistable is_parameter : tensor<4xf32>
  pd.var @ln2_bias persistable is_parameter : tensor<4xf32>
  pd.var @ln2_r persistable : tensor<2x3x4xf32>
  pd.var @ln_plain_x persistable is_parameter : tensor<3x5xf32>
  pd.var @ln_plain_r persistable : tensor<3x5xf32>
  pd.var @ln_s_x persistable is_parameter : tensor<2x2x3xf32>
  pd.var @ln_s_scale persistable is_parameter : tensor<3xf32>
  pd.var @ln_s_r persistable : tensor<2x2x3xf32>
  pd.var @xent_x persistable is_parameter : tensor<3x4xf32>
  pd.var @xent_label persistable : tensor<3x1xi64>
  pd.var @xent_r persistable : tensor<3x1xf32>
  pd.var @xent_ign_x persistable is_parameter : tensor<3x4xf32>
  pd.var @xent_ign_label persistable : tensor<3x1xi64>
  pd.var @xent_ign_r persistable : tensor<3x1xf32>
  pd.var @xent_a1_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @xent_a1_label persistable : tensor<2x1x4xi64>
  pd.var @xent_a1_r persistable : tensor<2x1x4xf32>
  pd.var @xent_soft_x persistable is_parameter : tensor<3x4xf32>
  pd.var @xent_soft_label persistable : tensor<3x4xf32>
  pd.var @xent_soft_r persistable : tensor<3x1xf32>
  pd.program @main {
    // emb
    %emb_w = pd.read_var @emb_w : tensor<6x3xf32>
    %emb_ids = pd.read_var @emb_ids : tensor<2x3xi64>
    %emb_o = pd.lookup_table_v2 %emb_ids, %emb_w {pd.out_names = ["emb_o"]} : (tensor<2x3xi64>, tensor<6x3xf32>) -> tensor<2x3x3xf32>
    %emb_r = pd.read_var @emb_r : tensor<2x3x3xf32>
    %emb_m = pd.elementwise_mul %emb_o, %emb_r {pd.out_names = ["emb_m"]} : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %emb_l = pd.mean %emb_m {pd.out_names = ["emb_l"]} : (tensor<2x3x3xf32>) -> tensor<f32>
    // emb_i32
    %emb_i32_w = pd.read_var @emb_i32_w : tensor<4x2xf32>
    %emb_i32_ids = pd.read_var @emb_i32_ids : tensor<4xi32>
    %emb_i32_o = pd.lookup_table_v2 %emb_i32_ids, %emb_i32_w {pd.out_names = ["emb_i32_o"]} : (tensor<4xi32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %emb_i32_r = pd.read_var @emb_i32_r : tensor<4x2xf32>
    %emb_i32_m = pd.elementwise_mul %emb_i32_o, %emb_i32_r {pd.out_names = ["emb_i32_m"]} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    %emb_i32_l = pd.mean %emb_i32_m {pd.out_names = ["emb_i32_l"]} : (tensor<4x2xf32>) -> tensor<f32>
    // emb_pad
    %emb_pad_w = pd.read_var @emb_pad_w : tensor<6x3xf32>
    %emb_pad_ids = pd.read_var @emb_pad_ids : tensor<2x4xi64>
    %emb_pad_o = pd.lookup_table_v2 %emb_pad_ids, %emb_pad_w {padding_idx = 2 : i64, pd.out_names = ["emb_pad_o"]} : (tensor<2x4xi64>, tensor<6x3xf32>) -> tensor<2x4x3xf32>
    %emb_pad_r = pd.read_var @emb_pad_r : tensor<2x4x3xf32>
    %emb_pad_m = pd.elementwise_mul %emb_pad_o, %emb_pad_r {pd.out_names = ["emb_pad_m"]} : (tensor<2x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
    %emb_pad_l = pd.mean %emb_pad_m {pd.out_names = ["emb_pad_l"]} : (tensor<2x4x3xf32>) -> tensor<f32>
    // ln
    %ln_x = pd.read_var @ln_x : tensor<2x3x4xf32>
    %ln_scale = pd.read_var @ln_scale : tensor<12xf32>
    %ln_bias = pd.read_var @ln_bias : tensor<12xf32>
    %ln_o, %ln_mean, %ln_var = pd.layer_norm %ln_x scale %ln_scale bias %ln_bias {pd.out_names = ["ln_o", "ln_mean", "ln_var"]} : (tensor<2x3x4xf32>, tensor<12xf32>, tensor<12xf32>) -> (tensor<2x3x4xf32>, tensor<2xf32>, tensor<2xf32>)
    %ln_r = pd.read_var @ln_r : tensor<2x3x4xf32>
    %ln_m = pd.elementwise_mul %ln_o, %ln_r {pd.out_names = ["ln_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ln_l = pd.mean %ln_m {pd.out_names = ["ln_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ln2
    %ln2_x = pd.read_var @ln2_x : tensor<2x3x4xf32>
    %ln2_scale = pd.read_var @ln2_scale : tensor<4xf32>
    %ln2_bias = pd.read_var @ln2_bias : tensor<4xf32>
    %ln2_o, %ln2_mean, %ln2_var = pd.layer_norm %ln2_x scale %ln2_scale bias %ln2_bias {begin_norm_axis = 2 : i32, epsilon = 1.0e-6 : f32, pd.out_names = ["ln2_o", "ln2_mean", "ln2_var"]} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<6xf32>, tensor<6xf32>)
    %ln2_r = pd.read_var @ln2_r : tensor<2x3x4xf32>
    %ln2_m = pd.elementwise_mul %ln2_o, %ln2_r {pd.out_names = ["ln2_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %ln2_l = pd.mean %ln2_m {pd.out_names = ["ln2_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // ln_plain
    %ln_plain_x = pd.read_var @ln_plain_x : tensor<3x5xf32>
    %ln_plain_o, %ln_plain_mean, %ln_plain_var = pd.layer_norm %ln_plain_x {pd.out_names = ["ln_plain_o", "ln_plain_mean", "ln_plain_var"]} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>, tensor<3xf32>)
    %ln_plain_r = pd.read_var @ln_plain_r : tensor<3x5xf32>
    %ln_plain_m = pd.elementwise_mul %ln_plain_o, %ln_plain_r {pd.out_names = ["ln_plain_m"]} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %ln_plain_l = pd.mean %ln_plain_m {pd.out_names = ["ln_plain_l"]} : (tensor<3x5xf32>) -> tensor<f32>
    // ln_s
    %ln_s_x = pd.read_var @ln_s_x : tensor<2x2x3xf32>
    %ln_s_scale = pd.read_var @ln_s_scale : tensor<3xf32>
    %ln_s_o, %ln_s_mean, %ln_s_var = pd.layer_norm %ln_s_x scale %ln_s_scale {begin_norm_axis = 2 : i32, pd.out_names = ["ln_s_o", "ln_s_mean", "ln_s_var"]} : (tensor<2x2x3xf32>, tensor<3xf32>) -> (tensor<2x2x3xf32>, tensor<4xf32>, tensor<4xf32>)
    %ln_s_r = pd.read_var @ln_s_r : tensor<2x2x3xf32>
    %ln_s_m = pd.elementwise_mul %ln_s_o, %ln_s_r {pd.out_names = ["ln_s_m"]} : (tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %ln_s_l = pd.mean %ln_s_m {pd.out_names = ["ln_s_l"]} : (tensor<2x2x3xf32>) -> tensor<f32>
    // xent
    %xent_x = pd.read_var @xent_x : tensor<3x4xf32>
    %xent_label = pd.read_var @xent_label : tensor<3x1xi64>
    %xent_sm, %xent_o = pd.softmax_with_cross_entropy %xent_x, %xent_label {pd.out_names = ["xent_sm", "xent_o"]} : (tensor<3x4xf32>, tensor<3x1xi64>) -> (tensor<3x4xf32>, tensor<3x1xf32>)
    %xent_r = pd.read_var @xent_r : tensor<3x1xf32>
    %xent_m = pd.elementwise_mul %xent_o, %xent_r {pd.out_names = ["xent_m"]} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
    %xent_l = pd.mean %xent_m {pd.out_names = ["xent_l"]} : (tensor<3x1xf32>) -> tensor<f32>
    // xent_ign
    %xent_ign_x = pd.read_var @xent_ign_x : tensor<3x4xf32>
    %xent_ign_label = pd.read_var @xent_ign_label : tensor<3x1xi64>
    %xent_ign_sm, %xent_ign_o = pd.softmax_with_cross_entropy %xent_ign_x, %xent_ign_label {ignore_index = 1 : i32, pd.out_names = ["xent_ign_sm", "xent_ign_o"]} : (tensor<3x4xf32>, tensor<3x1xi64>) -> (tensor<3x4xf32>, tensor<3x1xf32>)
    %xent_ign_r = pd.read_var @xent_ign_r : tensor<3x1xf32>
    %xent_ign_m = pd.elementwise_mul %xent_ign_o, %xent_ign_r {pd.out_names = ["xent_ign_m"]} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
    %xent_ign_l = pd.mean %xent_ign_m {pd.out_names = ["xent_ign_l"]} : (tensor<3x1xf32>) -> tensor<f32>
    // xent_a1
    %xent_a1_x = pd.read_var @xent_a1_x : tensor<2x3x4xf32>
    %xent_a1_label = pd.read_var @xent_a1_label : tensor<2x1x4xi64>
    %xent_a1_sm, %xent_a1_o = pd.softmax_with_cross_entropy %xent_a1_x, %xent_a1_label {axis = 1 : i32, pd.out_names = ["xent_a1_sm", "xent_a1_o"]} : (tensor<2x3x4xf32>, tensor<2x1x4xi64>) -> (tensor<2x3x4xf32>, tensor<2x1x4xf32>)
    %xent_a1_r = pd.read_var @xent_a1_r : tensor<2x1x4xf32>
    %xent_a1_m = pd.elementwise_mul %xent_a1_o, %xent_a1_r {pd.out_names = ["xent_a1_m"]} : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
    %xent_a1_l = pd.mean %xent_a1_m {pd.out_names = ["xent_a1_l"]} : (tensor<2x1x4xf32>) -> tensor<f32>
    // xent_soft
    %xent_soft_x = pd.read_var @xent_soft_x : tensor<3x4xf32>
    %xent_soft_label = pd.read_var @xent_soft_label : tensor<3x4xf32>
    %xent_soft_sm, %xent_soft_o = pd.softmax_with_cross_entropy %xent_soft_x, %xent_soft_label {soft_label = true, pd.out_names = ["xent_soft_sm", "xent_soft_o"]} : (tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x1xf32>)
    %xent_soft_r = pd.read_var @xent_soft_r : tensor<3x1xf32>
    %xent_soft_m = pd.elementwise_mul %xent_soft_o, %xent_soft_r {pd.out_names = ["xent_soft_m"]} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
    %xent_soft_l = pd.mean %xent_soft_m {pd.out_names = ["xent_soft_l"]} : (tensor<3x1xf32>) -> tensor<f32>
    %loss = pd.sum %emb_l, %emb_i32_l, %emb_pad_l, %ln_l, %ln2_l, %ln_plain_l, %ln_s_l, %xent_l, %xent_ign_l, %xent_a1_l, %xent_soft_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
