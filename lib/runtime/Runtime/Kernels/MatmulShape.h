//===- MatmulShape.h - The operand checks and batching of matmul -*- C++ -*-===//
//
// The matmul kernel's contract (docs/artifact.md), shared by the backends:
// out[..., M, N] = op(a)[..., M, K] op(b)[..., K, N], row-major, op
// transposing the last two dims when trans_a / trans_b is set, batch dims
// of a and b broadcasting (extent 1) to out's.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_MATMULSHAPE_H
#define DISTC_LIB_RUNTIME_KERNELS_MATMULSHAPE_H

#include "distc/Runtime/Kernel.h"

#include <cstdint>
#include <vector>

namespace distc::runtime::kernels {

struct MatmulShape {
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0;
  /// Leading dimensions of a and b (their last extents) and elements per
  /// matrix of a, b and out.
  int64_t lda = 0, ldb = 0;
  int64_t aMat = 0, bMat = 0, outMat = 0;
  /// Product of out's batch dims.
  int64_t batch = 1;
  /// Whether a holds one matrix per batch (no broadcast dim) or a single
  /// matrix for all; likewise b. Neither: a mix, see offsets().
  bool aPerBatch = false, aSingle = false, bPerBatch = false, bSingle = false;

  /// Element offsets of batch i's matrices of a and b.
  void offsets(int64_t i, int64_t &aOffset, int64_t &bOffset) const;

  std::vector<int64_t> outBatchDims, aStride, bStride;
};

/// Checks the dtypes and shapes of the call's a, b and out (failing the
/// call with a message naming them) and describes the product.
MatmulShape checkMatmul(KernelContext &ctx);

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_MATMULSHAPE_H
