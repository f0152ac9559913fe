//===- Norm.cpp - batch_norm, affine_channel, arg_max ----------------------===//
//
// The forward kernels of the vision models' ops (PdNormOps.td). Statistics
// are accumulated in double, per channel, over x viewed as [outer, C,
// inner] (NormUtils.h). batch_norm reads all of its inputs before it
// writes an output, because its running-statistics outputs are the
// persistent buffers of its mean and variance inputs (LowerNorm.cpp). With
// `sync` (sync_batch_norm) and several ranks, the batch statistics are the
// global batch's, all-reduced once per call; otherwise the arithmetic is
// batch_norm's, bit for bit. The fused batch norms (fuse_bn_act_ops,
// fuse_bn_add_act_ops) add z and apply the activation in the pass that
// writes y, with the formulas of the separate add and relu kernels.
//
//===----------------------------------------------------------------------===//

#include "ActivationMath.h"
#include "NormUtils.h"
#include "Registration.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

namespace distc::runtime::kernels {
namespace {

void batchNormKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const ChannelSplit s = channelSplit(ctx, x);
  const int64_t channels = s.channels;
  const char *names[] = {"scale", "bias", "mean", "variance"};
  for (int i = 1; i <= 4; ++i) {
    expectSameDtype(ctx, ctx.input(i), x, names[i - 1], "x");
    expectNumel(ctx, ctx.input(i), channels, names[i - 1]);
  }
  Tensor &y = ctx.output(0);
  expectSameDtype(ctx, y, x, "y", "x");
  expectNumel(ctx, y, x.numel(), "y");
  const char *outNames[] = {"mean_out", "variance_out", "saved_mean", "saved_variance"};
  Tensor *stats[4];
  for (int i = 1; i <= 4; ++i) {
    stats[i - 1] = ctx.optionalOutput(i);
    if (stats[i - 1]) {
      expectSameDtype(ctx, *stats[i - 1], x, outNames[i - 1], "x");
      expectNumel(ctx, *stats[i - 1], channels, outNames[i - 1]);
    }
  }
  const Tensor *z = ctx.optionalInput(5);
  if (z) {
    expectSameDtype(ctx, *z, x, "z", "x");
    expectNumel(ctx, *z, x.numel(), "z");
  }
  const bool relu = batchNormActivation(ctx);
  const double eps = ctx.floatAttr("epsilon");
  const double momentum = ctx.floatAttr("momentum");
  const bool global = ctx.intAttr("global_stats") != 0;
  Collectives *sync = syncCollectives(ctx, global);
  int64_t m = s.perChannel();
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xp = x.data<T>();
    const T *scale = ctx.input(1).data<T>(), *bias = ctx.input(2).data<T>();
    const T *mean = ctx.input(3).data<T>(), *variance = ctx.input(4).data<T>();
    // sync_batch_norm over several ranks: the global batch's statistics,
    // from every rank's Σx, Σx² per channel and element count (one
    // collective). m becomes the global count.
    std::vector<double> sums;
    if (sync) {
      sums.assign(2 * channels + 1, 0.0);
      parallelFor(channels, 1, [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c)
          forEachChannelRun(s, c, [&](int64_t off) {
            sums[c] += rowSum(xp + off, s.inner);
            sums[channels + c] += rowDot(xp + off, xp + off, s.inner);
          });
      });
      sums[2 * channels] = double(m);
      allreduceSums(ctx, *sync, sums);
      m = std::llround(sums[2 * channels]);
    }
    // Per channel, before anything is written: the new running statistics,
    // the saved ones, and y = x·a + b.
    std::vector<double> meanOut(channels), varOut(channels), saved(channels, 0.0),
        savedInv(channels, 0.0), a(channels), b(channels);
    const bool single = !global && m == 1; // Paddle: y = x, statistics kept
    parallelFor(channels, 1, [&](int64_t begin, int64_t end) {
      vectorized([&] {
        for (int64_t c = begin; c < end; ++c) {
          double mu, inv;
          meanOut[c] = double(mean[c]);
          varOut[c] = double(variance[c]);
          if (global || single) {
            mu = double(mean[c]);
            inv = 1.0 / std::sqrt(double(variance[c]) + eps);
          } else {
            double var;
            if (sync) {
              mu = sums[c] / double(m);
              var = std::max(sums[channels + c] / double(m) - mu * mu, 0.0);
            } else {
              double sum = 0;
              forEachChannelRun(s, c, [&](int64_t off) { sum += rowSum(xp + off, s.inner); });
              mu = sum / double(m);
              double sq = 0;
              forEachChannelRun(
                  s, c, [&](int64_t off) { sq += rowSquaredDeviation(xp + off, mu, s.inner); });
              var = sq / double(m);
            }
            inv = 1.0 / std::sqrt(var + eps);
            meanOut[c] = momentum * double(mean[c]) + (1.0 - momentum) * mu;
            varOut[c] = momentum * double(variance[c]) + (1.0 - momentum) * var;
            saved[c] = mu;
            savedInv[c] = inv;
          }
          a[c] = single ? 1.0 : double(scale[c]) * inv;
          b[c] = single ? 0.0 : double(bias[c]) - mu * a[c];
        }
      });
    });
    T *yp = y.data<T>();
    const T *zp = z ? z->data<T>() : nullptr;
    const int64_t rows = s.outer * channels, inner = s.inner;
    const double *ap = a.data(), *bp = b.data();
    // y = x·a + b per channel, then + z and the activation when fused: each
    // step rounds to T as the separate kernels' would.
    auto normalize = [=](auto withZ, auto withRelu) {
      parallelFor(rows, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, inner)),
                  [=](int64_t begin, int64_t end) {
                    vectorized([=] {
                      for (int64_t r = begin; r < end; ++r) {
                        const int64_t c = r % channels;
                        const T ac = T(ap[c]), bc = T(bp[c]);
                        const T *src = xp + r * inner;
                        T *dst = yp + r * inner;
                        [[maybe_unused]] const T *zr = zp + r * inner;
                        DISTC_VECTORIZE_LOOP
                        for (int64_t i = 0; i < inner; ++i) {
                          T v = src[i] * ac + bc;
                          if constexpr (decltype(withZ)::value)
                            v = v + zr[i];
                          if constexpr (decltype(withRelu)::value)
                            v = act::relu(v);
                          dst[i] = v;
                        }
                      }
                    });
                  });
    };
    using No = std::false_type;
    using Yes = std::true_type;
    if (zp && relu)
      normalize(Yes{}, Yes{});
    else if (zp)
      normalize(Yes{}, No{});
    else if (relu)
      normalize(No{}, Yes{});
    else
      normalize(No{}, No{});
    const std::vector<double> *values[] = {&meanOut, &varOut, &saved, &savedInv};
    for (int i = 0; i < 4; ++i)
      if (stats[i]) {
        T *dst = stats[i]->data<T>();
        for (int64_t c = 0; c < channels; ++c)
          dst[c] = T((*values[i])[c]);
      }
  });
}

void affineChannelKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0), &scale = ctx.input(1), &bias = ctx.input(2);
  Tensor &out = ctx.output(0);
  const ChannelSplit s = channelSplit(ctx, x);
  expectSameDtype(ctx, scale, x, "scale", "x");
  expectSameDtype(ctx, bias, x, "bias", "x");
  expectSameDtype(ctx, out, x, "out", "x");
  expectNumel(ctx, scale, s.channels, "scale");
  expectNumel(ctx, bias, s.channels, "bias");
  expectNumel(ctx, out, x.numel(), "out");
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xp = x.data<T>(), *sp = scale.data<T>(), *bp = bias.data<T>();
    T *op = out.data<T>();
    const int64_t rows = s.outer * s.channels, inner = s.inner, channels = s.channels;
    parallelFor(rows, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, inner)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    const T sc = sp[r % channels], bc = bp[r % channels];
                    for (int64_t i = 0; i < inner; ++i)
                      op[r * inner + i] = xp[r * inner + i] * sc + bc;
                  }
                });
  });
}

template <typename T, typename I>
void argMaxLoop(const T *xp, I *op, int64_t outer, int64_t n, int64_t inner) {
  parallelFor(outer * inner, 1024, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t o = k / inner, i = k % inner;
      const T *base = xp + o * n * inner + i;
      int64_t best = 0;
      T bestValue = base[0];
      for (int64_t j = 1; j < n; ++j) {
        const T v = base[j * inner];
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(bestValue))
            break;
          if (std::isnan(v) || v > bestValue) {
            best = j;
            bestValue = v;
          }
        } else if (v > bestValue) {
          best = j;
          bestValue = v;
        }
      }
      op[k] = I(best);
    }
  });
}

void argMaxKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  const int rank = static_cast<int>(x.shape().size());
  const int64_t axis = ctx.intAttr("axis");
  expectAxis(ctx, axis, rank);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < rank; ++i) {
    if (i < axis)
      outer *= x.shape()[i];
    else if (i > axis)
      inner *= x.shape()[i];
  }
  const int64_t n = x.shape()[axis];
  if (n == 0)
    ctx.fail("arg_max over an empty axis");
  expectNumel(ctx, out, outer * inner, "out");
  if (out.dtype() != DType::Int32 && out.dtype() != DType::Int64)
    ctx.fail(std::string("out must be Int32 or Int64, not ") + dtypeName(out.dtype()));
  dispatchNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (out.dtype() == DType::Int32)
      argMaxLoop(x.data<T>(), out.data<int32_t>(), outer, n, inner);
    else
      argMaxLoop(x.data<T>(), out.data<int64_t>(), outer, n, inner);
  });
}

} // namespace

void registerNormKernels(KernelRegistry &r) {
  r.add("batch_norm", batchNormKernel);
  r.add("affine_channel", affineChannelKernel);
  r.add("arg_max", argMaxKernel);
}

} // namespace distc::runtime::kernels
