//===- OptimizerKernelTest.cpp - sgd, momentum, adam, adagrad, rmsprop, ftrl ===//
//
// Each optimizer against a float64 transcription of Paddle's update over
// several consecutive steps, feeding every step's outputs back as the next
// step's state; and the in-place form the compiler emits (outputs are the
// input buffers of persistent parameters and state) through a Session.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace distc::testing;

namespace {

std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = elementAt(t, i);
  return v;
}

Tensor scalar(DType dtype, double v) { return tensorOf(dtype, {1}, {v}); }

double tolerance(DType dt) { return dt == DType::Float32 ? 2e-6 : 1e-13; }

TEST(SgdKernel, SeveralStepsAgainstReference) {
  std::mt19937_64 rng(200);
  const Shape shape = {3, 4};
  for (DType dt : {DType::Float32, DType::Float64})
    for (DType lrType : {DType::Float32, DType::Float64}) {
      Tensor param = randomTensor(dt, shape, rng);
      std::vector<double> ref = valuesOf(param);
      for (int step = 0; step < 3; ++step) {
        Tensor grad = randomTensor(dt, shape, rng);
        const double lr = 0.1 * (step + 1);
        std::vector<Tensor> out;
        Status s = runKernel("sgd", {param, grad, scalar(lrType, lr)}, {{dt, shape}}, {}, out);
        ASSERT_TRUE(s.ok()) << s.message();
        const double lrRead = elementAt(scalar(lrType, lr), 0);
        for (size_t i = 0; i < ref.size(); ++i)
          ref[i] -= lrRead * elementAt(grad, int64_t(i));
        expectClose(out[0], ref, tolerance(dt), tolerance(dt));
        param = out[0];
        ref = valuesOf(param); // continue from the rounded state
      }
    }
}

struct MomentumCase {
  bool nesterov;
  double coeff; // regularization_coeff; 0 = absent attribute
};

TEST(MomentumKernel, SeveralStepsAgainstReference) {
  std::mt19937_64 rng(201);
  const Shape shape = {5, 2};
  const double mu = 0.9, lr = 0.05;
  for (DType dt : {DType::Float32, DType::Float64})
    for (MomentumCase c : {MomentumCase{false, 0}, MomentumCase{true, 0}, MomentumCase{false, 0.01},
                           MomentumCase{true, 0.02}}) {
      SCOPED_TRACE(std::string("nesterov ") + (c.nesterov ? "1" : "0") + " coeff " +
                   std::to_string(c.coeff));
      std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("mu", mu)};
      if (c.nesterov)
        attrs.push_back(AttrDesc::ofInt("use_nesterov", 1));
      if (c.coeff != 0)
        attrs.push_back(AttrDesc::ofFloat("regularization_coeff", c.coeff));
      Tensor param = randomTensor(dt, shape, rng);
      Tensor velocity(dt, shape);
      for (int step = 0; step < 4; ++step) {
        Tensor grad = randomTensor(dt, shape, rng);
        std::vector<double> p = valuesOf(param), v = valuesOf(velocity);
        for (size_t i = 0; i < p.size(); ++i) {
          const double g = elementAt(grad, int64_t(i)) + c.coeff * p[i];
          v[i] = mu * v[i] + g;
          p[i] -= c.nesterov ? lr * (g + mu * v[i]) : lr * v[i];
        }
        std::vector<Tensor> out;
        Status s = runKernel("momentum", {param, grad, velocity, scalar(DType::Float64, lr)},
                             {{dt, shape}, {dt, shape}}, attrs, out);
        ASSERT_TRUE(s.ok()) << s.message();
        expectClose(out[0], p, tolerance(dt), tolerance(dt));
        expectClose(out[1], v, tolerance(dt), tolerance(dt));
        param = out[0];
        velocity = out[1];
      }
    }
}

/// Paddle's adam/adamw in float64, one step on (p, m1, m2, b1pow, b2pow).
struct AdamState {
  std::vector<double> p, m1, m2;
  double b1pow, b2pow;
};

struct AdamConfig {
  double beta1, beta2, epsilon, weightDecay;
  bool decoupled;
};

