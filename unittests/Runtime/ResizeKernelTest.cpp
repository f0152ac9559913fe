//===- ResizeKernelTest.cpp - shape, pad, interp and their gradients ------===//
//
// Forward kernels against values worked out by hand from Paddle's
// definitions (np.pad's modes, the NumPy references of Paddle's interpolate
// v2 tests); gradient kernels as the adjoints of the forward ones, in
// float64: <f(x), y> = <x, f_grad(y)> for random x and y.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

using namespace distc::testing;

namespace {

double dot(const Tensor &a, const Tensor &b) {
  double sum = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    sum += elementAt(a, i) * elementAt(b, i);
  return sum;
}

/// Checks <kernel(x), y> = <x, gradKernel(y)> for random float64 x, y.
void expectAdjoint(const std::string &kernel, const Shape &in, const Shape &out,
                   const std::vector<AttrDesc> &forwardAttrs,
                   const std::vector<AttrDesc> &gradAttrs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor x = randomTensor(DType::Float64, in, rng), y = randomTensor(DType::Float64, out, rng);
  std::vector<Tensor> fx, gy;
  ASSERT_TRUE(runKernel(kernel, {x}, {{DType::Float64, out}}, forwardAttrs, fx).ok());
  ASSERT_TRUE(runKernel(kernel + "_grad", {y}, {{DType::Float64, in}}, gradAttrs, gy).ok());
  EXPECT_NEAR(dot(fx[0], y), dot(x, gy[0]), 1e-12 * double(x.numel() + y.numel()));
}

TEST(ShapeKernel, DimsAsInt32) {
  std::vector<Tensor> out;
  Tensor x = tensorOf(DType::Float32, {2, 3, 4}, std::vector<double>(24, 0));
  ASSERT_TRUE(runKernel("shape", {x}, {{DType::Int32, {3}}}, {}, out).ok());
  expectClose(out[0], {2, 3, 4}, 0, 0);
  EXPECT_FALSE(runKernel("shape", {x}, {{DType::Int64, {3}}}, {}, out).ok());
}

TEST(PadKernel, EveryModeOnOneDim) {
  const std::vector<std::pair<std::string, std::vector<double>>> cases = {
      {"constant", {9, 9, 1, 2, 3, 9}},
      {"reflect", {3, 2, 1, 2, 3, 2}},
      {"edge", {1, 1, 1, 2, 3, 3}},
      {"circular", {2, 3, 1, 2, 3, 1}}};
  for (DType dt : {DType::Float32, DType::Float64})
    for (const auto &[mode, expected] : cases) {
      Tensor x = tensorOf(dt, {3}, {1, 2, 3});
      std::vector<Tensor> out;
      ASSERT_TRUE(runKernel("pad", {x}, {{dt, {6}}},
                            {AttrDesc::ofInts("paddings", {2, 1}), AttrDesc::ofString("mode", mode),
                             AttrDesc::ofFloat("value", 9)},
                            out)
                      .ok())
          << mode;
      expectClose(out[0], expected, 0, 0);
    }
}

TEST(PadKernel, GradientIsTheAdjoint) {
  for (const char *mode : {"constant", "reflect", "edge", "circular"}) {
    std::vector<AttrDesc> attrs = {AttrDesc::ofInts("paddings", {0, 1, 2, 1, 1, 2}),
                                   AttrDesc::ofString("mode", mode)};
    std::vector<AttrDesc> forward = attrs;
    forward.push_back(AttrDesc::ofFloat("value", 0));
    expectAdjoint("pad", {2, 3, 4}, {3, 6, 7}, forward, attrs, 11);
  }
}

TEST(PadKernel, RejectsBadPaddings) {
  Tensor x = tensorOf(DType::Float32, {3}, {1, 2, 3});
  std::vector<Tensor> out;
  Status reflect = runKernel(
      "pad", {x}, {{DType::Float32, {6}}},
      {AttrDesc::ofInts("paddings", {3, 0}), AttrDesc::ofString("mode", "reflect")}, out);
  EXPECT_FALSE(reflect.ok());
  EXPECT_FALSE(runKernel("pad", {x}, {{DType::Float32, {4}}},
                         {AttrDesc::ofInts("paddings", {1, 0}), AttrDesc::ofString("mode", "wrap")},
                         out)
                   .ok());
  EXPECT_FALSE(runKernel("pad", {x}, {{DType::Float32, {5}}},
                         {AttrDesc::ofInts("paddings", {1, 0}),
                          AttrDesc::ofString("mode", "constant")},
                         out)
                   .ok());
}

std::vector<AttrDesc> interpAttrs(const char *method, bool alignCorners, int alignMode,
                                  const char *layout = "NCHW", double scaleH = 0,
                                  double scaleW = 0) {
  return {AttrDesc::ofString("method", method), AttrDesc::ofInt("align_corners", alignCorners),
          AttrDesc::ofInt("align_mode", alignMode), AttrDesc::ofString("layout", layout),
          AttrDesc::ofFloat("scale_h", scaleH), AttrDesc::ofFloat("scale_w", scaleW)};
}

// x = [[0, 1], [2, 3]]: out[i][j] = 2·row(i) + col(j) for the 1-D sample
// positions row and col of each convention.
TEST(InterpKernel, BilinearConventions) {
  Tensor x = tensorOf(DType::Float64, {1, 1, 2, 2}, {0, 1, 2, 3});
  struct Case {
    bool alignCorners;
    int alignMode;
    std::vector<double> positions; // of a 2 → 4 resize
  };
  // align_corners: ratio 1/3, positions k/3. align_mode 0 without corners:
  // half-pixel, max(0.5·(k + 0.5) − 0.5, 0), the last clamped to the edge.
  // align_mode 1: 0.5·k.
  const Case cases[] = {{true, 1, {0, 1.0 / 3, 2.0 / 3, 1}},
                        {false, 0, {0, 0.25, 0.75, 1}},
                        {false, 1, {0, 0.5, 1, 1}}};
  for (const Case &c : cases) {
    std::vector<Tensor> out;
    ASSERT_TRUE(runKernel("interp", {x}, {{DType::Float64, {1, 1, 4, 4}}},
                          interpAttrs("bilinear", c.alignCorners, c.alignMode), out)
                    .ok());
    std::vector<double> expected;
    for (double r : c.positions)
      for (double s : c.positions)
        expected.push_back(2 * r + s);
    expectClose(out[0], expected, 1e-12, 1e-12);
  }
}

TEST(InterpKernel, NearestConventions) {
  Tensor x = tensorOf(DType::Float32, {1, 1, 1, 3}, {10, 20, 30});
  std::vector<Tensor> out;
  // 3 → 5 without corners: ⌊0.6·k⌋ = 0, 0, 1, 1, 2.
  ASSERT_TRUE(runKernel("interp", {x}, {{DType::Float32, {1, 1, 1, 5}}},
                        interpAttrs("nearest", false, 1), out)
                  .ok());
  expectClose(out[0], {10, 10, 20, 20, 30}, 0, 0);
  // With corners: ⌊0.5·k + 0.5⌋ = 0, 1, 1, 2, 2.
  ASSERT_TRUE(runKernel("interp", {x}, {{DType::Float32, {1, 1, 1, 5}}},
                        interpAttrs("nearest", true, 1), out)
                  .ok());
  expectClose(out[0], {10, 20, 20, 30, 30}, 0, 0);
  // scale 2 (ratio 1/2) to 6: ⌊k/2⌋.
  ASSERT_TRUE(runKernel("interp", {x}, {{DType::Float32, {1, 1, 1, 6}}},
                        interpAttrs("nearest", false, 1, "NCHW", 2, 2), out)
                  .ok());
  expectClose(out[0], {10, 10, 20, 20, 30, 30}, 0, 0);
}

TEST(InterpKernel, NhwcMatchesNchw) {
  std::mt19937_64 rng(5);
  Tensor nchw = randomTensor(DType::Float64, {2, 3, 4, 5}, rng);
  std::vector<double> values;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t w = 0; w < 5; ++w)
        for (int64_t c = 0; c < 3; ++c)
          values.push_back(elementAt(nchw, flatIndex({2, 3, 4, 5}, {n, c, h, w})));
  Tensor nhwc = tensorOf(DType::Float64, {2, 4, 5, 3}, values);
  std::vector<Tensor> a, b;
  ASSERT_TRUE(runKernel("interp", {nchw}, {{DType::Float64, {2, 3, 7, 3}}},
                        interpAttrs("bilinear", false, 0), a)
                  .ok());
  ASSERT_TRUE(runKernel("interp", {nhwc}, {{DType::Float64, {2, 7, 3, 3}}},
                        interpAttrs("bilinear", false, 0, "NHWC"), b)
                  .ok());
  std::vector<double> expected;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t h = 0; h < 7; ++h)
      for (int64_t w = 0; w < 3; ++w)
        for (int64_t c = 0; c < 3; ++c)
          expected.push_back(elementAt(a[0], flatIndex({2, 3, 7, 3}, {n, c, h, w})));
  expectClose(b[0], expected, 0, 0);
}

