//===- Fill.cpp - fill ----------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <algorithm>

namespace distc::runtime::kernels {
namespace {

void fillKernel(KernelContext &ctx) {
  Tensor &out = ctx.output(0);
  double value = ctx.floatAttr("value");
  dispatchAny(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T v = fromDouble<T>(value);
    std::fill_n(out.data<T>(), out.numel(), v);
  });
}

} // namespace

void registerFillKernels(KernelRegistry &r) { r.add("fill", fillKernel); }

} // namespace distc::runtime::kernels
