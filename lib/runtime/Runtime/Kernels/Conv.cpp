//===- Conv.cpp - conv2d, conv2d_transpose and their gradients ------------===//
//
// Convolutions as GEMMs through BLAS (the library Matmul.cpp uses) over
// im2col columns: per image and group, out [Mg, OH·OW] = filter [Mg, K] ·
// col [K, OH·OW] with K = Cg·kh·kw. The three products of a convolution
// are one core each — forward, backward-data (col2im of filterᵀ·dy) and
// backward-filter (dy·colᵀ) — and the kernels are compositions of them:
// conv2d_transpose is conv2d's backward-data, its gradient conv2d's forward
// and backward-filter with the roles of x and dout swapped. A pointwise
// convolution (1x1, stride 1, no padding) multiplies x itself, with no
// im2col, and other stride-1 convolutions run one GEMM per filter tap over
// zero-padded planes (PaddedPlanes below). NHWC operands are transposed to
// NCHW around the cores.
//
// Work is split into items (an image, a group and a block of columns or
// rows) that write disjoint parts of the result, on the kernel threads with
// OpenBLAS single-threaded as Matmul.cpp arranges it; the split depends
// only on the shapes and the thread count, so runs are reproducible.
// docs/runtime.md says why im2col over BLAS rather than oneDNN.
//
//===----------------------------------------------------------------------===//

#include "KernelUtils.h"
#include "Registration.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <mutex>
#include <vector>

// OpenBLAS's own thread control, when the BLAS is OpenBLAS.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace distc::runtime::kernels {
namespace {

/// Makes OpenBLAS single-threaded when the runtime splits GEMMs over its
/// own kernel threads (as Matmul.cpp does; idle OpenBLAS threads would spin
/// on the cores the other pieces run on).
void useOwnGemmThreads() {
  if (kernelThreads() == 1 || !openblas_set_num_threads)
    return;
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
}
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
          const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
              int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

/// One convolution in NCHW: input [n, c, h, w], filter [m, c/groups, kh,
/// kw], output [n, m, oh, ow].
struct ConvShape {
  int64_t n, c, h, w;
  int64_t m, oh, ow;
  int64_t groups, kh, kw, sh, sw, dh, dw, pt, pl;

  int64_t cg() const { return c / groups; }
  int64_t mg() const { return m / groups; }
  int64_t kk() const { return kh * kw; }
  int64_t k() const { return cg() * kk(); }
  int64_t inPlane() const { return h * w; }
  int64_t outPlane() const { return oh * ow; }
  /// 1x1, stride 1, no padding: im2col would copy the input.
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && oh == h && ow == w;
  }
};

/// The output positions [q0, q1) of a row of `len` positions starting at
/// input index `start` with step `step` whose input index is inside [0,
/// size).
DISTC_ALWAYS_INLINE void validRange(int64_t start, int64_t step, int64_t size, int64_t len,
                                    int64_t &q0, int64_t &q1) {
  q0 = start >= 0 ? 0 : (-start + step - 1) / step;
  q1 = start >= size ? 0 : (size - start + step - 1) / step;
  q0 = std::min(q0, len);
  q1 = std::clamp(q1, q0, len);
}

/// col[r - r0][p - p0] = x[c, y·sh − pt + i·dh, x·sw − pl + j·dw] (0
/// outside) for rows r = (c·kh + i)·kw + j in [r0, r1) and output
/// positions p = y·ow + x in [p0, p1); `x` is one group's channels.
///
/// Runs are a row of a small plane (8 to 56 elements), so the work per run
/// is kept to a few compares: the valid columns of a filter column j are
/// the same in every output row and are found once per row r (they take
/// divisions), and copies are inline loops, not calls to memmove.
template <typename T>
DISTC_ALWAYS_INLINE void im2colLoops(const ConvShape &s, const T *x, int64_t r0, int64_t r1,
                                     int64_t p0, int64_t p1, T *col) {
  const int64_t cols = p1 - p0;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t ch = r / s.kk(), i = (r / s.kw) % s.kh, j = r % s.kw;
    const T *plane = x + ch * s.inPlane();
    T *dst = col + (r - r0) * cols;
    // Output columns [q0, q1) of a whole row read inside the input row.
    const int64_t ix0 = -s.pl + j * s.dw;
    int64_t q0, q1;
    validRange(ix0, s.sw, s.w, s.ow, q0, q1);
    int64_t oy = p0 / s.ow, ox = p0 % s.ow;
    for (int64_t p = 0; p < cols; ++oy, ox = 0) {
      const int64_t run = std::min(s.ow - ox, cols - p);
      const int64_t iy = oy * s.sh - s.pt + i * s.dh;
      T *out = dst + p;
      p += run;
      if (iy < 0 || iy >= s.h) {
        for (int64_t q = 0; q < run; ++q)
          out[q] = T(0);
        continue;
      }
      // This run's valid part: output columns ox + [b, e).
      const int64_t b = std::clamp(q0 - ox, int64_t(0), run);
      const int64_t e = std::clamp(q1 - ox, b, run);
      for (int64_t q = 0; q < b; ++q)
        out[q] = T(0);
      // Indices, not a pointer at the run's first input: that may lie
      // before the plane.
      const T *row = plane + iy * s.w;
      const int64_t first = ix0 + ox * s.sw;
      if (s.sw == 1) {
        const T *src = row + first;
        DISTC_VECTORIZE_LOOP
        for (int64_t q = b; q < e; ++q)
          out[q] = src[q];
      } else {
        for (int64_t q = b; q < e; ++q)
          out[q] = row[first + q * s.sw];
      }
      for (int64_t q = e; q < run; ++q)
        out[q] = T(0);
    }
  }
}

