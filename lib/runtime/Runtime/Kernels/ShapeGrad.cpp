//===- ShapeGrad.cpp - broadcast, slice_grad ------------------------------===//
//
// Data movement for backward passes: `broadcast` expands a reduced
// gradient back to its input's shape (the backward of reduce and of
// broadcasting binary ops' reductions), `slice_grad` scatters a slice's
// gradient into a zero tensor of the sliced input's shape. Both move raw
// elements, so they work on every dtype.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cstring>

namespace distc::runtime::kernels {
namespace {

void broadcastKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  if (x.rank() != out.rank())
    ctx.fail("x " + formatShape(x.shape()) + " and out " + formatShape(out.shape()) +
             " must have equal ranks");
  for (int d = 0; d < out.rank(); ++d)
    if (x.dim(d) != out.dim(d) && x.dim(d) != 1)
      ctx.fail("x " + formatShape(x.shape()) + " does not broadcast to out " +
               formatShape(out.shape()) + " in dim " + std::to_string(d));
  copyStrided(dtypeSize(x.dtype()), out.data(), rowMajorStrides(out.shape()), 0, x.data(),
              broadcastStrides(x.shape()), 0, out.shape());
  // The gradient of a mean: each copy carries 1/(number of copies). The
  // factor is only known at run time when the batch dim is symbolic.
  if (ctx.intAttr("mean") && x.numel() > 0 && out.numel() > 0) {
    double factor = double(x.numel()) / double(out.numel());
    dispatchFloat(ctx, out.dtype(), [&](auto tag) {
      using T = decltype(tag);
      // Rounded once per element from double, as before.
      T *p = out.data<T>();
      const int64_t n = out.numel();
      parallelMap(p, p, n, kCheapGrain, [factor](T v) { return T(double(v) * factor); });
    });
  }
}

/// The inverse of the `slice` kernel's index mapping: the same region,
/// computed from dx's dims, receives dout; everything else is zero.
void sliceGradKernel(KernelContext &ctx) {
  const Tensor &dout = ctx.input(0);
  Tensor &dx = ctx.output(0);
  expectSameDtype(ctx, dout, dx, "dout", "dx");
  const SliceRegion region = sliceRegion(ctx, dx.shape());
  expectShape(ctx, dout, region.extent, "dout");
  if (dx.byteSize())
    std::memset(dx.data(), 0, dx.byteSize());
  copyStrided(dtypeSize(dx.dtype()), dx.data(), rowMajorStrides(dx.shape()), region.offset,
              dout.data(), rowMajorStrides(dout.shape()), 0, dout.shape());
}

} // namespace

void registerShapeGradKernels(KernelRegistry &r) {
  r.add("broadcast", broadcastKernel);
  r.add("slice_grad", sliceGradKernel);
}

} // namespace distc::runtime::kernels
