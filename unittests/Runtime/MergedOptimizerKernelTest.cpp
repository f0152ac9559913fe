//===- MergedOptimizerKernelTest.cpp - merged_sgd, merged_momentum, merged_adam ===//
//
// Each merged kernel against its one-parameter kernel called once per
// parameter, which must give the same bits, over parameters of different
// sizes (single elements, a few, and one large enough that the loop over
// all of them is split over threads in pieces that span parameters), both
// dtypes and one and several kernel threads; the in-place form compiled
// training programs use, through a Session; and the errors of operands
// that do not fit, which name the parameter's index.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace distc::testing;
using distc::runtime::dtypeName;

namespace {

/// Parameter shapes: tiny ones around a large one (300·250 elements is
/// more than two pieces of the cheapest loops' grain, so with several
/// threads pieces start inside it and end in the next parameter).
const std::vector<Shape> kShapes = {{1}, {3}, {2, 5}, {300, 250}, {17}, {4, 4, 2}};

/// Expects the same dtype, shape and bits.
std::vector<Tensor> randomTensors(DType dt, std::mt19937_64 &rng, double lo = -1, double hi = 1) {
  std::vector<Tensor> ts;
  for (const Shape &s : kShapes)
    ts.push_back(randomTensor(dt, s, rng, lo, hi));
  return ts;
}

Tensor scalar(DType dtype, double v) { return tensorOf(dtype, {1}, {v}); }

/// Concatenates lists of operands (the merged kernels' grouped layout).
template <typename T> std::vector<T> concat(std::initializer_list<std::vector<T>> lists) {
  std::vector<T> out;
  for (const std::vector<T> &l : lists)
    out.insert(out.end(), l.begin(), l.end());
  return out;
}

std::vector<OutputSpec> specsLike(const std::vector<Tensor> &ts) {
  std::vector<OutputSpec> specs;
  for (const Tensor &t : ts)
    specs.push_back({t.dtype(), t.shape()});
  return specs;
}

std::vector<AttrDesc> withCount(std::vector<AttrDesc> attrs, size_t n) {
  attrs.push_back(AttrDesc::ofInt("count", int64_t(n)));
  return attrs;
}

TEST(MergedSgdKernel, BitwiseSgdPerParameter) {
  std::mt19937_64 rng(300);
  for (int threads : {1, 4}) {
    KernelThreads scope(threads);
    for (DType dt : {DType::Float32, DType::Float64}) {
      SCOPED_TRACE(std::string(dtypeName(dt)) + " threads " + std::to_string(threads));
      const std::vector<Tensor> params = randomTensors(dt, rng), grads = randomTensors(dt, rng);
      const Tensor lr = scalar(DType::Float32, 0.1);
      std::vector<Tensor> merged;
      Status s = runKernel("merged_sgd", concat<Tensor>({params, grads, {lr}}), specsLike(params),
                           withCount({}, params.size()), merged);
      ASSERT_TRUE(s.ok()) << s.message();
      ASSERT_EQ(merged.size(), params.size());
      for (size_t i = 0; i < params.size(); ++i) {
        std::vector<Tensor> one;
        s = runKernel("sgd", {params[i], grads[i], lr}, specsLike({params[i]}), {}, one);
        ASSERT_TRUE(s.ok()) << s.message();
        expectSameBits(merged[i], one[0], "param_out[" + std::to_string(i) + "]");
      }
    }
  }
}

TEST(MergedMomentumKernel, BitwiseMomentumPerParameter) {
  std::mt19937_64 rng(301);
  for (int threads : {1, 4}) {
    KernelThreads scope(threads);
    for (DType dt : {DType::Float32, DType::Float64})
      for (bool nesterov : {false, true}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " threads " + std::to_string(threads) +
                     (nesterov ? " nesterov" : ""));
        const std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("mu", 0.9),
                                             AttrDesc::ofFloat("regularization_coeff", 0.01),
                                             AttrDesc::ofInt("use_nesterov", nesterov)};
        const std::vector<Tensor> params = randomTensors(dt, rng), grads = randomTensors(dt, rng);
        const std::vector<Tensor> velocities = randomTensors(dt, rng);
        const Tensor lr = scalar(DType::Float64, 0.05);
        std::vector<Tensor> merged;
        Status s = runKernel("merged_momentum", concat<Tensor>({params, grads, velocities, {lr}}),
                             specsLike(concat<Tensor>({params, velocities})),
                             withCount(attrs, params.size()), merged);
        ASSERT_TRUE(s.ok()) << s.message();
        const size_t n = params.size();
        ASSERT_EQ(merged.size(), 2 * n);
        for (size_t i = 0; i < n; ++i) {
          std::vector<Tensor> one;
          s = runKernel("momentum", {params[i], grads[i], velocities[i], lr},
                        specsLike({params[i], velocities[i]}), attrs, one);
          ASSERT_TRUE(s.ok()) << s.message();
          expectSameBits(merged[i], one[0], "param_out[" + std::to_string(i) + "]");
          expectSameBits(merged[n + i], one[1], "velocity_out[" + std::to_string(i) + "]");
        }
      }
  }
}

