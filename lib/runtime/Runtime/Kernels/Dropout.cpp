//===- Dropout.cpp - dropout, dropout_grad --------------------------------===//
//
// Training-time dropout with a counter-based generator, so a mask depends
// only on (seed, step, element index): the same on every machine, for any
// traversal order, and fresh each step without generator state in the
// artifact. Element i keeps its value when u_i >= p, where
//   base = splitmix64(uint64(seed) * 0x9E3779B97F4A7C15 + uint64(step)),
//   u_i  = (splitmix64(base + i) >> 11) * 2^-53
// (docs/artifact.md, "Randomness"). The mask is kept for dropout_grad.
// fuse_dropout_add's form adds a tensor y as it applies the mask, so the
// dropped value never goes through memory.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>
#include <cmath>

namespace distc::runtime::kernels {
namespace {

/// The SplitMix64 output function (Steele, Lea, Flood 2014) of state z.
DISTC_ALWAYS_INLINE uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double dropoutProbability(const KernelContext &ctx) {
  const double p = ctx.floatAttr("p");
  if (!(p >= 0 && p <= 1))
    ctx.fail("dropout probability p = " + std::to_string(p) + " is outside [0, 1]");
  return p;
}

/// The factor applied to kept elements: 1/(1-p) when upscaling (0 when
/// p = 1, where nothing is kept), else 1.
double keptScale(const KernelContext &ctx, double p) {
  if (ctx.intAttr("upscale") == 0)
    return 1.0;
  return p >= 1 ? 0.0 : 1.0 / (1.0 - p);
}

void expectMask(const KernelContext &ctx, const Tensor &mask, int64_t numel) {
  if (mask.dtype() != DType::UInt8)
    ctx.fail(std::string("mask has dtype ") + dtypeName(mask.dtype()) + ", expected u8");
  expectNumel(ctx, mask, numel, "mask");
}

/// out = mask ? x * scale : 0, element-wise in x's dtype (out may be x).
void applyMask(const KernelContext &ctx, const Tensor &mask, const Tensor &x, Tensor &out,
               double scale) {
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T s = T(scale);
    parallelMap(mask.data<uint8_t>(), x.data<T>(), out.data<T>(), x.numel(), kCheapGrain,
                [s](uint8_t keep, T v) { return keep ? v * s : T(0); });
  });
}

/// out = (mask ? x * scale : 0) + y, as applyMask and then a binary add
/// compute it (out may be x or y). Block by block, the masked products go
/// to a local block in one loop and the sums to out in a second: in one
/// expression the compiler may contract x·scale + y into an FMA (gcc does
/// in the AVX2 instance), which rounds once where the two kernels round
/// twice.
void applyMaskAdd(const KernelContext &ctx, const Tensor &mask, const Tensor &x, const Tensor &y,
                  Tensor &out, double scale) {
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T s = T(scale);
    const uint8_t *m = mask.data<uint8_t>();
    const T *a = x.data<T>(), *b = y.data<T>();
    T *o = out.data<T>();
    vectorizedFor(x.numel(), kCheapGrain, [=](int64_t begin, int64_t end) {
      constexpr int64_t kBlock = 256;
      T dropped[kBlock];
      for (int64_t at = begin; at < end; at += kBlock) {
        const int64_t n = std::min(kBlock, end - at);
        DISTC_VECTORIZE_LOOP
        for (int64_t i = 0; i < n; ++i)
          dropped[i] = m[at + i] ? a[at + i] * s : T(0);
        DISTC_VECTORIZE_LOOP
        for (int64_t i = 0; i < n; ++i)
          o[at + i] = dropped[i] + b[at + i];
      }
    });
  });
}

void dropoutKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const Tensor &step = ctx.input(1);
  const Tensor *y = ctx.optionalInput(2);
  Tensor &out = ctx.output(0);
  Tensor &mask = ctx.output(1);
  const double p = dropoutProbability(ctx);
  const double scale = keptScale(ctx, p);
  if (step.dtype() != DType::Int64 || step.numel() != 1)
    ctx.fail("step " + step.typeString() + " must be one i64 element");
  expectSameDtype(ctx, out, x, "out", "x");
  expectNumel(ctx, out, x.numel(), "out");
  expectMask(ctx, mask, x.numel());
  if (y) {
    expectSameDtype(ctx, *y, x, "y", "x");
    expectNumel(ctx, *y, x.numel(), "y");
  }
  const uint64_t seed = static_cast<uint64_t>(ctx.intAttr("seed"));
  const uint64_t base =
      splitmix64(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step.data<int64_t>()[0]));
  // u_i >= p exactly when the integer (splitmix64(base + i) >> 11) is at
  // least ceil(p * 2^53) (exact in double: p <= 1, the product only shifts
  // the exponent); an integer compare keeps the loop vectorizable.
  const uint64_t threshold = uint64_t(std::ceil(p * 0x1.0p53));
  dispatchFloat(ctx, x.dtype(), [](auto) {}); // fails before the mask is written
  const int64_t n = x.numel();
  uint8_t *m = mask.data<uint8_t>();
  // Captured by value: the byte stores could alias a captured reference.
  vectorizedFor(n, kCostlyGrain, [m, base, threshold](int64_t begin, int64_t end) {
    DISTC_VECTORIZE_LOOP
    for (int64_t i = begin; i < end; ++i)
      m[i] = (splitmix64(base + uint64_t(i)) >> 11) >= threshold ? 1 : 0;
  });
  if (y)
    applyMaskAdd(ctx, mask, x, *y, out, scale);
  else
    applyMask(ctx, mask, x, out, scale);
}

void dropoutGradKernel(KernelContext &ctx) {
  const Tensor &mask = ctx.input(0);
  const Tensor &dout = ctx.input(1);
  Tensor &dx = ctx.output(0);
  const double scale = keptScale(ctx, dropoutProbability(ctx));
  expectMask(ctx, mask, dout.numel());
  expectSameDtype(ctx, dx, dout, "dx", "dout");
  expectNumel(ctx, dx, dout.numel(), "dx");
  applyMask(ctx, mask, dout, dx, scale);
}

} // namespace

void registerDropoutKernels(KernelRegistry &r) {
  r.add("dropout", dropoutKernel);
  r.add("dropout_grad", dropoutGradKernel);
}

} // namespace distc::runtime::kernels
