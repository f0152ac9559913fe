//===- Shape.cpp - copy, transpose, concat, split, slice, shape -----------===//
//
// Data movement only: these work on raw elements of any dtype.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <climits>
#include <cstring>

namespace distc::runtime::kernels {
namespace {

void copyKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  expectNumel(ctx, out, x.numel(), "out");
  if (!x.sharesStorageWith(out) && x.byteSize())
    std::memcpy(out.data(), x.data(), x.byteSize());
}

void transposeKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  const std::vector<int64_t> perm = ctx.intsAttr("perm");
  const int rank = x.rank();
  if (int(perm.size()) != rank || out.rank() != rank)
    ctx.fail("perm of size " + std::to_string(perm.size()) + " for x " + formatShape(x.shape()) +
             " and out " + formatShape(out.shape()));
  std::vector<bool> seen(rank, false);
  Shape expected(rank);
  const std::vector<int64_t> xStrides = rowMajorStrides(x.shape());
  std::vector<int64_t> strides(rank);
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]])
      ctx.fail("perm is not a permutation of 0.." + std::to_string(rank - 1));
    seen[perm[i]] = true;
    expected[i] = x.dim(int(perm[i]));
    strides[i] = xStrides[perm[i]];
  }
  expectShape(ctx, out, expected, "out");
  copyStrided(dtypeSize(x.dtype()), out.data(), rowMajorStrides(out.shape()), 0, x.data(), strides,
              0, out.shape());
}

/// Views `t` as [outer, t.dim(axis) * inner] bytes for concat/split.
struct AxisSplit {
  int64_t outer, rowBytes;
};

AxisSplit splitAt(const Tensor &t, int axis) {
  return {product(t.shape(), 0, axis),
          product(t.shape(), axis, t.rank()) * int64_t(dtypeSize(t.dtype()))};
}

/// Checks that every part matches `whole` except on `axis`, where extents sum up.
void checkParts(const KernelContext &ctx, const Tensor &whole, const std::vector<Tensor *> &parts,
                int64_t axis, const char *partName) {
  expectAxis(ctx, axis, whole.rank());
  int64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor &p = *parts[i];
    std::string name = std::string(partName) + std::to_string(i);
    expectSameDtype(ctx, p, whole, name.c_str(), "the whole");
    bool ok = p.rank() == whole.rank();
    for (int d = 0; ok && d < p.rank(); ++d)
      ok = d == axis || p.dim(d) == whole.dim(d);
    if (!ok)
      ctx.fail(name + " " + formatShape(p.shape()) + " does not match " +
               formatShape(whole.shape()) + " outside axis " + std::to_string(axis));
    total += p.dim(int(axis));
  }
  if (total != whole.dim(int(axis)))
    ctx.fail("extents along axis " + std::to_string(axis) + " sum to " + std::to_string(total) +
             ", expected " + std::to_string(whole.dim(int(axis))));
}

void concatKernel(KernelContext &ctx) {
  Tensor &out = ctx.output(0);
  const int64_t axis = ctx.intAttr("axis");
  std::vector<Tensor *> parts;
  for (int i = 0; i < ctx.numInputs(); ++i)
    parts.push_back(&ctx.input(i));
  checkParts(ctx, out, parts, axis, "x");
  AxisSplit whole = splitAt(out, int(axis));
  uint8_t *dst = out.data<uint8_t>();
  int64_t col = 0;
  for (Tensor *p : parts) {
    AxisSplit s = splitAt(*p, int(axis));
    for (int64_t o = 0; o < whole.outer; ++o)
      std::memcpy(dst + o * whole.rowBytes + col, p->data<uint8_t>() + o * s.rowBytes, s.rowBytes);
    col += s.rowBytes;
  }
}

void splitKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  const int64_t axis = ctx.intAttr("axis");
  std::vector<Tensor *> parts;
  for (int i = 0; i < ctx.numOutputs(); ++i)
    parts.push_back(&ctx.output(i));
  checkParts(ctx, x, parts, axis, "out");
  AxisSplit whole = splitAt(x, int(axis));
  const uint8_t *src = x.data<uint8_t>();
  int64_t col = 0;
  for (Tensor *p : parts) {
    AxisSplit s = splitAt(*p, int(axis));
    for (int64_t o = 0; o < whole.outer; ++o)
      std::memcpy(p->data<uint8_t>() + o * s.rowBytes, src + o * whole.rowBytes + col, s.rowBytes);
    col += s.rowBytes;
  }
}

void sliceKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  const SliceRegion region = sliceRegion(ctx, x.shape());
  expectShape(ctx, out, region.extent, "out");
  copyStrided(dtypeSize(x.dtype()), out.data(), rowMajorStrides(out.shape()), 0, x.data(),
              rowMajorStrides(x.shape()), region.offset, out.shape());
}

/// out = x's dims as Int32 (Paddle's `shape`); x's data is not read.
void shapeKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  if (out.dtype() != DType::Int32)
    ctx.fail("out must be Int32, got " + std::string(dtypeName(out.dtype())));
  expectNumel(ctx, out, x.rank(), "out");
  int32_t *dst = out.data<int32_t>();
  for (int d = 0; d < x.rank(); ++d) {
    if (x.dim(d) > INT32_MAX)
      ctx.fail("dim " + std::to_string(d) + " of x " + formatShape(x.shape()) +
               " does not fit Int32");
    dst[d] = int32_t(x.dim(d));
  }
}

} // namespace

void registerShapeKernels(KernelRegistry &r) {
  r.add("copy", copyKernel);
  r.add("transpose", transposeKernel);
  r.add("concat", concatKernel);
  r.add("split", splitKernel);
  r.add("slice", sliceKernel);
  r.add("shape", shapeKernel);
}

} // namespace distc::runtime::kernels
