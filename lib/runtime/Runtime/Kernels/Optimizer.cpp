//===- Optimizer.cpp - sgd, momentum, adam, adagrad, rmsprop, ftrl --------===//
//
// Paddle's optimizer updates. Each output is normally the same buffer as
// the corresponding input (parameters and optimizer state are updated in
// place), so every kernel reads all inputs of element i before writing any
// output of element i, and reads its one-element scalars (learning rate,
// beta powers) before the loop. Scalars may be f32 or f64 independently of
// the parameter; they are combined in double, then the per-element update
// runs in the parameter's dtype so that float32 loops vectorize (an output
// is either its input's buffer or disjoint storage, see
// DISTC_VECTORIZE_LOOP). The sgd, momentum and adam loops are
// OptimizerUpdates.h's, shared with their merged (multi-tensor) forms.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "OptimizerUpdates.h"
#include "Registration.h"

#include <algorithm>
#include <cmath>

namespace distc::runtime::kernels {
namespace {

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

/// Paddle's sgd with a row-sparse gradient: only the rows the gradient
/// holds change, each by lr times the sum of its values (summed first,
/// as rows_to_dense would). param_out is param's buffer.
void sgdRowsKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const double lr = floatScalar(ctx, ctx.input(1), "lr");
  Tensor &paramOut = ctx.output(0);
  if (param.rank() < 1 || paramOut.data() != param.data())
    ctx.fail("updates its param in place: param_out must be param's buffer");
  const int64_t height = param.dim(0), width = height ? param.numel() / height : 0;
  std::vector<RowsPart> parts = rowsParts(ctx, 2, width, param);
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> sums;
    const std::vector<int64_t> ids = sumRowsById<T>(ctx, parts, height, width, sums);
    T *p = paramOut.data<T>();
    for (size_t k = 0; k < ids.size(); ++k)
      sgdUpdate<T>(p + ids[k] * width, sums.data() + int64_t(k) * width, p + ids[k] * width,
                   width, T(lr));
  });
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
  const AdamCoeffs c = adamCoeffs(b1, b2, eps, decay, lr, b1pow, b2pow);
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

/// The per-step constants of an adagrad update, combined in double.
struct AdagradCoeffs {
  double lr, eps;
  double keep, add; // m = keep·moment + add·grad²
};

template <typename T>
DISTC_ALWAYS_INLINE void adagradUpdate(const T *p, const T *gr, const T *mo, T *po, T *mout,
                                       int64_t n, const AdagradCoeffs &c) {
  const T lr = T(c.lr), eps = T(c.eps), keep = T(c.keep), add = T(c.add);
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i) {
    const T g = gr[i];
    const T m = keep * mo[i] + add * g * g;
    mout[i] = m;
    po[i] = p[i] - lr * g / (std::sqrt(m) + eps);
  }
}

/// Paddle's adagrad (m = moment + g^2), or decayed_adagrad when `decayed`
/// (m = decay moment + (1-decay) g^2); then param -= lr g / (sqrt(m) + eps).
void adagradKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const Tensor &moment = ctx.input(2);
  const double lr = floatScalar(ctx, ctx.input(3), "lr");
  Tensor &paramOut = ctx.output(0);
  Tensor &momentOut = ctx.output(1);
  expectLikeParam(
      ctx, param,
      {{&grad, "grad"}, {&moment, "moment"}, {&paramOut, "param_out"}, {&momentOut, "moment_out"}});
  const bool decayed = ctx.intAttr("decayed") != 0;
  const double decay = ctx.floatAttr("decay");
  const AdagradCoeffs c{lr, ctx.floatAttr("epsilon"), decayed ? decay : 1.0,
                        decayed ? 1 - decay : 1.0};
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>(), *g = grad.data<T>(), *m = moment.data<T>();
    T *po = paramOut.data<T>(), *mo = momentOut.data<T>();
    vectorizedFor(param.numel(), kCostlyGrain, [=, &c](int64_t b, int64_t e) {
      adagradUpdate<T>(p + b, g + b, m + b, po + b, mo + b, e - b, c);
    });
  });
}

/// The per-step constants of an rmsprop update, combined in double.
struct RmspropCoeffs {
  double lr, eps, rho, momentum;
};

