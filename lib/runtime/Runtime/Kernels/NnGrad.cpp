//===- NnGrad.cpp - layer_norm_grad, softmax_cross_entropy_grad,
//                  gather_rows_grad -----------------------------------===//
//
// Backward of the layer kernels of Nn.cpp, with the same operand layouts
// and checks as their forward kernels. Sums accumulate in double.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace distc::runtime::kernels {
namespace {

/// One row of layer_norm_grad, in double: fills xhat and g (scratch of n
/// elements), adds the row's dy * xhat and dy to sumScale and sumBias, and
/// writes dx. Simple loops over the row, so each vectorizes.
template <typename T>
DISTC_ALWAYS_INLINE void layerNormGradRow(const T *x, const T *dy, const T *scale, double mu, double inv, double *xhat,
                      double *g, double *sumScale, double *sumBias, T *dx, int64_t n) {
  DISTC_VECTORIZE_LOOP
  for (int64_t c = 0; c < n; ++c) {
    const double d = double(dy[c]);
    xhat[c] = (double(x[c]) - mu) * inv;
    g[c] = scale ? d * double(scale[c]) : d;
    sumScale[c] += d * xhat[c];
    sumBias[c] += d;
  }
  const double meanG = rowSum(g, n) / double(n);
  const double meanGX = rowDot(g, xhat, n) / double(n);
  DISTC_VECTORIZE_LOOP
  for (int64_t c = 0; c < n; ++c)
    dx[c] = T(inv * (g[c] - meanG - xhat[c] * meanGX));
}

/// Per row of x viewed as [left, right], with x^ = (x - mean) * inv and
/// g = dy * scale:
///   dx = inv * (g - mean(g) - x^ * mean(g * x^)),
///   dscale = sum over rows of dy * x^,  dbias = sum over rows of dy.
/// The statistics are recomputed from x exactly as the forward kernel does.
void layerNormGradKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const Tensor *scale = ctx.optionalInput(1);
  const Tensor &dy = ctx.input(2);
  Tensor &dx = ctx.output(0);
  Tensor *dscale = ctx.optionalOutput(1);
  Tensor *dbias = ctx.optionalOutput(2);
  const double eps = ctx.floatAttr("epsilon");
  const NormRows norm = layerNormRows(ctx, x);
  const int64_t left = norm.rows, right = norm.width;
  using Named = std::pair<const Tensor *, const char *>;
  for (auto [t, name] : {Named{&dy, "dy"}, Named{&dx, "dx"}}) {
    expectSameDtype(ctx, *t, x, name, "x");
    expectNumel(ctx, *t, x.numel(), name);
  }
  for (auto [t, name] : {Named{scale, "scale"}, Named{dscale, "dscale"}, Named{dbias, "dbias"}})
    if (t) {
      expectSameDtype(ctx, *t, x, name, "x");
      expectNumel(ctx, *t, right, name);
    }
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // dscale and dbias sum over rows. Each block of kRowsPerBlock rows sums
    // into its own partials, added up in block order at the end, so the
    // result does not depend on how blocks are spread over threads.
    // Per block: partial dscale and dbias sums, and xhat and g scratch rows
    // (allocated here: nothing in the threaded loop may throw).
    constexpr int64_t kRowsPerBlock = 32;
    const int64_t blocks = (left + kRowsPerBlock - 1) / kRowsPerBlock;
    std::vector<double> perBlock(size_t(blocks * 4 * right), 0.0); // [block][scale|bias|xhat|g][right]
    double *perBlockP = perBlock.data();
    const T *xp = x.data<T>(), *dyp = dy.data<T>();
    const T *scaleP = scale ? scale->data<T>() : nullptr;
    T *dxp = dx.data<T>();
    const int64_t grain =
        std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, kRowsPerBlock * right));
    vectorizedFor(blocks, grain, [=](int64_t begin, int64_t end) {
      for (int64_t blk = begin; blk < end; ++blk) {
        double *sumScale = perBlockP + blk * 4 * right, *sumBias = sumScale + right;
        double *xhat = sumBias + right, *g = xhat + right;
        for (int64_t r = blk * kRowsPerBlock; r < std::min(left, (blk + 1) * kRowsPerBlock); ++r) {
          const T *xr = xp + r * right;
          const double mu = rowSum(xr, right) / double(right);
          const double inv =
              1.0 / std::sqrt(rowSquaredDeviation(xr, mu, right) / double(right) + eps);
          layerNormGradRow(xr, dyp + r * right, scaleP, mu, inv, xhat, g, sumScale, sumBias,
                           dxp + r * right, right);
        }
      }
    });
    for (int64_t c = 0; c < right; ++c) {
      double sumScale = 0, sumBias = 0;
      for (int64_t blk = 0; blk < blocks; ++blk) {
        sumScale += perBlock[blk * 4 * right + c];
        sumBias += perBlock[blk * 4 * right + right + c];
      }
      if (dscale)
        dscale->data<T>()[c] = T(sumScale);
      if (dbias)
        dbias->data<T>()[c] = T(sumBias);
    }
  });
}

