//===- ConvKernelTest.cpp - conv2d, conv2d_transpose, pool2d kernels ------===//
//
// The forward kernels against direct float64 loops written from the
// definitions (docs/kernels.md), on both dtypes, both layouts and one and
// several kernel threads (the GEMM split and the pointwise path differ);
// the gradient kernels against float64 central differences of the forward
// kernels; and the errors of operands that do not fit.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace distc::testing;

namespace {

/// One convolution: x [n, c, h, w] (or NHWC), filter [m, c/groups, kh, kw].
struct Conv {
  int64_t n, c, h, w, m, kh, kw;
  int64_t groups = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  std::vector<int64_t> pads = {0, 0, 0, 0};
  bool nhwc = false;

  int64_t oh() const { return (h + pads[0] + pads[1] - (dh * (kh - 1) + 1)) / sh + 1; }
  int64_t ow() const { return (w + pads[2] + pads[3] - (dw * (kw - 1) + 1)) / sw + 1; }
  Shape act(int64_t channels, int64_t hh, int64_t ww) const {
    return nhwc ? Shape{n, hh, ww, channels} : Shape{n, channels, hh, ww};
  }
  Shape xShape() const { return act(c, h, w); }
  Shape outShape() const { return act(m, oh(), ow()); }
  Shape filterShape() const { return {m, c / groups, kh, kw}; }
  int64_t at(int64_t img, int64_t ch, int64_t y, int64_t x, int64_t channels, int64_t hh,
             int64_t ww) const {
    return nhwc ? ((img * hh + y) * ww + x) * channels + ch
                : ((img * channels + ch) * hh + y) * ww + x;
  }
  std::vector<AttrDesc> attrs() const {
    return {AttrDesc::ofInts("strides", {sh, sw}), AttrDesc::ofInts("dilations", {dh, dw}),
            AttrDesc::ofInts("paddings", pads), AttrDesc::ofInt("groups", groups),
            AttrDesc::ofInt("nhwc", nhwc)};
  }
};

/// out[n, m, y, x] = Σ filter[m, c, i, j] · x[n, g·cg + c, y·sh − top + i·dh, ...].
std::vector<double> convRef(const Conv &p, const Tensor &x, const Tensor &f) {
  const int64_t oh = p.oh(), ow = p.ow(), cg = p.c / p.groups, mg = p.m / p.groups;
  std::vector<double> out(size_t(p.n * p.m * oh * ow), 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double sum = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                int64_t iy = y * p.sh - p.pads[0] + i * p.dh;
                int64_t ix = xo * p.sw - p.pads[2] + j * p.dw;
                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
                  continue;
                sum += elementAt(f, ((m * cg + c) * p.kh + i) * p.kw + j) *
                       elementAt(x, p.at(n, (m / mg) * cg + c, iy, ix, p.c, p.h, p.w));
              }
          out[size_t(p.at(n, m, y, xo, p.m, oh, ow))] = sum;
        }
  return out;
}

std::vector<Conv> convCases() {
  std::vector<Conv> cases;
  cases.push_back({2, 3, 7, 6, 4, 3, 3}); // plain, no padding
  Conv grouped{2, 4, 9, 8, 6, 3, 2};      // groups, strides, asymmetric
  grouped.groups = 2;
  grouped.sh = 2;
  grouped.sw = 3;
  grouped.pads = {1, 0, 2, 1};
  cases.push_back(grouped);
  Conv dilated{1, 2, 10, 9, 3, 3, 3};
  dilated.dh = 2;
  dilated.dw = 3;
  dilated.pads = {2, 2, 3, 3};
  cases.push_back(dilated);
  Conv pointwise{3, 5, 4, 6, 7, 1, 1}; // multiplies x itself
  cases.push_back(pointwise);
  Conv depthwise{2, 4, 8, 8, 8, 3, 3};
  depthwise.groups = 4;
  depthwise.pads = {1, 1, 1, 1};
  cases.push_back(depthwise);
  Conv nhwc = grouped;
  nhwc.nhwc = true;
  cases.push_back(nhwc);
  // One image, 32 output channels: blocks of channels on 4 threads; 7
  // wide with padding 1, so the wide rows of the padded-plane cores would
  // waste too much and im2col is used.
  Conv wide{1, 16, 12, 7, 32, 3, 3};
  wide.pads = {1, 1, 1, 1};
  cases.push_back(wide);
  // Stride 1 on wide enough planes: the padded-plane cores (one GEMM per
  // tap), with images split into runs whose filter gradients are summed,
  // and blocks of output channels for a single image.
  Conv padded{3, 4, 10, 9, 5, 3, 3};
  padded.pads = {1, 1, 1, 1};
  cases.push_back(padded);
  Conv paddedWide{1, 8, 12, 12, 32, 3, 3};
  paddedWide.pads = {1, 1, 1, 1};
  cases.push_back(paddedWide);
  Conv paddedDilated{1, 6, 12, 16, 4, 3, 2}; // groups, dilation, asymmetric pads
  paddedDilated.groups = 2;
  paddedDilated.dh = 2;
  paddedDilated.pads = {2, 1, 0, 1};
  cases.push_back(paddedDilated);
  Conv paddedNhwc = padded;
  paddedNhwc.nhwc = true;
  cases.push_back(paddedNhwc);
  return cases;
}

