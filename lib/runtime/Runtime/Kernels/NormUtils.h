//===- NormUtils.h - Per-channel views shared by the norm kernels -*- C++ -*-===//
//
// batch_norm and affine_channel (Norm.cpp, NormGrad.cpp) see x as
// [outer, C, inner] split at its channel axis: NCHW puts the channel at 1,
// NHWC last (inner = 1), and both are the same loops. sync_batch_norm's
// kernels (batch_norm with `sync` = 1) all-reduce their per-channel sums
// through allreduceSums.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_NORMUTILS_H
#define DISTC_LIB_RUNTIME_KERNELS_NORMUTILS_H

#include "KernelUtils.h"
#include "distc/Runtime/Backend.h"
#include "distc/Runtime/Collectives.h"

#include <cstring>
#include <string>
#include <vector>

namespace distc::runtime::kernels {

/// x as [outer, channels, inner] around `channel_axis`.
struct ChannelSplit {
  int64_t outer = 1, channels = 1, inner = 1;
  /// Elements per channel.
  int64_t perChannel() const { return outer * inner; }
};

/// The split of `x` at the call's `channel_axis` attribute (checked).
inline ChannelSplit channelSplit(const KernelContext &ctx, const Tensor &x) {
  const int64_t axis = ctx.intAttr("channel_axis");
  const int rank = static_cast<int>(x.shape().size());
  expectAxis(ctx, axis, rank, "channel_axis");
  ChannelSplit s;
  for (int i = 0; i < rank; ++i) {
    if (i < axis)
      s.outer *= x.shape()[i];
    else if (i == axis)
      s.channels = x.shape()[i];
    else
      s.inner *= x.shape()[i];
  }
  return s;
}

/// Calls f(c, offset) for every contiguous run of `s.inner` elements of
/// channel c, offset being the run's first element.
template <typename F>
DISTC_ALWAYS_INLINE void forEachChannelRun(const ChannelSplit &s, int64_t c, F f) {
  for (int64_t o = 0; o < s.outer; ++o)
    DISTC_INLINE_CALLS f((o * s.channels + c) * s.inner);
}

/// Whether a batch_norm or batch_norm_grad call applies relu: its
/// `activation`, set by the fused batch norms, is `none` or `relu`.
inline bool batchNormActivation(const KernelContext &ctx) {
  const std::string name = ctx.stringAttr("activation");
  if (name == "relu")
    return true;
  if (name != "none")
    ctx.fail("unknown activation '" + name + "' (expected none or relu)");
  return false;
}

/// The communicator a `sync` call reduces its batch statistics over: null
/// (compute as batch_norm does) without `sync`, with the running
/// statistics, or when this process is the only rank.
inline Collectives *syncCollectives(const KernelContext &ctx, bool globalStats) {
  if (globalStats || ctx.intAttr("sync") == 0)
    return nullptr;
  Collectives *c = ctx.collectives();
  return c && c->size() > 1 ? c : nullptr;
}

/// Sums `values` element-wise over every rank, in place: one Float64
/// collective of storage from the backend (which the host may write), or
/// of host memory without one. The blocking allreduce first completes the
/// collectives the program started, so calling it from a kernel is safe.
inline void allreduceSums(const KernelContext &ctx, Collectives &c, std::vector<double> &values) {
  const Shape shape = {static_cast<int64_t>(values.size())};
  Backend *backend = ctx.backend();
  Tensor packed =
      backend ? backend->allocate(DType::Float64, shape) : Tensor(DType::Float64, shape);
  const size_t bytes = values.size() * sizeof(double);
  std::memcpy(packed.data(), values.data(), bytes);
  Status st = c.allreduce(packed, "sum");
  // A device communicator may complete asynchronously: the host reads the
  // sums only after the backend's queued work.
  if (st.ok() && backend)
    st = backend->synchronize();
  if (!st.ok())
    ctx.fail("all-reducing the batch statistics: " + st.message());
  std::memcpy(values.data(), packed.data(), bytes);
}

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_NORMUTILS_H