/// im2colLoops compiled for the best vector instructions (vectorized()).
template <typename T>
void im2col(const ConvShape &s, const T *x, int64_t r0, int64_t r1, int64_t p0, int64_t p1,
            T *col) {
  vectorized([s, x, r0, r1, p0, p1, col] { im2colLoops(s, x, r0, r1, p0, p1, col); });
}

/// The adjoint of im2col over all output positions: adds col[r - r0][p] to
/// the input element it was read from, for rows [r0, r1) covering whole
/// channels. `x` is one group's channels.
template <typename T>
DISTC_ALWAYS_INLINE void col2imLoops(const ConvShape &s, const T *col, int64_t r0, int64_t r1,
                                     T *x) {
  const int64_t cols = s.outPlane();
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t ch = r / s.kk(), i = (r / s.kw) % s.kh, j = r % s.kw;
    T *plane = x + ch * s.inPlane();
    const T *src = col + (r - r0) * cols;
    const int64_t ix0 = -s.pl + j * s.dw;
    int64_t q0, q1;
    validRange(ix0, s.sw, s.w, s.ow, q0, q1);
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      const int64_t iy = oy * s.sh - s.pt + i * s.dh;
      if (iy < 0 || iy >= s.h)
        continue;
      T *row = plane + iy * s.w;
      const T *in = src + oy * s.ow;
      if (s.sw == 1) {
        T *dst = row + ix0;
        DISTC_VECTORIZE_LOOP
        for (int64_t q = q0; q < q1; ++q)
          dst[q] += in[q];
      } else {
        for (int64_t q = q0; q < q1; ++q)
          row[ix0 + q * s.sw] += in[q];
      }
    }
  }
}

/// col2imLoops compiled for the best vector instructions (vectorized()).
template <typename T> void col2im(const ConvShape &s, const T *col, int64_t r0, int64_t r1, T *x) {
  vectorized([s, col, r0, r1, x] { col2imLoops(s, col, r0, r1, x); });
}

/// Runs body(item, scratch) for every item in [0, items), in pieces of
/// consecutive items on the kernel threads, each piece with its own
/// scratch of `scratchSize` elements (allocated before the threads start:
/// nothing in them may throw). The scratch is not initialized: every core
/// writes its columns before the GEMM reads them.
template <typename T, typename F> void forItems(int64_t items, int64_t scratchSize, const F &body) {
  if (items <= 0)
    return;
  useOwnGemmThreads();
  const int64_t pieces = std::min<int64_t>(items, 2 * int64_t(kernelThreads()));
  T *base = scratchBuffer<T>(size_t(pieces * scratchSize));
  parallelFor(pieces, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p)
      for (int64_t i = p * items / pieces; i < (p + 1) * items / pieces; ++i)
        body(i, base + p * scratchSize);
  });
}

/// Scratch per piece is capped at about this many elements (2 MiB of f32,
/// 64 MiB in all with 16 threads; a piece holds at least one column or
/// channel), which still leaves GEMMs of a hundred columns or more for the
/// largest ResNet layers.
constexpr int64_t kMaxScratch = int64_t(1) << 19;

/// Splits `extent` into blocks so that `units` × blocks is about twice the
/// thread count, each block at least `minBlock` long and its scratch of
/// `perIndex` elements per index within kMaxScratch.
int64_t blockSize(int64_t extent, int64_t units, int64_t minBlock, int64_t perIndex) {
  const int64_t want =
      std::max<int64_t>(1, 2 * int64_t(kernelThreads()) / std::max<int64_t>(1, units));
  int64_t block = std::max<int64_t>((extent + want - 1) / want, std::min(minBlock, extent));
  block = std::min(block, std::max<int64_t>(1, kMaxScratch / std::max<int64_t>(1, perIndex)));
  return std::max<int64_t>(1, std::min(block, extent));
}

