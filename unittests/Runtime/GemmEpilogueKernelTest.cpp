//===- GemmEpilogueKernelTest.cpp - gemm_epilogue and its gradient --------===//
//
// The fused kernels against the unfused kernels they replace, which must
// give the same bits (matmul, binary add and unary forward; unary_grad,
// reduce and matmuls backward, as the compiler lowers Paddle's ops), on
// every activation, every transpose, both dtypes and one and several
// kernel threads; against float64 references (the forward) and central
// differences of the forward kernel (the gradients); with absent optional
// operands; and the errors of operands that do not fit.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace distc::testing;
using distc::runtime::dtypeName;

namespace {

const char *const kActivations[] = {"none", "relu", "gelu", "gelu_tanh"};

/// One product op(x) [m, k] · op(y) [k, n].
struct Case {
  int64_t m, k, n;
  bool transX, transY;

  Shape xShape() const { return transX ? Shape{k, m} : Shape{m, k}; }
  Shape yShape() const { return transY ? Shape{n, k} : Shape{k, n}; }
  Shape outShape() const { return {m, n}; }
  std::vector<AttrDesc> attrs(const std::string &activation) const {
    return {AttrDesc::ofInt("trans_x", transX), AttrDesc::ofInt("trans_y", transY),
            AttrDesc::ofString("activation", activation)};
  }
  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
           (transX ? " trans_x" : "") + (transY ? " trans_y" : "");
  }
};

/// Small products, one large enough that matmul splits its GEMM over
/// threads and the epilogue its rows, and one with an empty K.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (bool tx : {false, true})
    for (bool ty : {false, true}) {
      out.push_back({5, 7, 3, tx, ty});
      out.push_back({130, 40, 96, tx, ty});
    }
  out.push_back({4, 0, 3, false, false});
  return out;
}

std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = elementAt(t, i);
  return v;
}

double activate(const std::string &act, double v) {
  if (act == "relu")
    return v > 0 ? v : 0;
  if (act == "gelu")
    return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  if (act == "gelu_tanh")
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  return v;
}

