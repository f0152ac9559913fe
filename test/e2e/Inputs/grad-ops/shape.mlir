// Gradient check inputs (see grad-shape.test): concat, split (num, sections
// with -1, an unused piece), slice (negative and clamped bounds,
// decrease_axis down to 0-D).
//
// Each case is independent: its float inputs are the parameters <case>_<slot>,
// its output k is weighted by the persistable <case>_r (<case>_r<k>), and
// loss = sum of mean(out_k * r_k). Inputs/gradcheck.py <family> writes the
// values and the float64 finite-difference gradients.
module {
  pd.var @concat_a persistable is_parameter : tensor<2x1x4xf32>
  pd.var @concat_b persistable is_parameter : tensor<2x3x4xf32>
  pd.var @concat_c persistable is_parameter : tensor<2x2x4xf32>
  pd.var @concat_r persistable : tensor<2x6x4xf32>
  pd.var @concat_neg_a persistable is_parameter : tensor<3x2xf32>
  pd.var @concat_neg_b persistable is_parameter : tensor<3x3xf32>
  pd.var @concat_neg_r persistable : tensor<3x5xf32>
  pd.var @split_num_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @split_num_r0 persistable : tensor<2x1x4xf32>
  pd.var @split_num_r1 persistable : tensor<2x1x4xf32>
  pd.var @split_num_r2 persistable : tensor<2x1x4xf32>
  pd.var @split_sec_x persistable is_parameter : tensor<2x3x5xf32>
  pd.var @split_sec_r0 persistable : tensor<2x3x2xf32>
  pd.var @split_sec_r1 persistable : tensor<2x3x2xf32>
  pd.var @split_sec_r2 persistable : tensor<2x3x1xf32>
  pd.var @split_unused_x persistable is_parameter : tensor<4x3xf32>
  pd.var @split_unused_r persistable : tensor<2x3xf32>
  pd.var @slice_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @slice_r persistable : tensor<2x1x3xf32>
  pd.var @slice_neg_x persistable is_parameter : tensor<4x5xf32>
  pd.var @slice_neg_r persistable : tensor<2x3xf32>
  pd.var @slice_dec_x persistable is_parameter : tensor<2x3x4xf32>
  pd.var @slice_dec_r persistable : tensor<2x4xf32>
  pd.var @slice_dec2_x persistable is_parameter : tensor<3x4xf32>
  pd.var @slice_dec2_r persistable : tensor<f32>
  pd.program @main {
    // concat
    %concat_a = pd.read_var @concat_a : tensor<2x1x4xf32>
    %concat_b = pd.read_var @concat_b : tensor<2x3x4xf32>
    %concat_c = pd.read_var @concat_c : tensor<2x2x4xf32>
    %concat_o = pd.concat %concat_a, %concat_b, %concat_c {axis = 1 : i32, pd.out_names = ["concat_o"]} : (tensor<2x1x4xf32>, tensor<2x3x4xf32>, tensor<2x2x4xf32>) -> tensor<2x6x4xf32>
    %concat_r = pd.read_var @concat_r : tensor<2x6x4xf32>
    %concat_m = pd.elementwise_mul %concat_o, %concat_r {pd.out_names = ["concat_m"]} : (tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
    %concat_l = pd.mean %concat_m {pd.out_names = ["concat_l"]} : (tensor<2x6x4xf32>) -> tensor<f32>
    // concat_neg
    %concat_neg_a = pd.read_var @concat_neg_a : tensor<3x2xf32>
    %concat_neg_b = pd.read_var @concat_neg_b : tensor<3x3xf32>
    %concat_neg_o = pd.concat %concat_neg_a, %concat_neg_b {axis = -1 : i32, pd.out_names = ["concat_neg_o"]} : (tensor<3x2xf32>, tensor<3x3xf32>) -> tensor<3x5xf32>
    %concat_neg_r = pd.read_var @concat_neg_r : tensor<3x5xf32>
    %concat_neg_m = pd.elementwise_mul %concat_neg_o, %concat_neg_r {pd.out_names = ["concat_neg_m"]} : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %concat_neg_l = pd.mean %concat_neg_m {pd.out_names = ["concat_neg_l"]} : (tensor<3x5xf32>) -> tensor<f32>
    // split_num
    %split_num_x = pd.read_var @split_num_x : tensor<2x3x4xf32>
    %split_num_o0, %split_num_o1, %split_num_o2 = pd.split %split_num_x {axis = 1 : i32, num = 3 : i32, pd.out_names = ["split_num_o0", "split_num_o1", "split_num_o2"]} : (tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x1x4xf32>, tensor<2x1x4xf32>)
    %split_num_r0 = pd.read_var @split_num_r0 : tensor<2x1x4xf32>
    %split_num_m0 = pd.elementwise_mul %split_num_o0, %split_num_r0 {pd.out_names = ["split_num_m0"]} : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
    %split_num_l0 = pd.mean %split_num_m0 {pd.out_names = ["split_num_l0"]} : (tensor<2x1x4xf32>) -> tensor<f32>
    %split_num_r1 = pd.read_var @split_num_r1 : tensor<2x1x4xf32>
    %split_num_m1 = pd.elementwise_mul %split_num_o1, %split_num_r1 {pd.out_names = ["split_num_m1"]} : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
    %split_num_l1 = pd.mean %split_num_m1 {pd.out_names = ["split_num_l1"]} : (tensor<2x1x4xf32>) -> tensor<f32>
    %split_num_r2 = pd.read_var @split_num_r2 : tensor<2x1x4xf32>
    %split_num_m2 = pd.elementwise_mul %split_num_o2, %split_num_r2 {pd.out_names = ["split_num_m2"]} : (tensor<2x1x4xf32>, tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
    %split_num_l2 = pd.mean %split_num_m2 {pd.out_names = ["split_num_l2"]} : (tensor<2x1x4xf32>) -> tensor<f32>
    // split_sec
    %split_sec_x = pd.read_var @split_sec_x : tensor<2x3x5xf32>
    %split_sec_o0, %split_sec_o1, %split_sec_o2 = pd.split %split_sec_x {axis = 2 : i32, sections = array<i32: 2, -1, 1>, pd.out_names = ["split_sec_o0", "split_sec_o1", "split_sec_o2"]} : (tensor<2x3x5xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x1xf32>)
    %split_sec_r0 = pd.read_var @split_sec_r0 : tensor<2x3x2xf32>
    %split_sec_m0 = pd.elementwise_mul %split_sec_o0, %split_sec_r0 {pd.out_names = ["split_sec_m0"]} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %split_sec_l0 = pd.mean %split_sec_m0 {pd.out_names = ["split_sec_l0"]} : (tensor<2x3x2xf32>) -> tensor<f32>
    %split_sec_r1 = pd.read_var @split_sec_r1 : tensor<2x3x2xf32>
    %split_sec_m1 = pd.elementwise_mul %split_sec_o1, %split_sec_r1 {pd.out_names = ["split_sec_m1"]} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %split_sec_l1 = pd.mean %split_sec_m1 {pd.out_names = ["split_sec_l1"]} : (tensor<2x3x2xf32>) -> tensor<f32>
    %split_sec_r2 = pd.read_var @split_sec_r2 : tensor<2x3x1xf32>
    %split_sec_m2 = pd.elementwise_mul %split_sec_o2, %split_sec_r2 {pd.out_names = ["split_sec_m2"]} : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
    %split_sec_l2 = pd.mean %split_sec_m2 {pd.out_names = ["split_sec_l2"]} : (tensor<2x3x1xf32>) -> tensor<f32>
    // split_unused
    %split_unused_x = pd.read_var @split_unused_x : tensor<4x3xf32>
    %split_unused_o0, %split_unused_o1 = pd.split %split_unused_x {num = 2 : i32, pd.out_names = ["split_unused_o0", "split_unused_o1"]} : (tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    %split_unused_r = pd.read_var @split_unused_r : tensor<2x3xf32>
    %split_unused_m = pd.elementwise_mul %split_unused_o0, %split_unused_r {pd.out_names = ["split_unused_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %split_unused_l = pd.mean %split_unused_m {pd.out_names = ["split_unused_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // slice
    %slice_x = pd.read_var @slice_x : tensor<2x3x4xf32>
    %slice_o = pd.slice %slice_x {axes = array<i32: 1, 2>, starts = array<i32: 1, -3>, ends = array<i32: 2, 100>, pd.out_names = ["slice_o"]} : (tensor<2x3x4xf32>) -> tensor<2x1x3xf32>
    %slice_r = pd.read_var @slice_r : tensor<2x1x3xf32>
    %slice_m = pd.elementwise_mul %slice_o, %slice_r {pd.out_names = ["slice_m"]} : (tensor<2x1x3xf32>, tensor<2x1x3xf32>) -> tensor<2x1x3xf32>
    %slice_l = pd.mean %slice_m {pd.out_names = ["slice_l"]} : (tensor<2x1x3xf32>) -> tensor<f32>
    // slice_neg
    %slice_neg_x = pd.read_var @slice_neg_x : tensor<4x5xf32>
    %slice_neg_o = pd.slice %slice_neg_x {axes = array<i32: 0, 1>, starts = array<i32: -3, 0>, ends = array<i32: -1, -2>, pd.out_names = ["slice_neg_o"]} : (tensor<4x5xf32>) -> tensor<2x3xf32>
    %slice_neg_r = pd.read_var @slice_neg_r : tensor<2x3xf32>
    %slice_neg_m = pd.elementwise_mul %slice_neg_o, %slice_neg_r {pd.out_names = ["slice_neg_m"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %slice_neg_l = pd.mean %slice_neg_m {pd.out_names = ["slice_neg_l"]} : (tensor<2x3xf32>) -> tensor<f32>
    // slice_dec
    %slice_dec_x = pd.read_var @slice_dec_x : tensor<2x3x4xf32>
    %slice_dec_o = pd.slice %slice_dec_x {axes = array<i32: 1>, starts = array<i32: 2>, ends = array<i32: 3>, decrease_axis = array<i32: 1>, pd.out_names = ["slice_dec_o"]} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
    %slice_dec_r = pd.read_var @slice_dec_r : tensor<2x4xf32>
    %slice_dec_m = pd.elementwise_mul %slice_dec_o, %slice_dec_r {pd.out_names = ["slice_dec_m"]} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %slice_dec_l = pd.mean %slice_dec_m {pd.out_names = ["slice_dec_l"]} : (tensor<2x4xf32>) -> tensor<f32>
    // slice_dec2
    %slice_dec2_x = pd.read_var @slice_dec2_x : tensor<3x4xf32>
    %slice_dec2_o = pd.slice %slice_dec2_x {axes = array<i32: 0, 1>, starts = array<i32: 1, 3>, ends = array<i32: 2, 4>, decrease_axis = array<i32: 0, 1>, pd.out_names = ["slice_dec2_o"]} : (tensor<3x4xf32>) -> tensor<f32>
    %slice_dec2_r = pd.read_var @slice_dec2_r : tensor<f32>
    %slice_dec2_m = pd.elementwise_mul %slice_dec2_o, %slice_dec2_r {pd.out_names = ["slice_dec2_m"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %slice_dec2_l = pd.mean %slice_dec2_m {pd.out_names = ["slice_dec2_l"]} : (tensor<f32>) -> tensor<f32>
    %loss = pd.sum %concat_l, %concat_neg_l, %split_num_l0, %split_num_l1, %split_num_l2, %split_sec_l0, %split_sec_l1, %split_sec_l2, %split_unused_l, %slice_l, %slice_neg_l, %slice_dec_l, %slice_dec2_l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