std::vector<AttrDesc> adamAttrs(bool decoupled) {
  std::vector<AttrDesc> attrs = {AttrDesc::ofFloat("beta1", 0.9), AttrDesc::ofFloat("beta2", 0.99),
                                 AttrDesc::ofFloat("epsilon", 1e-6)};
  if (decoupled) {
    attrs.push_back(AttrDesc::ofInt("decoupled", 1));
    attrs.push_back(AttrDesc::ofFloat("weight_decay", 0.01));
  }
  return attrs;
}

TEST(MergedAdamKernel, BitwiseAdamPerParameter) {
  std::mt19937_64 rng(302);
  for (int threads : {1, 4}) {
    KernelThreads scope(threads);
    for (DType dt : {DType::Float32, DType::Float64})
      for (bool decoupled : {false, true}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " threads " + std::to_string(threads) +
                     (decoupled ? " adamw" : " adam"));
        const std::vector<AttrDesc> attrs = adamAttrs(decoupled);
        const std::vector<Tensor> params = randomTensors(dt, rng), grads = randomTensors(dt, rng);
        const std::vector<Tensor> m1 = randomTensors(dt, rng), m2 = randomTensors(dt, rng, 0, 1);
        // Every parameter at another step, its beta powers f32 or f64.
        std::vector<Tensor> b1pows, b2pows;
        for (size_t i = 0; i < params.size(); ++i) {
          const DType powType = i % 2 ? DType::Float64 : DType::Float32;
          b1pows.push_back(scalar(powType, std::pow(0.9, double(i + 1))));
          b2pows.push_back(scalar(powType, std::pow(0.99, double(i + 1))));
        }
        const Tensor lr = scalar(DType::Float32, 0.01);
        std::vector<Tensor> merged;
        Status s =
            runKernel("merged_adam", concat<Tensor>({params, grads, m1, m2, b1pows, b2pows, {lr}}),
                      specsLike(concat<Tensor>({params, m1, m2, b1pows, b2pows})),
                      withCount(attrs, params.size()), merged);
        ASSERT_TRUE(s.ok()) << s.message();
        const size_t n = params.size();
        ASSERT_EQ(merged.size(), 5 * n);
        for (size_t i = 0; i < n; ++i) {
          std::vector<Tensor> one;
          s = runKernel("adam", {params[i], grads[i], m1[i], m2[i], b1pows[i], b2pows[i], lr},
                        specsLike({params[i], m1[i], m2[i], b1pows[i], b2pows[i]}), attrs, one);
          ASSERT_TRUE(s.ok()) << s.message();
          const char *names[] = {"param_out", "moment1_out", "moment2_out", "beta1_pow_out",
                                 "beta2_pow_out"};
          for (size_t k = 0; k < 5; ++k)
            expectSameBits(merged[k * n + i], one[k],
                           std::string(names[k]) + "[" + std::to_string(i) + "]");
        }
      }
  }
}

