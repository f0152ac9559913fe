//===- KernelUtils.h - Helpers shared by the CPU kernels --------*- C++ -*-===//

#ifndef DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H
#define DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H

#include "Parallel.h"
#include "distc/Runtime/Kernel.h"

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

/// Marks the next loop as free of memory dependences between iterations,
/// so the compiler vectorizes it without runtime alias checks. Valid for
/// element-wise loops over a call's operands: two operands are either the
/// same buffer (an in-place update, where element i is read before element
/// i is written) or disjoint storage, never partially overlapping, because
/// a view always covers its base's whole storage from the start.
#if defined(__clang__)
#define DISTC_VECTORIZE_LOOP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define DISTC_VECTORIZE_LOOP _Pragma("GCC ivdep")
#else
#define DISTC_VECTORIZE_LOOP
#endif

// Hot kernel loops are compiled twice on x86-64: for the baseline target
// (SSE2) and for AVX2 with FMA, chosen at run time (see vectorized()).
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define DISTC_X86_DISPATCH 1
#define DISTC_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define DISTC_X86_DISPATCH 0
#define DISTC_TARGET_AVX2
#endif
// Forces inlining of the calls in the statement it precedes (a helper's
// call of the lambda it was given, which is otherwise left out of line
// once the helper is inlined into both instances of a vectorized region).
#if defined(__clang__)
#define DISTC_INLINE_CALLS [[clang::always_inline]]
#else
#define DISTC_INLINE_CALLS
#endif
#if defined(__clang__) || defined(__GNUC__)
#define DISTC_FLATTEN __attribute__((flatten))
#define DISTC_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define DISTC_FLATTEN
#define DISTC_ALWAYS_INLINE inline
#endif

namespace distc::runtime::kernels {

/// Whether vectorized() runs its AVX2+FMA instance: the CPU has both and
/// setBaselineIsaOnly(true) was not called. Decided once per process from
/// the CPU, so a run's results do not depend on timing or scheduling.
bool useAvx2Fma();

/// Makes vectorized() use the baseline instance on any CPU (or, with
/// false, the best one again), so tests can compare the two.
void setBaselineIsaOnly(bool baselineOnly);

// The closure is taken by value: a local copy whose captured values the
// compiler can keep in registers (a loop storing bytes could otherwise
// alias the caller's closure and reload its captures every iteration).
template <typename F> DISTC_FLATTEN void runBaseline(F f) { f(); }
#if DISTC_X86_DISPATCH
template <typename F> DISTC_FLATTEN DISTC_TARGET_AVX2 void runAvx2(F f) { f(); }
#endif

/// Runs f(), the arithmetic of a kernel, compiled for AVX2 and FMA when
/// useAvx2Fma(), else for the baseline target. Code runs with a target's
/// instructions only when it is inlined into that instance: both are
/// flattened, which inlines f itself, and every helper f calls is declared
/// DISTC_ALWAYS_INLINE (flatten does not reach that deep in clang), down
/// to the lambdas a helper calls once. Keep error checks and strings
/// outside f.
/// Float results may differ between the two in the last bits (FMA
/// contraction); each is deterministic. Capture by value where a loop
/// stores bytes.
template <typename F> void vectorized(const F &f) {
#if DISTC_X86_DISPATCH
  if (useAvx2Fma())
    return runAvx2(f);
#endif
  runBaseline(f);
}

/// Minimum indices per piece of a loop split over threads (Parallel.h):
/// below this, handing work to a worker costs more than it saves.
constexpr int64_t kCheapGrain = int64_t(1) << 15;  // a few operations per element
constexpr int64_t kCostlyGrain = int64_t(1) << 12; // exp, erf, sqrt per element

/// body(begin, end) for pieces of [0, n) on the kernel threads
/// (parallelFor), each piece run through vectorized(). For loops where an
/// index's result depends only on that index.
template <typename F> void vectorizedFor(int64_t n, int64_t grain, const F &body) {
  parallelFor(n, grain, [&body](int64_t begin, int64_t end) {
    vectorized([&body, begin, end] { DISTC_INLINE_CALLS body(begin, end); });
  });
}

/// dst[i] = f(a[i]) for i < n; dst may be a.
template <typename T, typename A, typename F>
DISTC_ALWAYS_INLINE void mapElements(const A *a, T *dst, int64_t n, F f) {
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i) {
    DISTC_INLINE_CALLS dst[i] = f(a[i]);
  }
}

