//===- GemmEpilogue.cpp - gemm_epilogue, gemm_epilogue_grad ---------------===//
//
// Paddle's fused_gemm_epilogue and its gradient: a linear layer with its
// bias and activation, out = act(op(x)·op(y) + bias), as one kernel rather
// than matmul, binary add and unary (and, backward, unary_grad, reduce and
// two matmuls). The forward runs one GEMM into out, the matmul kernel's
// (Gemm.h), then adds the bias and applies the activation in a single pass
// over out while writing pre_act; the composition makes three passes over
// the [M, N] result and keeps two temporaries.
//
// Both kernels compute exactly what the composition computes: the GEMMs
// are matmul's for the same operands, the activation formulas and their
// derivatives are ActivationMath.h's (those of unary and unary_grad), each
// loop runs vectorized exactly where the corresponding unary loop does (so
// the same instructions, FMA contractions included, produce each element),
// and the bias gradient adds the rows in the reduce kernel's order.
//
//===----------------------------------------------------------------------===//

#include "ActivationMath.h"
#include "Gemm.h"
#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <string>
#include <type_traits>

namespace distc::runtime::kernels {
namespace {

enum class Activation { None, Relu, Gelu, GeluTanh };

Activation parseActivation(const KernelContext &ctx) {
  const std::string name = ctx.stringAttr("activation");
  if (name == "none")
    return Activation::None;
  if (name == "relu")
    return Activation::Relu;
  if (name == "gelu")
    return Activation::Gelu;
  if (name == "gelu_tanh")
    return Activation::GeluTanh;
  ctx.fail("unknown activation '" + name + "' (expected none, relu, gelu or gelu_tanh)");
}

/// The product op(x) [M, K] · op(y) [K, N] of both kernels.
struct Product {
  bool transX, transY;
  int64_t m, n, k;
};

/// Checks that x and y are 2-D and multiply (failing the call with a
/// message naming them), and describes their product.
Product checkProduct(const KernelContext &ctx, const Tensor &x, const Tensor &y) {
  Product p;
  p.transX = ctx.intAttr("trans_x") != 0;
  p.transY = ctx.intAttr("trans_y") != 0;
  if (x.rank() != 2 || y.rank() != 2)
    ctx.fail("x " + formatShape(x.shape()) + " and y " + formatShape(y.shape()) + " must be 2-D");
  p.m = p.transX ? x.dim(1) : x.dim(0);
  p.k = p.transX ? x.dim(0) : x.dim(1);
  const int64_t ky = p.transY ? y.dim(1) : y.dim(0);
  p.n = p.transY ? y.dim(0) : y.dim(1);
  if (p.k != ky)
    ctx.fail("shapes do not multiply: x " + formatShape(x.shape()) + (p.transX ? "^T" : "") +
             " x y " + formatShape(y.shape()) + (p.transY ? "^T" : ""));
  if (std::max({p.m, p.n, p.k}) > INT32_MAX)
    ctx.fail("matrix dimension exceeds the BLAS integer range");
  return p;
}

/// Rows of an [M, N] loop per piece of a parallel loop: at least `grain`
/// elements.
int64_t rowGrain(int64_t grain, int64_t n) {
  return std::max<int64_t>(1, grain / std::max<int64_t>(1, n));
}

/// body(begin, end) over row pieces of [0, m): through vectorized() when
/// `vectorize`, else as plain baseline code. The float64 GELU loops call
/// the C library and run unvectorized in unary and unary_grad (mapScalar),
/// where no FMA contracts their arithmetic; so do they here.
template <bool vectorize, typename F> void forRows(int64_t m, int64_t grain, const F &body) {
  if constexpr (vectorize)
    vectorizedFor(m, grain, body);
  else
    parallelFor(m, grain, body);
}

/// out[r, j] = f(out[r, j] + bias[j]); pre[r, j] = out[r, j] + bias[j]
/// first when pre is given. The element loops follow binary's add and
/// unary's op: DISTC_VECTORIZE_LOOP where unary vectorizes.
template <typename T, bool vectorize, typename F>
void biasActivation(T *out, T *pre, const T *bias, int64_t m, int64_t n, int64_t grain, F f) {
  forRows<vectorize>(m, rowGrain(grain, n), [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T *row = out + r * n;
      if (pre) {
        T *preRow = pre + r * n;
        mapElements(row, bias, preRow, n, [](T c, T b) { return c + b; });
        if constexpr (vectorize)
          mapElements(preRow, row, n, f);
        else
          mapScalar(preRow, row, n, f);
      } else if constexpr (vectorize) {
        mapElements(row, bias, row, n, [f](T c, T b) { return f(c + b); });
      } else {
        mapScalar(row, bias, row, n, [f](T c, T b) { return f(c + b); });
      }
    }
  });
}

void gemmEpilogueKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const Tensor &y = ctx.input(1);
  const Tensor &bias = ctx.input(2);
  Tensor &out = ctx.output(0);
  Tensor *preAct = ctx.optionalOutput(1);
  const Activation act = parseActivation(ctx);
  expectSameDtype(ctx, x, out, "x", "out");
  expectSameDtype(ctx, y, out, "y", "out");
  expectSameDtype(ctx, bias, out, "bias", "out");
  const Product p = checkProduct(ctx, x, y);
  const int64_t m = p.m, n = p.n;
  expectShape(ctx, bias, {n}, "bias");
  expectShape(ctx, out, {m, n}, "out");
  if (preAct) {
    expectSameDtype(ctx, *preAct, out, "pre_act", "out");
    expectShape(ctx, *preAct, {m, n}, "pre_act");
  }
  dispatchFloat(ctx, out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    constexpr bool isFloat = std::is_same_v<T, float>;
    const T *b = bias.data<T>();
    T *o = out.data<T>();
    T *pre = preAct ? preAct->data<T>() : nullptr;
    // As matmul: x [M, K] (or [K, M]) is a with lda its last extent.
    matmulGemm(p.transX, p.transY, m, n, p.k, x.data<T>(), x.dim(1), y.data<T>(), y.dim(1), o, n);
    switch (act) {
    case Activation::None:
      return biasActivation<T, true>(o, pre, b, m, n, kCheapGrain, [](T v) { return v; });
    case Activation::Relu:
      return biasActivation<T, true>(o, pre, b, m, n, kCheapGrain,
                                     [](T v) { return act::relu(v); });
    case Activation::Gelu:
      return biasActivation<T, isFloat>(o, pre, b, m, n, kCostlyGrain,
                                        [](T v) { return act::gelu(v); });
    case Activation::GeluTanh: {
      const T k = act::geluTanhK<T>();
      return biasActivation<T, isFloat>(o, pre, b, m, n, kCostlyGrain,
                                        [k](T v) { return act::geluTanh(v, k); });
    }
    }
  });
}

