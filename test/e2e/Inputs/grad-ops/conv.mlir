// Gradient check inputs of grad-conv.test, printed by
// `Inputs/gradcheck_conv.py --mlir` from its case table (do not edit by hand).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output is weighted by the persistable <case>_r, and
// loss = sum of mean(out * r).
module {
  pd.var @conv_basic_Input persistable is_parameter : tensor<2x3x6x6xf32>
  pd.var @conv_basic_Filter persistable is_parameter : tensor<4x3x3x3xf32>
  pd.var @conv_basic_r persistable : tensor<2x4x6x6xf32>
  pd.var @conv_grp_Input persistable is_parameter : tensor<2x4x7x7xf32>
  pd.var @conv_grp_Filter persistable is_parameter : tensor<6x2x3x3xf32>
  pd.var @conv_grp_r persistable : tensor<2x6x3x4xf32>
  pd.var @conv_dil_Input persistable is_parameter : tensor<1x2x8x8xf32>
  pd.var @conv_dil_Filter persistable is_parameter : tensor<3x2x3x3xf32>
  pd.var @conv_dil_r persistable : tensor<1x3x8x8xf32>
  pd.var @conv_same_Input persistable is_parameter : tensor<2x3x7x7xf32>
  pd.var @conv_same_Filter persistable is_parameter : tensor<2x3x3x3xf32>
  pd.var @conv_same_r persistable : tensor<2x2x4x4xf32>
  pd.var @conv_valid_Input persistable is_parameter : tensor<1x2x6x5xf32>
  pd.var @conv_valid_Filter persistable is_parameter : tensor<2x2x2x3xf32>
  pd.var @conv_valid_r persistable : tensor<1x2x5x3xf32>
  pd.var @conv_nhwc_Input persistable is_parameter : tensor<2x6x6x3xf32>
  pd.var @conv_nhwc_Filter persistable is_parameter : tensor<4x3x3x3xf32>
  pd.var @conv_nhwc_r persistable : tensor<2x6x3x4xf32>
  pd.var @conv_1x1_Input persistable is_parameter : tensor<2x4x5x5xf32>
  pd.var @conv_1x1_Filter persistable is_parameter : tensor<3x4x1x1xf32>
  pd.var @conv_1x1_r persistable : tensor<2x3x5x5xf32>
  pd.var @conv_bias_Input persistable is_parameter : tensor<2x5x6x4xf32>
  pd.var @conv_bias_Filter persistable is_parameter : tensor<4x2x2x3xf32>
  pd.var @conv_bias_Bias persistable is_parameter : tensor<4xf32>
  pd.var @conv_bias_r persistable : tensor<2x6x4x4xf32>
  pd.var @dwconv_Input persistable is_parameter : tensor<2x3x6x6xf32>
  pd.var @dwconv_Filter persistable is_parameter : tensor<6x1x3x3xf32>
  pd.var @dwconv_r persistable : tensor<2x6x3x3xf32>
  pd.var @convt_basic_Input persistable is_parameter : tensor<2x3x4x4xf32>
  pd.var @convt_basic_Filter persistable is_parameter : tensor<3x2x3x3xf32>
  pd.var @convt_basic_r persistable : tensor<2x2x7x7xf32>
  pd.var @convt_grp_Input persistable is_parameter : tensor<1x4x3x3xf32>
  pd.var @convt_grp_Filter persistable is_parameter : tensor<4x3x3x3xf32>
  pd.var @convt_grp_r persistable : tensor<1x6x7x6xf32>
  pd.var @convt_nhwc_Input persistable is_parameter : tensor<2x3x3x2xf32>
  pd.var @convt_nhwc_Filter persistable is_parameter : tensor<2x3x2x2xf32>
  pd.var @convt_nhwc_r persistable : tensor<2x8x7x3xf32>
  pd.var @convt_same_Input persistable is_parameter : tensor<1x2x5x4xf32>
  pd.var @convt_same_Filter persistable is_parameter : tensor<2x3x3x3xf32>
  pd.var @convt_same_r persistable : tensor<1x3x9x8xf32>
  pd.var @pool_avg_nhwc_X persistable is_parameter : tensor<2x5x6x3xf32>
  pd.var @pool_avg_nhwc_r persistable : tensor<2x4x4x3xf32>
  pd.var @pool_max_X persistable is_parameter : tensor<2x3x6x6xf32>
  pd.var @pool_max_r persistable : tensor<2x3x3x3xf32>
  pd.var @pool_max_ceil_X persistable is_parameter : tensor<1x2x7x7xf32>
  pd.var @pool_max_ceil_r persistable : tensor<1x2x4x4xf32>
  pd.var @pool_avg_incl_X persistable is_parameter : tensor<2x2x5x5xf32>
  pd.var @pool_avg_incl_r persistable : tensor<2x2x3x3xf32>
  pd.var @pool_avg_excl_X persistable is_parameter : tensor<1x2x6x5xf32>
  pd.var @pool_avg_excl_r persistable : tensor<1x2x4x4xf32>
  pd.var @pool_avg_adapt_X persistable is_parameter : tensor<2x2x7x5xf32>
  pd.var @pool_avg_adapt_r persistable : tensor<2x2x3x2xf32>
  pd.var @pool_max_adapt_X persistable is_parameter : tensor<1x2x5x7xf32>
  pd.var @pool_max_adapt_r persistable : tensor<1x2x2x3xf32>
  pd.var @pool_avg_global_X persistable is_parameter : tensor<2x4x4x3xf32>
  pd.var @pool_avg_global_r persistable : tensor<2x1x1x3xf32>
  pd.var @pool_max_same_X persistable is_parameter : tensor<1x2x7x6xf32>
  pd.var @pool_max_same_r persistable : tensor<1x2x4x3xf32>
  pd.var @pool_max_global_X persistable is_parameter : tensor<2x3x4x5xf32>
  pd.var @pool_max_global_r persistable : tensor<2x3x1x1xf32>
  pd.program @main {
    // conv_basic
    %conv_basic_Input = pd.read_var @conv_basic_Input : tensor<2x3x6x6xf32>
    %conv_basic_Filter = pd.read_var @conv_basic_Filter : tensor<4x3x3x3xf32>
    %conv_basic_o = pd.conv2d %conv_basic_Input, %conv_basic_Filter {paddings = array<i32: 1, 1>, pd.out_names = ["conv_basic_o"]} : (tensor<2x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
    %conv_basic_r = pd.read_var @conv_basic_r : tensor<2x4x6x6xf32>
    %conv_basic_m = pd.elementwise_mul %conv_basic_o, %conv_basic_r {pd.out_names = ["conv_basic_m"]} : (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
    %conv_basic_l = pd.mean %conv_basic_m {pd.out_names = ["conv_basic_l"]} : (tensor<2x4x6x6xf32>) -> tensor<f32>
    // conv_grp
    %conv_grp_Input = pd.read_var @conv_grp_Input : tensor<2x4x7x7xf32>
    %conv_grp_Filter = pd.read_var @conv_grp_Filter : tensor<6x2x3x3xf32>
    %conv_grp_o = pd.conv2d %conv_grp_Input, %conv_grp_Filter {groups = 2 : i32, strides = array<i32: 2, 2>, paddings = array<i32: 1, 0, 2, 1>, pd.out_names = ["conv_grp_o"]} : (tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x3x4xf32>
    %conv_grp_r = pd.read_var @conv_grp_r : tensor<2x6x3x4xf32>
    %conv_grp_m = pd.elementwise_mul %conv_grp_o, %conv_grp_r {pd.out_names = ["conv_grp_m"]} : (tensor<2x6x3x4xf32>, tensor<2x6x3x4xf32>) -> tensor<2x6x3x4xf32>
    %conv_grp_l = pd.mean %conv_grp_m {pd.out_names = ["conv_grp_l"]} : (tensor<2x6x3x4xf32>) -> tensor<f32>
    // conv_dil
    %conv_dil_Input = pd.read_var @conv_dil_Input : tensor<1x2x8x8xf32>
    %conv_dil_Filter = pd.read_var @conv_dil_Filter : tensor<3x2x3x3xf32>
    %conv_dil_o = pd.conv2d %conv_dil_Input, %conv_dil_Filter {dilations = array<i32: 2, 2>, paddings = array<i32: 2, 2>, pd.out_names = ["conv_dil_o"]} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32>
    %conv_dil_r = pd.read_var @conv_dil_r : tensor<1x3x8x8xf32>
    %conv_dil_m = pd.elementwise_mul %conv_dil_o, %conv_dil_r {pd.out_names = ["conv_dil_m"]} : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    %conv_dil_l = pd.mean %conv_dil_m {pd.out_names = ["conv_dil_l"]} : (tensor<1x3x8x8xf32>) -> tensor<f32>
    // conv_same
    %conv_same_Input = pd.read_var @conv_same_Input : tensor<2x3x7x7xf32>
    %conv_same_Filter = pd.read_var @conv_same_Filter : tensor<2x3x3x3xf32>
    %conv_same_o = pd.conv2d %conv_same_Input, %conv_same_Filter {padding_algorithm = "SAME", strides = array<i32: 2, 2>, dilations = array<i32: 2, 2>, pd.out_names = ["conv_same_o"]} : (tensor<2x3x7x7xf32>, tensor<2x3x3x3xf32>) -> tensor<2x2x4x4xf32>
    %conv_same_r = pd.read_var @conv_same_r : tensor<2x2x4x4xf32>
    %conv_same_m = pd.elementwise_mul %conv_same_o, %conv_same_r {pd.out_names = ["conv_same_m"]} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
    %conv_same_l = pd.mean %conv_same_m {pd.out_names = ["conv_same_l"]} : (tensor<2x2x4x4xf32>) -> tensor<f32>
    // conv_valid
    %conv_valid_Input = pd.read_var @conv_valid_Input : tensor<1x2x6x5xf32>
    %conv_valid_Filter = pd.read_var @conv_valid_Filter : tensor<2x2x2x3xf32>
    %conv_valid_o = pd.conv2d %conv_valid_Input, %conv_valid_Filter {padding_algorithm = "VALID", paddings = array<i32: 1, 1>, pd.out_names = ["conv_valid_o"]} : (tensor<1x2x6x5xf32>, tensor<2x2x2x3xf32>) -> tensor<1x2x5x3xf32>
    %conv_valid_r = pd.read_var @conv_valid_r : tensor<1x2x5x3xf32>
    %conv_valid_m = pd.elementwise_mul %conv_valid_o, %conv_valid_r {pd.out_names = ["conv_valid_m"]} : (tensor<1x2x5x3xf32>, tensor<1x2x5x3xf32>) -> tensor<1x2x5x3xf32>
    %conv_valid_l = pd.mean %conv_valid_m {pd.out_names = ["conv_valid_l"]} : (tensor<1x2x5x3xf32>) -> tensor<f32>
    // conv_nhwc
    %conv_nhwc_Input = pd.read_var @conv_nhwc_Input : tensor<2x6x6x3xf32>
    %conv_nhwc_Filter = pd.read_var @conv_nhwc_Filter : tensor<4x3x3x3xf32>
    %conv_nhwc_o = pd.conv2d %conv_nhwc_Input, %conv_nhwc_Filter {data_format = "NHWC", strides = array<i32: 1, 2>, paddings = array<i32: 1, 1>, pd.out_names = ["conv_nhwc_o"]} : (tensor<2x6x6x3xf32>, tensor<4x3x3x3xf32>) -> tensor<2x6x3x4xf32>
    %conv_nhwc_r = pd.read_var @conv_nhwc_r : tensor<2x6x3x4xf32>
    %conv_nhwc_m = pd.elementwise_mul %conv_nhwc_o, %conv_nhwc_r {pd.out_names = ["conv_nhwc_m"]} : (tensor<2x6x3x4xf32>, tensor<2x6x3x4xf32>) -> tensor<2x6x3x4xf32>
    %conv_nhwc_l = pd.mean %conv_nhwc_m {pd.out_names = ["conv_nhwc_l"]} : (tensor<2x6x3x4xf32>) -> tensor<f32>
    // conv_1x1
    %conv_1x1_Input = pd.read_var @conv_1x1_Input : tensor<2x4x5x5xf32>
    %conv_1x1_Filter = pd.read_var @conv_1x1_Filter : tensor<3x4x1x1xf32>
    %conv_1x1_o = pd.conv2d %conv_1x1_Input, %conv_1x1_Filter {pd.out_names = ["conv_1x1_o"]} : (tensor<2x4x5x5xf32>, tensor<3x4x1x1xf32>) -> tensor<2x3x5x5xf32>
    %conv_1x1_r = pd.read_var @conv_1x1_r : tensor<2x3x5x5xf32>
    %conv_1x1_m = pd.elementwise_mul %conv_1x1_o, %conv_1x1_r {pd.out_names = ["conv_1x1_m"]} : (tensor<2x3x5x5xf32>, tensor<2x3x5x5xf32>) -> tensor<2x3x5x5xf32>
    %conv_1x1_l = pd.mean %conv_1x1_m {pd.out_names = ["conv_1x1_l"]} : (tensor<2x3x5x5xf32>) -> tensor<f32>
    // conv_bias
    %conv_bias_Input = pd.read_var @conv_bias_Input : tensor<2x5x6x4xf32>
    %conv_bias_Filter = pd.read_var @conv_bias_Filter : tensor<4x2x2x3xf32>
    %conv_bias_Bias = pd.read_var @conv_bias_Bias : tensor<4xf32>
    %conv_bias_o = pd.conv2d %conv_bias_Input, %conv_bias_Filter, %conv_bias_Bias {groups = 2 : i32, paddings = array<i32: 1, 0>, data_format = "NHWC", pd.out_names = ["conv_bias_o"]} : (tensor<2x5x6x4xf32>, tensor<4x2x2x3xf32>, tensor<4xf32>) -> tensor<2x6x4x4xf32>
    %conv_bias_r = pd.read_var @conv_bias_r : tensor<2x6x4x4xf32>
    %conv_bias_m = pd.elementwise_mul %conv_bias_o, %conv_bias_r {pd.out_names = ["conv_bias_m"]} : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
    %conv_bias_l = pd.mean %conv_bias_m {pd.out_names = ["conv_bias_l"]} : (tensor<2x6x4x4xf32>) -> tensor<f32>
    // dwconv
    %dwconv_Input = pd.read_var @dwconv_Input : tensor<2x3x6x6xf32>
    %dwconv_Filter = pd.read_var @dwconv_Filter : tensor<6x1x3x3xf32>
    %dwconv_o = pd.depthwise_conv2d %dwconv_Input, %dwconv_Filter {groups = 3 : i32, strides = array<i32: 2, 2>, paddings = array<i32: 1, 1>, pd.out_names = ["dwconv_o"]} : (tensor<2x3x6x6xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x3x3xf32>
    %dwconv_r = pd.read_var @dwconv_r : tensor<2x6x3x3xf32>
    %dwconv_m = pd.elementwise_mul %dwconv_o, %dwconv_r {pd.out_names = ["dwconv_m"]} : (tensor<2x6x3x3xf32>, tensor<2x6x3x3xf32>) -> tensor<2x6x3x3xf32>
    %dwconv_l = pd.mean %dwconv_m {pd.out_names = ["dwconv_l"]} : (tensor<2x6x3x3xf32>) -> tensor<f32>
    // convt_basic
    %convt_basic_Input = pd.read_var @convt_basic_Input : tensor<2x3x4x4xf32>
    %convt_basic_Filter = pd.read_var @convt_basic_Filter : tensor<3x2x3x3xf32>
    %convt_basic_o = pd.conv2d_transpose %convt_basic_Input, %convt_basic_Filter {strides = array<i32: 2, 2>, paddings = array<i32: 1, 1>, pd.out_names = ["convt_basic_o"]} : (tensor<2x3x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<2x2x7x7xf32>
    %convt_basic_r = pd.read_var @convt_basic_r : tensor<2x2x7x7xf32>
    %convt_basic_m = pd.elementwise_mul %convt_basic_o, %convt_basic_r {pd.out_names = ["convt_basic_m"]} : (tensor<2x2x7x7xf32>, tensor<2x2x7x7xf32>) -> tensor<2x2x7x7xf32>
    %convt_basic_l = pd.mean %convt_basic_m {pd.out_names = ["convt_basic_l"]} : (tensor<2x2x7x7xf32>) -> tensor<f32>
    // convt_grp
    %convt_grp_Input = pd.read_var @convt_grp_Input : tensor<1x4x3x3xf32>
    %convt_grp_Filter = pd.read_var @convt_grp_Filter : tensor<4x3x3x3xf32>
    %convt_grp_o = pd.conv2d_transpose %convt_grp_Input, %convt_grp_Filter {groups = 2 : i32, strides = array<i32: 2, 2>, paddings = array<i32: 0, 1, 1, 0>, output_size = array<i32: 7, 6>, pd.out_names = ["convt_grp_o"]} : (tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x6xf32>
    %convt_grp_r = pd.read_var @convt_grp_r : tensor<1x6x7x6xf32>
    %convt_grp_m = pd.elementwise_mul %convt_grp_o, %convt_grp_r {pd.out_names = ["convt_grp_m"]} : (tensor<1x6x7x6xf32>, tensor<1x6x7x6xf32>) -> tensor<1x6x7x6xf32>
    %convt_grp_l = pd.mean %convt_grp_m {pd.out_names = ["convt_grp_l"]} : (tensor<1x6x7x6xf32>) -> tensor<f32>
    // convt_nhwc
    %convt_nhwc_Input = pd.read_var @convt_nhwc_Input : tensor<2x3x3x2xf32>
    %convt_nhwc_Filter = pd.read_var @convt_nhwc_Filter : tensor<2x3x2x2xf32>
    %convt_nhwc_o = pd.conv2d_transpose %convt_nhwc_Input, %convt_nhwc_Filter {data_format = "NHWC", dilations = array<i32: 2, 1>, strides = array<i32: 2, 2>, output_padding = array<i32: 1, 1>, pd.out_names = ["convt_nhwc_o"]} : (tensor<2x3x3x2xf32>, tensor<2x3x2x2xf32>) -> tensor<2x8x7x3xf32>
    %convt_nhwc_r = pd.read_var @convt_nhwc_r : tensor<2x8x7x3xf32>
    %convt_nhwc_m = pd.elementwise_mul %convt_nhwc_o, %convt_nhwc_r {pd.out_names = ["convt_nhwc_m"]} : (tensor<2x8x7x3xf32>, tensor<2x8x7x3xf32>) -> tensor<2x8x7x3xf32>
    %convt_nhwc_l = pd.mean %convt_nhwc_m {pd.out_names = ["convt_nhwc_l"]} : (tensor<2x8x7x3xf32>) -> tensor<f32>
    // convt_same
    %convt_same_Input = pd.read_var @convt_same_Input : tensor<1x2x5x4xf32>
    %convt_same_Filter = pd.read_var @convt_same_Filter : tensor<2x3x3x3xf32>
    %convt_same_o = pd.conv2d_transpose %convt_same_Input, %convt_same_Filter {strides = array<i32: 2, 2>, padding_algorithm = "SAME", pd.out_names = ["convt_same_o"]} : (tensor<1x2x5x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x9x8xf32>
    %convt_same_r = pd.read_var @convt_same_r : tensor<1x3x9x8xf32>
    %convt_same_m = pd.elementwise_mul %convt_same_o, %convt_same_r {pd.out_names = ["convt_same_m"]} : (tensor<1x3x9x8xf32>, tensor<1x3x9x8xf32>) -> tensor<1x3x9x8xf32>
    %convt_same_l = pd.mean %convt_same_m {pd.out_names = ["convt_same_l"]} : (tensor<1x3x9x8xf32>) -> tensor<f32>
    // pool_avg_nhwc
    %pool_avg_nhwc_X = pd.read_var @pool_avg_nhwc_X : tensor<2x5x6x3xf32>
    %pool_avg_nhwc_o = pd.pool2d %pool_avg_nhwc_X {pooling_type = "avg", ksize = array<i32: 2, 3>, strides = array<i32: 2, 2>, paddings = array<i32: 1, 1>, exclusive = false, ceil_mode = true, data_format = "NHWC", pd.out_names = ["pool_avg_nhwc_o"]} : (tensor<2x5x6x3xf32>) -> tensor<2x4x4x3xf32>
    %pool_avg_nhwc_r = pd.read_var @pool_avg_nhwc_r : tensor<2x4x4x3xf32>
    %pool_avg_nhwc_m = pd.elementwise_mul %pool_avg_nhwc_o, %pool_avg_nhwc_r {pd.out_names = ["pool_avg_nhwc_m"]} : (tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>) -> tensor<2x4x4x3xf32>
    %pool_avg_nhwc_l = pd.mean %pool_avg_nhwc_m {pd.out_names = ["pool_avg_nhwc_l"]} : (tensor<2x4x4x3xf32>) -> tensor<f32>
    // pool_max
    %pool_max_X = pd.read_var @pool_max_X : tensor<2x3x6x6xf32>
    %pool_max_o = pd.pool2d %pool_max_X {pooling_type = "max", ksize = array<i32: 3, 3>, strides = array<i32: 2, 2>, paddings = array<i32: 1, 1>, pd.out_names = ["pool_max_o"]} : (tensor<2x3x6x6xf32>) -> tensor<2x3x3x3xf32>
    %pool_max_r = pd.read_var @pool_max_r : tensor<2x3x3x3xf32>
    %pool_max_m = pd.elementwise_mul %pool_max_o, %pool_max_r {pd.out_names = ["pool_max_m"]} : (tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
    %pool_max_l = pd.mean %pool_max_m {pd.out_names = ["pool_max_l"]} : (tensor<2x3x3x3xf32>) -> tensor<f32>
    // pool_max_ceil
    %pool_max_ceil_X = pd.read_var @pool_max_ceil_X : tensor<1x2x7x7xf32>
    %pool_max_ceil_o = pd.pool2d %pool_max_ceil_X {pooling_type = "max", ksize = array<i32: 2, 2>, strides = array<i32: 2, 2>, ceil_mode = true, pd.out_names = ["pool_max_ceil_o"]} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
    %pool_max_ceil_r = pd.read_var @pool_max_ceil_r : tensor<1x2x4x4xf32>
    %pool_max_ceil_m = pd.elementwise_mul %pool_max_ceil_o, %pool_max_ceil_r {pd.out_names = ["pool_max_ceil_m"]} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %pool_max_ceil_l = pd.mean %pool_max_ceil_m {pd.out_names = ["pool_max_ceil_l"]} : (tensor<1x2x4x4xf32>) -> tensor<f32>
    // pool_avg_incl
    %pool_avg_incl_X = pd.read_var @pool_avg_incl_X : tensor<2x2x5x5xf32>
    %pool_avg_incl_o = pd.pool2d %pool_avg_incl_X {pooling_type = "avg", ksize = array<i32: 3, 3>, strides = array<i32: 2, 2>, paddings = array<i32: 1, 1>, exclusive = false, pd.out_names = ["pool_avg_incl_o"]} : (tensor<2x2x5x5xf32>) -> tensor<2x2x3x3xf32>
    %pool_avg_incl_r = pd.read_var @pool_avg_incl_r : tensor<2x2x3x3xf32>
    %pool_avg_incl_m = pd.elementwise_mul %pool_avg_incl_o, %pool_avg_incl_r {pd.out_names = ["pool_avg_incl_m"]} : (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
    %pool_avg_incl_l = pd.mean %pool_avg_incl_m {pd.out_names = ["pool_avg_incl_l"]} : (tensor<2x2x3x3xf32>) -> tensor<f32>
    // pool_avg_excl
    %pool_avg_excl_X = pd.read_var @pool_avg_excl_X : tensor<1x2x6x5xf32>
    %pool_avg_excl_o = pd.pool2d %pool_avg_excl_X {pooling_type = "avg", ksize = array<i32: 2, 3>, strides = array<i32: 2, 1>, paddings = array<i32: 1, 0, 0, 1>, ceil_mode = true, pd.out_names = ["pool_avg_excl_o"]} : (tensor<1x2x6x5xf32>) -> tensor<1x2x4x4xf32>
    %pool_avg_excl_r = pd.read_var @pool_avg_excl_r : tensor<1x2x4x4xf32>
    %pool_avg_excl_m = pd.elementwise_mul %pool_avg_excl_o, %pool_avg_excl_r {pd.out_names = ["pool_avg_excl_m"]} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %pool_avg_excl_l = pd.mean %pool_avg_excl_m {pd.out_names = ["pool_avg_excl_l"]} : (tensor<1x2x4x4xf32>) -> tensor<f32>
    // pool_avg_adapt
    %pool_avg_adapt_X = pd.read_var @pool_avg_adapt_X : tensor<2x2x7x5xf32>
    %pool_avg_adapt_o = pd.pool2d %pool_avg_adapt_X {pooling_type = "avg", ksize = array<i32: 3, 2>, adaptive = true, pd.out_names = ["pool_avg_adapt_o"]} : (tensor<2x2x7x5xf32>) -> tensor<2x2x3x2xf32>
    %pool_avg_adapt_r = pd.read_var @pool_avg_adapt_r : tensor<2x2x3x2xf32>
    %pool_avg_adapt_m = pd.elementwise_mul %pool_avg_adapt_o, %pool_avg_adapt_r {pd.out_names = ["pool_avg_adapt_m"]} : (tensor<2x2x3x2xf32>, tensor<2x2x3x2xf32>) -> tensor<2x2x3x2xf32>
    %pool_avg_adapt_l = pd.mean %pool_avg_adapt_m {pd.out_names = ["pool_avg_adapt_l"]} : (tensor<2x2x3x2xf32>) -> tensor<f32>
    // pool_max_adapt
    %pool_max_adapt_X = pd.read_var @pool_max_adapt_X : tensor<1x2x5x7xf32>
    %pool_max_adapt_o = pd.pool2d %pool_max_adapt_X {pooling_type = "max", ksize = array<i32: 2, 3>, adaptive = true, pd.out_names = ["pool_max_adapt_o"]} : (tensor<1x2x5x7xf32>) -> tensor<1x2x2x3xf32>
    %pool_max_adapt_r = pd.read_var @pool_max_adapt_r : tensor<1x2x2x3xf32>
    %pool_max_adapt_m = pd.elementwise_mul %pool_max_adapt_o, %pool_max_adapt_r {pd.out_names = ["pool_max_adapt_m"]} : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
    %pool_max_adapt_l = pd.mean %pool_max_adapt_m {pd.out_names = ["pool_max_adapt_l"]} : (tensor<1x2x2x3xf32>) -> tensor<f32>
    // pool_avg_global
    %pool_avg_global_X = pd.read_var @pool_avg_global_X : tensor<2x4x4x3xf32>
    %pool_avg_global_o = pd.pool2d %pool_avg_global_X {pooling_type = "avg", ksize = array<i32: 1, 1>, global_pooling = true, data_format = "NHWC", pd.out_names = ["pool_avg_global_o"]} : (tensor<2x4x4x3xf32>) -> tensor<2x1x1x3xf32>
    %pool_avg_global_r = pd.read_var @pool_avg_global_r : tensor<2x1x1x3xf32>
    %pool_avg_global_m = pd.elementwise_mul %pool_avg_global_o, %pool_avg_global_r {pd.out_names = ["pool_avg_global_m"]} : (tensor<2x1x1x3xf32>, tensor<2x1x1x3xf32>) -> tensor<2x1x1x3xf32>
    %pool_avg_global_l = pd.mean %pool_avg_global_m {pd.out_names = ["pool_avg_global_l"]} : (tensor<2x1x1x3xf32>) -> tensor<f32>
    // pool_max_same
    %pool_max_same_X = pd.read_var @pool_max_same_X : tensor<1x2x7x6xf32>
    %pool_max_same_o = pd.pool2d %pool_max_same_X {pooling_type = "max", ksize = array<i32: 3, 3>, strides = array<i32: 2, 2>, padding_algorithm = "SAME", pd.out_names = ["pool_max_same_o"]} : (tensor<1x2x7x6xf32>) -> tensor<1x2x4x3xf32>
    %pool_max_same_r = pd.read_var @pool_max_same_r : tensor<1x2x4x3xf32>
    %pool_max_same_m = pd.elementwise_mul %pool_max_same_o, %pool_max_same_r {pd.out_names = ["pool_max_same_m"]} : (tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
    %pool_max_same_l = pd.mean %pool_max_same_m {pd.out_names = ["pool_max_same_l"]} : (tensor<1x2x4x3xf32>) -> tensor<f32>
    // pool_max_global
    %pool_max_global_X = pd.read_var @pool_max_global_X : tensor<2x3x4x5xf32>
    %pool_max_global_o = pd.pool2d %pool_max_global_X {pooling_type = "max", ksize = array<i32: 1, 1>, global_pooling = true, pd.out_names = ["pool_max_global_o"]} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
    %pool_max_global_r = pd.read_var @pool_max_global_r : tensor<2x3x1x1xf32>
    %pool_max_global_m = pd.elementwise_mul %pool_max_global_o, %pool_max_global_r {pd.out_names = ["pool_max_global_m"]} : (tensor<2x3x1x1xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x1x1xf32>
    %pool_max_global_l = pd.mean %pool_max_global_m {pd.out_names = ["pool_max_global_l"]} : (tensor<2x3x1x1xf32>) -> tensor<f32>
    %loss = pd.sum %conv_basic_l, %conv_grp_l, %conv_dil_l, %conv_same_l, %conv_valid_l, %conv_nhwc_l, %conv_1x1_l, %conv_bias_l, %dwconv_l, %convt_basic_l, %convt_grp_l, %convt_nhwc_l, %convt_same_l, %pool_avg_nhwc_l, %pool_max_l, %pool_max_ceil_l, %pool_avg_incl_l, %pool_avg_excl_l, %pool_avg_adapt_l, %pool_max_adapt_l, %pool_avg_global_l, %pool_max_same_l, %pool_max_global_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
