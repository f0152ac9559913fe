//===- Optimizer.cpp - sgd, momentum, adam --------------------------------===//
//
// Paddle's optimizer updates. Each output is normally the same buffer as
// the corresponding input (parameters and optimizer state are updated in
// place), so every kernel reads all inputs of element i before writing any
// output of element i, and reads its one-element scalars (learning rate,
// beta powers) before the loop. Scalars may be f32 or f64 independently of
// the parameter; values are computed in double and rounded once.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cmath>

namespace distc::runtime::kernels {
namespace {

/// Checks that every tensor of `ts` has param's dtype and element count.
void expectLikeParam(const KernelContext &ctx, const Tensor &param,
                     std::initializer_list<std::pair<const Tensor *, const char *>> ts) {
  for (auto [t, name] : ts) {
    expectSameDtype(ctx, *t, param, name, "param");
    expectNumel(ctx, *t, param.numel(), name);
  }
}

/// Writes a one-element f32/f64 tensor (checked by floatScalar).
void setFloatScalar(Tensor &t, double v) {
  if (t.dtype() == DType::Float32)
    t.data<float>()[0] = float(v);
  else
    t.data<double>()[0] = v;
}

/// param_out = param - lr * grad.
void sgdKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const double lr = floatScalar(ctx, ctx.input(2), "lr");
  Tensor &paramOut = ctx.output(0);
  expectLikeParam(ctx, param, {{&grad, "grad"}, {&paramOut, "param_out"}});
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>();
    const T *g = grad.data<T>();
    T *po = paramOut.data<T>();
    for (int64_t i = 0; i < param.numel(); ++i)
      po[i] = T(double(p[i]) - lr * double(g[i]));
  });
}

/// g = grad + coeff * param; v = mu * v + g;
/// param -= lr * (g + mu * v) with Nesterov, else lr * v.
void momentumKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const Tensor &velocity = ctx.input(2);
  const double lr = floatScalar(ctx, ctx.input(3), "lr");
  Tensor &paramOut = ctx.output(0);
  Tensor &velocityOut = ctx.output(1);
  const double mu = ctx.floatAttr("mu");
  const bool nesterov = ctx.intAttr("use_nesterov", 0) != 0;
  const double coeff = ctx.floatAttr("regularization_coeff", 0.0);
  expectLikeParam(ctx, param,
                  {{&grad, "grad"},
                   {&velocity, "velocity"},
                   {&paramOut, "param_out"},
                   {&velocityOut, "velocity_out"}});
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>();
    const T *gr = grad.data<T>();
    const T *v = velocity.data<T>();
    T *po = paramOut.data<T>();
    T *vo = velocityOut.data<T>();
    for (int64_t i = 0; i < param.numel(); ++i) {
      const double pi = double(p[i]);
      const double g = double(gr[i]) + coeff * pi;
      const double vNew = mu * double(v[i]) + g;
      vo[i] = T(vNew);
      po[i] = T(pi - lr * (nesterov ? g + mu * vNew : vNew));
    }
  });
}

/// Paddle's adam, or adamw when decoupled (weight decay applied to the
/// parameter first, scaled by lr, as Paddle's adamw does):
///   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2;
///   lr_t = lr sqrt(1-b2pow) / (1-b1pow);
///   param -= lr_t m / (sqrt(v) + eps sqrt(1-b2pow));
///   b1pow *= b1; b2pow *= b2.
void adamKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const Tensor &moment1 = ctx.input(2);
  const Tensor &moment2 = ctx.input(3);
  const double b1pow = floatScalar(ctx, ctx.input(4), "beta1_pow");
  const double b2pow = floatScalar(ctx, ctx.input(5), "beta2_pow");
  const double lr = floatScalar(ctx, ctx.input(6), "lr");
  Tensor &paramOut = ctx.output(0);
  Tensor &moment1Out = ctx.output(1);
  Tensor &moment2Out = ctx.output(2);
  const double b1 = ctx.floatAttr("beta1"), b2 = ctx.floatAttr("beta2");
  const double eps = ctx.floatAttr("epsilon");
  // Only the decoupled (adamw) update uses weight_decay.
  const double decay = ctx.intAttr("decoupled", 0) != 0 ? ctx.floatAttr("weight_decay", 0.0) : 0.0;
  expectLikeParam(ctx, param,
                  {{&grad, "grad"},
                   {&moment1, "moment1"},
                   {&moment2, "moment2"},
                   {&paramOut, "param_out"},
                   {&moment1Out, "moment1_out"},
                   {&moment2Out, "moment2_out"}});
  // Checked before any output is written.
  floatScalar(ctx, ctx.output(3), "beta1_pow_out");
  floatScalar(ctx, ctx.output(4), "beta2_pow_out");
  const double lrT = lr * std::sqrt(1 - b2pow) / (1 - b1pow);
  const double epsT = eps * std::sqrt(1 - b2pow);
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>();
    const T *gr = grad.data<T>();
    const T *m1 = moment1.data<T>();
    const T *m2 = moment2.data<T>();
    T *po = paramOut.data<T>();
    T *m1o = moment1Out.data<T>();
    T *m2o = moment2Out.data<T>();
    for (int64_t i = 0; i < param.numel(); ++i) {
      double pi = double(p[i]);
      const double g = double(gr[i]);
      pi -= lr * decay * pi;
      const double m = b1 * double(m1[i]) + (1 - b1) * g;
      const double v = b2 * double(m2[i]) + (1 - b2) * g * g;
      m1o[i] = T(m);
      m2o[i] = T(v);
      po[i] = T(pi - lrT * m / (std::sqrt(v) + epsT));
    }
  });
  // The beta powers advance after the update, which used their old values.
  setFloatScalar(ctx.output(3), b1pow * b1);
  setFloatScalar(ctx.output(4), b2pow * b2);
}

} // namespace

void registerOptimizerKernels(KernelRegistry &r) {
  r.add("sgd", sgdKernel);
  r.add("momentum", momentumKernel);
  r.add("adam", adamKernel);
}

} // namespace distc::runtime::kernels
