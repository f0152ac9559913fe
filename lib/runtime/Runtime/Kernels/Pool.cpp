//===- Pool.cpp - pool2d and pool2d_grad ----------------------------------===//
//
// Max and average pooling with Paddle's window rules (Pool2dFunctor): a
// window starts at y·stride − top and ends at min(start + k, H + top)
// before both ends are clipped to the input (Paddle uses the top and left
// paddings for both ends; bottom and right only size the output); a
// non-exclusive average divides by the window's size before clipping, an
// exclusive or adaptive one by the clipped size. The max gradient goes to
// the first element of its window equal to the output, as in Paddle.
//
// Each (image, channel) plane is independent, so planes are split over the
// kernel threads; NCHW and NHWC differ only in the strides of a plane.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace distc::runtime::kernels {
namespace {

struct PoolShape {
  int64_t n, c, h, w, oh, ow;
  int64_t kh, kw, sh, sw, pt, pl;
  bool max, exclusive, adaptive, nhwc;
};

/// The plane (img, ch) of a tensor with spatial size (hh, ww): element
/// (y, x) is at base + y·rowStride + x·colStride in either layout, so the
/// inner loops carry no layout test.
struct Plane {
  int64_t base, rowStride, colStride;
  int64_t at(int64_t y, int64_t x) const { return base + y * rowStride + x * colStride; }
};

Plane planeOf(const PoolShape &s, int64_t img, int64_t ch, int64_t hh, int64_t ww) {
  return s.nhwc ? Plane{img * hh * ww * s.c + ch, ww * s.c, s.c}
                : Plane{(img * s.c + ch) * hh * ww, ww, 1};
}

/// The window of one output index along one axis: input positions
/// [lo, hi), and the span an average divides by along this axis (the
/// clipped one when exclusive or adaptive, else the one the padded input
/// allows). Windows are separable: output (oy, ox) takes rows of its oy
/// and columns of its ox, so a kernel computes each axis's once.
struct AxisWindow {
  int64_t lo, hi, span;
};

std::vector<AxisWindow> axisWindows(int64_t outSize, int64_t inSize, int64_t kernel, int64_t stride,
                                    int64_t pad, bool adaptive, bool exclusive) {
  std::vector<AxisWindow> windows(static_cast<size_t>(std::max<int64_t>(outSize, 0)));
  for (int64_t o = 0; o < outSize; ++o) {
    AxisWindow &w = windows[static_cast<size_t>(o)];
    if (adaptive) {
      w.lo = o * inSize / outSize;
      w.hi = ((o + 1) * inSize + outSize - 1) / outSize;
      w.span = w.hi - w.lo;
      continue;
    }
    const int64_t start = o * stride - pad;
    const int64_t end = std::min(start + kernel, inSize + pad);
    w.lo = std::max<int64_t>(start, 0);
    w.hi = std::min(end, inSize);
    w.span = exclusive ? w.hi - w.lo : end - start;
  }
  return windows;
}

/// The windows of a pool along H and W.
struct Windows {
  std::vector<AxisWindow> rows, cols;
};

Windows windowsOf(const PoolShape &s) {
  return {axisWindows(s.oh, s.h, s.kh, s.sh, s.pt, s.adaptive, s.exclusive),
          axisWindows(s.ow, s.w, s.kw, s.sw, s.pl, s.adaptive, s.exclusive)};
}

PoolShape poolShape(const KernelContext &ctx, const Tensor &x, const Tensor &out) {
  PoolShape s{};
  s.nhwc = ctx.intAttr("nhwc") != 0;
  if (x.rank() != 4 || out.rank() != 4)
    ctx.fail("x " + x.typeString() + " and out " + out.typeString() + " must be 4-D");
  auto dims = [&](const Tensor &t) {
    return s.nhwc ? std::array<int64_t, 4>{t.dim(0), t.dim(3), t.dim(1), t.dim(2)}
                  : std::array<int64_t, 4>{t.dim(0), t.dim(1), t.dim(2), t.dim(3)};
  };
  const auto xd = dims(x), od = dims(out);
  if (xd[0] != od[0] || xd[1] != od[1])
    ctx.fail("x " + x.typeString() + " and out " + out.typeString() +
             " differ in batch or channels");
  s.n = xd[0];
  s.c = xd[1];
  s.h = xd[2];
  s.w = xd[3];
  s.oh = od[2];
  s.ow = od[3];
  const std::string type = ctx.stringAttr("type");
  if (type != "max" && type != "avg")
    ctx.fail("type must be max or avg, got '" + type + "'");
  s.max = type == "max";
  s.exclusive = ctx.intAttr("exclusive") != 0;
  s.adaptive = ctx.intAttr("adaptive") != 0;
  std::vector<int64_t> k = ctx.intsAttr("ksize"), st = ctx.intsAttr("strides"),
                       p = ctx.intsAttr("paddings");
  if (k.size() != 2 || st.size() != 2 || p.size() != 4)
    ctx.fail("ksize and strides need 2 values, paddings 4");
  s.kh = k[0];
  s.kw = k[1];
  s.sh = st[0];
  s.sw = st[1];
  s.pt = p[0];
  s.pl = p[2];
  if (s.adaptive) {
    if ((s.oh < 1 || s.ow < 1) && s.n * s.c > 0)
      ctx.fail("adaptive pooling needs a non-empty output");
    return s;
  }
  if (s.kh < 1 || s.kw < 1 || s.sh < 1 || s.sw < 1 || p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0)
    ctx.fail("ksize and strides must be positive, paddings not negative");
  // Every window must overlap the input, or a max would have no element.
  if (s.oh > 0 && (s.oh - 1) * s.sh - s.pt >= s.h + s.pt)
    ctx.fail("out " + out.typeString() + " has windows below the padded input " + x.typeString());
  if (s.ow > 0 && (s.ow - 1) * s.sw - s.pl >= s.w + s.pl)
    ctx.fail("out " + out.typeString() + " has windows right of the padded input " +
             x.typeString());
  return s;
}

/// Runs body(img, ch) for every plane, split over the kernel threads.
template <typename F> void forPlanes(const PoolShape &s, const F &body) {
  const int64_t work = std::max<int64_t>(1, s.oh * s.ow * std::max<int64_t>(1, s.kh * s.kw));
  parallelFor(s.n * s.c, std::max<int64_t>(1, kCheapGrain / work), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      body(i / s.c, i % s.c);
  });
}

