//===- AxisChunks.h - n equal chunks of a tensor along an axis --*- C++ -*-===//
//
// Communicators move contiguous chunks, member k's being the k-th, while a
// tensor split over n ranks along an axis holds its pieces interleaved: with
// the dims before the axis flattened to `outer` rows, chunk k of row o is a
// run of extent/n slices of the axis. The ring kernels (packing an axis for
// a collective, unpacking what it delivers) and the whole-variable gather
// and slice (WholeVariables.cpp) walk the same runs; this header is the one
// place that computes them.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_AXISCHUNKS_H
#define DISTC_LIB_RUNTIME_AXISCHUNKS_H

#include "distc/Runtime/Tensor.h"

#include <cstddef>
#include <cstdint>

namespace distc::runtime {

/// `shape` seen around `axis`, in elements: `outer` rows of `extent`
/// slices of `inner` elements.
struct AxisLayout {
  AxisLayout(const Shape &shape, int axis) {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (int(d) < axis)
        outer *= shape[d];
      else if (int(d) > axis)
        inner *= shape[d];
    }
    extent = shape[size_t(axis)];
  }
  int64_t outer = 1, extent = 1, inner = 1;
};

/// Visits every run of the n equal chunks along `axis` of a tensor of
/// `shape` with elements of `elementSize` bytes: `visit(k, packed, whole,
/// bytes)` for chunk k's run in row o, at byte offset `packed` in the
/// chunks laid end to end (chunk k contiguous, rows in order) and `whole`
/// in the tensor. `shape[axis]` must be a multiple of n.
template <typename Visit>
void forEachChunkRun(const Shape &shape, size_t elementSize, int axis, int n, Visit visit) {
  const AxisLayout l(shape, axis);
  const int64_t m = l.extent / n;
  const size_t run = size_t(m * l.inner) * elementSize;
  for (int64_t k = 0; k < n; ++k)
    for (int64_t o = 0; o < l.outer; ++o)
      visit(int(k), size_t(k * l.outer + o) * run,
            size_t((o * l.extent + k * m) * l.inner) * elementSize, run);
}

} // namespace distc::runtime

#endif // DISTC_LIB_RUNTIME_AXISCHUNKS_H