void adamReference(AdamState &s, const Tensor &grad, double lr, const AdamConfig &c) {
  const double lrT = lr * std::sqrt(1 - s.b2pow) / (1 - s.b1pow);
  for (size_t i = 0; i < s.p.size(); ++i) {
    const double g = elementAt(grad, int64_t(i));
    if (c.decoupled)
      s.p[i] -= lr * c.weightDecay * s.p[i];
    s.m1[i] = c.beta1 * s.m1[i] + (1 - c.beta1) * g;
    s.m2[i] = c.beta2 * s.m2[i] + (1 - c.beta2) * g * g;
    s.p[i] -= lrT * s.m1[i] / (std::sqrt(s.m2[i]) + c.epsilon * std::sqrt(1 - s.b2pow));
  }
  s.b1pow *= c.beta1;
  s.b2pow *= c.beta2;
}

std::vector<AttrDesc> adamAttrs(const AdamConfig &c) {
  std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("beta1", c.beta1),
                                 AttrDesc::ofFloat("beta2", c.beta2),
                                 AttrDesc::ofFloat("epsilon", c.epsilon)};
  if (c.decoupled) {
    attrs.push_back(AttrDesc::ofFloat("weight_decay", c.weightDecay));
    attrs.push_back(AttrDesc::ofInt("decoupled", 1));
  }
  return attrs;
}

TEST(AdamKernel, AdamAndAdamwSeveralStepsAgainstReference) {
  std::mt19937_64 rng(202);
  const Shape shape = {4, 3};
  const double lr = 0.01;
  for (DType dt : {DType::Float32, DType::Float64})
    for (AdamConfig c :
         {AdamConfig{0.9, 0.999, 1e-8, 0, false}, AdamConfig{0.8, 0.99, 1e-6, 0.01, true}}) {
      SCOPED_TRACE(c.decoupled ? "adamw" : "adam");
      // Beta powers in f32 (as Paddle keeps them), independent of dt.
      const DType powType = DType::Float32;
      Tensor param = randomTensor(dt, shape, rng);
      Tensor m1(dt, shape), m2(dt, shape);
      Tensor b1pow = scalar(powType, c.beta1), b2pow = scalar(powType, c.beta2);
      for (int step = 0; step < 4; ++step) {
        Tensor grad = randomTensor(dt, shape, rng);
        AdamState ref{valuesOf(param), valuesOf(m1), valuesOf(m2), elementAt(b1pow, 0),
                      elementAt(b2pow, 0)};
        adamReference(ref, grad, lr, c);
        std::vector<Tensor> out;
        Status s =
            runKernel("adam", {param, grad, m1, m2, b1pow, b2pow, scalar(DType::Float64, lr)},
                      {{dt, shape}, {dt, shape}, {dt, shape}, {powType, {1}}, {powType, {1}}},
                      adamAttrs(c), out);
        ASSERT_TRUE(s.ok()) << s.message();
        // The update divides by sqrt(m2) + eps', so float32 rounding of the
        // state shows up slightly amplified.
        const double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], ref.p, tol, tol);
        expectClose(out[1], ref.m1, tol, tol);
        expectClose(out[2], ref.m2, tol, tol);
        expectClose(out[3], {ref.b1pow}, 1e-7, 0);
        expectClose(out[4], {ref.b2pow}, 1e-7, 0);
        param = out[0];
        m1 = out[1];
        m2 = out[2];
        b1pow = out[3];
        b2pow = out[4];
      }
    }
}

TEST(AdamKernel, WeightDecayOnlyAppliesWhenDecoupled) {
  std::mt19937_64 rng(203);
  Tensor param = randomTensor(DType::Float64, {6}, rng);
  Tensor grad = randomTensor(DType::Float64, {6}, rng);
  Tensor zeros(DType::Float64, {6});
  const std::vector<Tensor> inputs = {param,
                                      grad,
                                      zeros,
                                      zeros,
                                      scalar(DType::Float64, 0.9),
                                      scalar(DType::Float64, 0.999),
                                      scalar(DType::Float64, 0.1)};
  const std::vector<OutputSpec> specs = {{DType::Float64, {6}},
                                         {DType::Float64, {6}},
                                         {DType::Float64, {6}},
                                         {DType::Float64, {1}},
                                         {DType::Float64, {1}}};
  std::vector<AttrDesc> attrs = adamAttrs({0.9, 0.999, 1e-8, 0, false});
  std::vector<Tensor> plain, withDecay;
  ASSERT_TRUE(runKernel("adam", inputs, specs, attrs, plain).ok());
  attrs.push_back(AttrDesc::ofFloat("weight_decay", 0.5));
  ASSERT_TRUE(runKernel("adam", inputs, specs, attrs, withDecay).ok());
  expectClose(withDecay[0], valuesOf(plain[0]), 0, 0);
}