/// merged_adam, merged_momentum and merged_sgd updating persistent
/// buffers in place (each output is its input's buffer), beside the
/// one-parameter kernels doing the same on a copy of the state: after a
/// few steps both copies hold the same bits.
TEST(MergedOptimizerKernels, UpdateInPlaceThroughASession) {
  const DType f = DType::Float32;
  const std::vector<Shape> shapes = {{1}, {3, 2}, {200, 90}, {5}};
  const size_t n = shapes.size();
  ArtifactBuilder b;
  auto &start = b.program("train", ProgramKind::Startup);
  const int rate = b.buffer("lr", f, Shape{1}, BufferKind::Persistent);
  b.call(start, "fill", {}, {rate}, {AttrDesc::ofFloat("value", 0.02)});
  // Per copy ("merged", "single") and parameter: the state of each optimizer.
  struct State {
    std::vector<int32_t> adamP, m1, m2, b1p, b2p, momP, vel, sgdP;
  };
  State st[2];
  std::vector<int32_t> grads;
  for (size_t i = 0; i < n; ++i) {
    const std::string idx = std::to_string(i);
    grads.push_back(b.buffer("g" + idx, f, shapes[i], BufferKind::Feed));
  }
  for (int copy = 0; copy < 2; ++copy)
    for (size_t i = 0; i < n; ++i) {
      const std::string pre = (copy ? "single" : "merged") + std::to_string(i) + "_";
      auto persistent = [&](const std::string &name, const Shape &shape) {
        return int32_t(b.buffer(pre + name, f, shape, BufferKind::Persistent));
      };
      State &s = st[copy];
      s.adamP.push_back(persistent("adam", shapes[i]));
      s.m1.push_back(persistent("m1", shapes[i]));
      s.m2.push_back(persistent("m2", shapes[i]));
      s.b1p.push_back(persistent("b1pow", {1}));
      s.b2p.push_back(persistent("b2pow", {1}));
      s.momP.push_back(persistent("mom", shapes[i]));
      s.vel.push_back(persistent("vel", shapes[i]));
      s.sgdP.push_back(persistent("sgd", shapes[i]));
      // Both copies start from the same values (same seeds).
      int paramSeed = int(i) * 3 + 1;
      for (int32_t p : {s.adamP.back(), s.momP.back(), s.sgdP.back()})
        b.call(start, "uniform_random", {}, {p},
               {AttrDesc::ofFloat("min", -1), AttrDesc::ofFloat("max", 1),
                AttrDesc::ofInt("seed", paramSeed++)});
      for (int32_t z : {s.m1.back(), s.m2.back(), s.vel.back()})
        b.call(start, "fill", {}, {z}, {AttrDesc::ofFloat("value", 0)});
      b.call(start, "fill", {}, {s.b1p.back()}, {AttrDesc::ofFloat("value", 0.9)});
      b.call(start, "fill", {}, {s.b2p.back()}, {AttrDesc::ofFloat("value", 0.99)});
    }
  const std::vector<AttrDesc> adam = adamAttrs(true);
  const std::vector<AttrDesc> momentum = {AttrDesc::ofFloat("mu", 0.9),
                                          AttrDesc::ofInt("use_nesterov", 1)};
  const State &m = st[0], &one = st[1];
  // (Taken after the startup program's calls: adding a program may move
  // the others.)
  auto &main = b.program("train");
  for (size_t i = 0; i < n; ++i)
    main.feeds.push_back({"g" + std::to_string(i), grads[i]});
  b.call(main, "merged_adam", concat<int32_t>({m.adamP, grads, m.m1, m.m2, m.b1p, m.b2p, {rate}}),
         concat<int32_t>({m.adamP, m.m1, m.m2, m.b1p, m.b2p}), withCount(adam, n));
  b.call(main, "merged_momentum", concat<int32_t>({m.momP, grads, m.vel, {rate}}),
         concat<int32_t>({m.momP, m.vel}), withCount(momentum, n));
  b.call(main, "merged_sgd", concat<int32_t>({m.sgdP, grads, {rate}}), m.sgdP, withCount({}, n));
  for (size_t i = 0; i < n; ++i) {
    b.call(main, "adam",
           {one.adamP[i], grads[i], one.m1[i], one.m2[i], one.b1p[i], one.b2p[i], rate},
           {one.adamP[i], one.m1[i], one.m2[i], one.b1p[i], one.b2p[i]}, adam);
    b.call(main, "momentum", {one.momP[i], grads[i], one.vel[i], rate}, {one.momP[i], one.vel[i]},
           momentum);
    b.call(main, "sgd", {one.sgdP[i], grads[i], rate}, {one.sgdP[i]});
  }
  auto session = b.session();
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->initialize("train").ok());
  for (size_t i = 0; i < n; ++i)
    expectSameBits(session->persistent("merged" + std::to_string(i) + "_adam"),
                   session->persistent("single" + std::to_string(i) + "_adam"), "initial");
  std::mt19937_64 rng(303);
  for (int threads : {1, 4}) {
    KernelThreads scope(threads);
    for (int step = 0; step < 2; ++step) {
      TensorMap feeds, fetches;
      for (size_t i = 0; i < n; ++i)
        feeds["g" + std::to_string(i)] = randomTensor(f, shapes[i], rng);
      Status s = session->run("train", feeds, fetches);
      ASSERT_TRUE(s.ok()) << s.message();
      for (size_t i = 0; i < n; ++i)
        for (const char *name : {"adam", "m1", "m2", "b1pow", "b2pow", "mom", "vel", "sgd"}) {
          const std::string suffix = std::to_string(i) + "_" + name;
          expectSameBits(session->persistent("merged" + suffix),
                         session->persistent("single" + suffix), suffix);
        }
    }
  }
  // The updates did happen.
  EXPECT_NE(elementAt(session->persistent("merged0_b1pow"), 0), float(0.9));
}