/// Blocks of a group's output channels for the forward convolution: one,
/// unless the images and position blocks are too few to keep the threads
/// busy (a batch of one through a late layer's 7x7 plane is a single
/// item); then enough blocks of at least 16 channels that they are. Each
/// such item recomputes its columns, which costs a GEMM's k·p of m·k·p.
int64_t channelBlocks(int64_t channels, int64_t otherItems) {
  const int64_t want = 2 * int64_t(kernelThreads());
  if (otherItems >= want)
    return 1;
  const int64_t blocks = (want + otherItems - 1) / otherItems;
  return std::max<int64_t>(1, std::min(blocks, channels / 16));
}

/// Stride-1 convolutions as kh·kw GEMMs, one per filter tap, over a
/// zero-padded copy of an image's planes instead of one GEMM over im2col
/// columns. The output is computed on the padded plane's width ("wide"
/// rows of wp positions, of which the first ow are the output), so tap
/// (i, j) reads the padded planes from offset i·dh·wp + j·dw as an
/// ordinary strided matrix: the copy is the input's size where im2col's
/// columns are kh·kw times it, and at 32 or 64 channels the taps' GEMMs
/// together run faster than im2col's single one with K = c·kh·kw
/// (docs/runtime.md has the measurements). Each wide row wastes wp − ow
/// positions, so narrow planes (7x7 with a 3x3 filter) keep im2col.
struct PaddedPlanes {
  int64_t hp, wp; // the padded plane: the input with its paddings
  int64_t wide;   // positions of the wide output, (oh − 1)·wp + ow

  explicit PaddedPlanes(const ConvShape &s)
      : hp(s.oh + s.dh * (s.kh - 1)), wp(s.ow + s.dw * (s.kw - 1)), wide((s.oh - 1) * wp + s.ow) {}
  int64_t size() const { return hp * wp; }
  /// Where tap t = i·kw + j starts reading in a padded plane.
  int64_t offset(const ConvShape &s, int64_t t) const {
    return (t / s.kw) * s.dh * wp + (t % s.kw) * s.dw;
  }
};

/// Largest scratch per piece of the padded-plane cores (in elements): a
/// group's padded planes and a block of wide output rows.
constexpr int64_t kMaxPaddedScratch = int64_t(1) << 21;

/// Whether `s` runs on the padded-plane cores: stride 1, not pointwise
/// (that multiplies x itself), the input inside the padded plane (the
/// paddings are not negative), at most a quarter of each wide row wasted,
/// and the scratch within kMaxPaddedScratch.
bool usesPaddedPlanes(const ConvShape &s) {
  if (s.sh != 1 || s.sw != 1 || s.pointwise() || s.oh < 1 || s.ow < 1 || s.n < 1)
    return false;
  const PaddedPlanes pp(s);
  if (s.pt < 0 || s.pl < 0 || s.h + s.pt > pp.hp || s.w + s.pl > pp.wp)
    return false;
  if (4 * pp.wp > 5 * s.ow)
    return false;
  return std::max(s.cg(), s.mg()) * (pp.size() + pp.wide) <= kMaxPaddedScratch;
}

/// The cg planes of one image's group at `x` (planes of h × w), zero
/// padded into `dst` (planes of hp × wp).
template <typename T>
void padPlanes(const ConvShape &s, const PaddedPlanes &pp, const T *x, T *dst) {
  for (int64_t c = 0; c < s.cg(); ++c) {
    T *plane = dst + c * pp.size();
    std::fill_n(plane, pp.size(), T(0));
    for (int64_t y = 0; y < s.h; ++y)
      std::copy_n(x + (c * s.h + y) * s.w, s.w, plane + (y + s.pt) * pp.wp + s.pl);
  }
}

/// `rows` planes of oh × ow at `y` as wide rows at `dst` (rows of
/// pp.wide), the positions past each row's ow zero: the backward cores
/// multiply every wide position, and a zero there adds nothing.
template <typename T>
void widenRows(const ConvShape &s, const PaddedPlanes &pp, const T *y, int64_t rows, T *dst) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      T *row = dst + r * pp.wide + oy * pp.wp;
      std::copy_n(y + (r * s.oh + oy) * s.ow, s.ow, row);
      if (oy + 1 < s.oh)
        std::fill_n(row + s.ow, pp.wp - s.ow, T(0));
    }
}

/// The filter [m, cg, kh, kw] as one [mg, cg] matrix per group and tap:
/// packed[(g·kk + t)·mg·cg + m·cg + c] = f[((g·mg + m)·cg + c)·kk + t].
template <typename T> const T *tapMatrices(const ConvShape &s, const T *f) {
  struct Taps {};
  const int64_t kk = s.kk(), mg = s.mg(), cg = s.cg();
  T *packed = scratchBuffer<T, Taps>(size_t(s.groups * kk * mg * cg));
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t m = 0; m < mg; ++m)
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t t = 0; t < kk; ++t)
          packed[((g * kk + t) * mg + m) * cg + c] = f[((g * mg + m) * cg + c) * kk + t];
  return packed;
}

