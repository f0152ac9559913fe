//===- VectorMath.h - Float math that loops can vectorize -------*- C++ -*-===//
//
// Element-wise kernels spend their time in exp and erf. The C library's
// scalar functions are calls the compiler cannot vectorize, so the float32
// kernels use the inline, branch-free versions below instead: only
// arithmetic, comparisons that become selects, and bit casts, so a loop
// calling them auto-vectorizes. Accuracy (checked against float64 on dense
// grids in FastPathKernelTest): exp within 2 ulp, the normal CDF and
// density within 5e-7 relative, tails included. Float64 kernels keep
// using <cmath>.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_VECTORMATH_H
#define DISTC_LIB_RUNTIME_KERNELS_VECTORMATH_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "KernelUtils.h"

namespace distc::runtime::kernels::vmath {

/// 2^n as a float, for n in [-126, 127] (a normal number).
DISTC_ALWAYS_INLINE float exp2Int(int32_t n) {
  const int32_t bits = (n + 127) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// e^(hi + lo) where lo is small beside hi (|lo| below a few units):
/// Cephes expf's range reduction and polynomial (under 2 ulp). lo is added
/// after the reduction, so an argument known more precisely than one float
/// (see squareSplit) keeps its accuracy. 0 below the smallest normal
/// result, +inf above the largest, NaN for NaN.
DISTC_ALWAYS_INLINE float expSum(float hi, float lo) {
  constexpr float kMax = 88.7228394f, kMin = -87.3365479f;
  constexpr float kLog2e = 1.44269504f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  const float x = hi + lo;
  // Clamped (NaN to kMin) so that the integer conversion below is defined;
  // out-of-range results are replaced at the end.
  float c = x > kMin ? x : kMin;
  c = c < kMax ? c : kMax;
  // Nearest integer of c*log2(e): adding 1.5*2^23 rounds the fraction away.
  constexpr float kRound = 12582912.0f;
  const float n = (c * kLog2e + kRound) - kRound;
  // hi - n*ln2Hi is exact (ln2Hi has 9 significant bits, n at most 8).
  float r = hi - n * kLn2Hi;
  r = r - n * kLn2Lo;
  r = r + lo;
  // 1 + r + r^2 Q(r), Q of degree 5 evaluated by Estrin's scheme: fewer
  // dependent steps than Horner's, and these loops are bound by latency.
  const float r2 = r * r, r4 = r2 * r2;
  const float q0 = 5.0000001201e-1f + 1.6666665459e-1f * r;
  const float q1 = 4.1665795894e-2f + 8.3334519073e-3f * r;
  const float q2 = 1.3981999507e-3f + 1.9875691500e-4f * r;
  const float q = (q0 + q1 * r2) + q2 * r4;
  const float p = (r + r2 * q) + 1.0f;
  // n is in [-126, 128]; two factors keep each power of two normal.
  const int32_t ni = int32_t(n);
  const int32_t half = ni / 2;
  float e = p * exp2Int(half) * exp2Int(ni - half);
  e = x < kMin ? 0.0f : e;
  e = x > kMax ? std::numeric_limits<float>::infinity() : e;
  return x != x ? x : e;
}

/// e^x.
DISTC_ALWAYS_INLINE float exp(float x) { return expSum(x, 0.0f); }

/// x*x as hi + lo with hi exact: xh, x with its 12 low mantissa bits
/// cleared, squares exactly in a float, and x^2 - xh^2 = (x - xh)(x + xh)
/// is small. For exp(-x^2/2), whose argument in one float would be off by
/// up to x^2 * 6e-8 (a relative error of 1e-5 in the result near x = 13).
DISTC_ALWAYS_INLINE void squareSplit(float x, float &hi, float &lo) {
  int32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits &= ~int32_t(0xFFF);
  float xh;
  std::memcpy(&xh, &bits, sizeof xh);
  hi = xh * xh;
  lo = (x - xh) * (x + xh);
}

/// The standard normal CDF Phi(x) = erfc(-x/sqrt(2))/2, with erfc from
/// Numerical Recipes' erfcc (relative error below 1.2e-7 for every
/// argument >= 0): erfc(z) = t exp(-z^2 + P(t)), t = 1/(1 + z/2). Computing
/// the tail as erfc instead of 1 + erf(x) keeps the relative accuracy for
/// negative x.
DISTC_ALWAYS_INLINE float normalCdf(float x) {
  // Beyond |x| = 20 the tail is below the smallest float.
  const float xc = x > 20.0f ? 20.0f : (x < -20.0f ? -20.0f : x);
  const float z = std::fabs(xc) * 0.707106781f; // |x| / sqrt(2)
  const float t = 1.0f / (1.0f + 0.5f * z);
  // P(t) of degree 9 by Estrin's scheme (t is in (0, 1]).
  const float t2 = t * t, t4 = t2 * t2, t8 = t4 * t4;
  const float p01 = -1.26551223f + 1.00002368f * t, p23 = 0.37409196f + 0.09678418f * t;
  const float p45 = -0.18628806f + 0.27886807f * t, p67 = -1.13520398f + 1.48851587f * t;
  const float p89 = -0.82215223f + 0.17087277f * t;
  // The largest term, p01, added last.
  const float p = p01 + (p23 * t2 + ((p45 + p67 * t2) * t4 + p89 * t8));
  float hi, lo; // z^2 = x^2 / 2 = (hi + lo) / 2
  squareSplit(xc, hi, lo);
  const float tail = 0.5f * t * expSum(-0.5f * hi, p - 0.5f * lo); // Phi(-|x|)
  return xc > 0 ? 1.0f - tail : tail;
}

/// The standard normal density exp(-x^2/2)/sqrt(2 pi).
DISTC_ALWAYS_INLINE float normalPdf(float x) {
  const float xc = x > 20.0f ? 20.0f : (x < -20.0f ? -20.0f : x); // 0 beyond
  float hi, lo;
  squareSplit(xc, hi, lo);
  return 0.398942280f * expSum(-0.5f * hi, -0.5f * lo);
}

/// 1 / (1 + e^-x).
DISTC_ALWAYS_INLINE float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }

} // namespace distc::runtime::kernels::vmath

#endif // DISTC_LIB_RUNTIME_KERNELS_VECTORMATH_H
