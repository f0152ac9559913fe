// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-lower-to-artifact="print" -o /dev/null | FileCheck %s

// Paddle's adaptive-rate optimizer ops as Paddle programs hold them, lowered
// to their update kernels over the variables' own buffers (in place).
// rmsprop without MeanGrad and not centered: the kernel takes no mean_grad.
// CHECK-LABEL: artifact: <artifact>
// CHECK: %[[W:[0-9]+]] w: f32[4,2] persistent
// CHECK: %[[U:[0-9]+]] u: f32[4,2] persistent
// CHECK: %[[LR:[0-9]+]] lr: f32[1] persistent
// CHECK: %[[MS:[0-9]+]] w_mean_square_0: f32[4,2] persistent
// CHECK: %[[MOM:[0-9]+]] w_momentum_0: f32[4,2] persistent
// CHECK: %[[SQ:[0-9]+]] u_squared_0: f32[4,2] persistent
// CHECK: %[[LIN:[0-9]+]] u_linear_0: f32[4,2] persistent
// CHECK: train/trainer/main
// CHECK: %[[DW:[0-9]+]] = matmul({{.*}}   // mul_grad -> tmp_{{[0-9]+}}
// CHECK-NEXT: %[[W]], %[[MOM]], %[[MS]] = rmsprop(%[[W]], %[[DW]], %[[MOM]], %[[MS]], %[[LR]]) {centered = 0, decay = 0.8999999761581421, epsilon = 1.000000013351432e-10, momentum = 0}   // rmsprop -> w
// CHECK-NEXT: %[[U]], %[[SQ]], %[[LIN]] = ftrl(%[[U]], %[[DW]], %[[SQ]], %[[LIN]], %[[LR]]) {l1 = 0.5, l2 = 0, lr_power = -0.5}   // ftrl -> u
// CHECK: optimizer: rmsprop
// CHECK: optimizer_state: lr, u_linear_0, u_squared_0, w_mean_square_0, w_momentum_0
module {
  pd.var @w persistable is_parameter : tensor<4x2xf32>
  pd.var @u persistable is_parameter : tensor<4x2xf32>
  pd.var @lr persistable : tensor<1xf32>
  pd.var @w_mean_square_0 persistable : tensor<4x2xf32>
  pd.var @w_momentum_0 persistable : tensor<4x2xf32>
  pd.var @u_squared_0 persistable : tensor<4x2xf32>
  pd.var @u_linear_0 persistable : tensor<4x2xf32>
  pd.program @train.main attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x2xf32>
    %u = pd.read_var @u : tensor<4x2xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %l = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x2xf32>) -> tensor<f32>
    pd.fetch %l : tensor<f32>
    %dl = pd.fill_constant {op_role = 257 : i32, pd.out_names = ["loss@GRAD"], value = 1.0 : f32} : () -> tensor<f32>
    %dy = pd.mean_grad %y, %dl {op_role = 1 : i32, pd.out_names = ["y@GRAD"]} : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
    %dx, %dw = pd.mul_grad %x, %w, %dy {op_role = 1 : i32, pd.out_names = ["", "w@GRAD"]} : (tensor<?x4xf32>, tensor<4x2xf32>, tensor<?x2xf32>) -> (tensor<?x4xf32>, tensor<4x2xf32>)
    %lr = pd.read_var @lr : tensor<1xf32>
    %ms = pd.read_var @w_mean_square_0 : tensor<4x2xf32>
    %mom = pd.read_var @w_momentum_0 : tensor<4x2xf32>
    %p, %v, %s, %g = pd.rmsprop %w, %ms, %lr, %dw, %mom {op_role = 2 : i32, pd.out_names = ["w", "w_momentum_0", "w_mean_square_0", ""]} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
    pd.write_var @w, %p : tensor<4x2xf32>
    pd.write_var @w_momentum_0, %v : tensor<4x2xf32>
    pd.write_var @w_mean_square_0, %s : tensor<4x2xf32>
    %sq = pd.read_var @u_squared_0 : tensor<4x2xf32>
    %lin = pd.read_var @u_linear_0 : tensor<4x2xf32>
    %p2, %sq2, %lin2 = pd.ftrl %u, %sq, %lin, %dw, %lr {op_role = 2 : i32, l1 = 0.5 : f32, pd.out_names = ["u", "u_squared_0", "u_linear_0"]} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
    pd.write_var @u, %p2 : tensor<4x2xf32>
    pd.write_var @u_squared_0, %sq2 : tensor<4x2xf32>
    pd.write_var @u_linear_0, %lin2 : tensor<4x2xf32>
  }
}