/// dst[i] = f(a[i], b[i]) for i < n; dst may be a or b.
template <typename T, typename A, typename B, typename F>
DISTC_ALWAYS_INLINE void mapElements(const A *a, const B *b, T *dst, int64_t n, F f) {
  DISTC_VECTORIZE_LOOP
  for (int64_t i = 0; i < n; ++i) {
    DISTC_INLINE_CALLS dst[i] = f(a[i], b[i]);
  }
}

/// dst[i] = f(a[i]) (or f(a[i], b[i])) as a plain loop, for functions
/// that call the C library (float64 exp and erf, tanh, log): such calls do
/// not vectorize, and DISTC_VECTORIZE_LOOP would only warn about it.
template <typename T, typename A, typename F>
DISTC_ALWAYS_INLINE void mapScalar(const A *a, T *dst, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) {
    DISTC_INLINE_CALLS dst[i] = f(a[i]);
  }
}
template <typename T, typename A, typename B, typename F>
DISTC_ALWAYS_INLINE void mapScalar(const A *a, const B *b, T *dst, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) {
    DISTC_INLINE_CALLS dst[i] = f(a[i], b[i]);
  }
}

/// `elements` of scratch kept from one kernel call to the next on the
/// calling thread: megabytes allocated per call came from fresh pages each
/// time (1-2 % of a ResNet-50 inference in page faults), and a step should
/// not call the allocator once its buffers are this large. The contents
/// are not kept. A thread holds the largest size it asked for, per `Tag`
/// (one per user, so that two users never share a buffer).
template <typename T, typename Tag = void> T *scratchBuffer(size_t elements) {
  thread_local std::unique_ptr<T[]> buffer;
  thread_local size_t capacity = 0;
  if (elements > capacity) {
    // The old buffer goes first: never both at once, and a failed
    // allocation leaves none rather than one smaller than `capacity`.
    buffer.reset();
    capacity = 0;
    buffer.reset(new T[elements]);
    capacity = elements;
  }
  return buffer.get();
}

/// mapElements over [0, n) split by vectorizedFor.
template <typename T, typename A, typename F>
void parallelMap(const A *a, T *dst, int64_t n, int64_t grain, F f) {
  vectorizedFor(n, grain,
                [=](int64_t b, int64_t e) { mapElements(a + b, dst + b, e - b, f); });
}
template <typename T, typename A, typename B, typename F>
void parallelMap(const A *a, const B *b, T *dst, int64_t n, int64_t grain, F f) {
  vectorizedFor(n, grain,
                [=](int64_t i, int64_t e) { mapElements(a + i, b + i, dst + i, e - i, f); });
}

/// Reductions of a contiguous row in double. Each keeps kLanes interleaved
/// partial results, combined in a fixed order at the end: the compiler
/// vectorizes the lanes (it may not reorder a single floating-point
/// accumulator), and the result is the same on every run.
constexpr int64_t kLanes = 8;

/// sum of a[i] for i < n.
template <typename T> DISTC_ALWAYS_INLINE double rowSum(const T *a, int64_t n) {
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k)
      lane[k] += double(a[i + k]);
  double sum = 0;
  for (int64_t k = 0; k < kLanes; ++k)
    sum += lane[k];
  for (; i < n; ++i)
    sum += double(a[i]);
  return sum;
}

/// sum of a[i] * b[i] for i < n.
template <typename T> DISTC_ALWAYS_INLINE double rowDot(const T *a, const T *b, int64_t n) {
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k)
      lane[k] += double(a[i + k]) * double(b[i + k]);
  double sum = 0;
  for (int64_t k = 0; k < kLanes; ++k)
    sum += lane[k];
  for (; i < n; ++i)
    sum += double(a[i]) * double(b[i]);
  return sum;
}

