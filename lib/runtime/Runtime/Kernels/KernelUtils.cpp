//===- KernelUtils.cpp - Helpers shared by the CPU kernels ----------------===//

#include "KernelUtils.h"

#include <algorithm>
#include <atomic>

namespace distc::runtime::kernels {

namespace {
bool cpuHasAvx2Fma() {
#if DISTC_X86_DISPATCH
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

std::atomic<bool> baselineOnly{false};
} // namespace

bool useAvx2Fma() {
  static const bool hasAvx2Fma = cpuHasAvx2Fma();
  return hasAvx2Fma && !baselineOnly.load(std::memory_order_relaxed);
}

void setBaselineIsaOnly(bool only) { baselineOnly.store(only, std::memory_order_relaxed); }

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

NormRows layerNormRows(const KernelContext &ctx, const Tensor &x) {
  const int64_t axis = ctx.intAttr("begin_norm_axis");
  if (axis < 1 || axis > x.rank())
    ctx.fail("begin_norm_axis " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(x.rank()));
  return {product(x.shape(), 0, int(axis)), product(x.shape(), int(axis), x.rank())};
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

BroadcastPlan broadcastPlan(const Shape &out, const std::vector<const Shape *> &operands) {
  const size_t count = operands.size();
  BroadcastPlan plan{{}, std::vector<std::vector<int64_t>>(count)};
  if (shapeNumel(out) == 0) {
    plan.shape = {0};
    for (auto &s : plan.strides)
      s = {0};
    return plan;
  }
  // Merged dims of the output and of each operand (extent 1 where it is
  // broadcast), and whether each operand spans the last merged dim.
  std::vector<Shape> merged(count);
  std::vector<bool> spans(count);
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1)
      continue;
    bool same = !plan.shape.empty();
    for (size_t k = 0; k < count && same; ++k)
      same = ((*operands[k])[d] != 1) == spans[k];
    if (same) {
      plan.shape.back() *= out[d];
      for (size_t k = 0; k < count; ++k)
        merged[k].back() *= (*operands[k])[d];
      continue;
    }
    plan.shape.push_back(out[d]);
    for (size_t k = 0; k < count; ++k) {
      spans[k] = (*operands[k])[d] != 1;
      merged[k].push_back((*operands[k])[d]);
    }
  }
  for (size_t k = 0; k < count; ++k)
    plan.strides[k] = broadcastStrides(merged[k]);
  return plan;
}

namespace {

template <typename E>
void copyStridedAs(E *dst, const std::vector<int64_t> &dstStrides, int64_t dstOffset, const E *src,
                   const std::vector<int64_t> &srcStrides, int64_t srcOffset, const Shape &shape) {
  forEachStridedRow<2>(shape, {dstStrides, srcStrides}, {dstOffset, srcOffset},
                       [&](int64_t, const std::array<int64_t, 2> &at, int64_t inner,
                           const std::array<int64_t, 2> &step) {
                         E *d = dst + at[0];
                         const E *s = src + at[1];
                         // Contiguous and broadcast rows (transposes that keep
                         // the last axis, broadcasts) as plain loops.
                         if (step[0] == 1 && step[1] == 1)
                           std::copy_n(s, inner, d);
                         else if (step[0] == 1 && step[1] == 0)
                           std::fill_n(d, inner, *s);
                         else
                           for (int64_t j = 0; j < inner; ++j)
                             d[j * step[0]] = s[j * step[1]];
                       });
}

} // namespace

static void copyStridedSerial(size_t elemSize, void *dst, const std::vector<int64_t> &dstStrides,
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

void copyStrided(size_t elemSize, void *dst, const std::vector<int64_t> &dstStrides,
                 int64_t dstOffset, const void *src, const std::vector<int64_t> &srcStrides,
                 int64_t srcOffset, const Shape &shape) {
  const int64_t n = shapeNumel(shape);
  if (shape.empty() || n == 0) {
    copyStridedSerial(elemSize, dst, dstStrides, dstOffset, src, srcStrides, srcOffset, shape);
    return;
  }
  // Pieces of the outermost dim on the kernel threads: a pure copy, so the
  // split cannot change the result.
  const int64_t perIndex = n / shape[0];
  parallelFor(shape[0], std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, perIndex)),
              [&](int64_t begin, int64_t end) {
                Shape piece = shape;
                piece[0] = end - begin;
                copyStridedSerial(elemSize, dst, dstStrides, dstOffset + begin * dstStrides[0],
                                  src, srcStrides, srcOffset + begin * srcStrides[0], piece);
              });
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
