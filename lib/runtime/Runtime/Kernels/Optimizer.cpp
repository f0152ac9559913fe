//===- Optimizer.cpp - sgd, momentum, adam --------------------------------===//
//
// Paddle's optimizer updates. Each output is normally the same buffer as
// the corresponding input (parameters and optimizer state are updated in
// place), so every kernel reads all inputs of element i before writing any
// output of element i, and reads its one-element scalars (learning rate,
// beta powers) before the loop. Scalars may be f32 or f64 independently of
// the parameter; they are combined in double, then the per-element update
// runs in the parameter's dtype so that float32 loops vectorize (an output
// is either its input's buffer or disjoint storage, see
// DISTC_VECTORIZE_LOOP).
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
template <typename T> DISTC_ALWAYS_INLINE void sgdUpdate(const T *p, const T *g, T *po, int64_t n, T lr) {
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i)
    po[i] = p[i] - lr * g[i];
}

void sgdKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const double lr = floatScalar(ctx, ctx.input(2), "lr");
  Tensor &paramOut = ctx.output(0);
  expectLikeParam(ctx, param, {{&grad, "grad"}, {&paramOut, "param_out"}});
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>(), *g = grad.data<T>();
    T *po = paramOut.data<T>();
    vectorizedFor(param.numel(), kCheapGrain, [=](int64_t b, int64_t e) {
      sgdUpdate<T>(p + b, g + b, po + b, e - b, T(lr));
    });
  });
}

struct MomentumCoeffs {
  double lr, mu, coeff;
  bool nesterov;
};

/// g = grad + coeff * param; v = mu * v + g;
/// param -= lr * (g + mu * v) with Nesterov, else lr * v.
template <typename T>
DISTC_ALWAYS_INLINE void momentumUpdate(const T *p, const T *gr, const T *v, T *po, T *vo, int64_t n,
                    const MomentumCoeffs &c) {
  const T lr = T(c.lr), mu = T(c.mu), coeff = T(c.coeff);
  if (c.nesterov) {
    DISTC_VECTORIZE_LOOP
    for (int64_t i = 0; i < n; ++i) {
      const T pi = p[i];
      const T g = gr[i] + coeff * pi;
      const T vNew = mu * v[i] + g;
      vo[i] = vNew;
      po[i] = pi - lr * (g + mu * vNew);
    }
    return;
  }
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i) {
    const T pi = p[i];
    const T vNew = mu * v[i] + (gr[i] + coeff * pi);
    vo[i] = vNew;
    po[i] = pi - lr * vNew;
  }
}

void momentumKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const Tensor &velocity = ctx.input(2);
  const double lr = floatScalar(ctx, ctx.input(3), "lr");
  Tensor &paramOut = ctx.output(0);
  Tensor &velocityOut = ctx.output(1);
  const MomentumCoeffs c{lr, ctx.floatAttr("mu"), ctx.floatAttr("regularization_coeff"),
                         ctx.intAttr("use_nesterov") != 0};
  expectLikeParam(ctx, param,
                  {{&grad, "grad"},
                   {&velocity, "velocity"},
                   {&paramOut, "param_out"},
                   {&velocityOut, "velocity_out"}});
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>(), *g = grad.data<T>(), *v = velocity.data<T>();
    T *po = paramOut.data<T>(), *vo = velocityOut.data<T>();
    vectorizedFor(param.numel(), kCheapGrain, [=, &c](int64_t b, int64_t e) {
      momentumUpdate<T>(p + b, g + b, v + b, po + b, vo + b, e - b, c);
    });
  });
}

/// The per-step constants of an adam update, combined in double.
struct AdamCoeffs {
  double b1, b2;    // moment decay rates
  double lrDecay;   // lr * weight_decay (adamw), else 0
  double lrT, epsT; // bias-corrected step size and epsilon
};

template <typename T>
DISTC_ALWAYS_INLINE void adamUpdate(const T *p, const T *gr, const T *m1, const T *m2, T *po, T *m1o, T *m2o,
                int64_t n, const AdamCoeffs &c) {
  const T b1 = T(c.b1), b2 = T(c.b2), oneMinusB1 = T(1 - c.b1), oneMinusB2 = T(1 - c.b2);
  const T lrDecay = T(c.lrDecay), lrT = T(c.lrT), epsT = T(c.epsT);
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i) {
    T pi = p[i];
    const T g = gr[i];
    pi -= lrDecay * pi;
    const T m = b1 * m1[i] + oneMinusB1 * g;
    const T v = b2 * m2[i] + oneMinusB2 * g * g;
    m1o[i] = m;
    m2o[i] = v;
    po[i] = pi - lrT * m / (std::sqrt(v) + epsT);
  }
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
  const double decay = ctx.intAttr("decoupled") != 0 ? ctx.floatAttr("weight_decay") : 0.0;
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
  const AdamCoeffs c{b1, b2, lr * decay, lr * std::sqrt(1 - b2pow) / (1 - b1pow),
                     eps * std::sqrt(1 - b2pow)};
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>(), *g = grad.data<T>();
    const T *m1 = moment1.data<T>(), *m2 = moment2.data<T>();
    T *po = paramOut.data<T>(), *m1o = moment1Out.data<T>(), *m2o = moment2Out.data<T>();
    vectorizedFor(param.numel(), kCostlyGrain, [=, &c](int64_t b, int64_t e) {
      adamUpdate<T>(p + b, g + b, m1 + b, m2 + b, po + b, m1o + b, m2o + b, e - b, c);
    });
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
