// A convolutional digits classifier (train-cnn.test): the 8x8 images through
// conv2d 3x3 + relu, max pooling 2x2, a depthwise conv2d and average pooling,
// then a linear layer and softmax cross entropy. Parameters start from the
// startup program's initializers.
module {
  pd.var @conv_w persistable is_parameter : tensor<8x1x3x3xf32>
  pd.var @dw_w persistable is_parameter : tensor<8x1x3x3xf32>
  pd.var @fc_w persistable is_parameter : tensor<32x10xf32>
  pd.var @fc_b persistable is_parameter : tensor<10xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x64xf32>
    %label = pd.feed {col = 1 : i32, pd.out_names = ["label"]} : tensor<?x1xi64>
    %img, %imgs = pd.reshape2 %x {shape = array<i32: -1, 1, 8, 8>, pd.out_names = ["img", "img_xshape"]} : (tensor<?x64xf32>) -> (tensor<?x1x8x8xf32>, tensor<0x?x64xf32>)
    %cw = pd.read_var @conv_w : tensor<8x1x3x3xf32>
    %c = pd.conv2d %img, %cw {paddings = array<i32: 1, 1>, pd.out_names = ["c"]} : (tensor<?x1x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x8x8xf32>
    %r = pd.relu %c {pd.out_names = ["r"]} : (tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
    %p = pd.pool2d %r {pooling_type = "max", ksize = array<i32: 2, 2>, strides = array<i32: 2, 2>, pd.out_names = ["p"]} : (tensor<?x8x8x8xf32>) -> tensor<?x8x4x4xf32>
    %dw = pd.read_var @dw_w : tensor<8x1x3x3xf32>
    %d = pd.depthwise_conv2d %p, %dw {groups = 8 : i32, paddings = array<i32: 1, 1>, pd.out_names = ["d"]} : (tensor<?x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<?x8x4x4xf32>
    %a = pd.pool2d %d {pooling_type = "avg", ksize = array<i32: 2, 2>, strides = array<i32: 2, 2>, pd.out_names = ["a"]} : (tensor<?x8x4x4xf32>) -> tensor<?x8x2x2xf32>
    %f, %fs = pd.reshape2 %a {shape = array<i32: -1, 32>, pd.out_names = ["f", "f_xshape"]} : (tensor<?x8x2x2xf32>) -> (tensor<?x32xf32>, tensor<0x?x8x2x2xf32>)
    %fw = pd.read_var @fc_w : tensor<32x10xf32>
    %fb = pd.read_var @fc_b : tensor<10xf32>
    %m = pd.mul %f, %fw {pd.out_names = ["m"]} : (tensor<?x32xf32>, tensor<32x10xf32>) -> tensor<?x10xf32>
    %logits = pd.elementwise_add %m, %fb {axis = 1 : i32, pd.out_names = ["logits"]} : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
    %prob = pd.softmax %logits {pd.out_names = ["prob"]} : (tensor<?x10xf32>) -> tensor<?x10xf32>
    %sm, %xent = pd.softmax_with_cross_entropy %logits, %label {pd.out_names = ["softmax_0", "xent"]} : (tensor<?x10xf32>, tensor<?x1xi64>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
    %loss = pd.mean %xent {pd.out_names = ["loss"]} : (tensor<?x1xf32>) -> tensor<f32>
    pd.fetch %prob {col = 0 : i32} : tensor<?x10xf32>
  }
  pd.program @startup {
    %0 = pd.gaussian_random {shape = array<i64: 8, 1, 3, 3>, std = 0.5 : f32, seed = 1 : i32, pd.out_names = ["conv_w"]} : () -> tensor<8x1x3x3xf32>
    pd.write_var @conv_w, %0 : tensor<8x1x3x3xf32>
    %1 = pd.gaussian_random {shape = array<i64: 8, 1, 3, 3>, std = 0.5 : f32, seed = 2 : i32, pd.out_names = ["dw_w"]} : () -> tensor<8x1x3x3xf32>
    pd.write_var @dw_w, %1 : tensor<8x1x3x3xf32>
    %2 = pd.gaussian_random {shape = array<i64: 32, 10>, std = 0.2 : f32, seed = 3 : i32, pd.out_names = ["fc_w"]} : () -> tensor<32x10xf32>
    pd.write_var @fc_w, %2 : tensor<32x10xf32>
    %3 = pd.fill_constant {shape = array<i64: 10>, value = 0.0 : f32, dtype = 5 : i32, pd.out_names = ["fc_b"]} : () -> tensor<10xf32>
    pd.write_var @fc_b, %3 : tensor<10xf32>
  }
}
