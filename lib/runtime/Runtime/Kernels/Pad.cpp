//===- Pad.cpp - pad, pad_grad --------------------------------------------===//
//
// N-D padding with Paddle's modes (pad2d, pad3d): each output index reads
// one input index per dim (or none, in constant mode), so the forward
// kernel gathers and the gradient scatters along the same maps.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cstring>

namespace distc::runtime::kernels {
namespace {

/// Per dim, the input index each output index reads (-1: the constant).
using IndexMaps = std::vector<std::vector<int64_t>>;

/// The maps of `x` dims `in` padded to `out` dims, checked against the
/// kernel's `paddings` and `mode`.
IndexMaps padMaps(const KernelContext &ctx, const Shape &in, const Shape &out) {
  const std::vector<int64_t> paddings = ctx.intsAttr("paddings");
  const std::string mode = ctx.stringAttr("mode");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "circular")
    ctx.fail("unknown mode '" + mode + "' (constant, reflect, edge, circular)");
  const size_t rank = in.size();
  if (paddings.size() != 2 * rank || out.size() != rank)
    ctx.fail(std::to_string(paddings.size()) + " paddings for x " + formatShape(in) +
             " and out " + formatShape(out) + " (two per dim of x)");
  IndexMaps maps(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t before = paddings[2 * d], after = paddings[2 * d + 1], n = in[d];
    if (before < 0 || after < 0 || out[d] != n + before + after)
      ctx.fail("out " + formatShape(out) + " is not x " + formatShape(in) +
               " padded by (" + std::to_string(before) + ", " + std::to_string(after) +
               ") in dim " + std::to_string(d));
    if (mode == "reflect" && (before >= n || after >= n) && (before || after))
      ctx.fail("reflect padding (" + std::to_string(before) + ", " + std::to_string(after) +
               ") of dim " + std::to_string(d) + " needs paddings < its size " +
               std::to_string(n));
    if (mode != "constant" && n == 0 && (before || after))
      ctx.fail("mode '" + mode + "' cannot pad the empty dim " + std::to_string(d));
    std::vector<int64_t> &map = maps[d];
    map.resize(out[d]);
    for (int64_t o = 0; o < out[d]; ++o) {
      int64_t i = o - before;
      if (i >= 0 && i < n)
        map[o] = i;
      else if (mode == "constant")
        map[o] = -1;
      else if (mode == "edge")
        map[o] = i < 0 ? 0 : n - 1;
      else if (mode == "reflect")
        map[o] = i < 0 ? -i : 2 * (n - 1) - i;
      else
        map[o] = ((i % n) + n) % n;
    }
  }
  return maps;
}

/// f(outIndex, inOffset) for every output element in order; inOffset is -1
/// where the output holds the constant.
template <typename F>
void forEachPadded(const Shape &in, const Shape &out, const IndexMaps &maps, F f) {
  const int rank = int(out.size());
  const std::vector<int64_t> strides = rowMajorStrides(in);
  int64_t total = 1;
  for (int64_t d : out)
    total *= d;
  if (total == 0)
    return;
  std::vector<int64_t> index(rank, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t offset = 0;
    for (int d = 0; d < rank && offset >= 0; ++d) {
      int64_t i = maps[d][index[d]];
      offset = i < 0 ? -1 : offset + i * strides[d];
    }
    f(o, offset);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
}

void padKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, x, out, "x", "out");
  const IndexMaps maps = padMaps(ctx, x.shape(), out.shape());
  const double value = ctx.floatAttr("value");
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = x.data<T>();
    T *dst = out.data<T>();
    const T fill = T(value);
    forEachPadded(x.shape(), out.shape(), maps,
                  [&](int64_t o, int64_t i) { dst[o] = i < 0 ? fill : src[i]; });
  });
}

void padGradKernel(KernelContext &ctx) {
  const Tensor &dout = ctx.input(0);
  Tensor &dx = ctx.output(0);
  expectSameDtype(ctx, dout, dx, "dout", "dx");
  const IndexMaps maps = padMaps(ctx, dx.shape(), dout.shape());
  dispatchFloat(ctx, dx.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = dout.data<T>();
    T *dst = dx.data<T>();
    std::fill(dst, dst + dx.numel(), T(0));
    forEachPadded(dx.shape(), dout.shape(), maps, [&](int64_t o, int64_t i) {
      if (i >= 0)
        dst[i] += src[o];
    });
  });
}

} // namespace

void registerPadKernels(KernelRegistry &r) {
  r.add("pad", padKernel);
  r.add("pad_grad", padGradKernel);
}

} // namespace distc::runtime::kernels
