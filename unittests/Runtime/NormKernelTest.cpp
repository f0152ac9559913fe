//===- NormKernelTest.cpp - batch_norm, affine_channel, arg_max and the
//                         activations with attributes --------------===//
//
// Forward kernels against float64 references written here; gradient
// kernels against central differences of their forward kernels in float64
// (numericGradient).
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

using namespace distc::testing;

namespace {

/// x's element index -> its channel, for x split at `axis`.
int64_t channelOf(const Shape &s, int64_t flat, int axis) { return unflatIndex(s, flat)[axis]; }

struct BatchNormRef {
  std::vector<double> y, meanOut, varOut, savedMean, savedInv;
};

/// Paddle's batch_norm in double: batch statistics (biased variance) unless
/// `global`.
BatchNormRef batchNormRef(const Tensor &x, const Tensor &scale, const Tensor &bias,
                          const Tensor &mean, const Tensor &var, int axis, double eps,
                          double momentum, bool global) {
  const Shape &s = x.shape();
  const int64_t c = s[axis], m = x.numel() / c;
  BatchNormRef r;
  std::vector<double> mu(c, 0), v(c, 0);
  for (int64_t i = 0; i < x.numel(); ++i)
    mu[channelOf(s, i, axis)] += elementAt(x, i) / double(m);
  for (int64_t i = 0; i < x.numel(); ++i)
    v[channelOf(s, i, axis)] +=
        std::pow(elementAt(x, i) - mu[channelOf(s, i, axis)], 2) / double(m);
  for (int64_t k = 0; k < c; ++k) {
    r.meanOut.push_back(global ? elementAt(mean, k)
                               : momentum * elementAt(mean, k) + (1 - momentum) * mu[k]);
    r.varOut.push_back(global ? elementAt(var, k)
                              : momentum * elementAt(var, k) + (1 - momentum) * v[k]);
    r.savedMean.push_back(global ? 0 : mu[k]);
    r.savedInv.push_back(global ? 0 : 1 / std::sqrt(v[k] + eps));
  }
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t k = channelOf(s, i, axis);
    const double mk = global ? elementAt(mean, k) : mu[k];
    const double vk = global ? elementAt(var, k) : v[k];
    r.y.push_back((elementAt(x, i) - mk) / std::sqrt(vk + eps) * elementAt(scale, k) +
                  elementAt(bias, k));
  }
  return r;
}

std::vector<AttrDesc> bnAttrs(int axis, bool global) {
  return {AttrDesc::ofInt("channel_axis", axis), AttrDesc::ofFloat("epsilon", 1e-5),
          AttrDesc::ofFloat("momentum", 0.9), AttrDesc::ofInt("global_stats", global)};
}

TEST(BatchNormKernel, TrainingAndGlobalMatchReference) {
  std::mt19937_64 rng(21);
  struct Layout {
    Shape shape;
    int axis;
  };
  for (DType dt : {DType::Float32, DType::Float64})
    for (const Layout &l : {Layout{{2, 3, 2, 2}, 1}, Layout{{2, 2, 3}, 2}, Layout{{4, 3}, 1}})
      for (bool global : {false, true}) {
        Tensor x = randomTensor(dt, l.shape, rng, -2, 3);
        Tensor scale = randomTensor(dt, {3}, rng), bias = randomTensor(dt, {3}, rng);
        Tensor mean = randomTensor(dt, {3}, rng), var = randomTensor(dt, {3}, rng, 0.5, 2);
        std::vector<Tensor> out;
        Status st = runKernel("batch_norm", {x, scale, bias, mean, var},
                              {{dt, l.shape}, {dt, {3}}, {dt, {3}}, {dt, {3}}, {dt, {3}}},
                              bnAttrs(l.axis, global), out);
        ASSERT_TRUE(st.ok()) << st.message();
        BatchNormRef r = batchNormRef(x, scale, bias, mean, var, l.axis, 1e-5, 0.9, global);
        const double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], r.y, tol, tol);
        expectClose(out[1], r.meanOut, tol, tol);
        expectClose(out[2], r.varOut, tol, tol);
        expectClose(out[3], r.savedMean, tol, tol);
        expectClose(out[4], r.savedInv, tol, tol);
      }
}

TEST(BatchNormKernel, OneElementPerChannelKeepsX) {
  Tensor x = tensorOf(DType::Float32, {1, 2}, {3, -4});
  Tensor ones = tensorOf(DType::Float32, {2}, {2, 2}),
         zeros = tensorOf(DType::Float32, {2}, {0, 0});
  std::vector<Tensor> out;
  ASSERT_TRUE(runKernel("batch_norm", {x, ones, zeros, zeros, ones},
                        {{DType::Float32, {1, 2}}, {DType::Float32, {2}}, {DType::Float32, {2}}},
                        bnAttrs(1, false), out)
                  .ok());
  expectClose(out[0], {3, -4}, 0, 0);
  expectClose(out[1], {0, 0}, 0, 0); // the running statistics stay
  expectClose(out[2], {2, 2}, 0, 0);
}

