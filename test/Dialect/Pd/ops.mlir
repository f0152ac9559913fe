// RUN: distc-opt %s -split-input-file | distc-opt -split-input-file | FileCheck %s

// Round trip of every pd op: structural ops first, then each catalog family.

// CHECK-LABEL: pd.var @fc_w persistable is_parameter : tensor<784x10xf32>
// CHECK: pd.var @lr persistable stop_gradient : tensor<1xf32>
// CHECK-LABEL: pd.program @main {
// CHECK: %[[X:.*]] = pd.feed : tensor<?x784xf32>
// CHECK: %[[L:.*]] = pd.feed {col = 1 : i32} : tensor<?x1xi64>
// CHECK: %[[W:.*]] = pd.read_var @fc_w : tensor<784x10xf32>
// CHECK: pd.write_var @fc_w, %[[W]] : tensor<784x10xf32>
// CHECK: pd.fetch %[[X]] {col = 2 : i32} : tensor<?x784xf32>
// CHECK-LABEL: pd.program @startup {
// CHECK-NEXT: }
pd.var @fc_w persistable is_parameter : tensor<784x10xf32>
pd.var @lr persistable stop_gradient : tensor<1xf32>
pd.program @main {
  %x = pd.feed {col = 0 : i32} : tensor<?x784xf32>
  %label = pd.feed {col = 1 : i32} : tensor<?x1xi64>
  %w = pd.read_var @fc_w : tensor<784x10xf32>
  pd.write_var @fc_w, %w : tensor<784x10xf32>
  pd.fetch %x {col = 2 : i32} : tensor<?x784xf32>
}
pd.program @startup {
}

// -----

// Discardable attributes: the ProgramDesc output names and Paddle's common
// op attributes survive a round trip.
// CHECK-LABEL: pd.program @common_attrs
// CHECK: pd.relu %{{.*}} {op_device = "gpu:0", op_namescope = "/fc/", op_role = 0 : i32, op_role_var = ["w", "w@GRAD"], pd.out_names = ["relu_0.tmp_0"], with_quant_attr = false}
// CHECK: pd.reshape2 %{{.*}} {pd.out_names = ["r", ""], shape = array<i32: 0, -1>}
pd.program @common_attrs {
  %x = pd.feed : tensor<?x4x8xf32>
  %0 = pd.relu %x {op_role = 0 : i32, op_role_var = ["w", "w@GRAD"], op_namescope = "/fc/", op_device = "gpu:0", with_quant_attr = false, pd.out_names = ["relu_0.tmp_0"]} : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  %1:2 = pd.reshape2 %0 {shape = array<i32: 0, -1>, pd.out_names = ["r", ""]} : (tensor<?x4x8xf32>) -> (tensor<?x32xf32>, tensor<0x?x4x8xf32>)
}

// -----