TEST(Conv2dKernel, MatchesDirectLoops) {
  std::mt19937_64 rng(20);
  for (int threads : {1, 4})
    for (DType dt : {DType::Float32, DType::Float64})
      for (const Conv &p : convCases()) {
        KernelThreads scope(threads);
        Tensor x = randomTensor(dt, p.xShape(), rng), f = randomTensor(dt, p.filterShape(), rng);
        std::vector<Tensor> out;
        Status s = runKernel("conv2d", {x, f}, {{dt, p.outShape()}}, p.attrs(), out);
        ASSERT_TRUE(s.ok()) << s.message();
        double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], convRef(p, x, f), tol, tol);
      }
}

TEST(Conv2dKernel, FusedBiasIsAddedPerChannel) {
  // The grouped, strided case, and the single images with 32 output
  // channels, which on 4 threads split their output channels (im2col's
  // and the padded planes' cores): each block adds its own channels' bias.
  std::vector<Conv> cases;
  for (const Conv &p : convCases())
    if ((p.groups == 2 && p.sh == 2 && !p.nhwc) || (p.n == 1 && p.m == 32))
      cases.push_back(p);
  ASSERT_EQ(cases.size(), 3u);
  std::mt19937_64 rng(28);
  for (int threads : {1, 4})
    for (const Conv &base : cases)
      for (DType dt : {DType::Float32, DType::Float64})
        for (bool nhwc : {false, true}) {
          KernelThreads scope(threads);
          Conv p = base;
          p.nhwc = nhwc;
          Tensor x = randomTensor(dt, p.xShape(), rng), f = randomTensor(dt, p.filterShape(), rng);
          Tensor bias = randomTensor(dt, {p.m}, rng);
          std::vector<double> expected = convRef(p, x, f);
          for (size_t i = 0; i < expected.size(); ++i) {
            int64_t channel = nhwc ? int64_t(i) % p.m : (int64_t(i) / (p.oh() * p.ow())) % p.m;
            expected[i] += elementAt(bias, channel);
          }
          std::vector<Tensor> out;
          Status s = runKernel("conv2d", {x, f, bias}, {{dt, p.outShape()}}, p.attrs(), out);
          ASSERT_TRUE(s.ok()) << s.message();
          double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
          expectClose(out[0], expected, tol, tol);
        }
}

TEST(Conv2dGradKernel, BiasGradientSumsOverImagesAndPositions) {
  std::mt19937_64 rng(29);
  for (bool nhwc : {false, true}) {
    Conv p = convCases()[1];
    p.nhwc = nhwc;
    Tensor x = randomTensor(DType::Float64, p.xShape(), rng);
    Tensor f = randomTensor(DType::Float64, p.filterShape(), rng);
    Tensor bias = randomTensor(DType::Float64, {p.m}, rng);
    Tensor dout = randomTensor(DType::Float64, p.outShape(), rng);
    std::vector<double> db = numericGradient(
        "conv2d", {x, f, bias}, {{DType::Float64, p.outShape()}}, p.attrs(), 0, dout, 2);
    std::vector<Tensor> out;
    Status s = runKernel(
        "conv2d_grad", {x, f, dout},
        {{DType::Float64, p.xShape()}, {DType::Float64, p.filterShape()}, {DType::Float64, {p.m}}},
        p.attrs(), out, {true, true, false});
    ASSERT_TRUE(s.ok()) << s.message();
    expectClose(out[2], db, 1e-7, 1e-8);
  }
}