/// 2x2 windows with stride 2 tiling an NCHW input exactly (no padding, even
/// sizes): the pool of VGG-style networks. Each window is the same four
/// elements whatever the other attributes say, so the two rows of a plane
/// can be read as pairs in loops the compiler vectorizes; the results are
/// those of the general loops (same order of operations, same tie rule).
bool tiles2x2(const PoolShape &s) {
  return !s.adaptive && !s.nhwc && s.kh == 2 && s.kw == 2 && s.sh == 2 && s.sw == 2 && s.pt == 0 &&
         s.pl == 0 && s.h == 2 * s.oh && s.w == 2 * s.ow;
}

/// One plane's 2x2 max or average.
template <typename T>
DISTC_ALWAYS_INLINE void pool2x2Plane(const T *x, T *out, int64_t oh, int64_t ow, bool max) {
  const int64_t w = 2 * ow;
  for (int64_t oy = 0; oy < oh; ++oy) {
    const T *r0 = x + 2 * oy * w, *r1 = r0 + w;
    T *o = out + oy * ow;
    if (max) {
      DISTC_VECTORIZE_LOOP
      for (int64_t ox = 0; ox < ow; ++ox) {
        T v = std::numeric_limits<T>::lowest();
        v = std::max(v, r0[2 * ox]);
        v = std::max(v, r0[2 * ox + 1]);
        v = std::max(v, r1[2 * ox]);
        v = std::max(v, r1[2 * ox + 1]);
        o[ox] = v;
      }
    } else {
      DISTC_VECTORIZE_LOOP
      for (int64_t ox = 0; ox < ow; ++ox)
        o[ox] = (((T(0) + r0[2 * ox]) + r0[2 * ox + 1]) + r1[2 * ox]) + r1[2 * ox + 1];
      DISTC_VECTORIZE_LOOP
      for (int64_t ox = 0; ox < ow; ++ox)
        o[ox] = o[ox] / T(4);
    }
  }
}