// -----

// Centered rmsprop updates MeanGrad in place; adagrad and decayed_adagrad
// are one kernel, `decayed` telling them apart.
// CHECK-LABEL: artifact: <artifact>
// CHECK: %[[U:[0-9]+]] u: f32[4,2] persistent
// CHECK: %[[V:[0-9]+]] v: f32[4,2] persistent
// CHECK: %[[MG:[0-9]+]] w_mean_grad_0: f32[4,2] persistent
// CHECK: %[[M:[0-9]+]] u_moment_0: f32[4,2] persistent
// CHECK: %[[VM:[0-9]+]] v_moment_0: f32[4,2] persistent
// CHECK: train/trainer/main
// CHECK: %{{[0-9]+}}, %[[MG]] = rmsprop(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[MG]]) {centered = 1, decay = 0.949999988079071, epsilon = 9.999999974752427e-07, momentum = 0.5}   // rmsprop -> w
// CHECK-NEXT: %[[U]], %[[M]] = adagrad(%[[U]], %{{[0-9]+}}, %[[M]], %{{[0-9]+}}) {epsilon = 9.999999974752427e-07}   // adagrad -> u
// CHECK-NEXT: %[[V]], %[[VM]] = adagrad(%[[V]], %{{[0-9]+}}, %[[VM]], %{{[0-9]+}}) {decay = 0.8999999761581421, decayed = 1, epsilon = 9.999999747378752e-06}   // decayed_adagrad -> v
module {
  pd.var @w persistable is_parameter : tensor<4x2xf32>
  pd.var @u persistable is_parameter : tensor<4x2xf32>
  pd.var @v persistable is_parameter : tensor<4x2xf32>
  pd.var @lr persistable : tensor<1xf32>
  pd.var @w_mean_square_0 persistable : tensor<4x2xf32>
  pd.var @w_mean_grad_0 persistable : tensor<4x2xf32>
  pd.var @w_momentum_0 persistable : tensor<4x2xf32>
  pd.var @u_moment_0 persistable : tensor<4x2xf32>
  pd.var @v_moment_0 persistable : tensor<4x2xf32>
  pd.program @train.main attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x2xf32>
    %u = pd.read_var @u : tensor<4x2xf32>
    %vp = pd.read_var @v : tensor<4x2xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %l = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x2xf32>) -> tensor<f32>
    pd.fetch %l : tensor<f32>
    %dl = pd.fill_constant {op_role = 257 : i32, pd.out_names = ["loss@GRAD"], value = 1.0 : f32} : () -> tensor<f32>
    %dy = pd.mean_grad %y, %dl {op_role = 1 : i32, pd.out_names = ["y@GRAD"]} : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
    %dx, %dw = pd.mul_grad %x, %w, %dy {op_role = 1 : i32, pd.out_names = ["", "w@GRAD"]} : (tensor<?x4xf32>, tensor<4x2xf32>, tensor<?x2xf32>) -> (tensor<?x4xf32>, tensor<4x2xf32>)
    %lr = pd.read_var @lr : tensor<1xf32>
    %ms = pd.read_var @w_mean_square_0 : tensor<4x2xf32>
    %mg = pd.read_var @w_mean_grad_0 : tensor<4x2xf32>
    %mom = pd.read_var @w_momentum_0 : tensor<4x2xf32>
    %p, %v, %s, %g = pd.rmsprop %w, %ms, %mg, %lr, %dw, %mom {centered = true, decay = 0.95 : f32, epsilon = 1.0e-6 : f32, momentum = 0.5 : f32, op_role = 2 : i32, pd.out_names = ["w", "w_momentum_0", "w_mean_square_0", "w_mean_grad_0"]} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
    pd.write_var @w, %p : tensor<4x2xf32>
    pd.write_var @w_momentum_0, %v : tensor<4x2xf32>
    pd.write_var @w_mean_square_0, %s : tensor<4x2xf32>
    pd.write_var @w_mean_grad_0, %g : tensor<4x2xf32>
    %m = pd.read_var @u_moment_0 : tensor<4x2xf32>
    %p2, %m2 = pd.adagrad %u, %dw, %m, %lr {op_role = 2 : i32, pd.out_names = ["u", "u_moment_0"]} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    pd.write_var @u, %p2 : tensor<4x2xf32>
    pd.write_var @u_moment_0, %m2 : tensor<4x2xf32>
    %vm = pd.read_var @v_moment_0 : tensor<4x2xf32>
    %p3, %m3 = pd.decayed_adagrad %vp, %dw, %vm, %lr {decay = 0.9 : f32, epsilon = 1.0e-5 : f32, op_role = 2 : i32, pd.out_names = ["v", "v_moment_0"]} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    pd.write_var @v, %p3 : tensor<4x2xf32>
    pd.write_var @v_moment_0, %m3 : tensor<4x2xf32>
  }
}