/// d = f(v, dout) element-wise over [0, count), as unary_grad's loop for
/// the same activation (vectorized where it is).
template <typename T, bool vectorize, typename F>
void activationGrad(const T *v, const T *dout, T *d, int64_t count, int64_t grain, F f) {
  forRows<vectorize>(count, grain, [=](int64_t begin, int64_t end) {
    if constexpr (vectorize)
      mapElements(v + begin, dout + begin, d + begin, end - begin, f);
    else
      mapScalar(v + begin, dout + begin, d + begin, end - begin, f);
  });
}

/// dbias[j] = sum over rows r of d[r, j], in double and in row order, as
/// the reduce kernel sums over axis 0 (a column of one row is summed as
/// reduce sums a contiguous run: rowSum). Columns are split over threads;
/// each column's sum is still one thread's, in order.
template <typename T> void columnSums(const T *d, int64_t m, int64_t n, T *dbias) {
  if (n == 1) {
    dbias[0] = T(rowSum(d, m));
    return;
  }
  vectorizedFor(n, rowGrain(kCheapGrain, m), [=](int64_t begin, int64_t end) {
    const int64_t w = end - begin;
    // This piece's column sums (a piece may be as wide as n).
    std::unique_ptr<double[]> acc(new double[size_t(w)]);
    for (int64_t j = 0; j < w; ++j)
      acc[j] = 0.0;
    for (int64_t r = 0; r < m; ++r) {
      const T *row = d + r * n + begin;
      DISTC_VECTORIZE_LOOP
      for (int64_t j = 0; j < w; ++j)
        acc[j] = acc[j] + double(row[j]);
    }
    for (int64_t j = 0; j < w; ++j)
      dbias[begin + j] = T(acc[j]);
  });
}