/// One plane's gradient of pool2x2Plane: every element of dx is written.
template <typename T>
DISTC_ALWAYS_INLINE void pool2x2GradPlane(const T *x, const T *out, const T *dout, T *dx,
                                          int64_t oh, int64_t ow, bool max) {
  const int64_t w = 2 * ow;
  for (int64_t oy = 0; oy < oh; ++oy) {
    const T *x0 = x + 2 * oy * w, *x1 = x0 + w;
    T *d0 = dx + 2 * oy * w, *d1 = d0 + w;
    const T *o = out + oy * ow, *g = dout + oy * ow;
    if (max) {
      DISTC_VECTORIZE_LOOP
      for (int64_t ox = 0; ox < ow; ++ox) {
        // The general loop's choice: the first element equal to the
        // window's maximum (NaN skipped, as in the forward max), when
        // that maximum is above the lowest value and equals the output.
        const T a = x0[2 * ox], b = x0[2 * ox + 1], c = x1[2 * ox], d = x1[2 * ox + 1];
        T best = std::numeric_limits<T>::lowest();
        best = std::max(best, a);
        best = std::max(best, b);
        best = std::max(best, c);
        best = std::max(best, d);
        const T share = best == o[ox] && best > std::numeric_limits<T>::lowest() ? g[ox] : T(0);
        const bool toA = a == best, toB = !toA && b == best, toC = !toA && !toB && c == best;
        const bool toD = !toA && !toB && !toC;
        d0[2 * ox] = toA ? share : T(0);
        d0[2 * ox + 1] = toB ? share : T(0);
        d1[2 * ox] = toC ? share : T(0);
        d1[2 * ox + 1] = toD ? share : T(0);
      }
    } else {
      DISTC_VECTORIZE_LOOP
      for (int64_t ox = 0; ox < ow; ++ox) {
        const T share = g[ox] / T(4);
        d0[2 * ox] = d0[2 * ox + 1] = d1[2 * ox] = d1[2 * ox + 1] = share;
      }
    }
  }
}

/// Runs body(plane) for every (image, channel) plane of a tiles2x2 pool,
/// split over the kernel threads, each piece compiled by vectorized().
template <typename F> void forTiledPlanes(const PoolShape &s, F body) {
  const int64_t grain = std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, s.h * s.w));
  parallelFor(s.n * s.c, grain, [body](int64_t begin, int64_t end) {
    vectorized([body, begin, end] {
      for (int64_t p = begin; p < end; ++p)
        DISTC_INLINE_CALLS body(p);
    });
  });
}