/// d(Σ weights · conv(x, f)) by central differences against conv2d_grad.
TEST(Conv2dGradKernel, MatchesFiniteDifferences) {
  std::mt19937_64 rng(21);
  for (const Conv &p : convCases()) {
    if (p.c > 8)
      continue; // finite differences over every element: keep it small
    Tensor x = randomTensor(DType::Float64, p.xShape(), rng);
    Tensor f = randomTensor(DType::Float64, p.filterShape(), rng);
    Tensor dout = randomTensor(DType::Float64, p.outShape(), rng);
    std::vector<OutputSpec> spec = {{DType::Float64, p.outShape()}};
    std::vector<double> dx = numericGradient("conv2d", {x, f}, spec, p.attrs(), 0, dout, 0);
    std::vector<double> df = numericGradient("conv2d", {x, f}, spec, p.attrs(), 0, dout, 1);
    for (int threads : {1, 4}) {
      KernelThreads scope(threads);
      std::vector<Tensor> out;
      Status s = runKernel("conv2d_grad", {x, f, dout},
                           {{DType::Float64, p.xShape()}, {DType::Float64, p.filterShape()}},
                           p.attrs(), out);
      ASSERT_TRUE(s.ok()) << s.message();
      expectClose(out[0], dx, 1e-7, 1e-8);
      expectClose(out[1], df, 1e-7, 1e-8);
    }
  }
}

TEST(Conv2dGradKernel, EitherGradientAlone) {
  std::mt19937_64 rng(22);
  Conv p = convCases()[1];
  Tensor x = randomTensor(DType::Float32, p.xShape(), rng);
  Tensor f = randomTensor(DType::Float32, p.filterShape(), rng);
  Tensor dout = randomTensor(DType::Float32, p.outShape(), rng);
  std::vector<Tensor> both, onlyX, onlyF;
  std::vector<OutputSpec> spec = {{DType::Float32, p.xShape()}, {DType::Float32, p.filterShape()}};
  ASSERT_TRUE(runKernel("conv2d_grad", {x, f, dout}, spec, p.attrs(), both).ok());
  ASSERT_TRUE(runKernel("conv2d_grad", {x, f, dout}, spec, p.attrs(), onlyX, {false, true}).ok());
  ASSERT_TRUE(runKernel("conv2d_grad", {x, f, dout}, spec, p.attrs(), onlyF, {true, false}).ok());
  std::vector<double> dx(both[0].numel()), df(both[1].numel());
  for (int64_t i = 0; i < both[0].numel(); ++i)
    dx[i] = elementAt(both[0], i);
  for (int64_t i = 0; i < both[1].numel(); ++i)
    df[i] = elementAt(both[1], i);
  expectClose(onlyX[0], dx, 0, 0);
  expectClose(onlyF[1], df, 0, 0);
}

/// conv2d_transpose: x [n, c, h, w] scatters into out [n, m, oh, ow].
struct Transpose {
  Conv conv;                      // the convolution from out (its input) to x (its output)
  int64_t extraH = 0, extraW = 0; // output_padding
  int64_t outH() const {
    return (conv.h - 1) * conv.sh - conv.pads[0] - conv.pads[1] + conv.dh * (conv.kh - 1) + 1 +
           extraH;
  }
  int64_t outW() const {
    return (conv.w - 1) * conv.sw - conv.pads[2] - conv.pads[3] + conv.dw * (conv.kw - 1) + 1 +
           extraW;
  }
};

std::vector<double> transposeRef(const Transpose &t, const Tensor &x, const Tensor &f) {
  const Conv &p = t.conv; // here p.c = input channels of x, p.m = output channels / groups
  const int64_t oh = t.outH(), ow = t.outW(), cg = p.c / p.groups, mg = p.m;
  std::vector<double> out(size_t(p.n * mg * p.groups * oh * ow), 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t y = 0; y < p.h; ++y)
        for (int64_t xi = 0; xi < p.w; ++xi)
          for (int64_t m = 0; m < mg; ++m)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                int64_t oy = y * p.sh - p.pads[0] + i * p.dh;
                int64_t ox = xi * p.sw - p.pads[2] + j * p.dw;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow)
                  continue;
                int64_t om = (c / cg) * mg + m;
                out[size_t(p.at(n, om, oy, ox, mg * p.groups, oh, ow))] +=
                    elementAt(x, p.at(n, c, y, xi, p.c, p.h, p.w)) *
                    elementAt(f, ((c * mg + m) * p.kh + i) * p.kw + j);
              }
  return out;
}

