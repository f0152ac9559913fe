// Gradient check inputs (see grad-norm.test): batch_norm with the running
// statistics (use_global_stats; is_test, NHWC), affine_channel (NCHW, NHWC),
// relu6, hard_swish, hard_sigmoid, swish, leaky_relu, and matmul (v1) with
// alpha, transposes and batch dims. Training-time batch_norm, whose batch
// statistics need a train program: Inputs/grad-ops/batch-norm-train.mlir.
//
// Each case is independent: its float inputs are the parameters <case>_<slot>
// (the running mean and variance are fixed), its output is weighted by the
// persistable <case>_r, and loss = sum of mean(out * r). Inputs/gradcheck.py
// norm writes the values and the float64 finite-difference gradients.
module {
  pd.var @bn_g_x persistable is_parameter : tensor<2x3x2x2xf32>
  pd.var @bn_g_scale persistable is_parameter : tensor<3xf32>
  pd.var @bn_g_bias persistable is_parameter : tensor<3xf32>
  pd.var @bn_g_mean persistable : tensor<3xf32>
  pd.var @bn_g_var persistable : tensor<3xf32>
  pd.var @bn_g_r persistable : tensor<2x3x2x2xf32>
  pd.var @bn_t_x persistable is_parameter : tensor<2x2x2x3xf32>
  pd.var @bn_t_scale persistable is_parameter : tensor<3xf32>
  pd.var @bn_t_bias persistable is_parameter : tensor<3xf32>
  pd.var @bn_t_mean persistable : tensor<3xf32>
  pd.var @bn_t_var persistable : tensor<3xf32>
  pd.var @bn_t_r persistable : tensor<2x2x2x3xf32>
  pd.var @ac_x persistable is_parameter : tensor<2x3x2x2xf32>
  pd.var @ac_scale persistable is_parameter : tensor<3xf32>
  pd.var @ac_bias persistable is_parameter : tensor<3xf32>
  pd.var @ac_r persistable : tensor<2x3x2x2xf32>
  pd.var @ac_nhwc_x persistable is_parameter : tensor<2x2x3xf32>
  pd.var @ac_nhwc_scale persistable is_parameter : tensor<3xf32>
  pd.var @ac_nhwc_bias persistable is_parameter : tensor<3xf32>
  pd.var @ac_nhwc_r persistable : tensor<2x2x3xf32>
  pd.var @relu6_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @relu6_r persistable : tensor<2x3x4xf32>
  pd.var @relu6_t_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @relu6_t_r persistable : tensor<2x3x4xf32>
  pd.var @hswish_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @hswish_r persistable : tensor<2x3x4xf32>
  pd.var @hsig_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @hsig_r persistable : tensor<2x3x4xf32>
  pd.var @swish_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @swish_r persistable : tensor<2x3x4xf32>
  pd.var @leaky_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @leaky_r persistable : tensor<2x3x4xf32>
  pd.var @mm1_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mm1_y persistable is_parameter : tensor<4x5xf32>
  pd.var @mm1_r persistable : tensor<2x3x5xf32>
  pd.var @mm_t_x persistable is_parameter : tensor<4x3xf32>
  pd.var @mm_t_y persistable is_parameter : tensor<5x4xf32>
  pd.var @mm_t_r persistable : tensor<3x5xf32>
  pd.var @mm_b_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @mm_b_y persistable is_parameter : tensor<2x4x2xf32>
  pd.var @mm_b_r persistable : tensor<2x3x2xf32>
  pd.program @main {
    // batch_norm with the running statistics (use_global_stats), NCHW
    %bn_g_x = pd.read_var @bn_g_x : tensor<2x3x2x2xf32>
    %bn_g_scale = pd.read_var @bn_g_scale : tensor<3xf32>
    %bn_g_bias = pd.read_var @bn_g_bias : tensor<3xf32>
    %bn_g_mean = pd.read_var @bn_g_mean : tensor<3xf32>
    %bn_g_var = pd.read_var @bn_g_var : tensor<3xf32>
    %bn_g_y, %bn_g_mo, %bn_g_vo, %bn_g_sm, %bn_g_sv, %bn_g_rs = pd.batch_norm %bn_g_x, %bn_g_scale, %bn_g_bias, %bn_g_mean, %bn_g_var {use_global_stats = true, pd.out_names = ["bn_g_y", "bn_g_mo", "bn_g_vo", "bn_g_sm", "bn_g_sv", "bn_g_rs"]} : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %bn_g_r = pd.read_var @bn_g_r : tensor<2x3x2x2xf32>
    %bn_g_m = pd.elementwise_mul %bn_g_y, %bn_g_r {pd.out_names = ["bn_g_m"]} : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
    %bn_g_l = pd.mean %bn_g_m {pd.out_names = ["bn_g_l"]} : (tensor<2x3x2x2xf32>) -> tensor<f32>
    // batch_norm at test time, NHWC, epsilon 1e-3
    %bn_t_x = pd.read_var @bn_t_x : tensor<2x2x2x3xf32>
    %bn_t_scale = pd.read_var @bn_t_scale : tensor<3xf32>
    %bn_t_bias = pd.read_var @bn_t_bias : tensor<3xf32>
    %bn_t_mean = pd.read_var @bn_t_mean : tensor<3xf32>
    %bn_t_var = pd.read_var @bn_t_var : tensor<3xf32>
    %bn_t_y, %bn_t_mo, %bn_t_vo, %bn_t_sm, %bn_t_sv, %bn_t_rs = pd.batch_norm %bn_t_x, %bn_t_scale, %bn_t_bias, %bn_t_mean, %bn_t_var {is_test = true, data_layout = "NHWC", epsilon = 1.000000e-03 : f32, pd.out_names = ["bn_t_y", "bn_t_mo", "bn_t_vo", "bn_t_sm", "bn_t_sv", "bn_t_rs"]} : (tensor<2x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
    %bn_t_r = pd.read_var @bn_t_r : tensor<2x2x2x3xf32>
    %bn_t_m = pd.elementwise_mul %bn_t_y, %bn_t_r {pd.out_names = ["bn_t_m"]} : (tensor<2x2x2x3xf32>, tensor<2x2x2x3xf32>) -> tensor<2x2x2x3xf32>
    %bn_t_l = pd.mean %bn_t_m {pd.out_names = ["bn_t_l"]} : (tensor<2x2x2x3xf32>) -> tensor<f32>
    // affine_channel, NCHW (AnyLayout)
    %ac_x = pd.read_var @ac_x : tensor<2x3x2x2xf32>
    %ac_scale = pd.read_var @ac_scale : tensor<3xf32>
    %ac_bias = pd.read_var @ac_bias : tensor<3xf32>
    %ac_o = pd.affine_channel %ac_x, %ac_scale, %ac_bias {pd.out_names = ["ac_o"]} : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x2x2xf32>
    %ac_r = pd.read_var @ac_r : tensor<2x3x2x2xf32>
    %ac_m = pd.elementwise_mul %ac_o, %ac_r {pd.out_names = ["ac_m"]} : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
    %ac_l = pd.mean %ac_m {pd.out_names = ["ac_l"]} : (tensor<2x3x2x2xf32>) -> tensor<f32>
    // affine_channel, NHWC
    %ac_nhwc_x = pd.read_var @ac_nhwc_x : tensor<2x2x3xf32>
    %ac_nhwc_scale = pd.read_var @ac_nhwc_scale : tensor<3xf32>
    %ac_nhwc_bias = pd.read_var @ac_nhwc_bias : tensor<3xf32>
    %ac_nhwc_o = pd.affine_channel %ac_nhwc_x, %ac_nhwc_scale, %ac_nhwc_bias {data_layout = "NHWC", pd.out_names = ["ac_nhwc_o"]} : (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x2x3xf32>
    %ac_nhwc_r = pd.read_var @ac_nhwc_r : tensor<2x2x3xf32>
    %ac_nhwc_m = pd.elementwise_mul %ac_nhwc_o, %ac_nhwc_r {pd.out_names = ["ac_nhwc_m"]} : (tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %ac_nhwc_l = pd.mean %ac_nhwc_m {pd.out_names = ["ac_nhwc_l"]} : (tensor<2x2x3xf32>) -> tensor<f32>
    // relu6
    %relu6_x = pd.read_var @relu6_x : tensor<2x3x4xf32>
    %relu6_o = pd.relu6 %relu6_x {pd.out_names = ["relu6_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %relu6_r = pd.read_var @relu6_r : tensor<2x3x4xf32>
    %relu6_m = pd.elementwise_mul %relu6_o, %relu6_r {pd.out_names = ["relu6_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %relu6_l = pd.mean %relu6_m {pd.out_names = ["relu6_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // relu6
    %relu6_t_x = pd.read_var @relu6_t_x : tensor<2x3x4xf32>
    %relu6_t_o = pd.relu6 %relu6_t_x {threshold = 2.000000e+00 : f32, pd.out_names = ["relu6_t_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %relu6_t_r = pd.read_var @relu6_t_r : tensor<2x3x4xf32>
    %relu6_t_m = pd.elementwise_mul %relu6_t_o, %relu6_t_r {pd.out_names = ["relu6_t_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %relu6_t_l = pd.mean %relu6_t_m {pd.out_names = ["relu6_t_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // hard_swish
    %hswish_x = pd.read_var @hswish_x : tensor<2x3x4xf32>
    %hswish_o = pd.hard_swish %hswish_x {pd.out_names = ["hswish_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %hswish_r = pd.read_var @hswish_r : tensor<2x3x4xf32>
    %hswish_m = pd.elementwise_mul %hswish_o, %hswish_r {pd.out_names = ["hswish_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %hswish_l = pd.mean %hswish_m {pd.out_names = ["hswish_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // hard_sigmoid
    %hsig_x = pd.read_var @hsig_x : tensor<2x3x4xf32>
    %hsig_o = pd.hard_sigmoid %hsig_x {pd.out_names = ["hsig_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %hsig_r = pd.read_var @hsig_r : tensor<2x3x4xf32>
    %hsig_m = pd.elementwise_mul %hsig_o, %hsig_r {pd.out_names = ["hsig_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %hsig_l = pd.mean %hsig_m {pd.out_names = ["hsig_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // swish
    %swish_x = pd.read_var @swish_x : tensor<2x3x4xf32>
    %swish_o = pd.swish %swish_x {beta = 1.500000e+00 : f32, pd.out_names = ["swish_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %swish_r = pd.read_var @swish_r : tensor<2x3x4xf32>
    %swish_m = pd.elementwise_mul %swish_o, %swish_r {pd.out_names = ["swish_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %swish_l = pd.mean %swish_m {pd.out_names = ["swish_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // leaky_relu
    %leaky_x = pd.read_var @leaky_x : tensor<2x3x4xf32>
    %leaky_o = pd.leaky_relu %leaky_x {alpha = 1.000000e-01 : f32, pd.out_names = ["leaky_o"]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %leaky_r = pd.read_var @leaky_r : tensor<2x3x4xf32>
    %leaky_m = pd.elementwise_mul %leaky_o, %leaky_r {pd.out_names = ["leaky_m"]} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %leaky_l = pd.mean %leaky_m {pd.out_names = ["leaky_l"]} : (tensor<2x3x4xf32>) -> tensor<f32>
    // matmul (v1): batched X, shared Y, alpha 0.5
    %mm1_x = pd.read_var @mm1_x : tensor<2x3x4xf32>
    %mm1_y = pd.read_var @mm1_y : tensor<4x5xf32>
    %mm1_o = pd.matmul %mm1_x, %mm1_y {alpha = 5.000000e-01 : f32, pd.out_names = ["mm1_o"]} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    %mm1_r = pd.read_var @mm1_r : tensor<2x3x5xf32>
    %mm1_m = pd.elementwise_mul %mm1_o, %mm1_r {pd.out_names = ["mm1_m"]} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %mm1_l = pd.mean %mm1_m {pd.out_names = ["mm1_l"]} : (tensor<2x3x5xf32>) -> tensor<f32>
    // matmul (v1): both transposed, alpha 2
    %mm_t_x = pd.read_var @mm_t_x : tensor<4x3xf32>
    %mm_t_y = pd.read_var @mm_t_y : tensor<5x4xf32>
    %mm_t_o = pd.matmul %mm_t_x, %mm_t_y {transpose_X = true, transpose_Y = true, alpha = 2.000000e+00 : f32, pd.out_names = ["mm_t_o"]} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
    %mm_t_r = pd.read_var @mm_t_r : tensor<3x5xf32>
    %mm_t_m = pd.elementwise_mul %mm_t_o, %mm_t_r {pd.out_names = ["mm_t_m"]} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %mm_t_l = pd.mean %mm_t_m {pd.out_names = ["mm_t_l"]} : (tensor<3x5xf32>) -> tensor<f32>
    // matmul (v1): equal batch dims
    %mm_b_x = pd.read_var @mm_b_x : tensor<2x3x4xf32>
    %mm_b_y = pd.read_var @mm_b_y : tensor<2x4x2xf32>
    %mm_b_o = pd.matmul %mm_b_x, %mm_b_y {pd.out_names = ["mm_b_o"]} : (tensor<2x3x4xf32>, tensor<2x4x2xf32>) -> tensor<2x3x2xf32>
    %mm_b_r = pd.read_var @mm_b_r : tensor<2x3x2xf32>
    %mm_b_m = pd.elementwise_mul %mm_b_o, %mm_b_r {pd.out_names = ["mm_b_m"]} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %mm_b_l = pd.mean %mm_b_m {pd.out_names = ["mm_b_l"]} : (tensor<2x3x2xf32>) -> tensor<f32>
    %loss = pd.sum %bn_g_l, %bn_t_l, %ac_l, %ac_nhwc_l, %relu6_l, %relu6_t_l, %hswish_l, %hsig_l, %swish_l, %leaky_l, %mm1_l, %mm_t_l, %mm_b_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