/// ms = rho ms + (1-rho) g^2; v = momentum v + lr g / sqrt(ms + eps);
/// param -= v.
template <typename T>
DISTC_ALWAYS_INLINE void rmspropUpdate(const T *p, const T *gr, const T *mom, const T *ms, T *po,
                                       T *momo, T *mso, int64_t n, const RmspropCoeffs &c) {
  const T lr = T(c.lr), eps = T(c.eps), rho = T(c.rho), oneMinusRho = T(1 - c.rho);
  const T momentum = T(c.momentum);
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i) {
    const T g = gr[i];
    const T msNew = rho * ms[i] + oneMinusRho * g * g;
    const T v = momentum * mom[i] + lr * g / std::sqrt(msNew + eps);
    mso[i] = msNew;
    momo[i] = v;
    po[i] = p[i] - v;
  }
}

/// The centered form: also mg = rho mg + (1-rho) g, and the denominator is
/// sqrt(ms - mg^2 + eps).
template <typename T>
DISTC_ALWAYS_INLINE void centeredRmspropUpdate(const T *p, const T *gr, const T *mom, const T *ms,
                                               const T *mg, T *po, T *momo, T *mso, T *mgo,
                                               int64_t n, const RmspropCoeffs &c) {
  const T lr = T(c.lr), eps = T(c.eps), rho = T(c.rho), oneMinusRho = T(1 - c.rho);
  const T momentum = T(c.momentum);
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i) {
    const T g = gr[i];
    const T msNew = rho * ms[i] + oneMinusRho * g * g;
    const T mgNew = rho * mg[i] + oneMinusRho * g;
    const T v = momentum * mom[i] + lr * g / std::sqrt(msNew - mgNew * mgNew + eps);
    mso[i] = msNew;
    mgo[i] = mgNew;
    momo[i] = v;
    po[i] = p[i] - v;
  }
}

/// Paddle's rmsprop. Not centered, mean_grad_out (when given) keeps
/// mean_grad, as Paddle leaves its in-place MeanGrad untouched.
void rmspropKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const Tensor &moment = ctx.input(2);
  const Tensor &meanSquare = ctx.input(3);
  const double lr = floatScalar(ctx, ctx.input(4), "lr");
  const Tensor *meanGrad = ctx.optionalInput(5);
  Tensor &paramOut = ctx.output(0);
  Tensor &momentOut = ctx.output(1);
  Tensor &meanSquareOut = ctx.output(2);
  Tensor *meanGradOut = ctx.optionalOutput(3);
  expectLikeParam(ctx, param,
                  {{&grad, "grad"},
                   {&moment, "moment"},
                   {&meanSquare, "mean_square"},
                   {&paramOut, "param_out"},
                   {&momentOut, "moment_out"},
                   {&meanSquareOut, "mean_square_out"}});
  const bool centered = ctx.intAttr("centered") != 0;
  if (centered && (!meanGrad || !meanGradOut))
    ctx.fail("centered rmsprop needs mean_grad and mean_grad_out");
  if (meanGradOut && !meanGrad)
    ctx.fail("mean_grad_out needs mean_grad");
  if (meanGrad)
    expectLikeParam(ctx, param, {{meanGrad, "mean_grad"}});
  if (meanGradOut)
    expectLikeParam(ctx, param, {{meanGradOut, "mean_grad_out"}});
  const RmspropCoeffs c{lr, ctx.floatAttr("epsilon"), ctx.floatAttr("decay"),
                        ctx.floatAttr("momentum")};
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = param.data<T>(), *g = grad.data<T>(), *mom = moment.data<T>();
    const T *ms = meanSquare.data<T>();
    T *po = paramOut.data<T>(), *momo = momentOut.data<T>(), *mso = meanSquareOut.data<T>();
    if (centered) {
      const T *mg = meanGrad->data<T>();
      T *mgo = meanGradOut->data<T>();
      vectorizedFor(param.numel(), kCostlyGrain, [=, &c](int64_t b, int64_t e) {
        centeredRmspropUpdate<T>(p + b, g + b, mom + b, ms + b, mg + b, po + b, momo + b, mso + b,
                                 mgo + b, e - b, c);
      });
      return;
    }
    vectorizedFor(param.numel(), kCostlyGrain, [=, &c](int64_t b, int64_t e) {
      rmspropUpdate<T>(p + b, g + b, mom + b, ms + b, po + b, momo + b, mso + b, e - b, c);
    });
    if (meanGradOut && meanGradOut->data<T>() != meanGrad->data<T>())
      std::copy(meanGrad->data<T>(), meanGrad->data<T>() + param.numel(), meanGradOut->data<T>());
  });
}

