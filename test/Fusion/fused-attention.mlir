// RUN: distc-opt %s --split-input-file --distc-fused-attention | FileCheck %s
// RUN: distc-opt %s --split-input-file '--distc-fused-attention=explain=true' \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// (The train form, with its backward, is checked end to end by
// test/e2e/fusion-attention.test.)

// A pre-layer-norm attention block in an inference program, as Paddle's
// pass matches it: layer_norm, the QKV linear, reshape2 + transpose2 +
// split into 2 heads' q, k, v, q scaled by hd^-0.5, q·kᵀ plus a mask,
// softmax, dropout, the product with v, transpose2 + reshape2 back, the
// output linear, dropout, the residual add. The fused op takes the
// transpose_qkv_wb form and keeps the replaced values' names.
// CHECK-LABEL: pd.program @predict
// CHECK: {{.*}}, %[[Y:[^ ]*]] = pd.fused_attention %[[X:[^,]*]], %[[S:[^,]*]], %[[B:[^,]*]], %[[W:[^,]*]], %[[QB:[^,]*]], %[[MASK:[^,]*]], %[[WO:[^,]*]], %[[BO:[^ ]*]]
// CHECK-SAME: attn_dropout_implementation = "upscale_in_train", attn_dropout_rate = 1.000000e-01 : f32, attn_dropout_seed_name = "w1"
// CHECK-SAME: dropout_implementation = "upscale_in_train", dropout_rate = 2.000000e-01 : f32, dropout_seed_name = "od"
// CHECK-SAME: is_test = true, num_heads = 2 : i32
// CHECK-SAME: pd.out_names = ["m", "v", "ln", "qkv", "qkv1", "t", "qk", "c", "w", "w1.mask", "w1", "qkm", "f", "o", "od.mask", "", "", "", "y"]
// CHECK-SAME: pre_layer_norm = true, transpose_qkv_wb = true
// CHECK-NOT: pd.matmul_v2
// CHECK: pd.fetch %[[Y]]
// EXPLAIN: fused_attention: predict: fused layer_norm (ln) + matmul_v2 (qkv) + elementwise_add (qkv1) + reshape2 (r) + transpose2 (t) + split (q) + scale (qs) + matmul_v2 (qk) + elementwise_add (qkm) + softmax (w) + dropout (w1) + matmul_v2 (c) + transpose2 (ct) + reshape2 (f) + matmul_v2 (o) + elementwise_add (o1) + dropout (od) + elementwise_add (y) into fused_attention
module {
  pd.program @predict attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3x4xf32>
    %mask = pd.feed {col = 1 : i32, pd.out_names = ["mask"]} : tensor<?x1x1x3xf32>
    %s = pd.feed {col = 2 : i32, pd.out_names = ["s"]} : tensor<4xf32>
    %b = pd.feed {col = 3 : i32, pd.out_names = ["b"]} : tensor<4xf32>
    %w = pd.feed {col = 4 : i32, pd.out_names = ["w"]} : tensor<4x12xf32>
    %qb = pd.feed {col = 5 : i32, pd.out_names = ["qb"]} : tensor<12xf32>
    %wo = pd.feed {col = 6 : i32, pd.out_names = ["wo"]} : tensor<4x4xf32>
    %bo = pd.feed {col = 7 : i32, pd.out_names = ["bo"]} : tensor<4xf32>
    %ln, %m, %v = pd.layer_norm %x scale %s bias %b {begin_norm_axis = 2 : i32, pd.out_names = ["ln", "m", "v"]} : (tensor<?x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x3x4xf32>, tensor<?xf32>, tensor<?xf32>)
    %qkv = pd.matmul_v2 %ln, %w {pd.out_names = ["qkv"]} : (tensor<?x3x4xf32>, tensor<4x12xf32>) -> tensor<?x3x12xf32>
    %qkv1 = pd.elementwise_add %qkv, %qb {axis = -1 : i32, pd.out_names = ["qkv1"]} : (tensor<?x3x12xf32>, tensor<12xf32>) -> tensor<?x3x12xf32>
    %r, %rs = pd.reshape2 %qkv1 {shape = array<i32: 0, 0, 6, 2>, pd.out_names = ["r", "r.xshape"]} : (tensor<?x3x12xf32>) -> (tensor<?x3x6x2xf32>, tensor<0x?x3x12xf32>)
    %t, %ts = pd.transpose2 %r {axis = array<i32: 0, 2, 1, 3>, pd.out_names = ["t", "t.xshape"]} : (tensor<?x3x6x2xf32>) -> (tensor<?x6x3x2xf32>, tensor<0x?x3x6x2xf32>)
    %q, %k, %vv = pd.split %t {axis = 1 : i32, num = 3 : i32, pd.out_names = ["q", "k", "vv"]} : (tensor<?x6x3x2xf32>) -> (tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>)
    %qs = pd.scale %q {scale = 0.707106769 : f32, pd.out_names = ["qs"]} : (tensor<?x2x3x2xf32>) -> tensor<?x2x3x2xf32>
    %qk = pd.matmul_v2 %qs, %k {trans_y = true, pd.out_names = ["qk"]} : (tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>) -> tensor<?x2x3x3xf32>
    %qkm = pd.elementwise_add %qk, %mask {axis = -1 : i32, pd.out_names = ["qkm"]} : (tensor<?x2x3x3xf32>, tensor<?x1x1x3xf32>) -> tensor<?x2x3x3xf32>
    %wt = pd.softmax %qkm {axis = -1 : i32, pd.out_names = ["w"]} : (tensor<?x2x3x3xf32>) -> tensor<?x2x3x3xf32>
    %w1, %w1m = pd.dropout %wt {dropout_prob = 0.1 : f32, is_test = true, dropout_implementation = "upscale_in_train", pd.out_names = ["w1", "w1.mask"]} : (tensor<?x2x3x3xf32>) -> (tensor<?x2x3x3xf32>, tensor<?x2x3x3xui8>)
    %c = pd.matmul_v2 %w1, %vv {pd.out_names = ["c"]} : (tensor<?x2x3x3xf32>, tensor<?x2x3x2xf32>) -> tensor<?x2x3x2xf32>
    %ct, %cts = pd.transpose2 %c {axis = array<i32: 0, 2, 1, 3>, pd.out_names = ["ct", "ct.xshape"]} : (tensor<?x2x3x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<0x?x2x3x2xf32>)
    %f, %fs = pd.reshape2 %ct {shape = array<i32: 0, 0, 4>, pd.out_names = ["f", "f.xshape"]} : (tensor<?x3x2x2xf32>) -> (tensor<?x3x4xf32>, tensor<0x?x3x2x2xf32>)
    %o = pd.matmul_v2 %f, %wo {pd.out_names = ["o"]} : (tensor<?x3x4xf32>, tensor<4x4xf32>) -> tensor<?x3x4xf32>
    %o1 = pd.elementwise_add %o, %bo {axis = -1 : i32, pd.out_names = ["o1"]} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
    %od, %odm = pd.dropout %o1 {dropout_prob = 0.2 : f32, is_test = true, dropout_implementation = "upscale_in_train", pd.out_names = ["od", "od.mask"]} : (tensor<?x3x4xf32>) -> (tensor<?x3x4xf32>, tensor<?x3x4xui8>)
    %y = pd.elementwise_add %x, %od {axis = -1 : i32, pd.out_names = ["y"]} : (tensor<?x3x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x3x4xf32>
  }
}