TEST(MergedOptimizerKernels, RejectOperandsThatDoNotFit) {
  const DType f = DType::Float32;
  const Tensor lr = scalar(f, 0.1);
  Tensor p0(f, {3}), p1(f, {4}), g0(f, {3}), g1(f, {4});
  std::vector<Tensor> out;
  auto fails = [&](const std::string &kernel, const std::vector<Tensor> &in,
                   const std::vector<OutputSpec> &specs, const std::vector<AttrDesc> &attrs,
                   const std::string &message) {
    Status s = runKernel(kernel, in, specs, attrs, out);
    ASSERT_FALSE(s.ok()) << message;
    EXPECT_CONTAINS(s.message(), kernel + " -> out0");
    EXPECT_CONTAINS(s.message(), message);
  };
  const std::vector<OutputSpec> sgdOuts = {{f, {3}}, {f, {4}}};
  fails("merged_sgd", {p0, p1, g0, g1, lr}, sgdOuts, withCount({}, 3),
        "count 3 needs 7 operands and 3 results");
  fails("merged_sgd", {p0, p1, g0, g1, lr}, sgdOuts, withCount({}, 0),
        "count 0 must be at least 1");
  fails("merged_sgd", {p0, p1, g0, Tensor(f, {5}), lr}, sgdOuts, withCount({}, 2),
        "grad[1] has 5 elements [5], expected 4");
  fails("merged_sgd", {p0, Tensor(DType::Float64, {4}), g0, g1, lr}, sgdOuts, withCount({}, 2),
        "param[1] has dtype f64 but param[0] has f32");
  fails("merged_sgd", {p0, p1, g0, g1, lr}, {{f, {3}}, {DType::Float64, {4}}}, withCount({}, 2),
        "param_out[1] has dtype f64 but param[1] has f32");
  fails("merged_sgd", {p0, p1, g0, g1, Tensor(f, {2})}, sgdOuts, withCount({}, 2),
        "lr f32[2] must have exactly one element");

  const std::vector<AttrDesc> momentum = withCount({AttrDesc::ofFloat("mu", 0.9)}, 2);
  fails("merged_momentum", {p0, p1, g0, g1, g0, Tensor(f, {5}), lr},
        {{f, {3}}, {f, {4}}, {f, {3}}, {f, {4}}}, momentum,
        "velocity[1] has 5 elements [5], expected 4");
  fails("merged_momentum", {p0, p1, g0, g1, g0, g1, lr}, {{f, {3}}, {f, {4}}, {f, {3}}, {f, {3}}},
        momentum, "velocity_out[1] has 3 elements [3], expected 4");

  const Tensor pow = scalar(f, 0.9);
  // ParamOut, Moment1Out, Moment2Out of both, then the four powers.
  const std::vector<OutputSpec> adamOuts = {{f, {3}}, {f, {4}}, {f, {3}}, {f, {4}}, {f, {3}},
                                            {f, {4}}, {f, {1}}, {f, {1}}, {f, {1}}, {f, {1}}};
  fails("merged_adam", {p0, p1, g0, g1, g0, g1, g0, g1, pow, pow, pow, Tensor(f, {2}), lr},
        adamOuts, withCount(adamAttrs(false), 2),
        "beta2_pow[1] f32[2] must have exactly one element");
  fails("merged_adam", {p0, p1, g0, g1, g0, g1, g0, Tensor(f, {3}), pow, pow, pow, pow, lr},
        adamOuts, withCount(adamAttrs(false), 2), "moment2[1] has 3 elements [3], expected 4");
}

} // namespace
