//===- Matmul.cpp - batched, broadcasting matmul through BLAS -------------===//

#include "Gemm.h"
#include "KernelUtils.h"
#include "MatmulShape.h"
#include "Registration.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>

// OpenBLAS's own thread control, when the BLAS is OpenBLAS.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace distc::runtime::kernels {
namespace {

/// The threads GEMMs are split over. With more than one kernel thread the
/// runtime splits GEMMs itself and runs OpenBLAS single-threaded: OpenBLAS's
/// idle threads spin between calls and would take the cores the runtime's
/// other kernels run on.
int ownGemmThreads() {
  const int n = kernelThreads();
  if (n == 1 || !openblas_set_num_threads)
    return 1;
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
  return n;
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), 0.0f, c, int(ldc));
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
          const double *b, int64_t ldb, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), 0.0, c, int(ldc));
}

/// C [m, n] (row stride ldc) = op(A) op(B), A and B row-major with leading
/// dimensions lda and ldb.
template <typename T> struct Gemm {
  bool transA, transB;
  int64_t m, n, k;
  const T *a;
  int64_t lda;
  const T *b;
  int64_t ldb;
  T *c;
  int64_t ldc;

  void run() const { gemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc); }
  /// Rows [begin, end) of C.
  Gemm rows(int64_t begin, int64_t end) const {
    Gemm g = *this;
    g.m = end - begin;
    g.a = transA ? a + begin : a + begin * lda;
    g.c = c + begin * ldc;
    return g;
  }
  /// Columns [begin, end) of C.
  Gemm columns(int64_t begin, int64_t end) const {
    Gemm g = *this;
    g.n = end - begin;
    g.b = transB ? b + begin * ldb : b + begin;
    g.c = c + begin;
    return g;
  }
};

/// GEMMs smaller than this (m * n * k) are not split over threads.
constexpr int64_t kMinSplitGemm = int64_t(1) << 18;

/// Runs g split over the kernel threads into GEMMs of row blocks of C (or
/// column blocks when C is wider than tall), two per thread. Every element
/// of C is still computed by one BLAS call over the whole of K; the blocks
/// depend only on the shape and the thread count, so a run is reproducible
/// (another thread count may round differently in the last bits, as
/// OpenBLAS's own threading does).
template <typename T> void splitGemm(const Gemm<T> &g) {
  const int threads = ownGemmThreads();
  if (threads == 1 || g.m * g.n * g.k < kMinSplitGemm) {
    g.run();
    return;
  }
  const bool byRows = g.m >= g.n;
  const int64_t extent = byRows ? g.m : g.n;
  const int64_t grain = std::max<int64_t>(16, (extent + 2 * threads - 1) / (2 * threads));
  parallelFor(extent, grain, [&](int64_t begin, int64_t end) {
    (byRows ? g.rows(begin, end) : g.columns(begin, end)).run();
  });
}

void matmulKernel(KernelContext &ctx) {
  const MatmulShape p = checkMatmul(ctx);
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  Tensor &out = ctx.output(0);
  const bool transA = p.transA, transB = p.transB;
  const int64_t m = p.m, n = p.n, k = p.k;
  dispatchFloat(ctx, out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t outMat = p.outMat;
    const int64_t batch = p.batch;
    if (outMat == 0 || batch == 0)
      return;
    const T *ap = a.data<T>(), *bp = b.data<T>();
    T *cp = out.data<T>();
    if (k == 0) {
      std::fill_n(cp, batch * outMat, T(0));
      return;
    }
    if (!transA && p.aPerBatch && p.bSingle) {
      // Every batch of a against the one matrix of b (a linear layer on a
      // [batch..., M, K] input): the batches of a and out are consecutive
      // row blocks, so one GEMM with batch * M rows does them all.
      if (batch * m > INT32_MAX)
        ctx.fail("matrix dimension exceeds the BLAS integer range");
      splitGemm(Gemm<T>{false, transB, batch * m, n, k, ap, p.lda, bp, p.ldb, cp, n});
      return;
    }
    if (batch == 1) {
      splitGemm(Gemm<T>{transA, transB, m, n, k, ap, p.lda, bp, p.ldb, cp, n});
      return;
    }
    // Batches are independent GEMMs: split them over threads (when the
    // runtime, not OpenBLAS, threads the GEMMs).
    const int64_t grain = ownGemmThreads() == 1
                              ? batch
                              : std::max<int64_t>(1, kMinSplitGemm / std::max<int64_t>(1, m * n * k));
    parallelFor(batch, grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t aOff = 0, bOff = 0;
        p.offsets(i, aOff, bOff);
        gemm(transA, transB, m, n, k, ap + aOff, p.lda, bp + bOff, p.ldb, cp + i * outMat, n);
      }
    });
  });
}