// -----

// Left: q scaled by another factor than hd^-0.5 (the fused op's), and a
// block whose attention weights another op reads.
// CHECK-LABEL: pd.program @left
// CHECK-NOT: pd.fused_attention
// CHECK: }
// EXPLAIN: fused_attention: left: left layer_norm (ln): its scale of q is not by head_dim^-0.5 (0.707107) in float32
// EXPLAIN: fused_attention: left: left layer_norm (ln2): w2 is read by matmul_v2 (c2) and fetch
module {
  pd.program @left attributes {pd.kind = "main", pd.mode = "predict"} {
    %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x3x4xf32>
    %w = pd.feed {col = 1 : i32, pd.out_names = ["w"]} : tensor<4x12xf32>
    %qb = pd.feed {col = 2 : i32, pd.out_names = ["qb"]} : tensor<12xf32>
    %wo = pd.feed {col = 3 : i32, pd.out_names = ["wo"]} : tensor<4x4xf32>
    %bo = pd.feed {col = 4 : i32, pd.out_names = ["bo"]} : tensor<4xf32>
    %ln, %m, %v = pd.layer_norm %x {begin_norm_axis = 2 : i32, pd.out_names = ["ln", "m", "v"]} : (tensor<?x3x4xf32>) -> (tensor<?x3x4xf32>, tensor<?xf32>, tensor<?xf32>)
    %qkv = pd.matmul_v2 %ln, %w {pd.out_names = ["qkv"]} : (tensor<?x3x4xf32>, tensor<4x12xf32>) -> tensor<?x3x12xf32>
    %qkv1 = pd.elementwise_add %qkv, %qb {axis = -1 : i32, pd.out_names = ["qkv1"]} : (tensor<?x3x12xf32>, tensor<12xf32>) -> tensor<?x3x12xf32>
    %r, %rs = pd.reshape2 %qkv1 {shape = array<i32: 0, 0, 6, 2>, pd.out_names = ["r", "r.xshape"]} : (tensor<?x3x12xf32>) -> (tensor<?x3x6x2xf32>, tensor<0x?x3x12xf32>)
    %t, %ts = pd.transpose2 %r {axis = array<i32: 0, 2, 1, 3>, pd.out_names = ["t", "t.xshape"]} : (tensor<?x3x6x2xf32>) -> (tensor<?x6x3x2xf32>, tensor<0x?x3x6x2xf32>)
    %q, %k, %vv = pd.split %t {axis = 1 : i32, num = 3 : i32, pd.out_names = ["q", "k", "vv"]} : (tensor<?x6x3x2xf32>) -> (tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>)
    %qs = pd.scale %q {scale = 0.5 : f32, pd.out_names = ["qs"]} : (tensor<?x2x3x2xf32>) -> tensor<?x2x3x2xf32>
    %qk = pd.matmul_v2 %qs, %k {trans_y = true, pd.out_names = ["qk"]} : (tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>) -> tensor<?x2x3x3xf32>
    %wt = pd.softmax %qk {axis = -1 : i32, pd.out_names = ["w"]} : (tensor<?x2x3x3xf32>) -> tensor<?x2x3x3xf32>
    %c = pd.matmul_v2 %wt, %vv {pd.out_names = ["c"]} : (tensor<?x2x3x3xf32>, tensor<?x2x3x2xf32>) -> tensor<?x2x3x2xf32>
    %ct, %cts = pd.transpose2 %c {axis = array<i32: 0, 2, 1, 3>, pd.out_names = ["ct", "ct.xshape"]} : (tensor<?x2x3x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<0x?x2x3x2xf32>)
    %f, %fs = pd.reshape2 %ct {shape = array<i32: 0, 0, 4>, pd.out_names = ["f", "f.xshape"]} : (tensor<?x3x2x2xf32>) -> (tensor<?x3x4xf32>, tensor<0x?x3x2x2xf32>)
    %o = pd.matmul_v2 %f, %wo {pd.out_names = ["o"]} : (tensor<?x3x4xf32>, tensor<4x4xf32>) -> tensor<?x3x4xf32>
    %o1 = pd.elementwise_add %o, %bo {axis = -1 : i32, pd.out_names = ["o1"]} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
    %y = pd.elementwise_add %x, %o1 {axis = -1 : i32, pd.out_names = ["y"]} : (tensor<?x3x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
    pd.fetch %y {col = 0 : i32} : tensor<?x3x4xf32>
    %ln2, %m2, %v2 = pd.layer_norm %x {begin_norm_axis = 2 : i32, pd.out_names = ["ln2", "m2", "v2"]} : (tensor<?x3x4xf32>) -> (tensor<?x3x4xf32>, tensor<?xf32>, tensor<?xf32>)
    %qkv2 = pd.matmul_v2 %ln2, %w {pd.out_names = ["qkv2"]} : (tensor<?x3x4xf32>, tensor<4x12xf32>) -> tensor<?x3x12xf32>
    %qkv3 = pd.elementwise_add %qkv2, %qb {axis = -1 : i32, pd.out_names = ["qkv3"]} : (tensor<?x3x12xf32>, tensor<12xf32>) -> tensor<?x3x12xf32>
    %r2, %rs2 = pd.reshape2 %qkv3 {shape = array<i32: 0, 0, 6, 2>, pd.out_names = ["r2", "r2.xshape"]} : (tensor<?x3x12xf32>) -> (tensor<?x3x6x2xf32>, tensor<0x?x3x12xf32>)
    %t2, %ts2 = pd.transpose2 %r2 {axis = array<i32: 0, 2, 1, 3>, pd.out_names = ["t2", "t2.xshape"]} : (tensor<?x3x6x2xf32>) -> (tensor<?x6x3x2xf32>, tensor<0x?x3x6x2xf32>)
    %q2, %k2, %vv2 = pd.split %t2 {axis = 1 : i32, num = 3 : i32, pd.out_names = ["q2", "k2", "vv2"]} : (tensor<?x6x3x2xf32>) -> (tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>)
    %qs2 = pd.scale %q2 {scale = 0.707106769 : f32, pd.out_names = ["qs2"]} : (tensor<?x2x3x2xf32>) -> tensor<?x2x3x2xf32>
    %qk2 = pd.matmul_v2 %qs2, %k2 {trans_y = true, pd.out_names = ["qk2"]} : (tensor<?x2x3x2xf32>, tensor<?x2x3x2xf32>) -> tensor<?x2x3x3xf32>
    %wt2 = pd.softmax %qk2 {axis = -1 : i32, pd.out_names = ["w2"]} : (tensor<?x2x3x3xf32>) -> tensor<?x2x3x3xf32>
    %c2 = pd.matmul_v2 %wt2, %vv2 {pd.out_names = ["c2"]} : (tensor<?x2x3x3xf32>, tensor<?x2x3x2xf32>) -> tensor<?x2x3x2xf32>
    pd.fetch %wt2 {col = 1 : i32} : tensor<?x2x3x3xf32>
    %ct2, %cts2 = pd.transpose2 %c2 {axis = array<i32: 0, 2, 1, 3>, pd.out_names = ["ct2", "ct2.xshape"]} : (tensor<?x2x3x2xf32>) -> (tensor<?x3x2x2xf32>, tensor<0x?x2x3x2xf32>)
    %f2, %fs2 = pd.reshape2 %ct2 {shape = array<i32: 0, 0, 4>, pd.out_names = ["f2", "f2.xshape"]} : (tensor<?x3x2x2xf32>) -> (tensor<?x3x4xf32>, tensor<0x?x3x2x2xf32>)
    %o2 = pd.matmul_v2 %f2, %wo {pd.out_names = ["o2"]} : (tensor<?x3x4xf32>, tensor<4x4xf32>) -> tensor<?x3x4xf32>
    %o3 = pd.elementwise_add %o2, %bo {axis = -1 : i32, pd.out_names = ["o3"]} : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
    pd.fetch %o3 {col = 2 : i32} : tensor<?x3x4xf32>
  }
}