TEST(InterpKernel, GradientIsTheAdjoint) {
  expectAdjoint("interp", {2, 3, 4, 5}, {2, 3, 7, 3}, interpAttrs("bilinear", false, 0),
                interpAttrs("bilinear", false, 0), 1);
  expectAdjoint("interp", {1, 2, 3, 4}, {1, 2, 6, 9}, interpAttrs("bilinear", true, 1),
                interpAttrs("bilinear", true, 1), 2);
  expectAdjoint("interp", {1, 5, 4, 2}, {1, 8, 3, 2},
                interpAttrs("nearest", false, 1, "NHWC"), interpAttrs("nearest", false, 1, "NHWC"),
                3);
}

TEST(InterpKernel, RejectsMismatchedChannels) {
  Tensor x = tensorOf(DType::Float32, {1, 2, 2, 2}, std::vector<double>(8, 1));
  std::vector<Tensor> out;
  EXPECT_FALSE(runKernel("interp", {x}, {{DType::Float32, {1, 3, 4, 4}}},
                         interpAttrs("bilinear", true, 1), out)
                   .ok());
  EXPECT_FALSE(runKernel("interp", {x}, {{DType::Float32, {1, 2, 4, 4}}},
                         interpAttrs("bicubic", true, 1), out)
                   .ok());
}

} // namespace