/// convForward on the padded-plane cores: items are (image, group, block
/// of output channels); each sums its taps' GEMMs into wide rows and
/// keeps their first ow positions.
template <typename T>
void paddedForward(const ConvShape &s, const T *x, const T *f, T *y, const T *bias) {
  const PaddedPlanes pp(s);
  const T *taps = tapMatrices(s, f);
  const int64_t kk = s.kk(), mg = s.mg(), cg = s.cg(), plane = s.outPlane();
  const int64_t mBlocks = channelBlocks(mg, s.n * s.groups);
  const int64_t mBlock = (mg + mBlocks - 1) / mBlocks;
  forItems<T>(s.n * s.groups * mBlocks, cg * pp.size() + mBlock * pp.wide,
              [&](int64_t item, T *scratch) {
                const int64_t mb = item % mBlocks, g = (item / mBlocks) % s.groups,
                              n = item / mBlocks / s.groups;
                const int64_t m0 = mb * mg / mBlocks, m1 = (mb + 1) * mg / mBlocks;
                T *padded = scratch, *wide = scratch + cg * pp.size();
                padPlanes(s, pp, x + (n * s.c + g * cg) * s.inPlane(), padded);
                for (int64_t t = 0; t < kk; ++t)
                  gemm(false, false, m1 - m0, pp.wide, cg, taps + ((g * kk + t) * mg + m0) * cg, cg,
                       padded + pp.offset(s, t), pp.size(), t == 0 ? T(0) : T(1), wide, pp.wide);
                for (int64_t m = m0; m < m1; ++m) {
                  T *out = y + (n * s.m + g * mg + m) * plane;
                  const T b = bias ? bias[g * mg + m] : T(0);
                  for (int64_t oy = 0; oy < s.oh; ++oy) {
                    const T *row = wide + (m - m0) * pp.wide + oy * pp.wp;
                    for (int64_t ox = 0; ox < s.ow; ++ox)
                      out[oy * s.ow + ox] = bias ? row[ox] + b : row[ox];
                  }
                }
              });
}

/// convBackwardData on the padded-plane cores, the adjoint of
/// paddedForward: items are (image, group, block of input channels); each
/// adds every tap's filterᵀ · dy (wide rows) into padded planes at the
/// tap's offset and keeps their inside.
template <typename T> void paddedBackwardData(const ConvShape &s, const T *dy, const T *f, T *dx) {
  const PaddedPlanes pp(s);
  const T *taps = tapMatrices(s, f);
  const int64_t kk = s.kk(), mg = s.mg(), cg = s.cg();
  const int64_t cBlocks = channelBlocks(cg, s.n * s.groups);
  const int64_t cBlock = (cg + cBlocks - 1) / cBlocks;
  forItems<T>(s.n * s.groups * cBlocks, mg * pp.wide + cBlock * pp.size(),
              [&](int64_t item, T *scratch) {
                const int64_t cb = item % cBlocks, g = (item / cBlocks) % s.groups,
                              n = item / cBlocks / s.groups;
                const int64_t c0 = cb * cg / cBlocks, c1 = (cb + 1) * cg / cBlocks;
                T *wide = scratch, *padded = scratch + mg * pp.wide;
                widenRows(s, pp, dy + (n * s.m + g * mg) * s.outPlane(), mg, wide);
                std::fill_n(padded, (c1 - c0) * pp.size(), T(0));
                for (int64_t t = 0; t < kk; ++t)
                  gemm(true, false, c1 - c0, pp.wide, mg, taps + (g * kk + t) * mg * cg + c0, cg,
                       wide, pp.wide, T(1), padded + pp.offset(s, t), pp.size());
                for (int64_t c = c0; c < c1; ++c)
                  for (int64_t iy = 0; iy < s.h; ++iy)
                    std::copy_n(padded + (c - c0) * pp.size() + (iy + s.pt) * pp.wp + s.pl, s.w,
                                dx + ((n * s.c + g * cg + c) * s.h + iy) * s.w);
              });
}

