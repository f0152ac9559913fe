// Dropout at training time, both implementations with p = 0.5; the weights
// r0 and r1 are one-row data so that dist-run can train a step on them.
module {
  pd.var @drop_up_x persistable is_parameter : tensor<16xf32>
  pd.var @drop_x persistable is_parameter : tensor<16xf32>
  pd.program @main {
    %r0 = pd.feed {col = 0 : i32, pd.out_names = ["r0"]} : tensor<?x16xf32>
    %r1 = pd.feed {col = 1 : i32, pd.out_names = ["r1"]} : tensor<?x16xf32>
    %up_x = pd.read_var @drop_up_x : tensor<16xf32>
    %up_o, %up_mask = pd.dropout %up_x {dropout_prob = 0.5 : f32, dropout_implementation = "upscale_in_train", pd.out_names = ["drop_up_o", "drop_up_mask"]} : (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xui8>)
    %up_m = pd.elementwise_mul %up_o, %r0 {pd.out_names = ["drop_up_m"]} : (tensor<16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
    %up_l = pd.mean %up_m {pd.out_names = ["drop_up_l"]} : (tensor<?x16xf32>) -> tensor<f32>
    %x = pd.read_var @drop_x : tensor<16xf32>
    %o, %mask = pd.dropout %x {dropout_prob = 0.5 : f32, pd.out_names = ["drop_o", "drop_mask"]} : (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xui8>)
    %m = pd.elementwise_mul %o, %r1 {pd.out_names = ["drop_m"]} : (tensor<16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
    %l = pd.mean %m {pd.out_names = ["drop_l"]} : (tensor<?x16xf32>) -> tensor<f32>
    %loss = pd.sum %up_l, %l {pd.out_names = ["loss"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    pd.fetch %loss : tensor<f32>
  }
}
