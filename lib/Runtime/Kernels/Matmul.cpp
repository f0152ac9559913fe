//===- Matmul.cpp - batched, broadcasting matmul through BLAS -------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cblas.h>

namespace distc::runtime::kernels {
namespace {

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c) {
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), 0.0f, c, int(n));
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
          const double *b, int64_t ldb, double *c) {
  cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), 0.0, c, int(n));
}

void matmulKernel(KernelContext &ctx) {
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  Tensor &out = ctx.output(0);
  const bool transA = ctx.intAttr("trans_a", 0) != 0;
  const bool transB = ctx.intAttr("trans_b", 0) != 0;
  expectSameDtype(ctx, a, out, "a", "out");
  expectSameDtype(ctx, b, out, "b", "out");
  const int r = out.rank();
  if (r < 2 || a.rank() != r || b.rank() != r)
    ctx.fail("a " + formatShape(a.shape()) + ", b " + formatShape(b.shape()) + " and out " +
             formatShape(out.shape()) + " must have equal ranks >= 2");
  const int64_t m = transA ? a.dim(r - 1) : a.dim(r - 2);
  const int64_t k = transA ? a.dim(r - 2) : a.dim(r - 1);
  const int64_t kb = transB ? b.dim(r - 1) : b.dim(r - 2);
  const int64_t n = transB ? b.dim(r - 2) : b.dim(r - 1);
  if (k != kb || out.dim(r - 2) != m || out.dim(r - 1) != n)
    ctx.fail("shapes do not multiply: a " + formatShape(a.shape()) + (transA ? "^T" : "") +
             " x b " + formatShape(b.shape()) + (transB ? "^T" : "") + " -> out " +
             formatShape(out.shape()));
  for (int d = 0; d < r - 2; ++d)
    if ((a.dim(d) != out.dim(d) && a.dim(d) != 1) || (b.dim(d) != out.dim(d) && b.dim(d) != 1))
      ctx.fail("batch dim " + std::to_string(d) + " of a " + formatShape(a.shape()) + " and b " +
               formatShape(b.shape()) + " does not broadcast to out " + formatShape(out.shape()));
  if (std::max({m, n, k}) > INT32_MAX)
    ctx.fail("matrix dimension exceeds the BLAS integer range");

  dispatchFloat(ctx, out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t aMat = a.dim(r - 2) * a.dim(r - 1);
    const int64_t bMat = b.dim(r - 2) * b.dim(r - 1);
    const int64_t outMat = m * n;
    const int64_t batch = product(out.shape(), 0, r - 2);
    if (outMat == 0 || batch == 0)
      return;
    // Element strides of each batch dim in a and b (0 where broadcast).
    std::vector<int64_t> aStride(r - 2, 0), bStride(r - 2, 0);
    int64_t as = aMat, bs = bMat;
    for (int d = r - 3; d >= 0; --d) {
      aStride[d] = a.dim(d) == 1 ? 0 : as;
      bStride[d] = b.dim(d) == 1 ? 0 : bs;
      as *= a.dim(d);
      bs *= b.dim(d);
    }
    std::vector<int64_t> idx(r - 2, 0);
    for (int64_t i = 0; i < batch; ++i) {
      int64_t aOff = 0, bOff = 0;
      for (int d = 0; d < r - 2; ++d) {
        aOff += idx[d] * aStride[d];
        bOff += idx[d] * bStride[d];
      }
      T *c = out.data<T>() + i * outMat;
      if (k == 0)
        std::fill_n(c, outMat, T(0));
      else
        gemm(transA, transB, m, n, k, a.data<T>() + aOff, a.dim(r - 1), b.data<T>() + bOff,
             b.dim(r - 1), c);
      for (int d = r - 3; d >= 0; --d) {
        if (++idx[d] < out.dim(d))
          break;
        idx[d] = 0;
      }
    }
  });
}

} // namespace

void registerMatmulKernels(KernelRegistry &r) { r.add("matmul", matmulKernel); }

} // namespace distc::runtime::kernels
