//===- FastPathKernelTest.cpp - vectorized, threaded kernel paths ---------===//
//
// The float32 kernels run vectorized loops (VectorMath.h's exp and normal
// CDF, coalesced broadcasting, row and column reductions), compiled for the
// baseline target and for AVX2+FMA, split over threads. These tests check
// the math functions on dense grids, every fast path against float64
// references on random shapes with both instruction sets, that a kernel's
// result does not depend on the number of threads, and that a Session
// reusing its buffers across runs computes what fresh buffers would.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "../../lib/runtime/Runtime/Kernels/KernelUtils.h"
#include "../../lib/runtime/Runtime/Kernels/VectorMath.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace distc::testing;
namespace kernels = distc::runtime::kernels;

namespace {

std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = elementAt(t, i);
  return v;
}

std::string formatShapeForTest(const Shape &shape) { return kernels::formatShape(shape); }

bool bitwiseEqual(const Tensor &a, const Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

/// Runs `body` once per instruction set the kernels can use here: the
/// baseline, and AVX2+FMA when this CPU has it.
template <typename F> void forEachIsa(F body) {
  kernels::setBaselineIsaOnly(true);
  {
    SCOPED_TRACE("baseline instruction set");
    body();
  }
  kernels::setBaselineIsaOnly(false);
  if (kernels::useAvx2Fma()) {
    SCOPED_TRACE("AVX2+FMA");
    body();
  }
}

/// Sets the kernel thread count for a scope.
//===----------------------------------------------------------------------===//
// VectorMath.h
//===----------------------------------------------------------------------===//

TEST(Parallel, CoarseLoopsAreSharedByEveryThread) {
  // A convolution's few items (images, GEMM blocks) must not become one
  // piece: 4 items on 2 threads are 4 pieces of 1.
  EXPECT_EQ(kernels::pieceSize(4, 1, 2), 1);
  EXPECT_EQ(kernels::pieceSize(20, 1, 2), 3);
  EXPECT_EQ(kernels::pieceSize(64, 1, 16), 1);
  // Element loops: a few pieces per thread, multiples of 16.
  EXPECT_EQ(kernels::pieceSize(1000, 1, 2), 128);
  EXPECT_EQ(kernels::pieceSize(1 << 20, 1, 16), 16384);
  // The grain is a lower bound.
  EXPECT_EQ(kernels::pieceSize(100, 40, 2), 48);
}

TEST(VectorMath, ExpWithinTwoUlpOverItsRange) {
  double worst = 0;
  for (double x = -87.3; x <= 88.7; x += 1.7e-4) {
    const float xf = float(x);
    const double ref = std::exp(double(xf));
    worst = std::max(worst, std::abs(double(kernels::vmath::exp(xf)) - ref) / ref);
  }
  EXPECT_LT(worst, 2 * 5.97e-8); // 2 ulp of float
  EXPECT_EQ(kernels::vmath::exp(-200.0f), 0.0f);
  EXPECT_EQ(kernels::vmath::exp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(kernels::vmath::exp(100.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(kernels::vmath::exp(0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(kernels::vmath::exp(std::nanf(""))));
}

TEST(VectorMath, NormalCdfRelativeErrorIncludingTheTail) {
  double worst = 0;
  for (double x = -13; x <= 13; x += 1e-4) {
    const float xf = float(x);
    const double ref = 0.5 * std::erfc(-double(xf) / std::sqrt(2.0));
    worst = std::max(worst, std::abs(double(kernels::vmath::normalCdf(xf)) - ref) / ref);
  }
  EXPECT_LT(worst, 5e-7);
  EXPECT_EQ(kernels::vmath::normalCdf(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(kernels::vmath::normalCdf(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_TRUE(std::isnan(kernels::vmath::normalCdf(std::nanf(""))));
}

TEST(VectorMath, PdfAndSigmoid) {
  for (double x = -20; x <= 20; x += 1e-3) {
    const float xf = float(x);
    const double pdf = std::exp(-0.5 * double(xf) * double(xf)) / std::sqrt(2 * M_PI);
    EXPECT_NEAR(kernels::vmath::normalPdf(xf), pdf, 3e-7 * pdf + 1e-38);
    const double sig = 1 / (1 + std::exp(-double(xf)));
    EXPECT_NEAR(kernels::vmath::sigmoid(xf), sig, 3e-7 * sig + 1e-38);
  }
}

//===----------------------------------------------------------------------===//
// Element-wise kernels
//===----------------------------------------------------------------------===//

double geluRef(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double geluGradRef(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
}
// The tanh form through 0.5 (1 + tanh(u)) = s = sigmoid(2u) and
// 0.5 (1 - tanh(u)^2) = 2 s (1 - s), which do not cancel to 0 for large
// negative x even in double.
double geluTanhRef(double x) {
  const double u = std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1 + std::exp(-2 * u));
}
double geluTanhGradRef(double x) {
  const double k = std::sqrt(2 / M_PI), c = 0.044715;
  const double s = 1 / (1 + std::exp(-2 * k * (x + c * x * x * x)));
  return s + 2 * x * s * (1 - s) * k * (1 + 3 * c * x * x);
}

TEST(FastPathKernels, Float32ActivationsAgainstFloat64) {
  std::mt19937_64 rng(500);
  // Odd length: vector body and scalar remainder; wide range: the tails.
  Tensor x = randomTensor(DType::Float32, {1031}, rng, -12, 12);
  Tensor g = randomTensor(DType::Float32, {1031}, rng, -1, 1);
  // atol: gelu_tanh's argument u = k (x + 0.044715 x^3) rounds in float32,
  // a relative error of about |u| * 1e-7 in its far negative tail, where
  // the values are tiny.
  struct Case {
    const char *op;
    double (*f)(double), (*df)(double);
    double atol;
  } cases[] = {{"gelu", geluRef, geluGradRef, 1e-30},
               {"gelu_tanh", geluTanhRef, geluTanhGradRef, 1e-9},
               {"exp", [](double v) { return std::exp(v); }, nullptr, 1e-30},
               {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, nullptr, 1e-30}};
  forEachIsa([&] {
    for (const Case &c : cases) {
      SCOPED_TRACE(c.op);
      std::vector<double> ref, dref;
      for (int64_t i = 0; i < x.numel(); ++i) {
        ref.push_back(c.f(elementAt(x, i)));
        if (c.df)
          dref.push_back(c.df(elementAt(x, i)) * elementAt(g, i));
      }
      std::vector<Tensor> out;
      ASSERT_TRUE(
          runKernel("unary", {x}, {{DType::Float32, {1031}}}, {AttrDesc::ofString("op", c.op)}, out)
              .ok());
      expectClose(out[0], ref, 1e-6, c.atol);
      if (!c.df)
        continue;
      ASSERT_TRUE(runKernel("unary_grad", {x, g}, {{DType::Float32, {1031}}},
                            {AttrDesc::ofString("op", c.op)}, out)
                      .ok());
      // The derivative crosses zero (near x = -0.75): absolute there.
      expectClose(out[0], dref, 2e-6, 1e-7);
    }
  });
}

/// A random shape of rank 1-4 for out, and x, y shapes broadcasting to it
/// with random extent-1 dims.
struct BroadcastCase {
  Shape x, y, out;
};

BroadcastCase randomBroadcast(std::mt19937_64 &rng) {
  const int rank = 1 + int(rng() % 4);
  BroadcastCase c;
  for (int d = 0; d < rank; ++d) {
    const int64_t extent = 1 + int64_t(rng() % 9);
    c.out.push_back(extent);
    c.x.push_back(rng() % 3 == 0 ? 1 : extent);
    c.y.push_back(rng() % 3 == 0 ? 1 : extent);
  }
  return c;
}

TEST(FastPathKernels, BinaryCoalescedBroadcastOnRandomShapes) {
  std::mt19937_64 rng(501);
  struct Op {
    const char *name;
    double (*f)(double, double);
  } ops[] = {{"add", [](double a, double b) { return a + b; }},
             {"sub", [](double a, double b) { return a - b; }},
             {"mul", [](double a, double b) { return a * b; }},
             {"div", [](double a, double b) { return a / b; }},
             {"max", [](double a, double b) { return std::max(a, b); }},
             {"min", [](double a, double b) { return std::min(a, b); }}};
  forEachIsa([&] {
    for (int trial = 0; trial < 60; ++trial) {
      const BroadcastCase c = randomBroadcast(rng);
      const Op &op = ops[trial % 6];
      for (DType dt : {DType::Float32, DType::Int32}) {
        Tensor x = randomTensor(dt, c.x, rng, 1, 9), y = randomTensor(dt, c.y, rng, 1, 9);
        std::vector<double> ref = broadcastRef(x, y, c.out, op.f);
        if (dt == DType::Int32 && std::string(op.name) == "div")
          for (double &v : ref)
            v = std::trunc(v);
        std::vector<Tensor> out;
        Status s =
            runKernel("binary", {x, y}, {{dt, c.out}}, {AttrDesc::ofString("op", op.name)}, out);
        ASSERT_TRUE(s.ok()) << s.message();
        SCOPED_TRACE(std::string(op.name) + " x " + formatShapeForTest(c.x) + " y " +
                     formatShapeForTest(c.y));
        // Each float32 result is the correctly rounded float64 one.
        expectClose(out[0], ref, dt == DType::Float32 ? 6e-8 : 0, 0);
      }
    }
  });
}

TEST(FastPathKernels, LargeRowBroadcastAndInPlace) {
  // [N, C] + [C] and [N, C] * [N, 1], large enough to be split over
  // threads, written into x's own buffer as the compiler's in-place sums do.
  std::mt19937_64 rng(502);
  const Shape xs = {700, 130};
  for (const Shape &ys : {Shape{1, 130}, Shape{700, 1}, Shape{700, 130}}) {
    ArtifactBuilder b;
    int x = b.buffer("x", DType::Float32, xs, BufferKind::Feed);
    int y = b.buffer("y", DType::Float32, ys, BufferKind::Feed);
    auto &p = b.program("predict");
    p.feeds = {{"x", x}, {"y", y}};
    p.fetches = {{"x", x}};
    b.call(p, "binary", {x, y}, {x}, {AttrDesc::ofString("op", "mul")});
    auto session = b.session();
    ASSERT_TRUE(session);
    TensorMap feeds = {{"x", randomTensor(DType::Float32, xs, rng)},
                       {"y", randomTensor(DType::Float32, ys, rng)}};
    const std::vector<double> ref =
        broadcastRef(feeds["x"], feeds["y"], xs, [](double a, double b) { return a * b; });
    for (int threads : {1, 3}) {
      KernelThreads scope(threads);
      TensorMap fetches;
      ASSERT_TRUE(session->run("predict", feeds, fetches).ok());
      expectClose(fetches["x"], ref, 6e-8, 0);
    }
  }
}

//===----------------------------------------------------------------------===//
// Reductions and rows
//===----------------------------------------------------------------------===//

TEST(FastPathKernels, ReduceAdjacentAndScatteredAxes) {
  std::mt19937_64 rng(503);
  forEachIsa([&] {
    for (int trial = 0; trial < 40; ++trial) {
      const int rank = 1 + int(rng() % 4);
      Shape shape;
      std::vector<int64_t> axes;
      for (int d = 0; d < rank; ++d) {
        shape.push_back(rng() % 4 == 0 ? 1 : 1 + int64_t(rng() % 19));
        if (rng() % 2)
          axes.push_back(d);
      }
      Shape outShape = shape;
      for (int64_t a : axes)
        outShape[a] = 1;
      Tensor x = randomTensor(DType::Float32, shape, rng, -2, 2);
      for (const char *op : {"sum", "mean"}) {
        std::vector<Tensor> out;
        ASSERT_TRUE(runKernel("reduce", {x}, {{DType::Float32, outShape}},
                              {AttrDesc::ofString("op", op), AttrDesc::ofInts("axes", axes)}, out)
                        .ok());
        SCOPED_TRACE(std::string(op) + " of " + formatShapeForTest(shape) + " over " +
                     std::to_string(axes.size()) + " axes");
        expectClose(out[0], reduceRef(x, axes, op), 1e-6, 1e-6);
      }
    }
  });
}

TEST(FastPathKernels, SoftmaxAndGradAlongTheLastAxis) {
  std::mt19937_64 rng(504);
  forEachIsa([&] {
    for (int64_t len : {1, 7, 8, 33}) {
      const Shape shape = {5, len};
      Tensor x = randomTensor(DType::Float32, shape, rng, -30, 30);
      Tensor g = randomTensor(DType::Float32, shape, rng, -1, 1);
      std::vector<double> y(x.numel()), dx(x.numel());
      for (int64_t r = 0; r < 5; ++r) {
        double mx = -INFINITY, sum = 0, dot = 0;
        for (int64_t c = 0; c < len; ++c)
          mx = std::max(mx, elementAt(x, r * len + c));
        for (int64_t c = 0; c < len; ++c)
          sum += std::exp(elementAt(x, r * len + c) - mx);
        for (int64_t c = 0; c < len; ++c) {
          y[r * len + c] = std::exp(elementAt(x, r * len + c) - mx) / sum;
          dot += y[r * len + c] * elementAt(g, r * len + c);
        }
        for (int64_t c = 0; c < len; ++c)
          dx[r * len + c] = y[r * len + c] * (elementAt(g, r * len + c) - dot);
      }
      std::vector<Tensor> out;
      ASSERT_TRUE(
          runKernel("softmax", {x}, {{DType::Float32, shape}}, {AttrDesc::ofInt("axis", 1)}, out)
              .ok());
      // x - max rounds in float32 (as it always did): a relative error of
      // up to |x - max| * 6e-8 in the smallest probabilities.
      expectClose(out[0], y, 5e-6, 1e-30);
      // The gradient from the float32 probabilities.
      Tensor yf = tensorOf(DType::Float32, shape, y);
      for (int64_t r = 0; r < 5; ++r) {
        double dot = 0;
        for (int64_t c = 0; c < len; ++c)
          dot += elementAt(yf, r * len + c) * elementAt(g, r * len + c);
        for (int64_t c = 0; c < len; ++c)
          dx[r * len + c] = elementAt(yf, r * len + c) * (elementAt(g, r * len + c) - dot);
      }
      ASSERT_TRUE(runKernel("softmax_grad", {yf, g}, {{DType::Float32, shape}},
                            {AttrDesc::ofInt("axis", 1)}, out)
                      .ok());
      expectClose(out[0], dx, 1e-5, 1e-7);
    }
  });
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

/// Runs one kernel with 1 and with 3 kernel threads; the outputs must be
/// bitwise equal (the runtime only splits loops where that holds).
void expectSameForAnyThreadCount(const std::string &kernel, const std::vector<Tensor> &inputs,
                                 const std::vector<OutputSpec> &specs,
                                 const std::vector<AttrDesc> &attrs) {
  std::vector<Tensor> one, three;
  {
    KernelThreads scope(1);
    ASSERT_TRUE(runKernel(kernel, inputs, specs, attrs, one).ok());
  }
  {
    KernelThreads scope(3);
    ASSERT_TRUE(runKernel(kernel, inputs, specs, attrs, three).ok());
  }
  ASSERT_EQ(one.size(), three.size());
  for (size_t i = 0; i < one.size(); ++i)
    EXPECT_TRUE(bitwiseEqual(one[i], three[i])) << kernel << " output " << i;
}

TEST(FastPathKernels, ResultsDoNotDependOnTheThreadCount) {
  std::mt19937_64 rng(505);
  const Shape big = {96, 32, 64}; // 196608 elements: several pieces per thread
  Tensor x = randomTensor(DType::Float32, big, rng, -4, 4);
  Tensor g = randomTensor(DType::Float32, big, rng, -1, 1);
  Tensor row = randomTensor(DType::Float32, {1, 1, 64}, rng);
  const std::vector<OutputSpec> same = {{DType::Float32, big}};
  expectSameForAnyThreadCount("unary", {x}, same, {AttrDesc::ofString("op", "gelu")});
  expectSameForAnyThreadCount("unary_grad", {x, g}, same, {AttrDesc::ofString("op", "gelu")});
  expectSameForAnyThreadCount("binary", {x, row}, same, {AttrDesc::ofString("op", "add")});
  expectSameForAnyThreadCount("softmax", {x}, same, {AttrDesc::ofInt("axis", 2)});
  expectSameForAnyThreadCount("softmax_grad", {x, g}, same, {AttrDesc::ofInt("axis", 2)});
  expectSameForAnyThreadCount("transpose", {x}, {{DType::Float32, {32, 96, 64}}},
                              {AttrDesc::ofInts("perm", {1, 0, 2})});
  expectSameForAnyThreadCount("reduce", {x}, {{DType::Float32, {1, 1, 64}}},
                              {AttrDesc::ofString("op", "sum"), AttrDesc::ofInts("axes", {0, 1})});
  expectSameForAnyThreadCount("reduce", {x}, {{DType::Float32, {96, 32, 1}}},
                              {AttrDesc::ofString("op", "mean"), AttrDesc::ofInts("axes", {2})});
  Tensor scale = randomTensor(DType::Float32, {64}, rng),
         bias = randomTensor(DType::Float32, {64}, rng);
  const std::vector<AttrDesc> ln = {AttrDesc::ofFloat("epsilon", 1e-5),
                                    AttrDesc::ofInt("begin_norm_axis", 2)};
  expectSameForAnyThreadCount(
      "layer_norm", {x, scale, bias},
      {{DType::Float32, big}, {DType::Float32, {96, 32}}, {DType::Float32, {96, 32}}}, ln);
  expectSameForAnyThreadCount(
      "layer_norm_grad", {x, scale, g},
      {{DType::Float32, big}, {DType::Float32, {64}}, {DType::Float32, {64}}}, ln);
  expectSameForAnyThreadCount("dropout", {x, tensorOf(DType::Int64, {1}, {3})},
                              {{DType::Float32, big}, {DType::UInt8, big}},
                              {AttrDesc::ofFloat("p", 0.3), AttrDesc::ofInt("seed", 9)});
  Tensor p = randomTensor(DType::Float32, big, rng),
         m = randomTensor(DType::Float32, big, rng, 0, 1);
  Tensor one = tensorOf(DType::Float32, {1}, {0.5});
  expectSameForAnyThreadCount("adam", {p, g, m, m, one, one, tensorOf(DType::Float32, {1}, {0.01})},
                              {{DType::Float32, big},
                               {DType::Float32, big},
                               {DType::Float32, big},
                               {DType::Float32, {1}},
                               {DType::Float32, {1}}},
                              {AttrDesc::ofFloat("beta1", 0.9), AttrDesc::ofFloat("beta2", 0.999),
                               AttrDesc::ofFloat("epsilon", 1e-8)});
}

TEST(FastPathKernels, SplitMatmulMatchesOneThread) {
  // Large enough to be split into GEMMs of row or column blocks, or of
  // batches. BLAS may order a dot product differently for another block
  // shape, so the results agree to float32 accuracy (not bitwise) with a
  // single GEMM; for one thread count they are reproducible.
  std::mt19937_64 rng(506);
  struct Case {
    Shape a, b, out;
    int transA, transB;
  } cases[] = {{{300, 70}, {70, 90}, {300, 90}, 0, 0},
               {{70, 40}, {70, 300}, {40, 300}, 1, 0},
               {{6, 50, 64}, {1, 64, 80}, {6, 50, 80}, 0, 0},
               {{40, 32, 32}, {40, 32, 32}, {40, 32, 32}, 0, 1}};
  for (const Case &c : cases) {
    Tensor a = randomTensor(DType::Float32, c.a, rng), b = randomTensor(DType::Float32, c.b, rng);
    const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("trans_a", c.transA),
                                         AttrDesc::ofInt("trans_b", c.transB)};
    std::vector<Tensor> one, three;
    {
      KernelThreads scope(1);
      ASSERT_TRUE(runKernel("matmul", {a, b}, {{DType::Float32, c.out}}, attrs, one).ok());
    }
    {
      KernelThreads scope(3);
      ASSERT_TRUE(runKernel("matmul", {a, b}, {{DType::Float32, c.out}}, attrs, three).ok());
    }
    // Sums of up to 70 products of magnitude <= 1.
    expectClose(three[0], valuesOf(one[0]), 1e-6, 2e-5);
    std::vector<Tensor> again;
    {
      KernelThreads scope(3);
      ASSERT_TRUE(runKernel("matmul", {a, b}, {{DType::Float32, c.out}}, attrs, again).ok());
    }
    EXPECT_TRUE(bitwiseEqual(three[0], again[0]));
  }
}

//===----------------------------------------------------------------------===//
// Pooling: the 2x2 tiling path against the general window loops
//===----------------------------------------------------------------------===//

/// [n, c, h, w] -> [n, h, w, c].
Tensor toChannelLast(const Tensor &t) {
  const int64_t n = t.dim(0), c = t.dim(1), h = t.dim(2), w = t.dim(3);
  std::vector<double> values(size_t(t.numel()));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < h * w; ++p)
        values[size_t((i * h * w + p) * c + ch)] = elementAt(t, (i * c + ch) * h * w + p);
  return tensorOf(t.dtype(), {n, h, w, c}, values);
}

TEST(FastPathKernels, TiledPoolMatchesTheGeneralWindows) {
  // NCHW 2x2/2 windows that tile the input take the vectorized path; the
  // same values in NHWC take the general loops. Ties (small integers),
  // NaN and the lowest float decide which element gets a max gradient.
  std::mt19937_64 rng(507);
  std::uniform_int_distribution<int> pick(0, 19);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const double lowest = dtype == DType::Float32 ? double(std::numeric_limits<float>::lowest())
                                                  : std::numeric_limits<double>::lowest();
    const Shape shape = {2, 3, 6, 10}, pooled = {2, 3, 3, 5};
    std::vector<double> xs(size_t(distc::runtime::shapeNumel(shape)));
    for (double &v : xs) {
      const int r = pick(rng);
      v = r == 0 ? std::nan("") : r == 1 ? lowest : double(r % 4);
    }
    // A window of NaNs and one of lowest values: no gradient at all.
    xs[0] = xs[1] = xs[10] = xs[11] = std::nan("");
    xs[2] = xs[3] = xs[12] = xs[13] = lowest;
    Tensor x = tensorOf(dtype, shape, xs);
    Tensor dout = randomTensor(dtype, pooled, rng, -1, 1);
    for (const char *type : {"max", "avg"}) {
      SCOPED_TRACE(std::string(type) + " " + formatShapeForTest(shape) + " " +
                   (dtype == DType::Float32 ? "f32" : "f64"));
      auto attrs = [&](int nhwc) {
        return std::vector<AttrDesc>{
            AttrDesc::ofString("type", type), AttrDesc::ofInts("ksize", {2, 2}),
            AttrDesc::ofInts("strides", {2, 2}), AttrDesc::ofInts("paddings", {0, 0, 0, 0}),
            AttrDesc::ofInt("nhwc", nhwc)};
      };
      forEachIsa([&] {
        std::vector<Tensor> tiled, general, tiledGrad, generalGrad;
        ASSERT_TRUE(runKernel("pool2d", {x}, {{dtype, pooled}}, attrs(0), tiled).ok());
        ASSERT_TRUE(
            runKernel("pool2d", {toChannelLast(x)}, {{dtype, {2, 3, 5, 3}}}, attrs(1), general)
                .ok());
        EXPECT_TRUE(bitwiseEqual(toChannelLast(tiled[0]), general[0]));
        ASSERT_TRUE(
            runKernel("pool2d_grad", {x, tiled[0], dout}, {{dtype, shape}}, attrs(0), tiledGrad)
                .ok());
        ASSERT_TRUE(runKernel("pool2d_grad", {toChannelLast(x), general[0], toChannelLast(dout)},
                              {{dtype, {2, 6, 10, 3}}}, attrs(1), generalGrad)
                        .ok());
        EXPECT_TRUE(bitwiseEqual(toChannelLast(tiledGrad[0]), generalGrad[0]));
        if (std::string(type) == "max")
          for (int64_t i : {0, 1, 10, 11, 2, 3, 12, 13})
            EXPECT_EQ(elementAt(tiledGrad[0], i), 0.0) << "element " << i;
      });
    }
  }
}

//===----------------------------------------------------------------------===//
// Optimizers in place on vector-sized parameters
//===----------------------------------------------------------------------===//

TEST(FastPathKernels, SgdAndAdamInPlaceOnALongParameter) {
  const Shape shape = {1003}; // vector body plus remainder
  const double lr = 0.05;
  ArtifactBuilder b;
  int w = b.buffer("w", DType::Float32, shape, BufferKind::Persistent);
  int u = b.buffer("u", DType::Float32, shape, BufferKind::Persistent);
  int m1 = b.buffer("u_m1", DType::Float32, shape, BufferKind::Persistent);
  int m2 = b.buffer("u_m2", DType::Float32, shape, BufferKind::Persistent);
  int b1p = b.buffer("b1p", DType::Float32, Shape{1}, BufferKind::Persistent);
  int b2p = b.buffer("b2p", DType::Float32, Shape{1}, BufferKind::Persistent);
  int rate = b.buffer("lr", DType::Float32, Shape{1}, BufferKind::Persistent);
  int g = b.buffer("g", DType::Float32, shape, BufferKind::Feed);
  auto &start = b.program("train", ProgramKind::Startup);
  for (int t : {w, u})
    b.call(start, "uniform_random", {}, {t},
           {AttrDesc::ofFloat("min", -1), AttrDesc::ofFloat("max", 1),
            AttrDesc::ofInt("seed", 3 + t)});
  for (int t : {m1, m2})
    b.call(start, "fill", {}, {t}, {AttrDesc::ofFloat("value", 0)});
  b.call(start, "fill", {}, {b1p}, {AttrDesc::ofFloat("value", 0.9)});
  b.call(start, "fill", {}, {b2p}, {AttrDesc::ofFloat("value", 0.999)});
  b.call(start, "fill", {}, {rate}, {AttrDesc::ofFloat("value", lr)});
  auto &main = b.program("train");
  main.feeds = {{"g", g}};
  b.call(main, "sgd", {w, g, rate}, {w});
  b.call(main, "adam", {u, g, m1, m2, b1p, b2p, rate}, {u, m1, m2, b1p, b2p},
         {AttrDesc::ofFloat("beta1", 0.9), AttrDesc::ofFloat("beta2", 0.999),
          AttrDesc::ofFloat("epsilon", 1e-8)});
  auto session = b.session();
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->initialize("train").ok());
  std::vector<double> wRef = valuesOf(session->persistent("w"));
  std::vector<double> uRef = valuesOf(session->persistent("u")), m1Ref(1003, 0), m2Ref(1003, 0);
  double b1pow = double(0.9f), b2pow = double(0.999f);
  const double lrRead = double(float(lr)), b1 = double(0.9f), b2 = double(0.999f);
  std::mt19937_64 rng(507);
  for (int step = 0; step < 3; ++step) {
    TensorMap feeds = {{"g", randomTensor(DType::Float32, shape, rng)}}, fetches;
    ASSERT_TRUE(session->run("train", feeds, fetches).ok());
    const double lrT = lrRead * std::sqrt(1 - b2pow) / (1 - b1pow);
    for (size_t i = 0; i < wRef.size(); ++i) {
      const double gi = elementAt(feeds["g"], int64_t(i));
      wRef[i] -= lrRead * gi;
      m1Ref[i] = b1 * m1Ref[i] + (1 - b1) * gi;
      m2Ref[i] = b2 * m2Ref[i] + (1 - b2) * gi * gi;
      uRef[i] -= lrT * m1Ref[i] / (std::sqrt(m2Ref[i]) + 1e-8 * std::sqrt(1 - b2pow));
    }
    b1pow *= b1;
    b2pow *= b2;
    expectClose(session->persistent("w"), wRef, 1e-6, 1e-6);
    expectClose(session->persistent("u"), uRef, 1e-5, 1e-5);
    expectClose(session->persistent("u_m1"), m1Ref, 1e-5, 1e-6);
    // Continue from the stored float32 state.
    wRef = valuesOf(session->persistent("w"));
    uRef = valuesOf(session->persistent("u"));
    m1Ref = valuesOf(session->persistent("u_m1"));
    m2Ref = valuesOf(session->persistent("u_m2"));
    b1pow = elementAt(session->persistent("b1p"), 0);
    b2pow = elementAt(session->persistent("b2p"), 0);
  }
}

} // namespace
