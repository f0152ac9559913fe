//===- Reduce.cpp - sum/mean/max/min over sorted axes ---------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace distc::runtime::kernels {
namespace {

/// x viewed as [outer, count, inner] with the reduced axes in the middle,
/// when they are adjacent once extent-1 dims are ignored (bias gradients
/// reduce the leading axes, a mean over the sequence a middle one, a row
/// sum the last ones). False otherwise.
bool adjacentReduction(const Shape &shape, const std::vector<bool> &reduced, AxisView &view) {
  const int rank = int(shape.size());
  int first = rank, last = -1;
  for (int d = 0; d < rank; ++d)
    if (reduced[d] && shape[d] != 1) {
      first = std::min(first, d);
      last = d;
    }
  if (last < 0) { // nothing to reduce: one element per output
    view = {shapeNumel(shape), 1, 1};
    return true;
  }
  for (int d = first; d <= last; ++d)
    if (!reduced[d] && shape[d] != 1)
      return false;
  view = {product(shape, 0, first), product(shape, first, last + 1),
          product(shape, last + 1, rank)};
  return true;
}

struct SumOp {
  static constexpr double kInit = 0.0;
  double operator()(double acc, double v) const { return acc + v; }
};
struct MaxOp {
  static constexpr double kInit = -std::numeric_limits<double>::infinity();
  double operator()(double acc, double v) const { return v > acc ? v : acc; }
};
struct MinOp {
  static constexpr double kInit = std::numeric_limits<double>::infinity();
  double operator()(double acc, double v) const { return v < acc ? v : acc; }
};

/// acc[o, i] = op over c of x[o, c, i], in double. Rows of `inner`
/// accumulators are updated in row order (the order of the general walk),
/// one vectorizable loop per input row. A last-axis sum uses rowSum per
/// row, rows split over threads.
template <typename T, typename Op>
void reduceAdjacent(const T *x, const AxisView &v, Op op, double *acc) {
  const int64_t outer = v.outer, size = v.size, inner = v.inner;
  if (inner == 1 && std::is_same_v<Op, SumOp>) {
    vectorizedFor(outer, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, size)),
                  [=](int64_t begin, int64_t end) {
                    for (int64_t o = begin; o < end; ++o)
                      acc[o] = rowSum(x + o * size, size);
                  });
    return;
  }
  // Not split over threads: splitting the rows would change the order of
  // the sums, splitting the columns costs more memory traffic than it saves.
  vectorized([=] {
    for (int64_t o = 0; o < outer; ++o) {
      double *a = acc + o * inner;
      for (int64_t i = 0; i < inner; ++i)
        a[i] = Op::kInit;
      for (int64_t c = 0; c < size; ++c) {
        const T *row = x + (o * size + c) * inner;
        DISTC_VECTORIZE_LOOP
        for (int64_t i = 0; i < inner; ++i)
          a[i] = op(a[i], double(row[i]));
      }
    }
  });
}

void reduceKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  const std::string op = ctx.stringAttr("op");
  if (op != "sum" && op != "mean" && op != "max" && op != "min")
    ctx.fail("unknown reduce op '" + op + "' (expected sum, mean, max or min)");
  const std::vector<int64_t> axes = ctx.intsAttr("axes");
  const int rank = x.rank();
  std::vector<bool> reduced(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    expectAxis(ctx, axes[i], rank, "reduce axis");
    if (i && axes[i] <= axes[i - 1])
      ctx.fail("reduce axes must be sorted and unique");
    reduced[axes[i]] = true;
  }
  int64_t kept = 1, count = 1;
  for (int d = 0; d < rank; ++d)
    (reduced[d] ? count : kept) *= x.dim(d);
  expectNumel(ctx, out, kept, "out");
  if ((op == "max" || op == "min") && count == 0 && kept > 0)
    ctx.fail(op + " over an empty set of elements");

  AxisView view;
  const bool adjacent = adjacentReduction(x.shape(), reduced, view);
  dispatchNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Accumulate in double (sum/mean) for accuracy; T for max/min.
    std::vector<double> acc(kept, 0.0);
    T *dst = out.data<T>();
    if (adjacent) {
      if (op == "max")
        reduceAdjacent(x.data<T>(), view, MaxOp{}, acc.data());
      else if (op == "min")
        reduceAdjacent(x.data<T>(), view, MinOp{}, acc.data());
      else
        reduceAdjacent(x.data<T>(), view, SumOp{}, acc.data());
      for (int64_t i = 0; i < kept; ++i)
        dst[i] = T(op == "mean" ? acc[i] / double(count) : acc[i]);
      return;
    }
    if (op == "max")
      std::fill(acc.begin(), acc.end(), -std::numeric_limits<double>::infinity());
    if (op == "min")
      std::fill(acc.begin(), acc.end(), std::numeric_limits<double>::infinity());
    // Output stride of every input dim (0 for reduced dims).
    std::vector<int64_t> outStride(rank, 0);
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; --d)
      if (!reduced[d]) {
        outStride[d] = s;
        s *= x.dim(d);
      }
    const T *src = x.data<T>();
    const int64_t n = x.numel();
    std::vector<int64_t> idx(rank, 0);
    int64_t o = 0;
    const bool isSum = op == "sum" || op == "mean", isMax = op == "max";
    for (int64_t i = 0; i < n; ++i) {
      double v = double(src[i]);
      if (isSum)
        acc[o] += v;
      else if (isMax ? v > acc[o] : v < acc[o])
        acc[o] = v;
      for (int d = rank - 1; d >= 0; --d) {
        o += outStride[d];
        if (++idx[d] < x.dim(d))
          break;
        o -= outStride[d] * x.dim(d);
        idx[d] = 0;
      }
    }
    for (int64_t i = 0; i < kept; ++i)
      dst[i] = T(op == "mean" ? acc[i] / double(count) : acc[i]);
  });
}

} // namespace

void registerReduceKernels(KernelRegistry &r) { r.add("reduce", reduceKernel); }

} // namespace distc::runtime::kernels