/// dlogits = (softmax - target) * dloss, target the one-hot hard label or
/// the soft label; dloss has extent 1 on the axis and broadcasts along it.
void softmaxCrossEntropyGradKernel(KernelContext &ctx) {
  const Tensor &softmax = ctx.input(0);
  const Tensor &label = ctx.input(1);
  const Tensor &dloss = ctx.input(2);
  Tensor &dlogits = ctx.output(0);
  const int64_t axis = ctx.intAttr("axis");
  const bool soft = ctx.intAttr("soft_label") != 0;
  const int64_t ignoreIndex = ctx.intAttr("ignore_index");
  expectAxis(ctx, axis, softmax.rank());
  const AxisView v = aroundAxis(softmax, int(axis));
  expectSameDtype(ctx, dlogits, softmax, "dlogits", "softmax");
  expectNumel(ctx, dlogits, softmax.numel(), "dlogits");
  expectSameDtype(ctx, dloss, softmax, "dloss", "softmax");
  expectNumel(ctx, dloss, v.outer * v.inner, "dloss");
  const std::vector<int64_t> hard =
      crossEntropyLabels(ctx, label, softmax, v.outer * v.inner, soft, "softmax");
  dispatchFloat(ctx, softmax.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *sm = softmax.data<T>();
    const T *dl = dloss.data<T>();
    T *dst = dlogits.data<T>();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t in = 0; in < v.inner; ++in) {
        const int64_t base = o * v.size * v.inner + in, row = o * v.inner + in;
        const double g = double(dl[row]);
        // Element-wise per index, reading before writing: dlogits may share
        // storage with softmax.
        if (soft) {
          const T *lab = label.data<T>();
          for (int64_t c = 0; c < v.size; ++c) {
            const int64_t i = base + c * v.inner;
            dst[i] = T((double(sm[i]) - double(lab[i])) * g);
          }
          continue;
        }
        const int64_t target = hard[row];
        if (target == ignoreIndex) {
          for (int64_t c = 0; c < v.size; ++c)
            dst[base + c * v.inner] = T(0);
          continue;
        }
        expectClassIndex(ctx, target, row, v.size);
        for (int64_t c = 0; c < v.size; ++c) {
          const int64_t i = base + c * v.inner;
          dst[i] = T((double(sm[i]) - (c == target ? 1.0 : 0.0)) * g);
        }
      }
  });
}

/// dtable = 0, then dtable[id] += dout row for every id, except padding.
void gatherRowsGradKernel(KernelContext &ctx) {
  const Tensor &ids = ctx.input(0);
  const Tensor &dout = ctx.input(1);
  Tensor &dtable = ctx.output(0);
  const int64_t paddingIdx = ctx.intAttr("padding_idx");
  if (dtable.rank() != 2)
    ctx.fail("dtable " + formatShape(dtable.shape()) + " must have rank 2 [V, D]");
  expectSameDtype(ctx, dout, dtable, "dout", "dtable");
  const int64_t rows = dtable.dim(0), width = dtable.dim(1);
  expectNumel(ctx, dout, ids.numel() * width, "dout");
  dispatchFloat(ctx, dtable.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *dst = dtable.data<T>();
    const T *src = dout.data<T>();
    if (dtable.byteSize())
      std::memset(dst, 0, dtable.byteSize());
    dispatchIndex(ctx, ids.dtype(), "ids", [&](auto itag) {
      using I = decltype(itag);
      const I *idp = ids.data<I>();
      for (int64_t i = 0; i < ids.numel(); ++i) {
        const int64_t id = int64_t(idp[i]);
        // As in the forward kernel: -1 means no padding row.
        if (id == paddingIdx && paddingIdx != -1)
          continue;
        if (id < 0 || id >= rows)
          ctx.fail("id " + std::to_string(id) + " at position " + std::to_string(i) +
                   " is outside [0, " + std::to_string(rows) + ")");
        for (int64_t c = 0; c < width; ++c)
          dst[id * width + c] += src[i * width + c];
      }
    });
  });
}

} // namespace

void registerNnGradKernels(KernelRegistry &r) {
  r.add("layer_norm_grad", layerNormGradKernel);
  r.add("softmax_cross_entropy_grad", softmaxCrossEntropyGradKernel);
  r.add("gather_rows_grad", gatherRowsGradKernel);
}

} // namespace distc::runtime::kernels
