//===- CudaMatmul.cpp - matmul as cuBLAS GEMMs ------------------------------===//
//
// The row-major product C = op(A) op(B) is, read column-major, the product
// C^T = op(B)^T op(A)^T: cuBLAS gets B as its first operand with trans_b's
// transposition, A second with trans_a's, and the extents n x m, without
// any copy. The shape checks are the CPU kernel's (MatmulShape.h).
//
//===----------------------------------------------------------------------===//

#include "CudaKernels.h"
#include "Kernels/KernelUtils.h"
#include "Kernels/MatmulShape.h"

#include <climits>

namespace distc::runtime::cuda {
namespace {

using kernels::MatmulShape;

/// `value` as a cuBLAS int, or a failure naming `what`.
int cublasInt(KernelContext &ctx, int64_t value, const char *what) {
  if (value > INT_MAX)
    ctx.fail(std::string(what) + " " + std::to_string(value) + " exceeds cuBLAS's int range");
  return static_cast<int>(value);
}

/// Queues, for `batch` row-major products C_i [m, n] = op(A_i) op(B_i).
void rowMajorGemm(KernelContext &ctx, CudaDevice &device, DType dtype, bool transA, bool transB,
                  int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, int64_t strideA,
                  const void *b, int64_t ldb, int64_t strideB, void *c, int64_t strideC,
                  int64_t batch) {
  ColumnMajorGemm g;
  g.dtype = dtype;
  g.transA = transB;
  g.transB = transA;
  g.m = cublasInt(ctx, n, "N");
  g.n = cublasInt(ctx, m, "M");
  g.k = cublasInt(ctx, k, "K");
  g.a = b;
  g.lda = cublasInt(ctx, ldb, "b's leading dimension");
  g.strideA = strideB;
  g.b = a;
  g.ldb = cublasInt(ctx, lda, "a's leading dimension");
  g.strideB = strideA;
  g.c = c;
  g.ldc = g.m;
  g.strideC = strideC;
  g.batch = cublasInt(ctx, batch, "the batch count");
  if (Status s = device.gemm(g); !s.ok())
    ctx.fail(s.message());
}

void matmulKernel(KernelContext &ctx) {
  const MatmulShape p = kernels::checkMatmul(ctx);
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  Tensor &out = ctx.output(0);
  const DType dtype = out.dtype();
  if (dtype != DType::Float32 && dtype != DType::Float64)
    ctx.fail("matmul on the CUDA device takes f32 or f64, not " + std::string(dtypeName(dtype)));
  CudaDevice &device = deviceOf(ctx);
  if (p.outMat == 0 || p.batch == 0)
    return;
  if (p.k == 0) {
    device.zero(out.data(), out.byteSize());
    return;
  }
  const size_t elem = dtypeSize(dtype);
  const auto *ap = static_cast<const uint8_t *>(a.data());
  const auto *bp = static_cast<const uint8_t *>(b.data());
  auto *cp = static_cast<uint8_t *>(out.data());
  if (!p.transA && p.aPerBatch && p.bSingle) {
    // A linear layer on [batch..., M, K]: one GEMM of batch * M rows.
    rowMajorGemm(ctx, device, dtype, false, p.transB, p.batch * p.m, p.n, p.k, ap, p.lda, 0, bp,
                 p.ldb, 0, cp, 0, 1);
    return;
  }
  if ((p.aPerBatch || p.aSingle) && (p.bPerBatch || p.bSingle)) {
    // Uniform strides: one strided-batched call (stride 0 broadcasts).
    rowMajorGemm(ctx, device, dtype, p.transA, p.transB, p.m, p.n, p.k, ap, p.lda,
                 p.aPerBatch ? p.aMat : 0, bp, p.ldb, p.bPerBatch ? p.bMat : 0, cp, p.outMat,
                 p.batch);
    return;
  }
  // Batch dims broadcasting in a mix: one GEMM per batch.
  for (int64_t i = 0; i < p.batch; ++i) {
    int64_t aOff = 0, bOff = 0;
    p.offsets(i, aOff, bOff);
    rowMajorGemm(ctx, device, dtype, p.transA, p.transB, p.m, p.n, p.k, ap + aOff * elem, p.lda, 0,
                 bp + bOff * elem, p.ldb, 0, cp + i * p.outMat * elem, 0, 1);
  }
}

} // namespace

void registerMatmulKernel(KernelRegistry &r) { r.add("matmul", matmulKernel); }

} // namespace distc::runtime::cuda
