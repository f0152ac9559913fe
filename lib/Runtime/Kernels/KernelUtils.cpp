//===- KernelUtils.cpp - Helpers shared by the CPU kernels ----------------===//

#include "KernelUtils.h"

namespace distc::runtime::kernels {

void expectSameDtype(const KernelContext &ctx, const Tensor &a, const Tensor &b, const char *aName,
                     const char *bName) {
  if (a.dtype() != b.dtype())
    ctx.fail(std::string(aName) + " has dtype " + dtypeName(a.dtype()) + " but " + bName + " has " +
             dtypeName(b.dtype()));
}

void expectShape(const KernelContext &ctx, const Tensor &t, const Shape &expected,
                 const char *what) {
  if (t.shape() != expected)
    ctx.fail(std::string(what) + " has shape " + formatShape(t.shape()) + ", expected " +
             formatShape(expected));
}

void expectNumel(const KernelContext &ctx, const Tensor &t, int64_t numel, const char *what) {
  if (t.numel() != numel)
    ctx.fail(std::string(what) + " has " + std::to_string(t.numel()) + " elements " +
             formatShape(t.shape()) + ", expected " + std::to_string(numel));
}

void expectAxis(const KernelContext &ctx, int64_t axis, int rank, const char *what) {
  if (axis < 0 || axis >= rank)
    ctx.fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(rank));
}

int64_t product(const Shape &shape, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i)
    n *= shape[i];
  return n;
}

std::string formatShape(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

} // namespace distc::runtime::kernels
