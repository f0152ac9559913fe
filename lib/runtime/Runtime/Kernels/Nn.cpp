//===- Nn.cpp - softmax, layer_norm, softmax_cross_entropy, gather_rows,
//              top_k, accuracy ------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"
#include "VectorMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace distc::runtime::kernels {
namespace {

/// Softmax of one contiguous row (the last axis): dst = exp(x - max) / sum,
/// the sum in double. dst may be src.
template <typename T> DISTC_ALWAYS_INLINE void softmaxRow(const T *src, T *dst, int64_t n) {
  const T mx = rowMax(src, n);
  if constexpr (std::is_same_v<T, float>) {
    mapElements(src, dst, n, [mx](float v) { return vmath::exp(v - mx); });
    const float inv = float(1.0 / rowSum(dst, n));
    mapElements(dst, dst, n, [inv](float e) { return e * inv; });
  } else {
    mapScalar(src, dst, n, [mx](T v) { return std::exp(v - mx); });
    const T sum = T(rowSum(dst, n));
    mapElements(dst, dst, n, [sum](T e) { return e / sum; });
  }
}

void softmaxKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  const int64_t axis = ctx.intAttr("axis");
  expectAxis(ctx, axis, x.rank());
  AxisView v = aroundAxis(x, int(axis));
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.data<T>();
    T *dst = out.data<T>();
    if (v.inner == 1) {
      const int64_t size = v.size;
      vectorizedFor(v.outer, std::max<int64_t>(1, kCostlyGrain / std::max<int64_t>(1, size)),
                    [=](int64_t begin, int64_t end) {
                      for (int64_t o = begin; o < end; ++o)
                        softmaxRow(src + o * size, dst + o * size, size);
                    });
      return;
    }
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t in = 0; in < v.inner; ++in) {
        const int64_t base = o * v.size * v.inner + in;
        T mx = -std::numeric_limits<T>::infinity();
        for (int64_t c = 0; c < v.size; ++c)
          mx = std::max(mx, src[base + c * v.inner]);
        double sum = 0;
        for (int64_t c = 0; c < v.size; ++c)
          sum += std::exp(double(src[base + c * v.inner] - mx));
        for (int64_t c = 0; c < v.size; ++c)
          dst[base + c * v.inner] = T(std::exp(double(src[base + c * v.inner] - mx)) / sum);
      }
  });
}

/// y = (x - mu) * inv * scale + bias over one row, in the row's dtype;
/// scale and bias may be null.
template <typename T>
DISTC_ALWAYS_INLINE void layerNormRow(const T *x, const T *scale, const T *bias, T *y, int64_t n, T mu, T inv) {
  if (scale && bias) {
    DISTC_VECTORIZE_LOOP
    for (int64_t c = 0; c < n; ++c)
      y[c] = (x[c] - mu) * inv * scale[c] + bias[c];
    return;
  }
  DISTC_VECTORIZE_LOOP
  for (int64_t c = 0; c < n; ++c) {
    T v = (x[c] - mu) * inv;
    if (scale)
      v *= scale[c];
    if (bias)
      v += bias[c];
    y[c] = v;
  }
}

void layerNormKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const Tensor *scale = ctx.optionalInput(1);
  const Tensor *bias = ctx.optionalInput(2);
  Tensor &y = ctx.output(0);
  Tensor *mean = ctx.optionalOutput(1);
  Tensor *var = ctx.optionalOutput(2);
  const double eps = ctx.floatAttr("epsilon");
  const NormRows norm = layerNormRows(ctx, x);
  const int64_t left = norm.rows, right = norm.width;
  expectSameDtype(ctx, x, y, "x", "y");
  expectNumel(ctx, y, x.numel(), "y");
  for (auto [t, name] : {std::pair{scale, "scale"}, std::pair{bias, "bias"}})
    if (t) {
      expectSameDtype(ctx, *t, x, name, "x");
      expectNumel(ctx, *t, right, name);
    }
  for (auto [t, name] : {std::pair{mean, "mean"}, std::pair{var, "variance"}})
    if (t) {
      expectSameDtype(ctx, *t, x, name, "x");
      expectNumel(ctx, *t, left, name);
    }
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *scaleP = scale ? scale->data<T>() : nullptr;
    const T *biasP = bias ? bias->data<T>() : nullptr;
    T *meanP = mean ? mean->data<T>() : nullptr;
    T *varP = var ? var->data<T>() : nullptr;
    const T *xp = x.data<T>();
    T *yp = y.data<T>();
    // Rows are independent: split over threads.
    vectorizedFor(left, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, right)),
                  [=](int64_t begin, int64_t end) {
                    for (int64_t r = begin; r < end; ++r) {
                      const T *row = xp + r * right;
                      // Statistics in double.
                      const double mu = right ? rowSum(row, right) / double(right) : 0.0;
                      const double variance =
                          right ? rowSquaredDeviation(row, mu, right) / double(right) : 0.0;
                      const double inv = 1.0 / std::sqrt(variance + eps);
                      layerNormRow(row, scaleP, biasP, yp + r * right, right, T(mu), T(inv));
                      if (meanP)
                        meanP[r] = T(mu);
                      if (varP)
                        varP[r] = T(variance);
                    }
                  });
  });
}