//===----------------------------------------------------------------------===//
// adagrad / decayed_adagrad, rmsprop, ftrl: Paddle's formulas in float64
//===----------------------------------------------------------------------===//

TEST(AdagradKernel, AdagradAndDecayedSeveralStepsAgainstReference) {
  std::mt19937_64 rng(205);
  const Shape shape = {3, 5};
  const double lr = 0.05, eps = 1e-6, decay = 0.9;
  for (DType dt : {DType::Float32, DType::Float64})
    for (bool decayed : {false, true}) {
      SCOPED_TRACE(decayed ? "decayed_adagrad" : "adagrad");
      std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("epsilon", eps)};
      if (decayed) {
        attrs.push_back(AttrDesc::ofFloat("decay", decay));
        attrs.push_back(AttrDesc::ofInt("decayed", 1));
      }
      Tensor param = randomTensor(dt, shape, rng);
      // Adagrad's moment may start above 0 (initial_accumulator_value).
      Tensor moment = randomTensor(dt, shape, rng, 0, 0.5);
      for (int step = 0; step < 4; ++step) {
        Tensor grad = randomTensor(dt, shape, rng);
        std::vector<double> p = valuesOf(param), m = valuesOf(moment);
        for (size_t i = 0; i < p.size(); ++i) {
          const double g = elementAt(grad, int64_t(i));
          m[i] = decayed ? decay * m[i] + (1 - decay) * g * g : m[i] + g * g;
          p[i] -= lr * g / (std::sqrt(m[i]) + eps);
        }
        std::vector<Tensor> out;
        Status s = runKernel("adagrad", {param, grad, moment, scalar(DType::Float32, lr)},
                             {{dt, shape}, {dt, shape}}, attrs, out);
        ASSERT_TRUE(s.ok()) << s.message();
        // lr is read as float32, as Paddle's learning-rate variable is.
        const double tol = dt == DType::Float32 ? 1e-5 : 1e-7;
        expectClose(out[0], p, tol, tol);
        expectClose(out[1], m, tol, tol);
        param = out[0];
        moment = out[1];
      }
    }
}

/// Paddle's rmsprop in float64 on (p, moment, mean_square, mean_grad).
struct RmspropState {
  std::vector<double> p, mom, ms, mg;
};

struct RmspropConfig {
  double rho, eps, momentum;
  bool centered;
};

void rmspropReference(RmspropState &s, const Tensor &grad, double lr, const RmspropConfig &c) {
  for (size_t i = 0; i < s.p.size(); ++i) {
    const double g = elementAt(grad, int64_t(i));
    s.ms[i] = c.rho * s.ms[i] + (1 - c.rho) * g * g;
    double denominator = s.ms[i] + c.eps;
    if (c.centered) {
      s.mg[i] = c.rho * s.mg[i] + (1 - c.rho) * g;
      denominator -= s.mg[i] * s.mg[i];
    }
    s.mom[i] = c.momentum * s.mom[i] + lr * g / std::sqrt(denominator);
    s.p[i] -= s.mom[i];
  }
}

std::vector<AttrDesc> rmspropAttrs(const RmspropConfig &c) {
  return {AttrDesc::ofFloat("decay", c.rho), AttrDesc::ofFloat("epsilon", c.eps),
          AttrDesc::ofFloat("momentum", c.momentum), AttrDesc::ofInt("centered", c.centered)};
}

TEST(RmspropKernel, PlainAndCenteredSeveralStepsAgainstReference) {
  std::mt19937_64 rng(206);
  const Shape shape = {4, 3};
  const double lr = 0.01;
  for (DType dt : {DType::Float32, DType::Float64})
    for (RmspropConfig c :
         {RmspropConfig{0.9, 1e-10, 0.0, false}, RmspropConfig{0.95, 1e-6, 0.5, false},
          RmspropConfig{0.95, 1e-6, 0.3, true}}) {
      SCOPED_TRACE(std::string(c.centered ? "centered" : "plain") + " momentum " +
                   std::to_string(c.momentum));
      Tensor param = randomTensor(dt, shape, rng);
      // Centered, the mean gradient starts at 0 as Paddle's accumulator does
      // (ms - mg^2 stays positive); not centered, any value passes through.
      Tensor moment(dt, shape), meanSquare(dt, shape);
      Tensor meanGrad = c.centered ? Tensor(dt, shape) : randomTensor(dt, shape, rng);
      for (int step = 0; step < 4; ++step) {
        Tensor grad = randomTensor(dt, shape, rng);
        RmspropState ref{valuesOf(param), valuesOf(moment), valuesOf(meanSquare),
                         valuesOf(meanGrad)};
        rmspropReference(ref, grad, lr, c);
        std::vector<Tensor> out;
        Status s = runKernel(
            "rmsprop", {param, grad, moment, meanSquare, scalar(DType::Float64, lr), meanGrad},
            {{dt, shape}, {dt, shape}, {dt, shape}, {dt, shape}}, rmspropAttrs(c), out);
        ASSERT_TRUE(s.ok()) << s.message();
        const double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], ref.p, tol, tol);
        expectClose(out[1], ref.mom, tol, tol);
        expectClose(out[2], ref.ms, tol, tol);
        // Not centered, MeanGrad passes through unchanged.
        expectClose(out[3], ref.mg, tol, tol);
        param = out[0];
        moment = out[1];
        meanSquare = out[2];
        meanGrad = out[3];
      }
    }
}

