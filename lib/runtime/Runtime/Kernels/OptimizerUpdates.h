//===- OptimizerUpdates.h - Per-element optimizer updates -------*- C++ -*-===//
//
// The element loops of sgd, momentum and adam, and the per-step constants
// they take, shared by the one-parameter kernels (Optimizer.cpp) and their
// multi-tensor forms (MergedOptimizer.cpp: merged_sgd, merged_momentum,
// merged_adam), so that a merged update is bitwise the one-parameter
// kernel's on every group. Each loop reads element i of every input before
// writing element i of any output (outputs are normally the inputs'
// buffers) and runs in the parameter's dtype so float32 loops vectorize;
// the helpers are DISTC_ALWAYS_INLINE so they compile into their caller's
// vectorized() instance.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_OPTIMIZERUPDATES_H
#define DISTC_LIB_RUNTIME_KERNELS_OPTIMIZERUPDATES_H

#include "KernelUtils.h"

#include <cmath>
#include <initializer_list>
#include <utility>

namespace distc::runtime::kernels {

/// Checks that every tensor of `ts` has param's dtype and element count.
inline void expectLikeParam(const KernelContext &ctx, const Tensor &param,
                            std::initializer_list<std::pair<const Tensor *, const char *>> ts,
                            const char *paramName = "param") {
  for (auto [t, name] : ts) {
    expectSameDtype(ctx, *t, param, name, paramName);
    expectNumel(ctx, *t, param.numel(), name);
  }
}

/// Writes a one-element f32/f64 tensor (checked by floatScalar).
inline void setFloatScalar(Tensor &t, double v) {
  if (t.dtype() == DType::Float32)
    t.data<float>()[0] = float(v);
  else
    t.data<double>()[0] = v;
}

/// param_out = param - lr * grad.
template <typename T>
DISTC_ALWAYS_INLINE void sgdUpdate(const T *p, const T *g, T *po, int64_t n, T lr) {
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i)
    po[i] = p[i] - lr * g[i];
}

struct MomentumCoeffs {
  double lr, mu, coeff;
  bool nesterov;
};

/// g = grad + coeff * param; v = mu * v + g;
/// param -= lr * (g + mu * v) with Nesterov, else lr * v.
template <typename T>
DISTC_ALWAYS_INLINE void momentumUpdate(const T *p, const T *gr, const T *v, T *po, T *vo,
                                        int64_t n, const MomentumCoeffs &c) {
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

/// The per-step constants of an adam update, combined in double.
struct AdamCoeffs {
  double b1, b2;    // moment decay rates
  double lrDecay;   // lr * weight_decay (adamw), else 0
  double lrT, epsT; // bias-corrected step size and epsilon
};

/// The constants of one adam step with beta powers b1pow, b2pow (before
/// this step's advance); `decay` is weight_decay for adamw, else 0.
inline AdamCoeffs adamCoeffs(double b1, double b2, double eps, double decay, double lr,
                             double b1pow, double b2pow) {
  return {b1, b2, lr * decay, lr * std::sqrt(1 - b2pow) / (1 - b1pow), eps * std::sqrt(1 - b2pow)};
}

template <typename T>
DISTC_ALWAYS_INLINE void adamUpdate(const T *p, const T *gr, const T *m1, const T *m2, T *po,
                                    T *m1o, T *m2o, int64_t n, const AdamCoeffs &c) {
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

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_OPTIMIZERUPDATES_H