/// convBackwardFilter on the padded-plane cores: df's tap t is Σ over
/// images of dy (wide rows) · the padded planes from the tap's offsetᵀ.
/// Items are (group, block of images), each summing its images in order
/// into its own partial sums; the partials are then added in item order,
/// so the result depends on the shapes and the thread count only.
template <typename T>
void paddedBackwardFilter(const ConvShape &s, const T *x, const T *dy, T *df) {
  const PaddedPlanes pp(s);
  const int64_t kk = s.kk(), mg = s.mg(), cg = s.cg();
  const int64_t imageBlocks = std::min<int64_t>(s.n, 2 * int64_t(kernelThreads()));
  const int64_t items = s.groups * imageBlocks, partialSize = kk * mg * cg;
  struct Partials {};
  T *partials = scratchBuffer<T, Partials>(size_t(items * partialSize));
  forItems<T>(items, cg * pp.size() + mg * pp.wide, [&](int64_t item, T *scratch) {
    const int64_t b = item % imageBlocks, g = item / imageBlocks;
    T *padded = scratch, *wide = scratch + cg * pp.size();
    T *partial = partials + item * partialSize;
    for (int64_t n = b * s.n / imageBlocks; n < (b + 1) * s.n / imageBlocks; ++n) {
      const bool first = n == b * s.n / imageBlocks;
      padPlanes(s, pp, x + (n * s.c + g * cg) * s.inPlane(), padded);
      widenRows(s, pp, dy + (n * s.m + g * mg) * s.outPlane(), mg, wide);
      for (int64_t t = 0; t < kk; ++t)
        gemm(false, true, mg, cg, pp.wide, wide, pp.wide, padded + pp.offset(s, t), pp.size(),
             first ? T(0) : T(1), partial + t * mg * cg, cg);
    }
  });
  parallelFor(s.groups * mg, 1, [&](int64_t begin, int64_t end) {
    for (int64_t gm = begin; gm < end; ++gm) {
      const int64_t g = gm / mg, m = gm % mg;
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t t = 0; t < kk; ++t) {
          T sum = T(0);
          for (int64_t b = 0; b < imageBlocks; ++b)
            sum += partials[(g * imageBlocks + b) * partialSize + (t * mg + m) * cg + c];
          df[(gm * cg + c) * kk + t] = sum;
        }
    }
  });
}

/// y = conv(x, filter) (+ bias[m] on channel m when `bias` is not null):
/// items are (image, group, block of output positions, block of output
/// channels).
template <typename T>
void convForward(const ConvShape &s, const T *x, const T *f, T *y, const T *bias = nullptr) {
  if (usesPaddedPlanes(s))
    return paddedForward(s, x, f, y, bias);
  const int64_t plane = s.outPlane(), k = s.k();
  const int64_t block = blockSize(plane, s.n * s.groups, 256, k);
  const int64_t blocks = (plane + block - 1) / block;
  const int64_t mBlocks = channelBlocks(s.mg(), s.n * s.groups * blocks);
  const bool pointwise = s.pointwise();
  forItems<T>(
      s.n * s.groups * blocks * mBlocks, pointwise ? 0 : k * block, [&](int64_t item, T *col) {
        const int64_t mb = item % mBlocks, rest = item / mBlocks;
        const int64_t b = rest % blocks, g = (rest / blocks) % s.groups,
                      n = rest / blocks / s.groups;
        const int64_t p0 = b * block, p1 = std::min(plane, p0 + block);
        const int64_t m0 = mb * s.mg() / mBlocks, m1 = (mb + 1) * s.mg() / mBlocks;
        const T *xg = x + (n * s.c + g * s.cg()) * s.inPlane();
        T *yg = y + (n * s.m + g * s.mg() + m0) * plane;
        const T *fg = f + (g * s.mg() + m0) * k;
        if (pointwise) {
          gemm(false, false, m1 - m0, p1 - p0, k, fg, k, xg + p0, s.inPlane(), T(0), yg + p0,
               plane);
        } else {
          im2col(s, xg, 0, k, p0, p1, col);
          gemm(false, false, m1 - m0, p1 - p0, k, fg, k, col, p1 - p0, T(0), yg + p0, plane);
        }
        if (bias)
          for (int64_t mi = m0; mi < m1; ++mi) {
            const T b = bias[g * s.mg() + mi];
            T *row = yg + (mi - m0) * plane;
            DISTC_VECTORIZE_LOOP
            for (int64_t p = p0; p < p1; ++p)
              row[p] += b;
          }
      });
}

/// dbias[m] = Σ over images and positions of dy[n, m], summed in double.
template <typename T> void convBackwardBias(const ConvShape &s, const T *dy, T *dbias) {
  const int64_t plane = s.outPlane();
  parallelFor(s.m, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, s.n * plane)),
              [=](int64_t begin, int64_t end) {
                for (int64_t m = begin; m < end; ++m) {
                  double sum = 0;
                  for (int64_t n = 0; n < s.n; ++n)
                    sum += rowSum(dy + (n * s.m + m) * plane, plane);
                  dbias[m] = T(sum);
                }
              });
}