/// The per-step constants of an ftrl update, in the parameter's dtype as
/// Paddle computes them (its l1 and l2 each carry 1e-10 more).
template <typename T> struct FtrlCoeffs {
  T lr, l1, l2, power; // power = -lr_power
  bool sqrtPower;      // lr_power = -0.5: n^power is sqrt(n)
};

template <typename T> DISTC_ALWAYS_INLINE T ftrlPow(T x, const FtrlCoeffs<T> &c) {
  return c.sqrtPower ? std::sqrt(x) : std::pow(x, c.power);
}

/// n = s + g^2; z = l + g - (n^k - s^k) / lr * p;
/// p = (l1 sign(z) - z) / (n^k / lr + 2 l2) where |z| > l1, else 0.
template <typename T>
void ftrlUpdate(const T *p, const T *gr, const T *sq, const T *lin, T *po, T *sqo, T *lino,
                int64_t n, const FtrlCoeffs<T> &c) {
  for (int64_t i = 0; i < n; ++i) {
    const T g = gr[i], s = sq[i];
    const T sNew = s + g * g;
    const T sNewPow = ftrlPow(sNew, c);
    const T z = lin[i] + g - (sNewPow - ftrlPow(s, c)) / c.lr * p[i];
    const T sign = z > T(0) ? T(1) : z < T(0) ? T(-1) : T(0);
    const T pNew = std::abs(z) > c.l1 ? (c.l1 * sign - z) / (sNewPow / c.lr + T(2) * c.l2) : T(0);
    lino[i] = z;
    sqo[i] = sNew;
    po[i] = pNew;
  }
}

void ftrlKernel(KernelContext &ctx) {
  const Tensor &param = ctx.input(0);
  const Tensor &grad = ctx.input(1);
  const Tensor &squared = ctx.input(2);
  const Tensor &linear = ctx.input(3);
  const double lr = floatScalar(ctx, ctx.input(4), "lr");
  Tensor &paramOut = ctx.output(0);
  Tensor &squaredOut = ctx.output(1);
  Tensor &linearOut = ctx.output(2);
  expectLikeParam(ctx, param,
                  {{&grad, "grad"},
                   {&squared, "squared_accum"},
                   {&linear, "linear_accum"},
                   {&paramOut, "param_out"},
                   {&squaredOut, "squared_accum_out"},
                   {&linearOut, "linear_accum_out"}});
  const double lrPower = ctx.floatAttr("lr_power");
  const double l1 = ctx.floatAttr("l1"), l2 = ctx.floatAttr("l2");
  dispatchFloat(ctx, param.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const FtrlCoeffs<T> c{T(lr), T(l1) + T(1e-10), T(l2) + T(1e-10), T(-lrPower),
                          T(lrPower) == T(-0.5)};
    const T *p = param.data<T>(), *g = grad.data<T>();
    const T *sq = squared.data<T>(), *lin = linear.data<T>();
    T *po = paramOut.data<T>(), *sqo = squaredOut.data<T>(), *lino = linearOut.data<T>();
    parallelFor(param.numel(), kCostlyGrain, [=, &c](int64_t b, int64_t e) {
      ftrlUpdate<T>(p + b, g + b, sq + b, lin + b, po + b, sqo + b, lino + b, e - b, c);
    });
  });
}

} // namespace

void registerOptimizerKernels(KernelRegistry &r) {
  r.add("sgd", sgdKernel);
  r.add("sgd_rows", sgdRowsKernel);
  r.add("momentum", momentumKernel);
  r.add("adam", adamKernel);
  r.add("adagrad", adagradKernel);
  r.add("rmsprop", rmspropKernel);
  r.add("ftrl", ftrlKernel);
}

} // namespace distc::runtime::kernels
