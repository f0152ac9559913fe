//===- Gemm.h - The matmul kernel's GEMM, for other kernels -----*- C++ -*-===//
//
// Kernels that compute a product the matmul kernel could compute (the GEMM
// epilogue kernels) call the GEMM matmul runs, with its BLAS call and its
// split over the kernel threads (Matmul.cpp), so that their products equal
// matmul's bit for bit for the same operands and thread count.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_GEMM_H
#define DISTC_LIB_RUNTIME_KERNELS_GEMM_H

#include <cstdint>

namespace distc::runtime::kernels {

/// C [m, n] (row stride ldc) = op(A) op(B), A and B row-major with leading
/// dimensions lda and ldb, op transposing when transA / transB is set.
/// k == 0 fills C with zeros; an empty C is left alone. The dimensions
/// must fit BLAS's int (the caller checks).
void matmulGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a,
                int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc);
void matmulGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double *a,
                int64_t lda, const double *b, int64_t ldb, double *c, int64_t ldc);

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_GEMM_H
