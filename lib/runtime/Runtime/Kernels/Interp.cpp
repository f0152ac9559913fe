//===- Interp.cpp - interp, interp_grad -----------------------------------===//
//
// Paddle's interpolate v2 (bilinear_interp_v2, nearest_interp_v2) on 4-D
// tensors in NCHW or NHWC. The sampling positions along H and W are
// computed once per output row/column, in double, with the conventions of
// Paddle's reference (align_corners, align_mode); the gradient scatters
// each output gradient back with the same weights.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>

namespace distc::runtime::kernels {
namespace {

/// Where output index k of one resized dim reads: lo and hi (= lo or lo +
/// 1) with weight 1 − frac and frac.
struct Sample {
  int64_t lo, hi;
  double frac;
};

/// The samples of a dim of `in` elements resized to `out`.
std::vector<Sample> samples(int64_t in, int64_t out, double scale, bool bilinear,
                            bool alignCorners, int64_t alignMode) {
  double ratio = 0;
  if (out > 1)
    ratio = alignCorners ? double(in - 1) / double(out - 1)
            : scale > 0  ? 1.0 / scale
                         : double(in) / double(out);
  std::vector<Sample> result(out);
  const bool halfPixel = alignMode == 0 && !alignCorners;
  for (int64_t k = 0; k < out; ++k) {
    Sample &s = result[k];
    if (!bilinear) {
      double position = alignCorners ? ratio * double(k) + 0.5 : ratio * double(k);
      s.lo = s.hi = std::clamp<int64_t>(int64_t(position), 0, in - 1);
      s.frac = 0;
      continue;
    }
    double position = halfPixel ? std::max(ratio * (double(k) + 0.5) - 0.5, 0.0) : ratio * double(k);
    // Truncation toward zero, as the reference's int().
    int64_t lo = halfPixel ? int64_t(ratio * (double(k) + 0.5) - 0.5) : int64_t(position);
    lo = std::clamp<int64_t>(lo, 0, in - 1);
    s.lo = lo;
    s.hi = lo < in - 1 ? lo + 1 : lo;
    s.frac = position - double(lo);
  }
  return result;
}

/// The 4-D geometry of x and out: extents and the strides of n, c, h, w.
struct Geometry {
  int64_t n, c, inH, inW, outH, outW;
  int64_t inStride[4], outStride[4]; // n, c, h, w
  std::vector<Sample> rows, cols;
};

Geometry geometry(const KernelContext &ctx, const Tensor &x, const Tensor &out) {
  if (x.rank() != 4 || out.rank() != 4)
    ctx.fail("x " + formatShape(x.shape()) + " and out " + formatShape(out.shape()) +
             " must be 4-D");
  const std::string layout = ctx.stringAttr("layout");
  const std::string method = ctx.stringAttr("method");
  if (layout != "NCHW" && layout != "NHWC")
    ctx.fail("unknown layout '" + layout + "' (NCHW, NHWC)");
  if (method != "bilinear" && method != "nearest")
    ctx.fail("unknown method '" + method + "' (bilinear, nearest)");
  const bool last = layout == "NHWC";
  const int cDim = last ? 3 : 1, hDim = last ? 1 : 2, wDim = last ? 2 : 3;
  if (x.dim(0) != out.dim(0) || x.dim(cDim) != out.dim(cDim))
    ctx.fail("x " + formatShape(x.shape()) + " and out " + formatShape(out.shape()) +
             " differ in batch or channels (" + layout + ")");
  Geometry g;
  g.n = x.dim(0);
  g.c = x.dim(cDim);
  g.inH = x.dim(hDim);
  g.inW = x.dim(wDim);
  g.outH = out.dim(hDim);
  g.outW = out.dim(wDim);
  if ((g.inH == 0 || g.inW == 0) && g.outH * g.outW * g.n * g.c != 0)
    ctx.fail("cannot resize the empty x " + formatShape(x.shape()));
  const std::vector<int64_t> xs = rowMajorStrides(x.shape()), os = rowMajorStrides(out.shape());
  const int dims[4] = {0, cDim, hDim, wDim};
  for (int i = 0; i < 4; ++i) {
    g.inStride[i] = xs[dims[i]];
    g.outStride[i] = os[dims[i]];
  }
  const bool bilinear = method == "bilinear";
  const bool alignCorners = ctx.intAttr("align_corners") != 0;
  const int64_t alignMode = ctx.intAttr("align_mode");
  g.rows = samples(g.inH, g.outH, ctx.floatAttr("scale_h"), bilinear, alignCorners, alignMode);
  g.cols = samples(g.inW, g.outW, ctx.floatAttr("scale_w"), bilinear, alignCorners, alignMode);
  return g;
}

/// f(outOffset, inOffsets[4], fy, fx) for every output element: the four
/// neighbours (top-left, top-right, bottom-left, bottom-right) and the
/// fractions toward the bottom row and the right column.
template <typename F> void forEachSample(const Geometry &g, F f) {
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t c = 0; c < g.c; ++c) {
      const int64_t inBase = n * g.inStride[0] + c * g.inStride[1];
      const int64_t outBase = n * g.outStride[0] + c * g.outStride[1];
      for (int64_t i = 0; i < g.outH; ++i) {
        const Sample &r = g.rows[i];
        for (int64_t j = 0; j < g.outW; ++j) {
          const Sample &s = g.cols[j];
          const int64_t offsets[4] = {
              inBase + r.lo * g.inStride[2] + s.lo * g.inStride[3],
              inBase + r.lo * g.inStride[2] + s.hi * g.inStride[3],
              inBase + r.hi * g.inStride[2] + s.lo * g.inStride[3],
              inBase + r.hi * g.inStride[2] + s.hi * g.inStride[3]};
          f(outBase + i * g.outStride[2] + j * g.outStride[3], offsets, r.frac, s.frac);
        }
      }
    }
}

void interpKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  const Geometry g = geometry(ctx, x, out);
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.data<T>();
    T *dst = out.data<T>();
    forEachSample(g, [&](int64_t o, const int64_t *in, double fy, double fx) {
      // (1−fy)·((1−fx)·a + fx·b) + fy·((1−fx)·c + fx·d), as the reference.
      const double top = (1 - fx) * double(src[in[0]]) + fx * double(src[in[1]]);
      const double bottom = (1 - fx) * double(src[in[2]]) + fx * double(src[in[3]]);
      dst[o] = T((1 - fy) * top + fy * bottom);
    });
  });
}

void interpGradKernel(KernelContext &ctx) {
  const Tensor &dout = ctx.input(0);
  Tensor &dx = ctx.output(0);
  expectSameDtype(ctx, dout, dx, "dout", "dx");
  const Geometry g = geometry(ctx, dx, dout);
  dispatchFloat(ctx, dx.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = dout.data<T>();
    T *dst = dx.data<T>();
    std::fill(dst, dst + dx.numel(), T(0));
    forEachSample(g, [&](int64_t o, const int64_t *in, double fy, double fx) {
      const double w[4] = {(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx};
      for (int k = 0; k < 4; ++k)
        if (w[k] != 0)
          dst[in[k]] += T(w[k] * double(src[o]));
    });
  });
}

} // namespace

void registerInterpKernels(KernelRegistry &r) {
  r.add("interp", interpKernel);
  r.add("interp_grad", interpGradKernel);
}

} // namespace distc::runtime::kernels