/// dx = the adjoint of conv applied to dy (dx is overwritten): items are
/// (image, group, block of input channels), each writing its channels.
template <typename T> void convBackwardData(const ConvShape &s, const T *dy, const T *f, T *dx) {
  if (usesPaddedPlanes(s))
    return paddedBackwardData(s, dy, f, dx);
  const int64_t plane = s.outPlane(), k = s.k(), kk = s.kk();
  const int64_t block = blockSize(s.cg(), s.n * s.groups, 1, kk * plane);
  const int64_t blocks = (s.cg() + block - 1) / block;
  const bool pointwise = s.pointwise();
  forItems<T>(s.n * s.groups * blocks, pointwise ? 0 : block * kk * plane,
              [&](int64_t item, T *col) {
                const int64_t b = item % blocks, g = (item / blocks) % s.groups,
                              n = item / blocks / s.groups;
                const int64_t c0 = b * block, c1 = std::min(s.cg(), c0 + block);
                T *dxg = dx + (n * s.c + g * s.cg()) * s.inPlane();
                const T *dyg = dy + (n * s.m + g * s.mg()) * plane;
                const T *fg = f + g * s.mg() * k;
                // Rows [c0·kk, c1·kk) of filterᵀ · dy.
                if (pointwise) {
                  gemm(true, false, c1 - c0, plane, s.mg(), fg + c0, k, dyg, plane, T(0),
                       dxg + c0 * s.inPlane(), s.inPlane());
                  return;
                }
                gemm(true, false, (c1 - c0) * kk, plane, s.mg(), fg + c0 * kk, k, dyg, plane, T(0),
                     col, plane);
                std::fill_n(dxg + c0 * s.inPlane(), (c1 - c0) * s.inPlane(), T(0));
                col2im(s, col, c0 * kk, c1 * kk, dxg);
              });
}

/// df = Σ_n dy_n · col(x_n)ᵀ: items are (group, block of filter columns),
/// each summing over the images in order.
template <typename T> void convBackwardFilter(const ConvShape &s, const T *x, const T *dy, T *df) {
  if (usesPaddedPlanes(s))
    return paddedBackwardFilter(s, x, dy, df);
  const int64_t plane = s.outPlane(), k = s.k();
  const bool pointwise = s.pointwise();
  const int64_t block = blockSize(k, s.groups, pointwise ? 1 : 16, plane);
  const int64_t blocks = (k + block - 1) / block;
  forItems<T>(s.groups * blocks, pointwise ? 0 : block * plane, [&](int64_t item, T *col) {
    const int64_t b = item % blocks, g = item / blocks;
    const int64_t r0 = b * block, r1 = std::min(k, r0 + block);
    T *dfg = df + g * s.mg() * k + r0;
    if (s.n == 0) {
      for (int64_t mi = 0; mi < s.mg(); ++mi)
        std::fill_n(dfg + mi * k, r1 - r0, T(0));
      return;
    }
    for (int64_t n = 0; n < s.n; ++n) {
      const T *xg = x + (n * s.c + g * s.cg()) * s.inPlane();
      const T *dyg = dy + (n * s.m + g * s.mg()) * plane;
      // Pointwise: rows of the filter are channels, so x's rows serve.
      const T *b2 = col;
      if (pointwise)
        b2 = xg + r0 * s.inPlane();
      else
        im2col(s, xg, r0, r1, 0, plane, col);
      gemm(false, true, s.mg(), r1 - r0, plane, dyg, plane, b2, plane, n == 0 ? T(0) : T(1), dfg,
           k);
    }
  });
}

/// [n, h, w, c] -> [n, c, h, w] (or back with `toChannelLast`).
template <typename T>
void relayout(const T *src, T *dst, int64_t n, int64_t c, int64_t plane, bool toChannelLast) {
  parallelFor(n * c, std::max<int64_t>(1, kCheapGrain / std::max<int64_t>(1, plane)),
              [=](int64_t begin, int64_t end) {
                for (int64_t nc = begin; nc < end; ++nc) {
                  const int64_t img = nc / c, ch = nc % c;
                  const int64_t base = img * c * plane;
                  for (int64_t p = 0; p < plane; ++p) {
                    const int64_t first = base + ch * plane + p, last = base + p * c + ch;
                    if (toChannelLast)
                      dst[last] = src[first];
                    else
                      dst[first] = src[last];
                  }
                }
              });
}

/// The attributes of a convolution kernel call.
struct ConvAttrs {
  int64_t groups, sh, sw, dh, dw, pt, pb, pl, pr;
  bool nhwc;
};

