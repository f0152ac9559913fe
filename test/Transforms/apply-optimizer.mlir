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
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=adagrad initial-accumulator-value=0.1 weight-decay=0.01" \
// RUN:   | FileCheck %s --check-prefix=ADAGRAD
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=decayed_adagrad decay=0.9 epsilon=1e-5" \
// RUN:   | FileCheck %s --check-prefix=DECAYED
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=rmsprop" \
// RUN:   | FileCheck %s --check-prefix=RMSPROP
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=rmsprop rho=0.9 momentum=0.5 centered=true epsilon=1e-10" \
// RUN:   | FileCheck %s --check-prefix=CENTERED
// RUN: distc-opt %s --split-input-file --verify-diagnostics \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=ftrl l1=0.01 l2=0.02 lr-power=-0.6" \
// RUN:   | FileCheck %s --check-prefix=FTRL
// RUN: not distc-opt %s --split-input-file \
// RUN:   --distc-apply-optimizer="program=main startup=startup optimizer=lamb" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN

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
// Adagrad: L2 decay into the gradient, then the update; Paddle's
// accumulator `<p>_moment_0` starts at initial_accumulator_value; epsilon
// is Paddle's default (1e-6, the op's default too: elided).
// ADAGRAD: pd.var @w_moment_0 persistable : tensor<4x2xf32>
// ADAGRAD: %[[G:.*]] = pd.sum {{.*}}["w@GRAD@L2"]
// ADAGRAD: %[[P:.*]], %[[M:.*]] = pd.adagrad %{{.*}}, %[[G]], %{{.*}}, %{{.*}} {op_role = 2 : i32, pd.out_names = ["w", "w_moment_0"]}
// ADAGRAD-DAG: pd.write_var @w, %[[P]]
// ADAGRAD-DAG: pd.write_var @w_moment_0, %[[M]]
// ADAGRAD-LABEL: pd.program @startup
// ADAGRAD: pd.fill_constant {pd.out_names = ["w_moment_0"], shape = array<i64: 4, 2>, value = 1.000000e-01 : f32}

// DECAYED-NOT: L2_DECAY
// DECAYED: pd.decayed_adagrad {{.*}} {decay = 0.899999976 : f32, epsilon = 9.99999974E-6 : f32, op_role = 2 : i32, pd.out_names = ["w", "w_moment_0"]}
// DECAYED-LABEL: pd.program @startup
// DECAYED: pd.fill_constant {pd.out_names = ["w_moment_0"], shape = array<i64: 4, 2>} : () -> tensor<4x2xf32>

// RMSProp: Paddle's accumulators momentum, mean_square and mean_grad (passed
// centered or not), all starting at 0; Paddle's Python defaults rho = 0.95,
// epsilon = 1e-6, momentum = 0 (the op's default: elided).
// RMSPROP: pd.var @w_momentum_0 persistable : tensor<4x2xf32>
// RMSPROP: pd.var @w_mean_square_0 persistable : tensor<4x2xf32>
// RMSPROP: pd.var @w_mean_grad_0 persistable : tensor<4x2xf32>
// RMSPROP: %[[MOM:.*]] = pd.read_var @w_momentum_0
// RMSPROP: %[[MS:.*]] = pd.read_var @w_mean_square_0
// RMSPROP: %[[MG:.*]] = pd.read_var @w_mean_grad_0
// RMSPROP: %[[P:.*]], %[[V:.*]], %[[S:.*]], %[[A:.*]] = pd.rmsprop %{{.*}}, %[[MS]], %[[MG]], %{{.*}}, %{{.*}}, %[[MOM]] {decay = 0.949999988 : f32, epsilon = 9.99999997E-7 : f32, op_role = 2 : i32, pd.out_names = ["w", "w_momentum_0", "w_mean_square_0", "w_mean_grad_0"]}
// RMSPROP-DAG: pd.write_var @w, %[[P]]
// RMSPROP-DAG: pd.write_var @w_momentum_0, %[[V]]
// RMSPROP-DAG: pd.write_var @w_mean_square_0, %[[S]]
// RMSPROP-DAG: pd.write_var @w_mean_grad_0, %[[A]]
// RMSPROP-LABEL: pd.program @startup
// RMSPROP-DAG: pd.fill_constant {pd.out_names = ["w_momentum_0"], shape = array<i64: 4, 2>} : () -> tensor<4x2xf32>
// RMSPROP-DAG: pd.fill_constant {pd.out_names = ["w_mean_square_0"], shape = array<i64: 4, 2>} : () -> tensor<4x2xf32>
// RMSPROP-DAG: pd.fill_constant {pd.out_names = ["w_mean_grad_0"], shape = array<i64: 4, 2>} : () -> tensor<4x2xf32>

// CENTERED: pd.rmsprop {{.*}} {centered = true, momentum = 5.000000e-01 : f32, op_role = 2 : i32

// FTRL: pd.var @w_squared_0 persistable : tensor<4x2xf32>
// FTRL: pd.var @w_linear_0 persistable : tensor<4x2xf32>
// FTRL: %[[P:.*]], %[[SQ:.*]], %[[LIN:.*]] = pd.ftrl {{.*}} {l1 = 0.00999999977 : f32, l2 = 2.000000e-02 : f32, lr_power = -6.000000e-01 : f32, op_role = 2 : i32, pd.out_names = ["w", "w_squared_0", "w_linear_0"]}
// FTRL-DAG: pd.write_var @w_squared_0, %[[SQ]]
// FTRL-DAG: pd.write_var @w_linear_0, %[[LIN]]
// FTRL-LABEL: pd.program @startup
// FTRL-DAG: pd.fill_constant {pd.out_names = ["w_squared_0"], shape = array<i64: 4, 2>} : () -> tensor<4x2xf32>
// FTRL-DAG: pd.fill_constant {pd.out_names = ["w_linear_0"], shape = array<i64: 4, 2>} : () -> tensor<4x2xf32>

// UNKNOWN: error: unknown optimizer 'lamb' (expected sgd, momentum, adam, adamw, adagrad, decayed_adagrad, rmsprop, ftrl)

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
