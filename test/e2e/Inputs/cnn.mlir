// A small convolutional network with a symbolic batch (conv-forward.test):
// conv2d + relu, max pooling, depthwise_conv2d in NHWC order reached through
// a transpose, conv2d_transpose back up and global average pooling.
module {
  pd.var @conv_w persistable is_parameter : tensor<8x3x3x3xf32>
  pd.var @dw_w persistable is_parameter : tensor<16x1x3x3xf32>
  pd.var @up_w persistable is_parameter : tensor<16x4x2x2xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3x10x10xf32>
    %cw = pd.read_var @conv_w : tensor<8x3x3x3xf32>
    %c = pd.conv2d %x, %cw {paddings = array<i32: 1, 1>, use_cudnn = true, pd.out_names = ["c"]} : (tensor<?x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x10x10xf32>
    %r = pd.relu %c {pd.out_names = ["r"]} : (tensor<?x8x10x10xf32>) -> tensor<?x8x10x10xf32>
    %p = pd.pool2d %r {pooling_type = "max", ksize = array<i32: 3, 3>, strides = array<i32: 2, 2>, ceil_mode = true, pd.out_names = ["p"]} : (tensor<?x8x10x10xf32>) -> tensor<?x8x5x5xf32>
    %t, %ts = pd.transpose2 %p {axis = array<i32: 0, 2, 3, 1>, pd.out_names = ["t", "ts"]} : (tensor<?x8x5x5xf32>) -> (tensor<?x5x5x8xf32>, tensor<0x?x8x5x5xf32>)
    %dw = pd.read_var @dw_w : tensor<16x1x3x3xf32>
    %d = pd.depthwise_conv2d %t, %dw {groups = 8 : i32, padding_algorithm = "SAME", data_format = "NHWC", pd.out_names = ["d"]} : (tensor<?x5x5x8xf32>, tensor<16x1x3x3xf32>) -> tensor<?x5x5x16xf32>
    %dt, %dts = pd.transpose2 %d {axis = array<i32: 0, 3, 1, 2>, pd.out_names = ["dt", "dts"]} : (tensor<?x5x5x16xf32>) -> (tensor<?x16x5x5xf32>, tensor<0x?x5x5x16xf32>)
    %uw = pd.read_var @up_w : tensor<16x4x2x2xf32>
    %u = pd.conv2d_transpose %dt, %uw {strides = array<i32: 2, 2>, groups = 2 : i32, output_size = array<i32: 11, 10>, pd.out_names = ["u"]} : (tensor<?x16x5x5xf32>, tensor<16x4x2x2xf32>) -> tensor<?x8x11x10xf32>
    %g = pd.pool2d %u {pooling_type = "avg", ksize = array<i32: 1, 1>, global_pooling = true, pd.out_names = ["g"]} : (tensor<?x8x11x10xf32>) -> tensor<?x8x1x1xf32>
    pd.fetch %u {col = 0 : i32} : tensor<?x8x11x10xf32>
    pd.fetch %g {col = 1 : i32} : tensor<?x8x1x1xf32>
  }
}