// -----

// MeanGradOut carries MeanGrad over; without MeanGrad it has no value.
module {
  pd.var @w persistable is_parameter : tensor<4x2xf32>
  pd.var @lr persistable : tensor<1xf32>
  pd.var @w_mean_square_0 persistable : tensor<4x2xf32>
  pd.var @w_mean_grad_0 persistable : tensor<4x2xf32>
  pd.var @w_momentum_0 persistable : tensor<4x2xf32>
  pd.program @train.main attributes {pd.kind = "main", pd.mode = "train"} {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x2xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %l = pd.mean %y {pd.out_names = ["loss"]} : (tensor<?x2xf32>) -> tensor<f32>
    pd.fetch %l : tensor<f32>
    %dl = pd.fill_constant {op_role = 257 : i32, pd.out_names = ["loss@GRAD"], value = 1.0 : f32} : () -> tensor<f32>
    %dy = pd.mean_grad %y, %dl {op_role = 1 : i32, pd.out_names = ["y@GRAD"]} : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
    %dx, %dw = pd.mul_grad %x, %w, %dy {op_role = 1 : i32, pd.out_names = ["", "w@GRAD"]} : (tensor<?x4xf32>, tensor<4x2xf32>, tensor<?x2xf32>) -> (tensor<?x4xf32>, tensor<4x2xf32>)
    %lr = pd.read_var @lr : tensor<1xf32>
    %ms = pd.read_var @w_mean_square_0 : tensor<4x2xf32>
    %mom = pd.read_var @w_momentum_0 : tensor<4x2xf32>
    // expected-error @below {{output slot 'MeanGradOut' of rmsprop is used, but input slot 'MeanGrad' is not given}}
    %p, %v, %s, %g = pd.rmsprop %w, %ms, %lr, %dw, %mom {op_role = 2 : i32, pd.out_names = ["w", "w_momentum_0", "w_mean_square_0", "w_mean_grad_0"]} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<1xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
    pd.write_var @w, %p : tensor<4x2xf32>
    pd.write_var @w_momentum_0, %v : tensor<4x2xf32>
    pd.write_var @w_mean_square_0, %s : tensor<4x2xf32>
    pd.write_var @w_mean_grad_0, %g : tensor<4x2xf32>
  }
}