/// op(x)·op(y) + bias in float64.
std::vector<double> preActRef(const Case &c, const Tensor &x, const Tensor &y, const Tensor &bias) {
  std::vector<double> ref(size_t(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = elementAt(bias, j);
      for (int64_t p = 0; p < c.k; ++p)
        sum += elementAt(x, c.transX ? p * c.m + i : i * c.k + p) *
               elementAt(y, c.transY ? j * c.k + p : p * c.n + j);
      ref[size_t(i * c.n + j)] = sum;
    }
  return ref;
}

/// matmul, binary add of the bias as [1, N], then unary (none: no unary).
struct Unfused {
  Tensor preAct, out;
};
Unfused unfusedForward(const Case &c, DType dt, const Tensor &x, const Tensor &y,
                       const Tensor &bias, const std::string &act) {
  const Tensor product =
      run1("matmul", {x, y}, {dt, c.outShape()},
           {AttrDesc::ofInt("trans_a", c.transX), AttrDesc::ofInt("trans_b", c.transY)});
  const Tensor bias2d = tensorOf(dt, {1, c.n}, valuesOf(bias));
  Unfused u;
  u.preAct =
      run1("binary", {product, bias2d}, {dt, c.outShape()}, {AttrDesc::ofString("op", "add")});
  u.out = act == "none"
              ? u.preAct
              : run1("unary", {u.preAct}, {dt, c.outShape()}, {AttrDesc::ofString("op", act)});
  return u;
}

TEST(GemmEpilogueKernel, EqualsMatmulAddUnaryAndReference) {
  std::mt19937_64 rng(900);
  for (int threads : {1, 4}) {
    KernelThreads scope(threads);
    for (DType dt : {DType::Float32, DType::Float64})
      for (const Case &c : cases())
        for (const char *act : kActivations) {
          SCOPED_TRACE(c.name() + " " + act + " " + dtypeName(dt) + " threads " +
                       std::to_string(threads));
          Tensor x = randomTensor(dt, c.xShape(), rng), y = randomTensor(dt, c.yShape(), rng);
          Tensor bias = randomTensor(dt, {c.n}, rng);
          std::vector<Tensor> fused;
          Status s = runKernel("gemm_epilogue", {x, y, bias},
                               {{dt, c.outShape()}, {dt, c.outShape()}}, c.attrs(act), fused);
          ASSERT_TRUE(s.ok()) << s.message();
          const Unfused u = unfusedForward(c, dt, x, y, bias, act);
          expectSameBits(fused[0], u.out, "out");
          expectSameBits(fused[1], u.preAct, "pre_act");
          std::vector<double> ref = preActRef(c, x, y, bias);
          const double tol = dt == DType::Float32 ? 2e-5 : 1e-12;
          expectClose(fused[1], ref, tol, tol);
          for (double &v : ref)
            v = activate(act, v);
          expectClose(fused[0], ref, tol, tol);
        }
  }
}

TEST(GemmEpilogueKernel, WithoutPreAct) {
  std::mt19937_64 rng(901);
  const Case c{6, 5, 4, true, false};
  for (DType dt : {DType::Float32, DType::Float64})
    for (const char *act : kActivations) {
      SCOPED_TRACE(std::string(act) + " " + dtypeName(dt));
      Tensor x = randomTensor(dt, c.xShape(), rng), y = randomTensor(dt, c.yShape(), rng);
      Tensor bias = randomTensor(dt, {c.n}, rng);
      std::vector<Tensor> fused;
      Status s = runKernel("gemm_epilogue", {x, y, bias}, {{dt, c.outShape()}, {dt, c.outShape()}},
                           c.attrs(act), fused, {false, true});
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_FALSE(fused[1].defined());
      expectSameBits(fused[0], unfusedForward(c, dt, x, y, bias, act).out, "out");
    }
}

TEST(GemmEpilogueKernel, DefaultsToNoTransposeAndNoActivation) {
  std::mt19937_64 rng(902);
  const Case c{3, 4, 2, false, false};
  Tensor x = randomTensor(DType::Float64, c.xShape(), rng);
  Tensor y = randomTensor(DType::Float64, c.yShape(), rng);
  Tensor bias = randomTensor(DType::Float64, {c.n}, rng);
  const Tensor out = run1("gemm_epilogue", {x, y, bias}, {DType::Float64, c.outShape()}, {});
  expectClose(out, preActRef(c, x, y, bias), 1e-14, 1e-14);
}

TEST(GemmEpilogueKernel, RejectsOperandsThatDoNotFit) {
  const DType f = DType::Float32;
  Tensor x(f, {3, 5}), y(f, {5, 4}), bias(f, {4});
  std::vector<Tensor> out;
  auto fails = [&](const std::vector<Tensor> &in, const std::vector<OutputSpec> &specs,
                   const std::vector<AttrDesc> &attrs, const std::string &message) {
    Status s = runKernel("gemm_epilogue", in, specs, attrs, out);
    ASSERT_FALSE(s.ok()) << message;
    EXPECT_CONTAINS(s.message(), "gemm_epilogue -> out0");
    EXPECT_CONTAINS(s.message(), message);
  };
  fails({x, Tensor(f, {4, 4}), bias}, {{f, {3, 4}}}, {}, "shapes do not multiply");
  fails({x, y, bias}, {{f, {3, 4}}}, {AttrDesc::ofInt("trans_y", 1)}, "shapes do not multiply");
  fails({x, y, Tensor(f, {3})}, {{f, {3, 4}}}, {}, "bias has shape [3], expected [4]");
  fails({x, y, Tensor(f, {1, 4})}, {{f, {3, 4}}}, {}, "bias has shape [1,4], expected [4]");
  fails({x, y, bias}, {{f, {4, 3}}}, {}, "out has shape [4,3], expected [3,4]");
  fails({x, y, bias}, {{f, {3, 4}}, {f, {12}}}, {}, "pre_act has shape [12], expected [3,4]");
  fails({Tensor(f, {1, 3, 5}), y, bias}, {{f, {3, 4}}}, {}, "must be 2-D");
  fails({x, Tensor(DType::Float64, {5, 4}), bias}, {{f, {3, 4}}}, {},
        "y has dtype f64 but out has f32");
  fails({x, y, bias}, {{f, {3, 4}}}, {AttrDesc::ofString("activation", "tanh")},
        "unknown activation 'tanh'");
}

//===----------------------------------------------------------------------===//
// gemm_epilogue_grad
//===----------------------------------------------------------------------===//

/// The gradient's operands for one forward run: dout, and act_input (out
/// for relu, pre_act for the GELUs, absent for none).
struct GradInputs {
  Tensor x, y, bias, dout, actInput;
};

GradInputs gradInputs(const Case &c, DType dt, const std::string &act, std::mt19937_64 &rng) {
  GradInputs g;
  g.x = randomTensor(dt, c.xShape(), rng);
  g.y = randomTensor(dt, c.yShape(), rng);
  g.bias = randomTensor(dt, {c.n}, rng);
  g.dout = randomTensor(dt, c.outShape(), rng);
  if (act != "none") {
    std::vector<Tensor> fwd;
    Status s = runKernel("gemm_epilogue", {g.x, g.y, g.bias},
                         {{dt, c.outShape()}, {dt, c.outShape()}}, c.attrs(act), fwd);
    EXPECT_TRUE(s.ok()) << s.message();
    g.actInput = act == "relu" ? fwd[0] : fwd[1];
  }
  return g;
}

/// dx, dy, dbias and dact (the activation's gradient, scratch).
std::vector<OutputSpec> gradSpecs(const Case &c, DType dt) {
  return {{dt, c.xShape()}, {dt, c.yShape()}, {dt, {c.n}}, {dt, c.outShape()}};
}

/// unary_grad (none: dout itself), reduce over the rows, and the matmuls
/// of matmul_v2_grad's lowering.
std::vector<Tensor> unfusedGrad(const Case &c, DType dt, const GradInputs &g,
                                const std::string &act) {
  const Tensor d = act == "none" ? g.dout
                                 : run1("unary_grad", {g.actInput, g.dout}, {dt, c.outShape()},
                                        {AttrDesc::ofString("op", act)});
  const Tensor dbias = run1("reduce", {d}, {dt, {c.n}},
                            {AttrDesc::ofString("op", "sum"), AttrDesc::ofInts("axes", {0})});
  auto matmul = [&](const Tensor &a, bool ta, const Tensor &b, bool tb, const Shape &shape) {
    return run1("matmul", {a, b}, {dt, shape},
                {AttrDesc::ofInt("trans_a", ta), AttrDesc::ofInt("trans_b", tb)});
  };
  const bool tx = c.transX, ty = c.transY;
  const Tensor dx =
      !tx ? matmul(d, false, g.y, !ty, c.xShape()) : matmul(g.y, ty, d, true, c.xShape());
  const Tensor dy =
      !ty ? matmul(g.x, !tx, d, false, c.yShape()) : matmul(d, true, g.x, tx, c.yShape());
  return {dx, dy, dbias};
}

TEST(GemmEpilogueGradKernel, EqualsUnfusedGradients) {
  std::mt19937_64 rng(910);
  for (int threads : {1, 4}) {
    KernelThreads scope(threads);
    for (DType dt : {DType::Float32, DType::Float64})
      for (const Case &c : cases())
        for (const char *act : kActivations) {
          SCOPED_TRACE(c.name() + " " + act + " " + dtypeName(dt) + " threads " +
                       std::to_string(threads));
          const GradInputs g = gradInputs(c, dt, act, rng);
          std::vector<Tensor> fused;
          Status s = runKernel("gemm_epilogue_grad", {g.dout, g.x, g.y, g.actInput},
                               gradSpecs(c, dt), c.attrs(act), fused);
          ASSERT_TRUE(s.ok()) << s.message();
          const std::vector<Tensor> want = unfusedGrad(c, dt, g, act);
          expectSameBits(fused[0], want[0], "dx");
          expectSameBits(fused[1], want[1], "dy");
          expectSameBits(fused[2], want[2], "dbias");
        }
  }
}

TEST(GemmEpilogueGradKernel, BiasGradientOfOneColumn) {
  // N = 1: reduce sums the contiguous column its own way (rowSum).
  std::mt19937_64 rng(911);
  const Case c{50, 3, 1, false, false};
  for (DType dt : {DType::Float32, DType::Float64}) {
    const GradInputs g = gradInputs(c, dt, "gelu", rng);
    std::vector<Tensor> fused;
    Status s = runKernel("gemm_epilogue_grad", {g.dout, g.x, g.y, g.actInput}, gradSpecs(c, dt),
                         c.attrs("gelu"), fused);
    ASSERT_TRUE(s.ok()) << s.message();
    const std::vector<Tensor> want = unfusedGrad(c, dt, g, "gelu");
    for (int i = 0; i < 3; ++i)
      expectSameBits(fused[i], want[i], "output " + std::to_string(i));
  }
}

TEST(GemmEpilogueGradKernel, AgainstFiniteDifferencesOfTheForward) {
  std::mt19937_64 rng(912);
  const DType f64 = DType::Float64;
  for (bool tx : {false, true})
    for (bool ty : {false, true})
      for (const char *act : kActivations) {
        const Case c{3, 4, 2, tx, ty};
        SCOPED_TRACE(c.name() + " " + act);
        const GradInputs g = gradInputs(c, f64, act, rng);
        std::vector<Tensor> grads;
        Status s = runKernel("gemm_epilogue_grad", {g.dout, g.x, g.y, g.actInput},
                             gradSpecs(c, f64), c.attrs(act), grads);
        ASSERT_TRUE(s.ok()) << s.message();
        for (int wrt = 0; wrt < 3; ++wrt) {
          const std::vector<double> numeric =
              numericGradient("gemm_epilogue", {g.x, g.y, g.bias}, {{f64, c.outShape()}},
                              c.attrs(act), 0, g.dout, wrt);
          expectClose(grads[wrt], numeric, 1e-6, 1e-7);
        }
      }
}

TEST(GemmEpilogueGradKernel, ComputesOnlyTheGivenOutputs) {
  std::mt19937_64 rng(913);
  const Case c{7, 6, 5, false, true};
  for (DType dt : {DType::Float32, DType::Float64})
    for (const char *act : kActivations) {
      SCOPED_TRACE(std::string(act) + " " + dtypeName(dt));
      const GradInputs g = gradInputs(c, dt, act, rng);
      const std::vector<Tensor> want = unfusedGrad(c, dt, g, act);
      for (int only = 0; only < 3; ++only) {
        std::vector<bool> absent = {true, true, true};
        absent[only] = false;
        std::vector<Tensor> fused;
        Status s = runKernel("gemm_epilogue_grad", {g.dout, g.x, g.y, g.actInput}, gradSpecs(c, dt),
                             c.attrs(act), fused, absent);
        ASSERT_TRUE(s.ok()) << s.message();
        for (int i = 0; i < 3; ++i)
          EXPECT_EQ(fused[i].defined(), i == only);
        expectSameBits(fused[only], want[only], "output " + std::to_string(only));
      }
    }
}

/// dout stays as it was: the program fetches it after the call.
TEST(GemmEpilogueGradKernel, DoesNotWriteDout) {
  std::mt19937_64 rng(914);
  const Case c{8, 3, 6, false, false};
  const DType f = DType::Float32;
  for (const char *act : kActivations) {
    SCOPED_TRACE(act);
    const GradInputs g = gradInputs(c, f, act, rng);
    ArtifactBuilder b;
    auto &p = b.program("predict");
    const int dout = b.buffer("dout", f, c.outShape(), BufferKind::Feed);
    const int x = b.buffer("x", f, c.xShape(), BufferKind::Feed);
    const int y = b.buffer("y", f, c.yShape(), BufferKind::Feed);
    const int actIn =
        g.actInput.defined() ? b.buffer("act", f, c.outShape(), BufferKind::Feed) : -1;
    const int dx = b.buffer("dx", f, c.xShape());
    const int dy = b.buffer("dy", f, c.yShape());
    const int dbias = b.buffer("dbias", f, Shape{c.n});
    const int dact = g.actInput.defined() ? b.buffer("dact", f, c.outShape()) : -1;
    p.feeds = {{"dout", dout}, {"x", x}, {"y", y}};
    if (actIn >= 0)
      p.feeds.push_back({"act", actIn});
    p.fetches = {{"dout", dout}, {"dbias", dbias}};
    b.call(p, "gemm_epilogue_grad", {dout, x, y, actIn}, {dx, dy, dbias, dact}, c.attrs(act));
    auto session = b.session();
    ASSERT_TRUE(session);
    TensorMap feeds = {{"dout", g.dout.clone()}, {"x", g.x}, {"y", g.y}}, fetches;
    if (actIn >= 0)
      feeds["act"] = g.actInput;
    Status s = session->run("predict", feeds, fetches);
    ASSERT_TRUE(s.ok()) << s.message();
    expectSameBits(fetches["dout"], g.dout, "dout");
    expectSameBits(fetches["dbias"], unfusedGrad(c, f, g, act)[2], "dbias");
  }
}

TEST(GemmEpilogueGradKernel, RejectsOperandsThatDoNotFit) {
  const DType f = DType::Float32;
  const Case c{3, 5, 4, false, false};
  Tensor dout(f, {3, 4}), x(f, {3, 5}), y(f, {5, 4}), act(f, {3, 4});
  std::vector<Tensor> out;
  auto fails = [&](const std::vector<Tensor> &in, const std::vector<OutputSpec> &specs,
                   const std::vector<AttrDesc> &attrs, const std::string &message) {
    Status s = runKernel("gemm_epilogue_grad", in, specs, attrs, out);
    ASSERT_FALSE(s.ok()) << message;
    EXPECT_CONTAINS(s.message(), message);
  };
  const std::vector<OutputSpec> specs = gradSpecs(c, f);
  fails({dout, x, y, Tensor()}, specs, c.attrs("gelu"), "'gelu' needs act_input");
  fails({dout, x, y, Tensor(f, {4, 3})}, specs, c.attrs("relu"),
        "act_input has shape [4,3], expected [3,4]");
  fails({Tensor(f, {3, 5}), x, y, act}, specs, c.attrs("relu"),
        "dout has shape [3,5], expected [3,4]");
  fails({dout, x, Tensor(f, {4, 4}), act}, specs, c.attrs("relu"), "shapes do not multiply");
  fails({dout, x, y, act}, {{f, {5, 3}}, {f, {5, 4}}, {f, {4}}}, c.attrs("relu"),
        "dx has shape [5,3], expected [3,5]");
  fails({dout, x, y, act}, {{f, {3, 5}}, {f, {4, 5}}, {f, {4}}}, c.attrs("relu"),
        "dy has shape [4,5], expected [5,4]");
  fails({dout, x, y, act}, {{f, {3, 5}}, {f, {5, 4}}, {f, {3}}}, c.attrs("relu"),
        "dbias has shape [3], expected [4]");
  fails({dout, x, y, Tensor(DType::Float64, {3, 4})}, specs, c.attrs("relu"),
        "act_input has dtype f64 but dout has f32");
  fails({dout, x, y, act}, specs, c.attrs("sigmoid"), "unknown activation 'sigmoid'");
  fails({dout, x, y, act}, {specs[0], specs[1], specs[2]}, c.attrs("relu"), "'relu' needs dact");
  fails({dout, x, y, act}, {specs[0], specs[1], specs[2], {f, {4, 3}}}, c.attrs("relu"),
        "dact has shape [4,3], expected [3,4]");
}

} // namespace
