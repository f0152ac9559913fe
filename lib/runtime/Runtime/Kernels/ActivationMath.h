//===- ActivationMath.h - Element formulas of the activations ---*- C++ -*-===//
//
// The per-element forward and derivative formulas of relu, gelu (erf form)
// and gelu_tanh (tanh approximation), written once for every kernel that
// applies them: `unary` and `unary_grad`, and the GEMM epilogue kernels
// (gemm_epilogue, gemm_epilogue_grad), whose results must equal the
// composition of matmul, binary add and unary bit for bit. Float32 uses
// VectorMath.h so the loops calling these vectorize; float64 calls the C
// library. Every function is DISTC_ALWAYS_INLINE so that it is compiled
// into the vectorized() instance (KernelUtils.h) of its caller.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_ACTIVATIONMATH_H
#define DISTC_LIB_RUNTIME_KERNELS_ACTIVATIONMATH_H

#include "KernelUtils.h"
#include "VectorMath.h"

#include <cmath>
#include <type_traits>

namespace distc::runtime::kernels::act {

template <typename T> DISTC_ALWAYS_INLINE T relu(T v) { return v > T(0) ? v : T(0); }

/// GELU, erf form: x Phi(x).
template <typename T> DISTC_ALWAYS_INLINE T gelu(T v) {
  if constexpr (std::is_same_v<T, float>)
    return v * vmath::normalCdf(v);
  else
    return T(0.5) * v * (T(1) + std::erf(v / std::sqrt(T(2))));
}

/// k = sqrt(2/pi) of the tanh approximation, rounded as the kernels have
/// always computed it (in T, not as a literal). Hoist it out of loops.
template <typename T> DISTC_ALWAYS_INLINE T geluTanhK() { return std::sqrt(T(2) / T(M_PI)); }

/// GELU, tanh approximation: 0.5 x (1 + tanh(u)), u = k (x + 0.044715 x^3),
/// k = geluTanhK(). In float32 as the identical x / (1 + exp(-2u)), which
/// vectorizes and does not cancel for negative x.
template <typename T> DISTC_ALWAYS_INLINE T geluTanh(T v, T k) {
  if constexpr (std::is_same_v<T, float>) {
    const float u = k * (v + 0.044715f * v * v * v);
    return v / (1.0f + vmath::exp(-2.0f * u));
  } else {
    return T(0.5) * v * (T(1) + std::tanh(k * (v + T(0.044715) * v * v * v)));
  }
}

/// relu's gradient from the forward OUTPUT: dout where out > 0, else 0.
template <typename T> DISTC_ALWAYS_INLINE T reluGrad(T out, T g) { return out > T(0) ? g : T(0); }

/// GELU (erf form) gradient from the forward input x: dout (Phi(x) + x phi(x)).
template <typename T> DISTC_ALWAYS_INLINE T geluGrad(T x, T g) {
  if constexpr (std::is_same_v<T, float>) {
    return g * (vmath::normalCdf(x) + x * vmath::normalPdf(x));
  } else {
    const T cdf = T(0.5) * (1 + std::erf(x / std::sqrt(T(2))));
    const T pdf = std::exp(T(-0.5) * x * x) / std::sqrt(2 * T(M_PI));
    return g * (cdf + x * pdf);
  }
}

/// GELU (tanh approximation) gradient from the forward input x, the exact
/// derivative of out = 0.5 x (1 + t), t = tanh(k (x + c x^3)), c = 0.044715:
///   0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2).
/// Float32 writes 0.5 (1 + t) as s = sigmoid(2u) and 0.5 (1 - t^2) as
/// 2 s (1 - s): the same values, vectorizable and without cancellation.
template <typename T> DISTC_ALWAYS_INLINE T geluTanhGrad(T x, T g, T k) {
  const T c = T(0.044715);
  if constexpr (std::is_same_v<T, float>) {
    const float s = vmath::sigmoid(2.0f * k * (x + c * x * x * x));
    return g * (s + 2.0f * x * s * (1.0f - s) * k * (1.0f + 3.0f * c * x * x));
  } else {
    const T t = std::tanh(k * (x + c * x * x * x));
    return g * (T(0.5) * (1 + t) + T(0.5) * x * (1 - t * t) * k * (1 + 3 * c * x * x));
  }
}

} // namespace distc::runtime::kernels::act

#endif // DISTC_LIB_RUNTIME_KERNELS_ACTIVATIONMATH_H