void pool2dKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, out, x, "out", "x");
  const PoolShape s = poolShape(ctx, x, out);
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xp = x.data<T>();
    T *op = out.data<T>();
    if (tiles2x2(s)) {
      const int64_t in = s.h * s.w, res = s.oh * s.ow, oh = s.oh, ow = s.ow;
      const bool max = s.max;
      forTiledPlanes(s, [=](int64_t p) { pool2x2Plane(xp + p * in, op + p * res, oh, ow, max); });
      return;
    }
    const Windows win = windowsOf(s);
    forPlanes(s, [&](int64_t img, int64_t ch) {
      const Plane in = planeOf(s, img, ch, s.h, s.w), res = planeOf(s, img, ch, s.oh, s.ow);
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        const AxisWindow &wy = win.rows[size_t(oy)];
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          const AxisWindow &wx = win.cols[size_t(ox)];
          T value;
          if (s.max) {
            value = std::numeric_limits<T>::lowest();
            for (int64_t y = wy.lo; y < wy.hi; ++y)
              for (int64_t xx = wx.lo; xx < wx.hi; ++xx)
                value = std::max(value, xp[in.at(y, xx)]);
          } else {
            T sum = 0;
            for (int64_t y = wy.lo; y < wy.hi; ++y)
              for (int64_t xx = wx.lo; xx < wx.hi; ++xx)
                sum += xp[in.at(y, xx)];
            const int64_t size = wy.span * wx.span;
            value = size > 0 ? sum / T(size) : T(0);
          }
          op[res.at(oy, ox)] = value;
        }
      }
    });
  });
}

void pool2dGradKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0), &out = ctx.input(1), &dout = ctx.input(2);
  Tensor &dx = ctx.output(0);
  expectSameDtype(ctx, out, x, "out", "x");
  expectSameDtype(ctx, dout, x, "dout", "x");
  expectSameDtype(ctx, dx, x, "dx", "x");
  expectShape(ctx, dout, out.shape(), "dout");
  expectShape(ctx, dx, x.shape(), "dx");
  const PoolShape s = poolShape(ctx, x, out);
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xp = x.data<T>(), *outp = out.data<T>(), *dop = dout.data<T>();
    T *dxp = dx.data<T>();
    if (tiles2x2(s)) {
      const int64_t in = s.h * s.w, res = s.oh * s.ow, oh = s.oh, ow = s.ow;
      const bool max = s.max;
      forTiledPlanes(s, [=](int64_t p) {
        pool2x2GradPlane(xp + p * in, outp + p * res, dop + p * res, dxp + p * in, oh, ow, max);
      });
      return;
    }
    const Windows win = windowsOf(s);
    forPlanes(s, [&](int64_t img, int64_t ch) {
      const Plane in = planeOf(s, img, ch, s.h, s.w), res = planeOf(s, img, ch, s.oh, s.ow);
      for (int64_t y = 0; y < s.h; ++y)
        for (int64_t xx = 0; xx < s.w; ++xx)
          dxp[in.at(y, xx)] = T(0);
      for (int64_t oy = 0; oy < s.oh; ++oy) {
        const AxisWindow &wy = win.rows[size_t(oy)];
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          const AxisWindow &wx = win.cols[size_t(ox)];
          const int64_t o = res.at(oy, ox);
          if (s.max) {
            // The first maximum of the window takes the gradient (Paddle's
            // rule). A strictly-greater scan from the lowest value finds the
            // element the forward pool chose (NaN never wins either), with
            // selects instead of a branch per element.
            T bestValue = std::numeric_limits<T>::lowest();
            int64_t best = -1;
            for (int64_t y = wy.lo; y < wy.hi; ++y)
              for (int64_t xx = wx.lo; xx < wx.hi; ++xx) {
                const int64_t i = in.at(y, xx);
                const bool greater = xp[i] > bestValue;
                bestValue = greater ? xp[i] : bestValue;
                best = greater ? i : best;
              }
            if (best >= 0 && xp[best] == outp[o])
              dxp[best] += dop[o];
            continue;
          }
          const int64_t size = wy.span * wx.span;
          if (size <= 0)
            continue;
          const T g = dop[o] / T(size);
          for (int64_t y = wy.lo; y < wy.hi; ++y)
            for (int64_t xx = wx.lo; xx < wx.hi; ++xx)
              dxp[in.at(y, xx)] += g;
        }
      }
    });
  });
}

} // namespace

void registerPoolKernels(KernelRegistry &r) {
  r.add("pool2d", pool2dKernel);
  r.add("pool2d_grad", pool2dGradKernel);
}

} // namespace distc::runtime::kernels