// Attributes equal to their Paddle default are elided when printing.
// CHECK-LABEL: pd.program @creation
// CHECK: pd.fill_constant {dtype = 3 : i32, shape = array<i64: 1>, value = 1.000000e+00 : f32} : () -> tensor<1xi64>
// CHECK: pd.fill_constant {shape = array<i64: -1, 4>} : () -> tensor<?x4xf32>
// CHECK: pd.uniform_random {max = 5.000000e-01 : f32, min = -5.000000e-01 : f32, seed = 7 : i32, shape = array<i64: 784, 10>} : () -> tensor<784x10xf32>
// CHECK: pd.gaussian_random {dtype = 6 : i32, shape = array<i64: 3>, std = 2.000000e-02 : f32} : () -> tensor<3xf64>
// CHECK: pd.truncated_gaussian_random {dtype = 22 : i32, shape = array<i32: 2, 2>} : () -> tensor<2x2xbf16>
// CHECK: pd.assign %{{.*}} : (tensor<1xi64>) -> tensor<1xi64>
// CHECK: pd.cast %{{.*}} {in_dtype = 3 : i32} : (tensor<1xi64>) -> tensor<1xf32>
// CHECK: pd.scale %{{.*}} {bias = 1.000000e+00 : f32, bias_after_scale = false, scale = 2.000000e+00 : f32} : (tensor<1xf32>) -> tensor<1xf32>
pd.program @creation {
  %0 = pd.fill_constant {shape = array<i64: 1>, dtype = 3 : i32, value = 1.0 : f32} : () -> tensor<1xi64>
  %1 = pd.fill_constant {shape = array<i64: -1, 4>} : () -> tensor<?x4xf32>
  %2 = pd.uniform_random {shape = array<i64: 784, 10>, min = -0.5 : f32, max = 0.5 : f32, seed = 7 : i32} : () -> tensor<784x10xf32>
  %3 = pd.gaussian_random {shape = array<i64: 3>, std = 0.02 : f32, dtype = 6 : i32} : () -> tensor<3xf64>
  %4 = pd.truncated_gaussian_random {shape = array<i32: 2, 2>, dtype = 22 : i32} : () -> tensor<2x2xbf16>
  %5 = pd.assign %0 : (tensor<1xi64>) -> tensor<1xi64>
  %6 = pd.cast %5 {in_dtype = 3 : i32, out_dtype = 5 : i32} : (tensor<1xi64>) -> tensor<1xf32>
  %7 = pd.scale %6 {scale = 2.0 : f32, bias = 1.0 : f32, bias_after_scale = false} : (tensor<1xf32>) -> tensor<1xf32>
}

// -----

// CHECK-LABEL: pd.program @linalg
// CHECK: pd.mul %{{.*}}, %{{.*}} {x_num_col_dims = 2 : i32} : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
// CHECK: pd.matmul_v2 %{{.*}}, %{{.*}} : (tensor<?x8x3x4xf32>, tensor<4x6xf32>) -> tensor<?x8x3x6xf32>
// CHECK: pd.matmul_v2 %{{.*}}, %{{.*}} {trans_x = true, trans_y = true} : (tensor<2x4x3xf32>, tensor<1x6x4xf32>) -> tensor<2x3x6xf32>
// CHECK: pd.matmul_v2 %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
// CHECK: pd.matmul_v2 %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<?x4x6xf32>) -> tensor<?x6xf32>
pd.program @linalg {
  %x = pd.feed : tensor<?x3x4xf32>
  %y = pd.feed : tensor<4x5xf32>
  %0 = pd.mul %x, %y {x_num_col_dims = 2 : i32, y_num_col_dims = 1 : i32} : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  %a = pd.feed : tensor<?x8x3x4xf32>
  %b = pd.feed : tensor<4x6xf32>
  %1 = pd.matmul_v2 %a, %b : (tensor<?x8x3x4xf32>, tensor<4x6xf32>) -> tensor<?x8x3x6xf32>
  %c = pd.feed : tensor<2x4x3xf32>
  %d = pd.feed : tensor<1x6x4xf32>
  %2 = pd.matmul_v2 %c, %d {trans_x = true, trans_y = true} : (tensor<2x4x3xf32>, tensor<1x6x4xf32>) -> tensor<2x3x6xf32>
  %v = pd.feed : tensor<4xf32>
  %3 = pd.matmul_v2 %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %e = pd.feed : tensor<?x4x6xf32>
  %4 = pd.matmul_v2 %v, %e : (tensor<4xf32>, tensor<?x4x6xf32>) -> tensor<?x6xf32>
}

// -----

