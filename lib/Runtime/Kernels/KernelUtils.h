//===- KernelUtils.h - Helpers shared by the CPU kernels --------*- C++ -*-===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H
#define DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H

#include "distc/Runtime/Kernel.h"

#include <cstdint>
#include <string>
#include <type_traits>

namespace distc::runtime::kernels {

/// Storage types for the 16-bit floats, so they can be template arguments.
struct Half {
  uint16_t bits;
};
struct BFloat {
  uint16_t bits;
};

template <typename T> double toDouble(T v) {
  if constexpr (std::is_same_v<T, Half>)
    return halfToFloat(v.bits);
  else if constexpr (std::is_same_v<T, BFloat>)
    return bfloat16ToFloat(v.bits);
  else
    return static_cast<double>(v);
}

/// Converts between any two element types; to bool: nonzero -> 1. Integer
/// to integer conversions stay exact (no detour through double).
template <typename Dst, typename Src> Dst convertElement(Src v) {
  if constexpr (std::is_same_v<Dst, Half>)
    return Half{floatToHalf(static_cast<float>(toDouble(v)))};
  else if constexpr (std::is_same_v<Dst, BFloat>)
    return BFloat{floatToBfloat16(static_cast<float>(toDouble(v)))};
  else if constexpr (std::is_same_v<Src, Half> || std::is_same_v<Src, BFloat>)
    return convertElement<Dst>(toDouble(v));
  else if constexpr (std::is_same_v<Dst, bool>)
    return v != Src(0);
  else
    return static_cast<Dst>(v);
}

template <typename T> T fromDouble(double v) { return convertElement<T>(v); }

/// Calls f(T{}) with T the C++ type of `dtype`, for every dtype.
template <typename F> void dispatchAny(DType dtype, F &&f) {
  switch (dtype) {
  case DType::Bool:
    return f(bool{});
  case DType::Int8:
    return f(int8_t{});
  case DType::UInt8:
    return f(uint8_t{});
  case DType::Int16:
    return f(int16_t{});
  case DType::Int32:
    return f(int32_t{});
  case DType::Int64:
    return f(int64_t{});
  case DType::Float16:
    return f(Half{});
  case DType::BFloat16:
    return f(BFloat{});
  case DType::Float32:
    return f(float{});
  case DType::Float64:
    return f(double{});
  }
}

/// Calls f(T{}) for Float32/Float64; fails otherwise.
template <typename F> void dispatchFloat(const KernelContext &ctx, DType dtype, F &&f) {
  if (dtype == DType::Float32)
    return f(float{});
  if (dtype == DType::Float64)
    return f(double{});
  ctx.fail(std::string("unsupported dtype ") + dtypeName(dtype) + " (expected f32 or f64)");
}

/// Calls f(T{}) for Float32/Float64/Int32/Int64; fails otherwise.
template <typename F> void dispatchNumeric(const KernelContext &ctx, DType dtype, F &&f) {
  switch (dtype) {
  case DType::Float32:
    return f(float{});
  case DType::Float64:
    return f(double{});
  case DType::Int32:
    return f(int32_t{});
  case DType::Int64:
    return f(int64_t{});
  default:
    ctx.fail(std::string("unsupported dtype ") + dtypeName(dtype) +
             " (expected f32, f64, i32 or i64)");
  }
}

/// Calls f(T{}) for Int32/Int64 index tensors; fails otherwise naming `what`.
template <typename F>
void dispatchIndex(const KernelContext &ctx, DType dtype, const char *what, F &&f) {
  if (dtype == DType::Int32)
    return f(int32_t{});
  if (dtype == DType::Int64)
    return f(int64_t{});
  ctx.fail(std::string(what) + " has dtype " + dtypeName(dtype) + ", expected i32 or i64");
}

void expectSameDtype(const KernelContext &ctx, const Tensor &a, const Tensor &b, const char *aName,
                     const char *bName);
void expectShape(const KernelContext &ctx, const Tensor &t, const Shape &expected,
                 const char *what);
void expectNumel(const KernelContext &ctx, const Tensor &t, int64_t numel, const char *what);
/// Fails unless 0 <= axis < rank.
void expectAxis(const KernelContext &ctx, int64_t axis, int rank, const char *what = "axis");

/// Product of shape[begin, end).
int64_t product(const Shape &shape, int begin, int end);

std::string formatShape(const Shape &shape);

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H