/// matmulGemm (Gemm.h): one 2-D product as matmulKernel runs it.
template <typename T>
void runMatmulGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const T *a,
                   int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      std::fill_n(c + i * ldc, n, T(0));
    return;
  }
  splitGemm(Gemm<T>{transA, transB, m, n, k, a, lda, b, ldb, c, ldc});
}

} // namespace

void matmulGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a,
                int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  runMatmulGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc);
}
void matmulGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double *a,
                int64_t lda, const double *b, int64_t ldb, double *c, int64_t ldc) {
  runMatmulGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc);
}

void registerMatmulKernels(KernelRegistry &r) { r.add("matmul", matmulKernel); }

} // namespace distc::runtime::kernels

namespace distc::runtime::kernels {

MatmulShape checkMatmul(KernelContext &ctx) {
  const Tensor &a = ctx.input(0);
  const Tensor &b = ctx.input(1);
  const Tensor &out = ctx.output(0);
  MatmulShape p;
  p.transA = ctx.intAttr("trans_a") != 0;
  p.transB = ctx.intAttr("trans_b") != 0;
  expectSameDtype(ctx, a, out, "a", "out");
  expectSameDtype(ctx, b, out, "b", "out");
  const int r = out.rank();
  if (r < 2 || a.rank() != r || b.rank() != r)
    ctx.fail("a " + formatShape(a.shape()) + ", b " + formatShape(b.shape()) + " and out " +
             formatShape(out.shape()) + " must have equal ranks >= 2");
  p.m = p.transA ? a.dim(r - 1) : a.dim(r - 2);
  p.k = p.transA ? a.dim(r - 2) : a.dim(r - 1);
  const int64_t kb = p.transB ? b.dim(r - 1) : b.dim(r - 2);
  p.n = p.transB ? b.dim(r - 2) : b.dim(r - 1);
  if (p.k != kb || out.dim(r - 2) != p.m || out.dim(r - 1) != p.n)
    ctx.fail("shapes do not multiply: a " + formatShape(a.shape()) + (p.transA ? "^T" : "") +
             " x b " + formatShape(b.shape()) + (p.transB ? "^T" : "") + " -> out " +
             formatShape(out.shape()));
  for (int d = 0; d < r - 2; ++d)
    if ((a.dim(d) != out.dim(d) && a.dim(d) != 1) || (b.dim(d) != out.dim(d) && b.dim(d) != 1))
      ctx.fail("batch dim " + std::to_string(d) + " of a " + formatShape(a.shape()) + " and b " +
               formatShape(b.shape()) + " does not broadcast to out " + formatShape(out.shape()));
  if (std::max({p.m, p.n, p.k}) > INT32_MAX)
    ctx.fail("matrix dimension exceeds the BLAS integer range");
  p.lda = a.dim(r - 1);
  p.ldb = b.dim(r - 1);
  p.aMat = a.dim(r - 2) * a.dim(r - 1);
  p.bMat = b.dim(r - 2) * b.dim(r - 1);
  p.outMat = p.m * p.n;
  p.batch = product(out.shape(), 0, r - 2);
  p.aPerBatch = a.numel() == p.batch * p.aMat;
  p.aSingle = a.numel() == p.aMat;
  p.bPerBatch = b.numel() == p.batch * p.bMat;
  p.bSingle = b.numel() == p.bMat;
  // Element strides of each batch dim in a and b (0 where broadcast).
  p.outBatchDims.assign(out.shape().begin(), out.shape().end() - 2);
  p.aStride.assign(r - 2, 0);
  p.bStride.assign(r - 2, 0);
  int64_t as = p.aMat, bs = p.bMat;
  for (int d = r - 3; d >= 0; --d) {
    p.aStride[d] = a.dim(d) == 1 ? 0 : as;
    p.bStride[d] = b.dim(d) == 1 ? 0 : bs;
    as *= a.dim(d);
    bs *= b.dim(d);
  }
  return p;
}

void MatmulShape::offsets(int64_t i, int64_t &aOffset, int64_t &bOffset) const {
  aOffset = bOffset = 0;
  int64_t rest = i;
  for (int d = static_cast<int>(outBatchDims.size()) - 1; d >= 0; --d) {
    const int64_t idx = rest % outBatchDims[d];
    rest /= outBatchDims[d];
    aOffset += idx * aStride[d];
    bOffset += idx * bStride[d];
  }
}

} // namespace distc::runtime::kernels
