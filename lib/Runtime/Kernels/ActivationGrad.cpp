//===- ActivationGrad.cpp - unary_grad, softmax_grad ----------------------===//
//
// Backward of the element-wise `unary` ops and of `softmax`. Ops whose
// derivative is cheapest in terms of the forward result (relu, sigmoid,
// tanh, exp, sqrt) take the forward OUTPUT as their first operand, the
// others the forward INPUT, as Paddle's grad ops do; docs/artifact.md lists
// which is which. Values are computed in double and rounded once.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cmath>

namespace distc::runtime::kernels {
namespace {

/// d(op)/dx as a function of the first operand v (forward output or input),
/// multiplied by the upstream gradient g.
using GradFn = double (*)(double v, double g);

GradFn findUnaryGrad(const std::string &op) {
  static const struct {
    const char *name;
    GradFn fn;
  } table[] = {
      // v = out
      {"relu", [](double out, double g) { return out > 0 ? g : 0.0; }},
      {"sigmoid", [](double out, double g) { return g * out * (1 - out); }},
      {"tanh", [](double out, double g) { return g * (1 - out * out); }},
      {"exp", [](double out, double g) { return g * out; }},
      {"sqrt", [](double out, double g) { return g / (2 * out); }},
      // v = x
      {"gelu",
       [](double x, double g) {
         const double cdf = 0.5 * (1 + std::erf(x / std::sqrt(2.0)));
         const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
         return g * (cdf + x * pdf);
       }},
      {"gelu_tanh",
       [](double x, double g) {
         // out = 0.5 x (1 + tanh(k (x + 0.044715 x^3))), k = sqrt(2/pi).
         const double k = std::sqrt(2 / M_PI), c = 0.044715;
         const double t = std::tanh(k * (x + c * x * x * x));
         return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x));
       }},
      {"square", [](double x, double g) { return 2 * x * g; }},
      {"log", [](double x, double g) { return g / x; }},
      {"abs", [](double x, double g) { return x > 0   ? g
                                              : x < 0 ? -g
                                                      : 0.0; }},
      {"neg", [](double, double g) { return -g; }},
  };
  for (const auto &e : table)
    if (op == e.name)
      return e.fn;
  return nullptr;
}

void unaryGradKernel(KernelContext &ctx) {
  const Tensor &v = ctx.input(0);
  const Tensor &dout = ctx.input(1);
  Tensor &dx = ctx.output(0);
  const std::string op = ctx.stringAttr("op");
  GradFn fn = findUnaryGrad(op);
  if (!fn)
    ctx.fail("unknown unary op '" + op +
             "' (expected relu, sigmoid, tanh, gelu, gelu_tanh, "
             "square, exp, log, sqrt, abs or neg)");
  expectSameDtype(ctx, dout, v, "dout", "x");
  expectSameDtype(ctx, dx, v, "dx", "x");
  expectNumel(ctx, dout, v.numel(), "dout");
  expectNumel(ctx, dx, v.numel(), "dx");
  dispatchFloat(ctx, v.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *vp = v.data<T>();
    const T *gp = dout.data<T>();
    T *dst = dx.data<T>();
    // Element-wise, reading before writing: dx may share storage with dout.
    for (int64_t i = 0; i < v.numel(); ++i)
      dst[i] = T(fn(double(vp[i]), double(gp[i])));
  });
}

void softmaxGradKernel(KernelContext &ctx) {
  const Tensor &out = ctx.input(0);
  const Tensor &dout = ctx.input(1);
  Tensor &dx = ctx.output(0);
  const int64_t axis = ctx.intAttr("axis");
  expectAxis(ctx, axis, out.rank());
  expectSameDtype(ctx, dout, out, "dout", "out");
  expectSameDtype(ctx, dx, out, "dx", "out");
  expectNumel(ctx, dout, out.numel(), "dout");
  expectNumel(ctx, dx, out.numel(), "dx");
  const AxisView v = aroundAxis(out, int(axis));
  dispatchFloat(ctx, out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *y = out.data<T>();
    const T *g = dout.data<T>();
    T *dst = dx.data<T>();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t in = 0; in < v.inner; ++in) {
        const int64_t base = o * v.size * v.inner + in;
        double dot = 0;
        for (int64_t c = 0; c < v.size; ++c)
          dot += double(g[base + c * v.inner]) * double(y[base + c * v.inner]);
        for (int64_t c = 0; c < v.size; ++c) {
          const int64_t i = base + c * v.inner;
          dst[i] = T(double(y[i]) * (double(g[i]) - dot));
        }
      }
  });
}

} // namespace

void registerActivationGradKernels(KernelRegistry &r) {
  r.add("unary_grad", unaryGradKernel);
  r.add("softmax_grad", softmaxGradKernel);
}

} // namespace distc::runtime::kernels