TEST(RmspropKernel, MeanGradIsOptionalUnlessCentered) {
  std::mt19937_64 rng(207);
  const Shape shape = {5};
  Tensor param = randomTensor(DType::Float64, shape, rng);
  Tensor grad = randomTensor(DType::Float64, shape, rng);
  Tensor zeros(DType::Float64, shape);
  const RmspropConfig plain{0.9, 1e-10, 0.1, false};
  RmspropState ref{valuesOf(param), valuesOf(zeros), valuesOf(zeros), valuesOf(zeros)};
  rmspropReference(ref, grad, 0.02, plain);
  std::vector<Tensor> out;
  Status s = runKernel("rmsprop", {param, grad, zeros, zeros, scalar(DType::Float64, 0.02)},
                       {{DType::Float64, shape}, {DType::Float64, shape}, {DType::Float64, shape}},
                       rmspropAttrs(plain), out);
  ASSERT_TRUE(s.ok()) << s.message();
  expectClose(out[0], ref.p, 1e-12, 1e-12);
  s = runKernel("rmsprop", {param, grad, zeros, zeros, scalar(DType::Float64, 0.02)},
                {{DType::Float64, shape}, {DType::Float64, shape}, {DType::Float64, shape}},
                rmspropAttrs({0.9, 1e-10, 0.1, true}), out);
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.message(), "centered rmsprop needs mean_grad and mean_grad_out");
}

/// Paddle's ftrl in float64 (test_ftrl_op.py's ftrl_step): l1 and l2 each
/// carry 1e-10 more, and the parameter is 0 where |linear| <= l1.
struct FtrlConfig {
  double l1, l2, lrPower;
};

void ftrlReference(std::vector<double> &p, std::vector<double> &sq, std::vector<double> &lin,
                   const Tensor &grad, double lr, const FtrlConfig &c) {
  const double l1 = c.l1 + 1e-10, l2 = c.l2 + 1e-10, k = -c.lrPower;
  for (size_t i = 0; i < p.size(); ++i) {
    const double g = elementAt(grad, int64_t(i));
    const double n = sq[i] + g * g;
    lin[i] += g - (std::pow(n, k) - std::pow(sq[i], k)) / lr * p[i];
    const double sign = lin[i] > 0 ? 1 : lin[i] < 0 ? -1 : 0;
    p[i] = std::abs(lin[i]) > l1 ? (l1 * sign - lin[i]) / (std::pow(n, k) / lr + 2 * l2) : 0.0;
    sq[i] = n;
  }
}