std::vector<Transpose> transposeCases() {
  std::vector<Transpose> cases;
  Transpose plain{{2, 3, 4, 5, 2, 3, 3}};
  plain.conv.sh = plain.conv.sw = 2;
  plain.conv.pads = {1, 1, 1, 1};
  cases.push_back(plain);
  Transpose grouped{{1, 4, 3, 3, 3, 3, 2}};
  grouped.conv.groups = 2;
  grouped.conv.sh = 2;
  grouped.conv.pads = {0, 1, 1, 0};
  grouped.extraH = 1;
  cases.push_back(grouped);
  Transpose dilated{{2, 2, 3, 4, 3, 2, 2}};
  dilated.conv.dh = 2;
  dilated.conv.sw = 3;
  dilated.conv.nhwc = true;
  dilated.extraW = 2;
  cases.push_back(dilated);
  Transpose pointwise{{2, 3, 4, 4, 5, 1, 1}};
  cases.push_back(pointwise);
  Transpose padded{{2, 3, 6, 8, 2, 3, 3}}; // stride 1: the padded-plane cores
  padded.conv.pads = {1, 1, 1, 1};
  cases.push_back(padded);
  return cases;
}

Shape transposeOut(const Transpose &t) {
  return t.conv.act(t.conv.m * t.conv.groups, t.outH(), t.outW());
}
Shape transposeFilter(const Transpose &t) { return {t.conv.c, t.conv.m, t.conv.kh, t.conv.kw}; }

TEST(Conv2dTransposeKernel, MatchesDirectLoops) {
  std::mt19937_64 rng(23);
  for (int threads : {1, 4})
    for (DType dt : {DType::Float32, DType::Float64})
      for (const Transpose &t : transposeCases()) {
        KernelThreads scope(threads);
        Tensor x = randomTensor(dt, t.conv.xShape(), rng);
        Tensor f = randomTensor(dt, transposeFilter(t), rng);
        std::vector<Tensor> out;
        Status s =
            runKernel("conv2d_transpose", {x, f}, {{dt, transposeOut(t)}}, t.conv.attrs(), out);
        ASSERT_TRUE(s.ok()) << s.message();
        double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], transposeRef(t, x, f), tol, tol);
      }
}

TEST(Conv2dTransposeGradKernel, MatchesFiniteDifferences) {
  std::mt19937_64 rng(24);
  for (const Transpose &t : transposeCases()) {
    Tensor x = randomTensor(DType::Float64, t.conv.xShape(), rng);
    Tensor f = randomTensor(DType::Float64, transposeFilter(t), rng);
    Tensor dout = randomTensor(DType::Float64, transposeOut(t), rng);
    std::vector<OutputSpec> spec = {{DType::Float64, transposeOut(t)}};
    auto attrs = t.conv.attrs();
    std::vector<double> dx = numericGradient("conv2d_transpose", {x, f}, spec, attrs, 0, dout, 0);
    std::vector<double> df = numericGradient("conv2d_transpose", {x, f}, spec, attrs, 0, dout, 1);
    std::vector<Tensor> out;
    Status s = runKernel("conv2d_transpose_grad", {x, f, dout},
                         {{DType::Float64, t.conv.xShape()}, {DType::Float64, transposeFilter(t)}},
                         attrs, out);
    ASSERT_TRUE(s.ok()) << s.message();
    expectClose(out[0], dx, 1e-7, 1e-8);
    expectClose(out[1], df, 1e-7, 1e-8);
  }
}

/// One pooling: Paddle's Pool2dFunctor windows.
struct Pool {
  int64_t n, c, h, w, oh, ow;
  std::string type;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  std::vector<int64_t> pads = {0, 0, 0, 0};
  bool exclusive = true, adaptive = false, nhwc = false;

