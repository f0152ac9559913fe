//===- Elementwise.cpp - scale, binary (broadcasting), unary --------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cmath>

namespace distc::runtime::kernels {
namespace {

void scaleKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  const double scale = ctx.floatAttr("scale", 1.0);
  const double bias = ctx.floatAttr("bias", 0.0);
  const bool biasAfter = ctx.intAttr("bias_after_scale", 1) != 0;
  dispatchNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.data<T>();
    T *dst = out.data<T>();
    const int64_t n = x.numel();
    if constexpr (std::is_floating_point_v<T>) {
      const T s = T(scale), b = T(bias);
      for (int64_t i = 0; i < n; ++i)
        dst[i] = biasAfter ? src[i] * s + b : (src[i] + b) * s;
    } else {
      for (int64_t i = 0; i < n; ++i)
        dst[i] = T(biasAfter ? double(src[i]) * scale + bias : (double(src[i]) + bias) * scale);
    }
  });
}

enum class BinaryOp { Add, Sub, Mul, Div, Max, Min };

/// out[i] = op(x[bx(i)], y[by(i)]) with NumPy broadcasting over equal ranks.
template <typename T>
void binaryLoop(const KernelContext &ctx, BinaryOp op, const Tensor &x, const Tensor &y,
                Tensor &out) {
  const T *xp = x.data<T>();
  const T *yp = y.data<T>();
  T *dst = out.data<T>();
  auto apply = [&](T a, T b) -> T {
    switch (op) {
    case BinaryOp::Add:
      return a + b;
    case BinaryOp::Sub:
      return a - b;
    case BinaryOp::Mul:
      return a * b;
    case BinaryOp::Div:
      if constexpr (std::is_integral_v<T>) {
        if (b == 0)
          ctx.fail("integer division by zero");
      }
      return a / b;
    case BinaryOp::Max:
      return a < b ? b : a;
    case BinaryOp::Min:
      return b < a ? b : a;
    }
    return a;
  };
  // The innermost dim is a tight loop.
  forEachStridedRow<2>(out.shape(), {broadcastStrides(x.shape()), broadcastStrides(y.shape())},
                       {0, 0},
                       [&](int64_t o, const std::array<int64_t, 2> &at, int64_t inner,
                           const std::array<int64_t, 2> &step) {
                         for (int64_t j = 0; j < inner; ++j)
                           dst[o + j] = apply(xp[at[0] + j * step[0]], yp[at[1] + j * step[1]]);
                       });
}

void binaryKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const Tensor &y = ctx.input(1);
  Tensor &out = ctx.output(0);
  std::string opName = ctx.stringAttr("op");
  BinaryOp op;
  if (opName == "add")
    op = BinaryOp::Add;
  else if (opName == "sub")
    op = BinaryOp::Sub;
  else if (opName == "mul")
    op = BinaryOp::Mul;
  else if (opName == "div")
    op = BinaryOp::Div;
  else if (opName == "max")
    op = BinaryOp::Max;
  else if (opName == "min")
    op = BinaryOp::Min;
  else
    ctx.fail("unknown binary op '" + opName + "' (expected add, sub, mul, div, max or min)");
  expectSameDtype(ctx, x, out, "x", "out");
  expectSameDtype(ctx, y, out, "y", "out");
  if (x.rank() != out.rank() || y.rank() != out.rank())
    ctx.fail("x " + formatShape(x.shape()) + ", y " + formatShape(y.shape()) + " and out " +
             formatShape(out.shape()) + " must have equal ranks");
  for (int d = 0; d < out.rank(); ++d)
    if ((x.dim(d) != out.dim(d) && x.dim(d) != 1) || (y.dim(d) != out.dim(d) && y.dim(d) != 1))
      ctx.fail("x " + formatShape(x.shape()) + " and y " + formatShape(y.shape()) +
               " do not broadcast to out " + formatShape(out.shape()) + " in dim " +
               std::to_string(d));
  dispatchNumeric(ctx, out.dtype(),
                  [&](auto tag) { binaryLoop<decltype(tag)>(ctx, op, x, y, out); });
}

template <typename T, typename F> void mapUnary(const Tensor &x, Tensor &out, F f) {
  const T *src = x.data<T>();
  T *dst = out.data<T>();
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i)
    dst[i] = f(src[i]);
}

void unaryKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  const std::string op = ctx.stringAttr("op");
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (op == "relu")
      mapUnary<T>(x, out, [](T v) { return v > T(0) ? v : T(0); });
    else if (op == "sigmoid")
      mapUnary<T>(x, out, [](T v) { return T(1) / (T(1) + std::exp(-v)); });
    else if (op == "tanh")
      mapUnary<T>(x, out, [](T v) { return std::tanh(v); });
    else if (op == "gelu")
      mapUnary<T>(x, out, [](T v) { return T(0.5) * v * (T(1) + std::erf(v / std::sqrt(T(2)))); });
    else if (op == "gelu_tanh")
      mapUnary<T>(x, out, [](T v) {
        const T k = std::sqrt(T(2) / T(M_PI));
        return T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
      });
    else if (op == "square")
      mapUnary<T>(x, out, [](T v) { return v * v; });
    else if (op == "exp")
      mapUnary<T>(x, out, [](T v) { return std::exp(v); });
    else if (op == "log")
      mapUnary<T>(x, out, [](T v) { return std::log(v); });
    else if (op == "sqrt")
      mapUnary<T>(x, out, [](T v) { return std::sqrt(v); });
    else if (op == "abs")
      mapUnary<T>(x, out, [](T v) { return std::abs(v); });
    else if (op == "neg")
      mapUnary<T>(x, out, [](T v) { return -v; });
    else
      ctx.fail("unknown unary op '" + op + "'");
  });
}

} // namespace

void registerElementwiseKernels(KernelRegistry &r) {
  r.add("scale", scaleKernel);
  r.add("binary", binaryKernel);
  r.add("unary", unaryKernel);
}

} // namespace distc::runtime::kernels