// CHECK-LABEL: pd.program @elementwise
// CHECK: pd.elementwise_add %{{.*}}, %{{.*}} {axis = 1 : i32} : (tensor<?x3x4xf32>, tensor<3xf32>) -> tensor<?x3x4xf32>
// CHECK: pd.elementwise_sub %{{.*}}, %{{.*}} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
// CHECK: pd.elementwise_mul %{{.*}}, %{{.*}} : (tensor<?x1x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
// CHECK: pd.elementwise_div %{{.*}}, %{{.*}} : (tensor<f32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
pd.program @elementwise {
  %x = pd.feed : tensor<?x3x4xf32>
  %c = pd.feed : tensor<3xf32>
  %r = pd.feed : tensor<4xf32>
  %0 = pd.elementwise_add %x, %c {axis = 1 : i32} : (tensor<?x3x4xf32>, tensor<3xf32>) -> tensor<?x3x4xf32>
  %1 = pd.elementwise_sub %x, %r {axis = -1 : i32} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %a = pd.feed : tensor<?x1x4xf32>
  %b = pd.feed : tensor<2x?x4xf32>
  %2 = pd.elementwise_mul %a, %b : (tensor<?x1x4xf32>, tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %s = pd.feed : tensor<f32>
  %3 = pd.elementwise_div %s, %x : (tensor<f32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
}

// -----

// CHECK-LABEL: pd.program @activations
// CHECK: pd.relu %{{.*}} : (tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK: pd.sigmoid %{{.*}} : (tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK: pd.tanh %{{.*}} : (tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK: pd.gelu %{{.*}} {approximate = true} : (tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK: pd.square %{{.*}} : (tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK: pd.softmax %{{.*}} {axis = 0 : i32} : (tensor<?x64xf32>) -> tensor<?x64xf32>
pd.program @activations {
  %x = pd.feed : tensor<?x64xf32>
  %0 = pd.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %1 = pd.sigmoid %0 : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %2 = pd.tanh %1 : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %3 = pd.gelu %2 {approximate = true} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %4 = pd.square %3 : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %5 = pd.softmax %4 {axis = 0 : i32} : (tensor<?x64xf32>) -> tensor<?x64xf32>
}

// -----

// A full reduction is 0-D (Paddle >= 2.5) or [1] (older programs).
// CHECK-LABEL: pd.program @reductions
// CHECK: pd.reduce_sum %{{.*}} {dim = array<i32: -1>, keep_dim = true} : (tensor<?x3x4xf32>) -> tensor<?x3x1xf32>
// CHECK: pd.reduce_sum %{{.*}} {reduce_all = true} : (tensor<?x3x4xi32>) -> tensor<i64>
// CHECK: pd.reduce_sum %{{.*}} {dim = array<i32: 1>, out_dtype = 6 : i32} : (tensor<?x3x4xf32>) -> tensor<?x4xf64>
// CHECK: pd.reduce_mean %{{.*}} {dim = array<i32: 0, 1, 2>} : (tensor<?x3x4xf32>) -> tensor<1xf32>
// CHECK: pd.mean %{{.*}} : (tensor<?x3x4xf32>) -> tensor<f32>
// CHECK: pd.mean %{{.*}} : (tensor<?x3x4xf32>) -> tensor<1xf32>
pd.program @reductions {
  %x = pd.feed : tensor<?x3x4xf32>
  %i = pd.feed : tensor<?x3x4xi32>
  %0 = pd.reduce_sum %x {dim = array<i32: -1>, keep_dim = true} : (tensor<?x3x4xf32>) -> tensor<?x3x1xf32>
  %1 = pd.reduce_sum %i {reduce_all = true} : (tensor<?x3x4xi32>) -> tensor<i64>
  %2 = pd.reduce_sum %x {dim = array<i32: 1>, out_dtype = 6 : i32} : (tensor<?x3x4xf32>) -> tensor<?x4xf64>
  %3 = pd.reduce_mean %x {dim = array<i32: 0, 1, 2>} : (tensor<?x3x4xf32>) -> tensor<1xf32>
  %4 = pd.mean %x : (tensor<?x3x4xf32>) -> tensor<f32>
  %5 = pd.mean %x : (tensor<?x3x4xf32>) -> tensor<1xf32>
}

// -----

// CHECK-LABEL: pd.program @shapes
// CHECK: pd.reshape2 %{{.*}} {shape = array<i32: 0, -1>} : (tensor<?x3x4xf32>) -> (tensor<?x12xf32>, tensor<0x?x3x4xf32>)
// CHECK: pd.reshape2 %{{.*}} {shape = array<i32: 6, -1>} : (tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<0x2x3x4xf32>)
// CHECK: pd.transpose2 %{{.*}} {axis = array<i32: 0, 2, 1>} : (tensor<?x3x4xf32>) -> (tensor<?x4x3xf32>, tensor<0x?x3x4xf32>)
// CHECK: pd.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i32} : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x2xf32>) -> tensor<?x3x10xf32>
// CHECK: pd.split %{{.*}} {axis = 2 : i32, sections = array<i32: 1, -1>} : (tensor<?x3x4xf32>) -> (tensor<?x3x1xf32>, tensor<?x3x3xf32>)
// CHECK: pd.split %{{.*}} {axis = 1 : i32} : (tensor<?x3x4xf32>) -> (tensor<?x1x4xf32>, tensor<?x1x4xf32>, tensor<?x1x4xf32>)
// CHECK: pd.slice %{{.*}} {axes = array<i32: 1, 2>, ends = array<i32: 2, 100>, starts = array<i32: 1, -3>} : (tensor<?x3x4xf32>) -> tensor<?x1x3xf32>
// CHECK: pd.slice %{{.*}} {axes = array<i32: 1>, decrease_axis = array<i32: 1>, ends = array<i32: 1>, infer_flags = array<i32: 1>, starts = array<i32: 0>} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
pd.program @shapes {
  %x = pd.feed : tensor<?x3x4xf32>
  %s = pd.feed : tensor<2x3x4xf32>
  %0:2 = pd.reshape2 %x {shape = array<i32: 0, -1>} : (tensor<?x3x4xf32>) -> (tensor<?x12xf32>, tensor<0x?x3x4xf32>)
  %1:2 = pd.reshape2 %s {shape = array<i32: 6, -1>} : (tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<0x2x3x4xf32>)
  %2:2 = pd.transpose2 %x {axis = array<i32: 0, 2, 1>} : (tensor<?x3x4xf32>) -> (tensor<?x4x3xf32>, tensor<0x?x3x4xf32>)
  %y = pd.feed : tensor<?x3x2xf32>
  %3 = pd.concat %x, %x, %y {axis = -1 : i32} : (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x2xf32>) -> tensor<?x3x10xf32>
  %4:2 = pd.split %x {axis = 2 : i32, sections = array<i32: 1, -1>} : (tensor<?x3x4xf32>) -> (tensor<?x3x1xf32>, tensor<?x3x3xf32>)
  %5:3 = pd.split %x {axis = 1 : i32} : (tensor<?x3x4xf32>) -> (tensor<?x1x4xf32>, tensor<?x1x4xf32>, tensor<?x1x4xf32>)
  %6 = pd.slice %x {axes = array<i32: 1, 2>, starts = array<i32: 1, -3>, ends = array<i32: 2, 100>} : (tensor<?x3x4xf32>) -> tensor<?x1x3xf32>
  %7 = pd.slice %x {axes = array<i32: 1>, starts = array<i32: 0>, ends = array<i32: 1>, decrease_axis = array<i32: 1>, infer_flags = array<i32: 1>} : (tensor<?x3x4xf32>) -> tensor<?x4xf32>
}

// -----

// CHECK-LABEL: pd.program @nn
// CHECK: pd.lookup_table_v2 %{{.*}}, %{{.*}} {padding_idx = 0 : i64} : (tensor<?x16xi64>, tensor<1000x64xf32>) -> tensor<?x16x64xf32>
// CHECK: pd.layer_norm %{{.*}} scale %{{.*}} bias %{{.*}} {begin_norm_axis = 2 : i32, epsilon = 9.99999997E-7 : f32} : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<?x16x64xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK: pd.layer_norm %{{.*}} bias %{{.*}} {begin_norm_axis = 2 : i32} : (tensor<?x16x64xf16>, tensor<64xf32>) -> (tensor<?x16x64xf16>, tensor<?xf32>, tensor<?xf32>)
// CHECK: pd.dropout %{{.*}} {dropout_implementation = "upscale_in_train", dropout_prob = 1.000000e-01 : f32} : (tensor<?x16x64xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x64xui8>)
pd.program @nn {
  %ids = pd.feed : tensor<?x16xi64>
  %table = pd.feed : tensor<1000x64xf32>
  %0 = pd.lookup_table_v2 %ids, %table {padding_idx = 0 : i64} : (tensor<?x16xi64>, tensor<1000x64xf32>) -> tensor<?x16x64xf32>
  %g = pd.feed : tensor<64xf32>
  %1:3 = pd.layer_norm %0 scale %g bias %g {begin_norm_axis = 2 : i32, epsilon = 1.0e-6 : f32} : (tensor<?x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<?x16x64xf32>, tensor<?xf32>, tensor<?xf32>)
  %h = pd.feed : tensor<?x16x64xf16>
  %2:3 = pd.layer_norm %h bias %g {begin_norm_axis = 2 : i32} : (tensor<?x16x64xf16>, tensor<64xf32>) -> (tensor<?x16x64xf16>, tensor<?xf32>, tensor<?xf32>)
  %3:2 = pd.dropout %0 {dropout_prob = 0.1 : f32, dropout_implementation = "upscale_in_train"} : (tensor<?x16x64xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x64xui8>)
}

// -----

// CHECK-LABEL: pd.program @losses
// CHECK: pd.softmax_with_cross_entropy %{{.*}}, %{{.*}} : (tensor<?x10xf32>, tensor<?x1xi64>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
// CHECK: pd.softmax_with_cross_entropy %{{.*}}, %{{.*}} {soft_label = true} : (tensor<?x10xf32>, tensor<?x10xf32>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
// CHECK: pd.top_k_v2 %{{.*}} {k = 5 : i32} : (tensor<?x10xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>)
// CHECK: pd.accuracy %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x5xf32>, tensor<?x5xi64>, tensor<?x1xi64>) -> (tensor<1xf32>, tensor<1xi32>, tensor<1xi32>)
pd.program @losses {
  %logits = pd.feed : tensor<?x10xf32>
  %label = pd.feed : tensor<?x1xi64>
  %soft = pd.feed : tensor<?x10xf32>
  %0:2 = pd.softmax_with_cross_entropy %logits, %label : (tensor<?x10xf32>, tensor<?x1xi64>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
  %1:2 = pd.softmax_with_cross_entropy %logits, %soft {soft_label = true} : (tensor<?x10xf32>, tensor<?x10xf32>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
  %2:2 = pd.top_k_v2 %0#0 {k = 5 : i32} : (tensor<?x10xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>)
  %3:3 = pd.accuracy %2#0, %2#1, %label : (tensor<?x5xf32>, tensor<?x5xi64>, tensor<?x1xi64>) -> (tensor<1xf32>, tensor<1xi32>, tensor<1xi32>)
}

// -----

// The communicator setup of a startup program: the id is an empty ui8
// tensor (Paddle's RAW variable); rank -1 and no endpoints leave both to the
// runtime's rendezvous.
// CHECK-LABEL: pd.program @communicator
// CHECK: %[[ID:.*]] = pd.c_gen_nccl_id {endpoint = "", rank = -1 : i32} : () -> tensor<0xui8>
// CHECK: pd.c_comm_init %[[ID]] {nranks = 4 : i32, rank = -1 : i32} : (tensor<0xui8>) -> ()
// CHECK: %[[ID2:.*]] = pd.c_gen_nccl_id {endpoint = "10.0.0.1:6170", other_endpoints = ["10.0.0.2:6170"], ring_id = 1 : i32} : () -> tensor<0xui8>
// CHECK: pd.c_comm_init %[[ID2]] {device_id = 0 : i32, nranks = 2 : i32, rank = 0 : i32, ring_id = 1 : i32} : (tensor<0xui8>) -> ()
pd.program @communicator {
  %id = pd.c_gen_nccl_id {endpoint = "", rank = -1 : i32} : () -> tensor<0xui8>
  pd.c_comm_init %id {nranks = 4 : i32, rank = -1 : i32} : (tensor<0xui8>) -> ()
  %id2 = pd.c_gen_nccl_id {endpoint = "10.0.0.1:6170", other_endpoints = ["10.0.0.2:6170"], rank = 0 : i32, ring_id = 1 : i32} : () -> tensor<0xui8>
  pd.c_comm_init %id2 {nranks = 2 : i32, rank = 0 : i32, ring_id = 1 : i32, device_id = 0 : i32} : (tensor<0xui8>) -> ()
}

// -----

// Convolutions and pooling; the fused form's Bias is a third operand, and
// conv2d_grad's Bias@GRAD a third result.
// CHECK-LABEL: pd.program @conv
// CHECK: pd.conv2d %{{.*}}, %{{.*}} {groups = 2 : i32, paddings = array<i32: 1, 0, 2, 1>, strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x4x5xf32>
// CHECK: pd.conv2d %{{.*}}, %{{.*}}, %{{.*}} {data_format = "NHWC"} : (tensor<?x9x9x4xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x7x7x6xf32>
// CHECK: pd.depthwise_conv2d %{{.*}}, %{{.*}} {groups = 4 : i32, padding_algorithm = "SAME"} : (tensor<?x4x9x9xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x9x9xf32>
// CHECK: pd.conv2d_transpose %{{.*}}, %{{.*}} {output_size = array<i32: 20, 19>, strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x20x19xf32>
// CHECK: pd.pool2d %{{.*}} {ceil_mode = true, ksize = array<i32: 2, 2>, pooling_type = "max", strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>) -> tensor<?x4x5x5xf32>
// CHECK: pd.conv2d_grad %{{.*}}, %{{.*}}, %{{.*}} {groups = 2 : i32, paddings = array<i32: 1, 0, 2, 1>, strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<?x6x4x5xf32>) -> (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
// CHECK: pd.pool2d_grad %{{.*}}, %{{.*}}, %{{.*}} {ceil_mode = true, ksize = array<i32: 2, 2>, pooling_type = "max", strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<?x4x5x5xf32>, tensor<?x4x5x5xf32>) -> tensor<?x4x9x9xf32>
pd.program @conv {
  %x = pd.feed : tensor<?x4x9x9xf32>
  %xl = pd.feed : tensor<?x9x9x4xf32>
  %w = pd.feed : tensor<6x2x3x3xf32>
  %wl = pd.feed : tensor<6x4x3x3xf32>
  %b = pd.feed : tensor<6xf32>
  %dw = pd.feed : tensor<4x1x3x3xf32>
  %tw = pd.feed : tensor<4x3x3x3xf32>
  %0 = pd.conv2d %x, %w {groups = 2 : i32, paddings = array<i32: 1, 0, 2, 1>, strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x4x5xf32>
  %1 = pd.conv2d %xl, %wl, %b {data_format = "NHWC"} : (tensor<?x9x9x4xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x7x7x6xf32>
  %2 = pd.depthwise_conv2d %x, %dw {groups = 4 : i32, padding_algorithm = "SAME"} : (tensor<?x4x9x9xf32>, tensor<4x1x3x3xf32>) -> tensor<?x4x9x9xf32>
  %3 = pd.conv2d_transpose %x, %tw {output_size = array<i32: 20, 19>, strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<?x3x20x19xf32>
  %4 = pd.pool2d %x {ceil_mode = true, ksize = array<i32: 2, 2>, pooling_type = "max", strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>) -> tensor<?x4x5x5xf32>
  %5:3 = pd.conv2d_grad %x, %w, %0 {groups = 2 : i32, paddings = array<i32: 1, 0, 2, 1>, strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<?x6x4x5xf32>) -> (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
  %6 = pd.pool2d_grad %x, %4, %4 {ceil_mode = true, ksize = array<i32: 2, 2>, pooling_type = "max", strides = array<i32: 2, 2>} : (tensor<?x4x9x9xf32>, tensor<?x4x5x5xf32>, tensor<?x4x5x5xf32>) -> tensor<?x4x9x9xf32>
}

// -----

// The reshard collectives of partitioned programs: each resizes one axis
// by its ring's group size.
// CHECK-LABEL: pd.program @reshard
// CHECK: pd.c_allgather %{{.*}} {axis = 1 : i32, nranks = 2 : i32, ring_id = 1 : i32} : (tensor<?x4xf32>) -> tensor<?x8xf32>
// CHECK: pd.c_reducescatter %{{.*}} {axis = 1 : i32, nranks = 2 : i32, ring_id = 1 : i32} : (tensor<?x4xf32>) -> tensor<?x2xf32>
// CHECK: pd.alltoall %{{.*}} {nranks = 2 : i32, ring_id = 1 : i32, split_axis = 1 : i32} : (tensor<6x4xf32>) -> tensor<12x2xf32>
// CHECK: pd.c_split %{{.*}} {nranks = 2 : i32, ring_id = 1 : i32} : (tensor<?x4xf32>) -> tensor<?x2xf32>
// CHECK: pd.c_root_only %{{.*}} {ring_id = 2 : i32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: pd.c_allreduce_max %{{.*}} {ring_id = 1 : i32, use_calc_stream = true} : (tensor<?x4xf32>) -> tensor<?x4xf32>
pd.program @reshard {
  %x = pd.feed : tensor<?x4xf32>
  %y = pd.feed {col = 1 : i32} : tensor<6x4xf32>
  %0 = pd.c_allgather %x {axis = 1 : i32, nranks = 2 : i32, ring_id = 1 : i32} : (tensor<?x4xf32>) -> tensor<?x8xf32>
  %1 = pd.c_reducescatter %x {axis = 1 : i32, nranks = 2 : i32, ring_id = 1 : i32} : (tensor<?x4xf32>) -> tensor<?x2xf32>
  %2 = pd.alltoall %y {concat_axis = 0 : i32, nranks = 2 : i32, ring_id = 1 : i32, split_axis = 1 : i32} : (tensor<6x4xf32>) -> tensor<12x2xf32>
  %3 = pd.c_split %x {nranks = 2 : i32, ring_id = 1 : i32} : (tensor<?x4xf32>) -> tensor<?x2xf32>
  %4 = pd.c_root_only %x {ring_id = 2 : i32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %5 = pd.c_allreduce_max %x {ring_id = 1 : i32, use_calc_stream = true} : (tensor<?x4xf32>) -> tensor<?x4xf32>
}

// -----

// A row-sparse gradient (Paddle's SelectedRows) cut into the blocks the
// parameter servers hold.
// CHECK-LABEL: pd.program @sparse
// CHECK: pd.split_selected_rows %{{.*}} {height_sections = array<i64: 600, 400>} : (tensor<1000x64xf32, #pd.selected_rows>) -> (tensor<600x64xf32, #pd.selected_rows>, tensor<400x64xf32, #pd.selected_rows>)
pd.program @sparse {
  %g = pd.feed : tensor<1000x64xf32, #pd.selected_rows>
  %0:2 = pd.split_selected_rows %g {height_sections = array<i64: 600, 400>} : (tensor<1000x64xf32, #pd.selected_rows>) -> (tensor<600x64xf32, #pd.selected_rows>, tensor<400x64xf32, #pd.selected_rows>)
}