void softmaxCrossEntropyKernel(KernelContext &ctx) {
  const Tensor &logits = ctx.input(0);
  const Tensor &label = ctx.input(1);
  Tensor *softmax = ctx.optionalOutput(0);
  Tensor &loss = ctx.output(1);
  const int64_t axis = ctx.intAttr("axis");
  const bool soft = ctx.intAttr("soft_label") != 0;
  const int64_t ignoreIndex = ctx.intAttr("ignore_index");
  expectAxis(ctx, axis, logits.rank());
  AxisView v = aroundAxis(logits, int(axis));
  if (softmax) {
    expectSameDtype(ctx, *softmax, logits, "softmax", "logits");
    expectNumel(ctx, *softmax, logits.numel(), "softmax");
  }
  expectSameDtype(ctx, loss, logits, "loss", "logits");
  expectNumel(ctx, loss, v.outer * v.inner, "loss");
  const std::vector<int64_t> hard =
      crossEntropyLabels(ctx, label, logits, v.outer * v.inner, soft, "logits");
  dispatchFloat(ctx, logits.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *x = logits.data<T>();
    T *lossOut = loss.data<T>();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t in = 0; in < v.inner; ++in) {
        const int64_t base = o * v.size * v.inner + in, row = o * v.inner + in;
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t c = 0; c < v.size; ++c)
          mx = std::max(mx, double(x[base + c * v.inner]));
        double sum = 0;
        for (int64_t c = 0; c < v.size; ++c)
          sum += std::exp(double(x[base + c * v.inner]) - mx);
        const double logSum = mx + std::log(sum); // log-sum-exp
        if (softmax)
          for (int64_t c = 0; c < v.size; ++c)
            softmax->data<T>()[base + c * v.inner] =
                T(std::exp(double(x[base + c * v.inner]) - logSum));
        double l = 0;
        if (soft) {
          for (int64_t c = 0; c < v.size; ++c)
            l += double(label.data<T>()[base + c * v.inner]) *
                 (logSum - double(x[base + c * v.inner]));
        } else {
          const int64_t target = hard[row];
          if (target != ignoreIndex) {
            expectClassIndex(ctx, target, row, v.size);
            l = logSum - double(x[base + target * v.inner]);
          }
        }
        lossOut[row] = T(l);
      }
  });
}

void gatherRowsKernel(KernelContext &ctx) {
  const Tensor &ids = ctx.input(0);
  const Tensor &table = ctx.input(1);
  Tensor &out = ctx.output(0);
  const int64_t paddingIdx = ctx.intAttr("padding_idx");
  if (table.rank() != 2)
    ctx.fail("table " + formatShape(table.shape()) + " must have rank 2 [V, D]");
  expectSameDtype(ctx, out, table, "out", "table");
  const int64_t rows = table.dim(0), width = table.dim(1);
  expectNumel(ctx, out, ids.numel() * width, "out");
  const size_t rowBytes = size_t(width) * dtypeSize(table.dtype());
  dispatchIndex(ctx, ids.dtype(), "ids", [&](auto tag) {
    using I = decltype(tag);
    const I *idp = ids.data<I>();
    const uint8_t *src = table.data<uint8_t>();
    uint8_t *dst = out.data<uint8_t>();
    for (int64_t i = 0; i < ids.numel(); ++i) {
      const int64_t id = int64_t(idp[i]);
      if (id == paddingIdx && paddingIdx != -1) {
        std::memset(dst + i * rowBytes, 0, rowBytes);
        continue;
      }
      if (id < 0 || id >= rows)
        ctx.fail("id " + std::to_string(id) + " at position " + std::to_string(i) +
                 " is outside [0, " + std::to_string(rows) + ")");
      std::memcpy(dst + i * rowBytes, src + id * rowBytes, rowBytes);
    }
  });
}

void topKKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &values = ctx.output(0);
  Tensor &indices = ctx.output(1);
  const int64_t k = ctx.intAttr("k");
  const bool largest = ctx.intAttr("largest") != 0;
  if (x.rank() < 1)
    ctx.fail("x must have rank >= 1");
  const int64_t len = x.dim(x.rank() - 1);
  if (k < 0 || k > len)
    ctx.fail("k = " + std::to_string(k) + " is outside [0, " + std::to_string(len) + "]");
  const int64_t rows = len ? x.numel() / len : product(x.shape(), 0, x.rank() - 1);
  expectSameDtype(ctx, values, x, "values", "x");
  if (indices.dtype() != DType::Int64)
    ctx.fail(std::string("indices has dtype ") + dtypeName(indices.dtype()) + ", expected i64");
  expectNumel(ctx, values, rows * k, "values");
  expectNumel(ctx, indices, rows * k, "indices");
  dispatchNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<int64_t> order(len);
    for (int64_t r = 0; r < rows; ++r) {
      const T *row = x.data<T>() + r * len;
      std::iota(order.begin(), order.end(), 0);
      // Ties keep the lower index first; sorted results.
      auto better = [&](int64_t a, int64_t b) {
        if (row[a] != row[b])
          return largest ? row[a] > row[b] : row[a] < row[b];
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), better);
      for (int64_t j = 0; j < k; ++j) {
        values.data<T>()[r * k + j] = row[order[j]];
        indices.data<int64_t>()[r * k + j] = order[j];
      }
    }
  });
}

void accuracyKernel(KernelContext &ctx) {
  const Tensor &indices = ctx.input(0);
  const Tensor &label = ctx.input(1);
  Tensor &accuracy = ctx.output(0);
  Tensor *correct = ctx.optionalOutput(1);
  Tensor *total = ctx.optionalOutput(2);
  if (indices.dtype() != DType::Int64 || indices.rank() != 2)
    ctx.fail("indices " + indices.typeString() + " must be i64 [N, k]");
  const int64_t n = indices.dim(0), k = indices.dim(1);
  expectNumel(ctx, label, n, "label");
  if (accuracy.dtype() != DType::Float32)
    ctx.fail(std::string("accuracy has dtype ") + dtypeName(accuracy.dtype()) + ", expected f32");
  expectNumel(ctx, accuracy, 1, "accuracy");
  for (auto [t, name] : {std::pair{correct, "correct"}, std::pair{total, "total"}})
    if (t) {
      if (t->dtype() != DType::Int32)
        ctx.fail(std::string(name) + " has dtype " + dtypeName(t->dtype()) + ", expected i32");
      expectNumel(ctx, *t, 1, name);
    }
  int64_t hits = 0;
  dispatchIndex(ctx, label.dtype(), "label", [&](auto tag) {
    using I = decltype(tag);
    for (int64_t r = 0; r < n; ++r) {
      const int64_t want = int64_t(label.data<I>()[r]);
      for (int64_t j = 0; j < k; ++j)
        if (indices.data<int64_t>()[r * k + j] == want) {
          ++hits;
          break;
        }
    }
  });
  accuracy.data<float>()[0] = n ? float(double(hits) / double(n)) : 0.0f;
  if (correct)
    correct->data<int32_t>()[0] = int32_t(hits);
  if (total)
    total->data<int32_t>()[0] = int32_t(n);
}

} // namespace

void registerNnKernels(KernelRegistry &r) {
  r.add("softmax", softmaxKernel);
  r.add("layer_norm", layerNormKernel);
  r.add("softmax_cross_entropy", softmaxCrossEntropyKernel);
  r.add("gather_rows", gatherRowsKernel);
  r.add("top_k", topKKernel);
  r.add("accuracy", accuracyKernel);
}

} // namespace distc::runtime::kernels
