//===- TensorFormat.cpp - Printing and comparing tensors ------------------===//

#include "distc/Runtime/TensorFormat.h"
#include "Kernels/KernelUtils.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace distc::runtime {
namespace {

using kernels::toDouble;

/// Shortest %g form that parses back to exactly `v` at the given precision.
std::string shortestFloat(double v, bool isSingle) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
    double back = std::strtod(buf, nullptr);
    if (isSingle ? float(back) == float(v) : back == v)
      break;
  }
  return buf;
}

std::string indexString(const Shape &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (shape[d]) {
      idx[d] = flat % shape[d];
      flat /= shape[d];
    }
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i)
    s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

} // namespace

std::string formatElement(const Tensor &t, int64_t i) {
  std::string out;
  kernels::dispatchAny(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T v = t.data<T>()[i];
    if constexpr (std::is_same_v<T, bool>)
      out = v ? "True" : "False";
    else if constexpr (std::is_integral_v<T>)
      out = std::to_string(int64_t(v));
    else
      out = shortestFloat(toDouble(v), !std::is_same_v<T, double>);
  });
  return out;
}

std::string formatTensorValues(const Tensor &t) {
  const Shape &shape = t.shape();
  const int rank = t.rank();
  if (rank == 0)
    return formatElement(t, 0);
  if (t.numel() == 0)
    return std::string(rank, '[') + std::string(rank, ']');
  std::string s;
  std::vector<int64_t> idx(rank, 0);
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    // Open a bracket for every dim whose index just became 0.
    int opening = 0;
    for (int d = rank - 1; d >= 0 && idx[d] == 0; --d)
      ++opening;
    if (i > 0) {
      if (opening == 0)
        s += ' ';
      else
        s += std::string(opening, '\n') + std::string(rank - opening, ' ');
    }
    s += std::string(opening, '[');
    s += formatElement(t, i);
    int closing = 0;
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
      ++closing;
    }
    s += std::string(closing, ']');
  }
  return s;
}

std::optional<std::string> compareTensors(const Tensor &got, const Tensor &expected, double rtol,
                                          double atol) {
  if (got.dtype() != expected.dtype())
    return std::string("dtype ") + dtypeName(got.dtype()) + " != expected " +
           dtypeName(expected.dtype());
  if (got.shape() != expected.shape())
    return "shape " + got.typeString() + " != expected " + expected.typeString();
  std::optional<std::string> mismatch;
  kernels::dispatchAny(got.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *g = got.data<T>();
    const T *e = expected.data<T>();
    for (int64_t i = 0; i < got.numel() && !mismatch; ++i) {
      double a = toDouble(g[i]), b = toDouble(e[i]);
      bool ok;
      if constexpr (std::is_integral_v<T>)
        ok = a == b;
      else if (std::isnan(a) || std::isnan(b))
        ok = std::isnan(a) && std::isnan(b);
      else if (std::isinf(a) || std::isinf(b))
        ok = a == b;
      else
        ok = std::abs(a - b) <= atol + rtol * std::abs(b);
      if (!ok)
        mismatch = "MISMATCH at " + indexString(got.shape(), i) + ": got " + formatElement(got, i) +
                   " expected " + formatElement(expected, i);
    }
  });
  return mismatch;
}

} // namespace distc::runtime