ConvAttrs readConvAttrs(const KernelContext &ctx) {
  std::vector<int64_t> strides = ctx.intsAttr("strides"), dilations = ctx.intsAttr("dilations"),
                       paddings = ctx.intsAttr("paddings");
  if (strides.size() != 2 || dilations.size() != 2 || paddings.size() != 4)
    ctx.fail("strides and dilations need 2 values, paddings 4");
  ConvAttrs a{
      ctx.intAttr("groups"), strides[0],  strides[1],  dilations[0], dilations[1],
      paddings[0],           paddings[1], paddings[2], paddings[3],  ctx.intAttr("nhwc") != 0};
  if (a.groups < 1 || a.sh < 1 || a.sw < 1 || a.dh < 1 || a.dw < 1)
    ctx.fail("groups, strides and dilations must be positive");
  if (a.pt < 0 || a.pb < 0 || a.pl < 0 || a.pr < 0)
    ctx.fail("paddings must not be negative");
  return a;
}

/// [n, c, h, w] of a rank-4 activation in the call's layout.
std::array<int64_t, 4> nchwDims(const KernelContext &ctx, const Tensor &t, bool nhwc,
                                const char *what) {
  if (t.rank() != 4)
    ctx.fail(std::string(what) + " must be 4-D, got " + t.typeString());
  if (nhwc)
    return {t.dim(0), t.dim(3), t.dim(1), t.dim(2)};
  return {t.dim(0), t.dim(1), t.dim(2), t.dim(3)};
}

/// The convolution a call describes: `input` is the convolution's input
/// (x of conv2d, out of conv2d_transpose), `output` its output.
ConvShape convShape(const KernelContext &ctx, const ConvAttrs &a, const Tensor &input,
                    const char *inputName, const Tensor &filter, const Tensor &output,
                    const char *outputName, bool transposed) {
  const auto in = nchwDims(ctx, input, a.nhwc, inputName);
  const auto out = nchwDims(ctx, output, a.nhwc, outputName);
  if (filter.rank() != 4)
    ctx.fail("filter must be 4-D, got " + filter.typeString());
  ConvShape s{in[0],         in[1],         in[2], in[3], out[1], out[2], out[3], a.groups,
              filter.dim(2), filter.dim(3), a.sh,  a.sw,  a.dh,   a.dw,   a.pt,   a.pl};
  if (out[0] != in[0])
    ctx.fail(std::string(inputName) + " and " + outputName + " differ in batch size");
  if (s.c % s.groups != 0 || s.m % s.groups != 0)
    ctx.fail("channels " + std::to_string(s.c) + " and " + std::to_string(s.m) +
             " must be multiples of groups " + std::to_string(s.groups));
  if (filter.dim(0) != s.m || filter.dim(1) * s.groups != s.c)
    ctx.fail("filter " + filter.typeString() + " does not fit " + std::to_string(s.c) +
             " input and " + std::to_string(s.m) + " output channels in " +
             std::to_string(s.groups) + " groups");
  if (s.kh < 1 || s.kw < 1)
    ctx.fail("filter " + filter.typeString() + " has an empty window");
  if (!transposed) {
    // conv2d: out's size is the convolution's.
    for (int i = 0; i < 2; ++i) {
      const int64_t size = i == 0 ? s.h : s.w;
      const int64_t pads = i == 0 ? a.pt + a.pb : a.pl + a.pr;
      const int64_t k = i == 0 ? s.kh : s.kw, d = i == 0 ? s.dh : s.dw;
      const int64_t st = i == 0 ? s.sh : s.sw;
      const int64_t span = size + pads - (d * (k - 1) + 1);
      const int64_t expected = span < 0 ? -1 : span / st + 1;
      if ((i == 0 ? s.oh : s.ow) != expected)
        ctx.fail(std::string(outputName) + " " + output.typeString() +
                 " does not match the convolution of " + inputName + " " + input.typeString() +
                 " (expected spatial size " + std::to_string(expected) + ")");
    }
  }
  const int64_t limit = INT32_MAX;
  if (s.k() > limit || s.outPlane() > limit || s.inPlane() > limit || s.m > limit)
    ctx.fail("convolution dimension exceeds the BLAS integer range");
  return s;
}

/// Storage for an operand in NCHW: the tensor itself, or a transposed copy.
template <typename T> struct Nchw {
  std::vector<T> copy;
  const T *data;
};

template <typename T> Nchw<T> asNchw(const Tensor &t, bool nhwc) {
  Nchw<T> v{{}, t.data<T>()};
  if (!nhwc)
    return v;
  v.copy.resize(size_t(t.numel()));
  relayout(t.data<T>(), v.copy.data(), t.dim(0), t.dim(3), t.dim(1) * t.dim(2), false);
  v.data = v.copy.data();
  return v;
}

/// Writes `nchw` (already computed) into `t` in its layout.
template <typename T> void storeLayout(const std::vector<T> &nchw, Tensor &t) {
  relayout(nchw.data(), t.data<T>(), t.dim(0), t.dim(3), t.dim(1) * t.dim(2), true);
}

