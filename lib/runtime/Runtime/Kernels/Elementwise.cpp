//===- Elementwise.cpp - scale, binary (broadcasting), unary, clip --------===//

#include "ActivationMath.h"
#include "KernelUtils.h"
#include "Registration.h"
#include "VectorMath.h"

#include <algorithm>
#include <cmath>

namespace distc::runtime::kernels {
namespace {

void scaleKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  const double scale = ctx.floatAttr("scale");
  const double bias = ctx.floatAttr("bias");
  const bool biasAfter = ctx.intAttr("bias_after_scale") != 0;
  dispatchNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.data<T>();
    T *dst = out.data<T>();
    const int64_t n = x.numel();
    if constexpr (std::is_floating_point_v<T>) {
      const T s = T(scale), b = T(bias);
      if (biasAfter)
        parallelMap(src, dst, n, kCheapGrain, [s, b](T v) { return v * s + b; });
      else
        parallelMap(src, dst, n, kCheapGrain, [s, b](T v) { return (v + b) * s; });
    } else {
      for (int64_t i = 0; i < n; ++i)
        dst[i] = T(biasAfter ? double(src[i]) * scale + bias : (double(src[i]) + bias) * scale);
    }
  });
}

// The binary ops as function objects, so each loop is specialized for one
// op and vectorizes.
struct AddOp {
  template <typename T> T operator()(T a, T b) const { return a + b; }
};
struct SubOp {
  template <typename T> T operator()(T a, T b) const { return a - b; }
};
struct MulOp {
  template <typename T> T operator()(T a, T b) const { return a * b; }
};
struct DivOp {
  template <typename T> T operator()(T a, T b) const { return a / b; }
};
struct MaxOp {
  template <typename T> T operator()(T a, T b) const { return a < b ? b : a; }
};
struct MinOp {
  template <typename T> T operator()(T a, T b) const { return b < a ? b : a; }
};
/// Comparisons as 1 or 0 in the operands' type: the masks of the max and
/// min gradients (Paddle's: d max/dx = dout·(x > y), d max/dy = dout·(x ≤ y)).
struct GreaterOp {
  template <typename T> T operator()(T a, T b) const { return a > b ? T(1) : T(0); }
};
struct GreaterEqualOp {
  template <typename T> T operator()(T a, T b) const { return a >= b ? T(1) : T(0); }
};
struct LessOp {
  template <typename T> T operator()(T a, T b) const { return a < b ? T(1) : T(0); }
};
struct LessEqualOp {
  template <typename T> T operator()(T a, T b) const { return a <= b ? T(1) : T(0); }
};

/// Calls f(Op{}) for the binary op named `name`; fails on an unknown name.
template <typename F>
void dispatchBinaryOp(const KernelContext &ctx, const std::string &name, F f) {
  if (name == "add")
    return f(AddOp{});
  if (name == "sub")
    return f(SubOp{});
  if (name == "mul")
    return f(MulOp{});
  if (name == "div")
    return f(DivOp{});
  if (name == "max")
    return f(MaxOp{});
  if (name == "min")
    return f(MinOp{});
  if (name == "gt")
    return f(GreaterOp{});
  if (name == "ge")
    return f(GreaterEqualOp{});
  if (name == "lt")
    return f(LessOp{});
  if (name == "le")
    return f(LessEqualOp{});
  ctx.fail("unknown binary op '" + name +
           "' (expected add, sub, mul, div, max, min, gt, ge, lt or le)");
}

/// One contiguous output row of a broadcast: dst[j] = op(x[j*sx], y[j*sy])
/// where each step is 0 (a broadcast operand) or 1. The four step patterns
/// are separate loops, so each vectorizes.
template <typename T, typename Op>
DISTC_ALWAYS_INLINE void binaryRow(Op op, const T *x, int64_t sx, const T *y, int64_t sy, T *dst,
                                   int64_t n) {
  if (sx == 1 && sy == 1)
    return mapElements(x, y, dst, n, op);
  if (sx == 1) {
    const T b = *y;
    return mapElements(x, dst, n, [op, b](T a) { return op(a, b); });
  }
  if (sy == 1) {
    const T a = *x;
    return mapElements(y, dst, n, [op, a](T b) { return op(a, b); });
  }
  const T v = op(*x, *y);
  for (int64_t j = 0; j < n; ++j)
    dst[j] = v;
}