TEST(FtrlKernel, SeveralStepsAgainstReference) {
  std::mt19937_64 rng(208);
  const Shape shape = {6, 4};
  const double lr = 0.1;
  for (DType dt : {DType::Float32, DType::Float64})
    for (FtrlConfig c :
         {FtrlConfig{0, 0, -0.5}, FtrlConfig{0.1, 0.2, -0.5}, FtrlConfig{0.5, 0.1, -0.6}}) {
      SCOPED_TRACE("l1 " + std::to_string(c.l1) + " lr_power " + std::to_string(c.lrPower));
      std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("l1", c.l1), AttrDesc::ofFloat("l2", c.l2),
                                     AttrDesc::ofFloat("lr_power", c.lrPower)};
      Tensor param = randomTensor(dt, shape, rng);
      // Paddle's op test starts both accumulators at 0.1; the optimizer at 0.
      Tensor squared = tensorOf(dt, shape, std::vector<double>(24, 0.1));
      Tensor linear = tensorOf(dt, shape, std::vector<double>(24, 0.1));
      int zeros = 0;
      for (int step = 0; step < 4; ++step) {
        Tensor grad = randomTensor(dt, shape, rng);
        std::vector<double> p = valuesOf(param), sq = valuesOf(squared), lin = valuesOf(linear);
        ftrlReference(p, sq, lin, grad, lr, c);
        std::vector<Tensor> out;
        Status s = runKernel("ftrl", {param, grad, squared, linear, scalar(DType::Float64, lr)},
                             {{dt, shape}, {dt, shape}, {dt, shape}}, attrs, out);
        ASSERT_TRUE(s.ok()) << s.message();
        const double tol = dt == DType::Float32 ? 1e-5 : 1e-12;
        expectClose(out[0], p, tol, tol);
        expectClose(out[1], sq, tol, tol);
        expectClose(out[2], lin, tol, tol);
        zeros += int(std::count(p.begin(), p.end(), 0.0));
        param = out[0];
        squared = out[1];
        linear = out[2];
      }
      // l1 shrinks some parameters to exactly 0.
      if (c.l1 > 0) {
        EXPECT_GT(zeros, 0);
      }
    }
}

