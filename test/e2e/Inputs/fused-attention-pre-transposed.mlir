// fused_attention in the transpose_qkv_wb form (QKVW [d, 3d], num_heads),
// pre layer norm, with a mask and the residual (test/e2e/fused-attention.test).
module {
  pd.program @main {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x5x8xf32>
    %qkv_w = pd.feed {col = 1 : i32, pd.out_names = ["qkv_w_t"]} : tensor<8x24xf32>
    %qkv_b = pd.feed {col = 2 : i32, pd.out_names = ["qkv_b_t"]} : tensor<24xf32>
    %out_w = pd.feed {col = 3 : i32, pd.out_names = ["out_w"]} : tensor<8x8xf32>
    %out_b = pd.feed {col = 4 : i32, pd.out_names = ["out_b"]} : tensor<8xf32>
    %mask = pd.feed {col = 5 : i32, pd.out_names = ["mask"]} : tensor<?x1x5x5xf32>
    %ln_s = pd.feed {col = 6 : i32, pd.out_names = ["ln_s"]} : tensor<8xf32>
    %ln_b = pd.feed {col = 7 : i32, pd.out_names = ["ln_b"]} : tensor<8xf32>
    %r:19 = pd.fused_attention %x, %ln_s, %ln_b, %qkv_w, %qkv_b, %mask, %out_w, %out_b {transpose_qkv_wb = true, num_heads = 2 : i32, pre_layer_norm = true, attn_dropout_rate = 0.1 : f32, attn_dropout_implementation = "upscale_in_train", dropout_rate = 0.1 : f32, dropout_implementation = "upscale_in_train", is_test = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>, pd.out_names = ["ln_mean", "ln_var", "ln_out", "qkv_out", "qkv_bias_out", "transpose_out", "qk_out", "qktv_out", "softmax_out", "attn_mask_out", "attn_dropout_out", "src_mask_out", "fmha_out", "out_linear_out", "dropout_mask_out", "ln2_mean", "ln2_var", "bias_dropout_residual_out", "y"]} : (tensor<?x5x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8x24xf32>, tensor<24xf32>, tensor<?x1x5x5xf32>, tensor<8x8xf32>, tensor<8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x24xf32>, tensor<?x5x24xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
    pd.fetch %r#18 {col = 0 : i32} : tensor<?x5x8xf32>
  }
}
