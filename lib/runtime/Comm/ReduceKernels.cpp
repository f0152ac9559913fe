//===- ReduceKernels.cpp - Elementwise combining for reductions -----------===//
//
// Integer sums and products go through the unsigned type of the same width:
// they wrap around instead of being undefined on overflow. Floating-point
// max/min return NaN when either side is NaN, so the result does not depend
// on which operand happens to be first.
//
//===----------------------------------------------------------------------===//

#include "ReduceKernels.h"

#include <cstdint>
#include <type_traits>

namespace distc::comm::detail {
namespace {

template <typename T> void combineTyped(T *acc, const T *in, size_t n, ReduceOp op) {
  if constexpr (std::is_integral_v<T>) {
    // Narrow types would promote to (signed) int, whose products overflow.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    switch (op) {
    case ReduceOp::Sum:
      for (size_t i = 0; i < n; ++i)
        acc[i] = static_cast<T>(static_cast<U>(acc[i]) + static_cast<U>(in[i]));
      return;
    case ReduceOp::Prod:
      for (size_t i = 0; i < n; ++i)
        acc[i] = static_cast<T>(static_cast<U>(acc[i]) * static_cast<U>(in[i]));
      return;
    case ReduceOp::Max:
      for (size_t i = 0; i < n; ++i)
        acc[i] = acc[i] < in[i] ? in[i] : acc[i];
      return;
    case ReduceOp::Min:
      for (size_t i = 0; i < n; ++i)
        acc[i] = in[i] < acc[i] ? in[i] : acc[i];
      return;
    }
  } else {
    switch (op) {
    case ReduceOp::Sum:
      for (size_t i = 0; i < n; ++i)
        acc[i] = acc[i] + in[i];
      return;
    case ReduceOp::Prod:
      for (size_t i = 0; i < n; ++i)
        acc[i] = acc[i] * in[i];
      return;
    case ReduceOp::Max:
      for (size_t i = 0; i < n; ++i)
        acc[i] = acc[i] != acc[i] ? acc[i] : (in[i] != in[i] || acc[i] < in[i]) ? in[i] : acc[i];
      return;
    case ReduceOp::Min:
      for (size_t i = 0; i < n; ++i)
        acc[i] = acc[i] != acc[i] ? acc[i] : (in[i] != in[i] || in[i] < acc[i]) ? in[i] : acc[i];
      return;
    }
  }
}

template <typename T> void dispatch(void *acc, const void *in, size_t n, ReduceOp op) {
  combineTyped(static_cast<T *>(acc), static_cast<const T *>(in), n, op);
}

} // namespace

void combine(void *acc, const void *in, size_t count, DType dtype, ReduceOp op) {
  switch (dtype) {
  case DType::Int8:
    return dispatch<int8_t>(acc, in, count, op);
  case DType::UInt8:
    return dispatch<uint8_t>(acc, in, count, op);
  case DType::Int16:
    return dispatch<int16_t>(acc, in, count, op);
  case DType::Int32:
    return dispatch<int32_t>(acc, in, count, op);
  case DType::Int64:
    return dispatch<int64_t>(acc, in, count, op);
  case DType::Float32:
    return dispatch<float>(acc, in, count, op);
  case DType::Float64:
    return dispatch<double>(acc, in, count, op);
  default:
    return;
  }
}

} // namespace distc::comm::detail
