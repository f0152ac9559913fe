//===- Random.cpp - deterministic initializers ----------------------------===//
//
// Bit-exact with docs/artifact.md "Randomness": std::mt19937_64 seeded with
// the call's seed; u = (next() >> 11) * 2^-53; Gaussian samples by
// Box-Muller over consecutive pairs of uniforms (a, b): u1 = 1 - a, u2 = b,
// r = sqrt(-2 ln u1), z = r cos(2 pi u2) then r sin(2 pi u2). Values are
// computed in double and rounded to the output dtype in row-major order.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cmath>
#include <random>

namespace distc::runtime::kernels {
namespace {

class UniformSource {
public:
  explicit UniformSource(int64_t seed) : gen_(static_cast<uint64_t>(seed)) {}
  double next() { return double(gen_() >> 11) * 0x1.0p-53; }

private:
  std::mt19937_64 gen_;
};

class NormalSource {
public:
  explicit NormalSource(int64_t seed) : uniform_(seed) {}
  double next() {
    if (haveSpare_) {
      haveSpare_ = false;
      return spare_;
    }
    double u1 = 1.0 - uniform_.next();
    double u2 = uniform_.next();
    double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2.0 * M_PI * u2);
    haveSpare_ = true;
    return r * std::cos(2.0 * M_PI * u2);
  }

private:
  UniformSource uniform_;
  double spare_ = 0;
  bool haveSpare_ = false;
};

template <typename Gen> void fillWith(const KernelContext &ctx, Tensor &out, Gen gen) {
  dispatchFloat(ctx, out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *dst = out.data<T>();
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i)
      dst[i] = T(gen());
  });
}

void uniformRandomKernel(KernelContext &ctx) {
  const int64_t seed = ctx.intAttr("seed");
  if (seed == 0)
    ctx.fail("seed is 0; the compiler must resolve a deterministic seed");
  const double lo = ctx.floatAttr("min"), hi = ctx.floatAttr("max");
  UniformSource src(seed);
  fillWith(ctx, ctx.output(0), [&] { return lo + src.next() * (hi - lo); });
}

void gaussianRandomKernel(KernelContext &ctx) {
  const double mean = ctx.floatAttr("mean"), stddev = ctx.floatAttr("std");
  NormalSource src(ctx.intAttr("seed"));
  fillWith(ctx, ctx.output(0), [&] { return mean + stddev * src.next(); });
}

void truncatedGaussianRandomKernel(KernelContext &ctx) {
  const double mean = ctx.floatAttr("mean"), stddev = ctx.floatAttr("std");
  NormalSource src(ctx.intAttr("seed"));
  // Samples with |z| > 2 are dropped and the next one from the stream taken.
  fillWith(ctx, ctx.output(0), [&] {
    double z;
    do
      z = src.next();
    while (std::abs(z) > 2.0);
    return mean + stddev * z;
  });
}

} // namespace

void registerRandomKernels(KernelRegistry &r) {
  r.add("uniform_random", uniformRandomKernel);
  r.add("gaussian_random", gaussianRandomKernel);
  r.add("truncated_gaussian_random", truncatedGaussianRandomKernel);
}

} // namespace distc::runtime::kernels