void gemmEpilogueGradKernel(KernelContext &ctx) {
  const Tensor &dout = ctx.input(0);
  const Tensor &x = ctx.input(1);
  const Tensor &y = ctx.input(2);
  const Tensor *actInput = ctx.optionalInput(3);
  Tensor *dx = ctx.optionalOutput(0);
  Tensor *dy = ctx.optionalOutput(1);
  Tensor *dbias = ctx.optionalOutput(2);
  Tensor *dact = ctx.optionalOutput(3);
  const Activation act = parseActivation(ctx);
  expectSameDtype(ctx, x, dout, "x", "dout");
  expectSameDtype(ctx, y, dout, "y", "dout");
  const Product p = checkProduct(ctx, x, y);
  const int64_t m = p.m, n = p.n, k = p.k;
  expectShape(ctx, dout, {m, n}, "dout");
  if (act != Activation::None) {
    if (!actInput)
      ctx.fail("activation '" + ctx.stringAttr("activation") +
               "' needs act_input (the forward out for relu, pre_act for gelu and gelu_tanh)");
    expectSameDtype(ctx, *actInput, dout, "act_input", "dout");
    expectShape(ctx, *actInput, {m, n}, "act_input");
  }
  if (dx) {
    expectSameDtype(ctx, *dx, dout, "dx", "dout");
    expectShape(ctx, *dx, x.shape(), "dx");
  }
  if (dy) {
    expectSameDtype(ctx, *dy, dout, "dy", "dout");
    expectShape(ctx, *dy, y.shape(), "dy");
  }
  if (dbias) {
    expectSameDtype(ctx, *dbias, dout, "dbias", "dout");
    expectShape(ctx, *dbias, {n}, "dbias");
  }
  if (!dx && !dy && !dbias)
    return;
  if (act != Activation::None) {
    if (!dact)
      ctx.fail("activation '" + ctx.stringAttr("activation") +
               "' needs dact, the [M, N] buffer its gradient is written to");
    expectSameDtype(ctx, *dact, dout, "dact", "dout");
    expectShape(ctx, *dact, {m, n}, "dact");
  }
  dispatchFloat(ctx, dout.dtype(), [&](auto tag) {
    using T = decltype(tag);
    constexpr bool isFloat = std::is_same_v<T, float>;
    // d = dout · act'(act_input), written to dact: dout may be read again
    // after this call and is never written (without an activation, d is
    // dout itself).
    const T *d = dout.data<T>();
    if (act != Activation::None) {
      const int64_t count = m * n;
      const T *v = actInput->data<T>();
      T *s = dact->data<T>();
      switch (act) {
      case Activation::None:
        break;
      case Activation::Relu:
        activationGrad<T, true>(v, d, s, count, kCheapGrain,
                                [](T out, T g) { return act::reluGrad(out, g); });
        break;
      case Activation::Gelu:
        activationGrad<T, isFloat>(v, d, s, count, kCostlyGrain,
                                   [](T pre, T g) { return act::geluGrad(pre, g); });
        break;
      case Activation::GeluTanh: {
        const T kc = act::geluTanhK<T>();
        activationGrad<T, isFloat>(v, d, s, count, kCostlyGrain,
                                   [kc](T pre, T g) { return act::geluTanhGrad(pre, g, kc); });
        break;
      }
      }
      d = s;
    }
    if (dbias)
      columnSums(d, m, n, dbias->data<T>());
    const T *xp = x.data<T>(), *yp = y.data<T>();
    const int64_t ldx = x.dim(1), ldy = y.dim(1);
    // The gradients of op(x)·op(y) as matmul_grad's lowering computes them:
    // the same matmuls (operand order, transposes, leading dimensions).
    if (dx) {
      T *g = dx->data<T>();
      if (!p.transX)
        matmulGemm(false, !p.transY, m, k, n, d, n, yp, ldy, g, k); // d·op(y)ᵀ
      else
        matmulGemm(p.transY, true, k, m, n, yp, ldy, d, n, g, m); // op(y)·dᵀ
    }
    if (dy) {
      T *g = dy->data<T>();
      if (!p.transY)
        matmulGemm(!p.transX, false, k, n, m, xp, ldx, d, n, g, n); // op(x)ᵀ·d
      else
        matmulGemm(true, p.transX, n, k, m, d, n, xp, ldx, g, k); // dᵀ·op(x)
    }
  });
}

} // namespace

void registerGemmEpilogueKernels(KernelRegistry &r) {
  r.add("gemm_epilogue", gemmEpilogueKernel);
  r.add("gemm_epilogue_grad", gemmEpilogueGradKernel);
}

} // namespace distc::runtime::kernels