TEST(BatchNormKernel, RefusesMismatchedChannels) {
  std::mt19937_64 rng(22);
  Tensor x = randomTensor(DType::Float32, {2, 3, 2}, rng);
  Tensor c3 = randomTensor(DType::Float32, {3}, rng), c4 = randomTensor(DType::Float32, {4}, rng);
  std::vector<Tensor> out;
  Status st = runKernel("batch_norm", {x, c4, c3, c3, c3}, {{DType::Float32, {2, 3, 2}}},
                        bnAttrs(1, false), out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("scale"), std::string::npos) << st.message();
}

TEST(BatchNormGradKernel, MatchesDifferencesOfForward) {
  std::mt19937_64 rng(23);
  const DType dt = DType::Float64;
  struct Layout {
    Shape shape;
    int axis;
  };
  for (const Layout &l : {Layout{{2, 3, 2, 2}, 1}, Layout{{3, 2, 3}, 2}})
    for (bool global : {false, true}) {
      Tensor x = randomTensor(dt, l.shape, rng, -2, 3);
      Tensor scale = randomTensor(dt, {3}, rng), bias = randomTensor(dt, {3}, rng);
      Tensor mean = randomTensor(dt, {3}, rng), var = randomTensor(dt, {3}, rng, 0.5, 2);
      Tensor dy = randomTensor(dt, l.shape, rng);
      std::vector<Tensor> fwd;
      const std::vector<OutputSpec> specs = {
          {dt, l.shape}, {dt, {3}}, {dt, {3}}, {dt, {3}}, {dt, {3}}};
      ASSERT_TRUE(
          runKernel("batch_norm", {x, scale, bias, mean, var}, specs, bnAttrs(l.axis, global), fwd)
              .ok());
      // The gradient kernel reads the running statistics, or the saved ones.
      Tensor m = global ? mean : fwd[3], v = global ? var : fwd[4];
      std::vector<Tensor> grads;
      Status st =
          runKernel("batch_norm_grad", {x, scale, m, v, dy}, {{dt, l.shape}, {dt, {3}}, {dt, {3}}},
                    {AttrDesc::ofInt("channel_axis", l.axis), AttrDesc::ofFloat("epsilon", 1e-5),
                     AttrDesc::ofInt("global_stats", global)},
                    grads);
      ASSERT_TRUE(st.ok()) << st.message();
      for (int wrt = 0; wrt < 3; ++wrt)
        expectClose(grads[wrt],
                    numericGradient("batch_norm", {x, scale, bias, mean, var}, specs,
                                    bnAttrs(l.axis, global), 0, dy, wrt),
                    1e-6, 1e-7);
    }
}

TEST(AffineChannelKernel, ForwardAndGradient) {
  std::mt19937_64 rng(24);
  for (DType dt : {DType::Float32, DType::Float64})
    for (int axis : {1, 2}) {
      const Shape shape = {2, 3, 3};
      Tensor x = randomTensor(dt, shape, rng), scale = randomTensor(dt, {3}, rng),
             bias = randomTensor(dt, {3}, rng);
      std::vector<double> ref;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t c = channelOf(shape, i, axis);
        ref.push_back(elementAt(x, i) * elementAt(scale, c) + elementAt(bias, c));
      }
      std::vector<Tensor> out;
      const std::vector<AttrDesc> attrs = {AttrDesc::ofInt("channel_axis", axis)};
      ASSERT_TRUE(runKernel("affine_channel", {x, scale, bias}, {{dt, shape}}, attrs, out).ok());
      const double tol = dt == DType::Float32 ? 1e-6 : 1e-14;
      expectClose(out[0], ref, tol, tol);
      if (dt != DType::Float64)
        continue;
      Tensor dout = randomTensor(dt, shape, rng);
      std::vector<Tensor> grads;
      ASSERT_TRUE(runKernel("affine_channel_grad", {x, scale, dout},
                            {{dt, shape}, {dt, {3}}, {dt, {3}}}, attrs, grads)
                      .ok());
      for (int wrt = 0; wrt < 3; ++wrt)
        expectClose(
            grads[wrt],
            numericGradient("affine_channel", {x, scale, bias}, {{dt, shape}}, attrs, 0, dout, wrt),
            1e-7, 1e-8);
    }
}

struct Activation {
  const char *name;
  std::vector<AttrDesc> attrs;
  std::function<double(double)> f;
  bool gradFromOut; // the gradient kernel reads Out, not X
};

