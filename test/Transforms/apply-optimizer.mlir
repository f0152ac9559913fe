// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=sgd lr=0.5" \
// RUN:   | FileCheck %s --check-prefix=SGD
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=momentum momentum=0.8 nesterov=true weight-decay=0.01" \
// RUN:   | FileCheck %s --check-prefix=MOMENTUM
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=adam weight-decay=0.1 clip-norm=2" \
// RUN:   | FileCheck %s --check-prefix=ADAM
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=adamw weight-decay=0.1" \
// RUN:   | FileCheck %s --check-prefix=ADAMW

// SGD: pd.var @learning_rate_0 persistable : tensor<1xf32>
// SGD-LABEL: pd.program @main
// SGD: %[[LR:.*]] = pd.read_var @learning_rate_0
// SGD: %[[W:.*]] = pd.sgd %{{.*}}, %[[LR]], %{{.*}} {op_role = 2 : i32, pd.out_names = ["w"]}
// SGD: pd.write_var @w, %[[W]]
// SGD-LABEL: pd.program @startup
// SGD: %[[INIT:.*]] = pd.fill_constant {pd.out_names = ["learning_rate_0"], shape = array<i64: 1>, value = 5.000000e-01 : f32}
// SGD: pd.write_var @learning_rate_0, %[[INIT]]

// Momentum takes L2 decay as its own attributes; the velocity starts at 0.
// MOMENTUM: pd.var @w_velocity_0 persistable : tensor<4x2xf32>
// MOMENTUM: %[[P:.*]], %[[V:.*]] = pd.momentum {{.*}} {mu = 8.000000e-01 : f32, op_role = 2 : i32, pd.out_names = ["w", "w_velocity_0"], regularization_coeff = 0.00999999977 : f32, regularization_method = "l2_decay", use_nesterov = true}
// MOMENTUM-DAG: pd.write_var @w, %[[P]]
// MOMENTUM-DAG: pd.write_var @w_velocity_0, %[[V]]
// MOMENTUM-LABEL: pd.program @startup
// MOMENTUM: pd.fill_constant {pd.out_names = ["w_velocity_0"], shape = array<i64: 4, 2>} : () -> tensor<4x2xf32>

// Adam: clipping first (Paddle's ClipGradByGlobalNorm), then L2 decay, then
// the update; beta powers start at beta1 and beta2.
// ADAM: %[[SQ:.*]] = pd.squared_l2_norm %{{.*}} {op_role = 2 : i32, pd.out_names = ["w@GRAD@SQUARED_L2_NORM"]}
// ADAM: %[[TOTAL:.*]] = pd.sum %[[SQ]] {{.*}}["global_norm_square"]
// ADAM: %[[NORM:.*]] = pd.sqrt %[[TOTAL]]
// ADAM: %[[CLIP:.*]] = pd.fill_constant {op_role = 2 : i32, pd.out_names = ["global_norm_clip"], shape = array<i64: 1>, value = 2.000000e+00 : f32}
// ADAM: %[[MAX:.*]] = pd.elementwise_max %[[NORM]], %[[CLIP]]
// ADAM: %[[SCALE:.*]] = pd.elementwise_div %[[CLIP]], %[[MAX]]
// ADAM: %[[CLIPPED:.*]] = pd.elementwise_mul %{{.*}}, %[[SCALE]] {{.*}}["w@GRAD@CLIP"]
// ADAM: %[[DECAY:.*]] = pd.scale %{{.*}} {op_role = 2 : i32, pd.out_names = ["w@L2_DECAY"], scale = 1.000000e-01 : f32}
// ADAM: %[[G:.*]] = pd.sum %[[CLIPPED]], %[[DECAY]] {{.*}}["w@GRAD@L2"]
// ADAM: pd.adam %{{.*}}, %[[G]], {{.*}}pd.out_names = ["w", "w_moment1_0", "w_moment2_0", "w_beta1_pow_acc_0", "w_beta2_pow_acc_0"]
// ADAM-LABEL: pd.program @startup
// ADAM-DAG: pd.fill_constant {pd.out_names = ["w_beta1_pow_acc_0"], shape = array<i64: 1>, value = 0.899999976 : f32}
// ADAM-DAG: pd.fill_constant {pd.out_names = ["w_beta2_pow_acc_0"], shape = array<i64: 1>, value = 9.990000e-01 : f32}

// AdamW decays decoupled, through its coeff attribute, not the gradient.
// ADAMW-NOT: L2_DECAY
// ADAMW: pd.adamw {{.*}}{coeff = 1.000000e-01 : f32, op_role = 2 : i32
module {
  pd.var @w persistable is_parameter : tensor<4x2xf32>
  pd.var @frozen persistable is_parameter stop_gradient : tensor<2xf32>
  pd.program @main {
    %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
    %w = pd.read_var @w : tensor<4x2xf32>
    %f = pd.read_var @frozen : tensor<2xf32>
    %y = pd.mul %x, %w {pd.out_names = ["y"]} : (tensor<?x4xf32>, tensor<4x2xf32>) -> tensor<?x2xf32>
    %z = pd.elementwise_add %y, %f {axis = 1 : i32, pd.out_names = ["z"]} : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
    %l = pd.mean %z {pd.out_names = ["loss"]} : (tensor<?x2xf32>) -> tensor<f32>
    pd.fetch %l : tensor<f32>
    %dl = pd.fill_constant {op_role = 257 : i32, pd.out_names = ["loss@GRAD"], value = 1.0 : f32} : () -> tensor<f32>
    %dz = pd.mean_grad %z, %dl {op_role = 1 : i32, pd.out_names = ["z@GRAD"]} : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
    %dx, %dw = pd.mul_grad %x, %w, %dz {op_role = 1 : i32, pd.out_names = ["", "w@GRAD"]} : (tensor<?x4xf32>, tensor<4x2xf32>, tensor<?x2xf32>) -> (tensor<?x4xf32>, tensor<4x2xf32>)
  }
  pd.program @startup {
  }
}

// -----

// expected-error @below {{no trainable parameter has a gradient}}
pd.program @main {
  %x = pd.feed {pd.out_names = ["x"]} : tensor<?x4xf32>
  pd.fetch %x : tensor<?x4xf32>
}
pd.program @startup {
}