/// Runs `body(dst)` writing an NCHW result into `t`: directly, or into a
/// scratch copy relayouted into `t` afterwards.
template <typename T, typename F> void writeNchw(Tensor &t, bool nhwc, const F &body) {
  if (!nhwc) {
    body(t.data<T>());
    return;
  }
  std::vector<T> tmp(size_t(t.numel()));
  body(tmp.data());
  storeLayout(tmp, t);
}

void conv2dKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0), &filter = ctx.input(1);
  const Tensor *bias = ctx.optionalInput(2);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, filter, x, "filter", "x");
  expectSameDtype(ctx, out, x, "out", "x");
  const ConvAttrs a = readConvAttrs(ctx);
  const ConvShape s = convShape(ctx, a, x, "x", filter, out, "out", false);
  if (bias) {
    expectSameDtype(ctx, *bias, x, "bias", "x");
    expectNumel(ctx, *bias, s.m, "bias");
  }
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Nchw<T> xin = asNchw<T>(x, a.nhwc);
    const T *b = bias ? bias->data<T>() : nullptr;
    writeNchw<T>(out, a.nhwc, [&](T *y) { convForward(s, xin.data, filter.data<T>(), y, b); });
  });
}

void conv2dTransposeKernel(KernelContext &ctx) {
  const Tensor &x = ctx.input(0), &filter = ctx.input(1);
  Tensor &out = ctx.output(0);
  expectSameDtype(ctx, filter, x, "filter", "x");
  expectSameDtype(ctx, out, x, "out", "x");
  const ConvAttrs a = readConvAttrs(ctx);
  // The convolution whose adjoint this is maps out to x.
  const ConvShape s = convShape(ctx, a, out, "out", filter, x, "x", true);
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Nchw<T> xin = asNchw<T>(x, a.nhwc);
    writeNchw<T>(out, a.nhwc, [&](T *y) { convBackwardData(s, xin.data, filter.data<T>(), y); });
  });
}

/// conv2d_grad and conv2d_transpose_grad: `transposed` swaps the roles of
/// x and dout in the underlying convolution.
void convGrad(KernelContext &ctx, bool transposed) {
  const Tensor &x = ctx.input(0), &filter = ctx.input(1), &dout = ctx.input(2);
  Tensor *dx = ctx.optionalOutput(0);
  Tensor *dfilter = ctx.optionalOutput(1);
  Tensor *dbias = ctx.numOutputs() > 2 ? ctx.optionalOutput(2) : nullptr;
  expectSameDtype(ctx, filter, x, "filter", "x");
  expectSameDtype(ctx, dout, x, "dout", "x");
  if (dx) {
    expectSameDtype(ctx, *dx, x, "dx", "x");
    expectShape(ctx, *dx, x.shape(), "dx");
  }
  if (dfilter) {
    expectSameDtype(ctx, *dfilter, x, "dfilter", "x");
    expectShape(ctx, *dfilter, filter.shape(), "dfilter");
  }
  const ConvAttrs a = readConvAttrs(ctx);
  const ConvShape s = transposed ? convShape(ctx, a, dout, "dout", filter, x, "x", true)
                                 : convShape(ctx, a, x, "x", filter, dout, "dout", false);
  if (dbias) {
    expectSameDtype(ctx, *dbias, x, "dbias", "x");
    expectNumel(ctx, *dbias, s.m, "dbias");
  }
  dispatchFloat(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Nchw<T> xin = asNchw<T>(x, a.nhwc), dyin = asNchw<T>(dout, a.nhwc);
    const T *f = filter.data<T>();
    if (dx) {
      writeNchw<T>(*dx, a.nhwc, [&](T *d) {
        if (transposed)
          convForward(s, dyin.data, f, d);
        else
          convBackwardData(s, dyin.data, f, d);
      });
    }
    if (dbias)
      convBackwardBias(s, dyin.data, dbias->data<T>());
    if (dfilter) {
      if (transposed)
        convBackwardFilter(s, dyin.data, xin.data, dfilter->data<T>());
      else
        convBackwardFilter(s, xin.data, dyin.data, dfilter->data<T>());
    }
  });
}

void conv2dGradKernel(KernelContext &ctx) { convGrad(ctx, false); }
void conv2dTransposeGradKernel(KernelContext &ctx) { convGrad(ctx, true); }

} // namespace

void registerConvKernels(KernelRegistry &r) {
  r.add("conv2d", conv2dKernel);
  r.add("conv2d_transpose", conv2dTransposeKernel);
  r.add("conv2d_grad", conv2dGradKernel);
  r.add("conv2d_transpose_grad", conv2dTransposeGradKernel);
}

} // namespace distc::runtime::kernels
