//===- KernelUtils.cpp - Helpers shared by the CPU kernels ----------------===//

#include "KernelUtils.h"

#include <algorithm>

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

AxisView aroundAxis(const Tensor &t, int axis) {
  return {product(t.shape(), 0, axis), t.dim(axis), product(t.shape(), axis + 1, t.rank())};
}

std::vector<int64_t> rowMajorStrides(const Shape &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

std::vector<int64_t> broadcastStrides(const Shape &shape) {
  std::vector<int64_t> strides = rowMajorStrides(shape);
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 1)
      strides[d] = 0;
  return strides;
}

namespace {

template <typename E>
void copyStridedAs(E *dst, const std::vector<int64_t> &dstStrides, int64_t dstOffset, const E *src,
                   const std::vector<int64_t> &srcStrides, int64_t srcOffset, const Shape &shape) {
  forEachStridedRow<2>(shape, {dstStrides, srcStrides}, {dstOffset, srcOffset},
                       [&](int64_t, const std::array<int64_t, 2> &at, int64_t inner,
                           const std::array<int64_t, 2> &step) {
                         for (int64_t j = 0; j < inner; ++j)
                           dst[at[0] + j * step[0]] = src[at[1] + j * step[1]];
                       });
}

} // namespace

void copyStrided(size_t elemSize, void *dst, const std::vector<int64_t> &dstStrides,
                 int64_t dstOffset, const void *src, const std::vector<int64_t> &srcStrides,
                 int64_t srcOffset, const Shape &shape) {
  // Elements are moved as same-sized unsigned integers: no dtype needs
  // more than a bit copy.
  switch (elemSize) {
  case 1:
    return copyStridedAs(static_cast<uint8_t *>(dst), dstStrides, dstOffset,
                         static_cast<const uint8_t *>(src), srcStrides, srcOffset, shape);
  case 2:
    return copyStridedAs(static_cast<uint16_t *>(dst), dstStrides, dstOffset,
                         static_cast<const uint16_t *>(src), srcStrides, srcOffset, shape);
  case 4:
    return copyStridedAs(static_cast<uint32_t *>(dst), dstStrides, dstOffset,
                         static_cast<const uint32_t *>(src), srcStrides, srcOffset, shape);
  default:
    return copyStridedAs(static_cast<uint64_t *>(dst), dstStrides, dstOffset,
                         static_cast<const uint64_t *>(src), srcStrides, srcOffset, shape);
  }
}

SliceRegion sliceRegion(const KernelContext &ctx, const Shape &in) {
  const auto axes = ctx.intsAttr("axes");
  const auto starts = ctx.intsAttr("starts");
  const auto ends = ctx.intsAttr("ends");
  if (starts.size() != axes.size() || ends.size() != axes.size())
    ctx.fail("axes, starts and ends must have equal lengths");
  const int rank = int(in.size());
  SliceRegion region{std::vector<int64_t>(rank, 0), in, 0};
  for (size_t i = 0; i < axes.size(); ++i) {
    expectAxis(ctx, axes[i], rank, "slice axis");
    const int64_t dim = in[axes[i]];
    auto clampIndex = [dim](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    const int64_t s = clampIndex(starts[i]), e = clampIndex(ends[i]);
    region.begin[axes[i]] = s;
    region.extent[axes[i]] = std::max<int64_t>(0, e - s);
  }
  const std::vector<int64_t> strides = rowMajorStrides(in);
  for (int d = 0; d < rank; ++d)
    region.offset += region.begin[d] * strides[d];
  return region;
}

double floatScalar(const KernelContext &ctx, const Tensor &t, const char *what) {
  if (t.numel() != 1)
    ctx.fail(std::string(what) + " " + t.typeString() + " must have exactly one element");
  if (t.dtype() == DType::Float32)
    return double(t.data<float>()[0]);
  if (t.dtype() == DType::Float64)
    return t.data<double>()[0];
  ctx.fail(std::string(what) + " has dtype " + dtypeName(t.dtype()) + ", expected f32 or f64");
}

std::vector<int64_t> crossEntropyLabels(const KernelContext &ctx, const Tensor &label,
                                        const Tensor &probs, int64_t rows, bool soft,
                                        const char *probsName) {
  if (soft) {
    expectSameDtype(ctx, label, probs, "soft label", probsName);
    expectNumel(ctx, label, probs.numel(), "soft label");
    return {};
  }
  expectNumel(ctx, label, rows, "label");
  std::vector<int64_t> hard(label.numel());
  dispatchIndex(ctx, label.dtype(), "label", [&](auto tag) {
    using I = decltype(tag);
    for (int64_t i = 0; i < label.numel(); ++i)
      hard[i] = int64_t(label.data<I>()[i]);
  });
  return hard;
}

void expectClassIndex(const KernelContext &ctx, int64_t target, int64_t row, int64_t classes) {
  if (target < 0 || target >= classes)
    ctx.fail("label " + std::to_string(target) + " at position " + std::to_string(row) +
             " is outside [0, " + std::to_string(classes) + ")");
}

} // namespace distc::runtime::kernels
