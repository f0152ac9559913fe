// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-lower-to-artifact="print" -o /dev/null | FileCheck %s

// Paddle's padding rules are resolved for the kernels: SAME pads 7x7 by
// stride 2 with a 3x3 kernel by 1 on each side (and resets the dilations),
// 2-value paddings become [top, bottom, left, right], NHWC is a flag, global
// pooling is adaptive pooling to 1x1. The batch stays a symbol.
// CHECK-LABEL: artifact: <artifact>
// CHECK: $0 = x.dim0
// CHECK: = conv2d(%{{[0-9]+}}, %{{[0-9]+}}, none) {dilations = [1, 1], groups = 1, nhwc = 0, paddings = [1, 1, 1, 1], strides = [2, 2]}   // conv2d -> c
// CHECK: = conv2d(%{{[0-9]+}}, %{{[0-9]+}}, none) {dilations = [1, 1], groups = 4, nhwc = 1, paddings = [0, 0, 2, 2], strides = [1, 1]}   // depthwise_conv2d -> d
// CHECK: = pool2d(%{{[0-9]+}}) {adaptive = 1, exclusive = 1, ksize = [1, 1], nhwc = 0, paddings = [0, 0, 0, 0], strides = [1, 1], type = "avg"}   // pool2d -> g
// CHECK: = pool2d(%{{[0-9]+}}) {adaptive = 0, exclusive = 0, ksize = [3, 3], nhwc = 0, paddings = [0, 1, 0, 1], strides = [2, 2], type = "max"}   // pool2d -> m
module {
  pd.var @w persistable is_parameter : tensor<4x3x3x3xf32>
  pd.var @dw persistable is_parameter : tensor<8x1x1x3xf32>
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3x7x7xf32>
    %w = pd.read_var @w : tensor<4x3x3x3xf32>
    %c = pd.conv2d %x, %w {strides = array<i32: 2, 2>, dilations = array<i32: 2, 2>, padding_algorithm = "SAME", pd.out_names = ["c"]} : (tensor<?x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x4x4xf32>
    %dw = pd.read_var @dw : tensor<8x1x1x3xf32>
    %d = pd.depthwise_conv2d %c, %dw {groups = 4 : i32, paddings = array<i32: 0, 2>, data_format = "NHWC", pd.out_names = ["d"]} : (tensor<?x4x4x4xf32>, tensor<8x1x1x3xf32>) -> tensor<?x4x6x8xf32>
    %g = pd.pool2d %d {pooling_type = "avg", ksize = array<i32: 3, 3>, paddings = array<i32: 1, 1>, global_pooling = true, pd.out_names = ["g"]} : (tensor<?x4x6x8xf32>) -> tensor<?x4x1x1xf32>
    %m = pd.pool2d %d {pooling_type = "max", ksize = array<i32: 3, 3>, strides = array<i32: 2, 2>, exclusive = false, padding_algorithm = "SAME", pd.out_names = ["m"]} : (tensor<?x4x6x8xf32>) -> tensor<?x4x3x4xf32>
    pd.fetch %g : tensor<?x4x1x1xf32>
    pd.fetch %m : tensor<?x4x3x4xf32>
  }
}

// -----

// A fused activation distc does not have is refused by name (the ones it
// has are computed after the convolution: test/e2e/conv-fused.test).
module {
  pd.var @w persistable is_parameter : tensor<4x3x3x3xf32>
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3x7x7xf32>
    %w = pd.read_var @w : tensor<4x3x3x3xf32>
    // expected-error @below {{attribute 'fuse_activation' = 'mish' is not an activation distc fuses}}
    %c = pd.conv2d %x, %w {fuse_activation = "mish", use_mkldnn = true, pd.out_names = ["c"]} : (tensor<?x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x5x5xf32>
    pd.fetch %c : tensor<?x4x5x5xf32>
  }
}

// -----

module {
  pd.var @w persistable is_parameter : tensor<4x3x3x3xf32>
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3x7x7xf32>
    %w = pd.read_var @w : tensor<4x3x3x3xf32>
    // expected-error @below {{attribute 'fuse_residual_connection' asks for a fused or quantized form, which distc does not run; export the program without it}}
    %c = pd.conv2d %x, %w {fuse_residual_connection = true, pd.out_names = ["c"]} : (tensor<?x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x5x5xf32>
    pd.fetch %c : tensor<?x4x5x5xf32>
  }
}

// -----

// Only the batch may be symbolic.
module {
  pd.var @w persistable is_parameter : tensor<4x3x3x3xf32>
  pd.program @predict.main attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x3x?x7xf32>
    %w = pd.read_var @w : tensor<4x3x3x3xf32>
    // expected-error @below {{Input [x.dim0, 3, x.dim2, 7] needs static channel and spatial dims (only the batch dim may be symbolic)}}
    %c = pd.conv2d %x, %w {pd.out_names = ["c"]} : (tensor<?x3x?x7xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x?x5xf32>
    pd.fetch %c : tensor<?x4x?x5xf32>
  }
}