TEST(OptimizerKernels, RejectBadOperands) {
  Tensor param(DType::Float32, {2, 3}), grad(DType::Float32, {3, 2}),
      shortGrad(DType::Float32, {5});
  std::vector<Tensor> out;
  Status s = runKernel("sgd", {param, shortGrad, scalar(DType::Float32, 0.1)},
                       {{DType::Float32, {2, 3}}}, {}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(s.message(), "grad has 5 elements");
  EXPECT_CONTAINS(s.message(), "sgd -> out0");
  s = runKernel("sgd", {param, grad, tensorOf(DType::Float32, {2}, {0.1, 0.2})},
                {{DType::Float32, {2, 3}}}, {}, out);
  EXPECT_CONTAINS(s.message(), "lr f32[2] must have exactly one element");
  s = runKernel("sgd", {param, grad, scalar(DType::Int32, 1)}, {{DType::Float32, {2, 3}}}, {}, out);
  EXPECT_CONTAINS(s.message(), "lr has dtype i32, expected f32 or f64");
  s = runKernel(
      "momentum", {param, grad, Tensor(DType::Float64, {2, 3}), scalar(DType::Float32, 1)},
      {{DType::Float32, {2, 3}}, {DType::Float32, {2, 3}}}, {AttrDesc::ofFloat("mu", 0.9)}, out);
  EXPECT_CONTAINS(s.message(), "velocity has dtype f64 but param has f32");
  Tensor one = scalar(DType::Float32, 0.5);
  s = runKernel("adam", {param, grad, param, param, one, one, one},
                {{DType::Float32, {2, 3}},
                 {DType::Float32, {2, 3}},
                 {DType::Float32, {2, 3}},
                 {DType::Int64, {1}},
                 {DType::Float32, {1}}},
                adamAttrs({0.9, 0.999, 1e-8, 0, false}), out);
  EXPECT_CONTAINS(s.message(), "beta1_pow_out has dtype i64");
  s = runKernel("adagrad", {param, param, Tensor(DType::Float32, {5}), one},
                {{DType::Float32, {2, 3}}, {DType::Float32, {2, 3}}},
                {AttrDesc::ofFloat("epsilon", 1e-6)}, out);
  EXPECT_CONTAINS(s.message(), "moment has 5 elements");
  s = runKernel(
      "ftrl", {param, param, param, Tensor(DType::Float64, {2, 3}), one},
      {{DType::Float32, {2, 3}}, {DType::Float32, {2, 3}}, {DType::Float32, {2, 3}}},
      {AttrDesc::ofFloat("l1", 0), AttrDesc::ofFloat("l2", 0), AttrDesc::ofFloat("lr_power", -0.5)},
      out);
  EXPECT_CONTAINS(s.message(), "linear_accum has dtype f64 but param has f32");
}

//===----------------------------------------------------------------------===//
// In place, as compiled training programs call them
//===----------------------------------------------------------------------===//

/// A train program whose optimizer writes persistent parameters and state
/// in place: every output buffer index is also one of the call's inputs.
TEST(OptimizerKernels, UpdateInPlaceThroughASession) {
  const Shape shape = {2, 3};
  const AdamConfig c{0.9, 0.999, 1e-8, 0.01, true};
  const double lr = 0.02, mu = 0.9;
  ArtifactBuilder b;
  int w = b.buffer("w", DType::Float32, shape, BufferKind::Persistent);
  int m1 = b.buffer("w_moment1", DType::Float32, shape, BufferKind::Persistent);
  int m2 = b.buffer("w_moment2", DType::Float32, shape, BufferKind::Persistent);
  int b1p = b.buffer("w_beta1_pow", DType::Float32, Shape{1}, BufferKind::Persistent);
  int b2p = b.buffer("w_beta2_pow", DType::Float32, Shape{1}, BufferKind::Persistent);
  int u = b.buffer("u", DType::Float64, shape, BufferKind::Persistent);
  int vel = b.buffer("u_velocity", DType::Float64, shape, BufferKind::Persistent);
  int rate = b.buffer("learning_rate", DType::Float32, Shape{1}, BufferKind::Persistent);
  int g = b.buffer("g", DType::Float32, shape, BufferKind::Feed);
  int gu = b.buffer("gu", DType::Float64, shape, BufferKind::Feed);
  auto &start = b.program("train", ProgramKind::Startup);
  b.call(start, "uniform_random", {}, {w},
         {AttrDesc::ofFloat("min", -1), AttrDesc::ofFloat("max", 1), AttrDesc::ofInt("seed", 7)});
  b.call(start, "uniform_random", {}, {u},
         {AttrDesc::ofFloat("min", -1), AttrDesc::ofFloat("max", 1), AttrDesc::ofInt("seed", 8)});
  for (int zero : {m1, m2, vel})
    b.call(start, "fill", {}, {zero}, {AttrDesc::ofFloat("value", 0)});
  b.call(start, "fill", {}, {b1p}, {AttrDesc::ofFloat("value", c.beta1)});
  b.call(start, "fill", {}, {b2p}, {AttrDesc::ofFloat("value", c.beta2)});
  b.call(start, "fill", {}, {rate}, {AttrDesc::ofFloat("value", lr)});
  auto &main = b.program("train");
  main.feeds = {{"g", g}, {"gu", gu}};
  main.fetches = {{"w", w}};
  b.call(main, "adam", {w, g, m1, m2, b1p, b2p, rate}, {w, m1, m2, b1p, b2p}, adamAttrs(c),
         "adamw -> w");
  b.call(main, "momentum", {u, gu, vel, rate}, {u, vel},
         {AttrDesc::ofFloat("mu", mu), AttrDesc::ofInt("use_nesterov", 1)}, "momentum -> u");

  auto session = b.session();
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->initialize("train").ok());
  const double lrRead = double(float(lr));
  AdamState ref{valuesOf(session->persistent("w")), std::vector<double>(6, 0.0),
                std::vector<double>(6, 0.0), double(float(c.beta1)), double(float(c.beta2))};
  std::vector<double> uRef = valuesOf(session->persistent("u")), vRef(6, 0.0);
  std::mt19937_64 rng(204);
  for (int step = 0; step < 3; ++step) {
    TensorMap feeds = {{"g", randomTensor(DType::Float32, shape, rng)},
                       {"gu", randomTensor(DType::Float64, shape, rng)}};
    TensorMap fetches;
    Status s = session->run("train", feeds, fetches);
    ASSERT_TRUE(s.ok()) << s.message();
    adamReference(ref, feeds["g"], lrRead, c);
    for (size_t i = 0; i < uRef.size(); ++i) {
      const double gi = elementAt(feeds["gu"], int64_t(i));
      vRef[i] = mu * vRef[i] + gi;
      uRef[i] -= lrRead * (gi + mu * vRef[i]);
    }
    expectClose(fetches["w"], ref.p, 1e-5, 1e-5);
    expectClose(session->persistent("w_moment1"), ref.m1, 1e-5, 1e-6);
    expectClose(session->persistent("w_moment2"), ref.m2, 1e-5, 1e-7);
    expectClose(session->persistent("w_beta1_pow"), {ref.b1pow}, 1e-6, 0);
    expectClose(session->persistent("w_beta2_pow"), {ref.b2pow}, 1e-6, 0);
    expectClose(session->persistent("u"), uRef, 1e-12, 1e-12);
    expectClose(session->persistent("u_velocity"), vRef, 1e-12, 1e-12);
    // Continue the reference from the stored (rounded) float32 state.
    ref = {valuesOf(session->persistent("w")), valuesOf(session->persistent("w_moment1")),
           valuesOf(session->persistent("w_moment2")),
           elementAt(session->persistent("w_beta1_pow"), 0),
           elementAt(session->persistent("w_beta2_pow"), 0)};
  }
}

} // namespace
