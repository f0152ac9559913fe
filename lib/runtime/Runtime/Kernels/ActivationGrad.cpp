//===- ActivationGrad.cpp - unary_grad, softmax_grad ----------------------===//
//
// Backward of the element-wise `unary` ops and of `softmax`. Ops whose
// derivative is cheapest in terms of the forward result (relu, sigmoid,
// tanh, exp, sqrt) take the forward OUTPUT as their first operand, the
// others the forward INPUT, as Paddle's grad ops do; docs/artifact.md lists
// which is which.
//
//===----------------------------------------------------------------------===//

#include "ActivationMath.h"
#include "KernelUtils.h"
#include "Registration.h"
#include "VectorMath.h"

#include <algorithm>
#include <cmath>

namespace distc::runtime::kernels {
namespace {

/// dx = d(op)/dx * dout, element-wise from v (the forward output or input,
/// see above) and dout. Float64 computes as before in double with the C
/// library; float32 stays in float, with VectorMath.h's exp and normal CDF
/// so the GELU loops vectorize.
template <typename T, typename F>
void mapGrad(const Tensor &v, const Tensor &dout, Tensor &dx, F f, int64_t grain = kCheapGrain) {
  // Element-wise, reading before writing: dx may share storage with dout.
  parallelMap(v.data<T>(), dout.data<T>(), dx.data<T>(), v.numel(), grain, f);
}

/// mapGrad for a float64 derivative that calls the C library.
template <typename T, typename F>
void mapGradScalar(const Tensor &v, const Tensor &dout, Tensor &dx, F f) {
  mapScalar(v.data<T>(), dout.data<T>(), dx.data<T>(), v.numel(), f);
}

// The GELU derivatives are ActivationMath.h's, shared with
// gemm_epilogue_grad.

/// GELU (erf form): dx = dout * (Phi(x) + x phi(x)).
template <typename T> void geluGrad(const Tensor &v, const Tensor &dout, Tensor &dx) {
  if constexpr (std::is_same_v<T, float>)
    mapGrad<float>(v, dout, dx, [](float x, float g) { return act::geluGrad(x, g); },
                   kCostlyGrain);
  else
    mapGradScalar<T>(v, dout, dx, [](T x, T g) { return act::geluGrad(x, g); });
}

/// GELU (tanh approximation), the exact derivative of the forward formula.
template <typename T> void geluTanhGrad(const Tensor &v, const Tensor &dout, Tensor &dx) {
  const T k = act::geluTanhK<T>();
  if constexpr (std::is_same_v<T, float>)
    mapGrad<float>(v, dout, dx, [k](float x, float g) { return act::geluTanhGrad(x, g, k); },
                   kCostlyGrain);
  else
    mapGradScalar<T>(v, dout, dx, [k](T x, T g) { return act::geluTanhGrad(x, g, k); });
}

enum class UnaryOp { Relu, Sigmoid, Tanh, Exp, Sqrt, Gelu, GeluTanh, Square, Log, Abs, Neg };

bool parseUnaryOp(const std::string &name, UnaryOp &op) {
  static const std::pair<const char *, UnaryOp> table[] = {
      {"relu", UnaryOp::Relu},     {"sigmoid", UnaryOp::Sigmoid},     {"tanh", UnaryOp::Tanh},
      {"exp", UnaryOp::Exp},       {"sqrt", UnaryOp::Sqrt},           {"gelu", UnaryOp::Gelu},
      {"gelu_tanh", UnaryOp::GeluTanh}, {"square", UnaryOp::Square}, {"log", UnaryOp::Log},
      {"abs", UnaryOp::Abs},       {"neg", UnaryOp::Neg}};
  for (const auto &[n, o] : table)
    if (name == n) {
      op = o;
      return true;
    }
  return false;
}

template <typename T> void unaryGrad(UnaryOp op, const Tensor &v, const Tensor &dout, Tensor &dx) {
  switch (op) {
  // v = out
  case UnaryOp::Relu:
    return mapGrad<T>(v, dout, dx, [](T out, T g) { return act::reluGrad(out, g); });
  case UnaryOp::Sigmoid:
    return mapGrad<T>(v, dout, dx, [](T out, T g) { return g * out * (T(1) - out); });
  case UnaryOp::Tanh:
    return mapGrad<T>(v, dout, dx, [](T out, T g) { return g * (T(1) - out * out); });
  case UnaryOp::Exp:
    return mapGrad<T>(v, dout, dx, [](T out, T g) { return g * out; });
  case UnaryOp::Sqrt:
    return mapGrad<T>(v, dout, dx, [](T out, T g) { return g / (T(2) * out); }, kCostlyGrain);
  // v = x
  case UnaryOp::Gelu:
    return geluGrad<T>(v, dout, dx);
  case UnaryOp::GeluTanh:
    return geluTanhGrad<T>(v, dout, dx);
  case UnaryOp::Square:
    return mapGrad<T>(v, dout, dx, [](T x, T g) { return T(2) * x * g; });
  case UnaryOp::Log:
    return mapGrad<T>(v, dout, dx, [](T x, T g) { return g / x; }, kCostlyGrain);
  case UnaryOp::Abs:
    return mapGrad<T>(v, dout, dx,
                      [](T x, T g) { return x > T(0) ? g : x < T(0) ? -g : T(0); });
  case UnaryOp::Neg:
    return mapGrad<T>(v, dout, dx, [](T, T g) { return -g; });
  }
}

void unaryGradKernel(KernelContext &ctx) {
  const Tensor &v = ctx.input(0);
  const Tensor &dout = ctx.input(1);
  Tensor &dx = ctx.output(0);
  const std::string name = ctx.stringAttr("op");
  UnaryOp op;
  if (!parseUnaryOp(name, op))
    ctx.fail("unknown unary op '" + name +
             "' (expected relu, sigmoid, tanh, gelu, gelu_tanh, "
             "square, exp, log, sqrt, abs or neg)");
  expectSameDtype(ctx, dout, v, "dout", "x");
  expectSameDtype(ctx, dx, v, "dx", "x");
  expectNumel(ctx, dout, v.numel(), "dout");
  expectNumel(ctx, dx, v.numel(), "dx");
  dispatchFloat(ctx, v.dtype(), [&](auto tag) { unaryGrad<decltype(tag)>(op, v, dout, dx); });
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
    if (v.inner == 1) {
      // Along the last axis: contiguous rows, split over threads.
      const int64_t size = v.size;
      vectorizedFor(v.outer, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, size)),
                    [=](int64_t begin, int64_t end) {
                      for (int64_t o = begin; o < end; ++o) {
                        const int64_t base = o * size;
                        const T dot = T(rowDot(g + base, y + base, size));
                        mapElements(y + base, g + base, dst + base, size,
                                    [dot](T yi, T gi) { return yi * (gi - dot); });
                      }
                    });
      return;
    }
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
