// The network of Paddle's lookup-table transpiler tests
// (TestDistLookupTableBase): title and brand ids share the embedding table
// shared_w (1000 x 64, is_sparse), each pooled by the mean over its ids,
// concatenated, then fc to 2 classes (fc_w / fc_b) and cross entropy.
// Paddle pools LoD sequences; here each row holds 4 title ids and 3 brand
// ids and reduce_mean pools them. Brand id 17 is padding (a zero row that
// gets no gradient).
module {
  pd.var @shared_w persistable is_parameter : tensor<1000x64xf32>
  pd.var @fc_w persistable is_parameter : tensor<128x2xf32>
  pd.var @fc_b persistable is_parameter : tensor<2xf32>
  pd.program @main {
    %title = pd.feed {col = 0 : i32, pd.out_names = ["title_ids"]} : tensor<?x4xi64>
    %brand = pd.feed {col = 1 : i32, pd.out_names = ["brand_ids"]} : tensor<?x3xi64>
    %label = pd.feed {col = 2 : i32, pd.out_names = ["label"]} : tensor<?x1xi64>
    %table = pd.read_var @shared_w : tensor<1000x64xf32>
    %w = pd.read_var @fc_w : tensor<128x2xf32>
    %b = pd.read_var @fc_b : tensor<2xf32>
    %te = pd.lookup_table_v2 %title, %table {is_sparse = true, pd.out_names = ["title_emb"]} : (tensor<?x4xi64>, tensor<1000x64xf32>) -> tensor<?x4x64xf32>
    %tp = pd.reduce_mean %te {dim = array<i32: 1>, pd.out_names = ["title_pool"]} : (tensor<?x4x64xf32>) -> tensor<?x64xf32>
    %be = pd.lookup_table_v2 %brand, %table {is_sparse = true, padding_idx = 17 : i64, pd.out_names = ["brand_emb"]} : (tensor<?x3xi64>, tensor<1000x64xf32>) -> tensor<?x3x64xf32>
    %bp = pd.reduce_mean %be {dim = array<i32: 1>, pd.out_names = ["brand_pool"]} : (tensor<?x3x64xf32>) -> tensor<?x64xf32>
    %fc0 = pd.concat %tp, %bp {axis = 1 : i32, pd.out_names = ["fc0"]} : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x128xf32>
    %0 = pd.mul %fc0, %w {pd.out_names = ["fc_0.tmp_0"]} : (tensor<?x128xf32>, tensor<128x2xf32>) -> tensor<?x2xf32>
    %predict = pd.elementwise_add %0, %b {axis = 1 : i32, pd.out_names = ["predict"]} : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    %sm, %xent = pd.softmax_with_cross_entropy %predict, %label {pd.out_names = ["softmax_0", "cost"]} : (tensor<?x2xf32>, tensor<?x1xi64>) -> (tensor<?x2xf32>, tensor<?x1xf32>)
    %loss = pd.mean %xent {pd.out_names = ["avg_cost"]} : (tensor<?x1xf32>) -> tensor<f32>
    pd.fetch %loss {col = 0 : i32} : tensor<f32>
  }
}