/// out[i] = op(x[bx(i)], y[by(i)]) with NumPy broadcasting over equal ranks,
/// walked over the coalesced shape (broadcastPlan) one output row at a
/// time. The common plans, one dim (same shapes, a scalar) or two ([N, C]
/// with [C] or [N, 1]), are split over threads.
template <typename T, typename Op>
void binaryLoop(Op op, const BroadcastPlan &plan, const T *xp, const T *yp, T *dst) {
  const size_t rank = plan.shape.size();
  if (rank <= 1) {
    const int64_t n = rank ? plan.shape[0] : 1;
    const int64_t sx = rank ? plan.strides[0][0] : 0, sy = rank ? plan.strides[1][0] : 0;
    vectorizedFor(n, kCheapGrain, [=](int64_t b, int64_t e) {
      binaryRow(op, xp + b * sx, sx, yp + b * sy, sy, dst + b, e - b);
    });
    return;
  }
  if (rank == 2) {
    const int64_t inner = plan.shape[1];
    const int64_t rx = plan.strides[0][0], ry = plan.strides[1][0];
    const int64_t sx = plan.strides[0][1], sy = plan.strides[1][1];
    vectorizedFor(plan.shape[0], std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, inner)),
                  [=](int64_t b, int64_t e) {
                    for (int64_t r = b; r < e; ++r)
                      binaryRow(op, xp + r * rx, sx, yp + r * ry, sy, dst + r * inner, inner);
                  });
    return;
  }
  vectorized([&] {
    forEachStridedRow<2>(plan.shape, {plan.strides[0], plan.strides[1]}, {0, 0},
                         [&](int64_t o, const std::array<int64_t, 2> &at, int64_t inner,
                             const std::array<int64_t, 2> &step) {
                           binaryRow(op, xp + at[0], step[0], yp + at[1], step[1], dst + o, inner);
                         });
  });
}

void binaryKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const Tensor &y = ctx.input(1);
  Tensor &out = ctx.output(0);
  const std::string opName = ctx.stringAttr("op");
  dispatchBinaryOp(ctx, opName, [](auto) {}); // rejects an unknown op first
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
  dispatchNumeric(ctx, out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) {
      // Checked up front (nothing is written on failure), keeping the
      // division loop free of error handling.
      if (opName == "div" && out.numel() > 0) {
        const T *yp = y.data<T>();
        for (int64_t i = 0; i < y.numel(); ++i)
          if (yp[i] == 0)
            ctx.fail("integer division by zero");
      }
    }
    dispatchBinaryOp(ctx, opName, [&](auto op) {
      const BroadcastPlan plan = broadcastPlan(out.shape(), {&x.shape(), &y.shape()});
      binaryLoop<T>(op, plan, x.data<T>(), y.data<T>(), out.data<T>());
    });
  });
}

/// dst = f(src) for an op whose float32 form uses VectorMath.h (and
/// vectorizes) and whose float64 form calls the C library.
template <typename T, typename F> void mapMath(const T *src, T *dst, int64_t n, F f) {
  if constexpr (std::is_same_v<T, float>)
    parallelMap(src, dst, n, kCostlyGrain, f);
  else
    mapScalar(src, dst, n, f);
}

template <typename T> DISTC_ALWAYS_INLINE T expOf(T v) {
  if constexpr (std::is_same_v<T, float>)
    return vmath::exp(v);
  else
    return std::exp(v);
}

/// The GELU formulas are ActivationMath.h's, shared with the GEMM epilogue.
template <typename T> void geluForward(const T *src, T *dst, int64_t n) {
  mapMath(src, dst, n, [](T v) { return act::gelu(v); });
}