  Shape act(int64_t hh, int64_t ww) const {
    return nhwc ? Shape{n, hh, ww, c} : Shape{n, c, hh, ww};
  }
  int64_t at(int64_t img, int64_t ch, int64_t y, int64_t x, int64_t hh, int64_t ww) const {
    return nhwc ? ((img * hh + y) * ww + x) * c + ch : ((img * c + ch) * hh + y) * ww + x;
  }
  std::vector<AttrDesc> attrs() const {
    return {AttrDesc::ofString("type", type),
            AttrDesc::ofInts("ksize", {kh, kw}),
            AttrDesc::ofInts("strides", {sh, sw}),
            AttrDesc::ofInts("paddings", pads),
            AttrDesc::ofInt("exclusive", exclusive),
            AttrDesc::ofInt("adaptive", adaptive),
            AttrDesc::ofInt("nhwc", nhwc)};
  }
};

std::vector<double> poolRef(const Pool &p, const Tensor &x) {
  std::vector<double> out(size_t(p.n * p.c * p.oh * p.ow));
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t y = 0; y < p.oh; ++y)
        for (int64_t xo = 0; xo < p.ow; ++xo) {
          int64_t y0, y1, x0, x1, count;
          if (p.adaptive) {
            y0 = y * p.h / p.oh;
            y1 = ((y + 1) * p.h + p.oh - 1) / p.oh;
            x0 = xo * p.w / p.ow;
            x1 = ((xo + 1) * p.w + p.ow - 1) / p.ow;
            count = (y1 - y0) * (x1 - x0);
          } else {
            y0 = y * p.sh - p.pads[0];
            x0 = xo * p.sw - p.pads[2];
            y1 = std::min(y0 + p.kh, p.h + p.pads[0]);
            x1 = std::min(x0 + p.kw, p.w + p.pads[2]);
            count = (y1 - y0) * (x1 - x0);
            y0 = std::max<int64_t>(y0, 0);
            x0 = std::max<int64_t>(x0, 0);
            y1 = std::min(y1, p.h);
            x1 = std::min(x1, p.w);
            if (p.exclusive)
              count = (y1 - y0) * (x1 - x0);
          }
          double acc = p.type == "max" ? -std::numeric_limits<double>::infinity() : 0.0;
          for (int64_t i = y0; i < y1; ++i)
            for (int64_t j = x0; j < x1; ++j) {
              double v = elementAt(x, p.at(n, c, i, j, p.h, p.w));
              acc = p.type == "max" ? std::max(acc, v) : acc + v;
            }
          out[size_t(p.at(n, c, y, xo, p.oh, p.ow))] = p.type == "max" ? acc : acc / double(count);
        }
  return out;
}

std::vector<Pool> poolCases() {
  std::vector<Pool> cases;
  Pool max{2, 3, 6, 6, 3, 3, "max", 3, 3, 2, 2, {1, 1, 1, 1}};
  cases.push_back(max);
  Pool ceil{1, 2, 7, 7, 4, 4, "max", 2, 2, 2, 2}; // ceil_mode: a last window of one row
  cases.push_back(ceil);
  Pool inclusive{2, 2, 5, 5, 3, 3, "avg", 3, 3, 2, 2, {1, 1, 1, 1}};
  inclusive.exclusive = false;
  cases.push_back(inclusive);
  Pool asym{1, 2, 6, 5, 4, 4, "avg", 2, 3, 2, 1, {1, 0, 0, 1}};
  cases.push_back(asym);
  Pool adaptive{2, 2, 7, 5, 3, 2, "avg"};
  adaptive.adaptive = true;
  cases.push_back(adaptive);
  Pool adaptiveMax{1, 3, 5, 7, 2, 3, "max"};
  adaptiveMax.adaptive = true;
  adaptiveMax.nhwc = true;
  cases.push_back(adaptiveMax);
  Pool global{2, 4, 4, 3, 1, 1, "avg"}; // global pooling as the lowering emits it
  global.adaptive = true;
  global.nhwc = true;
  cases.push_back(global);
  return cases;
}

TEST(Pool2dKernel, MatchesPaddleWindows) {
  std::mt19937_64 rng(25);
  for (DType dt : {DType::Float32, DType::Float64})
    for (const Pool &p : poolCases()) {
      Tensor x = randomTensor(dt, p.act(p.h, p.w), rng, -3, 3);
      std::vector<Tensor> out;
      Status s = runKernel("pool2d", {x}, {{dt, p.act(p.oh, p.ow)}}, p.attrs(), out);
      ASSERT_TRUE(s.ok()) << s.message();
      double tol = dt == DType::Float32 ? 1e-6 : 1e-13;
      expectClose(out[0], poolRef(p, x), tol, tol);
    }
}