/// sum of (a[i] - mean)^2 for i < n.
template <typename T>
DISTC_ALWAYS_INLINE double rowSquaredDeviation(const T *a, double mean, int64_t n) {
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) {
      const double d = double(a[i + k]) - mean;
      lane[k] += d * d;
    }
  double sum = 0;
  for (int64_t k = 0; k < kLanes; ++k)
    sum += lane[k];
  for (; i < n; ++i) {
    const double d = double(a[i]) - mean;
    sum += d * d;
  }
  return sum;
}

/// sum of a[i] * (b[i] - bMean) for i < n: a dot product against b
/// centred first, so that a large mean of b cancels before the sum.
template <typename T>
DISTC_ALWAYS_INLINE double rowDotCentered(const T *a, const T *b, double bMean, int64_t n) {
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k)
      lane[k] += double(a[i + k]) * (double(b[i + k]) - bMean);
  double sum = 0;
  for (int64_t k = 0; k < kLanes; ++k)
    sum += lane[k];
  for (; i < n; ++i)
    sum += double(a[i]) * (double(b[i]) - bMean);
  return sum;
}

/// The largest a[i] for i < n, skipping NaNs; -inf if there is none.
template <typename T> DISTC_ALWAYS_INLINE T rowMax(const T *a, int64_t n) {
  T lane[kLanes];
  for (int64_t k = 0; k < kLanes; ++k)
    lane[k] = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k)
      lane[k] = a[i + k] > lane[k] ? a[i + k] : lane[k];
  T mx = lane[0];
  for (int64_t k = 1; k < kLanes; ++k)
    mx = lane[k] > mx ? lane[k] : mx;
  for (; i < n; ++i)
    mx = a[i] > mx ? a[i] : mx;
  return mx;
}

/// Storage types for the 16-bit floats, so they can be template arguments.
struct Half {
  uint16_t bits;
};
struct BFloat {
  uint16_t bits;
};

template <typename T> double toDouble(T v) {
  if constexpr (std::is_same_v<T, Half>)
    return halfToFloat(v.bits);
  else if constexpr (std::is_same_v<T, BFloat>)
    return bfloat16ToFloat(v.bits);
  else
    return static_cast<double>(v);
}

/// Converts between any two element types; to bool: nonzero -> 1. Integer
/// to integer conversions stay exact (no detour through double).
template <typename Dst, typename Src> Dst convertElement(Src v) {
  if constexpr (std::is_same_v<Dst, Half>)
    return Half{floatToHalf(static_cast<float>(toDouble(v)))};
  else if constexpr (std::is_same_v<Dst, BFloat>)
    return BFloat{floatToBfloat16(static_cast<float>(toDouble(v)))};
  else if constexpr (std::is_same_v<Src, Half> || std::is_same_v<Src, BFloat>)
    return convertElement<Dst>(toDouble(v));
  else if constexpr (std::is_same_v<Dst, bool>)
    return v != Src(0);
  else
    return static_cast<Dst>(v);
}

template <typename T> T fromDouble(double v) { return convertElement<T>(v); }

/// Calls f(T{}) with T the C++ type of `dtype`, for every dtype.
template <typename F> void dispatchAny(DType dtype, F &&f) {
  switch (dtype) {
  case DType::Bool:
    return f(bool{});
  case DType::Int8:
    return f(int8_t{});
  case DType::UInt8:
    return f(uint8_t{});
  case DType::Int16:
    return f(int16_t{});
  case DType::Int32:
    return f(int32_t{});
  case DType::Int64:
    return f(int64_t{});
  case DType::Float16:
    return f(Half{});
  case DType::BFloat16:
    return f(BFloat{});
  case DType::Float32:
    return f(float{});
  case DType::Float64:
    return f(double{});
  }
}

