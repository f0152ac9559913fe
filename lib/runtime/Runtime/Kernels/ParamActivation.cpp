//===- ParamActivation.cpp - Activations with attributes and gradients ----===//
//
// relu6, hard_swish, hard_sigmoid, swish and leaky_relu, each a kernel of
// its own taking Paddle's attributes by name (the `unary` kernel has none),
// with its gradient from the forward value Paddle's gradient op reads (Out
// for relu6 and hard_sigmoid, X for the others). Element-wise: each
// element is read before it is written, so dx may share storage with dout.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cmath>

namespace distc::runtime::kernels {
namespace {

/// out = f(x) for an element-wise forward kernel, f built from the call's
/// attributes for element type T.
template <typename MakeF> void forwardKernel(KernelContext &ctx, MakeF makeF) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    mapScalar(x.data<T>(), out.data<T>(), x.numel(), makeF(T{}));
  });
}

/// dx = f(v, dout), v the forward value (x or out) the gradient reads.
template <typename MakeF> void gradKernel(KernelContext &ctx, const char *vName, MakeF makeF) {
  const Tensor &v = ctx.input(0), &dout = ctx.input(1);
  Tensor &dx = ctx.output(0);
  expectSameDtype(ctx, v, dout, vName, "dout");
  expectSameDtype(ctx, v, dx, vName, "dx");
  expectNumel(ctx, dout, v.numel(), "dout");
  expectNumel(ctx, dx, v.numel(), "dx");
  dispatchFloat(ctx, v.dtype(), [&](auto tag) {
    using T = decltype(tag);
    mapScalar(v.data<T>(), dout.data<T>(), dx.data<T>(), v.numel(), makeF(T{}));
  });
}

void relu6Kernel(KernelContext &ctx) {
  const double threshold = ctx.floatAttr("threshold");
  forwardKernel(ctx, [&](auto tag) {
    using T = decltype(tag);
    const T t = T(threshold);
    return [t](T v) { return v < T(0) ? T(0) : (v > t ? t : v); };
  });
}

void relu6GradKernel(KernelContext &ctx) {
  const double threshold = ctx.floatAttr("threshold");
  gradKernel(ctx, "out", [&](auto tag) {
    using T = decltype(tag);
    const T t = T(threshold);
    return [t](T out, T g) { return out > T(0) && out < t ? g : T(0); };
  });
}

void hardSwishKernel(KernelContext &ctx) {
  const double threshold = ctx.floatAttr("threshold"), scale = ctx.floatAttr("scale"),
               offset = ctx.floatAttr("offset");
  forwardKernel(ctx, [&](auto tag) {
    using T = decltype(tag);
    const T t = T(threshold), s = T(scale), o = T(offset);
    return [t, s, o](T v) {
      const T r = v + o < T(0) ? T(0) : (v + o > t ? t : v + o);
      return v * r / s;
    };
  });
}

void hardSwishGradKernel(KernelContext &ctx) {
  const double threshold = ctx.floatAttr("threshold"), scale = ctx.floatAttr("scale"),
               offset = ctx.floatAttr("offset");
  gradKernel(ctx, "x", [&](auto tag) {
    using T = decltype(tag);
    const T t = T(threshold), s = T(scale), o = T(offset);
    return [t, s, o](T x, T g) {
      if (x + o <= T(0))
        return T(0);
      return x + o < t ? g * (T(2) * x + o) / s : g;
    };
  });
}

void hardSigmoidKernel(KernelContext &ctx) {
  const double slope = ctx.floatAttr("slope"), offset = ctx.floatAttr("offset");
  forwardKernel(ctx, [&](auto tag) {
    using T = decltype(tag);
    const T k = T(slope), o = T(offset);
    return [k, o](T v) {
      const T r = k * v + o;
      return r < T(0) ? T(0) : (r > T(1) ? T(1) : r);
    };
  });
}

void hardSigmoidGradKernel(KernelContext &ctx) {
  const double slope = ctx.floatAttr("slope");
  gradKernel(ctx, "out", [&](auto tag) {
    using T = decltype(tag);
    const T k = T(slope);
    return [k](T out, T g) { return out > T(0) && out < T(1) ? g * k : T(0); };
  });
}

void swishKernel(KernelContext &ctx) {
  const double beta = ctx.floatAttr("beta");
  forwardKernel(ctx, [&](auto tag) {
    using T = decltype(tag);
    const T b = T(beta);
    return [b](T v) { return v / (T(1) + std::exp(-b * v)); };
  });
}

void swishGradKernel(KernelContext &ctx) {
  const double beta = ctx.floatAttr("beta");
  gradKernel(ctx, "x", [&](auto tag) {
    using T = decltype(tag);
    const T b = T(beta);
    return [b](T x, T g) {
      const T sig = T(1) / (T(1) + std::exp(-b * x));
      return g * (sig + b * x * sig * (T(1) - sig));
    };
  });
}

void leakyReluKernel(KernelContext &ctx) {
  const double alpha = ctx.floatAttr("alpha");
  forwardKernel(ctx, [&](auto tag) {
    using T = decltype(tag);
    const T a = T(alpha);
    return [a](T v) { return v > T(0) ? v : a * v; };
  });
}

void leakyReluGradKernel(KernelContext &ctx) {
  const double alpha = ctx.floatAttr("alpha");
  gradKernel(ctx, "x", [&](auto tag) {
    using T = decltype(tag);
    const T a = T(alpha);
    return [a](T x, T g) { return x > T(0) ? g : a * g; };
  });
}

} // namespace

void registerParamActivationKernels(KernelRegistry &r) {
  r.add("relu6", relu6Kernel);
  r.add("relu6_grad", relu6GradKernel);
  r.add("hard_swish", hardSwishKernel);
  r.add("hard_swish_grad", hardSwishGradKernel);
  r.add("hard_sigmoid", hardSigmoidKernel);
  r.add("hard_sigmoid_grad", hardSigmoidGradKernel);
  r.add("swish", swishKernel);
  r.add("swish_grad", swishGradKernel);
  r.add("leaky_relu", leakyReluKernel);
  r.add("leaky_relu_grad", leakyReluGradKernel);
}

} // namespace distc::runtime::kernels
