// RUN: distc-opt %s -split-input-file -verify-diagnostics

// --- Structural ops ------------------------------------------------------------

// expected-error @below {{variable @w must have a static shape}}
pd.var @w : tensor<?x4xf32>

// -----

pd.program @main {
  // expected-error @below {{'pd.var' op expects parent op 'builtin.module'}}
  pd.var @w : tensor<4xf32>
}

// -----

pd.program @main {
  // expected-error @below {{refers to undefined variable @missing}}
  %0 = pd.read_var @missing : tensor<4xf32>
}

// -----

pd.var @w : tensor<4xf32>
pd.program @main {
  // expected-error @below {{result type 'tensor<5xf32>' does not match variable @w of type 'tensor<4xf32>'}}
  %0 = pd.read_var @w : tensor<5xf32>
}

// -----

pd.var @w : tensor<4xf32>
pd.program @main {
  %0 = pd.feed : tensor<4xf16>
  // expected-error @below {{value type 'tensor<4xf16>' does not match variable @w of type 'tensor<4xf32>'}}
  pd.write_var @w, %0 : tensor<4xf16>
}

// -----

pd.program @outer {
  // expected-error @below {{'pd.program' op expects parent op 'builtin.module'}}
  pd.program @inner {
  }
}

// -----

// expected-error @below {{'pd.program' op region should have no arguments}}
pd.program @main {
^bb0(%arg0: tensor<4xf32>):
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4xf32>
  // expected-error @below {{attribute 'pd.out_names' has 2 names for 1 results}}
  %0 = pd.relu %x {pd.out_names = ["a", "b"]} : (tensor<4xf32>) -> tensor<4xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4xf32>
  // expected-error @below {{attribute 'pd.out_names' must be an array of strings}}
  %0 = pd.relu %x {pd.out_names = [1]} : (tensor<4xf32>) -> tensor<4xf32>
}

// --- Result checks against inference ------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xf32>
  // expected-error @below {{'pd.relu' op result slot 'Out' has type 'tensor<?x5xf32>' but Paddle's inference gives 'tensor<?x4xf32>'}}
  %0 = pd.relu %x : (tensor<?x4xf32>) -> tensor<?x5xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4xf32>
  // expected-error @below {{result slot 'Out' has type 'tensor<4xf16>' but Paddle's inference gives 'tensor<4xf32>'}}
  %0 = pd.sigmoid %x : (tensor<4xf32>) -> tensor<4xf16>
}

// --- Element-wise ---------------------------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4xf32>
  %y = pd.feed : tensor<5xf32>
  // expected-error @below {{pd.elementwise_add: input slots 'X' 'tensor<?x3x4xf32>' and 'Y' 'tensor<5xf32>' do not broadcast (axis -1): dim 2 is 4 vs 5}}
  %0 = pd.elementwise_add %x, %y : (tensor<?x3x4xf32>, tensor<5xf32>) -> tensor<?x3x4xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4xf32>
  %y = pd.feed : tensor<3x4xf32>
  // expected-error @below {{pd.elementwise_mul: attribute 'axis' = 2 places input slot 'Y' past the end}}
  %0 = pd.elementwise_mul %x, %y {axis = 2 : i32} : (tensor<?x3x4xf32>, tensor<3x4xf32>) -> tensor<?x3x4xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4xf32>
  %y = pd.feed : tensor<4xi64>
  // expected-error @below {{pd.elementwise_sub: input slots 'X' and 'Y' must have the same element type}}
  %0 = pd.elementwise_sub %x, %y : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
}

// --- Activations, cast, scale ---------------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xf32>
  // expected-error @below {{pd.softmax: attribute 'axis' = 2 is out of range [-2, 2)}}
  %0 = pd.softmax %x {axis = 2 : i32} : (tensor<?x4xf32>) -> tensor<?x4xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4xi64>
  // expected-error @below {{pd.cast: attribute 'in_dtype' = 5 ('f32') does not match input slot 'X' 'tensor<4xi64>'}}
  %0 = pd.cast %x {out_dtype = 3 : i32} : (tensor<4xi64>) -> tensor<4xi64>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4xf32>
  // expected-error @below {{pd.cast: attribute 'out_dtype' = 7 is not a supported Paddle data type}}
  %0 = pd.cast %x {out_dtype = 7 : i32} : (tensor<4xf32>) -> tensor<4xf32>
}

// --- mul, matmul_v2 -----------------------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4xf32>
  %y = pd.feed : tensor<4x5xf32>
  // expected-error @below {{pd.mul: input slots 'X' 'tensor<?x3x4xf32>' (x_num_col_dims 1) and 'Y' 'tensor<4x5xf32>' (y_num_col_dims 1) have mismatched inner sizes 12 vs 4}}
  %0 = pd.mul %x, %y : (tensor<?x3x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xf32>
  %y = pd.feed : tensor<4x5xf32>
  // expected-error @below {{pd.mul: attribute 'x_num_col_dims' = 2 must be in [1, rank)}}
  %0 = pd.mul %x, %y {x_num_col_dims = 2 : i32} : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4xf32>
  %y = pd.feed : tensor<5x6xf32>
  // expected-error @below {{pd.matmul_v2: input slots 'X' 'tensor<?x3x4xf32>' (trans_x 0) and 'Y' 'tensor<5x6xf32>' (trans_y 0) have mismatched contraction sizes 4 vs 5}}
  %0 = pd.matmul_v2 %x, %y : (tensor<?x3x4xf32>, tensor<5x6xf32>) -> tensor<?x3x6xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4xf32>
  %y = pd.feed : tensor<3x4x6xf32>
  // expected-error @below {{pd.matmul_v2: input slots 'X' 'tensor<2x3x4xf32>' and 'Y' 'tensor<3x4x6xf32>' have batch dims that do not broadcast: 2 vs 3}}
  %0 = pd.matmul_v2 %x, %y : (tensor<2x3x4xf32>, tensor<3x4x6xf32>) -> tensor<2x3x6xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4x3xf32>
  %y = pd.feed : tensor<4x6xf32>
  // expected-error @below {{'pd.matmul_v2' op result slot 'Out' has type 'tensor<4x6xf32>' but Paddle's inference gives 'tensor<3x6xf32>'}}
  %0 = pd.matmul_v2 %x, %y {trans_x = true} : (tensor<4x3xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
}

// --- Reductions -----------------------------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xf32>
  // expected-error @below {{pd.reduce_sum: attribute 'dim' = 2 is out of range [-2, 2)}}
  %0 = pd.reduce_sum %x {dim = array<i32: 2>} : (tensor<?x4xf32>) -> tensor<?xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xf32>
  // expected-error @below {{result slot 'Out' has type 'tensor<2xf32>' but Paddle's inference gives 'tensor<f32>'}}
  %0 = pd.reduce_mean %x {reduce_all = true} : (tensor<?x4xf32>) -> tensor<2xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xi32>
  // expected-error @below {{result slot 'Out' has type 'tensor<4xi32>' but Paddle's inference gives 'tensor<4xi64>'}}
  %0 = pd.reduce_sum %x : (tensor<?x4xi32>) -> tensor<4xi32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xf32>
  // expected-error @below {{'pd.mean' op result slot 'Out' has type 'tensor<2xf32>' but Paddle's inference gives 'tensor<f32>'}}
  %0 = pd.mean %x : (tensor<?x4xf32>) -> tensor<2xf32>
}

