// Shape, padding and resize ops of image models: flatten_contiguous_range,
// squeeze2, unsqueeze2 (views with an XShape), shuffle_channel, channel_shuffle,
// pad2d, pad3d,
// bilinear_interp_v2 and nearest_interp_v2 (grad-resize.test).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output is weighted by the persistable <case>_r, and loss = sum of
// mean(out * r). Inputs/gradcheck.py resize writes the values and the float64
// finite-difference gradients.
module {
  pd.var @flatten_x persistable is_parameter : tensor<2x3x4x2xf32>
  pd.var @flatten_r persistable : tensor<2x12x2xf32>
  pd.var @flatten_neg_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @flatten_neg_r persistable : tensor<2x12xf32>
  pd.var @squeeze_x persistable is_parameter : tensor<2x1x3x1xf32>
  pd.var @squeeze_r persistable : tensor<2x3x1xf32>
  pd.var @squeeze_all_x persistable is_parameter : tensor<1x2x1x3xf32>
  pd.var @squeeze_all_r persistable : tensor<2x3xf32>
  pd.var @unsqueeze_x persistable is_parameter : tensor<2x3xf32>
  pd.var @unsqueeze_r persistable : tensor<1x2x3x1xf32>
  pd.var @shuffle_x persistable is_parameter : tensor<2x6x2x3xf32>
  pd.var @shuffle_r persistable : tensor<2x6x2x3xf32>
  pd.var @channel_shuffle_x persistable is_parameter : tensor<2x2x3x6xf32>
  pd.var @channel_shuffle_r persistable : tensor<2x2x3x6xf32>
  pd.var @pad2d_reflect_x persistable is_parameter : tensor<1x2x3x4xf32>
  pd.var @pad2d_reflect_r persistable : tensor<1x2x6x7xf32>
  pd.var @pad2d_edge_x persistable is_parameter : tensor<1x3x3x2xf32>
  pd.var @pad2d_edge_r persistable : tensor<1x4x5x2xf32>
  pd.var @pad2d_const_x persistable is_parameter : tensor<2x1x2x3xf32>
  pd.var @pad2d_const_r persistable : tensor<2x1x4x5xf32>
  pd.var @pad3d_circular_x persistable is_parameter : tensor<1x1x2x3x3xf32>
  pd.var @pad3d_circular_r persistable : tensor<1x1x3x5x5xf32>
  pd.var @pad3d_replicate_x persistable is_parameter : tensor<1x2x2x3x2xf32>
  pd.var @pad3d_replicate_r persistable : tensor<1x3x3x6x2xf32>
  pd.var @pad3d_reflect_x persistable is_parameter : tensor<1x1x3x3x4xf32>
  pd.var @pad3d_reflect_r persistable : tensor<1x1x6x4x8xf32>
  pd.var @bilinear_corners_x persistable is_parameter : tensor<1x2x3x4xf32>
  pd.var @bilinear_corners_r persistable : tensor<1x2x5x3xf32>
  pd.var @bilinear_half_x persistable is_parameter : tensor<1x1x4x5xf32>
  pd.var @bilinear_half_r persistable : tensor<1x1x6x7xf32>
  pd.var @bilinear_mode1_x persistable is_parameter : tensor<1x1x4x5xf32>
  pd.var @bilinear_mode1_r persistable : tensor<1x1x3x8xf32>
  pd.var @bilinear_scale_x persistable is_parameter : tensor<1x1x3x4xf32>
  pd.var @bilinear_scale_r persistable : tensor<1x1x6x2xf32>
  pd.var @bilinear_nhwc_x persistable is_parameter : tensor<1x3x4x2xf32>
  pd.var @bilinear_nhwc_r persistable : tensor<1x5x6x2xf32>
  pd.var @nearest_corners_x persistable is_parameter : tensor<1x2x4x5xf32>
  pd.var @nearest_corners_r persistable : tensor<1x2x3x3xf32>
  pd.var @nearest_floor_x persistable is_parameter : tensor<1x1x3x4xf32>
  pd.var @nearest_floor_r persistable : tensor<1x1x7x6xf32>
  pd.var @nearest_scale_x persistable is_parameter : tensor<1x1x3x4xf32>
  pd.var @nearest_scale_r persistable : tensor<1x1x6x8xf32>
  pd.program @main {
    // flatten
    %flatten_x = pd.read_var @flatten_x : tensor<2x3x4x2xf32>
    %flatten_o, %flatten_xs = pd.flatten_contiguous_range %flatten_x {start_axis = 1 : i32, stop_axis = 2 : i32, pd.out_names = ["flatten_o", "flatten_xshape"]} : (tensor<2x3x4x2xf32>) -> (tensor<2x12x2xf32>, tensor<0x2x3x4x2xf32>)
    %flatten_r = pd.read_var @flatten_r : tensor<2x12x2xf32>
    %flatten_m = pd.elementwise_mul %flatten_o, %flatten_r {pd.out_names = ["flatten_m"]} : (tensor<2x12x2xf32>, tensor<2x12x2xf32>) -> tensor<2x12x2xf32>
    %flatten_l = pd.mean %flatten_m {pd.out_names = ["flatten_l"]} : (tensor<2x12x2xf32>) -> tensor<f32>
    // flatten_neg
    %flatten_neg_x = pd.read_var @flatten_neg_x : tensor<2x3x4xf32>
    %flatten_neg_o, %flatten_neg_xs = pd.flatten_contiguous_range %flatten_neg_x {start_axis = -2 : i32, stop_axis = -1 : i32, pd.out_names = ["flatten_neg_o", "flatten_neg_xshape"]} : (tensor<2x3x4xf32>) -> (tensor<2x12xf32>, tensor<0x2x3x4xf32>)
    %flatten_neg_r = pd.read_var @flatten_neg_r : tensor<2x12xf32>
    %flatten_neg_m = pd.elementwise_mul %flatten_neg_o, %flatten_neg_r {pd.out_names = ["flatten_neg_m"]} : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<2x12xf32>
    %flatten_neg_l = pd.mean %flatten_neg_m {pd.out_names = ["flatten_neg_l"]} : (tensor<2x12xf32>) -> tensor<f32>
    // squeeze
    %squeeze_x = pd.read_var @squeeze_x : tensor<2x1x3x1xf32>
    %squeeze_o, %squeeze_xs = pd.squeeze2 %squeeze_x {axes = array<i32: 1>, pd.out_names = ["squeeze_o", "squeeze_xshape"]} : (tensor<2x1x3x1xf32>) -> (tensor<2x3x1xf32>, tensor<0x2x1x3x1xf32>)
    %squeeze_r = pd.read_var @squeeze_r : tensor<2x3x1xf32>
    %squeeze_m = pd.elementwise_mul %squeeze_o, %squeeze_r {pd.out_names = ["squeeze_m"]} : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
    %squeeze_l = pd.mean %squeeze_m {pd.out_names = ["squeeze_l"]} : (tensor<2x3x1xf32>) -> tensor<f32>
    // squeeze_all
    %squeeze_all_x = pd.read_var @squeeze_all_x : tensor<1x2x1x3xf32>
    %squeeze_all_o, %squeeze_all_xs = pd.squeeze2 %squeeze_all_x {axes = array<i32>, pd.out_names = ["squeeze_all_o", "squeeze_all_xshape"]} : (tensor<1x2x1x3xf32>) -> (tensor<2x3xf32>, tensor<0x1x2x1x3xf32>)
    %squeeze_all_r = pd.read_var @squeeze_all_r : tensor<2x3xf32>
    %squeeze_all_m = pd.elementwise_mul %squeeze_all_o, %squeeze_all_r {pd.out_names = ["squeeze_all_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %squeeze_all_l = pd.mean %squeeze_all_m {pd.out_names = ["squeeze_all_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // unsqueeze
    %unsqueeze_x = pd.read_var @unsqueeze_x : tensor<2x3xf32>
    %unsqueeze_o, %unsqueeze_xs = pd.unsqueeze2 %unsqueeze_x {axes = array<i32: 0, -1>, pd.out_names = ["unsqueeze_o", "unsqueeze_xshape"]} : (tensor<2x3xf32>) -> (tensor<1x2x3x1xf32>, tensor<0x2x3xf32>)
    %unsqueeze_r = pd.read_var @unsqueeze_r : tensor<1x2x3x1xf32>
    %unsqueeze_m = pd.elementwise_mul %unsqueeze_o, %unsqueeze_r {pd.out_names = ["unsqueeze_m"]} : (tensor<1x2x3x1xf32>, tensor<1x2x3x1xf32>) -> tensor<1x2x3x1xf32>
    %unsqueeze_l = pd.mean %unsqueeze_m {pd.out_names = ["unsqueeze_l"]} : (tensor<1x2x3x1xf32>) -> tensor<f32>
    // shuffle
    %shuffle_x = pd.read_var @shuffle_x : tensor<2x6x2x3xf32>
    %shuffle_o = pd.shuffle_channel %shuffle_x {group = 2 : i32, pd.out_names = ["shuffle_o"]} : (tensor<2x6x2x3xf32>) -> tensor<2x6x2x3xf32>
    %shuffle_r = pd.read_var @shuffle_r : tensor<2x6x2x3xf32>
    %shuffle_m = pd.elementwise_mul %shuffle_o, %shuffle_r {pd.out_names = ["shuffle_m"]} : (tensor<2x6x2x3xf32>, tensor<2x6x2x3xf32>) -> tensor<2x6x2x3xf32>
    %shuffle_l = pd.mean %shuffle_m {pd.out_names = ["shuffle_l"]} : (tensor<2x6x2x3xf32>) -> tensor<f32>
    // channel_shuffle (Paddle 2.3's op, NHWC)
    %channel_shuffle_x = pd.read_var @channel_shuffle_x : tensor<2x2x3x6xf32>
    %channel_shuffle_o = pd.channel_shuffle %channel_shuffle_x {groups = 3 : i32, data_format = "NHWC", pd.out_names = ["channel_shuffle_o"]} : (tensor<2x2x3x6xf32>) -> tensor<2x2x3x6xf32>
    %channel_shuffle_r = pd.read_var @channel_shuffle_r : tensor<2x2x3x6xf32>
    %channel_shuffle_m = pd.elementwise_mul %channel_shuffle_o, %channel_shuffle_r {pd.out_names = ["channel_shuffle_m"]} : (tensor<2x2x3x6xf32>, tensor<2x2x3x6xf32>) -> tensor<2x2x3x6xf32>
    %channel_shuffle_l = pd.mean %channel_shuffle_m {pd.out_names = ["channel_shuffle_l"]} : (tensor<2x2x3x6xf32>) -> tensor<f32>
    // pad2d_reflect
    %pad2d_reflect_x = pd.read_var @pad2d_reflect_x : tensor<1x2x3x4xf32>
    %pad2d_reflect_o = pd.pad2d %pad2d_reflect_x {paddings = array<i32: 1, 2, 2, 1>, mode = "reflect", pd.out_names = ["pad2d_reflect_o"]} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x7xf32>
    %pad2d_reflect_r = pd.read_var @pad2d_reflect_r : tensor<1x2x6x7xf32>
    %pad2d_reflect_m = pd.elementwise_mul %pad2d_reflect_o, %pad2d_reflect_r {pd.out_names = ["pad2d_reflect_m"]} : (tensor<1x2x6x7xf32>, tensor<1x2x6x7xf32>) -> tensor<1x2x6x7xf32>
    %pad2d_reflect_l = pd.mean %pad2d_reflect_m {pd.out_names = ["pad2d_reflect_l"]} : (tensor<1x2x6x7xf32>) -> tensor<f32>
    // pad2d_edge
    %pad2d_edge_x = pd.read_var @pad2d_edge_x : tensor<1x3x3x2xf32>
    %pad2d_edge_o = pd.pad2d %pad2d_edge_x {paddings = array<i32: 1, 0, 0, 2>, mode = "edge", data_format = "NHWC", pd.out_names = ["pad2d_edge_o"]} : (tensor<1x3x3x2xf32>) -> tensor<1x4x5x2xf32>
    %pad2d_edge_r = pd.read_var @pad2d_edge_r : tensor<1x4x5x2xf32>
    %pad2d_edge_m = pd.elementwise_mul %pad2d_edge_o, %pad2d_edge_r {pd.out_names = ["pad2d_edge_m"]} : (tensor<1x4x5x2xf32>, tensor<1x4x5x2xf32>) -> tensor<1x4x5x2xf32>
    %pad2d_edge_l = pd.mean %pad2d_edge_m {pd.out_names = ["pad2d_edge_l"]} : (tensor<1x4x5x2xf32>) -> tensor<f32>
    // pad2d_const
    %pad2d_const_x = pd.read_var @pad2d_const_x : tensor<2x1x2x3xf32>
    %pad2d_const_o = pd.pad2d %pad2d_const_x {paddings = array<i32: 1, 1, 0, 2>, mode = "constant", pad_value = 5.000000e-01 : f32, pd.out_names = ["pad2d_const_o"]} : (tensor<2x1x2x3xf32>) -> tensor<2x1x4x5xf32>
    %pad2d_const_r = pd.read_var @pad2d_const_r : tensor<2x1x4x5xf32>
    %pad2d_const_m = pd.elementwise_mul %pad2d_const_o, %pad2d_const_r {pd.out_names = ["pad2d_const_m"]} : (tensor<2x1x4x5xf32>, tensor<2x1x4x5xf32>) -> tensor<2x1x4x5xf32>
    %pad2d_const_l = pd.mean %pad2d_const_m {pd.out_names = ["pad2d_const_l"]} : (tensor<2x1x4x5xf32>) -> tensor<f32>
    // pad3d_circular
    %pad3d_circular_x = pd.read_var @pad3d_circular_x : tensor<1x1x2x3x3xf32>
    %pad3d_circular_o = pd.pad3d %pad3d_circular_x {paddings = array<i32: 1, 1, 2, 0, 1, 0>, mode = "circular", pd.out_names = ["pad3d_circular_o"]} : (tensor<1x1x2x3x3xf32>) -> tensor<1x1x3x5x5xf32>
    %pad3d_circular_r = pd.read_var @pad3d_circular_r : tensor<1x1x3x5x5xf32>
    %pad3d_circular_m = pd.elementwise_mul %pad3d_circular_o, %pad3d_circular_r {pd.out_names = ["pad3d_circular_m"]} : (tensor<1x1x3x5x5xf32>, tensor<1x1x3x5x5xf32>) -> tensor<1x1x3x5x5xf32>
    %pad3d_circular_l = pd.mean %pad3d_circular_m {pd.out_names = ["pad3d_circular_l"]} : (tensor<1x1x3x5x5xf32>) -> tensor<f32>
    // pad3d_replicate
    %pad3d_replicate_x = pd.read_var @pad3d_replicate_x : tensor<1x2x2x3x2xf32>
    %pad3d_replicate_o = pd.pad3d %pad3d_replicate_x {paddings = array<i32: 1, 2, 1, 0, 0, 1>, mode = "replicate", data_format = "NDHWC", pd.out_names = ["pad3d_replicate_o"]} : (tensor<1x2x2x3x2xf32>) -> tensor<1x3x3x6x2xf32>
    %pad3d_replicate_r = pd.read_var @pad3d_replicate_r : tensor<1x3x3x6x2xf32>
    %pad3d_replicate_m = pd.elementwise_mul %pad3d_replicate_o, %pad3d_replicate_r {pd.out_names = ["pad3d_replicate_m"]} : (tensor<1x3x3x6x2xf32>, tensor<1x3x3x6x2xf32>) -> tensor<1x3x3x6x2xf32>
    %pad3d_replicate_l = pd.mean %pad3d_replicate_m {pd.out_names = ["pad3d_replicate_l"]} : (tensor<1x3x3x6x2xf32>) -> tensor<f32>
    // pad3d_reflect
    %pad3d_reflect_x = pd.read_var @pad3d_reflect_x : tensor<1x1x3x3x4xf32>
    %pad3d_reflect_o = pd.pad3d %pad3d_reflect_x {paddings = array<i32: 1, 3, 0, 1, 2, 1>, mode = "reflect", pd.out_names = ["pad3d_reflect_o"]} : (tensor<1x1x3x3x4xf32>) -> tensor<1x1x6x4x8xf32>
    %pad3d_reflect_r = pd.read_var @pad3d_reflect_r : tensor<1x1x6x4x8xf32>
    %pad3d_reflect_m = pd.elementwise_mul %pad3d_reflect_o, %pad3d_reflect_r {pd.out_names = ["pad3d_reflect_m"]} : (tensor<1x1x6x4x8xf32>, tensor<1x1x6x4x8xf32>) -> tensor<1x1x6x4x8xf32>
    %pad3d_reflect_l = pd.mean %pad3d_reflect_m {pd.out_names = ["pad3d_reflect_l"]} : (tensor<1x1x6x4x8xf32>) -> tensor<f32>
    // bilinear_corners
    %bilinear_corners_x = pd.read_var @bilinear_corners_x : tensor<1x2x3x4xf32>
    %bilinear_corners_o = pd.bilinear_interp_v2 %bilinear_corners_x {out_h = 5 : i32, out_w = 3 : i32, align_corners = true, align_mode = 1 : i32, pd.out_names = ["bilinear_corners_o"]} : (tensor<1x2x3x4xf32>) -> tensor<1x2x5x3xf32>
    %bilinear_corners_r = pd.read_var @bilinear_corners_r : tensor<1x2x5x3xf32>
    %bilinear_corners_m = pd.elementwise_mul %bilinear_corners_o, %bilinear_corners_r {pd.out_names = ["bilinear_corners_m"]} : (tensor<1x2x5x3xf32>, tensor<1x2x5x3xf32>) -> tensor<1x2x5x3xf32>
    %bilinear_corners_l = pd.mean %bilinear_corners_m {pd.out_names = ["bilinear_corners_l"]} : (tensor<1x2x5x3xf32>) -> tensor<f32>
    // bilinear_half
    %bilinear_half_x = pd.read_var @bilinear_half_x : tensor<1x1x4x5xf32>
    %bilinear_half_o = pd.bilinear_interp_v2 %bilinear_half_x {out_h = 6 : i32, out_w = 7 : i32, align_corners = false, align_mode = 0 : i32, pd.out_names = ["bilinear_half_o"]} : (tensor<1x1x4x5xf32>) -> tensor<1x1x6x7xf32>
    %bilinear_half_r = pd.read_var @bilinear_half_r : tensor<1x1x6x7xf32>
    %bilinear_half_m = pd.elementwise_mul %bilinear_half_o, %bilinear_half_r {pd.out_names = ["bilinear_half_m"]} : (tensor<1x1x6x7xf32>, tensor<1x1x6x7xf32>) -> tensor<1x1x6x7xf32>
    %bilinear_half_l = pd.mean %bilinear_half_m {pd.out_names = ["bilinear_half_l"]} : (tensor<1x1x6x7xf32>) -> tensor<f32>
    // bilinear_mode1
    %bilinear_mode1_x = pd.read_var @bilinear_mode1_x : tensor<1x1x4x5xf32>
    %bilinear_mode1_o = pd.bilinear_interp_v2 %bilinear_mode1_x {out_h = 3 : i32, out_w = 8 : i32, align_corners = false, align_mode = 1 : i32, pd.out_names = ["bilinear_mode1_o"]} : (tensor<1x1x4x5xf32>) -> tensor<1x1x3x8xf32>
    %bilinear_mode1_r = pd.read_var @bilinear_mode1_r : tensor<1x1x3x8xf32>
    %bilinear_mode1_m = pd.elementwise_mul %bilinear_mode1_o, %bilinear_mode1_r {pd.out_names = ["bilinear_mode1_m"]} : (tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x1x3x8xf32>
    %bilinear_mode1_l = pd.mean %bilinear_mode1_m {pd.out_names = ["bilinear_mode1_l"]} : (tensor<1x1x3x8xf32>) -> tensor<f32>
    // bilinear_scale
    %bilinear_scale_x = pd.read_var @bilinear_scale_x : tensor<1x1x3x4xf32>
    %bilinear_scale_o = pd.bilinear_interp_v2 %bilinear_scale_x {scale = array<f32: 2.0, 0.5>, align_corners = false, align_mode = 1 : i32, pd.out_names = ["bilinear_scale_o"]} : (tensor<1x1x3x4xf32>) -> tensor<1x1x6x2xf32>
    %bilinear_scale_r = pd.read_var @bilinear_scale_r : tensor<1x1x6x2xf32>
    %bilinear_scale_m = pd.elementwise_mul %bilinear_scale_o, %bilinear_scale_r {pd.out_names = ["bilinear_scale_m"]} : (tensor<1x1x6x2xf32>, tensor<1x1x6x2xf32>) -> tensor<1x1x6x2xf32>
    %bilinear_scale_l = pd.mean %bilinear_scale_m {pd.out_names = ["bilinear_scale_l"]} : (tensor<1x1x6x2xf32>) -> tensor<f32>
    // bilinear_nhwc
    %bilinear_nhwc_x = pd.read_var @bilinear_nhwc_x : tensor<1x3x4x2xf32>
    %bilinear_nhwc_o = pd.bilinear_interp_v2 %bilinear_nhwc_x {out_h = 5 : i32, out_w = 6 : i32, align_corners = false, align_mode = 0 : i32, data_layout = "NHWC", pd.out_names = ["bilinear_nhwc_o"]} : (tensor<1x3x4x2xf32>) -> tensor<1x5x6x2xf32>
    %bilinear_nhwc_r = pd.read_var @bilinear_nhwc_r : tensor<1x5x6x2xf32>
    %bilinear_nhwc_m = pd.elementwise_mul %bilinear_nhwc_o, %bilinear_nhwc_r {pd.out_names = ["bilinear_nhwc_m"]} : (tensor<1x5x6x2xf32>, tensor<1x5x6x2xf32>) -> tensor<1x5x6x2xf32>
    %bilinear_nhwc_l = pd.mean %bilinear_nhwc_m {pd.out_names = ["bilinear_nhwc_l"]} : (tensor<1x5x6x2xf32>) -> tensor<f32>
    // nearest_corners
    %nearest_corners_x = pd.read_var @nearest_corners_x : tensor<1x2x4x5xf32>
    %nearest_corners_o = pd.nearest_interp_v2 %nearest_corners_x {out_h = 3 : i32, out_w = 3 : i32, align_corners = true, pd.out_names = ["nearest_corners_o"]} : (tensor<1x2x4x5xf32>) -> tensor<1x2x3x3xf32>
    %nearest_corners_r = pd.read_var @nearest_corners_r : tensor<1x2x3x3xf32>
    %nearest_corners_m = pd.elementwise_mul %nearest_corners_o, %nearest_corners_r {pd.out_names = ["nearest_corners_m"]} : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %nearest_corners_l = pd.mean %nearest_corners_m {pd.out_names = ["nearest_corners_l"]} : (tensor<1x2x3x3xf32>) -> tensor<f32>
    // nearest_floor
    %nearest_floor_x = pd.read_var @nearest_floor_x : tensor<1x1x3x4xf32>
    %nearest_floor_o = pd.nearest_interp_v2 %nearest_floor_x {out_h = 7 : i32, out_w = 6 : i32, align_corners = false, pd.out_names = ["nearest_floor_o"]} : (tensor<1x1x3x4xf32>) -> tensor<1x1x7x6xf32>
    %nearest_floor_r = pd.read_var @nearest_floor_r : tensor<1x1x7x6xf32>
    %nearest_floor_m = pd.elementwise_mul %nearest_floor_o, %nearest_floor_r {pd.out_names = ["nearest_floor_m"]} : (tensor<1x1x7x6xf32>, tensor<1x1x7x6xf32>) -> tensor<1x1x7x6xf32>
    %nearest_floor_l = pd.mean %nearest_floor_m {pd.out_names = ["nearest_floor_l"]} : (tensor<1x1x7x6xf32>) -> tensor<f32>
    // nearest_scale
    %nearest_scale_x = pd.read_var @nearest_scale_x : tensor<1x1x3x4xf32>
    %nearest_scale_o = pd.nearest_interp_v2 %nearest_scale_x {scale = array<f32: 2.0>, align_corners = false, pd.out_names = ["nearest_scale_o"]} : (tensor<1x1x3x4xf32>) -> tensor<1x1x6x8xf32>
    %nearest_scale_r = pd.read_var @nearest_scale_r : tensor<1x1x6x8xf32>
    %nearest_scale_m = pd.elementwise_mul %nearest_scale_o, %nearest_scale_r {pd.out_names = ["nearest_scale_m"]} : (tensor<1x1x6x8xf32>, tensor<1x1x6x8xf32>) -> tensor<1x1x6x8xf32>
    %nearest_scale_l = pd.mean %nearest_scale_m {pd.out_names = ["nearest_scale_l"]} : (tensor<1x1x6x8xf32>) -> tensor<f32>
    %loss = pd.sum %flatten_l, %flatten_neg_l, %squeeze_l, %squeeze_all_l, %unsqueeze_l, %shuffle_l, %channel_shuffle_l, %pad2d_reflect_l, %pad2d_edge_l, %pad2d_const_l, %pad3d_circular_l, %pad3d_replicate_l, %pad3d_reflect_l, %bilinear_corners_l, %bilinear_half_l, %bilinear_mode1_l, %bilinear_scale_l, %bilinear_nhwc_l, %nearest_corners_l, %nearest_floor_l, %nearest_scale_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
