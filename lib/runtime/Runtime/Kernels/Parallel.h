//===- Parallel.h - Splitting a kernel's loop over threads ------*- C++ -*-===//
//
// Large element-wise and row-wise kernel loops run on several threads: the
// calling thread and a small pool of workers take consecutive pieces of the
// index range from a shared counter until none is left, so a worker that is
// slow to wake or shares its core (OpenBLAS's idle threads spin between
// GEMMs) simply takes fewer pieces. Only loops where each index's result
// depends on nothing but that index are split this way, so results are
// bitwise the same for any thread count and any assignment of pieces.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_PARALLEL_H
#define DISTC_LIB_RUNTIME_KERNELS_PARALLEL_H

#include <cstdint>

namespace distc::runtime::kernels {

/// Threads for kernel loops: DISTC_NUM_THREADS, else OMP_NUM_THREADS (the
/// convention for a CPU library's own parallel loops, which benchmarks set
/// together with OPENBLAS_NUM_THREADS), else the available cores; at least
/// 1. Read once per process.
int kernelThreads();

/// Sets the thread count for later kernel loops (tests; 0 restores the
/// environment's).
void setKernelThreads(int threads);

/// The piece size parallelFor uses for `n` indices of at least `grain`
/// each on `threads` threads: a few pieces per thread; an element loop's
/// pieces are multiples of 16 (separate cache lines), a coarse loop's
/// (fewer than 16 indices a piece) stay as they are, so that all threads
/// share it.
int64_t pieceSize(int64_t n, int64_t grain, int threads);

using RangeFn = void (*)(const void *context, int64_t begin, int64_t end);
void parallelForRanges(int64_t n, int64_t grain, RangeFn fn, const void *context);

/// Calls body(begin, end) for consecutive pieces covering [0, n), each of
/// at least `grain` indices (the last may be shorter), on kernelThreads()
/// threads. Runs body(0, n) on the calling thread when n < 2 * grain, with
/// one thread, or when another parallelFor is in progress (a second Session
/// on another thread, or a nested call). If a piece throws, the other
/// pieces still run and the first exception is rethrown to the caller.
template <typename F> void parallelFor(int64_t n, int64_t grain, const F &body) {
  if (n <= 0)
    return;
  if (n < 2 * grain || kernelThreads() == 1) {
    body(int64_t(0), n);
    return;
  }
  parallelForRanges(
      n, grain,
      [](const void *context, int64_t begin, int64_t end) {
        (*static_cast<const F *>(context))(begin, end);
      },
      &body);
}

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_PARALLEL_H