TEST(Pool2dGradKernel, MatchesFiniteDifferences) {
  std::mt19937_64 rng(26);
  for (const Pool &p : poolCases()) {
    // Distinct values, far apart compared with the step, keep each
    // window's maximum where it is.
    Tensor x = randomTensor(DType::Float64, p.act(p.h, p.w), rng, -3, 3);
    Tensor out = [&] {
      std::vector<Tensor> o;
      EXPECT_TRUE(
          runKernel("pool2d", {x}, {{DType::Float64, p.act(p.oh, p.ow)}}, p.attrs(), o).ok());
      return o[0];
    }();
    Tensor dout = randomTensor(DType::Float64, p.act(p.oh, p.ow), rng);
    std::vector<double> dx = numericGradient("pool2d", {x}, {{DType::Float64, p.act(p.oh, p.ow)}},
                                             p.attrs(), 0, dout, 0, 1e-7);
    std::vector<Tensor> got;
    Status s = runKernel("pool2d_grad", {x, out, dout}, {{DType::Float64, p.act(p.h, p.w)}},
                         p.attrs(), got);
    ASSERT_TRUE(s.ok()) << s.message();
    expectClose(got[0], dx, 1e-6, 1e-8);
  }
}

TEST(Pool2dGradKernel, MaxTiesGoToTheFirstElement) {
  // Paddle gives the gradient of a window whose maximum appears twice to
  // the first one in row-major order.
  Tensor x = tensorOf(DType::Float32, {1, 1, 2, 2}, {1, 5, 5, 2});
  Tensor out = tensorOf(DType::Float32, {1, 1, 1, 1}, {5});
  Tensor dout = tensorOf(DType::Float32, {1, 1, 1, 1}, {3});
  Pool p{1, 1, 2, 2, 1, 1, "max", 2, 2, 2, 2};
  std::vector<Tensor> got;
  ASSERT_TRUE(
      runKernel("pool2d_grad", {x, out, dout}, {{DType::Float32, {1, 1, 2, 2}}}, p.attrs(), got)
          .ok());
  expectClose(got[0], {0, 3, 0, 0}, 0, 0);
}

TEST(ConvKernels, ShapesThatDoNotFitAreErrors) {
  std::mt19937_64 rng(27);
  Conv p{1, 4, 5, 5, 2, 3, 3};
  Tensor x = randomTensor(DType::Float32, p.xShape(), rng);
  std::vector<Tensor> out;
  // Filter channels: 3 per group, x has 4 channels in one group.
  Tensor badFilter = randomTensor(DType::Float32, {2, 3, 3, 3}, rng);
  Status s = runKernel("conv2d", {x, badFilter}, {{DType::Float32, p.outShape()}}, p.attrs(), out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not fit"), std::string::npos) << s.message();
  // Channels not divisible by groups.
  Conv grouped = p;
  grouped.groups = 3;
  Tensor f = randomTensor(DType::Float32, {3, 1, 3, 3}, rng);
  s = runKernel("conv2d", {x, f}, {{DType::Float32, {1, 3, 3, 3}}}, grouped.attrs(), out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("multiples of groups"), std::string::npos) << s.message();
  // An output of the wrong spatial size.
  Tensor good = randomTensor(DType::Float32, p.filterShape(), rng);
  s = runKernel("conv2d", {x, good}, {{DType::Float32, {1, 2, 4, 3}}}, p.attrs(), out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("expected spatial size 3"), std::string::npos) << s.message();
  // Mixed dtypes.
  Tensor f64 = randomTensor(DType::Float64, p.filterShape(), rng);
  s = runKernel("conv2d", {x, f64}, {{DType::Float32, p.outShape()}}, p.attrs(), out);
  ASSERT_FALSE(s.ok());
  // Pooling windows entirely past the padded input.
  Pool pool{1, 1, 4, 4, 5, 5, "max", 2, 2, 2, 2};
  s = runKernel("pool2d", {randomTensor(DType::Float32, {1, 1, 4, 4}, rng)},
                {{DType::Float32, {1, 1, 5, 5}}}, pool.attrs(), out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("windows"), std::string::npos) << s.message();
}

} // namespace
