//===- KernelUtils.h - Helpers shared by the CPU kernels --------*- C++ -*-===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H
#define DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H

#include "distc/Runtime/Kernel.h"

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

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

/// A tensor seen as [outer, axis extent, inner] around `axis`: element
/// (o, c, i) is at o * size * inner + c * inner + i.
struct AxisView {
  int64_t outer, size, inner;
};
AxisView aroundAxis(const Tensor &t, int axis);

/// Element strides of a row-major tensor of `shape`.
std::vector<int64_t> rowMajorStrides(const Shape &shape);

/// Row-major strides of `shape` with 0 for extent-1 dims: indexing with a
/// multi-index of a larger, equal-rank shape reads the NumPy-broadcast
/// element.
std::vector<int64_t> broadcastStrides(const Shape &shape);

/// Walks `shape` in row-major order one innermost row at a time. For each of
/// N operands it tracks the offset `at[k] = base[k] + sum(idx[d] *
/// strides[k][d])` of the row's first element and calls
/// `row(flat, at, inner, step)`: `flat` is the row-major offset of that
/// element, the row has `inner` elements and operand k advances by
/// `step[k]` per element. A rank-0 shape is one row of one element; an
/// empty shape has no rows. Every strided kernel loop (broadcasting,
/// transpose, slice and their gradients) is this walk.
template <size_t N, typename F>
void forEachStridedRow(const Shape &shape, const std::array<std::vector<int64_t>, N> &strides,
                       std::array<int64_t, N> at, F &&row) {
  const int rank = int(shape.size());
  const int64_t n = shapeNumel(shape);
  std::array<int64_t, N> step{};
  if (n == 0)
    return;
  if (rank == 0) {
    row(int64_t(0), at, int64_t(1), step);
    return;
  }
  for (size_t k = 0; k < N; ++k)
    step[k] = strides[k][rank - 1];
  const int64_t inner = shape[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  for (int64_t flat = 0; flat < n; flat += inner) {
    row(flat, at, inner, step);
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k)
          at[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        at[k] -= strides[k][d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

/// For every multi-index of `shape`: dst[dstOffset + idx . dstStrides] =
/// src[srcOffset + idx . srcStrides], moving raw elements of `elemSize`
/// bytes (any dtype). Gathers (transpose, slice, broadcast) use row-major
/// destination strides; scatters (slice_grad) row-major source strides.
void copyStrided(size_t elemSize, void *dst, const std::vector<int64_t> &dstStrides,
                 int64_t dstOffset, const void *src, const std::vector<int64_t> &srcStrides,
                 int64_t srcOffset, const Shape &shape);

/// The region of a tensor of shape `in` that the `slice` kernel reads, from
/// the call's `axes`, `starts` and `ends` attributes with Paddle's rules:
/// a negative start/end counts from the end, then both clamp to [0, dim];
/// the extent is max(0, end - start). Fails on attribute lists of unequal
/// length or an axis outside the rank.
struct SliceRegion {
  std::vector<int64_t> begin; // first index per dim
  Shape extent;               // the slice's shape
  int64_t offset;             // row-major offset of `begin` in `in`
};
SliceRegion sliceRegion(const KernelContext &ctx, const Shape &in);

/// The value of a one-element Float32/Float64 tensor (learning rates, beta
/// powers), independent of the dtype of the tensors it scales.
double floatScalar(const KernelContext &ctx, const Tensor &t, const char *what);

/// The labels of a softmax cross-entropy call (forward or backward), where
/// `probs` is the logits or softmax and `rows` the number of class vectors.
/// Soft labels must match `probs` in dtype and element count and are read
/// in place (an empty result); hard labels hold one Int32/Int64 class per
/// row and are returned as int64.
std::vector<int64_t> crossEntropyLabels(const KernelContext &ctx, const Tensor &label,
                                        const Tensor &probs, int64_t rows, bool soft,
                                        const char *probsName);

/// Fails unless hard label `target` of row `row` is a class in [0, classes).
void expectClassIndex(const KernelContext &ctx, int64_t target, int64_t row, int64_t classes);

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H