// --- reshape2, transpose2 -------------------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4xf32>
  // expected-error @below {{pd.reshape2: attribute 'shape' = [5, -1] cannot reshape input slot 'X' 'tensor<2x3x4xf32>': its size is not a multiple of 5}}
  %0:2 = pd.reshape2 %x {shape = array<i32: 5, -1>} : (tensor<2x3x4xf32>) -> (tensor<5x?xf32>, tensor<0x2x3x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4xf32>
  // expected-error @below {{pd.reshape2: attribute 'shape' = [-1, -1] has more than one -1}}
  %0:2 = pd.reshape2 %x {shape = array<i32: -1, -1>} : (tensor<?x4xf32>) -> (tensor<?x?xf32>, tensor<0x?x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3xf32>
  // expected-error @below {{pd.reshape2: attribute 'shape' = [3, 3] cannot reshape input slot 'X' 'tensor<2x3xf32>': 6 elements vs 9}}
  %0:2 = pd.reshape2 %x {shape = array<i32: 3, 3>} : (tensor<2x3xf32>) -> (tensor<3x3xf32>, tensor<0x2x3xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3xf32>
  // expected-error @below {{'pd.reshape2' op result slot 'XShape' has type 'tensor<2x3xf32>' but Paddle's inference gives 'tensor<0x2x3xf32>'}}
  %0:2 = pd.reshape2 %x {shape = array<i32: 3, 2>} : (tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4xf32>
  // expected-error @below {{pd.transpose2: attribute 'axis' = [0, 1, 1] is not a permutation of the dims of input slot 'X' 'tensor<2x3x4xf32>'}}
  %0:2 = pd.transpose2 %x {axis = array<i32: 0, 1, 1>} : (tensor<2x3x4xf32>) -> (tensor<2x3x3xf32>, tensor<0x2x3x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3xf32>
  // expected-error @below {{pd.transpose2: attribute 'axis' = [1] must have 2 entries}}
  %0:2 = pd.transpose2 %x {axis = array<i32: 1>} : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<0x2x3xf32>)
}

// --- concat, split, slice -------------------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3xf32>
  %y = pd.feed : tensor<2x4xf32>
  // expected-error @below {{pd.concat: input slot 'X' #1 'tensor<2x4xf32>' differs from 'X' #0 'tensor<2x3xf32>' in dim 1 (only axis 0 may differ)}}
  %0 = pd.concat %x, %y : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3xf32>
  // expected-error @below {{'pd.concat' op result slot 'Out' has type 'tensor<2x6xf32>' but Paddle's inference gives 'tensor<2x9xf32>'}}
  %0 = pd.concat %x, %x, %x {axis = 1 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x5xf32>
  // expected-error @below {{pd.split: attribute 'num' = 2 does not divide dim 1 (5) of input slot 'X' 'tensor<?x5xf32>'}}
  %0:2 = pd.split %x {axis = 1 : i32, num = 2 : i32} : (tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x3xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x6xf32>
  // expected-error @below {{'pd.split' op result slot 'Out' has 2 values but Paddle's inference gives 3}}
  %0:2 = pd.split %x {axis = 1 : i32, num = 3 : i32} : (tensor<?x6xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x6xf32>
  // expected-error @below {{pd.split: attribute 'sections' = [2, 2] does not add up to dim 1 (6)}}
  %0:2 = pd.split %x {axis = 1 : i32, sections = array<i32: 2, 2>} : (tensor<?x6xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x6xf32>
  // expected-error @below {{pd.slice: attributes 'axes' [1], 'starts' [0, 1] and 'ends' [2] must have the same length}}
  %0 = pd.slice %x {axes = array<i32: 1>, starts = array<i32: 0, 1>, ends = array<i32: 2>} : (tensor<?x6xf32>) -> tensor<?x2xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x6xf32>
  // expected-error @below {{pd.slice: attribute 'decrease_axis' drops dim 1 of size 2 (must be 1)}}
  %0 = pd.slice %x {axes = array<i32: 1>, starts = array<i32: 0>, ends = array<i32: 2>, decrease_axis = array<i32: 1>} : (tensor<?x6xf32>) -> tensor<?xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x6xf32>
  // expected-error @below {{'pd.slice' op result slot 'Out' has type 'tensor<?x3xf32>' but Paddle's inference gives 'tensor<?x2xf32>'}}
  %0 = pd.slice %x {axes = array<i32: 1>, starts = array<i32: -2>, ends = array<i32: 1000>} : (tensor<?x6xf32>) -> tensor<?x3xf32>
}

// --- Embeddings and normalization ------------------------------------------------

// -----

pd.program @main {
  %ids = pd.feed : tensor<?x16xf32>
  %w = pd.feed : tensor<100x8xf32>
  // expected-error @below {{pd.lookup_table_v2: input slot 'Ids' 'tensor<?x16xf32>' must hold i32 or i64 indices}}
  %0 = pd.lookup_table_v2 %ids, %w : (tensor<?x16xf32>, tensor<100x8xf32>) -> tensor<?x16x8xf32>
}

// -----

pd.program @main {
  %ids = pd.feed : tensor<?x16xi64>
  %w = pd.feed : tensor<100xf32>
  // expected-error @below {{pd.lookup_table_v2: input slot 'W' 'tensor<100xf32>' must be a 2-D embedding table}}
  %0 = pd.lookup_table_v2 %ids, %w : (tensor<?x16xi64>, tensor<100xf32>) -> tensor<?x16xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4x8xf32>
  %s = pd.feed : tensor<8xf32>
  // expected-error @below {{pd.layer_norm: input slot 'Scale' 'tensor<8xf32>' must be 1-D of size 32}}
  %0:3 = pd.layer_norm %x scale %s : (tensor<?x4x8xf32>, tensor<8xf32>) -> (tensor<?x4x8xf32>, tensor<?xf32>, tensor<?xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4x8xf32>
  // expected-error @below {{'pd.layer_norm' op result slot 'Mean' has type 'tensor<?x4xf32>' but Paddle's inference gives 'tensor<?xf32>'}}
  %0:3 = pd.layer_norm %x {begin_norm_axis = 2 : i32} : (tensor<?x4x8xf32>) -> (tensor<?x4x8xf32>, tensor<?x4xf32>, tensor<?xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x8xf32>
  // expected-error @below {{'pd.dropout' op result slot 'Mask' has type 'tensor<?x8xi8>' but Paddle's inference gives 'tensor<?x8xui8>'}}
  %0:2 = pd.dropout %x : (tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xi8>)
}

// --- Losses and metrics -------------------------------------------------------

// -----

pd.program @main {
  %logits = pd.feed : tensor<?x10xf32>
  %label = pd.feed : tensor<?x10xi64>
  // expected-error @below {{pd.softmax_with_cross_entropy: input slot 'Label' 'tensor<?x10xi64>' does not match 'Logits' 'tensor<?x10xf32>' in dim 1 (expected 1, hard labels, axis 1)}}
  %0:2 = pd.softmax_with_cross_entropy %logits, %label : (tensor<?x10xf32>, tensor<?x10xi64>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
}

// -----

pd.program @main {
  %logits = pd.feed : tensor<?x10xf32>
  %label = pd.feed : tensor<?x1xf32>
  // expected-error @below {{pd.softmax_with_cross_entropy: input slot 'Label' 'tensor<?x1xf32>' must hold i32 or i64 class ids without soft_label}}
  %0:2 = pd.softmax_with_cross_entropy %logits, %label : (tensor<?x10xf32>, tensor<?x1xf32>) -> (tensor<?x10xf32>, tensor<?x1xf32>)
}

// -----

pd.program @main {
  %logits = pd.feed : tensor<?x10xf32>
  %label = pd.feed : tensor<?x1xi64>
  // expected-error @below {{'pd.softmax_with_cross_entropy' op result slot 'Loss' has type 'tensor<?xf32>' but Paddle's inference gives 'tensor<?x1xf32>'}}
  %0:2 = pd.softmax_with_cross_entropy %logits, %label : (tensor<?x10xf32>, tensor<?x1xi64>) -> (tensor<?x10xf32>, tensor<?xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3xf32>
  // expected-error @below {{pd.top_k_v2: attribute 'k' = 5 exceeds dim 1 (3) of input slot 'X' 'tensor<?x3xf32>'}}
  %0:2 = pd.top_k_v2 %x {k = 5 : i32} : (tensor<?x3xf32>) -> (tensor<?x5xf32>, tensor<?x5xi64>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x10xf32>
  // expected-error @below {{'pd.top_k_v2' op result slot 'Indices' has type 'tensor<?x2xi32>' but Paddle's inference gives 'tensor<?x2xi64>'}}
  %0:2 = pd.top_k_v2 %x {k = 2 : i32} : (tensor<?x10xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>)
}

// -----

pd.program @main {
  %v = pd.feed : tensor<?x5xf32>
  %i = pd.feed : tensor<?x5xi64>
  %l = pd.feed : tensor<?xi64>
  // expected-error @below {{pd.accuracy: input slot 'Label' 'tensor<?xi64>' must be 2-D [N, 1]}}
  %0:3 = pd.accuracy %v, %i, %l : (tensor<?x5xf32>, tensor<?x5xi64>, tensor<?xi64>) -> (tensor<1xf32>, tensor<1xi32>, tensor<1xi32>)
}

// -----

pd.program @main {
  %v = pd.feed : tensor<?x5xf32>
  %i = pd.feed : tensor<?x5xi64>
  %l = pd.feed : tensor<?x1xi64>
  // expected-error @below {{'pd.accuracy' op result slot 'Correct' has type 'tensor<1xi64>' but Paddle's inference gives 'tensor<1xi32>'}}
  %0:3 = pd.accuracy %v, %i, %l : (tensor<?x5xf32>, tensor<?x5xi64>, tensor<?x1xi64>) -> (tensor<1xf32>, tensor<1xi64>, tensor<1xi32>)
}

// --- Creation ops -----------------------------------------------------------------

// -----

pd.program @main {
  // expected-error @below {{'pd.fill_constant' op result slot 'Out' has type 'tensor<2x3xf32>' but Paddle's inference gives 'tensor<2x3xi64>'}}
  %0 = pd.fill_constant {shape = array<i64: 2, 3>, dtype = 3 : i32} : () -> tensor<2x3xf32>
}

// -----

pd.program @main {
  // expected-error @below {{pd.uniform_random: attribute 'dtype' = 9 is not a supported Paddle data type}}
  %0 = pd.uniform_random {shape = array<i64: 2>, dtype = 9 : i32} : () -> tensor<2xf32>
}

// -----

pd.program @main {
  // expected-error @below {{'pd.gaussian_random' op result slot 'Out' has type 'tensor<3xf32>' but Paddle's inference gives 'tensor<2xf32>'}}
  %0 = pd.gaussian_random {shape = array<i64: 2>} : () -> tensor<3xf32>
}

// -----

pd.program @main {
  // expected-error @below {{pd.truncated_gaussian_random: attribute 'shape' = [2, -3] has invalid size -3}}
  %0 = pd.truncated_gaussian_random {shape = array<i32: 2, -3>} : () -> tensor<2x3xf32>
}

// --- Communicator setup -------------------------------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<4xf32>
  // expected-error @below {{pd.c_comm_init: input slot 'X' must be the communicator id a c_gen_nccl_id writes ('tensor<0xui8>'), got 'tensor<4xf32>'}}
  pd.c_comm_init %x {nranks = 2 : i32, rank = -1 : i32} : (tensor<4xf32>) -> ()
}

// -----

pd.program @main {
  %id = pd.c_gen_nccl_id {endpoint = ""} : () -> tensor<0xui8>
  // expected-error @below {{pd.c_comm_init: attribute 'rank' = 2 is not a rank of 2 (-1: the rank the runtime binds)}}
  pd.c_comm_init %id {nranks = 2 : i32, rank = 2 : i32} : (tensor<0xui8>) -> ()
}

// -----

pd.program @main {
  %id = pd.c_gen_nccl_id {endpoint = ""} : () -> tensor<0xui8>
  // expected-error @below {{requires attribute 'nranks'}}
  pd.c_comm_init %id {rank = 0 : i32} : (tensor<0xui8>) -> ()
}

// -----

pd.program @main {
  // expected-error @below {{'pd.c_gen_nccl_id' op result slot 'Out' has type 'tensor<1xui8>' but Paddle's inference gives 'tensor<0xui8>'}}
  %id = pd.c_gen_nccl_id {endpoint = ""} : () -> tensor<1xui8>
}

// --- Shape, padding and resize ops of image models ------------------------------

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4xf32>
  // expected-error @below {{pd.flatten_contiguous_range: attribute 'start_axis' (2) is after 'stop_axis' (1)}}
  %0:2 = pd.flatten_contiguous_range %x {start_axis = 2 : i32, stop_axis = 1 : i32} : (tensor<?x3x4xf32>) -> (tensor<?x12xf32>, tensor<0x?x3x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x1x4xf32>
  // expected-error @below {{pd.squeeze2: attribute 'axes' = [0] squeezes dim 0 of input slot 'X' 'tensor<?x1x4xf32>', whose size is unknown}}
  %0:2 = pd.squeeze2 %x {axes = array<i32: 0>} : (tensor<?x1x4xf32>) -> (tensor<1x4xf32>, tensor<0x?x1x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3xf32>
  // expected-error @below {{pd.unsqueeze2: attribute 'axes' = [4] inserts at 4, outside [-3, 2]}}
  %0:2 = pd.unsqueeze2 %x {axes = array<i32: 4>} : (tensor<2x3xf32>) -> (tensor<2x3x1xf32>, tensor<0x2x3xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<1x6x2x2xf32>
  // expected-error @below {{pd.shuffle_channel: attribute 'group' = 4 does not divide the 6 channels}}
  %0 = pd.shuffle_channel %x {group = 4 : i32} : (tensor<1x6x2x2xf32>) -> tensor<1x6x2x2xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<1x1x3x3xf32>
  // expected-error @below {{pd.pad2d: attribute 'paddings' = [3, 0, 0, 0] reflects dim 2 of input slot 'X' 'tensor<1x1x3x3xf32>' by as much as its size}}
  %0 = pd.pad2d %x {paddings = array<i32: 3, 0, 0, 0>, mode = "reflect"} : (tensor<1x1x3x3xf32>) -> tensor<1x1x6x3xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<1x1x3x3xf32>
  // expected-error @below {{pd.pad2d: attribute 'mode' = "circular" is not a padding mode (constant, reflect, edge)}}
  %0 = pd.pad2d %x {paddings = array<i32: 1, 0, 0, 0>, mode = "circular"} : (tensor<1x1x3x3xf32>) -> tensor<1x1x4x3xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<1x1x2x3x3xf32>
  // expected-error @below {{pd.pad3d: attribute 'paddings' = [1, 1] with 'data_format' = "NCDHW" must have 6 entries}}
  %0 = pd.pad3d %x {paddings = array<i32: 1, 1>} : (tensor<1x1x2x3x3xf32>) -> tensor<1x1x2x3x5xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4x4xf32>
  // expected-error @below {{pd.bilinear_interp_v2: attribute 'out_h' = 0 must be positive when 'scale' is not given}}
  %0 = pd.bilinear_interp_v2 %x {out_w = 8 : i32} : (tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4x4xf32>
  // expected-error @below {{pd.nearest_interp_v2: attribute 'interp_method' = "bicubic" is not supported (bilinear, nearest)}}
  %0 = pd.nearest_interp_v2 %x {interp_method = "bicubic", out_h = 8 : i32, out_w = 8 : i32} : (tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x3x4x4xf32>
  // expected-error @below {{'pd.nearest_interp_v2' op result slot 'Out' has type 'tensor<?x3x8x8xf32>' but Paddle's inference gives 'tensor<?x3x8x2xf32>'}}
  %0 = pd.nearest_interp_v2 %x {scale = array<f32: 2.0, 0.5>} : (tensor<?x3x4x4xf32>) -> tensor<?x3x8x8xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4x4xf32>
  %c = pd.feed {col = 1 : i32} : tensor<3xf32>
  // expected-error @below {{pd.batch_norm: attribute 'fuse_with_relu' (a oneDNN fusion) is not supported; use a separate relu}}
  %y:6 = pd.batch_norm %x, %c, %c, %c, %c {fuse_with_relu = true} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4x4xf32>
  %c = pd.feed {col = 1 : i32} : tensor<3xf32>
  %w = pd.feed {col = 2 : i32} : tensor<4xf32>
  // expected-error @below {{pd.batch_norm: input slot 'Scale' 'tensor<4xf32>' must be 1-D of size 3 (the channels of input slot 'X' 'tensor<2x3x4x4xf32>')}}
  %y:6 = pd.batch_norm %x, %w, %c, %c, %c : (tensor<2x3x4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4x4xf32>
  %c = pd.feed {col = 1 : i32} : tensor<3xf32>
  // expected-error @below {{pd.batch_norm: attribute 'data_layout' = "NDHWC" must be "NCHW" or "NHWC"}}
  %y:6 = pd.batch_norm %x, %c, %c, %c, %c {data_layout = "NDHWC"} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4xf32>
  %w = pd.feed {col = 1 : i32} : tensor<4xf32>
  // expected-error @below {{pd.affine_channel: input slot 'Scale' 'tensor<4xf32>' must be 1-D of size 3 (the channels of input slot 'X' 'tensor<2x3x4xf32>')}}
  %y = pd.affine_channel %x, %w, %w : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4xf32>
  %w = pd.feed {col = 1 : i32} : tensor<4x5xf32>
  // expected-error @below {{pd.matmul: attribute 'fused_reshape_X' (a oneDNN fusion) is not supported; it must be empty}}
  %y = pd.matmul %x, %w {fused_reshape_X = array<i32: 6, 4>} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<2x3x4xf32>
  %w = pd.feed {col = 1 : i32} : tensor<3x4x5xf32>
  // expected-error @below {{pd.matmul: input slots 'X' 'tensor<2x3x4xf32>' and 'Y' 'tensor<3x4x5xf32>' have different batch dims}}
  %y = pd.matmul %x, %w : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4xf32>
  %w = pd.feed {col = 1 : i32} : tensor<4x5xf32>
  // expected-error @below {{pd.matmul: transposing a 1-D operand (X 'tensor<4xf32>', Y 'tensor<4x5xf32>') is not supported}}
  %y = pd.matmul %x, %w {transpose_X = true} : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4x10xf32>
  // expected-error @below {{pd.arg_max: attribute 'dtype' = 5 must be 2 (int32) or 3 (int64)}}
  %y = pd.arg_max %x {dtype = 5 : i32} : (tensor<4x10xf32>) -> tensor<4xi64>
}

// --- Convolution and pooling ---------------------------------------------------

pd.program @main {
  %x = pd.feed : tensor<?x4x5x5xf32>
  %w = pd.feed {col = 1 : i32} : tensor<6x1x3x3xf32>
  // expected-error @below {{pd.conv2d: input slot 'Input' 'tensor<?x4x5x5xf32>' has 4 channels, not divisible by groups 3}}
  %y = pd.conv2d %x, %w {groups = 3 : i32} : (tensor<?x4x5x5xf32>, tensor<6x1x3x3xf32>) -> tensor<?x6x3x3xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4x5x5xf32>
  %w = pd.feed {col = 1 : i32} : tensor<6x2x3x3xf32>
  // expected-error @below {{pd.depthwise_conv2d: input slot 'Filter' 'tensor<6x2x3x3xf32>' takes 2 channels per group, but input slot 'Input' 'tensor<?x4x5x5xf32>' has 4 channels in 4 groups}}
  %y = pd.depthwise_conv2d %x, %w {groups = 4 : i32} : (tensor<?x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x3x3xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4x2x2xf32>
  %w = pd.feed {col = 1 : i32} : tensor<6x4x3x3xf32>
  // expected-error @below {{pd.conv2d: the dilated 3x3 kernel of input slot 'Filter' 'tensor<6x4x3x3xf32>' is larger than the padded input slot 'Input' 'tensor<?x4x2x2xf32>'}}
  %y = pd.conv2d %x, %w : (tensor<?x4x2x2xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x1x1xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4x5x5xf32>
  %w = pd.feed {col = 1 : i32} : tensor<4x2x3x3xf32>
  // expected-error @below {{pd.conv2d_transpose: attribute 'output_padding' 2 must be in [0, max(stride, dilation))}}
  %y = pd.conv2d_transpose %x, %w {strides = array<i32: 2, 2>, output_padding = array<i32: 2, 0>} : (tensor<?x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<?x2x11x11xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4x5x5xf32>
  // expected-error @below {{pd.pool2d: attribute 'padding_algorithm' must be EXPLICIT, SAME or VALID, got 'FULL'}}
  %y = pd.pool2d %x {pooling_type = "max", ksize = array<i32: 2, 2>, padding_algorithm = "FULL"} : (tensor<?x4x5x5xf32>) -> tensor<?x4x4x4xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<?x4x5x5xf32>
  // expected-error @below {{requires attribute 'ksize'}}
  %y = pd.pool2d %x {pooling_type = "max"} : (tensor<?x4x5x5xf32>) -> tensor<?x4x4x4xf32>
}

// -----

// --- Optimizers -----------------------------------------------------------------

pd.program @main {
  %p = pd.feed : tensor<4x3xf32>
  %lr = pd.feed {col = 1 : i32} : tensor<1xf32>
  // expected-error @below {{centered RMSProp needs input slot 'MeanGrad'}}
  %0:4 = pd.rmsprop %p, %p, %lr, %p, %p {centered = true} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<1xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
}

// -----

pd.program @main {
  %p = pd.feed : tensor<4x3xf32>
  %g = pd.feed {col = 1 : i32} : tensor<3x4xf32>
  %lr = pd.feed {col = 2 : i32} : tensor<1xf32>
  // expected-error @below {{Param 'tensor<4x3xf32>' and Grad 'tensor<3x4xf32>' must have one type}}
  %0:3 = pd.ftrl %p, %p, %p, %g, %lr : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3x4xf32>, tensor<1xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
}

// -----

pd.program @main {
  %p = pd.feed : tensor<4x3xf32>
  %lr = pd.feed {col = 1 : i32} : tensor<1xf32>
  // expected-error @below {{attribute 'decay' failed to satisfy constraint: 32-bit float attribute}}
  %0:2 = pd.decayed_adagrad %p, %p, %p, %lr {decay = "high"} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<1xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
}

// -----

// --- Meshes and shardings ------------------------------------------------------

// expected-error @below {{mesh @m: mesh axis 1 has size 0; sizes must be positive}}
pd.mesh @m shape [2, 0]

// -----

// expected-error @below {{mesh @m: mesh axis name 'dp' is used twice}}
pd.mesh @m shape [2, 2] dim_names ["dp", "dp"]

// -----

// expected-error @below {{mesh @m: the mesh of shape [2, 2] holds 4 ranks but lists 3 process ids}}
pd.mesh @m shape [2, 2] process_ids [0, 1, 2]

// -----

pd.mesh @m shape [2, 2]
// expected-error @below {{the sharding [Shard(0), Shard(0)] does not fit 'tensor<8x6xf32>': tensor axis 0 is sharded by mesh axes 0 and 1; an axis may be split by one mesh axis only}}
pd.var @w {pd.sharding = #pd.sharding<@m, [Shard(0), Shard(0)]>} : tensor<8x6xf32>

// -----

pd.mesh @m shape [2]
// expected-error @below {{the sharding [Shard(2)] does not fit 'tensor<8x6xf32>': Shard(2) on mesh axis 0: the tensor has 2 axes}}
pd.var @w {pd.sharding = #pd.sharding<@m, [Shard(2)]>} : tensor<8x6xf32>

// -----

pd.mesh @m shape [2, 2]
// expected-error @below {{the sharding [Shard(0)] has 1 placements for mesh @m of 2 axes}}
pd.var @w {pd.sharding = #pd.sharding<@m, [Shard(0)]>} : tensor<8x6xf32>
pd.program @main {
}

// -----

pd.mesh @m shape [4]
// expected-error @below {{the sharding [Shard(1)] on 'tensor<8x6xf32>': tensor axis 1 of size 6 is not divisible by mesh axis 0 of size 4 (uneven shards are not supported)}}
pd.var @w {pd.sharding = #pd.sharding<@m, [Shard(1)]>} : tensor<8x6xf32>
pd.program @main {
}

// -----

pd.program @main {
  // expected-error @below {{the sharding of result 0 names mesh @nowhere, which is not a pd.mesh of the module}}
  %x = pd.feed {pd.shardings = [#pd.sharding<@nowhere, [Shard(0)]>]} : tensor<4x8xf32>
}

// -----

pd.mesh @m shape [2]
pd.program @main {
  // expected-error @below {{attribute 'pd.shardings' has 2 shardings for 1 results}}
  %x = pd.feed {pd.shardings = [#pd.sharding<@m, [Shard(0)]>, #pd.sharding<@m, [Shard(0)]>]} : tensor<4x8xf32>
}

// -----

pd.mesh @m shape [2]
pd.program @main {
  // expected-error @below {{attribute 'pd.sharding' belongs on a pd.var; values take 'pd.shardings'}}
  %x = pd.feed {pd.sharding = #pd.sharding<@m, [Shard(0)]>} : tensor<4x8xf32>
}

// -----

pd.mesh @m shape [2]
// expected-error @below {{placement 'Partial(mul)': unknown reduction 'mul'}}
pd.var @w {pd.sharding = #pd.sharding<@m, [Partial(mul)]>} : tensor<8x6xf32>

// -----

pd.program @main {
  %x = pd.feed : tensor<4x3xf32>
  // expected-error @below {{axis 1 of X [4, 3] does not split into 2 equal pieces}}
  %0 = pd.c_split %x {nranks = 2 : i32} : (tensor<4x3xf32>) -> tensor<4x1xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<4x4xf32>
  // expected-error @below {{attribute 'nranks' = 0 must be at least 1}}
  %0 = pd.c_allgather %x {nranks = 0 : i32} : (tensor<4x4xf32>) -> tensor<4x4xf32>
}

// -----

pd.program @main {
  %x = pd.feed : tensor<6x4xf32>
  // expected-error @below {{attribute 'sections' = [2, 2] sums to 4, not dim 0 (6) of input slot 'X'}}
  %0:2 = pd.split_byref %x {sections = array<i32: 2, 2>} : (tensor<6x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<6x4xf32>
  // expected-error @below {{input slot 'X' must be row-sparse (#pd.selected_rows), got 'tensor<6x4xf32>'}}
  %0:2 = pd.split_selected_rows %x {height_sections = array<i64: 3, 3>} : (tensor<6x4xf32>) -> (tensor<3x4xf32, #pd.selected_rows>, tensor<3x4xf32, #pd.selected_rows>)
}

// -----

pd.program @main {
  %x = pd.feed : tensor<6x4xf32, #pd.selected_rows>
  // expected-error @below {{attribute 'height_sections' = [3, 2] sums to 5, not the height 6 of input slot 'X'}}
  %0:2 = pd.split_selected_rows %x {height_sections = array<i64: 3, 2>} : (tensor<6x4xf32, #pd.selected_rows>) -> (tensor<3x4xf32, #pd.selected_rows>, tensor<2x4xf32, #pd.selected_rows>)
}

// -----

pd.program @main {
  // expected-error @below {{output slot 'Out' must be tensors of static shape}}
  %0 = pd.recv : () -> tensor<?x4xf32>
}

// -----

pd.var @g : tensor<4xf32>
pd.program @main {
  // expected-error @below {{grad_to_block_id entry 'g:2' is not '<gradient>:<optimize block 1..1>'}}
  pd.listen_and_serv attributes {Fanin = 1 : i32, X = [@g], distributed_mode = 0 : i32, endpoint = "127.0.0.1:6174", grad_to_block_id = ["g:2"], pserver_id = 0 : i32, sync_mode = true} {
  }
}

// -----

pd.program @main {
  // expected-error @below {{Fanin = 0 must be at least 1 trainer}}
  pd.listen_and_serv attributes {Fanin = 0 : i32, X = [], distributed_mode = 0 : i32, endpoint = "127.0.0.1:6174", grad_to_block_id = [], pserver_id = 0 : i32, sync_mode = true} {
  }
}

// --- fusion_group --------------------------------------------------------------

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4xf32>
  // expected-error @below {{code has 3 integers; it must be a nonzero multiple of 4}}
  %y = pd.fusion_group %x {code = array<i64: 6, 0, -1>, imms = array<f64>, outputs = array<i64: 1>, fused = ["relu"], names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4xf32>
  // expected-error @below {{instruction 0 has unknown opcode 99}}
  %y = pd.fusion_group %x {code = array<i64: 99, 0, -1, -1>, imms = array<f64>, outputs = array<i64: 1>, fused = ["relu"], names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4xf32>
  // expected-error @below {{instruction 0 (relu) operand 0 is register 1; it must be defined before it}}
  %y = pd.fusion_group %x {code = array<i64: 6, 1, -1, -1>, imms = array<f64>, outputs = array<i64: 1>, fused = ["relu"], names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4xf32>
  // expected-error @below {{instruction 0 (scale) reads 3 immediates at 0 of 2}}
  %y = pd.fusion_group %x {code = array<i64: 17, 0, -1, 0>, imms = array<f64: 1.0, 2.0>, outputs = array<i64: 1>, fused = ["scale"], names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4xf32>
  // expected-error @below {{output register 0 is no instruction's}}
  %y = pd.fusion_group %x {code = array<i64: 6, 0, -1, -1>, imms = array<f64>, outputs = array<i64: 0>, fused = ["relu"], names = ["y"]} : (tensor<4xf32>) -> tensor<4xf32>
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  %b = pd.feed {pd.out_names = ["b"]} : tensor<4xf32>
  // expected-error @below {{input of type 'tensor<4xf32>' does not fit the loop over 'tensor<4x3xf32>'}}
  %y = pd.fusion_group %x, %b {code = array<i64: 0, 0, 1, -1>, imms = array<f64>, outputs = array<i64: 2>, fused = ["elementwise_add"], names = ["y"]} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4xi64>
  // expected-error @below {{loops over 'i64'; only floats}}
  %y = pd.fusion_group %x {code = array<i64: 6, 0, -1, -1>, imms = array<f64>, outputs = array<i64: 1>, fused = ["relu"], names = ["y"]} : (tensor<4xi64>) -> tensor<4xi64>
}

// -----

// --- fused ops of the fusion passes -------------------------------------------

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<3x2xf32>
  %b = pd.feed {pd.out_names = ["b"]} : tensor<2xf32>
  // expected-error @below {{pd.fused_gemm_epilogue: attribute 'activation' is 'tanh', not none, relu, gelu or gelu_tanh}}
  %y, %r = pd.fused_gemm_epilogue %x, %w, %b {activation = "tanh"} : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  %c = pd.feed {pd.out_names = ["c"]} : tensor<3xf32>
  // expected-error @below {{pd.fused_batch_norm_act: attribute 'act_type' is 'tanh', not relu}}
  %y:6 = pd.fused_batch_norm_act %x, %c, %c, %c, %c {act_type = "tanh"} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  %z = pd.feed {pd.out_names = ["z"]} : tensor<3xf32>
  %c = pd.feed {pd.out_names = ["c"]} : tensor<3xf32>
  // expected-error @below {{pd.fused_bn_add_activation: input slot 'Z' 'tensor<3xf32>' must have the type of input slot 'X' 'tensor<4x3xf32>'}}
  %y:6 = pd.fused_bn_add_activation %x, %z, %c, %c, %c, %c : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xui8>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  %y = pd.feed {pd.out_names = ["y"]} : tensor<4x2xf32>
  %c = pd.feed {pd.out_names = ["c"]} : tensor<3xf32>
  // expected-error @below {{pd.fused_batch_norm_act_grad: input slot 'Y' 'tensor<4x2xf32>' must have the type of input slot 'X' 'tensor<4x3xf32>'}}
  %dx, %ds, %db = pd.fused_batch_norm_act_grad %x, %y, %x, %c, %c, %c, %c : (tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  %y = pd.feed {pd.out_names = ["y"]} : tensor<3xf32>
  // expected-error @below {{pd.fused_dropout_add: input slot 'Y' 'tensor<3xf32>' must have the type of input slot 'X' 'tensor<4x3xf32>'}}
  %o, %m = pd.fused_dropout_add %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xui8>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  // expected-error @below {{pd.fused_dropout_add: attribute 'p' = 1.500000e+00 must be in [0, 1]}}
  %o, %m = pd.fused_dropout_add %x, %x {p = 1.5 : f32} : (tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xui8>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<4x3xf32>
  // expected-error @below {{pd.fused_dropout_add: attribute 'mode'}}
  %o, %m = pd.fused_dropout_add %x, %x {mode = "sometimes"} : (tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xui8>)
}

// -----

pd.program @main {
  %m = pd.feed {pd.out_names = ["m"]} : tensor<4x3xf32>
  %d = pd.feed {pd.out_names = ["d"]} : tensor<4x3xf32>
  // expected-error @below {{pd.fused_dropout_add_grad: input slot 'Mask' 'tensor<4x3xf32>' must be ui8 of the shape of input slot 'Out@GRAD' 'tensor<4x3xf32>'}}
  %dx, %dy = pd.fused_dropout_add_grad %m, %d : (tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<2x3x4xf32>
  %w1 = pd.feed {pd.out_names = ["w1"]} : tensor<5x8xf32>
  %w2 = pd.feed {pd.out_names = ["w2"]} : tensor<8x4xf32>
  // expected-error @below {{pd.fused_feedforward: input slot 'Linear1Weight' 'tensor<5x8xf32>' must be [d, f] with d = 4, the last dim of input slot 'X' 'tensor<2x3x4xf32>'}}
  %r:11 = pd.fused_feedforward %x, %w1, %w2 {operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 0, 0, 0, 0>} : (tensor<2x3x4xf32>, tensor<5x8xf32>, tensor<8x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x8xui8>, tensor<2x3x4xui8>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x3x8xf32>, tensor<2x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<2x3x4xf32>
  %w1 = pd.feed {pd.out_names = ["w1"]} : tensor<4x8xf32>
  %w2 = pd.feed {pd.out_names = ["w2"]} : tensor<8x4xf32>
  // expected-error @below {{pd.fused_feedforward: attribute 'act_method'}}
  %r:11 = pd.fused_feedforward %x, %w1, %w2 {act_method = "swish", operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 0, 0, 0, 0>} : (tensor<2x3x4xf32>, tensor<4x8xf32>, tensor<8x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x8xui8>, tensor<2x3x4xui8>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x3x8xf32>, tensor<2x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<2x3x4xf32>
  %w1 = pd.feed {pd.out_names = ["w1"]} : tensor<4x8xf32>
  %w2 = pd.feed {pd.out_names = ["w2"]} : tensor<8x4xf32>
  // expected-error @below {{pd.fused_feedforward: attribute 'ring_id' = 0: tensor-parallel feed-forward blocks are not supported}}
  %r:11 = pd.fused_feedforward %x, %w1, %w2 {ring_id = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 0, 0, 0, 0>} : (tensor<2x3x4xf32>, tensor<4x8xf32>, tensor<8x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x8xui8>, tensor<2x3x4xui8>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x3x8xf32>, tensor<2x3x4xf32>, tensor<2x3x8xf32>, tensor<2x3x4xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x5x8xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<3x2x4x8xf32>
  %o = pd.feed {pd.out_names = ["o"]} : tensor<8x8xf32>
  // expected-error @below {{pd.fused_attention: input slot 'QKVW' 'tensor<3x2x4x8xf32>' must be [8, 24] in the transpose_qkv_wb form}}
  %r:19 = pd.fused_attention %x, %w, %o {transpose_qkv_wb = true, num_heads = 2 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 1, 0, 0, 0>} : (tensor<?x5x8xf32>, tensor<3x2x4x8xf32>, tensor<8x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x3x2x4xf32>, tensor<?x5x3x2x4xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x5x8xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<3x2x4x8xf32>
  %o = pd.feed {pd.out_names = ["o"]} : tensor<8x8xf32>
  // expected-error @below {{pd.fused_attention: attribute 'ring_id' = 1: tensor-parallel attention is not supported}}
  %r:19 = pd.fused_attention %x, %w, %o {ring_id = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 1, 0, 0, 0>} : (tensor<?x5x8xf32>, tensor<3x2x4x8xf32>, tensor<8x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x3x2x4xf32>, tensor<?x5x3x2x4xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x5x8xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<3x2x3x8xf32>
  %o = pd.feed {pd.out_names = ["o"]} : tensor<8x8xf32>
  // expected-error @below {{pd.fused_attention: input slot 'QKVW' 'tensor<3x2x3x8xf32>' must be [3, heads, head_dim, 8] with heads·head_dim = 8}}
  %r:19 = pd.fused_attention %x, %w, %o {operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 1, 0, 0, 0>} : (tensor<?x5x8xf32>, tensor<3x2x3x8xf32>, tensor<8x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x3x2x4xf32>, tensor<?x5x3x2x4xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x5x8xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<8x24xf32>
  %o = pd.feed {pd.out_names = ["o"]} : tensor<8x8xf32>
  // expected-error @below {{pd.fused_attention: attribute 'num_heads' = 3 must divide the embed dim 8}}
  %r:19 = pd.fused_attention %x, %w, %o {transpose_qkv_wb = true, num_heads = 3 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 1, 0, 0, 0>} : (tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x24xf32>, tensor<?x5x24xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x5x8xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<8x24xf32>
  %o = pd.feed {pd.out_names = ["o"]} : tensor<8x8xf32>
  %r:19 = pd.fused_attention %x, %w, %o {transpose_qkv_wb = true, num_heads = 2 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 1, 0, 0, 0>} : (tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x24xf32>, tensor<?x5x24xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
  // expected-error @below {{pd.fused_attention_grad: the gradient takes the transpose_qkv_wb form only}}
  %g:9 = pd.fused_attention_grad %x, %x, %w, %o, %r#5, %r#8, %r#9, %r#10, %r#12, %r#14 {num_heads = 2 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1>} : (tensor<?x5x8xf32>, tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xui8>) -> (tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<0xf32>, tensor<8x8xf32>, tensor<0xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x5x8xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<8x24xf32>
  %o = pd.feed {pd.out_names = ["o"]} : tensor<8x8xf32>
  %r:19 = pd.fused_attention %x, %w, %o {transpose_qkv_wb = true, num_heads = 2 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 1, 0, 0, 0>} : (tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x24xf32>, tensor<?x5x24xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
  // expected-error @below {{pd.fused_attention_grad: the pre_layer_norm form needs input slot 'LnOut'}}
  %g:9 = pd.fused_attention_grad %x, %x, %w, %o, %r#5, %r#8, %r#9, %r#10, %r#12, %r#14 {transpose_qkv_wb = true, pre_layer_norm = true, num_heads = 2 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1>} : (tensor<?x5x8xf32>, tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xui8>) -> (tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<0xf32>, tensor<8x8xf32>, tensor<0xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
}

// -----

pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x5x8xf32>
  %w = pd.feed {pd.out_names = ["w"]} : tensor<8x24xf32>
  %o = pd.feed {pd.out_names = ["o"]} : tensor<8x8xf32>
  %r:19 = pd.fused_attention %x, %w, %o {transpose_qkv_wb = true, num_heads = 2 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 1, 0, 0, 0>} : (tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x24xf32>, tensor<?x5x24xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xf32>, tensor<?x5x8xui8>, tensor<?xf32>, tensor<?xf32>, tensor<?x5x8xf32>, tensor<?x5x8xf32>)
  // expected-error @below {{pd.fused_attention_grad: input slot 'TransposeOut2' 'tensor<3x?x2x5x4xf32>' does not match X 'tensor<?x5x8xf32>' and 4 heads}}
  %g:9 = pd.fused_attention_grad %x, %x, %w, %o, %x, %r#5, %r#8, %r#9, %r#10, %r#12, %r#14 {transpose_qkv_wb = true, pre_layer_norm = true, num_heads = 4 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1>} : (tensor<?x5x8xf32>, tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>, tensor<?x5x8xf32>, tensor<3x?x2x5x4xf32>, tensor<?x2x5x5xf32>, tensor<?x2x5x5xui8>, tensor<?x2x5x5xf32>, tensor<?x5x2x4xf32>, tensor<?x5x8xui8>) -> (tensor<?x5x8xf32>, tensor<8x24xf32>, tensor<0xf32>, tensor<8x8xf32>, tensor<0xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
}
