//===- Cast.cpp - cast between any two dtypes -----------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cmath>

namespace distc::runtime::kernels {
namespace {

void castKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectNumel(ctx, out, x.numel(), "out");
  const int64_t n = x.numel();
  dispatchAny(x.dtype(), [&](auto srcTag) {
    using Src = decltype(srcTag);
    dispatchAny(out.dtype(), [&](auto dstTag) {
      using Dst = decltype(dstTag);
      const Src *src = x.data<Src>();
      Dst *dst = out.data<Dst>();
      for (int64_t i = 0; i < n; ++i)
        dst[i] = convertElement<Dst>(src[i]);
    });
  });
}

} // namespace

void registerCastKernels(KernelRegistry &r) { r.add("cast", castKernel); }

} // namespace distc::runtime::kernels