/// 0.5 x (1 + tanh(u)) with u = k (x + 0.044715 x^3), k = sqrt(2/pi).
template <typename T> void geluTanhForward(const T *src, T *dst, int64_t n) {
  const T k = act::geluTanhK<T>();
  mapMath(src, dst, n, [k](T v) { return act::geluTanh(v, k); });
}

void unaryKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  const std::string op = ctx.stringAttr("op");
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.data<T>();
    T *dst = out.data<T>();
    const int64_t n = x.numel();
    if (op == "relu")
      parallelMap(src, dst, n, kCheapGrain, [](T v) { return act::relu(v); });
    else if (op == "sigmoid")
      mapMath(src, dst, n, [](T v) { return T(1) / (T(1) + expOf(-v)); });
    else if (op == "tanh")
      mapScalar(src, dst, n, [](T v) { return std::tanh(v); });
    else if (op == "gelu")
      geluForward(src, dst, n);
    else if (op == "gelu_tanh")
      geluTanhForward(src, dst, n);
    else if (op == "square")
      parallelMap(src, dst, n, kCheapGrain, [](T v) { return v * v; });
    else if (op == "exp")
      mapMath(src, dst, n, [](T v) { return expOf(v); });
    else if (op == "log")
      mapScalar(src, dst, n, [](T v) { return std::log(v); });
    else if (op == "sqrt")
      parallelMap(src, dst, n, kCostlyGrain, [](T v) { return std::sqrt(v); });
    else if (op == "abs")
      parallelMap(src, dst, n, kCheapGrain, [](T v) { return std::abs(v); });
    else if (op == "neg")
      parallelMap(src, dst, n, kCheapGrain, [](T v) { return -v; });
    else
      ctx.fail("unknown unary op '" + op + "'");
  });
}

/// The [min, max] of clip and clip_grad, refused when empty (as Paddle
/// refuses max < min).
std::pair<double, double> clipBounds(const KernelContext &ctx) {
  const double lo = ctx.floatAttr("min"), hi = ctx.floatAttr("max");
  if (!(lo <= hi))
    ctx.fail("clip bounds are empty: min " + std::to_string(lo) + " is greater than max " +
             std::to_string(hi));
  return {lo, hi};
}

void clipKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  // Plain variables: a lambda may not capture structured bindings in C++17.
  const std::pair<double, double> bounds = clipBounds(ctx);
  const double lo = bounds.first, hi = bounds.second;
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T l = T(lo), h = T(hi);
    parallelMap(x.data<T>(), out.data<T>(), x.numel(), kCheapGrain,
                [l, h](T v) { return v < l ? l : (v > h ? h : v); });
  });
}

void clipGradKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0), &dout = ctx.input(1);
  Tensor &dx = ctx.output(0);
  expectSameDtype(ctx, x, dout, "x", "dout");
  expectSameDtype(ctx, x, dx, "x", "dx");
  expectNumel(ctx, dout, x.numel(), "dout");
  expectNumel(ctx, dx, x.numel(), "dx");
  // Plain variables: a lambda may not capture structured bindings in C++17.
  const std::pair<double, double> bounds = clipBounds(ctx);
  const double lo = bounds.first, hi = bounds.second;
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T l = T(lo), h = T(hi);
    // Element-wise, reading before writing: dx may share storage with dout.
    parallelMap(x.data<T>(), dout.data<T>(), dx.data<T>(), x.numel(), kCheapGrain,
                [l, h](T v, T g) { return v >= l && v <= h ? g : T(0); });
  });
}

} // namespace

void registerElementwiseKernels(KernelRegistry &r) {
  r.add("scale", scaleKernel);
  r.add("binary", binaryKernel);
  r.add("unary", unaryKernel);
  r.add("clip", clipKernel);
  r.add("clip_grad", clipGradKernel);
}

} // namespace distc::runtime::kernels
