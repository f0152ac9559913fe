// Values without pd.out_names, a persistable read after it is overwritten,
// a value written to a persistable and used afterwards, and a name reused by
// a later op while the first value is still needed.
module {
  pd.var @w persistable is_parameter : tensor<4x4xf32>
  pd.var @acc persistable : tensor<4x4xf32>
  pd.program @main {
    %x = pd.feed {col = 0 : i32} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x4xf32>
    %a = pd.relu %w {pd.out_names = ["t"]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %b = pd.scale %w {scale = 2.0 : f32, pd.out_names = ["t"]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    pd.write_var @w, %b : tensor<4x4xf32>
    %y = pd.mul %x, %w : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
    %s = pd.elementwise_add %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    pd.write_var @acc, %s : tensor<4x4xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x4xf32>
    pd.fetch %s {col = 1 : i32} : tensor<4x4xf32>
  }
}
