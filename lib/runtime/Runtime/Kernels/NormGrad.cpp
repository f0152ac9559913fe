//===- NormGrad.cpp - batch_norm_grad, affine_channel_grad ----------------===//
//
// The gradients of Norm.cpp's kernels, over x viewed as [outer, C, inner]
// (NormUtils.h). Per-channel sums are accumulated in double. With `sync`
// (sync_batch_norm_grad) and several ranks, dx's sums are the global
// batch's, all-reduced once per call.
//
//===----------------------------------------------------------------------===//

#include "ActivationMath.h"
#include "NormUtils.h"
#include "Registration.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace distc::runtime::kernels {
namespace {

/// Checks the optional outputs dx (x's size) and dscale, dbias (C each).
void expectParamGrads(const KernelContext &ctx, const Tensor &x, int64_t channels, Tensor *dx,
                      Tensor *dscale, Tensor *dbias) {
  if (dx) {
    expectSameDtype(ctx, *dx, x, "dx", "x");
    expectNumel(ctx, *dx, x.numel(), "dx");
  }
  for (auto [t, name] : {std::pair{dscale, "dscale"}, std::pair{dbias, "dbias"}})
    if (t) {
      expectSameDtype(ctx, *t, x, name, "x");
      expectNumel(ctx, *t, channels, name);
    }
}

void batchNormGradKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0), &dy = ctx.input(4);
  const bool relu = batchNormActivation(ctx);
  const Tensor *y = ctx.optionalInput(5);
  Tensor *dact = ctx.optionalOutput(3);
  if (relu) {
    if (!y || !dact)
      ctx.fail("activation 'relu' needs the forward output y and the output dact");
    expectSameDtype(ctx, *y, x, "y", "x");
    expectNumel(ctx, *y, x.numel(), "y");
    expectSameDtype(ctx, *dact, x, "dact", "x");
    expectNumel(ctx, *dact, x.numel(), "dact");
  }
  const ChannelSplit s = channelSplit(ctx, x);
  const char *names[] = {"scale", "mean", "variance"};
  for (int i = 1; i <= 3; ++i) {
    expectSameDtype(ctx, ctx.input(i), x, names[i - 1], "x");
    expectNumel(ctx, ctx.input(i), s.channels, names[i - 1]);
  }
  expectSameDtype(ctx, dy, x, "dy", "x");
  expectNumel(ctx, dy, x.numel(), "dy");
  Tensor *dx = ctx.optionalOutput(0), *dscale = ctx.optionalOutput(1),
         *dbias = ctx.optionalOutput(2);
  expectParamGrads(ctx, x, s.channels, dx, dscale, dbias);
  const bool global = ctx.intAttr("global_stats") != 0;
  Collectives *sync = syncCollectives(ctx, global);
  const double eps = ctx.floatAttr("epsilon");
  const int64_t m = s.perChannel(), channels = s.channels, inner = s.inner;
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xp = x.data<T>(), *dyp = dy.data<T>();
    // With relu, the channel runs of dact = relu'(y)·dy are written just
    // before the sums read them, and the gradient gp is dact from then on.
    const T *yp = relu ? y->data<T>() : nullptr;
    T *dactp = relu ? dact->data<T>() : nullptr;
    const T *gp = relu ? dactp : dyp;
    const T *scale = ctx.input(1).data<T>(), *mean = ctx.input(2).data<T>(),
            *var = ctx.input(3).data<T>();
    // Per channel: inv, Σdy, Σdy·x̂ (this rank's), then dx's coefficients
    // dx = a·dy + b·x̂ + c0.
    std::vector<double> inv(channels), sumDy(channels), sumDyXhat(channels), a(channels),
        b(channels), c0(channels);
    parallelFor(channels, 1, [&](int64_t begin, int64_t end) {
      vectorized([&] {
        for (int64_t c = begin; c < end; ++c) {
          inv[c] = global ? 1.0 / std::sqrt(double(var[c]) + eps) : double(var[c]);
          const double mu = double(mean[c]);
          double sg = 0, sgx = 0;
          forEachChannelRun(s, c, [&](int64_t off) {
            if (relu) {
              DISTC_VECTORIZE_LOOP
              for (int64_t i = 0; i < inner; ++i)
                dactp[off + i] = act::reluGrad(yp[off + i], dyp[off + i]);
            }
            sg += rowSum(gp + off, inner);
            sgx += rowDotCentered(gp + off, xp + off, mu, inner);
          });
          sgx *= inv[c];
          sumDy[c] = sg;
          sumDyXhat[c] = sgx;
        }
      });
    });
    // sync_batch_norm over several ranks: dx is the gradient through the
    // global batch's statistics, so its sums and count are every rank's
    // (one collective). dscale and dbias stay this rank's sums: the
    // data-parallel all-reduce averages them with the other gradients.
    std::vector<double> total;
    int64_t count = m;
    if (sync) {
      total.assign(2 * channels + 1, 0.0);
      std::copy(sumDy.begin(), sumDy.end(), total.begin());
      std::copy(sumDyXhat.begin(), sumDyXhat.end(), total.begin() + channels);
      total[2 * channels] = double(m);
      allreduceSums(ctx, *sync, total);
      count = std::llround(total[2 * channels]);
    }
    for (int64_t c = 0; c < channels; ++c) {
      const double sg = sync ? total[c] : sumDy[c];
      const double sgx = sync ? total[channels + c] : sumDyXhat[c];
      if (global) {
        a[c] = double(scale[c]) * inv[c];
        b[c] = c0[c] = 0;
      } else if (count == 1) { // Paddle: y = x, so dx = dy
        a[c] = 1;
        b[c] = c0[c] = 0;
      } else {
        const double k = double(scale[c]) * inv[c] / double(count);
        a[c] = k * double(count);
        b[c] = -k * sgx;
        c0[c] = -k * sg;
      }
    }
    if (dx) {
      T *dp = dx->data<T>();
      const double *ap = a.data(), *bp = b.data(), *invp = inv.data(), *cp = c0.data();
      parallelFor(
          s.outer * channels, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, inner)),
          [=](int64_t begin, int64_t end) {
            vectorized([=] {
              for (int64_t r = begin; r < end; ++r) {
                // dx = a·dy + b·x̂ + c0 with x̂ = (x − mean)·inv, in
                // T: x − mean first, so that a large mean cancels
                // exactly before it is scaled.
                const int64_t c = r % channels;
                const T ac = T(ap[c]), bc = T(bp[c] * invp[c]), mc = T(mean[c]), cc = T(cp[c]);
                const T *gr = gp + r * inner, *xr = xp + r * inner;
                T *dr = dp + r * inner;
                DISTC_VECTORIZE_LOOP
                for (int64_t i = 0; i < inner; ++i)
                  dr[i] = ac * gr[i] + bc * (xr[i] - mc) + cc;
              }
            });
          });
    }
    const bool singleTrain = !global && count == 1;
    for (int64_t c = 0; c < channels; ++c) {
      if (dscale)
        dscale->data<T>()[c] = T(singleTrain ? 0.0 : sumDyXhat[c]);
      if (dbias)
        dbias->data<T>()[c] = T(singleTrain ? 0.0 : sumDy[c]);
    }
  });
}

void affineChannelGradKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0), &scale = ctx.input(1), &dout = ctx.input(2);
  const ChannelSplit s = channelSplit(ctx, x);
  expectSameDtype(ctx, scale, x, "scale", "x");
  expectNumel(ctx, scale, s.channels, "scale");
  expectSameDtype(ctx, dout, x, "dout", "x");
  expectNumel(ctx, dout, x.numel(), "dout");
  Tensor *dx = ctx.optionalOutput(0), *dscale = ctx.optionalOutput(1),
         *dbias = ctx.optionalOutput(2);
  expectParamGrads(ctx, x, s.channels, dx, dscale, dbias);
  const int64_t channels = s.channels, inner = s.inner;
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xp = x.data<T>(), *sp = scale.data<T>(), *gp = dout.data<T>();
    if (dscale || dbias)
      parallelFor(channels, 1, [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          double sg = 0, sgx = 0;
          forEachChannelRun(s, c, [&](int64_t off) {
            sg += rowSum(gp + off, inner);
            sgx += rowDot(gp + off, xp + off, inner);
          });
          if (dscale)
            dscale->data<T>()[c] = T(sgx);
          if (dbias)
            dbias->data<T>()[c] = T(sg);
        }
      });
    if (dx) {
      T *dp = dx->data<T>();
      parallelFor(s.outer * channels,
                  std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, inner)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t r = begin; r < end; ++r)
                      for (int64_t i = 0; i < inner; ++i)
                        dp[r * inner + i] = gp[r * inner + i] * sp[r % channels];
                  });
    }
  });
}

} // namespace

void registerNormGradKernels(KernelRegistry &r) {
  r.add("batch_norm_grad", batchNormGradKernel);
  r.add("affine_channel_grad", affineChannelGradKernel);
}

} // namespace distc::runtime::kernels
