//===- Reduce.cpp - sum/mean/max/min over sorted axes ---------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>
#include <limits>

namespace distc::runtime::kernels {
namespace {

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

  dispatchNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Accumulate in double (sum/mean) for accuracy; T for max/min.
    std::vector<double> acc(kept, 0.0);
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
    T *dst = out.data<T>();
    for (int64_t i = 0; i < kept; ++i)
      dst[i] = T(op == "mean" ? acc[i] / double(count) : acc[i]);
  });
}

} // namespace

void registerReduceKernels(KernelRegistry &r) { r.add("reduce", reduceKernel); }

} // namespace distc::runtime::kernels