/// Calls f(T{}) for Float32/Float64; fails otherwise.
template <typename F> void dispatchFloat(const KernelContext &ctx, DType dtype, F &&f) {
  if (dtype == DType::Float32)
    return f(float{});
  if (dtype == DType::Float64)
    return f(double{});
  ctx.fail(std::string("unsupported dtype ") + dtypeName(dtype) + " (expected f32 or f64)");
}

/// Calls f(T{}) for Float32/Float64/Int32/Int64; fails otherwise.
template <typename F> void dispatchNumeric(const KernelContext &ctx, DType dtype, F &&f) {
  switch (dtype) {
  case DType::Float32:
    return f(float{});
  case DType::Float64:
    return f(double{});
  case DType::Int32:
    return f(int32_t{});
  case DType::Int64:
    return f(int64_t{});
  default:
    ctx.fail(std::string("unsupported dtype ") + dtypeName(dtype) +
             " (expected f32, f64, i32 or i64)");
  }
}

/// Calls f(T{}) for Int32/Int64 index tensors; fails otherwise naming `what`.
template <typename F>
void dispatchIndex(const KernelContext &ctx, DType dtype, const char *what, F &&f) {
  if (dtype == DType::Int32)
    return f(int32_t{});
  if (dtype == DType::Int64)
    return f(int64_t{});
  ctx.fail(std::string(what) + " has dtype " + dtypeName(dtype) + ", expected i32 or i64");
}

void expectSameDtype(const KernelContext &ctx, const Tensor &a, const Tensor &b, const char *aName,
                     const char *bName);
void expectShape(const KernelContext &ctx, const Tensor &t, const Shape &expected,
                 const char *what);
void expectNumel(const KernelContext &ctx, const Tensor &t, int64_t numel, const char *what);
/// Fails unless 0 <= axis < rank.
void expectAxis(const KernelContext &ctx, int64_t axis, int rank, const char *what = "axis");

/// Product of shape[begin, end).
int64_t product(const Shape &shape, int begin, int end);

/// layer_norm's view of x (forward and backward): split at the call's
/// `begin_norm_axis` into `rows` of `width` normalized elements. Fails for
/// an axis outside [1, rank].
struct NormRows {
  int64_t rows = 0;
  int64_t width = 0;
};
NormRows layerNormRows(const KernelContext &ctx, const Tensor &x);

std::string formatShape(const Shape &shape);

/// A tensor seen as [outer, axis extent, inner] around `axis`: element
/// (o, c, i) is at o * size * inner + c * inner + i.
struct AxisView {
  int64_t outer, size, inner;
};
AxisView aroundAxis(const Tensor &t, int axis);

/// Element strides of a row-major tensor of `shape`.
std::vector<int64_t> rowMajorStrides(const Shape &shape);

/// Row-major strides of `shape` with 0 for extent-1 dims: indexing with a
/// multi-index of a larger, equal-rank shape reads the NumPy-broadcast
/// element.
std::vector<int64_t> broadcastStrides(const Shape &shape);

/// Operands broadcast NumPy-style to an equal-rank `out`, described over a
/// coalesced shape: extent-1 dims are dropped and adjacent dims merged
/// where every operand either spans both or is broadcast along both. Same
/// shapes become one dim, [N, C] with [1, C] stays [N, C], so the innermost
/// row of a walk is as long as possible and each operand's step along it
/// is 1 (spanning) or 0 (broadcast). strides[k] are operand k's
/// broadcastStrides over `shape`.
struct BroadcastPlan {
  Shape shape;
  std::vector<std::vector<int64_t>> strides;
};
BroadcastPlan broadcastPlan(const Shape &out, const std::vector<const Shape *> &operands);

