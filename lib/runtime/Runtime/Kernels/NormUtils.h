//===- NormUtils.h - Per-channel views shared by the norm kernels -*- C++ -*-===//
//
// batch_norm and affine_channel (Norm.cpp, NormGrad.cpp) see x as
// [outer, C, inner] split at its channel axis: NCHW puts the channel at 1,
// NHWC last (inner = 1), and both are the same loops.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_NORMUTILS_H
#define DISTC_LIB_RUNTIME_KERNELS_NORMUTILS_H

#include "KernelUtils.h"

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
template <typename F> void forEachChannelRun(const ChannelSplit &s, int64_t c, F f) {
  for (int64_t o = 0; o < s.outer; ++o)
    f((o * s.channels + c) * s.inner);
}

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_NORMUTILS_H