std::vector<Activation> activations() {
  auto clip = [](double v, double lo, double hi) { return std::min(std::max(v, lo), hi); };
  return {
      {"relu6", {AttrDesc::ofFloat("threshold", 4)}, [=](double v) { return clip(v, 0, 4); }, true},
      {"hard_swish",
       {AttrDesc::ofFloat("threshold", 6), AttrDesc::ofFloat("scale", 6),
        AttrDesc::ofFloat("offset", 3)},
       [=](double v) { return v * clip(v + 3, 0, 6) / 6; },
       false},
      {"hard_sigmoid",
       {AttrDesc::ofFloat("slope", 0.2), AttrDesc::ofFloat("offset", 0.5)},
       [=](double v) { return clip(0.2 * v + 0.5, 0, 1); },
       true},
      {"swish",
       {AttrDesc::ofFloat("beta", 1.5)},
       [](double v) { return v / (1 + std::exp(-1.5 * v)); },
       false},
      {"leaky_relu",
       {AttrDesc::ofFloat("alpha", 0.1)},
       [](double v) { return v > 0 ? v : 0.1 * v; },
       false},
  };
}

TEST(ParamActivationKernel, ForwardMatchesReference) {
  std::mt19937_64 rng(25);
  for (const Activation &a : activations())
    for (DType dt : {DType::Float32, DType::Float64}) {
      Tensor x = randomTensor(dt, {4, 25}, rng, -6, 6);
      std::vector<double> ref;
      for (int64_t i = 0; i < x.numel(); ++i)
        ref.push_back(a.f(elementAt(x, i)));
      std::vector<Tensor> out;
      ASSERT_TRUE(runKernel(a.name, {x}, {{dt, {4, 25}}}, a.attrs, out).ok()) << a.name;
      SCOPED_TRACE(a.name);
      expectClose(out[0], ref, dt == DType::Float32 ? 1e-6 : 1e-14, 1e-7);
    }
}

TEST(ParamActivationKernel, GradientMatchesDifferencesOfForward) {
  std::mt19937_64 rng(26);
  const DType dt = DType::Float64;
  for (const Activation &a : activations()) {
    // Kept 0.05 away from every kink (0, ±2.5, ±3, 4, 6).
    std::uniform_real_distribution<double> u(-6.9, 6.9);
    std::vector<double> xs;
    for (int i = 0; i < 60; ++i) {
      double v = u(rng);
      for (double kink : {0.0, -2.5, 2.5, -3.0, 3.0, 4.0, 6.0})
        if (std::abs(v - kink) < 0.05)
          v += 0.1;
      xs.push_back(v);
    }
    Tensor x = tensorOf(dt, {60}, xs), dout = randomTensor(dt, {60}, rng);
    std::vector<Tensor> fwd, grad;
    ASSERT_TRUE(runKernel(a.name, {x}, {{dt, {60}}}, a.attrs, fwd).ok());
    const std::string gradName = std::string(a.name) + "_grad";
    ASSERT_TRUE(
        runKernel(gradName, {a.gradFromOut ? fwd[0] : x, dout}, {{dt, {60}}}, a.attrs, grad).ok())
        << gradName;
    SCOPED_TRACE(gradName);
    expectClose(grad[0], numericGradient(a.name, {x}, {{dt, {60}}}, a.attrs, 0, dout, 0), 1e-6,
                1e-8);
  }
}

TEST(ArgMaxKernel, EveryAxisFirstOnTiesNaNLargest) {
  // [2, 3, 2]: ties on axis 1 at (0, *, 0); a NaN at (1, 2, 1).
  Tensor x = tensorOf(DType::Float32, {2, 3, 2}, {5, 1, 5, 2, 1, 2, 0, 3, 4, 3, 1, NAN});
  struct Case {
    int axis;
    Shape out;
    std::vector<double> want;
  };
  for (const Case &c : {Case{0, {3, 2}, {0, 1, 0, 1, 0, 1}}, Case{1, {2, 2}, {0, 1, 1, 2}},
                        Case{2, {2, 3}, {0, 0, 1, 1, 0, 1}}})
    for (DType idx : {DType::Int32, DType::Int64}) {
      std::vector<Tensor> out;
      ASSERT_TRUE(
          runKernel("arg_max", {x}, {{idx, c.out}}, {AttrDesc::ofInt("axis", c.axis)}, out).ok());
      expectClose(out[0], c.want, 0, 0);
    }
  Tensor ints = tensorOf(DType::Int64, {4}, {3, 9, -2, 9});
  std::vector<Tensor> out;
  ASSERT_TRUE(
      runKernel("arg_max", {ints}, {{DType::Int64, {}}}, {AttrDesc::ofInt("axis", 0)}, out).ok());
  expectClose(out[0], {1}, 0, 0);
  Status st =
      runKernel("arg_max", {ints}, {{DType::Float32, {}}}, {AttrDesc::ofInt("axis", 0)}, out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("Int32 or Int64"), std::string::npos) << st.message();
}

} // namespace