/// Walks `shape` in row-major order one innermost row at a time. For each of
/// N operands it tracks the offset `at[k] = base[k] + sum(idx[d] *
/// strides[k][d])` of the row's first element and calls
/// `row(flat, at, inner, step)`: `flat` is the row-major offset of that
/// element, the row has `inner` elements and operand k advances by
/// `step[k]` per element. A rank-0 shape is one row of one element; an
/// empty shape has no rows. Every strided kernel loop (broadcasting,
/// transpose, slice and their gradients) is this walk.
template <size_t N, typename F>
DISTC_ALWAYS_INLINE void forEachStridedRow(const Shape &shape, const std::array<std::vector<int64_t>, N> &strides,
                       std::array<int64_t, N> at, F &&row) {
  const int rank = int(shape.size());
  const int64_t n = shapeNumel(shape);
  std::array<int64_t, N> step{};
  if (n == 0)
    return;
  if (rank == 0) {
    DISTC_INLINE_CALLS row(int64_t(0), at, int64_t(1), step);
    return;
  }
  for (size_t k = 0; k < N; ++k)
    step[k] = strides[k][rank - 1];
  const int64_t inner = shape[rank - 1];
  std::vector<int64_t> idx(rank, 0);
  for (int64_t flat = 0; flat < n; flat += inner) {
    DISTC_INLINE_CALLS row(flat, at, inner, step);
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k)
          at[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        at[k] -= strides[k][d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

/// For every multi-index of `shape`: dst[dstOffset + idx . dstStrides] =
/// src[srcOffset + idx . srcStrides], moving raw elements of `elemSize`
/// bytes (any dtype). Gathers (transpose, slice, broadcast) use row-major
/// destination strides; scatters (slice_grad) row-major source strides.
void copyStrided(size_t elemSize, void *dst, const std::vector<int64_t> &dstStrides,
                 int64_t dstOffset, const void *src, const std::vector<int64_t> &srcStrides,
                 int64_t srcOffset, const Shape &shape);

/// The region of a tensor of shape `in` that the `slice` kernel reads, from
/// the call's `axes`, `starts` and `ends` attributes with Paddle's rules:
/// a negative start/end counts from the end, then both clamp to [0, dim];
/// the extent is max(0, end - start). Fails on attribute lists of unequal
/// length or an axis outside the rank.
struct SliceRegion {
  std::vector<int64_t> begin; // first index per dim
  Shape extent;               // the slice's shape
  int64_t offset;             // row-major offset of `begin` in `in`
};
SliceRegion sliceRegion(const KernelContext &ctx, const Shape &in);

/// The value of a one-element Float32/Float64 tensor (learning rates, beta
/// powers), independent of the dtype of the tensors it scales.
double floatScalar(const KernelContext &ctx, const Tensor &t, const char *what);

/// The labels of a softmax cross-entropy call (forward or backward), where
/// `probs` is the logits or softmax and `rows` the number of class vectors.
/// Soft labels must match `probs` in dtype and element count and are read
/// in place (an empty result); hard labels hold one Int32/Int64 class per
/// row and are returned as int64.
std::vector<int64_t> crossEntropyLabels(const KernelContext &ctx, const Tensor &label,
                                        const Tensor &probs, int64_t rows, bool soft,
                                        const char *probsName);

/// Fails unless hard label `target` of row `row` is a class in [0, classes).
void expectClassIndex(const KernelContext &ctx, int64_t target, int64_t row, int64_t classes);

/// One part of a row-sparse value (SelectedRows.cpp): `count` Int64 row
/// ids (-1: unused) and their value rows.
struct RowsPart {
  const int64_t *rows;
  const void *values;
  int64_t count;
};
/// The parts of a row-sparse value given as (rows, values) input pairs
/// from input `first` on, each values tensor `width` wide and of `like`'s
/// dtype.
std::vector<RowsPart> rowsParts(KernelContext &ctx, int first, int64_t width, const Tensor &like);
/// The distinct ids of `parts` below `height`, in the order they first
/// come, and (in `sums`, [ids, width]) the sum of each one's value rows,
/// added in order from zero, as rows_to_dense adds them. An id at or
/// above `height` is an error.
template <typename T>
std::vector<int64_t> sumRowsById(KernelContext &ctx, const std::vector<RowsPart> &parts,
                                 int64_t height, int64_t width, std::vector<T> &sums);

} // namespace distc::runtime::kernels

#endif // DISTC_LIB_RUNTIME_KERNELS_KERNELUTILS_H
